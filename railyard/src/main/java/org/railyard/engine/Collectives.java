package org.railyard.engine;

/**
 * Collective operations built on the engine's point-to-point layer, on each communicator's
 * collective context (so they never match a user's receive). Algorithms (the process count is p):
 * <ul>
 *   <li>barrier: dissemination, ceil(log2 p) rounds of zero-byte messages;</li>
 *   <li>bcast: binomial tree rooted at the root, log2 p steps;</li>
 *   <li>reduce: binomial tree for commutative operations; for non-commutative ones every
 *       contribution goes to the root, which folds them in rank order;</li>
 *   <li>allreduce: recursive doubling (ranks beyond the largest power of two first fold into a
 *       partner and get the result back at the end); non-commutative operations use reduce then
 *       bcast, which keeps rank order.</li>
 * </ul>
 * The algorithm used is printed with the engine's choices.
 */
public final class Collectives {
    private static final int TAG_BARRIER = 1;
    private static final int TAG_BCAST = 2;
    private static final int TAG_REDUCE = 3;
    private static final int TAG_ALLREDUCE = 4;

    private final Engine engine;
    private final byte[] empty = new byte[0];

    Collectives(Engine engine) {
        this.engine = engine;
    }

    /** Advances the collective schedules under way; called with the progress lock held after each duty cycle. */
    int progress() {
        return 0;
    }

    private Transfer isend(CommState c, Object buf, Kind k, int off, int count, int dest, int tag) {
        return engine.isendUnchecked(c, c.context + 1, buf, k, off, count, dest, tag, Engine.MODE_STANDARD);
    }

    private Transfer irecv(CommState c, Object buf, Kind k, int off, int count, int src, int tag) {
        return engine.irecvUnchecked(c, c.context + 1, buf, k, off, count, src, tag);
    }

    private void sendrecv(CommState c, Object sbuf, Kind k, int soff, int scount, int dest,
                          Object rbuf, int roff, int rcount, int src, int tag) {
        Transfer r = irecv(c, rbuf, k, roff, rcount, src, tag);
        Transfer s = isend(c, sbuf, k, soff, scount, dest, tag);
        engine.await(s);
        engine.await(r);
    }

    void barrier(CommState c) {
        int p = c.size();
        int me = c.rank;
        for (int k = 1; k < p; k <<= 1) {
            sendrecv(c, empty, Kind.BYTE, 0, 0, (me + k) % p, empty, 0, 0, (me - k + p) % p, TAG_BARRIER);
        }
    }

    void bcast(CommState c, Object buf, Kind k, int off, int count, int root) {
        int p = c.size();
        int rel = (c.rank - root + p) % p;
        int mask = 1;
        while (mask < p) {
            if ((rel & mask) != 0) {
                engine.await(irecv(c, buf, k, off, count, (rel - mask + root) % p, TAG_BCAST));
                break;
            }
            mask <<= 1;
        }
        mask >>= 1;
        while (mask > 0) {
            if (rel + mask < p) {
                engine.await(isend(c, buf, k, off, count, (rel + mask + root) % p, TAG_BCAST));
            }
            mask >>= 1;
        }
    }

    void reduce(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op, int root) {
        int p = c.size();
        Object acc = k.toArray(sbuf, soff, count);
        if (!op.commutative()) {
            if (c.rank != root) {
                engine.await(isend(c, acc, k, 0, count, root, TAG_REDUCE));
                return;
            }
            // fold in rank order: result = v0 op v1 op ... op v(p-1), computed right to left
            Object result = null;
            Object tmp = k.newArray(count);
            for (int r = p - 1; r >= 0; r--) {
                Object v = acc;
                if (r != root) {
                    engine.await(irecv(c, tmp, k, 0, count, r, TAG_REDUCE));
                    v = tmp;
                }
                if (result == null) {
                    result = k.toArray(v, 0, count);
                } else {
                    op.apply(k, v, 0, result, 0, count);
                }
            }
            k.fromArray(result, rbuf, roff, count);
            return;
        }
        int rel = (c.rank - root + p) % p;
        Object tmp = k.newArray(count);
        int mask = 1;
        while (mask < p) {
            if ((rel & mask) != 0) {
                engine.await(isend(c, acc, k, 0, count, (rel - mask + root) % p, TAG_REDUCE));
                return;
            }
            if (rel + mask < p) {
                engine.await(irecv(c, tmp, k, 0, count, (rel + mask + root) % p, TAG_REDUCE));
                op.apply(k, tmp, 0, acc, 0, count);
            }
            mask <<= 1;
        }
        k.fromArray(acc, rbuf, roff, count);
    }

    void allreduce(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op) {
        int p = c.size();
        if (!op.commutative()) {
            reduce(c, sbuf, soff, rbuf, roff, count, k, op, 0);
            bcast(c, rbuf, k, roff, count, 0);
            return;
        }
        Object acc = k.toArray(sbuf, soff, count);
        Object tmp = k.newArray(count);
        int me = c.rank;
        int pof2 = Integer.highestOneBit(p);
        int extra = p - pof2;
        // Fold: ranks [pof2, p) give their data to rank (r - pof2) and wait for the result.
        if (me >= pof2) {
            engine.await(isend(c, acc, k, 0, count, me - pof2, TAG_ALLREDUCE));
            engine.await(irecv(c, acc, k, 0, count, me - pof2, TAG_ALLREDUCE));
            k.fromArray(acc, rbuf, roff, count);
            return;
        }
        if (me < extra) {
            engine.await(irecv(c, tmp, k, 0, count, me + pof2, TAG_ALLREDUCE));
            op.apply(k, tmp, 0, acc, 0, count);
        }
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int partner = me ^ mask;
            sendrecv(c, acc, k, 0, count, partner, tmp, 0, count, partner, TAG_ALLREDUCE);
            op.apply(k, tmp, 0, acc, 0, count);
        }
        if (me < extra) {
            engine.await(isend(c, acc, k, 0, count, me + pof2, TAG_ALLREDUCE));
        }
        k.fromArray(acc, rbuf, roff, count);
    }
}
