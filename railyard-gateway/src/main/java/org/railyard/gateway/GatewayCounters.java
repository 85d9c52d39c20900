package org.railyard.gateway;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A gateway's counters, printed on request ({@code railyard gateway --stats}) as {@code name value}
 * lines: bytes and messages (DATA frames) forwarded per site pair, connections refused for bad
 * input, frames dropped for an unreachable destination, and the WAN congestion signals of the
 * kernel's TCP counters since the gateway started (retransmitted segments, retransmission
 * timeouts, fast retransmits; from {@code /proc/net/snmp} and {@code /proc/net/netstat}, so they
 * count every TCP connection of the gateway's network namespace, not only its own).
 */
final class GatewayCounters {
    private static final String[] SIGNALS = {"Tcp:RetransSegs", "TcpExt:TCPTimeouts", "TcpExt:TCPFastRetrans",
        "TcpExt:TCPLossProbes", "TcpExt:TCPSackRecovery"};

    private final ConcurrentHashMap<Integer, String> siteNames = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, LongAdder[]> pairs = new ConcurrentHashMap<>();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final LongAdder wanOpened = new LongAdder();
    private final LongAdder warmed = new LongAdder();
    private final Map<String, Long> baseline;

    GatewayCounters() {
        baseline = tcpCounters();
    }

    void site(int id, String name) {
        siteNames.putIfAbsent(id, name);
    }

    String siteName(int id) {
        String n = siteNames.get(id);
        return n != null ? n : String.format("%08x", id);
    }

    void forwarded(int fromSite, int toSite, int bytes) {
        LongAdder[] a = pairs.computeIfAbsent(((long) fromSite << 32) | (toSite & 0xffffffffL),
                k -> new LongAdder[] {new LongAdder(), new LongAdder()});
        a[0].add(bytes);
        a[1].increment();
    }

    void rejected() {
        rejected.increment();
    }

    void dropped() {
        dropped.increment();
    }

    void wanOpened() {
        wanOpened.increment();
    }

    void warmed() {
        warmed.increment();
    }

    String render(Collection<GatewayJob> jobs) {
        StringBuilder sb = new StringBuilder();
        TreeMap<String, LongAdder[]> sorted = new TreeMap<>();
        pairs.forEach((k, v) -> sorted.put(siteName((int) (k >>> 32)) + "->" + siteName((int) (long) k), v));
        sorted.forEach((pair, v) -> sb.append("pair.").append(pair).append(".bytes ").append(v[0].sum()).append('\n')
                .append("pair.").append(pair).append(".messages ").append(v[1].sum()).append('\n'));
        int ranks = 0;
        int stripes = 0;
        int active = 0;
        for (GatewayJob j : jobs) {
            ranks += j.ranksHere();
            stripes += j.stripesOpen();
            active += j.ranksHere() > 0 ? 1 : 0;
        }
        sb.append("jobs.active ").append(active).append('\n');
        sb.append("ranks.connected ").append(ranks).append('\n');
        sb.append("wan.stripes.open ").append(stripes).append('\n');
        sb.append("wan.stripes.opened ").append(wanOpened.sum()).append('\n');
        sb.append("wan.warm.sent ").append(warmed.sum()).append('\n');
        sb.append("connections.rejected ").append(rejected.sum()).append('\n');
        sb.append("frames.dropped ").append(dropped.sum()).append('\n');
        Map<String, Long> now = tcpCounters();
        for (String s : SIGNALS) {
            Long a = now.get(s);
            Long b = baseline.get(s);
            if (a != null && b != null) {
                sb.append("tcp.").append(s.substring(s.indexOf(':') + 1)).append(' ').append(a - b).append('\n');
            }
        }
        return sb.toString();
    }

    /** The kernel's TCP counters by "Section:Name", from the two-line tables of snmp and netstat. */
    static Map<String, Long> tcpCounters() {
        Map<String, Long> m = new TreeMap<>();
        for (String f : new String[] {"/proc/net/snmp", "/proc/net/netstat"}) {
            try {
                java.util.List<String> lines = Files.readAllLines(Path.of(f));
                for (int i = 0; i + 1 < lines.size(); i += 2) {
                    String[] names = lines.get(i).split("\\s+");
                    String[] values = lines.get(i + 1).split("\\s+");
                    if (names.length != values.length || !names[0].equals(values[0])) {
                        continue;
                    }
                    for (int j = 1; j < names.length; j++) {
                        try {
                            m.put(names[0] + names[j], Long.parseLong(values[j]));
                        } catch (NumberFormatException ignored) {
                            // a field that is not a counter
                        }
                    }
                }
            } catch (IOException | RuntimeException ignored) {
                // not Linux, or no procfs: no signals to show
            }
        }
        return m;
    }
}
