package org.railyard.systest.ranks;

import static org.railyard.systest.ranks.RankSupport.await;
import static org.railyard.systest.ranks.RankSupport.expectFailure;
import static org.railyard.systest.ranks.RankSupport.fillInts;
import static org.railyard.systest.ranks.RankSupport.require;
import static org.railyard.systest.ranks.RankSupport.requireEquals;
import static org.railyard.systest.ranks.RankSupport.verifyInts;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.railyard.Comm;
import org.railyard.Op;
import org.railyard.Request;
import org.railyard.Status;
import org.railyard.error.ErrorClass;

/**
 * The checks of {@link SemanticsRanks} that the whole group takes part in, not pairs of ranks:
 * communicators made by dup and split ({@code dupsplit}), collectives ({@code collectives}), and
 * every rank talking to every other ({@code allpairs}). The rank program names them, runs them in
 * its order and reports them like its other checks.
 */
final class GroupSemantics {
    private final SemanticsRanks job;
    private final Comm world;
    private final int rank;
    private final int size;

    GroupSemantics(SemanticsRanks job) {
        this.job = job;
        this.world = job.world;
        this.rank = job.rank;
        this.size = job.size;
    }

    private void onPairs(Consumer<Integer> first, Consumer<Integer> second) {
        job.onPairs(first, second);
    }

    // ================================================================== communicators

    /**
     * dup gives a communicator whose messages never match receives of the original (and the other
     * way round), even with wildcards; split groups and orders by color and key, with its own
     * context; UNDEFINED gets null; a freed communicator refuses use.
     */
    void dupSplit() {
        Comm d = world.dup();
        requireEquals(size, d.size(), "size of the dup");
        requireEquals(rank, d.rank(), "rank in the dup");
        require(!d.name().equals(world.name()), "the dup is named like the original: " + d.name());
        onPairs(p -> {
            d.send(new long[] {1}, 0, 1, p, 5);
            world.send(new long[] {2}, 0, 1, p, 5);
            d.send(new long[] {3}, 0, 1, p, 5);
        }, p -> {
            // once world's message is there, the dup's first message (sent before it on the same
            // ordered connection) is too: a wildcard receive on world that ignored contexts would take it
            Status pr = world.probe(p, 5);
            requireEquals(8, pr.bytes(), "probe on world");
            long[] v = new long[1];
            Status st = world.recv(v, 0, 1, Comm.ANY_SOURCE, Comm.ANY_TAG);
            requireEquals(2, v[0], "world's wildcard receive took a message of the dup (value 1 or 3 is the dup's)");
            requireEquals(p, st.source(), "source on world");
            d.recv(v, 0, 1, p, 5);
            requireEquals(1, v[0], "first message on the dup");
            d.recv(v, 0, 1, Comm.ANY_SOURCE, Comm.ANY_TAG);
            requireEquals(3, v[0], "second message on the dup");
        });
        d.barrier();

        int color = rank % 2;
        Comm s = world.split(color, size - rank); // key reverses the order
        int members = 0;
        int above = 0;
        for (int r = 0; r < size; r++) {
            if (r % 2 == color) {
                members++;
                if (r > rank) {
                    above++;
                }
            }
        }
        require(s != null, "split with a color returned null");
        requireEquals(members, s.size(), "size of split color " + color);
        requireEquals(above, s.rank(), "rank in split color " + color + " ordered by descending world rank");
        requireEquals(rank, s.worldRank(s.rank()), "worldRank of my rank in the split");
        long expectedSum = 0;
        for (int r = color; r < size; r += 2) {
            expectedSum += r;
        }
        // a message on world with the same tag is in flight while the split communicates
        int wr = (rank + 1) % size;
        int wl = (rank + size - 1) % size;
        long[] fromWorld = new long[1];
        Request worldMsg = world.irecv(fromWorld, 0, 1, wl, 9);
        world.send(new long[] {-1 - rank}, 0, 1, wr, 9);
        requireEquals(expectedSum, s.allreduce((long) rank, Op.SUM), "allreduce over split color " + color);
        if (s.size() > 1) {
            int sr = (s.rank() + 1) % s.size();
            int sl = (s.rank() + s.size() - 1) % s.size();
            long[] in = new long[1];
            Status st = s.sendrecv(new long[] {rank}, 0, 1, sr, 9, in, 0, 1, Comm.ANY_SOURCE, Comm.ANY_TAG);
            requireEquals(s.worldRank(sl), in[0], "value from my left in the split (a negative value came from world)");
            requireEquals(sl, st.source(), "source in the split is a split rank");
        }
        await(worldMsg, "world message sent during the split's traffic");
        requireEquals(-1 - wl, fromWorld[0], "world message sent during the split's traffic");

        Comm u = world.split(rank == 0 ? Comm.UNDEFINED : 0, rank);
        if (rank == 0) {
            require(u == null, "split with UNDEFINED returned " + u);
        } else {
            require(u != null, "split without UNDEFINED returned null");
            requireEquals(size - 1, u.size(), "size of the split without rank 0");
            requireEquals(rank - 1, u.rank(), "rank in the split without rank 0");
            u.barrier();
            u.free();
        }
        s.barrier();
        s.free();
        expectFailure(ErrorClass.COMM, "barrier on a freed communicator", s::barrier);
        d.free();
        expectFailure(ErrorClass.COMM, "send on a freed communicator", () -> d.send(new int[1], 0, 1, rank, 1));
        expectFailure(ErrorClass.COMM, "world cannot be freed", world::free);
    }

