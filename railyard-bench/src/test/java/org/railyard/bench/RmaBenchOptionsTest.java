package org.railyard.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.railyard.Op;
import org.railyard.bench.RmaBenchRank.AccOp;
import org.railyard.bench.RmaBenchRank.Bench;
import org.railyard.bench.RmaBenchRank.Counts;
import org.railyard.bench.RmaBenchRank.Mode;
import org.railyard.bench.RmaBenchRank.Options;
import org.railyard.launcher.JobSpec;
import picocli.CommandLine;

/** The one-sided benchmark's options and counts, which must stay those of bench/peers/c/ry_rma.c. */
class RmaBenchOptionsTest {

    @Test
    void defaultsAreEveryBenchmarkAndModeOverOneByteToFourMebibytes() {
        Options o = Options.parse();
        assertThat(o.benches()).isEqualTo(EnumSet.allOf(Bench.class)).contains(Bench.SHARED_COPY);
        assertThat(o.modes()).isEqualTo(EnumSet.allOf(Mode.class));
        assertThat(o.sizes()).hasSize(23);
        assertThat(o.iterBase()).isEqualTo(10_000);
        assertThat(o.jitWarmup()).isTrue();
        assertThat(o.alloc()).isFalse();
    }

    @Test
    void parsesListsOfBenchmarksAndModes() {
        Options o = Options.parse("put_latency,CAS_latency", "--sync", "fence,pscw", "--sizes", "8,1m", "--iters", "500",
                "--transport", "tcp", "--no-jit-warmup", "--alloc");
        assertThat(o.benches()).containsExactly(Bench.PUT_LATENCY, Bench.CAS_LATENCY);
        assertThat(o.modes()).containsExactly(Mode.FENCE, Mode.PSCW);
        assertThat(o.sizes()).containsExactly(8, 1L << 20);
        assertThat(o.iterBase()).isEqualTo(500);
        assertThat(o.transport()).isEqualTo("tcp");
        assertThat(o.jitWarmup()).isFalse();
        assertThat(o.alloc()).isTrue();
        assertThat(o.heap()).isFalse();
    }

