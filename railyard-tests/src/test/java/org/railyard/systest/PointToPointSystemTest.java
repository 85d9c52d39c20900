package org.railyard.systest;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
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
import org.railyard.systest.Transcript.Line;
import org.railyard.systest.ranks.SemanticsRanks;

/**
 * The semantics of the public API across real processes: {@link SemanticsRanks} runs as a job of
 * np 2 and np 4 (every check) and np 3 (the collective checks) over {@code RAILYARD_TRANSPORTS=shm}
 * and {@code =tcp}. One job per transport and size runs all its checks (a job start costs about a
 * second); each check is reported as a test of its own, passed when every rank printed its OK line
 * for it. A separate test per job asserts the launcher's exit code 0.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class PointToPointSystemTest {
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(150);
    private static final List<String> TRANSPORTS = List.of("shm", "tcp");

    private final Map<String, Jobs.Finished> jobs = new HashMap<>();

    static Stream<Arguments> checks() {
        List<Arguments> out = new ArrayList<>();
        for (String t : TRANSPORTS) {
            for (int np : new int[] {2, 4}) {
                for (String c : SemanticsRanks.CHECKS) {
                    out.add(Arguments.of(c, t, np));
                }
            }
            for (String c : SemanticsRanks.COLLECTIVE_CHECKS) {
                out.add(Arguments.of(c, t, 3));
            }
        }
        return out.stream();
    }

    static Stream<Arguments> jobs() {
        List<Arguments> out = new ArrayList<>();
        for (String t : TRANSPORTS) {
            for (int np : new int[] {2, 3, 4}) {
                out.add(Arguments.of(t, np));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} over {1}, np {2}")
    @MethodSource("checks")
    void check(String check, String transport, int np) {
        Jobs.Finished job = job(transport, np);
        Transcript t = job.transcript();
        for (int r = 0; r < np; r++) {
            String ok = "OK " + check + " rank " + r;
            if (!t.texts(r, Transcript.Stream.OUT).contains(ok)) {
                fail("check '" + check + "' over " + transport + " with np " + np + ": rank " + r + " did not print '" + ok
                        + "': " + why(t, check, r) + "\n" + job.report());
            }
        }
    }

    @ParameterizedTest(name = "job over {0}, np {1}, exits 0")
    @MethodSource("jobs")
    void jobExitsZero(String transport, int np) {
        Jobs.Finished job = job(transport, np);
        if (job.result().exitCode() != 0) {
            fail("the job over " + transport + " with np " + np + " failed\n" + job.report());
        }
    }

    /** What the transcript says about a check that a rank did not pass. */
    private static String why(Transcript t, String check, int rank) {
        Optional<Line> failure = t.find(l -> l.stream() == Transcript.Stream.OUT && l.text().startsWith("FAIL "));
        if (failure.isPresent() && failure.get().text().startsWith("FAIL " + check + " ")) {
            return "it failed: " + failure.get().text();
        }
        boolean begun = t.texts(rank, Transcript.Stream.OUT).contains("BEGIN " + check + " rank " + rank);
        if (failure.isPresent()) {
            return (begun ? "it was under way when " : "it was never reached: ") + "an earlier or concurrent check failed first: "
                    + failure.get();
        }
        return begun ? "it began but never finished (hung, or the job was stopped)" : "it never began";
    }

    private synchronized Jobs.Finished job(String transport, int np) {
        return jobs.computeIfAbsent(transport + "/" + np, k -> {
            List<String> checks = np == 3 ? SemanticsRanks.COLLECTIVE_CHECKS : SemanticsRanks.CHECKS;
            return Jobs.run("semantics-" + transport + "-np" + np, Jobs.spec(np, SemanticsRanks.class, Map.of("RAILYARD_TRANSPORTS", transport), JOB_TIMEOUT,
                    checks.toArray(String[]::new)));
        });
    }
}
