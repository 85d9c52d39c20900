import java.lang.management.ManagementFactory;
import org.railyard.Comm;
import org.railyard.Railyard;
/** Rank: main thread cpu (ms) to enter main, in init, barrier (first connections), close; wall ms from launch of each. */
public class SplitProbe {
    static long cpu() { return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() / 1_000_000; }
    static long ms() { return System.currentTimeMillis() - Long.parseLong(System.getenv("RAILYARD_LAUNCH_US")) / 1000; }
    public static void main(String[] args) {
        long c0 = cpu(), w0 = ms();
        Railyard ry = Railyard.init(args);
        long c1 = cpu(), w1 = ms();
        Comm w = ry.world();
        w.barrier();
        long c2 = cpu(), w2 = ms();
        ry.close();
        long c3 = cpu(), w3 = ms();
        System.out.println("SPLIT rank=" + w.rank() + " cpu_main=" + c0 + " cpu_init=" + (c1 - c0) + " cpu_barrier=" + (c2 - c1) + " cpu_close=" + (c3 - c2)
            + " w_main=" + w0 + " w_init=" + w1 + " w_barrier=" + w2 + " w_close=" + w3);
    }
}
