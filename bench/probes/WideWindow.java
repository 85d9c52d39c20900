import org.railyard.Comm;
import org.railyard.Op;
import org.railyard.Railyard;
import org.railyard.Window;
import java.lang.foreign.ValueLayout;

/**
 * A window over every rank of a job: each rank puts a tag and a record ({@code -Dwide.big}, 8192
 * bytes by default) into both ring neighbours' parts, accumulates 1 into rank 0, fences and checks
 * what arrived, three rounds. Run as a user would, with many ranks as threads:
 * {@code javac -cp railyard/target/railyard-*.jar -d /tmp/ww bench/probes/WideWindow.java}, then
 * {@code bin/railyard run --threads -np 160 -cp /tmp/ww WideWindow} (add {@code --transports tcp}
 * for the window's message path). Log: bench/results/log/2026-11-29-1230-threads-window-fds.md.
 */
public final class WideWindow {
    public static void main(String[] args) {
        try (Railyard ry = Railyard.init(args)) {
            Comm c = ry.world();
            int me = c.rank(), n = c.size();
            int big = Integer.parseInt(System.getProperty("wide.big", "8192"));
            long slot = 8 + big;
            try (Window w = Window.allocate(c, slot * n + 8, 1)) {
                w.fence(Window.MODE_NOPRECEDE);
                for (int round = 0; round < 3; round++) {
                    byte[] rec = new byte[big];
                    java.util.Arrays.fill(rec, (byte) (me * 7 + round));
                    long[] tag = {me * 1000L + round};
                    int right = (me + 1) % n, left = (me + n - 1) % n;
                    w.put(tag, 0, 1, right, slot * me);
                    w.put(rec, 0, big, right, slot * me + 8);
                    w.put(tag, 0, 1, left, slot * me);
                    w.put(rec, 0, big, left, slot * me + 8);
                    w.accumulate(new long[] {1}, 0, 1, 0, slot * n, Op.SUM);
                    w.fence(0);
                    for (int from : new int[] {left, right}) {
                        long got = w.memory().get(ValueLayout.JAVA_LONG, slot * from);
                        if (got != from * 1000L + round) throw new IllegalStateException("rank " + me + " round " + round + ": tag from " + from + " = " + got);
                        byte b = w.memory().get(ValueLayout.JAVA_BYTE, slot * from + 8 + big - 1);
                        if (b != (byte) (from * 7 + round)) throw new IllegalStateException("rank " + me + ": last byte from " + from + " = " + b);
                    }
                    if (me == 0) {
                        long sum = w.memory().get(ValueLayout.JAVA_LONG, slot * n);
                        if (sum != (long) n * (round + 1)) throw new IllegalStateException("sum " + sum + " expected " + (long) n * (round + 1));
                    }
                    c.barrier(); // the next round's puts may land only after every check read this round's
                }
                w.fence(Window.MODE_NOSUCCEED);
            }
            if (me == 0) System.out.println("OK wide window of " + n + " members, records of " + big + " B");
        }
    }
}
