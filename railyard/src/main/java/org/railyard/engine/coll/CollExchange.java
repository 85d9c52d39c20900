package org.railyard.engine.coll;

import org.railyard.types.Kind;
import org.railyard.types.CartTopology;
import org.railyard.types.Topology;

/**
 * Personalised exchanges: alltoall by Bruck's algorithm, by posting everything at once, or by
 * pairwise exchange; alltoallv and alltoallw; and the neighbourhood collectives of a topology.
 * Counts and displacements are in elements of their block's type; a block of zero elements is
 * not sent (both ends know its count).
 */
final class CollExchange {
    private CollExchange() {
    }

    /**
     * Everything at once: one receive and one send per peer, posted in one round, starting with
     * the neighbour above so that not every process sends to rank 0 first. Lowest latency while
     * the messages are small enough for the network to absorb them together.
     */
    static void linear(CollSchedule s, CollTeam t, Object sbuf, int soff, int[] scounts, int[] sdispls, Kind sk,
                       Object rbuf, int roff, int[] rcounts, int[] rdispls, Kind rk) {
        int p = t.size;
        int me = t.me;
        for (int i = 1; i < p; i++) {
            int from = (me - i + p) % p;
            if (rcounts[from] > 0) {
                s.recv(rbuf, rk, roff + rdispls[from], rcounts[from], t.rank(from));
            }
        }
        for (int i = 1; i < p; i++) {
            int to = (me + i) % p;
            if (scounts[to] > 0) {
                s.send(sbuf, sk, soff + sdispls[to], scounts[to], t.rank(to));
            }
        }
        s.copy(sk, sbuf, soff + sdispls[me], scounts[me], rk, rbuf, roff + rdispls[me]);
        s.round();
    }

    /**
     * Pairwise exchange: p - 1 rounds; in round i each process sends to {@code me + i} and
     * receives from {@code me - i}, so every process has exactly one message in and one out at a
     * time: the algorithm for long messages, where posting everything at once only congests.
     */
    static void pairwise(CollSchedule s, CollTeam t, Object sbuf, int soff, int[] scounts, int[] sdispls, Kind sk,
                         Object rbuf, int roff, int[] rcounts, int[] rdispls, Kind rk) {
        int p = t.size;
        int me = t.me;
        for (int i = 1; i < p; i++) {
            int to = (me + i) % p;
            int from = (me - i + p) % p;
            if (scounts[to] > 0) {
                s.send(sbuf, sk, soff + sdispls[to], scounts[to], t.rank(to));
            }
            if (rcounts[from] > 0) {
                s.recv(rbuf, rk, roff + rdispls[from], rcounts[from], t.rank(from));
            }
            if (i == 1) {
                // this process's own block, once the first exchange is posted: the partner need not wait for it
                s.copy(sk, sbuf, soff + sdispls[me], scounts[me], rk, rbuf, roff + rdispls[me]);
            }
            s.round();
        }
        if (p == 1) {
            s.copy(sk, sbuf, soff + sdispls[me], scounts[me], rk, rbuf, roff + rdispls[me]);
        }
        s.round();
    }

