package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.railyard.gateway.GatewayServer;
import org.railyard.launcher.JobResult;
import org.railyard.launcher.JobSpec;
import org.railyard.launcher.Launcher;
import org.railyard.launcher.SiteJob;
import org.railyard.launcher.Sites;
import org.railyard.systest.ranks.GatewayPingPongRanks;
import org.railyard.testkit.Await;

/**
 * Jobs across two sites on this machine, every rank with its own {@code railyard.site}, the ranks
 * of one site reaching the other only through the two sites' gateways: the mpiJava ping-pong and
 * the obstacle demo give the results they give on one site, and the gateways' counters show that
 * the traffic between the sites went through them. Gateways run embedded in the launcher, or as
 * {@code railyard gateway} processes that the test kills: then the ranks get PEER_FAILED naming the
 * site within {@code railyard.partition.timeout}; a site whose first gateway is down uses its second.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class GatewaySystemTest {
    private static final Pattern LISTENING = Pattern.compile("listening on ([0-9.]+):([0-9]+)");
    private final List<Process> gateways = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void stopGateways() {
        gateways.forEach(Process::destroyForcibly);
    }

    /**
     * Sites east and west of {@code slots} local slots each, read from a sites file; their gateways
     * the given {@code HOST:PORT} lists, or, null, gateways the launcher runs.
     */
    private Sites eastAndWest(String eastGateways, String westGateways, int slots) throws IOException {
        Path f = dir.resolve("sites-" + System.nanoTime());
        Files.writeString(f, site("east", eastGateways, slots) + site("west", westGateways, slots));
        return Sites.readFile(f);
    }

    private static String site(String name, String gateways, int slots) {
        return "site " + name + (gateways == null ? "" : " gateway " + gateways) + "\nlocalhost slots=" + slots + "\n";
    }

    private static JobSpec spec(int np, String main, Map<String, String> env, String... args) {
        return new JobSpec(np, List.of(), main, List.of(args), List.of(), env, Jobs.RANK_JVM, Duration.ofSeconds(200), null);
    }

    private static Jobs.Finished run(String name, JobSpec spec, SiteJob sj) {
        Transcript t = new Transcript();
        JobResult r = Launcher.run(spec, sj.rankEnv(), t.out(), t.err());
        t.add(new Transcript.Line(org.railyard.launcher.LineSink.LAUNCHER, Transcript.Stream.ERR,
                "(test) job ended with exit code " + r.exitCode() + ": " + r.summary()));
        t.save(name);
        return new Jobs.Finished(r, t);
    }

    @Test
    void pingPongAcrossTwoSitesGoesThroughTheGateways() throws IOException {
        Sites s = eastAndWest(null, null, 2);
        try (SiteJob sj = SiteJob.prepare(s, 4, true, (rank, line) -> { })) {
            Jobs.Finished job = run("gateway-pingpong", spec(4, GatewayPingPongRanks.class.getName(),
                    Map.of("RAILYARD_PRINT_CHOICES", "true")), sj);
            job.requireSuccessSaying("ping-pong across two sites", "PINGPONG OK rounds=21");
            assertThat(job.transcript().find(l -> l.text().contains("rank 0 -> rank 3 rail 0 (gateway of site 'east'")))
                    .as("rank 0 reached rank 3 through its gateway\n%s", job.report()).isPresent();
            assertThat(job.transcript().find(l -> l.text().contains("rank 0 -> rank 1 rail 0 (shm")))
                    .as("rank 0 reached rank 1 of its own site directly\n%s", job.report()).isPresent();
            GatewayServer east = sj.gateways().get(0);
            long bytes = counter(east.stats(), "pair.east->west.bytes");
            // three rounds of each size, one way: the payloads alone, before any header
            assertThat(bytes).isGreaterThan(3L * (1 + 100 + 4096 + 65536 + 65537 + (1 << 20) + (4 << 20)));
            assertThat(counter(sj.gateways().get(1).stats(), "pair.west->east.messages")).isPositive();
        }
    }

    @Test
    void theObstacleDemoAcrossTwoSitesAgreesWithTheSequentialSolver() throws IOException {
        Sites s = eastAndWest(null, null, 2);
        try (SiteJob sj = SiteJob.prepare(s, 4, true, (rank, line) -> { })) {
            Jobs.Finished job = run("gateway-obstacle", spec(4, "org.railyard.apps.obstacle.ObstacleDemo", Map.of(),
                    "--n", "32"), sj);
            job.requireSuccessSaying("obstacle demo across two sites", "OK: parallel solution agrees with sequential");
            assertThat(counter(sj.gateways().get(0).stats(), "pair.east->west.messages")).isPositive();
        }
    }

    @Test
    void aKilledGatewayFailsThePeersOfItsSiteNamingIt() throws Exception {
        Gateway west = gateway("west", null);
        Gateway east = gateway("east", "west=" + west.address());
        Sites s = eastAndWest(east.address(), west.address(), 2);
        Duration partition = Duration.ofSeconds(15);
        try (SiteJob sj = SiteJob.prepare(s, 4, false, (rank, line) -> { })) {
            Transcript t = new Transcript();
            JobSpec spec = spec(4, GatewayPingPongRanks.class.getName(),
                    Map.of("RAILYARD_PARTITION_TIMEOUT", partition.toSeconds() + "s"), "forever");
            CompletableFuture<JobResult> f = new CompletableFuture<>();
            Thread.ofPlatform().daemon().start(() -> f.complete(Launcher.run(spec, sj.rankEnv(), t.out(), t.err())));
            Await.awaitUntil(() -> t.find(l -> l.text().equals("PINGPONG RUNNING")).isPresent(), Duration.ofSeconds(90),
                    () -> "the ping-pong to start\n" + t.tail(60));
            west.process().destroyForcibly();
            Await.awaitUntil(() -> t.find(l -> l.text().startsWith("PINGPONG FAILED")).isPresent(), partition,
                    () -> "a rank to fail within railyard.partition.timeout\n" + t.tail(60));
            JobResult r = f.get(60, TimeUnit.SECONDS);
            t.save("gateway-killed");
            assertThat(r.exitCode()).isNotZero();
            String failed = t.find(l -> l.text().startsWith("PINGPONG FAILED")).orElseThrow().text();
            assertThat(failed).as(t.tail(60)).contains("PEER_FAILED").contains("site 'west'");
            assertThat(east.process().isAlive()).as("the east gateway outlives the west one").isTrue();
        }
    }

    @Test
    void aSiteWhoseFirstGatewayIsDownUsesItsSecond() throws Exception {
        Gateway dead = gateway("west", null);
        dead.process().destroyForcibly();
        dead.process().waitFor(20, TimeUnit.SECONDS);
        Gateway west = gateway("west", null);
        Gateway east = gateway("east", "west=" + dead.address() + ",west=" + west.address());
        Sites s = eastAndWest(east.address(), dead.address() + "," + west.address(), 1);
        try (SiteJob sj = SiteJob.prepare(s, 2, false, (rank, line) -> { })) {
            Jobs.Finished job = run("gateway-second", spec(2, GatewayPingPongRanks.class.getName(), Map.of()), sj);
            job.requireSuccessSaying("ping-pong with the first west gateway down", "PINGPONG OK rounds=21");
        }
        assertThat(west.log()).anyMatch(l -> l.contains("rank 1 of 2 connected"))
                .anyMatch(l -> l.contains("gateway of site 'east' connected"));
    }

    /**
     * Site west names two gateways; the first is SIGKILLed while both cross-site pairs play
     * ping-pong with every byte checked: the channels reroute through the second (the east
     * gateway opens its stripe there, the west ranks connect there), send again what the dead
     * gateway may have lost, and the job goes on to the end with no message lost or left over.
     */
    @Test
    void aKilledGatewayHandsItsOpenChannelsToTheSitesSecondGateway() throws Exception {
        Gateway first = gateway("west", null);
        Gateway second = gateway("west", null);
        Gateway east = gateway("east", "west=" + first.address() + ",west=" + second.address());
        Sites s = eastAndWest(east.address(), first.address() + "," + second.address(), 2);
        Path stop = dir.resolve("stop");
        try (SiteJob sj = SiteJob.prepare(s, 4, false, (rank, line) -> { })) {
            Transcript t = new Transcript();
            JobSpec spec = spec(4, GatewayPingPongRanks.class.getName(), Map.of("RAILYARD_PARTITION_TIMEOUT", "30s"),
                    "until", stop.toString());
            CompletableFuture<JobResult> f = new CompletableFuture<>();
            Thread.ofPlatform().daemon().start(() -> f.complete(Launcher.run(spec, sj.rankEnv(), t.out(), t.err())));
            Await.awaitUntil(() -> rounds(t) >= 20, Duration.ofSeconds(90), () -> "the ping-pong to start\n" + t.tail(60));
            first.process().destroyForcibly();
            first.process().waitFor(20, TimeUnit.SECONDS);
            long atKill = rounds(t);
            Await.awaitUntil(() -> rounds(t) >= atKill + 60 || f.isDone(), Duration.ofSeconds(120),
                    () -> "60 more rounds of both pairs after the first west gateway died\n"
                            + StackDumps.ofDescendants("gateway-failover-stalled") + "\n" + t.tail(60));
            Files.writeString(stop, "stop");
            JobResult r;
            try {
                r = f.get(120, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                String stacks = StackDumps.ofDescendants("gateway-failover");
                t.save("gateway-failover");
                throw new AssertionError("the job did not end within 120 s of the stop file\n" + stacks + "\n"
                        + t.tail(80), e);
            }
            t.save("gateway-failover");
            assertThat(r.exitCode()).as("the job outlives its first west gateway\n%s", t.tail(80)).isZero();
            assertThat(t.find(l -> l.text().startsWith("PINGPONG OK"))).as(t.tail(60)).isPresent();
            assertThat(second.log()).as("the west ranks and the east gateway moved to the second west gateway")
                    .anyMatch(l -> l.contains("rank 2 of 4 connected")).anyMatch(l -> l.contains("rank 3 of 4 connected"))
                    .anyMatch(l -> l.contains("gateway of site 'east' connected"));
            assertThat(east.process().isAlive()).isTrue();
        }
    }

    /** The rounds of the slower pair: the least over the pairs' leaders (ranks 0 and 1) of their last {@code PINGPONG AT n}. */
    private static long rounds(Transcript t) {
        long[] n = new long[2];
        for (Transcript.Line l : t.lines()) {
            if (l.rank() >= 0 && l.rank() < n.length && l.text().startsWith("PINGPONG AT ")) {
                n[l.rank()] = Math.max(n[l.rank()], Long.parseLong(l.text().substring("PINGPONG AT ".length()).trim()));
            }
        }
        return Math.min(n[0], n[1]);
    }

    private static long counter(String stats, String name) {
        for (String line : stats.split("\n")) {
            if (line.startsWith(name + " ")) {
                return Long.parseLong(line.substring(name.length() + 1).trim());
            }
        }
        return 0;
    }

    /** A gateway this test started: its process, its output lines, the address it listens on. */
    private record Gateway(Process process, List<String> log, String address) { }

    /**
     * Starts {@code railyard gateway} for {@code site} (its peers {@code peers}, or none) as a
     * process of its own and waits until it listens.
     */
    private Gateway gateway(String site, String peers) throws IOException {
        List<String> log = new CopyOnWriteArrayList<>();
        List<String> cmd = new ArrayList<>(List.of(Jobs.java(), "-cp",
                System.getProperty("java.class.path"), "org.railyard.gateway.GatewayCommand", "--site", site,
                "--port", "0", "--bind", "127.0.0.1", "--wait", "10"));
        if (peers != null) {
            cmd.addAll(List.of("--peers", peers));
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        gateways.add(p);
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
                for (String line; (line = r.readLine()) != null; ) {
                    log.add(line);
                }
            } catch (IOException ignored) {
                // the process is gone
            }
        });
        return new Gateway(p, log, address(log));
    }

    private static String address(List<String> log) {
        Await.awaitUntil(() -> log.stream().anyMatch(l -> LISTENING.matcher(l).find()), Duration.ofSeconds(60),
                () -> "a gateway to listen: " + log);
        for (String l : log) {
            Matcher m = LISTENING.matcher(l);
            if (m.find()) {
                return m.group(1) + ":" + m.group(2);
            }
        }
        throw new AssertionError("unreachable");
    }
}
