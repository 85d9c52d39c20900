package org.railyard.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The idle strategy's defaults per machine: ranks against the processors they may use. */
class IdlePlanTest {

    @Test
    void ranksBelowTheProcessorsPollLongEqualPollBrieflyAboveDoNotPoll() {
        assertThat(IdlePlan.spins(1, 2)).isEqualTo(Config.IDLE_SPINS_DEFAULT);
        assertThat(IdlePlan.spins(63, 64)).isEqualTo(Config.IDLE_SPINS_DEFAULT);
        assertThat(IdlePlan.spins(2, 2)).isEqualTo(Config.IDLE_SPINS_FULL_DEFAULT);
        assertThat(IdlePlan.spins(64, 64)).isEqualTo(Config.IDLE_SPINS_FULL_DEFAULT);
        assertThat(IdlePlan.spins(3, 2)).isZero();
        assertThat(IdlePlan.spins(32, 2)).isZero();
        assertThat(Config.IDLE_SPINS_FULL_DEFAULT).isPositive().isLessThan(Config.IDLE_SPINS_DEFAULT);
    }

    @Test
    void fromEightRanksAProcessorAWaiterNeitherYieldsNorParksForTimeItSleepsOnTheDoorbell() {
        assertThat(IdlePlan.yields(2, 2)).isEqualTo(Config.IDLE_YIELDS_DEFAULT);
        assertThat(IdlePlan.yields(15, 2)).isEqualTo(Config.IDLE_YIELDS_DEFAULT);
        assertThat(IdlePlan.yields(64, 64)).isEqualTo(Config.IDLE_YIELDS_DEFAULT);
        assertThat(IdlePlan.yields(16, 2)).isZero();
        assertThat(IdlePlan.yields(32, 2)).isZero();
        assertThat(IdlePlan.yields(8, 1)).isZero();
        assertThat(IdlePlan.sleepFirst(4, 2)).isFalse();
        assertThat(IdlePlan.sleepFirst(8, 2)).isFalse();
        assertThat(IdlePlan.sleepFirst(511, 64)).isFalse();
        assertThat(IdlePlan.sleepFirst(512, 64)).isTrue();
        assertThat(IdlePlan.sleepFirst(16, 2)).isTrue();
    }

    @Test
    void aRankIsRelayedWhenOnlyTheRelayCarriesItsFramesOrItListensForNothingMixedWhenDirectTransportsMayToo() {
        assertThat(IdlePlan.reach(java.util.List.of("self", "shm", "tcp"), true)).isEqualTo(IdlePlan.Reach.DIRECT);
        assertThat(IdlePlan.reach(java.util.List.of("self", "shm", "tcp"), false)).isEqualTo(IdlePlan.Reach.DIRECT);
        assertThat(IdlePlan.reach(java.util.List.of("self", "relay"), true)).isEqualTo(IdlePlan.Reach.RELAYED);
        assertThat(IdlePlan.reach(java.util.List.of("relay"), true)).isEqualTo(IdlePlan.Reach.RELAYED);
        assertThat(IdlePlan.reach(java.util.List.of("self", "shm", "tcp", "relay"), false)).isEqualTo(IdlePlan.Reach.RELAYED);
        assertThat(IdlePlan.reach(java.util.List.of("self", "shm", "tcp", "relay"), true)).isEqualTo(IdlePlan.Reach.MIXED);
        assertThat(IdlePlan.reach(java.util.List.of("self", "tcp", "relay"), true)).isEqualTo(IdlePlan.Reach.MIXED);
    }

    @Test
    void aRelayedRankSpinsLittleAndSleepsOnItsRelayConnectionDirectAndMixedRanksKeepThePlanByProcessors() {
        int[][] nodes = {{1, 2}, {2, 2}, {3, 2}, {16, 2}, {64, 64}};
        for (int[] n : nodes) {
            for (IdlePlan.Reach kept : new IdlePlan.Reach[] {IdlePlan.Reach.DIRECT, IdlePlan.Reach.MIXED}) {
                assertThat(IdlePlan.spins(kept, n[0], n[1])).as("%s %s", kept, n).isEqualTo(IdlePlan.spins(n[0], n[1]));
                assertThat(IdlePlan.yields(kept, n[0], n[1])).as("%s %s", kept, n).isEqualTo(IdlePlan.yields(n[0], n[1]));
                assertThat(IdlePlan.sleepFirst(kept, n[0], n[1])).as("%s %s", kept, n)
                        .isEqualTo(IdlePlan.sleepFirst(n[0], n[1]));
                assertThat(IdlePlan.sleepsOnInput(kept)).isFalse();
            }
            assertThat(IdlePlan.spins(IdlePlan.Reach.RELAYED, n[0], n[1])).isEqualTo(Config.IDLE_SPINS_RELAYED_DEFAULT);
            assertThat(IdlePlan.yields(IdlePlan.Reach.RELAYED, n[0], n[1])).isZero();
            assertThat(IdlePlan.sleepFirst(IdlePlan.Reach.RELAYED, n[0], n[1])).isTrue();
        }
        assertThat(IdlePlan.sleepsOnInput(IdlePlan.Reach.RELAYED)).isTrue();
        // a rank that has a processor to itself spins less when relayed than when not: the relay needs one too
        assertThat(Config.IDLE_SPINS_RELAYED_DEFAULT).isLessThan(Config.IDLE_SPINS_FULL_DEFAULT);
    }