    /**
     * Bruck's alltoall (1997): ceil(log2 p) rounds instead of p - 1, for short blocks where the
     * message count dominates. Blocks are first rotated so that block i is the one for
     * {@code me + i}; in the round at distance d every block whose index has bit d set moves to
     * {@code me + d} (packed into one message); after the last round block i came from
     * {@code me - i}, and an inverse rotation puts it in place. Blocks travel as the receive type.
     */
    static void bruck(CollSchedule s, CollTeam t, Object sbuf, int soff, int scount, Kind sk,
                      Object rbuf, int roff, int rcount, Kind rk) {
        int p = t.size;
        int me = t.me;
        int b = rcount;
        Object work = s.scratch(rk, p * b);
        for (int i = 0; i < p; i++) {
            s.copy(sk, sbuf, soff + ((me + i) % p) * scount, scount, rk, work, i * b);
        }
        int most = (p + 1) / 2;
        Object out = s.scratch(rk, most * b);
        Object in = s.scratch(rk, most * b);
        for (int d = 1; d < p; d <<= 1) {
            int n = 0;
            for (int i = d; i < p; i++) {
                if ((i & d) != 0) {
                    s.copy(rk, work, i * b, out, n++ * b, b);
                }
            }
            s.send(out, rk, 0, n * b, t.rank((me + d) % p));
            s.recv(in, rk, 0, n * b, t.rank((me - d + p) % p));
            s.round();
            n = 0;
            for (int i = d; i < p; i++) {
                if ((i & d) != 0) {
                    s.copy(rk, in, n++ * b, work, i * b, b);
                }
            }
        }
        for (int i = 0; i < p; i++) {
            s.copy(rk, work, i * b, rbuf, roff + ((me - i + p) % p) * b, b);
        }
        s.round();
    }

    /** alltoallw: a type per peer; everything posted at once, as {@link #linear}. */
    static void linearW(CollSchedule s, CollTeam t, Object sbuf, int[] scounts, int[] sdispls, Kind[] sks,
                        Object rbuf, int[] rcounts, int[] rdispls, Kind[] rks) {
        int p = t.size;
        int me = t.me;
        for (int i = 1; i < p; i++) {
            int from = (me - i + p) % p;
            if (rcounts[from] > 0) {
                s.recv(rbuf, rks[from], rdispls[from], rcounts[from], t.rank(from));
            }
        }
        for (int i = 1; i < p; i++) {
            int to = (me + i) % p;
            if (scounts[to] > 0) {
                s.send(sbuf, sks[to], sdispls[to], scounts[to], t.rank(to));
            }
        }
        s.copy(sks[me], sbuf, sdispls[me], scounts[me], rks[me], rbuf, rdispls[me]);
        s.round();
    }

    /**
     * Neighbourhood exchange over a topology, one block per neighbour on each side: block j of the
     * send buffer ({@code scounts[j]} elements of {@code sks[j]} at {@code soff + sdispls[j]}) goes
     * to neighbour j, and block j of the receive buffer ({@code rcounts[j]} elements of
     * {@code rks[j]} at {@code roff + rdispls[j]}) comes from neighbour j. The allgather forms pass
     * the same send block (displacement 0) for every neighbour. An empty block moves nothing.
     * {@link CommState#PROC_NULL} holes (the edges of a non-periodic grid) move nothing and leave
     * their block untouched. On a Cartesian topology the message to neighbour j is tagged with the
     * index the receiver knows the sender by ({@code j ^ 1}: my "+1" neighbour sees me as its
     * "-1"), so two links to one process (a periodic dimension of size 1 or 2) cannot cross; on a
     * graph, messages between one pair match in order. Blocks are received from the topology's
     * sources and sent to its destinations, which are the same list except on a distributed graph.
     */
    static void neighbours(CollSchedule s, Topology topo, Object sbuf, int soff, int[] scounts, int[] sdispls, Kind[] sks,
                           Object rbuf, int roff, int[] rcounts, int[] rdispls, Kind[] rks) {
        int[] in = topo.sources(s.comm.rank);
        int[] out = topo.destinations(s.comm.rank);
        boolean cart = topo instanceof CartTopology;
        for (int j = 0; j < in.length; j++) {
            if (rcounts[j] > 0) {
                s.recv(s.comm, rbuf, rks[j], roff + rdispls[j], rcounts[j], in[j], cart ? j : 0);
            }
        }
        for (int j = 0; j < out.length; j++) {
            if (scounts[j] > 0) {
                s.send(s.comm, sbuf, sks[j], soff + sdispls[j], scounts[j], out[j], cart ? j ^ 1 : 0);
            }
        }
        s.round();
    }
}
