package mpi;

import org.railyard.error.RailyardException;

/**
 * An intercommunicator: a local group and a remote group; point-to-point ranks name processes
 * of the remote group, {@link #Size()}, {@link #Rank()} and {@link #Group()} describe the local one.
 *
 * <h2>How it maps to Railyard</h2>
 * It wraps an intercommunicator of Railyard ({@link org.railyard.Comm#isInter()}), made by
 * {@link Comm#Create_intercomm} (Railyard's {@code createIntercomm}: the two leaders agree over
 * the peer communicator, then each leader broadcasts the other group in its own). {@link #Merge}
 * is Railyard's {@code merge}, {@link #clone()} its {@code dup}. Point-to-point calls, objects
 * included, work across the groups as on any communicator.
 */
public class Intercomm extends Comm {
    Intercomm(org.railyard.Comm nat) {
        super(nat);
    }

    /**
     * See {@link Comm#Create_intercomm}: {@code peer} is the communicator the leaders share,
     * {@code local} the intracommunicator of this side's group.
     */
    static Intercomm create(Comm peer, Comm local, int localLeader, int remoteLeader, int tag) {
        if (local == null || local.Test_inter()) {
            throw MPIException.error("Create_intercomm: the local communicator must be an intracommunicator");
        }
        return MPIException.call(() -> new Intercomm(local.nat.createIntercomm(localLeader, peer.nat, remoteLeader, tag)));
    }

    /** Number of processes of the remote group. */
    public int Remote_size() throws MPIException {
        try {
            return nat.remoteSize();
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /** The remote group. */
    public Group Remote_group() throws MPIException {
        return MPIException.call(() -> new Group(nat.remoteGroup()));
    }

    /**
     * Collective over both groups: an intracommunicator over their union, the group whose
     * processes pass {@code high = false} ranked first. If both groups pass the same value, the
     * group whose first process has the lower world rank comes first.
     */
    public Intracomm Merge(boolean high) throws MPIException {
        return MPIException.call(() -> new Intracomm(nat.merge(high)));
    }

    /** Collective: a duplicate intercommunicator (same groups, new context). */
    @Override
    public Object clone() throws MPIException {
        return MPIException.call(() -> new Intercomm(nat.dup()));
    }

    @Override
    public boolean Test_inter() throws MPIException {
        return true;
    }
}
