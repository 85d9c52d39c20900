import mpi.MPI;

/** The MPJ Express rank of bench/startup.sh: init, the time it returned, finalize. */
public class EmptyMpj {
    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        java.time.Instant now = java.time.Instant.now();
        System.out.println("STARTUP rank=" + MPI.COMM_WORLD.Rank() + " size=" + MPI.COMM_WORLD.Size() + " init_us="
                + (now.getEpochSecond() * 1_000_000L + now.getNano() / 1000) + " pmi_init=0 pmi_barrier=0");
        MPI.Finalize();
    }
}
