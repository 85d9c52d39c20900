package org.railyard.systest.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.railyard.testkit.Await;

/**
 * A network lab on this machine: hosts as Linux network namespaces, joined by rails (one IPv4
 * subnet each, optionally rate-limited with {@code tc tbf}), plus a management link from the root
 * namespace to every host for the launcher's key-value server. Ranks start inside the hosts
 * through the launcher's {@code --hosts} with the lab's {@link #rsh()} script, which runs the
 * command under {@code ip netns exec} and gives each host its own node identity.
 *
 * <pre>
 *   root namespace (launcher, KvServer on 0.0.0.0)
 *     | mgmt 10.M.N.(4h+1)/30 &lt;-&gt; 10.M.N.(4h+2)/30, one per host (never a rail: see {@link #railNets()})
 *   host h0 ---- r0: 10.201.0.0/24 ---- host h1          two hosts: one veth pair per rail
 *           \--- r1: 10.202.0.0/24 ---/
 *   three or more hosts: one bridge per rail in a switch namespace, a veth from every host to it
 * </pre>
 *
 * <p>Every name is unique per lab ({@code rylab-<pid>-<hex>}), so labs of concurrent test runs do
 * not meet; {@link #close()} deletes everything (also registered as a shutdown hook, and labs left
 * by processes that died are swept when a new one is made). Faults: {@link #cut} and
 * {@link #restore} set a rail's interface down and up on one host; {@link #rate} changes a rail's
 * bandwidth; {@link #loss} drops a share of the packets crossing a rail (iptables statistic);
 * {@link #exec} runs any command inside a host.
 */
public final class NetLab implements AutoCloseable {
    private static final String PREFIX = "rylab-";
    private static final Duration COMMAND_BOUND = Duration.ofSeconds(20);

    private final String id;
    private final String dev;
    private final int hosts;
    private final List<String> rates;
    /** First three octets of the management /24, e.g. {@code 10.231.17}. */
    private final String mgmt;
    private final Path dir;
    private final Path rsh;
    private final List<String> namespaces = new ArrayList<>();
    private final Thread hook;
    private boolean closed;

    /** Skips the calling test (a JUnit assumption) when a lab cannot be made here, saying why. */
    public static void assumeAvailable() {
        String why = unavailable();
        Assumptions.assumeTrue(why == null, "skipped: " + why);
    }

