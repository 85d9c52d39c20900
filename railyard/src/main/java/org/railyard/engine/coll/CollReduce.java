package org.railyard.engine.coll;

import org.railyard.types.Reduction;

import org.railyard.types.Kind;

/**
 * Reduction schedules: allreduce by recursive doubling, by Rabenseifner's reduce-scatter then
 * allgather, and by a ring; reduce by Rabenseifner; ring reduce-scatter; inclusive and exclusive
 * scan. They all work in a Java array {@code acc} that holds this process's contribution at the
 * start and the result at the end.
 *
 * <p>Sizes that are not a power of two are folded first, as in Rabenseifner and Träff's
 * "More efficient reduction algorithms for non-power-of-two number of processors" (2004): of the
 * first {@code 2 * extra} ranks ({@code extra = p - pof2}), each even one hands its vector to the
 * odd one above it and sits out; the remaining pof2 ranks get new ranks in rank order, so a
 * process's partial result always covers a contiguous range of ranks, and recursive doubling
 * keeps the rank order a non-commutative operation needs.
 */
final class CollReduce {
    private CollReduce() {
    }

    /** Which rank of the team stands for new rank {@code nr} after the fold. */
    private static int real(CollTeam t, int nr, int extra) {
        return t.rank(nr < extra ? 2 * nr + 1 : nr + extra);
    }

    /**
     * The fold's first half: returns this process's new rank, or -1 if it sits out (it then only
     * receives the result at the end, see {@link #unfold}).
     */
    private static int fold(CollSchedule s, CollTeam t, Object acc, int accOff, Kind k, int count, Object tmp) {
        int extra = t.size - t.pof2();
        int me = t.me;
        if (me >= 2 * extra) {
            return me - extra;
        }
        if (me % 2 == 0) {
            s.send(acc, k, accOff, count, t.rank(me + 1));
            s.round();
            return -1;
        }
        s.recv(tmp, k, 0, count, t.rank(me - 1));
        s.round();
        s.reduce(k, tmp, 0, acc, accOff, count);
        return me / 2;
    }

    /** The fold's second half: the odd ranks of the folded pairs hand the result back. */
    private static void unfold(CollSchedule s, CollTeam t, Object acc, int accOff, Kind k, int count, int nr) {
        int extra = t.size - t.pof2();
        if (t.me < 2 * extra) {
            if (nr < 0) {
                s.recv(acc, k, accOff, count, t.rank(t.me + 1));
            } else {
                s.send(acc, k, accOff, count, t.rank(t.me - 1));
            }
        }
        s.round();
    }

    /**
     * Recursive doubling: log2 p exchanges of the whole vector (plus two for the fold). The partner
     * at distance {@code mask} holds the adjacent range of ranks, below or above: rank order is kept.
     */
    static void recursiveDoubling(CollSchedule s, CollTeam t, Object acc, int accOff, Kind k, int count) {
        Object tmp = s.scratch(k, count);
        int nr = fold(s, t, acc, accOff, k, count, tmp);
        if (nr >= 0) {
            int pof2 = t.pof2();
            int extra = t.size - pof2;
            for (int mask = 1; mask < pof2; mask <<= 1) {
                int pn = nr ^ mask;
                int partner = real(t, pn, extra);
                s.send(acc, k, accOff, count, partner);
                s.recv(tmp, k, 0, count, partner);
                s.round();
                if (pn < nr) {
                    s.reduce(k, tmp, 0, acc, accOff, count);
                } else {
                    s.reduceHigher(k, acc, accOff, tmp, 0, count);
                }
            }
        }
        unfold(s, t, acc, accOff, k, count, nr);
    }

