package org.railyard.engine.coll;

import org.railyard.types.Kind;
import org.railyard.engine.comm.CommState;

/**
 * Collectives on an intercommunicator: barrier, broadcast, allreduce, allgather(v),
 * alltoall(v, w), gather(v), scatter(v), reduce and reduce_scatter(_block). Rooted ones take the
 * root as broadcast does ({@link #bcast}). Barrier, allreduce, allgather, reduce and
 * reduce_scatter work through the local group's leaders (local rank 0 on either side): the
 * groups first act within themselves on the intercommunicator's private local view, the two
 * leaders exchange across, and each leader passes on what it got; the others go straight
 * between the processes of the two groups.
 */
final class CollInter {
    private CollInter() {
    }

    /** Nobody leaves before every process of both groups has entered. */
    static void barrier(CollSchedule s, CommState c) {
        CommState local = c.localView();
        CollTeam team = CollTeam.of(local);
        s.on(local);
        CollTree.dissemination(s, team);
        if (c.rank == 0) {
            s.on(c);
            s.send(CollTree.EMPTY, Kind.BYTE, 0, 0, 0);
            s.recv(CollTree.EMPTY, Kind.BYTE, 0, 0, 0);
            s.round();
            s.on(local);
        }
        CollTree.binomialBcast(s, team, 0, CollTree.EMPTY, Kind.BYTE, 0, 0);
    }

    /**
     * Broadcast from one process of one group to all of the other: the root passes
     * {@link Collectives#ROOT}, the rest of its group {@link CommState#PROC_NULL}, and the receiving
     * group the root's rank in the remote group. The root sends to remote rank 0, which broadcasts
     * within its group.
     */
    static void bcast(CollSchedule s, CommState c, int root, Object buf, Kind k, int off, int count) {
        if (root == Collectives.ROOT) {
            s.send(buf, k, off, count, 0);
            s.round();
        } else if (root != CommState.PROC_NULL) {
            if (c.rank == 0) {
                s.recv(buf, k, off, count, root);
                s.round();
            }
            s.on(c.localView());
            CollTree.binomialBcast(s, CollTeam.of(c.localView()), 0, buf, k, off, count);
        }
    }

    /**
     * Allgather across the groups: every process gets the blocks of the other group's processes,
     * in their rank order ({@code rcount} elements each). Each group gathers its blocks at its
     * leader, the leaders swap what they gathered, and each broadcasts what it received.
     */
    static void allgather(CollSchedule s, CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff,
                          int rcount, Kind rk) {
        CommState local = c.localView();
        CollTeam team = CollTeam.of(local);
        int mine = c.localSize() * scount;
        Object gathered = c.rank == 0 ? s.scratch(sk, mine) : null;
        s.on(local);
        CollTree.binomialGather(s, team, 0, sbuf, soff, scount, sk, gathered, 0, scount, sk);
        if (c.rank == 0) {
            s.on(c);
            s.send(gathered, sk, 0, mine, 0);
            s.recv(rbuf, rk, roff, c.size() * rcount, 0);
            s.round();
            s.on(local);
        }
        CollTree.binomialBcast(s, team, 0, rbuf, rk, roff, c.size() * rcount);
    }

    /**
     * Alltoall(v) across the groups: block r of the send buffer ({@code scounts[r]} elements at
     * {@code soff + at(sdispls, r)}) goes to process r of the other group, and what process r of the
     * other group sends here lands in block r of the receive buffer; every pair at once.
     */
    static void alltoall(CollSchedule s, CommState c, Object sbuf, int soff, int[] scounts, int[] sdispls, Kind sk,
                         Object rbuf, int roff, int[] rcounts, int[] rdispls, Kind rk) {
        alltoallw(s, c, sbuf, soff, scounts, sdispls, null, sk, rbuf, roff, rcounts, rdispls, null, rk);
    }

    /**
     * Alltoallw across the groups: as {@link #alltoall}, with the kind of block r given by
     * {@code sks[r]} and {@code rks[r]} (or {@code sk} and {@code rk} for every block when those
     * are null).
     */
    static void alltoallw(CollSchedule s, CommState c, Object sbuf, int soff, int[] scounts, int[] sdispls, Kind[] sks,
                          Kind sk, Object rbuf, int roff, int[] rcounts, int[] rdispls, Kind[] rks, Kind rk) {
        for (int r = 0; r < c.size(); r++) {
            s.recv(rbuf, rks == null ? rk : rks[r], roff + at(rdispls, r), rcounts[r], r);
        }
        for (int r = 0; r < c.size(); r++) {
            s.send(sbuf, sks == null ? sk : sks[r], soff + at(sdispls, r), scounts[r], r);
        }
        s.round();
    }

