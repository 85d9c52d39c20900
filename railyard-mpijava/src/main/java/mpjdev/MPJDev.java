package mpjdev;

/**
 * MPJ Express 0.44's device entry point, as far as MPI programs use it: the per-message
 * overheads and the world's device communicator. Set by {@code mpi.MPI.Init}.
 */
public class MPJDev {
    /** The name of the device: "railyard" once {@code MPI.Init} ran, null before. */
    public static String deviceName;
    /** The device communicator of {@code MPI.COMM_WORLD}; set by {@code MPI.Init}. */
    public static Comm WORLD;

    public MPJDev() {
    }

    /** Bytes a send takes from the program's buffer besides its data: 0 on Railyard (as in MPJ Express's Java devices). */
    public static int getSendOverhead() {
        return 0;
    }

    /** Bytes a receive needs in the program's buffer besides its data: 0 on Railyard. */
    public static int getRecvOverhead() {
        return 0;
    }
}
