package org.railyard.systest.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.systest.Jobs;

/**
 * The WAN emulator of the lab (bench/lab/wanem.c, built and started by bench/lab/wanlab.sh):
 * a ping's round trip is twice the one-way delay (within 10%) at 10 and 25 ms, and random loss
 * drops the share of frames it is set to, counted by wanem in both directions. Skips where the lab
 * cannot be made (not root, no gcc, ethtool or ping). Its own lab names (STLAB_ID), so it does not
 * meet a benchmark's lab.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class WanLabTest {
    private static final Path SCRIPT = Path.of("..", "bench", "lab", "wanlab.sh").toAbsolutePath().normalize();
    private static final String ID = "t" + ProcessHandle.current().pid() % 1000;
    private static final Pattern RTT = Pattern.compile("= ([0-9.]+)/([0-9.]+)/([0-9.]+)/");
    private static final Pattern RECEIVED = Pattern.compile("(\\d+) packets transmitted, (\\d+) received");
    private static final Pattern LOST = Pattern.compile("lost (\\d+) at random");

    private final Path dir = Path.of(System.getProperty("java.io.tmpdir"), "stlab-" + ID);

    private record Ran(int code, String out) { }

    private Ran run(List<String> cmd) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(Map.of("STLAB_ID", ID, "STLAB_DIR", dir.toString()));
        Process p = pb.start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(2, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("still running after 2 minutes: " + cmd);
        }
        return new Ran(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    private String lab(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(SCRIPT.toString()));
        cmd.addAll(List.of(args));
        Ran r = run(cmd);
        assertThat(r.code()).as("wanlab.sh %s said:%n%s", String.join(" ", args), r.out()).isZero();
        return r.out();
    }

    private String ping(int count, String interval) throws Exception {
        Ran r = run(List.of("ip", "netns", "exec", "sts0" + ID, "ping", "-q", "-c", Integer.toString(count), "-i", interval,
                "-W", "2", "10.77.0.2"));
        return r.out();
    }

    @AfterEach
    void down() throws Exception {
        if (Files.exists(SCRIPT)) {
            run(List.of(SCRIPT.toString(), "down"));
        }
    }

    @Test
    void roundTripIsTwiceTheDelayAndLossDropsItsShare() throws Exception {
        String why = NetLab.unavailable();
        Assumptions.assumeTrue(why == null, why);
        for (String tool : List.of("gcc", "ethtool", "ping")) {
            Assumptions.assumeTrue(Jobs.onPath(tool).isPresent() || Files.isExecutable(Path.of("/usr/sbin", tool)),
                    tool + " is not installed");
        }
        for (double delay : new double[] {10, 25}) {
            lab("up", "-d", Double.toString(delay), "-r", "200");
            String out = ping(40, "0.05");
            Matcher m = RTT.matcher(out);
            assertThat(m.find()).as("ping's summary in:%n%s", out).isTrue();
            double avg = Double.parseDouble(m.group(2));
            assertThat(avg).as("average round trip with a one-way delay of %s ms:%n%s", delay, out)
                    .isBetween(2 * delay * 0.9, 2 * delay * 1.1);
        }
        // 20% lost each way: a round trip survives with probability 0.64; 400 pings keep that
        // within 0.53 to 0.75 far beyond 4 standard deviations (0.024 each)
        lab("up", "-d", "2", "-l", "20");
        String out = ping(400, "0.01");
        Matcher m = RECEIVED.matcher(out);
        assertThat(m.find()).as("ping's summary in:%n%s", out).isTrue();
        double survived = Double.parseDouble(m.group(2)) / Double.parseDouble(m.group(1));
        assertThat(survived).as("share of round trips that survived 20%% loss each way:%n%s", out).isBetween(0.53, 0.75);
        String counters = lab("counters");
        Matcher lost = LOST.matcher(counters);
        for (int direction = 0; direction < 2; direction++) {
            assertThat(lost.find()).as("wanem's counters:%n%s", counters).isTrue();
            assertThat(Long.parseLong(lost.group(1))).as("frames lost at random, direction %d:%n%s", direction, counters)
                    .isGreaterThan(20);
        }
    }
}