    /**
     * Rabenseifner's allreduce (commutative operations): a reduce-scatter by recursive halving
     * leaves each of the pof2 ranks one fully reduced block, then an allgather by recursive
     * doubling spreads them. About 2n bytes sent per process instead of n log2 p.
     */
    static void rabenseifner(CollSchedule s, CollTeam t, Object acc, int accOff, Kind k, int count, int width) {
        Object tmp = s.scratch(k, count);
        int nr = fold(s, t, acc, accOff, k, count, tmp);
        if (nr >= 0) {
            halvingReduceScatter(s, t, nr, acc, accOff, k, count, width, tmp);
            int pof2 = t.pof2();
            int items = count / width;
            for (int mask = 1; mask < pof2; mask <<= 1) {
                int pn = nr ^ mask;
                int partner = real(t, pn, t.size - pof2);
                int mine = nr & ~(mask - 1);
                int theirs = pn & ~(mask - 1);
                int lo = CollTree.blockStart(mine, items, pof2, width);
                int hi = CollTree.blockStart(mine + mask, items, pof2, width);
                int tlo = CollTree.blockStart(theirs, items, pof2, width);
                int thi = CollTree.blockStart(theirs + mask, items, pof2, width);
                if (hi > lo) {
                    s.send(acc, k, accOff + lo, hi - lo, partner);
                }
                if (thi > tlo) {
                    s.recv(acc, k, accOff + tlo, thi - tlo, partner);
                }
                s.round();
            }
        }
        unfold(s, t, acc, accOff, k, count, nr);
    }

    /**
     * Recursive halving among the pof2 new ranks: at distance {@code mask} (from pof2/2 down), each
     * keeps the half of its current range of blocks that contains its own block and sends the
     * other half to its partner; at the end new rank {@code nr} holds block {@code nr} reduced.
     * The block boundaries fall between items.
     */
    private static void halvingReduceScatter(CollSchedule s, CollTeam t, int nr, Object acc, int accOff, Kind k,
                                             int count, int width, Object tmp) {
        int pof2 = t.pof2();
        int items = count / width;
        for (int mask = pof2 >> 1; mask > 0; mask >>= 1) {
            int pn = nr ^ mask;
            int partner = real(t, pn, t.size - pof2);
            int keep = nr & ~(mask - 1);
            int give = pn & ~(mask - 1);
            int klo = CollTree.blockStart(keep, items, pof2, width);
            int khi = CollTree.blockStart(keep + mask, items, pof2, width);
            int glo = CollTree.blockStart(give, items, pof2, width);
            int ghi = CollTree.blockStart(give + mask, items, pof2, width);
            if (ghi > glo) {
                s.send(acc, k, accOff + glo, ghi - glo, partner);
            }
            if (khi > klo) {
                s.recv(tmp, k, klo, khi - klo, partner);
            }
            s.round();
            s.reduce(k, tmp, klo, acc, accOff + klo, khi - klo);
        }
    }

    /**
     * Rabenseifner's reduce (commutative operations): the same reduce-scatter by recursive
     * halving, then a binomial gather of the blocks to new rank 0, which forwards the vector to
     * the root if it is not the root itself.
     */
    static void rabenseifnerReduce(CollSchedule s, CollTeam t, int root, Object acc, int accOff, Kind k, int count,
                                   int width) {
        Object tmp = s.scratch(k, count);
        int nr = fold(s, t, acc, accOff, k, count, tmp);
        int pof2 = t.pof2();
        int extra = t.size - pof2;
        int first = real(t, 0, extra);
        if (nr >= 0) {
            halvingReduceScatter(s, t, nr, acc, accOff, k, count, width, tmp);
            int items = count / width;
            for (int mask = 1; mask < pof2; mask <<= 1) {
                if ((nr & mask) != 0) {
                    int lo = CollTree.blockStart(nr, items, pof2, width);
                    int hi = CollTree.blockStart(nr + mask, items, pof2, width);
                    if (hi > lo) {
                        s.send(acc, k, accOff + lo, hi - lo, real(t, nr - mask, extra));
                    }
                    s.round();
                    break;
                }
                int lo = CollTree.blockStart(nr + mask, items, pof2, width);
                int hi = CollTree.blockStart(nr + 2 * mask, items, pof2, width);
                if (hi > lo) {
                    s.recv(acc, k, accOff + lo, hi - lo, real(t, nr + mask, extra));
                }
                s.round();
            }
        }
        int rootRank = t.rank(root);
        if (first != rootRank) {
            if (t.rank(t.me) == first) {
                s.send(acc, k, accOff, count, rootRank);
            } else if (t.me == root) {
                s.recv(acc, k, accOff, count, first);
            }
            s.round();
        }
    }

