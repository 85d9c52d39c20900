package org.railyard.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.engine.Engine;
import org.railyard.engine.comm.CommState;

/**
 * The engine's node layout follows PMI-2's {@code PMI_process_mapping} when the bootstrap has it:
 * four engines on this one host, each bootstrapped over a real socketpair from
 * {@link Pmi2FakeServer}, which plans them on two "nodes" dealt round-robin (as Slurm's
 * multiple-slurmd mode would on one machine). splitShared, the node count of the node-aware
 * collectives and {@code nodeOf} all follow the plan, not the host name every card carries.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class Pmi2NodeLayoutTest {
    private static final Duration BOUND = Duration.ofSeconds(60);

    @Test
    void splitSharedAndNodeCountFollowTheProcessMappingNotTheHost() throws Throwable {
        int n = 4;
        try (Pmi2FakeServer server = new Pmi2FakeServer(n)) {
            server.mapping = "(vector,(0,2,1))"; // ranks 0 and 2 on node 0, 1 and 3 on node 1
            List<Map<String, String>> envs = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                envs.add(server.fdEnv(r));
            }
            ExecutorService pool = Executors.newFixedThreadPool(n);
            try {
                List<Future<String>> results = new ArrayList<>();
                for (int r = 0; r < n; r++) {
                    Map<String, String> env = envs.get(r);
                    results.add(pool.submit(() -> {
                        Engine e = Engine.start(new Pmi2Bootstrap(env, BOUND));
                        try {
                            CommState world = e.world();
                            int nodes = e.collectives().nodeCount(world);
                            CommState mine = e.communicators().splitShared(world, 0);
                            StringBuilder sb = new StringBuilder(e.rank() + " nodes=" + nodes + " shared=");
                            for (int i = 0; i < mine.size(); i++) {
                                sb.append(mine.worldRank(i)).append(i + 1 < mine.size() ? "," : "");
                            }
                            sb.append(" host=").append(e.nodeName());
                            sb.append(" of1=").append(e.nodeOf(1));
                            e.collectives().barrier(mine);
                            return sb.toString();
                        } finally {
                            e.close();
                        }
                    }));
                }
                List<String> seen = new ArrayList<>();
                for (Future<String> f : results) {
                    seen.add(f.get(100, TimeUnit.SECONDS));
                }
                String host = seen.getFirst().substring(seen.getFirst().indexOf(" host=") + 6,
                        seen.getFirst().indexOf(" of1="));
                assertThat(seen).as("every rank runs on host %s, the plan says two nodes", host).containsExactly(
                        "0 nodes=2 shared=0,2 host=" + host + " of1=pmi-node-1",
                        "1 nodes=2 shared=1,3 host=" + host + " of1=pmi-node-1",
                        "2 nodes=2 shared=0,2 host=" + host + " of1=pmi-node-1",
                        "3 nodes=2 shared=1,3 host=" + host + " of1=pmi-node-1");
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
