package mpi;

/** The {@link mpjdev.Comm} of a facade communicator ({@link Comm#mpjdevComm}): its size and this process's rank. */
final class DeviceComm extends mpjdev.Comm {
    private final org.railyard.Comm nat;

    DeviceComm(org.railyard.Comm nat) {
        this.nat = nat;
        int context = nat.contextId();
        this.sendctxt = context;
        this.recvctxt = context;
        this.collctxt = context;
    }

    @Override
    public int size() {
        return nat.size();
    }

    @Override
    public int id() {
        return nat.rank();
    }
}
