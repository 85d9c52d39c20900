package mpjdev;

/**
 * The device communicator under an {@code mpi.Comm} ({@code comm.mpjdevComm}), as far as MPI
 * programs use it: its size, this process's rank ({@link #id()}), and the context numbers. On
 * Railyard it describes the facade's communicator; the device-level sends and receives of MPJ
 * Express are not provided (see the package comment).
 */
public abstract class Comm {
    /** Context numbers of point-to-point sends, receives and collectives; Railyard uses one context per communicator, given in all three. */
    public int sendctxt;
    public int recvctxt;
    public int collctxt;

    public Comm() {
    }

    /** Number of processes. */
    public int size() throws MPJDevException {
        throw new MPJDevException("this device communicator has no processes");
    }

    /** This process's rank. */
    public int id() throws MPJDevException {
        throw new MPJDevException("this device communicator has no processes");
    }

    /** Frees nothing: the {@code mpi} communicator owns the resources ({@code Free()} there). */
    public void free() throws MPJDevException {
    }
}
