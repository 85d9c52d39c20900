import org.railyard.Comm;
import org.railyard.Railyard;
public class EndProbe {
    static long ms() { return System.currentTimeMillis() - Long.parseLong(System.getenv("RAILYARD_LAUNCH_US")) / 1000; }
    public static void main(String[] args) {
        long a, b, c;
        Railyard ry = Railyard.init(args);
        a = ms();
        Comm w = ry.world();
        w.barrier();
        b = ms();
        ry.close();
        c = ms();
        for (Thread t : Thread.getAllStackTraces().keySet()) if (t.getName().startsWith("railyard-")) System.out.println("ALIVE " + w.rank() + " " + t.getName() + " " + t.getState());
        System.out.println("END rank=" + w.rank() + " init=" + a + " barrier=" + b + " closed=" + c);
    }
}
