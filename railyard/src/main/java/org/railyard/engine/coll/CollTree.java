package org.railyard.engine.coll;

import org.railyard.types.Kind;

/**
 * Rooted and tree-shaped schedules: the dissemination barrier, binomial broadcast and the
 * scatter-then-ring broadcast, the binomial reduce, binomial and linear gather and scatter, and
 * the linear v-variants. Each builder appends rounds to a schedule and works over a
 * {@link CollTeam}, so the node-aware algorithms reuse it on a node or on the node leaders.
 *
 * <p>Trees are binomial trees over ranks relative to the root ({@code rel = (me - root) mod p}):
 * the parent of {@code rel} is {@code rel} without its lowest set bit, and {@code rel}'s subtree
 * is the contiguous range {@code [rel, rel + lowbit(rel))} (clipped to p). That contiguity is
 * what lets gather and scatter move a subtree's blocks as one message.
 */
final class CollTree {
    static final byte[] EMPTY = new byte[0];

    private CollTree() {
    }

    /** Size of {@code rel}'s binomial subtree in a tree of {@code p}. */
    static int subtree(int rel, int p) {
        return rel == 0 ? p : Math.min(Integer.lowestOneBit(rel), p - rel);
    }

    /** First element of block {@code j} when {@code items} items of {@code width} elements are cut into {@code blocks} blocks. */
    static int blockStart(int j, int items, int blocks, int width) {
        int base = items / blocks;
        int rem = items % blocks;
        return (j * base + Math.min(j, rem)) * width;
    }

    /**
     * Dissemination barrier (Hensgen, Finkel and Manber, 1988): in round k every member signals
     * member {@code me + 2^k} and hears from {@code me - 2^k}; after ceil(log2 p) rounds each has
     * heard, directly or not, from all. No root, any p.
     */
    static void dissemination(CollSchedule s, CollTeam t) {
        for (int d = 1; d < t.size; d <<= 1) {
            s.send(EMPTY, Kind.BYTE, 0, 0, t.rank((t.me + d) % t.size));
            s.recv(EMPTY, Kind.BYTE, 0, 0, t.rank((t.me - d + t.size) % t.size));
            s.round();
        }
    }

    /** Member 0 of {@code t} hears an empty message from every other member (one round): a barrier's way in. */
    static void fanIn(CollSchedule s, CollTeam t) {
        if (t.me != 0) {
            s.send(EMPTY, Kind.BYTE, 0, 0, t.rank(0));
        } else {
            for (int i = 1; i < t.size; i++) {
                s.recv(EMPTY, Kind.BYTE, 0, 0, t.rank(i));
            }
        }
        s.round();
    }

    /** Member 0 of {@code t} sends an empty message to every other member (one round): a barrier's way out. */
    static void fanOut(CollSchedule s, CollTeam t) {
        if (t.me != 0) {
            s.recv(EMPTY, Kind.BYTE, 0, 0, t.rank(0));
        } else {
            for (int i = 1; i < t.size; i++) {
                s.send(EMPTY, Kind.BYTE, 0, 0, t.rank(i));
            }
        }
        s.round();
    }

    /** Binomial-tree broadcast: log2 p rounds of the whole message; best while latency dominates. */
    static void binomialBcast(CollSchedule s, CollTeam t, int root, Object buf, Kind k, int off, int count) {
        int p = t.size;
        int rel = (t.me - root + p) % p;
        int mask = rel == 0 ? Integer.highestOneBit(Math.max(1, p - 1)) << 1 : Integer.lowestOneBit(rel);
        if (rel != 0) {
            s.recv(buf, k, off, count, t.rank((rel - mask + root) % p));
            s.round();
        }
        // largest subtree first: it has the longest way to go
        for (int m = mask >> 1; m > 0; m >>= 1) {
            if (rel + m < p) {
                if (p == 2) {
                    // one sender, one receiver and nothing else to do: through the channel the two
                    // copies overlap on two processors, where a read of the root's memory by the
                    // other leaves the root idle (figures: bench/results/coll-thresholds.md)
                    s.sendCopied(buf, k, off, count, t.rank((rel + m + root) % p));
                } else {
                    s.send(buf, k, off, count, t.rank((rel + m + root) % p));
                }
            }
        }
        s.round();
    }

