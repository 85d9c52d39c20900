package org.railyard.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.channel.ChannelPair.Message;

/**
 * A multi-rail channel between two channel tables in one JVM, with injected time and in-memory
 * rails of chosen speeds ({@link MemoryNetwork}): order restored across rails, striping and its
 * completion filter, the adaptive weights, and failures (a rail cut silently or reset, both rails
 * cut within and beyond the partition bound) with nothing lost or delivered twice.
 */
class MultiRailChannelTest {
    /** Bytes per millisecond: 60 MB/s and 15 MB/s. */
    private static final long FAST = 60_000;
    private static final long SLOW = 15_000;

    private static List<Message> queueMixed(ChannelPair p, int count, int bulkEvery, int bulkBytes) {
        List<Message> ms = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            boolean bulk = i % bulkEvery == bulkEvery - 1;
            Message m = new Message(i, bulk ? bulkBytes : 10 + i % 300, bulk, Outbound.BLOCKING);
            ms.add(m);
            if (bulk) {
                p.sender().sendBulk(m);
            } else {
                p.sender().sendEnvelope(m);
            }
        }
        return ms;
    }

    /** Everything was handed over (or acknowledged) on the sender, and everything arrived. */
    private static boolean allThrough(ChannelPair p, List<Message> ms) {
        if (!ms.stream().allMatch(m -> m.written)) {
            return false;
        }
        long envelopes = ms.stream().filter(m -> !m.bulk).count();
        return p.sinks[1].envelopes.size() >= envelopes && ms.stream().filter(m -> m.bulk).allMatch(p.sinks[1]::complete);
    }

    private static void assertAllDeliveredOnceInOrder(ChannelPair p, List<Message> ms) {
        List<Integer> expected = ms.stream().filter(m -> !m.bulk).map(m -> m.id).toList();
        assertThat(p.sinks[1].envelopes).as("envelopes in posting order, each once").containsExactlyElementsOf(expected);
        for (Message m : ms) {
            if (m.bulk) {
                assertThat(p.sinks[1].complete(m)).as("bulk message %d whole, every byte once", m.id).isTrue();
            }
        }
        // every packet once; envelopes in packet order (rendezvous data may go up ahead of its turn)
        List<Long> psns = p.sinks[1].psns;
        assertThat(psns).doesNotHaveDuplicates();
        assertThat(new java.util.TreeSet<>(psns)).containsExactlyElementsOf(
                java.util.stream.LongStream.range(0, psns.size()).boxed().toList());
        assertThat(p.sinks[1].envelopePsns).isSorted();
        assertThat(ms).allMatch(m -> m.written);
    }

    private static long sent(VirtualChannel c, int rail) {
        for (Rail r : c.rails()) {
            if (r.index == rail) {
                return r.bytesSent();
            }
        }
        return 0;
    }

    @Test
    void roundRobinOverRailsOfDifferentSpeedsIsDeliveredInOrder() {
        ChannelPair p = new ChannelPair(ChannelPair.settings("rr"), 1, FAST, SLOW / 10);
        List<Message> ms = queueMixed(p, 400, 1000, 0);
        assertThat(p.runUntil(() -> p.sinks[1].envelopes.size() == 400, 10_000)).as(String.join("\n", p.log)).isTrue();
        assertAllDeliveredOnceInOrder(p, ms);
        assertThat(p.receiver().sequencer().reordered).as("frames that overtook others on the fast rail were held back").isPositive();
        assertThat(p.sender().reliable()).isTrue();
    }

    @Test
    void aStripedMessageIsSplitByWeightAndCompletesOnlyOnceThePeerHasAllOfIt() {
        ChannelPair p = new ChannelPair(ChannelPair.settings("weighted:3,1"), 2, FAST, FAST);
        Message m = new Message(7, 4 << 20, true, Outbound.BLOCKING);
        p.sender().sendBulk(m);
        boolean completedEarly = false;
        while (!m.written && p.now < 20_000_000_000L) {
            p.step();
            completedEarly |= m.written && !p.sinks[1].complete(m);
        }
        assertThat(m.written).isTrue();
        assertThat(completedEarly).as("the sender completed before the receiver had every byte").isFalse();
        assertThat(p.sinks[1].complete(m)).isTrue();
        assertThat((double) sent(p.sender(), 0) / sent(p.sender(), 1)).isCloseTo(3.0, org.assertj.core.data.Offset.offset(0.05));
    }

    @Test
    void smallMessagesAreNeverStriped() {
        ChannelPair p = new ChannelPair(ChannelPair.settings("even"), 3, FAST, FAST);
        Message m = new Message(1, 60 * 1024, true, Outbound.BLOCKING); // below the 64 KiB threshold
        p.sender().sendBulk(m);
        assertThat(p.runUntil(() -> p.sinks[1].complete(m), 1000)).isTrue();
        assertThat(sent(p.sender(), 1)).isZero();
    }

    @Test
    void adaptiveStripingLearnsTheSpeedsOfTheRails() {
        ChannelPair p = new ChannelPair(ChannelPair.settings("adaptive"), 4, FAST, SLOW);
        List<Message> ms = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            Message m = new Message(i, 1 << 20, true, Outbound.BLOCKING);
            ms.add(m);
            p.sender().sendBulk(m);
        }
        assertThat(p.runUntil(() -> allThrough(p, ms), 60_000)).as(String.join("\n", p.log)).isTrue();
        Rail[] r = p.sender().rails();
        assertThat(r[0].weight / r[1].weight).as("weights follow 60:15 MB/s").isCloseTo(4.0, org.assertj.core.data.Offset.offset(0.6));
        assertAllDeliveredOnceInOrder(p, ms);
    }

    @Test
    void evenStripingIsHeldBackByTheSlowRailAndAdaptiveIsNot() {
        long[] millis = new long[2];
        String[] policies = {"even", "adaptive"};
        for (int k = 0; k < 2; k++) {
            ChannelPair p = new ChannelPair(ChannelPair.settings(policies[k]), 5, FAST, SLOW);
            List<Message> ms = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                Message m = new Message(i, 1 << 20, true, Outbound.BLOCKING);
                ms.add(m);
                p.sender().sendBulk(m);
            }
            long start = p.now;
            assertThat(p.runUntil(() -> allThrough(p, ms), 60_000)).isTrue();
            millis[k] = (p.now - start) / 1_000_000;
        }
        // 30 MiB: even is bound by 2 x 15 MB/s (about 1050 ms), adaptive by 75 MB/s (about 420 ms plus learning)
        assertThat(millis[0]).as("even, ms").isGreaterThan(950);
        assertThat(millis[1]).as("adaptive, ms").isLessThan(millis[0] * 2 / 3);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13, 14, 15, 16})
    void aRailCutSilentlyInTheMiddleLosesNothingAndComesBackAfterHealing(long seed) {
        ChannelPair p = new ChannelPair(ChannelPair.settings("adaptive"), seed, FAST, FAST);
        List<Message> ms = queueMixed(p, 300, 5, 300_000);
        p.net.cutAfter(1, 20, 300);
        assertThat(p.runUntil(() -> p.sender().rails().length == 2 && !p.sender().rails()[1].up(), 5000))
                .as("rail 1 declared down after its silence").isTrue();
        p.runFor(100);
        p.net.heal(1);
        assertThat(p.runUntil(() -> allThrough(p, ms), 30_000)).as(String.join("\n", p.log)).isTrue();
        assertAllDeliveredOnceInOrder(p, ms);
        assertThat(p.sinks[0].down).isNull();
        Rail cut = p.sender().rails()[1];
        assertThat(p.runUntil(cut::up, 1000)).as("rail 1 re-admitted within the longest backoff").isTrue();
        assertThat(cut.stats.retransmittedFrames() + p.sender().rails()[0].stats.retransmittedFrames())
                .as("frames sent again").isPositive();
        // the healed rail carries traffic again
        long before = cut.bytesSent();
        List<Message> more = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Message m = new Message(1000 + i, 1 << 20, true, Outbound.BLOCKING);
            more.add(m);
            p.sender().sendBulk(m);
        }
        assertThat(p.runUntil(() -> allThrough(p, more), 10_000)).isTrue();
        assertThat(cut.bytesSent()).isGreaterThan(before);
    }

    @Test
    void aResetRailFailsOverWithoutWaitingForTheTimeout() {
        ChannelPair p = new ChannelPair(ChannelPair.settings("even"), 21, FAST, FAST);
        List<Message> ms = queueMixed(p, 60, 3, 200_000);
        p.runFor(5);
        p.net.cut(0); // cannot reconnect until healed
        p.net.reset(0);
        long t = p.now;
        assertThat(p.runUntil(() -> !p.sender().rails()[0].up(), 1000)).isTrue();
        assertThat(p.now - t).as("noticed at once, not after the 200 ms timeout").isLessThan(5_000_000);
        assertThat(p.runUntil(() -> allThrough(p, ms), 10_000)).isTrue();
        assertAllDeliveredOnceInOrder(p, ms);
    }

    /*
     * A rail's snapshot holds its counters as last sampled (every Stats.SAMPLE_NANOS, 100 ms). A
     * channel that goes down, or closes after one of its rails went down, between two samples must
     * leave every rail's final counters: read after the end, the stale sample of a rail reset while
     * its peer finalized once showed a third of a striped transfer as a fifth (MultiRailEngineTest).
     */

    @Test
    void aSingleRailChannelThatGoesDownLeavesItsRailsFinalCounters() {
        ChannelPair p = new ChannelPair(ChannelPair.settings("even"), 51, FAST);
        queueMixed(p, 40, 4, 100_000);
        p.runFor(20); // within the first sample period
        Rail r = p.sender().rails()[0];
        assertThat(r.stats.bytesSent()).isPositive();
        p.net.cut(0);
        p.net.reset(0);
        assertThat(p.runUntil(() -> p.sender().state() == VirtualChannel.State.DOWN, 1000)).isTrue();
        assertThat(r.stats.snapshot().bytesSent()).as("bytes sent, as sampled").isEqualTo(r.stats.bytesSent());
    }

    @Test
    void aClosingChannelSamplesTheRailThatWentDownBeforeIt() {
        ChannelPair p = new ChannelPair(ChannelPair.settings("even"), 52, FAST, FAST);
        queueMixed(p, 40, 4, 100_000);
        p.runFor(20); // both rails up and sampled once
        Rail r = p.sender().rails()[0];
        long sampled = r.stats.snapshot().bytesSent();
        queueMixed(p, 8, 4, 100_000);
        p.runFor(2); // more on the rail, not sampled yet
        assertThat(r.stats.bytesSent()).isGreaterThan(sampled);
        p.net.cut(0);
        p.net.reset(0);
        assertThat(p.runUntil(() -> !r.up(), 50)).isTrue();
        p.sender().closeRails();
        assertThat(r.stats.snapshot().bytesSent()).as("bytes sent on the rail that went down, as sampled")
                .isEqualTo(r.stats.bytesSent());
    }

    @Test
    void bothRailsCutWithinThePartitionBoundTheTransferCompletesAsIfNothingHappened() {
        ChannelPair p = new ChannelPair(ChannelPair.settings("adaptive"), 31, FAST, SLOW);
        List<Message> ms = queueMixed(p, 200, 4, 250_000);
        p.runFor(30);
        p.net.cut(0);
        p.net.cut(1);
        assertThat(p.runUntil(() -> p.sender().partitioned() && p.receiver().partitioned(), 2000)).isTrue();
        p.runFor(1000); // under the 2 s bound
        assertThat(p.sinks[0].down).isNull();
        assertThat(p.net.ends[1].probes + p.net.ends[0].probes).as("partitioned sides probe the peer").isPositive();
        p.net.heal(1);
        p.net.heal(0);
        assertThat(p.runUntil(() -> allThrough(p, ms), 20_000)).as(String.join("\n", p.log)).isTrue();
        assertAllDeliveredOnceInOrder(p, ms);
        assertThat(p.sinks[0].down).isNull();
        assertThat(p.sinks[1].down).isNull();
    }

    @Test
    void bothRailsCutBeyondTheBoundFailsTheChannelNamingThePeerAndTheBound() {
        ChannelPair p = new ChannelPair(ChannelPair.settings("adaptive"), 41, FAST, FAST);
        queueMixed(p, 100, 4, 250_000);
        p.runFor(20);
        p.net.cut(0);
        p.net.cut(1);
        assertThat(p.runUntil(() -> p.sinks[0].down != null, 5000)).isTrue();
        assertThat(p.sinks[0].down).contains("rank 1").contains("2000 ms").contains("railyard.partition.timeout");
        assertThat(p.sender().state()).isEqualTo(VirtualChannel.State.DOWN);
        assertThat(p.runUntil(() -> p.sinks[1].down != null, 1000)).isTrue();
        assertThat(p.sinks[1].down).contains("rank 0");
    }

    @Test
    void aSingleRailChannelKeepsNoAcknowledgementsAndGoesDownWithItsLink() {
        ChannelPair p = new ChannelPair(ChannelPair.settings("adaptive"), 51, FAST);
        List<Message> ms = queueMixed(p, 50, 5, 100_000);
        assertThat(p.runUntil(() -> allThrough(p, ms), 5000)).isTrue();
        assertThat(p.sender().reliable()).isFalse();
        assertThat(p.sinks[1].envelopes).hasSize(40);
        p.net.reset(0);
        assertThat(p.runUntil(() -> p.sinks[0].down != null, 100)).isTrue();
        assertThat(p.sinks[0].down).contains("lost");
    }

    @ParameterizedTest(name = "frame {0} lost")
    @ValueSource(ints = {1, 7, 30, 120})
    void aFrameLostOnARerouteWithoutTheRailBreakingGoesAgainOnceAcknowledgementsStandStill(int lost) {
        ChannelPair p = new ChannelPair(ChannelPair.settings("adaptive"), 81, FAST);
        p.net.rerouting(0);
        List<Message> ms = queueMixed(p, 200, 5, 100_000);
        p.net.loseOne(0, lost);
        // the rail never breaks: only the acknowledgements that stop at the lost frame tell
        assertThat(p.runUntil(() -> allThrough(p, ms) && p.sender().idle(), 10_000)).as(String.join("\n", p.log)).isTrue();
        assertThat(p.sender().reliable()).isTrue();
        assertAllDeliveredOnceInOrder(p, ms);
        assertThat(p.sender().rails()[0].stats.retransmittedFrames()).as("frames sent again").isPositive();
        assertThat(p.log).anyMatch(l -> l.contains("acknowledged nothing beyond packet") && l.contains("rerouting rail"));
        Rail r = p.sender().rails()[0];
        assertThat(p.runUntil(r::up, 1000)).as("the rail linked again").isTrue();
        // linked anew, both ends count the rail's bytes from the same frame: nothing seems in flight for ever
        assertThat(p.runUntil(() -> r.inFlight() == 0, 1000)).as("in flight on the new link: %d B", r.inFlight()).isTrue();
        assertThat(p.sinks[0].down).isNull();
    }

    @Test
    void retransmissionsThatArriveTwiceAreDroppedByPsn() {
        // cut the fast rail after frames are in flight on it, so the same frames arrive again
        int duplicates = 0;
        for (long seed : IntStream.rangeClosed(60, 65).asLongStream().toArray()) {
            ChannelPair p = new ChannelPair(ChannelPair.settings("rr"), seed, FAST, FAST);
            List<Message> ms = queueMixed(p, 400, 1000, 0);
            p.runFor(1);
            p.net.reset(0); // frames already read by the peer but not yet acknowledged go again
            p.net.cut(0);
            // until everything is acknowledged, so every frame that went again has arrived again
            assertThat(p.runUntil(() -> allThrough(p, ms) && p.sender().idle(), 10_000)).isTrue();
            assertAllDeliveredOnceInOrder(p, ms);
            for (Rail r : p.receiver().rails()) {
                r.stats.sample(p.now);
                duplicates += (int) r.stats.snapshot().duplicates();
            }
        }
        assertThat(duplicates).as("some resent frames had arrived already and were dropped").isPositive();
    }

    @Test
    void aPeerWhoseProcessIsGoneFailsTheChannelWithoutWaitingForThePartitionBound() {
        ChannelPair p = new ChannelPair(ChannelPair.settings("adaptive"), 71, FAST, FAST);
        queueMixed(p, 100, 4, 250_000);
        p.runFor(20);
        p.net.peerGone = true; // the kernel closed its sockets: every rail ends, and nothing listens any more
        p.net.reset(0);
        p.net.reset(1);
        assertThat(p.runUntil(() -> p.sinks[0].down != null, 1000)).as(String.join("\n", p.log)).isTrue();
        assertThat(p.sinks[0].down).contains("rank 1 is gone").contains("refuses connections");
        assertThat(p.now - 1_000_000_000L).as("well before the 2 s bound").isLessThan(1_500_000_000L);
    }
}
