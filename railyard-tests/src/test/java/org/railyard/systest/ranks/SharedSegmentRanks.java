package org.railyard.systest.ranks;

import static org.railyard.systest.ranks.RankSupport.require;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.railyard.Comm;
import org.railyard.Datatype;
import org.railyard.Op;
import org.railyard.Railyard;
import org.railyard.error.RailyardException;

/**
 * Large collectives of heap arrays between the processes of one node, which go through the
 * communicator's shared segment by default (the test reads the choice log to know). Argument
 * {@code check}: a bcast of 1 MiB and 8 bytes from every root, an allgather of 160 KB from each,
 * an allgatherv with an empty block and gaps, an alltoall of 640 KB blocks from a native segment
 * into a direct buffer, an alltoall of 1 MiB blocks, an allreduce, a reduce to
 * the last rank and a reduce_scatter_block (sums) of 1 MiB and 8 bytes, on the world and on a
 * split of it (all ranks but the last, and the last alone); each verified element by element,
 * then {@code OK shared rank R}. Argument
 * {@code die}: after one large bcast (the segment is mapped), the last rank halts; the others
 * then start another and must see it fail, printing {@code FAILED <error class> <message>}, not
 * wait for ever.
 */
public final class SharedSegmentRanks {
    private SharedSegmentRanks() {
    }

    static double value(int rank, int i) {
        return rank * 1e7 + i * 0.5;
    }

    public static void main(String[] args) {
        try (Railyard ry = Railyard.init(args)) {
            Comm world = ry.world();
            int me = ry.rank();
            int p = ry.size();
            if (args[0].equals("die")) {
                die(world, me, p);
                return;
            }
            check(world, "world");
            // all but the last rank, which makes a communicator of its own
            Comm part = world.split(me == p - 1 ? 1 : 0, me);
            check(part, "split");
            System.out.println("OK shared rank " + me);
        }
    }

    private static void check(Comm c, String name) {
        int me = c.rank();
        int p = c.size();
        int n = 131_073; // 1 MiB and one double
        for (int root = 0; root < p; root++) {
            double[] b = new double[n];
            if (me == root) {
                for (int i = 0; i < n; i++) {
                    b[i] = value(root, i);
                }
            }
            c.bcast(b, 0, n, root);
            for (int i = 0; i < n; i++) {
                require(b[i] == value(root, i), name + ": bcast from " + root + " element " + i + " is " + b[i]);
            }
        }
        int each = 40_000;
        int[] mine = new int[each];
        for (int i = 0; i < each; i++) {
            mine[i] = me * 1_000_000 + i;
        }
        int[] all = new int[p * each];
        c.allgather(mine, 0, each, all, 0, each);
        for (int r = 0; r < p; r++) {
            for (int i = 0; i < each; i++) {
                require(all[r * each + i] == r * 1_000_000 + i, name + ": allgather block " + r + " element " + i
                        + " is " + all[r * each + i]);
            }
        }
        int[] counts = new int[p];
        int[] displs = new int[p];
        int at = 0;
        for (int r = p - 1; r >= 0; r--) {
            counts[r] = r == 1 ? 0 : 30_000 * (r + 1);
            displs[r] = at;
            at += counts[r] + 3;
        }
        double[] own = new double[counts[me]];
        for (int i = 0; i < own.length; i++) {
            own[i] = value(me, i);
        }
        double[] gathered = new double[at];
        c.allgatherv(own, 0, own.length, gathered, 0, counts, displs);
        for (int r = 0; r < p; r++) {
            for (int i = 0; i < counts[r]; i++) {
                require(gathered[displs[r] + i] == value(r, i), name + ": allgatherv block " + r + " element " + i);
            }
            require(gathered[displs[r] + counts[r]] == 0, name + ": allgatherv wrote past block " + r);
        }
        // before the alltoall of heap arrays: after a call that finds a heap array, the next 63 do not ask
        nativeAlltoall(c, name);
        int block = 131_072; // 1 MiB of longs to each rank
        long[] send = new long[p * block];
        for (int r = 0; r < p; r++) {
            for (int i = 0; i < block; i++) {
                send[r * block + i] = me * 1_000_000_000L + r * 1_000_000L + i;
            }
        }
        long[] recv = new long[p * block];
        c.alltoall(send, 0, block, recv, 0, block);
        for (int r = 0; r < p; r++) {
            for (int i = 0; i < block; i++) {
                require(recv[r * block + i] == r * 1_000_000_000L + me * 1_000_000L + i,
                        name + ": alltoall block from " + r + " element " + i);
            }
        }
        allreduce(c, name);
    }

