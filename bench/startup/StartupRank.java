import org.railyard.Comm;
import org.railyard.Railyard;
import org.railyard.bootstrap.Pmi2Bootstrap;

/**
 * The Railyard rank of bench/startup.sh: joins the job, notes the wall-clock time (epoch
 * microseconds) at which init returned, then the PMI-2 requests it has sent so far (0 under other
 * bootstraps), does one barrier, counts again, and prints
 * {@code STARTUP rank=R size=N init_us=T pmi_init=A pmi_barrier=B}.
 */
public class StartupRank {
    public static void main(String[] args) {
        try (Railyard ry = Railyard.init(args)) {
            java.time.Instant now = java.time.Instant.now();
            long initUs = now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
            long pmiInit = Pmi2Bootstrap.requestsSent();
            Comm w = ry.world();
            w.barrier();
            long pmiBarrier = Pmi2Bootstrap.requestsSent();
            System.out.println("STARTUP rank=" + w.rank() + " size=" + w.size() + " init_us=" + initUs
                    + " pmi_init=" + pmiInit + " pmi_barrier=" + pmiBarrier);
        }
    }
}