    /**
     * Ring reduce-scatter (commutative operations): p - 1 steps; in step i each process passes the
     * partial sum of block {@code me - i - 1} to its right neighbour and adds what its left
     * neighbour passed into block {@code me - i - 2}; at the end block {@code me} is complete.
     * Blocks are given by {@code starts} (p + 1 element offsets into {@code acc}); empty blocks
     * are not sent.
     */
    static void ringReduceScatter(CollSchedule s, CollTeam t, Object acc, int accOff, Kind k, int[] starts) {
        int p = t.size;
        int me = t.me;
        int largest = 0;
        for (int j = 0; j < p; j++) {
            largest = Math.max(largest, starts[j + 1] - starts[j]);
        }
        Object tmp = s.scratch(k, largest);
        int right = t.rank((me + 1) % p);
        int left = t.rank((me - 1 + p) % p);
        for (int i = 0; i < p - 1; i++) {
            int out = ((me - i - 1) % p + p) % p;
            int in = ((me - i - 2) % p + p) % p;
            int outLen = starts[out + 1] - starts[out];
            int inLen = starts[in + 1] - starts[in];
            if (outLen > 0) {
                s.send(acc, k, accOff + starts[out], outLen, right);
            }
            if (inLen > 0) {
                s.recv(tmp, k, 0, inLen, left);
            }
            s.round();
            s.reduce(k, tmp, 0, acc, accOff + starts[in], inLen);
        }
        s.round();
    }

    /** Offsets of p blocks of nearly equal size (whole items), as p + 1 element offsets, in an array {@code s} keeps. */
    static int[] evenStarts(CollSchedule s, int p, int count, int width) {
        int[] starts = s.ints(p + 1);
        for (int j = 0; j <= p; j++) {
            starts[j] = CollTree.blockStart(j, count / width, p, width);
        }
        return starts;
    }

    /**
     * Ring allreduce (commutative operations): ring reduce-scatter then ring allgather, 2(p - 1)
     * steps of n/p; no fold, so it beats Rabenseifner on large vectors when p is not a power of two.
     */
    static void ring(CollSchedule s, CollTeam t, Object acc, int accOff, Kind k, int count, int width) {
        int p = t.size;
        int[] starts = evenStarts(s, p, count, width);
        int[] counts = s.ints(p);
        for (int j = 0; j < p; j++) {
            counts[j] = starts[j + 1] - starts[j];
        }
        ringReduceScatter(s, t, acc, accOff, k, starts);
        CollGather.ringBlocks(s, t, acc, accOff, k, counts, starts);
    }

    /**
     * Inclusive (or exclusive) scan by recursive doubling (Hillis and Steele): in step k each
     * process sends the reduction of the 2^k ranks ending at itself to the process 2^k above, and
     * folds what it receives from below into both that partial and its result. What arrives always
     * comes from lower ranks, so the operand order is right for any operation. For the exclusive
     * scan the first arrival starts the result, and rank 0's result is left untouched.
     */
    static void scan(CollSchedule s, CollTeam t, Object partial, Object result, int resOff, Kind k, int count,
                     boolean exclusive) {
        int p = t.size;
        int me = t.me;
        Object tmp = s.scratch(k, count);
        boolean first = true;
        for (int mask = 1; mask < p; mask <<= 1) {
            if (me + mask < p) {
                s.send(partial, k, 0, count, t.rank(me + mask));
            }
            boolean receives = me - mask >= 0;
            if (receives) {
                s.recv(tmp, k, 0, count, t.rank(me - mask));
            }
            s.round();
            if (receives) {
                if (exclusive && first) {
                    s.copy(k, tmp, 0, result, resOff, count);
                } else {
                    s.reduce(k, tmp, 0, result, resOff, count);
                }
                first = false;
                if (mask << 1 < p) {
                    s.reduce(k, tmp, 0, partial, 0, count);
                }
            }
        }
        s.round();
    }
}
