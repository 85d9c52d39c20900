package org.railyard.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.stats.Stats;

/**
 * The scheduling policies on their own, with stripe times computed from made-up path bandwidths
 * (no clock, no network): what they select, how they split, and where the adaptive ones converge.
 */
class RailPoliciesTest {

    private static Rail[] rails(int n) {
        var g = Stats.open(99);
        Rail[] r = new Rail[n];
        for (int i = 0; i < n; i++) {
            r[i] = new Rail(i, g.rail(1, i));
        }
        return r;
    }

    private static int[] picks(RailPolicy p, Rail[] r, int times, int pattern) {
        int[] out = new int[times];
        for (int i = 0; i < times; i++) {
            out[i] = p.select(r, r.length, 100, pattern, false);
        }
        return out;
    }

    @Test
    void everyFormParsesAndPrintsItsParameters() {
        assertThat(RailPolicies.create("binding", 0, 1).name()).isEqualTo("binding");
        assertThat(RailPolicies.create("rr", 0, 1).name()).isEqualTo("rr");
        assertThat(RailPolicies.create("wrr:8", 0, 1).name()).isEqualTo("wrr(8)");
        assertThat(RailPolicies.create("even", 0, 1).name()).isEqualTo("even");
        assertThat(RailPolicies.create("weighted:3,1", 0, 1).name()).isEqualTo("weighted(3,1)");
        assertThat(RailPolicies.create("adaptive", 0, 1).name()).isEqualTo("adaptive(alpha 0.5)");
        assertThat(RailPolicies.create("adaptive:0.25", 0, 1).name()).isEqualTo("adaptive(alpha 0.25)");
        assertThat(RailPolicies.create("BSS:4,2", 0, 1).name()).isEqualTo("bss(4,2) alpha 0.5");
        assertThat(RailPolicies.create("epc", 0, 1).name()).isEqualTo("epc");
    }

