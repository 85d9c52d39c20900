package org.railyard.systest.ranks;

import static org.railyard.systest.ranks.RankSupport.require;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.railyard.Comm;
import org.railyard.Datatype;
import org.railyard.Op;
import org.railyard.Railyard;
import org.railyard.testkit.Allocation;

/**
 * The blocking collectives a solver calls in its loop (barrier, bcast, allreduce, reduce,
 * allgather, alltoall, reduce_scatter_block), each called {@code WARM} times and then measured,
 * with heap arrays and with off-heap segments, at two sizes, and the allreduce of one double that
 * returns the result ({@code allreduce_value}). The measured calls run in at least {@link Allocation#MIN_WINDOWS} windows (more, up to {@link Allocation#MAX_WINDOWS}, until every rank's least is under the goal)
 * of {@code PER_WINDOW} (see {@link Allocation}); it prints {@code ALLOC <collective> <bytes>
 * <heap|offheap> <B/call> (windows ...)}: the least heap bytes every thread of this JVM allocated
 * (the progress agent's included) per call in a window, then each window's figure. A call that
 * took a request, a list of counts or an error message per block from the heap would show
 * here as a hundred bytes and more. A bcast's root and a reduce's leaves can run any number of
 * calls ahead, and the messages they leave waiting take records from a pool that grows with
 * that backlog; those two are measured with a barrier after each call (a barrier allocates
 * nothing, as its own line shows), so what they show is the cost of a call, not of the backlog.
 * The results are checked once per collective and size; the
 * program ends with {@code OK alloc rank R}. The test holds the numbers to its bound.
 */
public final class CollAllocRanks {
    private static final int WARM = 1000;
    /** Bytes per call: room for a pool growing once during the measured calls, not for a request per call. */
    public static final double GOAL = 32;
    private static final int PER_WINDOW = 1000;
    private static final int[] SIZES = {8, 1024};

    private CollAllocRanks() {
    }

    public static void main(String[] args) {
        try (Railyard ry = Railyard.init(args); Arena arena = Arena.ofShared()) {
            Comm c = ry.world();
            int me = c.rank();
            int p = c.size();
            for (int size : SIZES) {
                int n = size / Double.BYTES;
                double[] din = new double[n];
                double[] dout = new double[n];
                byte[] sb = new byte[size * p];
                byte[] rb = new byte[size * p];
                MemorySegment sin = arena.allocate((long) size * p, 64);
                MemorySegment sout = arena.allocate((long) size * p, 64);
                for (int i = 0; i < n; i++) {
                    din[i] = me + i;
                }
                for (int i = 0; i < size * p; i++) {
                    sb[i] = (byte) (me * 7 + i);
                    sin.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (me * 7 + i));
                }
                measure(c, "barrier", size, "heap", c::barrier, () -> { });
                measure(c, "bcast", size, "heap", () -> {
                    c.bcast(me == 0 ? sb : rb, 0, size, 0);
                    c.barrier();
                },
                        () -> require(me == 0 || rb[size - 1] == (byte) (size - 1), "bcast"));
                measure(c, "allreduce", size, "heap", () -> c.allreduce(din, 0, dout, 0, n, Op.SUM),
                        () -> require(dout[n - 1] == p * (p - 1) / 2.0 + (double) p * (n - 1), "allreduce: " + dout[n - 1]));
                measure(c, "reduce", size, "heap", () -> {
                    c.reduce(din, 0, dout, 0, n, Op.SUM, 0);
                    c.barrier();
                },
                        () -> require(me != 0 || dout[0] == p * (p - 1) / 2.0, "reduce: " + dout[0]));
                measure(c, "allgather", size, "heap", () -> c.allgather(sb, 0, size, rb, 0, size),
                        () -> require(rb[size * p - 1] == (byte) ((p - 1) * 7 + size - 1), "allgather"));
                measure(c, "alltoall", size, "heap", () -> c.alltoall(sb, 0, size, rb, 0, size),
                        () -> require(rb[size * p - 1] == (byte) ((p - 1) * 7 + me * size + size - 1), "alltoall"));
                if (n >= p) {
                    measure(c, "reduce_scatter_block", size, "heap", () -> c.reduceScatterBlock(din, 0, dout, 0, n / p, Op.SUM),
                            () -> require(dout[0] == p * (p - 1) / 2.0 + (double) p * (me * (n / p)), "reduce_scatter_block"));
                }
                measure(c, "bcast", size, "offheap", () -> {
                    c.bcast(me == 0 ? sin : sout, 0, size, Datatype.BYTE, 0);
                    c.barrier();
                }, () -> { });
                measure(c, "allreduce", size, "offheap", () -> c.allreduce(sin, 0, sout, 0, n, Datatype.DOUBLE, Op.SUM),
                        () -> { });
                measure(c, "allgather", size, "offheap",
                        () -> c.allgather(sin, 0, size, Datatype.BYTE, sout, 0, size, Datatype.BYTE),
                        () -> require(sout.get(java.lang.foreign.ValueLayout.JAVA_BYTE, (long) size * p - 1)
                                == (byte) ((p - 1) * 7 + size - 1), "allgather off-heap"));
                measure(c, "alltoall", size, "offheap",
                        () -> c.alltoall(sin, 0, size, Datatype.BYTE, sout, 0, size, Datatype.BYTE),
                        () -> require(sout.get(java.lang.foreign.ValueLayout.JAVA_BYTE, (long) size * p - 1)
                                == (byte) ((p - 1) * 7 + me * size + size - 1), "alltoall off-heap"));
            }
            // the one-value convenience a solver calls for its residual
            double[] got = new double[1];
            measure(c, "allreduce_value", 8, "heap", () -> got[0] = c.allreduce(me + 1.0, Op.SUM),
                    () -> require(got[0] == p * (p + 1) / 2.0, "allreduce of one value: " + got[0]));
            System.out.println("OK alloc rank " + me);
        }
    }

    private static void measure(Comm c, String what, int size, String buffers, Runnable call, Runnable check) {
        call.run();
        check.run();
        for (int i = 1; i < WARM; i++) {
            call.run();
        }
        try {
            Allocation.Windows w = Allocation.perCallUntil(PER_WINDOW, GOAL, c::barrier,
                    mine -> c.allreduce(mine ? 1.0 : 0.0, Op.MIN) == 1.0, call::run);
            System.out.println("ALLOC " + what + " " + size + " " + buffers + " " + w);
        } catch (Exception e) {
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
    }
}