    /**
     * As {@link #assumeAvailable}, for a test whose hosts need iptables too (firewalls, {@link #loss}):
     * skips it when iptables is not installed ({@code bin/test} installs it).
     */
    public static void assumeFirewall() {
        assumeAvailable();
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/iptables")),
                "skipped: iptables is not installed (bin/test installs it)");
    }

    /**
     * Why a lab cannot be made here (not root, no {@code ip}, namespaces refused), or null when it
     * can. Tests skip with this message.
     */
    public static String unavailable() {
        if (!"root".equals(System.getProperty("user.name")) && !isRootByUid()) {
            return "the network lab needs root (network namespaces, veth, tc); running as " + System.getProperty("user.name");
        }
        String probe = PREFIX + ProcessHandle.current().pid() + "-probe";
        try {
            run(List.of("ip", "netns", "add", probe));
            run(List.of("ip", "-n", probe, "link", "add", "t0", "type", "veth", "peer", "name", "t1"));
            run(List.of("ip", "netns", "del", probe));
            return null;
        } catch (RuntimeException e) {
            try {
                run(List.of("ip", "netns", "del", probe));
            } catch (RuntimeException ignored) {
                // it was never made
            }
            return "network namespaces do not work here: " + e.getMessage();
        }
    }

    private static boolean isRootByUid() {
        try {
            return Files.readString(Path.of("/proc/self/status")).lines()
                    .anyMatch(l -> l.startsWith("Uid:") && l.split("\\s+")[1].equals("0"));
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Makes a lab of {@code hosts} hosts and one rail per entry of {@code railRates} (a tc rate such
     * as {@code 400mbit}, or null for no limit).
     */
    public static NetLab create(int hosts, List<String> railRates) {
        return new NetLab("ry", hosts, railRates);
    }

    /**
     * A lab whose names carry {@code tag} (two lower-case letters): its namespaces are
     * {@code rylab-<pid>-<tag><hex>-h<n>}, its root-side veths {@code <tag><hex>m<n>}.
     */
    public static NetLab create(String tag, int hosts, List<String> railRates) {
        if (!tag.matches("[a-z]{2}")) {
            throw new IllegalArgumentException("a lab tag is two lower-case letters, not '" + tag + "'");
        }
        return new NetLab(tag, hosts, railRates);
    }

    private NetLab(String tag, int hosts, List<String> railRates) {
        if (hosts < 2) {
            throw new IllegalArgumentException("a lab needs at least 2 hosts, got " + hosts);
        }
        if (railRates.isEmpty() || railRates.size() > 16) {
            throw new IllegalArgumentException("a lab needs 1 to 16 rails, got " + railRates.size());
        }
        sweepOrphans();
        SecureRandom random = new SecureRandom();
        byte[] b = new byte[3];
        random.nextBytes(b);
        String hex = HexFormat.of().formatHex(b);
        this.id = PREFIX + ProcessHandle.current().pid() + "-" + (tag.equals("ry") ? "" : tag) + hex;
        this.dev = tag + hex;
        this.hosts = hosts;
        this.rates = new ArrayList<>(railRates);
        this.mgmt = freeManagementNet(random);
        try {
            this.dir = Files.createTempDirectory(id);
            this.rsh = dir.resolve("lab-rsh");
            Files.writeString(rsh, """
                    #!/bin/sh
                    # rsh for railyard run --hosts: host = network namespace of the lab; with
                    # RYLAB_PIN set, host h runs on CPU h modulo the CPU count (hosts as machines)
                    ns="$1"; shift
                    pin=""
                    if [ -n "${RYLAB_PIN:-}" ]; then
                        h="${ns##*-h}"
                        pin="taskset -c $((h % $(nproc)))"
                    fi
                    exec ip netns exec "$ns" env RAILYARD_NODE="$ns" $pin /bin/sh -c "$*"
                    """, StandardCharsets.US_ASCII);
            Files.setPosixFilePermissions(rsh, PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the lab's rsh script", e);
        }
        hook = Thread.ofPlatform().unstarted(this::teardown);
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            build();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private void build() {
        for (int h = 0; h < hosts; h++) {
            String ns = host(h);
            run(List.of("ip", "netns", "add", ns));
            namespaces.add(ns);
            run(List.of("ip", "-n", ns, "link", "set", "lo", "up"));
            // management: root <-> host, its own /30; a route lets the host reach every root address
            String root = dev + "m" + h;
            run(List.of("ip", "link", "add", root, "type", "veth", "peer", "name", "mgmt", "netns", ns));
            run(List.of("ip", "addr", "add", mgmtAddress(h, 1) + "/30", "dev", root));
            run(List.of("ip", "link", "set", root, "up"));
            run(List.of("ip", "-n", ns, "addr", "add", mgmtAddress(h, 2) + "/30", "dev", "mgmt"));
            run(List.of("ip", "-n", ns, "link", "set", "mgmt", "up"));
            run(List.of("ip", "-n", ns, "route", "add", mgmt + ".0/24", "via", mgmtAddress(h, 1)));
        }
        String sw = null;
        if (hosts > 2) {
            sw = id + "-sw";
            run(List.of("ip", "netns", "add", sw));
            namespaces.add(sw);
        }
        for (int r = 0; r < rates.size(); r++) {
            String name = "r" + r;
            if (sw == null) {
                run(List.of("ip", "-n", host(0), "link", "add", name, "type", "veth", "peer", "name", name, "netns", host(1)));
            } else {
                run(List.of("ip", "-n", sw, "link", "add", "br" + r, "type", "bridge"));
                run(List.of("ip", "-n", sw, "link", "set", "br" + r, "up"));
                for (int h = 0; h < hosts; h++) {
                    String port = "h" + h + "r" + r;
                    run(List.of("ip", "-n", host(h), "link", "add", name, "type", "veth", "peer", "name", port, "netns", sw));
                    run(List.of("ip", "-n", sw, "link", "set", port, "master", "br" + r));
                    run(List.of("ip", "-n", sw, "link", "set", port, "up"));
                    if (rates.get(r) != null) {
                        run(tbf(sw, port, rates.get(r), "add"));
                    }
                }
            }
            for (int h = 0; h < hosts; h++) {
                run(List.of("ip", "-n", host(h), "addr", "add", railAddress(h, r) + "/24", "dev", name));
                run(List.of("ip", "-n", host(h), "link", "set", name, "up"));
                if (rates.get(r) != null) {
                    run(tbf(host(h), name, rates.get(r), "add"));
                }
            }
        }
        awaitLinksUp();
    }

    /**
     * Waits until every link of every host is operationally up (the kernel reports a veth's carrier
     * a little after {@code ip link set up}, and a process that lists its interfaces before that sees
     * the rail as down), at most {@link #COMMAND_BOUND}.
     */
    private void awaitLinksUp() {
        for (int h = 0; h < hosts; h++) {
            int host = h;
            Await.awaitUntil(() -> linksNotUp(host).isEmpty(), COMMAND_BOUND,
                    () -> "links " + linksNotUp(host) + " of " + host(host) + " up");
        }
    }

    /** The links of host {@code h} (other than lo) the kernel does not report as up. */
    private List<String> linksNotUp(int h) {
        return run(List.of("ip", "-n", host(h), "-o", "link", "show")).lines()
                .filter(l -> !l.contains(" lo:") && !l.contains("state UP"))
                .map(l -> l.split(":\\s+")[1].split("@")[0]).toList();
    }

    private static List<String> tbf(String ns, String device, String rate, String verb) {
        // burst: 2 ms at the rate (16 KiB at least), so an idle rail cannot send a stripe at the
        // speed of memory (tbf segments a larger GSO packet itself); latency bounds the queue, as a
        // switch buffer would
        long burst = Math.max(16 * 1024, bitsPerSecond(rate) / 8 / 500);
        return List.of("tc", "-n", ns, "qdisc", verb, "dev", device, "root", "tbf", "rate", rate, "burst",
                Long.toString(burst), "latency", "20ms");
    }

    /** A tc rate ({@code 400mbit}, {@code 20mbit}, {@code 1gbit}, {@code 500kbit}) in bits per second. */
    static long bitsPerSecond(String rate) {
        String r = rate.trim().toLowerCase(Locale.ROOT);
        long mult = r.endsWith("gbit") ? 1_000_000_000L : r.endsWith("mbit") ? 1_000_000L : r.endsWith("kbit") ? 1_000L : 1;
        String digits = r.replaceAll("[a-z]+$", "");
        try {
            return (long) (Double.parseDouble(digits) * mult);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("rate '" + rate + "' is not a tc rate such as 400mbit", e);
        }
    }

    /** The namespace (host name for the launcher) of host {@code h}. */
    public String host(int h) {
        return id + "-h" + h;
    }

    public int hosts() {
        return hosts;
    }

    public int rails() {
        return rates.size();
    }

    /** The unique name of this lab. */
    public String id() {
        return id;
    }

    /** The address of host {@code h} on rail {@code r}. */
    public String railAddress(int h, int r) {
        return "10." + (201 + r) + ".0." + (h + 1);
    }

    /** The networks of the rails, for {@code railyard.rail.nets}: the management links stay out. */
    public String railNets() {
        List<String> nets = new ArrayList<>();
        for (int r = 0; r < rates.size(); r++) {
            nets.add("10." + (201 + r) + ".0.0/24");
        }
        return String.join(",", nets);
    }

    private String mgmtAddress(int h, int side) {
        return mgmt + "." + (4 * h + side);
    }

    /** The root namespace's address the ranks reach the launcher at ({@code railyard.launcher.host}). */
    public String launcherHost() {
        return mgmtAddress(0, 1);
    }

    /** The rsh script for {@code railyard run --rsh}: runs a command inside the host named by its first argument. */
    public Path rsh() {
        return rsh;
    }

    /** A hosts file placing {@code slots} ranks on each host, in host order. */
    public Path hostsFile(int slots) {
        StringBuilder sb = new StringBuilder("# lab " + id + "\n");
        for (int h = 0; h < hosts; h++) {
            sb.append(host(h)).append(" slots=").append(slots).append('\n');
        }
        Path p = dir.resolve("hosts-" + slots);
        try {
            Files.writeString(p, sb);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    /** The command that sets rail {@code r}'s interface on host {@code h} down (a pulled cable); for scripts. */
    public String cutCommand(int r, int h) {
        return "ip -n " + host(h) + " link set r" + r + " down";
    }

    public String restoreCommand(int r, int h) {
        return "ip -n " + host(h) + " link set r" + r + " up";
    }

    /** The shell command that sets rail {@code r}'s bandwidth at every host (for scripts). */
    public String rateCommand(int r, String rate) {
        StringBuilder sb = new StringBuilder();
        for (int h = 0; h < hosts; h++) {
            sb.append(h == 0 ? "" : " && ").append(String.join(" ", tbf(host(h), "r" + r, rate, rates.get(r) == null ? "add" : "change")));
        }
        return sb.toString();
    }

    /** Cuts rail {@code r} at host 0. */
    public void cut(int r) {
        exec(0, "ip", "link", "set", "r" + r, "down");
    }

    /** Brings rail {@code r} back at host 0. */
    public void restore(int r) {
        exec(0, "ip", "link", "set", "r" + r, "up");
    }

    /** Sets rail {@code r}'s bandwidth (a tc rate such as 150mbit) at every host. */
    public void rate(int r, String rate) {
        for (int h = 0; h < hosts; h++) {
            run(tbf(host(h), "r" + r, rate, rates.get(r) == null ? "add" : "change"));
        }
        rates.set(r, rate);
    }

    /**
     * Drops a share {@code probability} of the packets arriving on rail {@code r}, at every host,
     * chosen at random per packet (iptables {@code statistic} match, in a chain of the lab's own in
     * each namespace), so each packet crossing the rail is lost with that probability, whatever its
     * protocol. 0 removes the loss.
     */
    public void loss(int r, double probability) {
        for (int h = 0; h < hosts; h++) {
            run(List.of("sh", "-c", lossCommand(r, h, probability)));
        }
    }

    /** The shell command that sets the loss of rail {@code r} at host {@code h} (see {@link #loss}); for scripts. */
    public String lossCommand(int r, int h, double probability) {
        if (!(probability >= 0 && probability <= 1)) {
            throw new IllegalArgumentException("loss probability " + probability + " is outside [0, 1]");
        }
        String ipt = "ip netns exec " + host(h) + " iptables ";
        String chain = "RYLOSS" + r;
        // the chain is made (and hooked to INPUT) once, then only its rule changes
        String make = "{ " + ipt + "-n -L " + chain + " >/dev/null 2>&1 || { " + ipt + "-N " + chain + " && " + ipt
                + "-A INPUT -i r" + r + " -j " + chain + "; }; }";
        String set = ipt + "-F " + chain + (probability == 0 ? "" : " && " + ipt + "-A " + chain
                + " -m statistic --mode random --probability " + probability + " -j DROP");
        return make + " && " + set;
    }

    /** Runs a command inside host {@code h}; throws naming it and its output if it fails. */
    public String exec(int h, String... command) {
        List<String> argv = new ArrayList<>(List.of("ip", "netns", "exec", host(h)));
        argv.addAll(List.of(command));
        return run(argv);
    }

    /** Runs a command bounded by {@link #COMMAND_BOUND}; its output, or an exception naming it and its output. */
    static String run(List<String> argv) {
        try {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            if (!p.waitFor(COMMAND_BOUND.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", argv) + ": no answer within " + COMMAND_BOUND.toSeconds() + " s");
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", argv) + " exited with " + p.exitValue() + ": " + out);
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException(String.join(" ", argv) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(String.join(" ", argv) + ": interrupted", e);
        }
    }

    /** A /24 for the management links (10.220-249.x.0) that no address of the root namespace is in. */
    private static String freeManagementNet(SecureRandom random) {
        String used = run(List.of("ip", "-4", "-o", "addr", "show"));
        for (int attempt = 0; attempt < 200; attempt++) {
            String net = "10." + (220 + random.nextInt(30)) + "." + random.nextInt(256);
            if (!used.contains(" " + net + ".")) {
                return net;
            }
        }
        throw new IllegalStateException("no free 10.220-249.x.0/24 for the lab's management links");
    }

    /** Deletes namespaces of labs whose process is gone (a test JVM killed before its cleanup ran). */
    private static void sweepOrphans() {
        for (String line : run(List.of("ip", "netns", "list")).lines().toList()) {
            String name = line.split("\\s+")[0];
            if (!name.startsWith(PREFIX)) {
                continue;
            }
            String[] parts = name.substring(PREFIX.length()).split("-");
            try {
                long pid = Long.parseLong(parts[0]);
                if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    continue;
                }
            } catch (NumberFormatException e) {
                continue;
            }
            try {
                run(List.of("ip", "netns", "del", name));
            } catch (RuntimeException ignored) {
                // another sweeper got it first
            }
        }
    }

    private synchronized void teardown() {
        if (closed) {
            return;
        }
        closed = true;
        for (int i = namespaces.size() - 1; i >= 0; i--) {
            try {
                // the veths of a namespace, and their peers in the root namespace, go with it
                run(List.of("ip", "netns", "del", namespaces.get(i)));
            } catch (RuntimeException ignored) {
                // best effort: the next lab's sweep retries
            }
        }
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // a temporary directory left behind
        }
    }

    @Override
    public void close() {
        teardown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs (or ran) teardown itself
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "lab %s: %d hosts, rails %s", id, hosts, rates);
    }
}
