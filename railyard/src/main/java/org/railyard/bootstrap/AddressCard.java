package org.railyard.bootstrap;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * What a process publishes about itself through the bootstrap, under the key {@code card-<rank>}:
 * the node it runs on (processes on one node may share memory), its pid, the addresses where it
 * accepts handshakes, the transports it offers, and every IPv4 interface address it has with its
 * prefix length ({@code nets}), from which two processes find their network paths (a local and a
 * peer address on one subnet) and so their rails, and the site it belongs to (setting
 * {@code railyard.site}: the cluster of a grid; empty when unset, and all unset ranks share one site).
 *
 * <p>Transports may add entries of their own ({@code entries}, e.g. a rank's owner relay), encoded
 * as {@code x.<key>:<value>}. The entry {@link #MACHINE} names the kernel and network namespace the
 * process runs in, which its node name need not tell (a setting may name the nodes of one machine
 * apart, as tests and site labs do): two processes of one machine reach each other over the loopback.
 *
 * <p>Encoded as {@code node:<id>;pid:<n>;hs:<host>/<port>,...;tr:<name>,...;if:<addr>/<prefix>,...;site:<name>;x.<key>:<value>...}:
 * printable, no spaces and no '=', so it passes through PMI-1 unchanged. A card without {@code if}
 * (an older writer) decodes with no interfaces, and its peers fall back to the handshake addresses;
 * one without {@code site} decodes with the empty site.
 *
 * @param nets interface addresses as {@code a.b.c.d/prefix}, e.g. {@code 10.1.0.2/24}
 * @param site the site name, empty if unset; never contains ';' or ':'
 * @param entries transport entries: keys of lower-case letters, digits and dots; values without ';'
 */
public record AddressCard(int rank, String node, long pid, List<InetSocketAddress> handshake, List<String> transports,
                          List<String> nets, String site, Map<String, String> entries) {

    /** A card without transport entries. */
    public AddressCard(int rank, String node, long pid, List<InetSocketAddress> handshake, List<String> transports,
                       List<String> nets, String site) {
        this(rank, node, pid, handshake, transports, nets, site, Map.of());
    }

    /** A card that lists no interface. */
    public AddressCard(int rank, String node, long pid, List<InetSocketAddress> handshake, List<String> transports) {
        this(rank, node, pid, handshake, transports, List.of(), "");
    }

    /** A card of the unnamed site. */
    public AddressCard(int rank, String node, long pid, List<InetSocketAddress> handshake, List<String> transports,
                       List<String> nets) {
        this(rank, node, pid, handshake, transports, nets, "");
    }

    public AddressCard {
        nets = List.copyOf(nets);
        entries = Collections.unmodifiableMap(new TreeMap<>(entries));
        for (Map.Entry<String, String> e : entries.entrySet()) {
            if (!e.getKey().matches("[a-z0-9.]+") || e.getValue().indexOf(';') >= 0) {
                throw new RailyardException(ErrorClass.ARG, "address card entry '" + e.getKey() + "' = '" + e.getValue()
                        + "': keys are lower-case letters, digits and dots, values hold no ';'");
            }
        }
        if (site.indexOf(';') >= 0 || site.indexOf(':') >= 0 || site.indexOf(',') >= 0 || site.indexOf(' ') >= 0) {
            throw new RailyardException(ErrorClass.ARG, "site name '" + site
                    + "' (setting railyard.site) must not contain ';', ':', ',' or spaces");
        }
    }

    /** The entry that names the process's kernel and network namespace. */
    public static final String MACHINE = "machine";

    /** True if both cards name the same kernel and network namespace ({@link #MACHINE}). */
    public boolean sameMachine(AddressCard other) {
        String mine = entries.get(MACHINE);
        return mine != null && mine.equals(other.entries.get(MACHINE));
    }

    public static String key(int rank) {
        return "card-" + rank;
    }

    public String encode() {
        StringBuilder sb = new StringBuilder("node:").append(node).append(";pid:").append(pid).append(";hs:");
        for (int i = 0; i < handshake.size(); i++) {
            InetSocketAddress a = handshake.get(i);
            sb.append(i == 0 ? "" : ",").append(a.getHostString()).append('/').append(a.getPort());
        }
        sb.append(";tr:").append(String.join(",", transports));
        if (!nets.isEmpty()) {
            sb.append(";if:").append(String.join(",", nets));
        }
        if (!site.isEmpty()) {
            sb.append(";site:").append(site);
        }
        entries.forEach((k, v) -> sb.append(";x.").append(k).append(':').append(v));
        return sb.toString();
    }

    public static AddressCard decode(int rank, String s) {
        String node = null;
        long pid = -1;
        List<InetSocketAddress> hs = new ArrayList<>();
        List<String> tr = List.of();
        List<String> nets = List.of();
        String site = "";
        Map<String, String> entries = new TreeMap<>();
        try {
            for (String part : s.split(";")) {
                int c = part.indexOf(':');
                String k = part.substring(0, c);
                String v = part.substring(c + 1);
                switch (k) {
                    case "node" -> node = v;
                    case "pid" -> pid = Long.parseLong(v);
                    case "hs" -> {
                        for (String a : v.split(",")) {
                            if (!a.isEmpty()) {
                                int slash = a.lastIndexOf('/');
                                hs.add(InetSocketAddress.createUnresolved(a.substring(0, slash),
                                        Integer.parseInt(a.substring(slash + 1))));
                            }
                        }
                    }
                    case "tr" -> tr = v.isEmpty() ? List.of() : Arrays.asList(v.split(","));
                    case "if" -> nets = v.isEmpty() ? List.of() : Arrays.asList(v.split(","));
                    case "site" -> site = v;
                    default -> {
                        if (k.startsWith("x.")) {
                            entries.put(k.substring(2), v);
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, "malformed address card of rank " + rank + ": '" + s + "'", e);
        }
        if (node == null) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, "address card of rank " + rank + " names no node: '" + s + "'");
        }
        try {
            return new AddressCard(rank, node, pid, List.copyOf(hs), List.copyOf(tr), nets, site, entries);
        } catch (RailyardException e) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, "address card of rank " + rank + ": " + e.getMessage(), e);
        }
    }
}