    // ================================================================== collectives

    /**
     * barrier: in each round one rank enters late, after ping-pongs with every other rank (which
     * then enter at once), and checks that no "left the barrier" note from anyone has arrived; a
     * barrier that let a rank through early would let that note arrive. bcast from every root, small
     * and rendezvous-sized, with offsets; reduce to every root (SUM, MAX, MIN), the other ranks'
     * receive buffers untouched; allreduce of scalars and of 50000 doubles, bitwise ops; empty
     * collectives. A wildcard receive posted on world before all that must not have matched any of
     * the collectives' traffic.
     */
    void collectives() {
        Comm aux = world.dup();
        for (int round = 0; round < 2 * size; round++) {
            int late = round % size;
            Request[] notes = new Request[size];
            for (int p = 0; p < size; p++) {
                if (p != rank) {
                    notes[p] = aux.irecv(new int[1], 0, 1, p, 1000 + round);
                }
            }
            int[] one = new int[1];
            if (rank == late) {
                for (int p = 0; p < size; p++) {
                    if (p != rank) {
                        aux.send(one, 0, 1, p, 2000 + round);
                        aux.recv(one, 0, 1, p, 3000 + round);
                    }
                }
                int early = Request.testAny(notes);
                require(early < 0, "rank " + early + " left barrier round " + round + " before rank " + late + " entered it");
            } else {
                aux.recv(one, 0, 1, late, 2000 + round);
                aux.send(one, 0, 1, late, 3000 + round);
            }
            world.barrier();
            for (int p = 0; p < size; p++) {
                if (p != rank) {
                    aux.send(one, 0, 1, p, 1000 + round);
                }
            }
            for (Request n : notes) {
                if (n != null) {
                    await(n, "note of barrier round " + round);
                }
            }
        }
        aux.free();

        // collective traffic never matches a user's wildcard receive on the same communicator
        int[] catcher = {-5};
        Request wildcard = world.irecv(catcher, 0, 1, Comm.ANY_SOURCE, Comm.ANY_TAG);

        for (int root = 0; root < size; root++) {
            int[] small = new int[12];
            Arrays.fill(small, -9);
            if (rank == root) {
                fillInts(small, 2, 10, root, 1);
            }
            world.bcast(small, 2, 10, root);
            verifyInts(small, 2, 10, root, 1, "bcast of 10 ints from root " + root);
            require(small[0] == -9 && small[1] == -9, "bcast wrote before its offset");
            double[] big = new double[150_000];
            if (rank == root) {
                for (int i = 0; i < big.length; i++) {
                    big[i] = root + i * 0.25;
                }
            }
            world.bcast(big, 0, big.length, root);
            for (int i = 0; i < big.length; i++) {
                if (big[i] != root + i * 0.25) {
                    throw new AssertionError("bcast of 150000 doubles from root " + root + ": element " + i + " is " + big[i]);
                }
            }
        }

        for (int root = 0; root < size; root++) {
            for (int n : new int[] {1, 40_000}) {
                long[] send = new long[n];
                for (int i = 0; i < n; i++) {
                    send[i] = (rank + 1L) * (i + 1);
                }
                long[] recv = new long[n];
                Arrays.fill(recv, -7);
                world.reduce(send, 0, recv, 0, n, Op.SUM, root);
                long ranksSum = (long) size * (size + 1) / 2;
                for (int i = 0; i < n; i++) {
                    long expected = rank == root ? ranksSum * (i + 1) : -7;
                    if (recv[i] != expected) {
                        throw new AssertionError("reduce SUM of " + n + " longs to root " + root + ": element " + i
                                + " is " + recv[i] + ", expected " + expected + (rank == root ? "" : " (untouched)"));
                    }
                }
            }
            double[] dmax = new double[1];
            world.reduce(new double[] {rank * 1.5}, 0, dmax, 0, 1, Op.MAX, root);
            if (rank == root) {
                require(dmax[0] == (size - 1) * 1.5, "reduce MAX to root " + root + " is " + dmax[0]);
            }
            int[] imin = new int[] {99};
            world.reduce(new int[] {10 - rank}, 0, imin, 0, 1, Op.MIN, root);
            requireEquals(rank == root ? 10 - (size - 1) : 99, imin[0], "reduce MIN to root " + root);
        }

        requireEquals((long) size * (size - 1) / 2, world.allreduce((long) rank, Op.SUM), "allreduce SUM of ranks");
        require(world.allreduce(rank * 2.0, Op.MAX) == (size - 1) * 2.0, "allreduce MAX of doubles");
        requireEquals(0, world.allreduce((long) rank, Op.MIN), "allreduce MIN of ranks");
        double[] vec = new double[50_000];
        double[] sum = new double[50_000];
        for (int i = 0; i < vec.length; i++) {
            vec[i] = rank * 100_000.0 + i;
        }
        world.allreduce(vec, 0, sum, 0, vec.length, Op.SUM);
        for (int i = 0; i < vec.length; i++) {
            double expected = 100_000.0 * size * (size - 1) / 2 + (double) i * size;
            if (sum[i] != expected) {
                throw new AssertionError("allreduce SUM of 50000 doubles: element " + i + " is " + sum[i] + ", expected " + expected);
            }
        }
        int[] bits = {1 << rank, ~(1 << rank)};
        int[] or = new int[2];
        world.allreduce(bits, 0, or, 0, 2, Op.BOR);
        requireEquals((1 << size) - 1, or[0], "allreduce BOR of 1 << rank");
        int[] and = new int[2];
        world.allreduce(bits, 0, and, 0, 2, Op.BAND);
        requireEquals(~((1 << size) - 1), and[1], "allreduce BAND of ~(1 << rank)");

        // empty collectives complete and move nothing
        for (int root = 0; root < size; root++) {
            world.bcast(new int[0], 0, 0, root);
            world.reduce(new long[0], 0, new long[0], 0, 0, Op.SUM, root);
        }
        world.allreduce(new double[0], 0, new double[0], 0, 0, Op.MAX);

        world.barrier();
        require(!wildcard.test(), "a wildcard receive posted before the collectives matched: " + wildcard.status()
                + " (collective traffic leaked into the user's context)");
        world.send(new int[] {rank + 500}, 0, 1, rank, 77);
        Status st = await(wildcard, "wildcard receive after the collectives");
        requireEquals(rank, st.source(), "source of the message the wildcard receive got");
        requireEquals(77, st.tag(), "tag of the message the wildcard receive got");
        requireEquals(rank + 500, catcher[0], "value the wildcard receive got");
    }

    // ================================================================== all pairs

    /** Every rank sends one message to every other rank: every connection of the job is opened. */
    void allPairs() {
        List<Request> rs = new ArrayList<>();
        int[][] in = new int[size][1];
        for (int p = 0; p < size; p++) {
            if (p != rank) {
                rs.add(world.irecv(in[p], 0, 1, p, 1));
                rs.add(world.isend(new int[] {rank}, 0, 1, p, 1));
            }
        }
        for (Request r : rs) {
            await(r, "all-pairs exchange");
        }
        for (int p = 0; p < size; p++) {
            if (p != rank) {
                requireEquals(p, in[p][0], "value from rank " + p);
            }
        }
    }
}