    /**
     * An alltoall of 640 000-byte blocks from a native segment (one long in) into a direct
     * ByteBuffer: by default every member reads its blocks straight from the others' memory.
     */
    private static void nativeAlltoall(Comm c, String name) {
        int me = c.rank();
        int p = c.size();
        int block = 80_000; // longs: blocks from 512 KiB are read by default
        try (Arena arena = Arena.ofShared()) {
            MemorySegment send = arena.allocate(8L * (p * block + 1), 8);
            for (int r = 0; r < p; r++) {
                for (int i = 0; i < block; i++) {
                    send.setAtIndex(ValueLayout.JAVA_LONG, 1 + (long) r * block + i, me * 1_000_000_000L + r * 1_000_000L + i);
                }
            }
            ByteBuffer recv = ByteBuffer.allocateDirect(8 * (p * block + 2)).order(ByteOrder.nativeOrder());
            c.alltoall(send, 1, block, Datatype.LONG, recv, 1, block, Datatype.LONG);
            for (int r = 0; r < p; r++) {
                for (int i = 0; i < block; i++) {
                    long got = recv.getLong(8 * (1 + r * block + i));
                    require(got == r * 1_000_000_000L + me * 1_000_000L + i,
                            name + ": native alltoall block from " + r + " element " + i + " is " + got);
                }
            }
            require(recv.getLong(0) == 0 && recv.getLong(8 * (p * block + 1)) == 0, name + ": native alltoall wrote outside its blocks");
        }
    }

    private static void allreduce(Comm c, String name) {
        int me = c.rank();
        int p = c.size();
        int n = 131_073; // 1 MiB and one double
        double[] mine = new double[n];
        for (int i = 0; i < n; i++) {
            mine[i] = value(me, i);
        }
        double[] sum = new double[n];
        c.allreduce(mine, 0, sum, 0, n, Op.SUM);
        for (int i = 0; i < n; i++) {
            double expect = 0;
            for (int r = 0; r < p; r++) {
                expect += value(r, i);
            }
            require(sum[i] == expect, name + ": allreduce element " + i + " is " + sum[i] + ", not " + expect);
        }
        int root = p - 1;
        double[] reduced = new double[n];
        c.reduce(mine, 0, reduced, 0, n, Op.SUM, root);
        for (int i = 0; me == root && i < n; i++) {
            require(reduced[i] == sum[i], name + ": reduce element " + i + " is " + reduced[i] + ", not " + sum[i]);
        }
        int block = n / p;
        double[] part = new double[block];
        c.reduceScatterBlock(mine, 0, part, 0, block, Op.SUM);
        for (int i = 0; i < block; i++) {
            require(part[i] == sum[me * block + i], name + ": reduce_scatter_block element " + i + " is " + part[i]
                    + ", not " + sum[me * block + i]);
        }
    }

    private static void die(Comm world, int me, int p) {
        double[] b = new double[131_072];
        world.bcast(b, 0, b.length, 0);
        world.barrier();
        if (me == p - 1) {
            System.out.println("HALTING rank " + me);
            System.out.flush();
            Runtime.getRuntime().halt(0);
        }
        try {
            world.bcast(b, 0, b.length, 0);
            System.out.println("UNEXPECTED rank " + me + " finished a bcast without rank " + (p - 1));
        } catch (RailyardException e) {
            System.out.println("FAILED " + e.errorClass() + " " + e.getMessage().replace('\n', ' '));
        }
        System.out.flush();
    }
}