    @ParameterizedTest
    @ValueSource(strings = {"fastest", "wrr", "wrr:0", "bss:2,4", "bss:4", "adaptive:0", "adaptive:1.5", "weighted:",
            "weighted:1,-1", "even:2", "wrr:x"})
    void aWrongSpecNamesTheSettingAndTheAcceptedForms(String spec) {
        assertThatThrownBy(() -> RailPolicies.create(spec, 0, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("railyard.rail.policy")
                .hasMessageContaining("'" + spec + "'")
                .hasMessageContaining("bss:NPATHS,NBATCH");
    }

    @Test
    void roundRobinTakesRailsInTurnAndTheWindowKeepsRunsTogether() {
        Rail[] r = rails(3);
        assertThat(picks(RailPolicies.create("rr", 0, 1), r, 7, Outbound.BLOCKING)).containsExactly(0, 1, 2, 0, 1, 2, 0);
        assertThat(picks(RailPolicies.create("wrr:3", 0, 1), r, 8, Outbound.BLOCKING)).containsExactly(0, 0, 0, 1, 1, 1, 2, 2);
    }

    @Test
    void envelopesAndBulkDataTakeTurnsSeparately() {
        Rail[] r = rails(2);
        RailPolicy p = RailPolicies.create("rr", 0, 1);
        // an RTS, then its data, then the next RTS and its data: the data still alternates
        int[] data = new int[4];
        for (int i = 0; i < 4; i++) {
            p.select(r, 2, 0, Outbound.NONBLOCKING, false);
            data[i] = p.select(r, 2, 1 << 20, Outbound.NONBLOCKING, true);
        }
        assertThat(data).containsExactly(0, 1, 0, 1);
    }

    @Test
    void bindingKeepsAPairOnOneRailAndSpreadsPairs() {
        Rail[] r = rails(2);
        assertThat(picks(RailPolicies.create("binding", 0, 1), r, 4, Outbound.BLOCKING)).containsOnly(1);
        assertThat(picks(RailPolicies.create("binding", 1, 0), r, 4, Outbound.BLOCKING)).containsOnly(1);
        assertThat(picks(RailPolicies.create("binding", 0, 2), r, 4, Outbound.BLOCKING)).containsOnly(0);
    }

    @Test
    void evenStripesAreEqualMultiplesOf8ButTheLast() {
        Rail[] r = rails(3);
        long[] share = new long[3];
        RailPolicies.create("even", 0, 1).plan(r, 3, 1_000_003, share);
        assertThat(Arrays.stream(share).sum()).isEqualTo(1_000_003);
        assertThat(share[0] % 8).isZero();
        assertThat(share[1] % 8).isZero();
        assertThat(Arrays.stream(share).max().getAsLong() - Arrays.stream(share).min().getAsLong()).isLessThanOrEqualTo(16);
    }

    @Test
    void weightedStripesFollowTheGivenWeights() {
        Rail[] r = rails(2);
        RailPolicy p = RailPolicies.create("weighted:3,1", 0, 1);
        for (Rail x : r) {
            x.weight = p.freshWeight(x, r, 0);
        }
        long[] share = new long[2];
        p.plan(r, 2, 4 << 20, share);
        assertThat(share).containsExactly(3 << 20, 1 << 20);
        assertThat(p.select(r, 2, 100, Outbound.BLOCKING, false)).as("small messages on the heaviest rail").isZero();
    }

    @Test
    void aRailWhoseShareWouldBeTinyGetsNone() {
        Rail[] r = rails(2);
        r[1].weight = 0.001;
        long[] share = new long[2];
        Stripes.byWeight(r, 2, 1 << 20, share);
        assertThat(share).containsExactly(1 << 20, 0);
    }

    @Test
    void adaptiveFeedbackIsEquation74() {
        Rail[] r = rails(2);
        RailPolicy p = RailPolicies.create("adaptive:0.5", 0, 1);
        // equal weights, equal stripes; rail 1 took four times as long: BW 4:1
        p.feedback(r, new long[] {512 << 10, 512 << 10}, new long[] {1_000_000, 4_000_000}, 2);
        // W' = 0.5 W + 0.5 * W_total * (W/t) / sum(W/t) = 0.5 + 0.5 * 2 * 0.8 = 1.3, and 0.7
        assertThat(r[0].weight).isCloseTo(1.3, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(r[1].weight).isCloseTo(0.7, org.assertj.core.data.Offset.offset(1e-9));
    }

    /** Runs {@code messages} striped messages over paths of the given bandwidths; stripe time = bytes / bandwidth. */
    private static void simulate(RailPolicy p, Rail[] r, double[] bandwidth, int messages) {
        long[] share = new long[r.length];
        Rail[] used = new Rail[r.length];
        long[] bytes = new long[r.length];
        long[] nanos = new long[r.length];
        for (int m = 0; m < messages; m++) {
            p.plan(r, r.length, 4 << 20, share);
            int n = 0;
            for (int i = 0; i < r.length; i++) {
                if (share[i] > 0) {
                    used[n] = r[i];
                    bytes[n] = share[i];
                    nanos[n] = (long) (share[i] / bandwidth[i] * 1e9);
                    n++;
                }
            }
            p.feedback(used, bytes, nanos, n);
        }
    }

    @Test
    void adaptiveStripingConvergesOnWeightsProportionalToBandwidth() {
        Rail[] r = rails(2);
        RailPolicy p = RailPolicies.create("adaptive", 0, 1);
        simulate(p, r, new double[] {75e6, 18.75e6}, 30);
        assertThat(r[0].weight / r[1].weight).isCloseTo(4.0, org.assertj.core.data.Offset.offset(0.05));
        long[] share = new long[2];
        p.plan(r, 2, 10 << 20, share);
        // both stripes now take the same time: the message finishes as early as it can
        assertThat(share[0] / 75e6).isCloseTo(share[1] / 18.75e6, org.assertj.core.data.Offset.offset(0.002));
    }

    @ParameterizedTest(name = "slow paths {0}")
    @ValueSource(strings = {"0,1", "1,3", "2,3", "0,3", "0,2"})
    void bssFourTwoConvergesOnTheTwoFastPathsWhereverTheSlowOnesAre(String slow) {
        Rail[] r = rails(4);
        double[] bw = {50e6, 50e6, 50e6, 50e6};
        for (String s : slow.split(",")) {
            bw[Integer.parseInt(s)] = 5e6;
        }
        BssPolicy p = (BssPolicy) RailPolicies.create("bss:4,2", 0, 1);
        simulate(p, r, bw, 12);
        int[] ranking = p.ranking(r, 4);
        assertThat(bw[ranking[0]]).as("ranking %s", Arrays.toString(ranking)).isEqualTo(50e6);
        assertThat(bw[ranking[1]]).as("ranking %s", Arrays.toString(ranking)).isEqualTo(50e6);
        long[] share = new long[4];
        p.plan(r, 4, 4 << 20, share);
        for (int i = 0; i < 4; i++) {
            assertThat(share[i] > 0).as("rail %d (%.0f B/s) carries a stripe", i, bw[i]).isEqualTo(bw[i] == 50e6);
        }
    }

    @Test
    void bssReturnsToTheFastPathsAfterOneStripeWasMeasuredSlowByAccident() {
        Rail[] r = rails(4);
        double[] bw = {2.5e6, 2.5e6, 25e6, 25e6};
        BssPolicy p = (BssPolicy) RailPolicies.create("bss:4,2", 0, 1);
        simulate(p, r, bw, 6);
        // a stall of the machine makes one stripe of fast rail 3 look twenty times slower
        bw[3] = 1.25e6;
        simulate(p, r, bw, 1);
        bw[3] = 25e6;
        long slowBytes = 0;
        long[] share = new long[4];
        for (int m = 0; m < 10; m++) {
            p.plan(r, 4, 4 << 20, share);
            slowBytes += share[0] + share[1];
            simulate(p, r, bw, 1);
        }
        // at most a probe of one slow path, not seconds of striping over them
        assertThat(slowBytes).as("bytes planned on the slow paths in 10 messages of 4 MiB").isLessThan(2L << 20);
        int[] ranking = p.ranking(r, 4);
        assertThat(new int[] {ranking[0], ranking[1]}).containsExactlyInAnyOrder(2, 3);
    }

    @Test
    void bssUsesOnlyTheFirstNPathsAndABatchOfNBatch() {
        Rail[] r = rails(6);
        long[] share = new long[6];
        RailPolicies.create("bss:4,3", 0, 1).plan(r, 6, 3 << 20, share);
        assertThat(share).containsExactly(1 << 20, 1 << 20, 1 << 20, 0, 0, 0);
    }

    @Test
    void epcStripesBlockingAndCollectiveDataAndRoundRobinsNonBlocking() {
        Rail[] r = rails(2);
        RailPolicy p = RailPolicies.create("epc", 0, 1);
        assertThat(p.stripes(Outbound.BLOCKING)).isTrue();
        assertThat(p.stripes(Outbound.COLLECTIVE)).isTrue();
        assertThat(p.stripes(Outbound.NONBLOCKING)).isFalse();
        assertThat(picks(p, r, 4, Outbound.NONBLOCKING)).containsExactly(0, 1, 0, 1);
        assertThat(picks(p, r, 3, Outbound.BLOCKING)).containsOnly(0);
        long[] share = new long[2];
        p.plan(r, 2, 1 << 20, share);
        assertThat(share).containsExactly(1 << 19, 1 << 19);
    }
}