    /**
     * Pipelined binomial broadcast: the message is cut into segments of {@code segment}
     * elements, and a process forwards segment j to its children while it receives segment j + 1
     * from its parent, so the hops of the tree overlap instead of following each other (a tree of
     * depth d moves the message in about (1 + (d - 1) / segments) times one transfer, not d
     * times). The root posts every segment to every child at once; a leaf posts every receive at
     * once.
     */
    static void pipelinedBcast(CollSchedule s, CollTeam t, int root, Object buf, Kind k, int off, int count, int segment) {
        int p = t.size;
        int rel = (t.me - root + p) % p;
        int mask = rel == 0 ? Integer.highestOneBit(Math.max(1, p - 1)) << 1 : Integer.lowestOneBit(rel);
        int segments = (count + segment - 1) / segment;
        int[] children = s.ints(Integer.numberOfTrailingZeros(mask));
        int n = 0;
        // largest subtree first: it has the longest way to go
        for (int m = mask >> 1; m > 0; m >>= 1) {
            if (rel + m < p) {
                children[n++] = t.rank((rel + m + root) % p);
            }
        }
        int parent = rel == 0 ? -1 : t.rank((rel - mask + root) % p);
        // only an inner process overlaps a receive with a forward; the root and the leaves post
        // everything in one round
        boolean overlap = parent >= 0 && n > 0;
        // an inner process forwards the segment it received a round before
        int lag = parent >= 0 ? 1 : 0;
        for (int j = 0; j < segments + lag; j++) {
            if (parent >= 0 && j < segments) {
                s.recv(buf, k, off + j * segment, Math.min(segment, count - j * segment), parent);
            }
            int f = j - lag;
            for (int c = 0; c < n && f >= 0; c++) {
                s.send(buf, k, off + f * segment, Math.min(segment, count - f * segment), children[c]);
            }
            if (overlap) {
                s.round();
            }
        }
        if (!overlap) {
            s.round();
        }
    }

    /**
     * Flat broadcast: the root sends to every other process at once, and each receives from the
     * root alone. No process forwards, so nobody waits for a parent that waits in turn.
     */
    static void linearBcast(CollSchedule s, CollTeam t, int root, Object buf, Kind k, int off, int count) {
        int p = t.size;
        if (t.me == root) {
            for (int i = 1; i < p; i++) {
                s.send(buf, k, off, count, t.rank((root + i) % p));
            }
        } else {
            s.recv(buf, k, off, count, t.rank(root));
        }
        s.round();
    }

    /**
     * Broadcast of a long message (van de Geijn): a binomial scatter of p blocks (ranks relative to
     * the root hold block {@code rel}), then a ring allgather. Each process sends and receives
     * about 2n bytes instead of n log2 p. The blocks a process received during the scatter are not
     * sent to it again in the ring.
     */
    static void scatterRingBcast(CollSchedule s, CollTeam t, int root, Object buf, Kind k, int off, int count, int width) {
        int p = t.size;
        int rel = (t.me - root + p) % p;
        int items = count / width;
        int sub = subtree(rel, p);
        if (rel != 0) {
            int parent = rel - Integer.lowestOneBit(rel);
            sendOrRecvBlocks(s, false, t.rank((parent + root) % p), buf, k, off, rel, rel + sub, items, p, width);
            s.round();
        }
        for (int m = Integer.highestOneBit(Math.max(1, sub - 1)); m > 0; m >>= 1) {
            if (m < sub && rel + m < p) {
                int child = rel + m;
                sendOrRecvBlocks(s, true, t.rank((child + root) % p), buf, k, off, child, child + subtree(child, p), items, p, width);
            }
        }
        s.round();
        int relRight = (rel + 1) % p;
        int right = t.rank((relRight + root) % p);
        int left = t.rank((rel - 1 + p + root) % p);
        for (int i = 0; i < p - 1; i++) {
            int out = ((rel - i) % p + p) % p;
            int in = ((rel - i - 1) % p + p) % p;
            if (!holds(relRight, out, p)) {
                sendOrRecvBlocks(s, true, right, buf, k, off, out, out + 1, items, p, width);
            }
            if (!holds(rel, in, p)) {
                sendOrRecvBlocks(s, false, left, buf, k, off, in, in + 1, items, p, width);
            }
            s.round();
        }
    }

