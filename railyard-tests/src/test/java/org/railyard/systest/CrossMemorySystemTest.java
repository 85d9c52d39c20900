package org.railyard.systest;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.railyard.systest.ranks.CrossMemoryRanks;

/**
 * Large messages in native memory between 3 processes of this machine ({@link CrossMemoryRanks}):
 * over shm with cross-memory reads on (the default: from 256 KiB), over shm with reads from
 * 64 KiB ({@code RAILYARD_CMA_MIN=64k}, and in alltoall's exchange {@code RAILYARD_COLL_EXCHANGE_READS=64k}),
 * over shm with {@code RAILYARD_CMA=false}, and over tcp.
 * Every check must deliver the right bytes in every configuration; the number of messages each
 * rank read from its sender's memory must be exactly what the buffers and the settings allow:
 * with both ends native over shm, one per rendezvous message of at least the minimum received;
 * with a heap buffer at either end, a truncated receive, reads switched off, or tcp, none (reads
 * are a capability of the shm transport: under tcp alone there are none, not even of a message a
 * process sends itself over the self link).
 * The messages of alltoall (blocks of 300 KiB) and of the allgather of a pair (512 KiB) are read
 * only where railyard.coll.exchange.reads is lowered: by default, an exchange's messages below
 * 2 MiB go through the channel.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class CrossMemorySystemTest {
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(150);
    private static final int NP = 3;

    /** Reads per check and rank when reads are allowed (over shm, railyard.cma on, from 256 KiB). */
    private static final Map<String, int[]> READS = Map.of(
            "native-to-native", new int[] {0, 3, 3},
            "native-to-heap", new int[] {0, 0, 0},
            "heap-to-native", new int[] {0, 0, 0},
            "direct-buffers", new int[] {0, 0, 1},
            "unexpected", new int[] {0, 0, 1},
            "truncate", new int[] {0, 1, 0},
            "alltoall", new int[] {0, 0, 0},
            "to-self", new int[] {0, 1, 0},
            "bcast-pair", new int[] {0, 0, 0},
            "allgather-pair", new int[] {0, 0, 0});

    /**
     * Reads added per check and rank with reads from 64 KiB (and the exchange's from 64 KiB): the
     * message of 64 KiB + 1 byte; each rank's 2 alltoall blocks in each of 3 rounds; the other
     * member's allgather block at ranks 0 and 1 in each of 3 rounds.
     */
    private static final Map<String, int[]> MORE_FROM_64K = Map.of(
            "native-to-native", new int[] {0, 1, 1},
            "alltoall", new int[] {6, 6, 6},
            "allgather-pair", new int[] {3, 3, 0});

    private final Map<String, Jobs.Finished> jobs = new HashMap<>();

    static Stream<Arguments> cases() {
        return configs().stream()
                .flatMap(cfg -> CrossMemoryRanks.CHECKS.stream().map(c -> Arguments.of(c, cfg)));
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("cases")
    void check(String check, String config) {
        Jobs.Finished job = job(config);
        Transcript t = job.transcript();
        // the node's memory is the shm transport's to share: without it nothing is read, a message to oneself neither
        boolean reads = config.equals("shm") || config.equals("shm-min64k");
        for (int r = 0; r < NP; r++) {
            String prefix = "OK " + check + " rank " + r + " reads ";
            final int rank = r;
            Optional<String> ok = t.texts(r, Transcript.Stream.OUT).stream().filter(l -> l.startsWith(prefix)).findFirst();
            if (ok.isEmpty()) {
                Optional<Transcript.Line> failure = t.find(l -> l.text().startsWith("FAIL "));
                fail("check '" + check + "' (" + config + "): rank " + rank + " did not pass it"
                        + failure.map(l -> "; first failure: " + l.text()).orElse("") + "\n" + job.report());
            }
            String[] words = ok.get().substring(prefix.length()).split(" ");
            int extra = config.endsWith("min64k") ? MORE_FROM_64K.getOrDefault(check, new int[NP])[r] : 0;
            int expected = reads ? READS.get(check)[r] + extra : 0;
            assertEquals(expected, Integer.parseInt(words[0]), "cross-memory reads by rank " + r + " in '" + check
                    + "' (" + config + "): " + ok.get());
        }
    }

    @ParameterizedTest(name = "job {0} exits 0")
    @MethodSource("configs")
    void jobExitsZero(String config) {
        String cmaLine = switch (config) {
            case "shm-nocma" -> "cross-memory reads of native buffers off (railyard.cma=false)";
            case "shm-min64k" -> "cross-memory reads of native buffers on from 65536 B";
            case "tcp" -> "cross-memory reads of native buffers off (no transport of this process shares the node's memory)";
            // reads pay from 128 KiB when the ranks outnumber the processors (the sizes of the checks fall on either side alike)
            default -> "cross-memory reads of native buffers on from "
                    + (NP > Runtime.getRuntime().availableProcessors() ? 131072 : 262144) + " B";
        };
        job(config).requireSuccessSaying(config, cmaLine);
    }

    static List<String> configs() {
        return List.of("shm", "shm-min64k", "shm-nocma", "tcp");
    }

    private synchronized Jobs.Finished job(String config) {
        return jobs.computeIfAbsent(config, k -> {
            Map<String, String> env = new HashMap<>();
            env.put("RAILYARD_TRANSPORTS", config.startsWith("shm") ? "shm" : "tcp");
            env.put("RAILYARD_PRINT_CHOICES", "true");
            // the alltoall check counts the reads of its messages over the rings; through the
            // communicator's shared segment (blocks from 128 KiB by default) there would be none
            env.put("RAILYARD_COLL_ALLTOALL_SHARED", "1g");
            if (config.equals("shm-nocma")) {
                env.put("RAILYARD_CMA", "false");
            }
            if (config.equals("shm-min64k")) {
                env.put("RAILYARD_CMA_MIN", "64k");
                env.put("RAILYARD_COLL_EXCHANGE_READS", "64k");
            }
            return Jobs.run("cross-memory-" + config, Jobs.spec(NP, CrossMemoryRanks.class, env, JOB_TIMEOUT));
        });
    }
}