    @Test
    void heapWindowsTakePutAndGetOnly() {
        assertThat(Options.parse("--heap").benches())
                .containsExactly(Bench.PUT_LATENCY, Bench.GET_LATENCY, Bench.PUT_BW, Bench.GET_BW);
        assertThat(Options.parse("put_latency", "--heap").heap()).isTrue();
        assertThatThrownBy(() -> Options.parse("acc_latency", "--heap"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--heap").hasMessageContaining("ACC_LATENCY");
    }

    @Test
    void badArgumentsNameWhatWasWrong() {
        assertThatThrownBy(() -> Options.parse("put_lat")).hasMessageContaining("unknown benchmark 'put_lat'")
                .hasMessageContaining("put_latency");
        assertThatThrownBy(() -> Options.parse("--sync", "flush,barrier")).hasMessageContaining("unknown --sync 'barrier'")
                .hasMessageContaining("pscw");
        assertThatThrownBy(() -> Options.parse("--iters", "0")).hasMessageContaining("--iters");
        assertThatThrownBy(() -> Options.parse("--sync")).hasMessageContaining("--sync needs a value");
        assertThatThrownBy(() -> Options.parse("--window", "4")).hasMessageContaining("unknown option --window");
    }

    @Test
    void countsFollowTheOsuOneSidedRulesOfTheCTwin() {
        // latency: 10000 and 100 up to 8 KiB, 1000 and 10 above
        assertThat(RmaBenchRank.iterations(Bench.PUT_LATENCY, 8192, 10_000)).isEqualTo(new Counts(1, 10_000, 100));
        assertThat(RmaBenchRank.iterations(Bench.GET_LATENCY, 8193, 10_000)).isEqualTo(new Counts(1, 1000, 10));
        // bandwidth: windows of 64 (100 timed, 10 warm-up), of 32 above 8 KiB (30 timed, 3 warm-up)
        assertThat(RmaBenchRank.iterations(Bench.PUT_BW, 1, 10_000)).isEqualTo(new Counts(64, 100, 10));
        assertThat(RmaBenchRank.iterations(Bench.GET_BW, 1L << 22, 10_000)).isEqualTo(new Counts(32, 30, 3));
        // a small base never gives zero
        assertThat(RmaBenchRank.iterations(Bench.PUT_BW, 1L << 22, 10)).isEqualTo(new Counts(32, 1, 1));
        assertThat(RmaBenchRank.iterations(Bench.ACC_LATENCY, 1L << 22, 5)).isEqualTo(new Counts(1, 1, 1));
        assertThat(Bench.ACC_LATENCY.accepts(2, AccOp.DEFAULT)).isFalse();
        assertThat(Bench.ACC_LATENCY.accepts(4, AccOp.DEFAULT)).isTrue();
        assertThat(Bench.ACC_LATENCY.accepts(4, AccOp.parse("max:double"))).isFalse();
        assertThat(Bench.ACC_LATENCY.accepts(8, AccOp.parse("max:double"))).isTrue();
    }

    @Test
    void theCommandRunsTheRankProgramOncePerTransport() {
        RmaCommand cmd = new RmaCommand();
        new CommandLine(cmd).parseArgs("put_latency", "--sync", "flush", "--transports", "shm", "--transports", "tcp",
                "--sizes", "8", "--iters", "100");
        List<JobSpec> jobs = cmd.jobs();
        assertThat(jobs).hasSize(2);
        assertThat(jobs.get(0).np()).isEqualTo(2);
        assertThat(jobs.get(0).main()).isEqualTo(RmaBenchRank.class.getName());
        assertThat(jobs.get(1).args()).containsSubsequence("--iters", "100").endsWith("--transport", "tcp");
    }

    @Test
    void accumulatesSumIntsUnlessOpSaysOtherwiseAsTheCTwin() {
        assertThat(Options.parse().acc()).isEqualTo(AccOp.DEFAULT);
        assertThat(AccOp.DEFAULT.label()).isEqualTo("acc_latency");
        AccOp max = Options.parse("acc_latency", "--op", "MAX:double").acc();
        assertThat(max).isEqualTo(new AccOp("max", Op.MAX, AccOp.Type.DOUBLE));
        assertThat(max.label()).isEqualTo("acc_max_double_latency");
        assertThat(AccOp.parse("bor").label()).isEqualTo("acc_bor_int_latency");
        assertThat(AccOp.parse("sum:int")).isEqualTo(AccOp.DEFAULT);
        // a target of 0 after n >= 1 accumulates of 1
        assertThat(AccOp.parse("sum").expected(7)).isEqualTo(7);
        assertThat(AccOp.parse("prod").expected(7)).isZero();
        assertThat(AccOp.parse("min:double").expected(7)).isZero();
        assertThat(AccOp.parse("max").expected(7)).isEqualTo(1);
        assertThat(AccOp.parse("bor").expected(7)).isEqualTo(1);
        assertThatThrownBy(() -> AccOp.parse("xor")).hasMessageContaining("unknown operation 'xor'");
        assertThatThrownBy(() -> AccOp.parse("max:short")).hasMessageContaining("unknown type")
                .hasMessageContaining(":long, :float or :double");
        assertThatThrownBy(() -> AccOp.parse("max:int:long")).hasMessageContaining("unknown type");
        assertThatThrownBy(() -> AccOp.parse("bor:double")).hasMessageContaining("bor takes no doubles");
        RmaCommand cmd = new RmaCommand();
        new CommandLine(cmd).parseArgs("acc_latency", "--op", "min:double", "--transports", "shm");
        assertThat(cmd.jobs().get(0).args()).containsSubsequence("--op", "min:double");
    }

    @Test
    void longAndFloatAccumulatesAsTheCTwinAndBorOnIntegersOnly() {
        AccOp minFloat = AccOp.parse("MIN:Float");
        assertThat(minFloat).isEqualTo(new AccOp("min", Op.MIN, AccOp.Type.FLOAT));
        assertThat(minFloat.label()).isEqualTo("acc_min_float_latency");
        assertThat(minFloat.bytes()).isEqualTo(4);
        AccOp sumLong = Options.parse("acc_latency", "--op", "sum:long").acc();
        assertThat(sumLong.type()).isEqualTo(AccOp.Type.LONG);
        assertThat(sumLong.label()).isEqualTo("acc_sum_long_latency");
        assertThat(AccOp.parse("bor:long").label()).isEqualTo("acc_bor_long_latency");
        assertThat(Bench.ACC_LATENCY.accepts(4, sumLong)).isFalse();
        assertThat(Bench.ACC_LATENCY.accepts(8, sumLong)).isTrue();
        assertThat(Bench.ACC_LATENCY.accepts(4, minFloat)).isTrue();
        assertThatThrownBy(() -> AccOp.parse("bor:float")).hasMessageContaining("bor takes no floats")
                .hasMessageContaining("MPI_BOR is for integers");
        assertThatThrownBy(() -> Options.parse("--op", "bor:float")).hasMessageContaining("bor takes no floats");
        // the origin's values, of the type's array, all 1
        assertThat((long[]) AccOp.Type.LONG.ones(3)).containsExactly(1, 1, 1);
        assertThat((float[]) AccOp.Type.FLOAT.ones(2)).containsExactly(1f, 1f);
        java.lang.foreign.MemorySegment mem = java.lang.foreign.MemorySegment.ofArray(new float[] {0, 7});
        assertThat(AccOp.Type.FLOAT.at(mem, 1)).isEqualTo(7.0);
        mem = java.lang.foreign.MemorySegment.ofArray(new long[] {0, 1L << 40});
        assertThat(AccOp.Type.LONG.at(mem, 1)).isEqualTo(0x1p40);
    }

    @Test
    void theCommandRefusesABadModeBeforeStartingAnything() {
        RmaCommand cmd = new RmaCommand();
        new CommandLine(cmd).parseArgs("--sync", "later");
        assertThatThrownBy(cmd::jobs).hasMessageContaining("unknown --sync 'later'");
    }
}