    /** True if {@code rel} got block {@code j} in the scatter (its own subtree's blocks). */
    private static boolean holds(int rel, int j, int p) {
        return j >= rel && j < rel + subtree(rel, p);
    }

    private static void sendOrRecvBlocks(CollSchedule s, boolean send, int peer, Object buf, Kind k, int off,
                                         int from, int to, int items, int p, int width) {
        int lo = blockStart(from, items, p, width);
        int hi = blockStart(to, items, p, width);
        if (hi > lo) {
            if (send) {
                s.send(buf, k, off + lo, hi - lo, peer);
            } else {
                s.recv(buf, k, off + lo, hi - lo, peer);
            }
        }
    }

    /**
     * Binomial-tree reduce into {@code acc} (a Java array holding this process's contribution) at
     * member {@code root}. A parent combines its children in increasing subtree order, so with
     * root 0 the result is in rank order even for a non-commutative operation; the caller routes
     * a non-commutative reduce to another root through member 0. The children's messages are
     * received at once, each into its own buffer.
     */
    static void binomialReduce(CollSchedule s, CollTeam t, int root, Object acc, int accOff, Kind k, int count) {
        int p = t.size;
        int rel = (t.me - root + p) % p;
        int sub = subtree(rel, p);
        int children = 0;
        for (int m = 1; m < sub; m <<= 1) {
            children++;
        }
        Object tmp = children == 0 || count == 0 ? null : s.scratch(k, children * count);
        int j = 0;
        for (int m = 1; m < sub; m <<= 1) {
            s.recv(tmp, k, j++ * count, count, t.rank((rel + m + root) % p));
        }
        s.round();
        for (int i = 0; i < j; i++) {
            s.reduceHigher(k, acc, accOff, tmp, i * count, count);
        }
        if (rel != 0) {
            s.send(acc, k, accOff, count, t.rank((rel - Integer.lowestOneBit(rel) + root) % p));
        }
        s.round();
    }

    /**
     * Binomial gather: each process collects its subtree's blocks (in order relative to the root)
     * and passes them up in one message; log2 p rounds, at the cost of copying blocks through the
     * inner nodes. Blocks travel as the send type (significant at every rank); the root converts
     * them to its receive type.
     */
    static void binomialGather(CollSchedule s, CollTeam t, int root, Object sbuf, int soff, int scount, Kind sk,
                               Object rbuf, int roff, int rcount, Kind rk) {
        int p = t.size;
        int rel = (t.me - root + p) % p;
        int sub = subtree(rel, p);
        if (rel != 0 && sub == 1) {
            s.send(sbuf, sk, soff, scount, t.rank((rel - Integer.lowestOneBit(rel) + root) % p));
            s.round();
            return;
        }
        Object tmp;
        int toff;
        Kind tk;
        if (rel == 0 && root == 0) {
            tmp = rbuf;
            toff = roff;
            tk = rk;
        } else {
            tmp = s.scratch(sk, sub * scount);
            toff = 0;
            tk = sk;
        }
        int block = tk == sk ? scount : rcount;
        s.copy(sk, sbuf, soff, scount, tk, tmp, toff);
        for (int m = 1; m < sub; m <<= 1) {
            int n = Math.min(m, p - rel - m);
            s.recv(tmp, tk, toff + m * block, n * block, t.rank((rel + m + root) % p));
        }
        s.round();
        if (rel != 0) {
            s.send(tmp, tk, toff, sub * block, t.rank((rel - Integer.lowestOneBit(rel) + root) % p));
        } else if (root != 0) {
            // blocks are in order relative to the root: rotate them into place
            s.copy(sk, tmp, 0, (p - root) * scount, rk, rbuf, roff + root * rcount);
            s.copy(sk, tmp, (p - root) * scount, root * scount, rk, rbuf, roff);
        }
        s.round();
    }

