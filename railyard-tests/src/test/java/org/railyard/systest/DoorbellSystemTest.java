package org.railyard.systest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.railyard.systest.ranks.DoorbellRanks;

/**
 * The doorbell of shared memory between 3 processes of this machine ({@link DoorbellRanks}):
 * each waiter parks at once ({@code RAILYARD_IDLE_YIELDS=0}), and sleeps on the bell once its
 * parks have grown to their bound (100 us); in each check the party it waits for is late by
 * 300 ms. With the doorbell on (the default) a sleep lasts up to {@link #BELL_SLEEP_MICROS}
 * ({@code RAILYARD_IDLE_MAXSLEEP}), so that once asleep the waiter is still asleep when the late
 * frame comes, however the machine schedules it (with the default 20 ms, a waiter that was
 * between two sleeps at that moment saw the frame without a ring), and the waiting rank's
 * sleeps must have been ended by a ring: by the late sender's frame, by the receiver's
 * draining of the ring (the sender waits for room), by another thread's message to itself over
 * the self link. With {@code RAILYARD_DOORBELL=false} the same checks pass with timed parks and
 * nothing is ever rung.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class DoorbellSystemTest {
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(120);
    private static final int NP = 3;
    /** Longest doorbell sleep with the bell on: a ring, not the clock, ends the waiter's sleep. */
    private static final long BELL_SLEEP_MICROS = 10_000_000;
    /** The rank that waits in each check. */
    private static final Map<String, Integer> WAITER = Map.of("late-send", 0, "room", 1, "threads", 0);

    private final Map<String, Jobs.Finished> jobs = new HashMap<>();

    static List<String> configs() {
        return List.of("bell", "nobell");
    }

    static Stream<Arguments> cases() {
        return configs().stream().flatMap(cfg -> DoorbellRanks.CHECKS.stream().map(c -> Arguments.of(c, cfg)));
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("cases")
    void check(String check, String config) {
        Jobs.Finished job = job(config);
        Transcript t = job.transcript();
        for (int r = 0; r < NP; r++) {
            String prefix = "OK " + check + " rank " + r + " woken ";
            Optional<String> ok = t.texts(r, Transcript.Stream.OUT).stream().filter(l -> l.startsWith(prefix)).findFirst();
            if (ok.isEmpty()) {
                Optional<Transcript.Line> failure = t.find(l -> l.text().startsWith("FAIL "));
                fail("check '" + check + "' (" + config + "): rank " + r + " did not pass it"
                        + failure.map(l -> "; first failure: " + l.text()).orElse("") + "\n" + job.report());
            }
            long woken = Long.parseLong(ok.get().substring(prefix.length()).trim());
            if (config.equals("nobell")) {
                assertEquals(0, woken, "rank " + r + " was rung with the doorbell off: " + ok.get());
            } else if (r == WAITER.get(check)) {
                assertTrue(woken >= 1, "rank " + r + " waited in '" + check + "' and no ring ended a sleep: "
                        + ok.get() + "\n" + job.report());
            }
        }
    }

    @ParameterizedTest(name = "job {0} exits 0")
    @MethodSource("configs")
    void jobExitsZero(String config) {
        job(config).requireSuccessSaying(config, config.equals("bell") ? "long waits sleep on a doorbell the node's peers ring"
                : "waiters park (doorbell off: railyard.doorbell=false)");
    }

    private synchronized Jobs.Finished job(String config) {
        return jobs.computeIfAbsent(config, k -> {
            Map<String, String> env = new HashMap<>();
            env.put("RAILYARD_TRANSPORTS", "shm");
            env.put("RAILYARD_PRINT_CHOICES", "true");
            env.put("RAILYARD_CMA", "false");
            env.put("RAILYARD_IDLE_YIELDS", "0");
            if (config.equals("nobell")) {
                env.put("RAILYARD_DOORBELL", "false");
            } else {
                env.put("RAILYARD_IDLE_MAXSLEEP", Long.toString(BELL_SLEEP_MICROS));
            }
            return Jobs.run("doorbell-" + config, Jobs.spec(NP, DoorbellRanks.class, env, JOB_TIMEOUT));
        });
    }
}
