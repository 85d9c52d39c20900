package org.railyard.engine.coll;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.railyard.engine.coll.CollExpect.MATMUL;
import static org.railyard.engine.coll.CollExpect.contribution;
import static org.railyard.engine.coll.CollExpect.fold;
import static org.railyard.engine.coll.CollExpect.force;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.engine.EngineJob;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.types.Kind;
import org.railyard.types.Reduction;

/**
 * The blocking barrier, small allreduce and bcast of a one-node communicator over its counter barrier
 * ({@link CollCounter}), the default from 2 ranks on shm: a barrier lets nobody through before
 * everybody came, the allreduce equals the sequential fold in rank order (a non-commutative
 * operation too), in place and into a ByteBuffer, mixed with large collectives through the same
 * segment; a bcast from every root delivers and writes nothing around the buffer; forcing a message algorithm takes the counter out; a member that leaves ends the others'
 * wait with PEER_FAILED naming it; an operation that throws in the fold ends every member's call,
 * none waits.
 */
class CollCounterTest {
    private static final int ROUNDS = 200;

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4, 5, 8})
    void aCounterBarrierLetsNobodyThroughBeforeEverybodyCame(int n) throws Exception {
        // the ranks are threads of this JVM: a count per round that each rank bumps before the
        // barrier must be complete for every rank after it
        AtomicIntegerArray came = new AtomicIntegerArray(ROUNDS);
        EngineJob.run(n, "shm", (e, c, w, me) -> {
            for (int r = 0; r < ROUNDS; r++) {
                if ((r + me) % 7 == 0) {
                    Thread.yield(); // arrivals in a different order from round to round
                }
                came.incrementAndGet(r);
                c.barrier(w);
                assertThat(came.get(r)).as("round %d, after the barrier at rank %d", r, me).isEqualTo(n);
            }
            assertThat(e.describeChoices()).contains("barrier 0 B: " + CollCounter.NAME);
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5, 8})
    void aCounterAllreduceFoldsInRankOrderEverywhere(int n) throws Exception {
        EngineJob.run(n, "shm", (e, c, w, me) -> {
            for (int round = 0; round < 20; round++) {
                for (Reduction op : new Reduction[] {Reduction.SUM, MATMUL}) {
                    for (int count : new int[] {4, 36, 512}) {
                        long[] out = new long[count + 2];
                        c.allreduce(w, contribution(me, count, op), 0, out, 1, count, Kind.LONG, op);
                        assertThat(Arrays.copyOfRange(out, 1, count + 1)).as("allreduce %s count %d", op, count)
                                .isEqualTo(fold(op, 0, n, count));
                        assertThat(out[0] | out[count + 1]).as("around the result").isZero();
                        long[] inPlace = contribution(me, count, op);
                        c.allreduce(w, inPlace, 0, inPlace, 0, count, Kind.LONG, op);
                        assertThat(inPlace).as("in place, %s count %d", op, count).isEqualTo(fold(op, 0, n, count));
                    }
                }
                // a large one between: through the same segment's halves, with its own barriers
                long[] big = new long[40_000];
                c.allreduce(w, contribution(me, big.length, Reduction.SUM), 0, big, 0, big.length, Kind.LONG, Reduction.SUM);
                assertThat(big).isEqualTo(fold(Reduction.SUM, 0, n, big.length));
            }
            double[] pairs = {me % 2, me, 5.0, 10 - me, -me, me};
            double[] res = new double[6];
            c.allreduce(w, pairs, 0, res, 0, 6, Kind.DOUBLE, Reduction.MAXLOC);
            assertThat(res).containsExactly(1, 1, 5.0, 10 - (n - 1), 0, 0);
            ByteBuffer bb = ByteBuffer.allocate(8 * 100).order(ByteOrder.LITTLE_ENDIAN);
            c.allreduce(w, contribution(me, 100, Reduction.SUM), 0, bb, 0, 100, Kind.LONG, Reduction.SUM);
            long[] expect = fold(Reduction.SUM, 0, n, 100);
            for (int i = 0; i < 100; i++) {
                assertThat(bb.getLong(8 * i)).as("into a ByteBuffer, element %d", i).isEqualTo(expect[i]);
            }
            assertThat(e.describeChoices()).contains("SUM: " + CollCounter.NAME);
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 5})
    void anOperationThatThrowsInTheFoldEndsEveryMembersCallAndTheNextOnesWork(int n) throws Exception {
        // every member's call ends with what the operation threw (each member folds the slots
        // itself; a fold done by one member for all would end the others' with an OP error naming
        // it); nobody waits, and the communicator goes on
        Reduction broken = Reduction.of("BROKEN", true, 1, (k, in, io, inout, ioOff, count) -> {
            throw new IllegalStateException("broken operation");
        });
        EngineJob.run(n, "shm", (e, c, w, me) -> {
            long[] out = new long[4];
            assertThatThrownBy(() -> c.allreduce(w, contribution(me, 4, Reduction.SUM), 0, out, 0, 4, Kind.LONG, broken))
                    .satisfies(t -> assertThat(t).satisfiesAnyOf(
                            x -> assertThat(x).isInstanceOf(IllegalStateException.class).hasMessage("broken operation"),
                            x -> assertThat(x).isInstanceOf(RailyardException.class)
                                    .hasMessageContaining("operation BROKEN failed in rank ")
                                    .satisfies(r -> assertThat(((RailyardException) r).errorClass()).isEqualTo(ErrorClass.OP))));
            c.allreduce(w, contribution(me, 4, Reduction.SUM), 0, out, 0, 4, Kind.LONG, Reduction.SUM);
            assertThat(out).isEqualTo(fold(Reduction.SUM, 0, n, 4));
            assertThat(e.describeChoices()).contains("BROKEN: " + CollCounter.NAME);
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 5, 8})
    void aCounterBcastDeliversFromEveryRoot(int n) throws Exception {
        EngineJob.run(n, "shm", (e, c, w, me) -> {
            for (int round = 0; round < 10; round++) {
                for (int count : new int[] {1, 100, 4000}) {
                    for (int root = 0; root < n; root++) {
                        long[] b = new long[count + 2];
                        long[] sent = contribution(root * 100 + round, count, Reduction.SUM);
                        if (me == root) {
                            System.arraycopy(sent, 0, b, 1, count);
                        }
                        c.bcast(w, b, Kind.LONG, 1, count, root);
                        assertThat(Arrays.copyOfRange(b, 1, count + 1)).as("bcast of %d from %d, round %d", count, root,
                                round).isEqualTo(sent);
                        assertThat(b[0] | b[count + 1]).as("around the buffer").isZero();
                    }
                }
            }
            assertThat(e.describeChoices()).contains("bcast [16 KiB, 32 KiB): " + CollCounter.NAME);
        });
    }

    @Test
    void aCounterWaiterYieldsOnACrowdedNodeUnlessTheSettingSaysOtherwise() {
        org.railyard.util.WaitPlan crowded = org.railyard.util.WaitPlan.of(org.railyard.util.IdlePlan.CROWDED_SHARE * 2, 2,
                micros -> micros);
        assertThat(crowded.yields()).as("the node's plan on a crowded node").isZero();
        assertThat(CollCounter.planOf(crowded, null).yields()).isEqualTo(CollCounter.CROWDED_YIELDS);
        assertThat(CollCounter.planOf(crowded, "0")).as("railyard.node.yields set").isSameAs(crowded);
        org.railyard.util.WaitPlan spare = org.railyard.util.WaitPlan.of(1, 2, micros -> micros);
        assertThat(CollCounter.planOf(spare, null)).as("a processor to spare: polls first, unchanged").isSameAs(spare);
        org.railyard.util.WaitPlan over = org.railyard.util.WaitPlan.of(3, 2, micros -> micros);
        assertThat(CollCounter.planOf(over, null)).as("over-full, not crowded: its own yields").isSameAs(over);
    }

    @Test
    void aForcedMessageAlgorithmTakesTheCounterOut() throws Exception {
        EngineJob.run(4, "shm", (e, c, w, me) -> {
            force(e, "barrier", CollChoice.DISSEMINATION);
            force(e, "allreduce", CollChoice.RECURSIVE_DOUBLING);
            force(e, "bcast", CollChoice.BINOMIAL);
            CommState d = e.communicators().dup(w);
            for (int r = 0; r < 10; r++) {
                c.barrier(d);
                long[] b = me == 1 ? contribution(1, 64, Reduction.SUM) : new long[64];
                c.bcast(d, b, Kind.LONG, 0, 64, 1);
                assertThat(b).isEqualTo(contribution(1, 64, Reduction.SUM));
                long[] out = new long[8];
                c.allreduce(d, contribution(me, 8, Reduction.SUM), 0, out, 0, 8, Kind.LONG, Reduction.SUM);
                assertThat(out).isEqualTo(fold(Reduction.SUM, 0, 4, 8));
            }
            assertThat(e.describeChoices()).doesNotContain(CollCounter.NAME).contains("barrier 0 B: " + CollChoice.DISSEMINATION);
            e.communicators().free(d);
        });
    }

    @Test
    void aMemberThatLeavesEndsTheOthersWaitWithPeerFailed() throws Exception {
        CountDownLatch gone = new CountDownLatch(1);
        EngineJob.run(3, "shm", (e, c, w, me) -> {
            c.barrier(w); // maps the segment: every member takes part
            if (me == 2) {
                gone.countDown();
                return; // its engine closes: the others' channels to it go down
            }
            assertThat(gone.await(30, TimeUnit.SECONDS)).isTrue();
            // rank 2 left; the other waiter may leave too (after its own failure) before this one
            // looks, so the message names whichever of them this rank found gone, at least one
            int other = 1 - me;
            assertThatThrownBy(() -> c.barrier(w)).isInstanceOf(RailyardException.class)
                    .satisfies(t -> assertThat(((RailyardException) t).errorClass()).isEqualTo(ErrorClass.PEER_FAILED))
                    .hasMessageContaining("barrier on WORLD (" + CollCounter.NAME + ") failed: rank ")
                    .satisfies(t -> assertThat(t.getMessage()).containsAnyOf("rank 2 (world rank 2) failed",
                            "rank " + other + " (world rank " + other + ") failed"))
                    .satisfies(t -> assertThat(t.getMessage()).doesNotContain("rank " + me + " (world rank"));
        });
    }
}