    @Test
    void aCgroupV2QuotaBelowTheProcessorCountIsWhatCounts(@TempDir Path root) throws IOException {
        Files.writeString(root.resolve("cpu.max"), "150000 100000\n");
        assertThat(IdlePlan.processors(root, 64)).isEqualTo(2); // 1.5 processors' worth, rounded up
        assertThat(IdlePlan.spins(4, IdlePlan.processors(root, 64))).isZero();
        Files.writeString(root.resolve("cpu.max"), "max 100000\n");
        assertThat(IdlePlan.processors(root, 64)).isEqualTo(64);
    }

    @Test
    void aCgroupV1QuotaCountsAndMinusOneMeansNone(@TempDir Path root) throws IOException {
        Files.createDirectories(root.resolve("cpu"));
        Files.writeString(root.resolve("cpu/cpu.cfs_quota_us"), "400000\n");
        Files.writeString(root.resolve("cpu/cpu.cfs_period_us"), "100000\n");
        assertThat(IdlePlan.processors(root, 16)).isEqualTo(4);
        assertThat(IdlePlan.processors(root, 2)).isEqualTo(2);
        Files.writeString(root.resolve("cpu/cpu.cfs_quota_us"), "-1\n");
        assertThat(IdlePlan.processors(root, 16)).isEqualTo(16);
    }

    @Test
    void noCgroupFilesOrGarbageInThemLeaveTheReportedCount(@TempDir Path root) throws IOException {
        assertThat(IdlePlan.processors(root, 8)).isEqualTo(8);
        Files.writeString(root.resolve("cpu.max"), "lots 0\n");
        assertThat(IdlePlan.processors(root, 8)).isEqualTo(8);
    }

    @Test
    void theRanksOnTheNodeComeFromTheLauncherOrTheResourceManagerElseTheJob() {
        assertThat(IdlePlan.ranksOnNode(Map.of("RAILYARD_LOCAL_SIZE", "2"), 8)).isEqualTo(2);
        assertThat(IdlePlan.ranksOnNode(Map.of("MPI_LOCALNRANKS", "4"), 8)).isEqualTo(4);
        assertThat(IdlePlan.ranksOnNode(Map.of("OMPI_COMM_WORLD_LOCAL_SIZE", "3"), 8)).isEqualTo(3);
        assertThat(IdlePlan.ranksOnNode(Map.of("SLURM_NTASKS_PER_NODE", "2(x3)"), 6)).isEqualTo(6);
        assertThat(IdlePlan.ranksOnNode(Map.of(), 5)).isEqualTo(5);
        assertThat(IdlePlan.ranksOnNode(Map.of("RAILYARD_LOCAL_SIZE", "0"), 5)).isEqualTo(5);
    }

    @Test
    void theCountBeforeAThreadWasBoundSurvivesTheBinding() throws InterruptedException {
        int unbound = IdlePlan.processors();
        Assumptions.assumeTrue(unbound >= 2, "one processor: nothing to narrow");
        AtomicReference<String> seen = new AtomicReference<>();
        // a thread of its own: the binding holds for the thread that makes it, not for the test's
        Thread t = new Thread(() -> {
            String how = CpuBinding.apply(Map.of("RAILYARD_LOCAL_RANK", "0", "RAILYARD_LOCAL_SIZE", "" + unbound));
            seen.set(how + " | now " + IdlePlan.processors() + " | before " + IdlePlan.processorsBeforeBinding());
        });
        t.start();
        t.join(30_000);
        assertThat(t.isAlive()).as("the binding thread ended").isFalse();
        Assumptions.assumeTrue(seen.get().startsWith("bound"), seen.get());
        assertThat(seen.get()).endsWith("| now 1 | before " + unbound);
    }
}