    /** Binomial scatter, the mirror of {@link #binomialGather}: blocks travel as the receive type. */
    static void binomialScatter(CollSchedule s, CollTeam t, int root, Object sbuf, int soff, int scount, Kind sk,
                                Object rbuf, int roff, int rcount, Kind rk) {
        int p = t.size;
        int rel = (t.me - root + p) % p;
        int sub = subtree(rel, p);
        Object src;
        int srcOff;
        Kind srk;
        int block;
        if (rel != 0) {
            int parent = t.rank((rel - Integer.lowestOneBit(rel) + root) % p);
            if (sub == 1) {
                s.recv(rbuf, rk, roff, rcount, parent);
                s.round();
                return;
            }
            src = s.scratch(rk, sub * rcount);
            srcOff = 0;
            srk = rk;
            block = rcount;
            s.recv(src, rk, 0, sub * rcount, parent);
            s.round();
        } else if (root == 0) {
            src = sbuf;
            srcOff = soff;
            srk = sk;
            block = scount;
        } else {
            src = s.scratch(rk, p * rcount);
            srcOff = 0;
            srk = rk;
            block = rcount;
            s.copy(sk, sbuf, soff + root * scount, (p - root) * scount, rk, src, 0);
            s.copy(sk, sbuf, soff, root * scount, rk, src, (p - root) * rcount);
        }
        for (int m = Integer.highestOneBit(Math.max(1, sub - 1)); m > 0; m >>= 1) {
            if (m < sub) {
                int child = rel + m;
                s.send(src, srk, srcOff + m * block, subtree(child, p) * block, t.rank((child + root) % p));
            }
        }
        s.copy(srk, src, srcOff, block, rk, rbuf, roff);
        s.round();
    }

    /**
     * Linear gatherv (also gather for long messages, where a tree would only add copies): the root
     * posts one receive per process and every other process sends once. Zero counts move nothing;
     * {@code counts} and {@code displs} matter only at the root.
     */
    static void linearGatherv(CollSchedule s, CollTeam t, int root, Object sbuf, int soff, int scount, Kind sk,
                              Object rbuf, int roff, int[] counts, int[] displs, Kind rk) {
        if (t.me != root) {
            if (scount > 0) {
                s.send(sbuf, sk, soff, scount, t.rank(root));
            }
            s.round();
            return;
        }
        for (int i = 1; i < t.size; i++) {
            int r = (root + i) % t.size;
            if (counts[r] > 0) {
                s.recv(rbuf, rk, roff + displs[r], counts[r], t.rank(r));
            }
        }
        s.copy(sk, sbuf, soff, scount, rk, rbuf, roff + displs[root]);
        s.round();
    }

    /** Linear scatterv (also scatter for long messages), the mirror of {@link #linearGatherv}. */
    static void linearScatterv(CollSchedule s, CollTeam t, int root, Object sbuf, int soff, int[] counts, int[] displs,
                               Kind sk, Object rbuf, int roff, int rcount, Kind rk) {
        if (t.me != root) {
            if (rcount > 0) {
                s.recv(rbuf, rk, roff, rcount, t.rank(root));
            }
            s.round();
            return;
        }
        for (int i = 1; i < t.size; i++) {
            int r = (root + i) % t.size;
            if (counts[r] > 0) {
                s.send(sbuf, sk, soff + displs[r], counts[r], t.rank(r));
            }
        }
        s.copy(sk, sbuf, soff + displs[root], counts[root], rk, rbuf, roff);
        s.round();
    }

    /** The arrays of {@link #regular} for one group size and count; never written once built. */
    private record Regular(int p, int count, int[][] countsDispls) {
    }

    /** Recently built {@link Regular}s, by a hash of size and count; a race between writers only costs a rebuild. */
    private static final Regular[] REGULAR = new Regular[16];

    /**
     * Regular counts and displacements ({@code {counts, displs}}) for the linear forms of gather
     * and scatter and for the regular collectives built on their vector forms. The arrays are
     * shared between calls (a collective called in a loop allocates none), so callers only read them.
     */
    static int[][] regular(int p, int count) {
        int slot = (p * 31 + count) & (REGULAR.length - 1);
        Regular known = REGULAR[slot];
        if (known != null && known.p() == p && known.count() == count) {
            return known.countsDispls();
        }
        int[] counts = new int[p];
        int[] displs = new int[p];
        for (int r = 0; r < p; r++) {
            counts[r] = count;
            displs[r] = r * count;
        }
        int[][] cd = {counts, displs};
        REGULAR[slot] = new Regular(p, count, cd); // final fields: a reader in another thread sees the filled arrays
        return cd;
    }
}
