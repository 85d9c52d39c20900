package org.railyard.engine.coll;

import org.railyard.types.Kind;

/**
 * Allgather schedules, all written for the v-form (a count and a displacement per rank; allgather
 * is allgatherv with equal counts): recursive doubling, Bruck, and ring. Counts and
 * displacements are in elements of the receive type, displacements relative to the receive
 * offset. Blocks of zero elements are never sent: every process knows every count.
 */
final class CollGather {
    private CollGather() {
    }

    /** Where each of the p ranks' blocks starts when the blocks lie packed; in an int array the schedule keeps. */
    private static int[] prefix(CollSchedule s, int[] counts, int p) {
        int[] pre = s.ints(p + 1);
        pre[0] = 0;
        for (int r = 0; r < p; r++) {
            pre[r + 1] = pre[r] + counts[r];
        }
        return pre;
    }

    private static boolean packed(int[] displs, int[] pre, int p) {
        for (int r = 0; r < p; r++) {
            if (displs[r] != pre[r]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Recursive doubling (p a power of two): in step k each process swaps with the partner at
     * distance 2^k everything it has so far, a contiguous range of ranks; log2 p steps. Works in
     * the receive buffer when the blocks lie packed in rank order, else in a packed copy.
     */
    static void recursiveDoubling(CollSchedule s, CollTeam t, Object sbuf, int soff, int scount, Kind sk,
                                  Object rbuf, int roff, int[] counts, int[] displs, Kind rk) {
        int p = t.size;
        int me = t.me;
        int[] pre = prefix(s, counts, p);
        boolean inPlace = packed(displs, pre, p);
        Object work = inPlace ? rbuf : s.scratch(rk, pre[p]);
        int woff = inPlace ? roff : 0;
        s.copy(sk, sbuf, soff, scount, rk, work, woff + pre[me]);
        for (int mask = 1; mask < p; mask <<= 1) {
            int partner = me ^ mask;
            int mine = me & ~(mask - 1);
            int theirs = partner & ~(mask - 1);
            int len = pre[mine + mask] - pre[mine];
            int tlen = pre[theirs + mask] - pre[theirs];
            if (len > 0) {
                s.send(work, rk, woff + pre[mine], len, t.rank(partner));
            }
            if (tlen > 0) {
                s.recv(work, rk, woff + pre[theirs], tlen, t.rank(partner));
            }
            s.round();
        }
        if (!inPlace) {
            for (int r = 0; r < p; r++) {
                s.copy(rk, work, pre[r], rbuf, roff + displs[r], counts[r]);
            }
        }
        s.round();
    }

    /**
     * Bruck's allgather (Bruck et al., "Efficient algorithms for all-to-all communications in
     * multiport message-passing systems", 1997): ceil(log2 p) steps for any p. Blocks are kept
     * rotated so that this process's own comes first; in the step at distance d each process
     * sends its first min(d, p - d) blocks to {@code me - d} and receives as many from
     * {@code me + d}, which land contiguously after its own. A final pass puts them in rank order.
     */
    static void bruck(CollSchedule s, CollTeam t, Object sbuf, int soff, int scount, Kind sk,
                      Object rbuf, int roff, int[] counts, int[] displs, Kind rk) {
        int p = t.size;
        int me = t.me;
        int[] rot = s.ints(p + 1);
        rot[0] = 0;
        for (int i = 0; i < p; i++) {
            rot[i + 1] = rot[i] + counts[(me + i) % p];
        }
        Object work = s.scratch(rk, rot[p]);
        s.copy(sk, sbuf, soff, scount, rk, work, 0);
        for (int d = 1; d < p; d <<= 1) {
            int n = Math.min(d, p - d);
            int to = (me - d + p) % p;
            int from = (me + d) % p;
            // the receiver counts the blocks from its own rotation: rank `to`'s block d + i is my block i
            int len = rot[n];
            int inLen = rot[d + n] - rot[d];
            if (len > 0) {
                s.send(work, rk, 0, len, t.rank(to));
            }
            if (inLen > 0) {
                s.recv(work, rk, rot[d], inLen, t.rank(from));
            }
            s.round();
        }
        for (int i = 0; i < p; i++) {
            int r = (me + i) % p;
            s.copy(rk, work, rot[i], rbuf, roff + displs[r], counts[r]);
        }
        s.round();
    }

    /**
     * Ring allgather: p - 1 steps; in step i each process passes block {@code me - i} to its right
     * neighbour and receives block {@code me - i - 1} from its left, straight into place. Sends
     * each byte once per process: the algorithm for long vectors. The first step sends this
     * process's block from {@code sbuf} itself, and copies it into place after posting: the step
     * does not wait for the copy, and a neighbour that reads the block from this process's memory
     * reads the caller's buffer, not lines this call has just written on another core (which cost
     * up to ten times more on the development machine: bench/probes/DirtyLineProbe.java).
     */
    static void ring(CollSchedule s, CollTeam t, Object sbuf, int soff, int scount, Kind sk,
                     Object rbuf, int roff, int[] counts, int[] displs, Kind rk) {
        ringSteps(s, t, rbuf, roff, rk, counts, displs, sbuf, soff, scount, sk);
    }

    /** The ring steps of {@link #ring}, over blocks already in {@code buf}; block {@code me} is in place. */
    static void ringBlocks(CollSchedule s, CollTeam t, Object buf, int off, Kind k, int[] counts, int[] displs) {
        ringSteps(s, t, buf, off, k, counts, displs, null, 0, 0, null);
    }

    /**
     * The ring steps; with {@code sbuf} non-null, block {@code me} is not in {@code buf} yet: the
     * first step sends it from {@code sbuf} and copies it into place.
     */
    private static void ringSteps(CollSchedule s, CollTeam t, Object buf, int off, Kind k, int[] counts, int[] displs,
                                  Object sbuf, int soff, int scount, Kind sk) {
        int p = t.size;
        int right = t.rank((t.me + 1) % p);
        int left = t.rank((t.me - 1 + p) % p);
        for (int i = 0; i < p - 1; i++) {
            int out = ((t.me - i) % p + p) % p;
            int in = ((t.me - i - 1) % p + p) % p;
            if (counts[out] > 0) {
                if (i == 0 && sbuf != null) {
                    s.send(sbuf, sk, soff, scount, right);
                } else {
                    s.send(buf, k, off + displs[out], counts[out], right);
                }
            }
            if (counts[in] > 0) {
                s.recv(buf, k, off + displs[in], counts[in], left);
            }
            if (i == 0 && sbuf != null) {
                s.copy(sk, sbuf, soff, scount, k, buf, off + displs[t.me]);
            }
            s.round();
        }
        if (p == 1 && sbuf != null) {
            s.copy(sk, sbuf, soff, scount, k, buf, off + displs[t.me]);
            s.round();
        }
    }
}