    /**
     * Allgatherv across the groups: every process sends its block to each process of the other
     * group, and gets block r ({@code counts[r]} elements at {@code roff + displs[r]}) from process
     * r of the other group; every pair at once (the counts differ, so there is no regular block to
     * gather at a leader).
     */
    static void allgatherv(CollSchedule s, CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff,
                           int[] counts, int[] displs, Kind rk) {
        for (int r = 0; r < c.size(); r++) {
            s.recv(rbuf, rk, roff + displs[r], counts[r], r);
        }
        for (int r = 0; r < c.size(); r++) {
            s.send(sbuf, sk, soff, scount, r);
        }
        s.round();
    }

    /**
     * Reduce-scatter across the groups: the reduction, in rank order, of the <em>other</em>
     * group's vectors is scattered over this group, {@code counts[i]} elements to local process i
     * (at {@code starts[i]} of the vector). Each group reduces its own vectors ({@code acc}) to its
     * leader, the leaders swap, and each scatters what it received ({@code remote}, leader only).
     */
    static void reduceScatter(CollSchedule s, CommState c, Object acc, Object remote, Kind k, int n, int[] counts,
                              int[] starts, Object rbuf, int roff) {
        CollTeam team = reduceAndSwap(s, c, acc, remote, 0, k, n);
        CollTree.linearScatterv(s, team, 0, remote, 0, counts, starts, k, rbuf, roff, counts[c.rank], k);
    }

    /**
     * The first half of allreduce and reduce_scatter: each group reduces its vectors ({@code acc},
     * {@code n} elements of {@code k}) to its leader in rank order, and the leaders swap, each
     * receiving the other group's reduction into {@code into}. Leaves the schedule on the local
     * view and returns the local group as a team, its leader member 0.
     */
    private static CollTeam reduceAndSwap(CollSchedule s, CommState c, Object acc, Object into, int intoOff, Kind k, int n) {
        CommState local = c.localView();
        CollTeam team = CollTeam.of(local);
        s.on(local);
        CollTree.binomialReduce(s, team, 0, acc, 0, k, n);
        if (c.rank == 0) {
            s.on(c);
            s.send(acc, k, 0, n, 0);
            s.recv(into, k, intoOff, n, 0);
            s.round();
            s.on(local);
        }
        return team;
    }

    /**
     * Gather ({@code toRoot}) or scatter between the root and every process of the other group,
     * straight: the root's {@code rootBuf} holds block r ({@code rootCounts[r]} elements at
     * {@code rootOff + at(rootDispls, r)}) for remote process r, each of those processes one block in
     * {@code buf}; roots as in {@link #bcast}.
     */
    static void blocks(CollSchedule s, CommState c, int root, boolean toRoot, Object rootBuf, int rootOff, int[] rootCounts,
                       int[] rootDispls, Kind rootKind, Object buf, int off, int count, Kind kind) {
        if (root == Collectives.ROOT) {
            for (int r = 0; r < c.size(); r++) {
                if (toRoot) {
                    s.recv(rootBuf, rootKind, rootOff + at(rootDispls, r), rootCounts[r], r);
                } else {
                    s.send(rootBuf, rootKind, rootOff + at(rootDispls, r), rootCounts[r], r);
                }
            }
            s.round();
        } else if (root != CommState.PROC_NULL) {
            if (toRoot) {
                s.send(buf, kind, off, count, root);
            } else {
                s.recv(buf, kind, off, count, root);
            }
            s.round();
        }
    }

    /**
     * Reduce of the other group's vectors, in its rank order, to the root: that group reduces to
     * its leader, which sends the result to the root.
     */
    static void reduce(CollSchedule s, CommState c, int root, Object acc, Object rbuf, int roff, Kind k, int count) {
        if (root == Collectives.ROOT) {
            s.recv(rbuf, k, roff, count, 0);
            s.round();
        } else if (root != CommState.PROC_NULL) {
            CommState local = c.localView();
            s.on(local);
            CollTree.binomialReduce(s, CollTeam.of(local), 0, acc, 0, k, count);
            if (c.rank == 0) {
                s.on(c);
                s.send(acc, k, 0, count, root);
                s.round();
            }
        }
    }

    /**
     * Allreduce across the groups: every process gets the reduction, in rank order, of the
     * <em>other</em> group's vectors. Each group reduces to its leader, the leaders swap, and each
     * broadcasts what it received.
     */
    static void allreduce(CollSchedule s, CommState c, Object acc, Object result, int resOff, Kind k, int count) {
        CollTeam team = reduceAndSwap(s, c, acc, result, resOff, k, count);
        CollTree.binomialBcast(s, team, 0, result, k, resOff, count);
    }

    /** Displacement r, or 0 when none are given (as the checks allow). */
    private static int at(int[] displs, int r) {
        return displs == null ? 0 : displs[r];
    }
}
