package org.railyard.systest.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.apps.obstacle.ObstacleDemo;
import org.railyard.launcher.JobResult;
import org.railyard.systest.RelayProcess;
import org.railyard.systest.ranks.MpiJavaPingPong;
import org.railyard.systest.ranks.RelayMixRanks;

/**
 * Firewalled hosts in a {@link NetLab} of 5 hosts: iptables on hosts 0 and 1 drops every inbound
 * TCP connection attempt (SYN) on every interface but loopback; a {@code railyard relay} runs on
 * host 4. Rank 0 listens for nothing ({@code railyard.listen=false}): its pairs go through the
 * relay from the start. Rank 1 listens, but nobody can connect to it: a peer's direct connect times
 * out and falls back to the relay, and rank 1 follows (a link rank 1 opens itself goes direct).
 * Ranks 2 and 3, on open hosts, link directly.
 * The mpiJava ping-pong passes every byte check, and the obstacle demo agrees with the sequential
 * answer, with each pair on the path the firewall leaves it. Skips where no lab can be made.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RelayFirewallLabTest {
    private static final Duration JOB = Duration.ofMinutes(4);
    private static NetLab lab;
    private static RelayProcess relay;

    @BeforeAll
    static void labWithFirewallAndRelay() throws Exception {
        NetLab.assumeFirewall();
        lab = NetLab.create(5, java.util.Arrays.asList((String) null));
        for (int h : new int[] {0, 1}) {
            lab.exec(h, "iptables", "-A", "INPUT", "-p", "tcp", "--syn", "!", "-i", "lo", "-j", "DROP");
        }
        relay = RelayProcess.startWith(List.of("ip", "netns", "exec", lab.host(4)), "0.0.0.0", 7420);
    }

    @AfterAll
    static void removeLab() {
        if (relay != null) {
            relay.close();
        }
        if (lab != null) {
            lab.close();
        }
    }

    private static Map<String, String> settings() {
        Map<String, String> env = new HashMap<>();
        env.put("RAILYARD_TRANSPORTS", "self,tcp,relay");
        env.put("RAILYARD_RELAYS", lab.railAddress(4, 0) + ":" + relay.port());
        env.put("RELAY_SILENT", "0");
        env.put("RAILYARD_CONNECT_TIMEOUT", "10s"); // a direct attempt to a firewalled rank gives up after half
        env.put("RAILYARD_PRINT_CHOICES", "true");
        return env;
    }

    @Test
    void pingPongGoesThroughTheRelayForFirewalledRanksAndDirectForTheOthers() throws Exception {
        try (LabJob job = LabJob.start(lab, 4, RelayMixRanks.class, settings(), JOB, MpiJavaPingPong.class.getName(), "5")) {
            JobResult r = job.end(JOB.plusSeconds(30));
            assertThat(r.exitCode()).as("ping-pong job\n%s", job.tail(80)).isZero();
            for (int k = 0; k < 4; k++) {
                assertThat(job.out(k, "OK pingpong rank " + k)).as(job.tail(60)).hasSize(1);
            }
            Map<String, java.util.Set<String>> links = job.transportsByPair();
            for (String pair : List.of("0-1", "0-2", "0-3")) {
                assertThat(links.get(pair)).as("pair %s (rank 0 listens for nothing)\n%s", pair, job.tail(80))
                        .containsExactly("relay");
            }
            // rank 1 listens behind its firewall: a link it opens goes direct, one a peer opens falls back to
            // the relay (which depends on who sends first); both ends always agree
            for (String pair : List.of("1-2", "1-3")) {
                assertThat(links.get(pair)).as("pair %s (rank 1 firewalled)\n%s", pair, job.tail(80)).hasSize(1)
                        .isSubsetOf("relay", "tcp");
                System.out.println("lab relay ping-pong: pair " + pair + " went over " + links.get(pair));
            }
            assertThat(links.get("2-3")).as("pair 2-3 (open hosts)\n%s", job.tail(80)).containsExactly("tcp");
            for (String p : List.of("1-2 524288 ", "2-3 524288 ", "0-3 8 ", "2-3 8 ")) {
                System.out.println("lab relay ping-pong: " + job.lines().stream().filter(l -> l.text().startsWith("PINGPONG " + p))
                        .map(LabJob.Line::text).findFirst().orElse("(none for " + p + ")"));
            }
        }
    }

    @Test
    void theObstacleDemoConvergesAcrossFirewalledAndOpenHosts() throws Exception {
        try (LabJob job = LabJob.start(lab, 4, RelayMixRanks.class, settings(), JOB, ObstacleDemo.class.getName(),
                "--n", "14", "--quiet")) {
            JobResult r = job.end(JOB.plusSeconds(30));
            assertThat(r.exitCode()).as("obstacle job\n%s", job.tail(80)).isZero();
            assertThat(job.out(0, "OK: parallel solution agrees with sequential")).as(job.tail(60)).hasSize(1);
            Map<String, java.util.Set<String>> links = job.transportsByPair();
            links.forEach((pair, used) -> {
                if (pair.startsWith("0-")) {
                    assertThat(used).as("pair %s: rank 0 listens for nothing", pair).containsExactly("relay");
                }
            });
            assertThat(links).as("links of the obstacle job\n%s", job.tail(80)).isNotEmpty();
        }
    }
}
