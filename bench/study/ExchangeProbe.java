import java.util.Locale;
import org.railyard.Comm;
import org.railyard.Railyard;
import org.railyard.Request;

/**
 * What an exchange between two ranks costs when each computes between exchanges, as the obstacle
 * demo's iterations do, rather than in a tight loop as `railyard bench latency` measures it.
 *
 * <pre>
 *   bench/study/ry run -np 2 -cp bench/out/probe ExchangeProbe WORK_US ITERATIONS [PASSES]
 * </pre>
 *
 * (compile first: {@code javac -cp 'railyard-cli/target/lib/*' -d bench/out/probe bench/study/ExchangeProbe.java}).
 * Each iteration a rank busy-computes for WORK_US microseconds (a timed loop), then posts a receive
 * from the other rank and sends it 16 bytes, and waits for the receive. Every PASSES (default 3)
 * passes of ITERATIONS, each rank prints the means per iteration of: the computing time, the wait
 * for the exchange, the time to post and send, and how far apart the two ranks started the
 * exchange (from the clock readings they send each other: one machine, one monotonic clock).
 * Later passes run on code the JIT has compiled by then; the first ones show what a job pays while
 * the communication code still runs in the interpreter.
 */
public final class ExchangeProbe {
    private static double sink;

    private ExchangeProbe() {
    }

    private static void compute(long nanos) {
        long end = System.nanoTime() + nanos;
        double x = 1;
        while (System.nanoTime() - end < 0) {
            for (int i = 0; i < 100; i++) {
                x = x * 1.0000001 + 1e-9;
            }
        }
        sink += x;
    }

    public static void main(String[] args) {
        try (Railyard ry = Railyard.init(args)) {
            Comm world = ry.world();
            if (world.size() != 2 || args.length < 2) {
                if (world.rank() == 0) {
                    System.err.println("usage: ExchangeProbe WORK_US ITERATIONS [PASSES], on exactly 2 ranks");
                }
                System.exit(2);
            }
            long work = Long.parseLong(args[0]) * 1000;
            int iterations = Integer.parseInt(args[1]);
            int passes = args.length > 2 ? Integer.parseInt(args[2]) : 3;
            int peer = 1 - world.rank();
            long[] out = new long[1];
            long[] in = new long[1];
            for (int pass = 1; pass <= passes; pass++) {
                long computing = 0;
                long waiting = 0;
                long posting = 0;
                long skew = 0;
                long previous = System.nanoTime();
                for (int k = 0; k < iterations; k++) {
                    compute(work);
                    long arrived = System.nanoTime();
                    computing += arrived - previous;
                    Request r = world.irecv(in, 0, 1, peer, 7);
                    out[0] = arrived;
                    world.send(out, 0, 1, peer, 7);
                    long sent = System.nanoTime();
                    r.await();
                    long done = System.nanoTime();
                    posting += sent - arrived;
                    waiting += done - arrived;
                    skew += Math.abs(arrived - in[0]);
                    previous = done;
                }
                System.out.printf(Locale.ROOT, "rank %d pass %d: compute %.1f us, exchange %.1f us (post and send %.1f us),"
                        + " ranks %.1f us apart%n", world.rank(), pass, computing / 1e3 / iterations,
                        waiting / 1e3 / iterations, posting / 1e3 / iterations, skew / 1e3 / iterations);
            }
        }
    }
}
