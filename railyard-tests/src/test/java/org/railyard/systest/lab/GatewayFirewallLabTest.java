package org.railyard.systest.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.apps.obstacle.ObstacleDemo;
import org.railyard.launcher.JobResult;
import org.railyard.launcher.SiteJob;
import org.railyard.launcher.Sites;
import org.railyard.systest.Jobs;
import org.railyard.systest.ranks.MpiJavaPingPong;
import org.railyard.testkit.Await;

/**
 * Two sites in a {@link NetLab} of 6 hosts on one switch (names tagged {@code gf}): hosts 0-2 are site east, 3-5 site west;
 * host 0 runs east's {@code railyard gateway}, host 3 west's, each as a process in its namespace.
 * iptables on every host drops all traffic to and from the other site's hosts, except, on the two
 * gateway hosts, TCP between the two gateways' port: only gateway-to-gateway traffic crosses. The
 * ranks (on hosts 1, 2, 4, 5) reach their own site directly and the other only through the
 * gateways: the mpiJava ping-pong passes every byte check and the obstacle demo agrees with the
 * sequential solver. Skips where no lab can be made.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class GatewayFirewallLabTest {
    private static final Duration JOB = Duration.ofMinutes(4);
    private static final int PORT = 7431;
    private static final int EAST_GW = 0;
    private static final int WEST_GW = 3;
    private static NetLab lab;
    private static final List<Process> gateways = new ArrayList<>();
    private static final List<String> gatewayLog = new CopyOnWriteArrayList<>();
    private static Path sitesFile;

    @BeforeAll
    static void twoFirewalledSitesWithGateways() throws Exception {
        NetLab.assumeFirewall();
        lab = NetLab.create("gf", 6, java.util.Arrays.asList((String) null));
        for (int h = 0; h < 6; h++) {
            boolean east = h < 3;
            for (int far = east ? 3 : 0; far < (east ? 6 : 3); far++) {
                String other = lab.railAddress(far, 0);
                if (h == (east ? EAST_GW : WEST_GW) && far == (east ? WEST_GW : EAST_GW)) {
                    for (String port : List.of("--dport", "--sport")) {
                        lab.exec(h, "iptables", "-A", "INPUT", "-s", other, "-p", "tcp", port, Integer.toString(PORT),
                                "-j", "ACCEPT");
                        lab.exec(h, "iptables", "-A", "OUTPUT", "-d", other, "-p", "tcp", port, Integer.toString(PORT),
                                "-j", "ACCEPT");
                    }
                }
                lab.exec(h, "iptables", "-A", "INPUT", "-s", other, "-j", "DROP");
                lab.exec(h, "iptables", "-A", "OUTPUT", "-d", other, "-j", "DROP");
            }
        }
        String eastAt = lab.railAddress(EAST_GW, 0) + ":" + PORT;
        String westAt = lab.railAddress(WEST_GW, 0) + ":" + PORT;
        gateway(EAST_GW, "east", "west=" + westAt);
        gateway(WEST_GW, "west", "east=" + eastAt);
        sitesFile = Files.createTempFile("gf-sites", ".txt");
        Files.writeString(sitesFile, "site east gateway " + eastAt + "\n" + lab.host(1) + " slots=1\n" + lab.host(2)
                + " slots=1\nsite west gateway " + westAt + "\n" + lab.host(4) + " slots=1\n" + lab.host(5) + " slots=1\n");
    }

    @AfterAll
    static void removeLab() throws IOException {
        gateways.forEach(Process::destroyForcibly);
        gatewayLog.forEach(l -> System.out.println("gateway: " + l));
        if (lab != null) {
            lab.close();
        }
        if (sitesFile != null) {
            Files.deleteIfExists(sitesFile);
        }
    }

    private static void gateway(int host, String site, String peers) throws IOException {
        Process p = new ProcessBuilder("ip", "netns", "exec", lab.host(host), Jobs.java(), "-Xmx256m", "-cp",
                System.getProperty("java.class.path"), "org.railyard.gateway.GatewayCommand", "--site", site, "--bind",
                lab.railAddress(host, 0), "--port", Integer.toString(PORT), "--peers", peers, "--wait", "30")
                .redirectErrorStream(true).start();
        gateways.add(p);
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
                for (String line; (line = r.readLine()) != null; ) {
                    gatewayLog.add(site + ": " + line);
                }
            } catch (IOException ignored) {
                // the process is gone
            }
        });
        Await.awaitUntil(() -> gatewayLog.stream().anyMatch(l -> l.startsWith(site + ": ") && l.contains("listening on")),
                Duration.ofSeconds(60), () -> "the " + site + " gateway to listen: " + gatewayLog);
    }

    private static LabJob start(Class<?> main, String... args) {
        Sites sites = Sites.readFile(sitesFile);
        SiteJob sj = SiteJob.prepare(sites, 4, false, (rank, line) -> { });
        Map<String, String> env = new HashMap<>();
        env.put("RAILYARD_TRANSPORTS", "self,tcp,gateway");
        env.put("RAILYARD_PRINT_CHOICES", "true");
        return LabJob.start(lab, sites.hosts(), sj.rankEnv(), 4, main, env, JOB, args);
    }

    @Test
    void onlyTheGatewaysCrossTheFirewall() {
        // the same ping reaches a host of its own site (so ping runs, and a failure below is the firewall's)
        assertThat(lab.exec(1, "ping", "-c", "1", "-W", "2", lab.railAddress(2, 0))).contains("1 received");
        // an east rank's host cannot reach a west rank's host, nor the west gateway: ping gets no reply
        assertThatThrownBy(() -> lab.exec(1, "ping", "-c", "1", "-W", "1", lab.railAddress(4, 0)))
                .as("east rank host to west rank host").hasMessageContaining("0 received");
        assertThatThrownBy(() -> lab.exec(1, "ping", "-c", "1", "-W", "1", lab.railAddress(WEST_GW, 0)))
                .as("east rank host to west gateway host").hasMessageContaining("0 received");
    }

    @Test
    void pingPongAcrossTheSitesGoesThroughTheGatewaysOnly() throws Exception {
        try (LabJob job = start(MpiJavaPingPong.class, "3")) {
            JobResult r = job.end(JOB.plusSeconds(30));
            assertThat(r.exitCode()).as("ping-pong job\n%s", job.tail(80)).isZero();
            for (int k = 0; k < 4; k++) {
                assertThat(job.out(k, "OK pingpong rank " + k)).as(job.tail(60)).hasSize(1);
            }
            Map<String, java.util.Set<String>> links = job.transportsByPair();
            for (String pair : List.of("0-2", "0-3", "1-2", "1-3")) {
                assertThat(links.get(pair)).as("pair %s crosses the sites\n%s", pair, job.tail(80)).containsExactly("gateway");
            }
            for (String pair : List.of("0-1", "2-3")) {
                assertThat(links.get(pair)).as("pair %s is inside a site\n%s", pair, job.tail(80)).containsExactly("tcp");
            }
        }
    }

    @Test
    void theObstacleDemoAcrossTheSitesAgreesWithTheSequentialSolver() throws Exception {
        try (LabJob job = start(ObstacleDemo.class, "--n", "14", "--quiet")) {
            JobResult r = job.end(JOB.plusSeconds(30));
            assertThat(r.exitCode()).as("obstacle job\n%s", job.tail(80)).isZero();
            assertThat(job.out(0, "OK: parallel solution agrees with sequential")).as(job.tail(60)).hasSize(1);
            assertThat(job.transportsByPair().values()).as("links of the obstacle job\n%s", job.tail(80)).isNotEmpty()
                    .anyMatch(s -> s.contains("gateway"));
        }
    }
}
