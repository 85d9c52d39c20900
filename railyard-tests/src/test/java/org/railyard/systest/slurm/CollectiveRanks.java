package org.railyard.systest.slurm;

import java.util.Arrays;
import org.railyard.Comm;
import org.railyard.Op;
import org.railyard.Railyard;

/**
 * The collectives checked against what they must compute, on any number of ranks: bcast from
 * every root, allreduce (sum, max), reduceScatterBlock, allgather, alltoall, scan, and the
 * node-local communicator ({@code splitShared}) with an allreduce inside it. Each rank prints
 * {@code COLL rank=R size=S node=K of=N digest=D} where D folds every result (equal in every
 * launcher for equal sizes), then rank 0 prints {@code COLL OK}. A wrong result throws, so the
 * rank exits non-zero.
 */
public final class CollectiveRanks {
    private CollectiveRanks() {
    }

    public static void main(String[] args) {
        try (Railyard ry = Railyard.init(args)) {
            Comm w = ry.world();
            int me = w.rank();
            int np = w.size();
            long digest = 17;
            for (int root = 0; root < np; root++) {
                long[] b = {me == root ? 1000L + root : -1};
                w.bcast(b, 0, 1, root);
                digest = fold(digest, check("bcast from " + root, b[0], 1000L + root));
            }
            long n = np;
            digest = fold(digest, check("allreduce sum", w.allreduce((long) me + 1, Op.SUM), n * (n + 1) / 2));
            digest = fold(digest, check("allreduce max", w.allreduce((long) me * 3, Op.MAX), 3 * (n - 1)));

            int[] send = new int[2 * np];
            for (int i = 0; i < send.length; i++) {
                send[i] = me * 100 + i;
            }
            int[] block = new int[2];
            w.reduceScatterBlock(send, 0, block, 0, 2, Op.SUM);
            for (int k = 0; k < 2; k++) {
                int i = 2 * me + k;
                digest = fold(digest, check("reduceScatterBlock[" + k + "]", block[k], 100 * np * (np - 1) / 2 + np * i));
            }

            int[] all = new int[np];
            w.allgather(new int[] {me * me}, 0, 1, all, 0, 1);
            for (int r = 0; r < np; r++) {
                digest = fold(digest, check("allgather[" + r + "]", all[r], r * r));
            }

            int[] out = new int[np];
            int[] in = new int[np];
            for (int r = 0; r < np; r++) {
                out[r] = me * np + r;
            }
            w.alltoall(out, 0, 1, in, 0, 1);
            for (int r = 0; r < np; r++) {
                digest = fold(digest, check("alltoall[" + r + "]", in[r], r * np + me));
            }

            long[] prefix = new long[1];
            w.scan(new long[] {me + 1}, 0, prefix, 0, 1, Op.SUM);
            digest = fold(digest, check("scan", prefix[0], (long) (me + 1) * (me + 2) / 2));

            Comm node = w.splitShared(me);
            long local = node.allreduce(1L, Op.SUM);
            digest = fold(digest, check("node-local size", local, node.size()));
            long nodes = w.allreduce(node.rank() == 0 ? 1L : 0L, Op.SUM);
            w.barrier();
            System.out.println("COLL rank=" + me + " size=" + np + " node-ranks=" + local + " nodes=" + nodes
                    + " digest=" + Long.toHexString(digest));
            System.out.flush();
            w.barrier();
            if (me == 0) {
                System.out.println("COLL OK");
            }
        }
    }

    private static long check(String what, long got, long want) {
        if (got != want) {
            throw new IllegalStateException(what + ": got " + got + ", expected " + want);
        }
        return got;
    }

    private static long fold(long digest, long value) {
        return digest * 1_000_003L ^ value;
    }

    @SuppressWarnings("unused")
    private static String show(int[] a) {
        return Arrays.toString(a);
    }
}
