package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.railyard.systest.ranks.RmaRanks;

/**
 * One-sided communication between real processes launched by {@code railyard run}
 * ({@link RmaRanks}): every synchronisation mode on 1 to 6 ranks over shm, tcp and two tcp rails;
 * a fetch-and-op counter of 8 ranks ending exact; a passive target that computes without calling
 * the library while the others lock, put and unlock within a bound; a target that dies during a
 * lock failing the waits on it with PEER_FAILED while the others go on.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RmaSystemTest {
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(240);

    private static Map<String, String> env(String transports, int rails) {
        Map<String, String> env = new HashMap<>();
        env.put("RAILYARD_TRANSPORTS", transports);
        if (rails > 1) {
            env.put("RAILYARD_RAILS", Integer.toString(rails));
        }
        return env;
    }

    private static Jobs.Finished run(String name, int np, Map<String, String> env, String... args) {
        Jobs.Finished job = Jobs.run(name, Jobs.spec(np, RmaRanks.class, env, JOB_TIMEOUT, args));
        assertThat(job.result().exitCode()).as("exit code\n%s", job.report()).isZero();
        return job;
    }

    @ParameterizedTest(name = "{0} ranks over {1}, {2} rail(s)")
    @CsvSource({"1,shm,1", "2,shm,1", "3,shm,1", "6,shm,1", "2,tcp,1", "4,tcp,1", "6,tcp,1", "2,tcp,2", "3,tcp,2"})
    void everySynchronisationMode(int np, String transports, int rails) {
        if (np == 6 && transports.equals("tcp")) {
            FullMatrix.heavyRow("6 ranks over tcp (6 ranks run over shm, tcp at 2 and 4)");
        }
        Jobs.Finished job = run("rma-modes-" + np + "-" + transports + "-" + rails, np, env(transports, rails), "modes");
        for (int r = 0; r < np; r++) {
            assertThat(job.transcript().texts(r, Transcript.Stream.OUT)).as("rank %d\n%s", r, job.report())
                    .contains("OK rma modes rank " + r);
        }
    }

    @ParameterizedTest(name = "8 ranks x {1} over {0}")
    @CsvSource({"shm,20000", "tcp,500"})
    void fetchAndOpCounterEndsExact(String transports, int count) {
        Jobs.Finished job = run("rma-counter-" + transports, 8, env(transports, 1), "counter", Integer.toString(count));
        assertThat(job.transcript().texts(0, Transcript.Stream.OUT)).as(job.report())
                .contains("OK counter rank 0 value " + 8L * count);
    }

    @ParameterizedTest(name = "over {0}")
    @CsvSource({"shm", "tcp"})
    void aComputingTargetServesLockPutUnlockWithinABound(String transports) {
        // generous for a loaded machine: the target's agent parks at most a few milliseconds between duty cycles
        Jobs.Finished job = run("rma-passive-" + transports, 4, env(transports, 1), "passive", "5000");
        for (int r = 0; r < 4; r++) {
            String ok = "OK passive rank " + r + " ";
            assertThat(job.transcript().texts(r, Transcript.Stream.OUT)).as("rank %d\n%s", r, job.report())
                    .anyMatch(l -> l.startsWith(ok));
        }
    }

    @Test
    void aTargetThatDiesDuringALockFailsItsWaitersAndTheOthersGoOn() {
        Jobs.Finished job = Jobs.run("rma-die", Jobs.spec(3, RmaRanks.class, env("tcp", 1), JOB_TIMEOUT, "die"));
        Transcript t = job.transcript();
        assertThat(t.texts(2, Transcript.Stream.OUT)).as(job.report()).contains("HALT rank 2");
        List<String> out0 = t.texts(0, Transcript.Stream.OUT);
        List<String> out1 = t.texts(1, Transcript.Stream.OUT);
        assertThat(out0).as(job.report()).anyMatch(l -> l.startsWith("RESULT unlock FAILED PEER_FAILED ") && l.contains("rank 2"));
        assertThat(out1).as(job.report()).anyMatch(l -> l.startsWith("RESULT lock FAILED PEER_FAILED ") && l.contains("rank 2"));
        assertThat(out0).as(job.report()).contains("OK die rank 0");
        assertThat(out1).as(job.report()).contains("OK die rank 1");
    }
}
