package org.railyard.bootstrap;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * What a process publishes about itself through the bootstrap, under the key {@code card-<rank>}:
 * the node it runs on (processes on one node may share memory), its pid, the addresses where it
 * accepts handshakes, and the transports it offers.
 *
 * <p>Encoded as {@code node:<id>;pid:<n>;hs:<host>/<port>,<host>/<port>;tr:<name>,<name>}:
 * printable, no spaces and no '=', so it passes through PMI-1 unchanged.
 */
public record AddressCard(int rank, String node, long pid, List<InetSocketAddress> handshake, List<String> transports) {

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
        return sb.toString();
    }

    public static AddressCard decode(int rank, String s) {
        String node = null;
        long pid = -1;
        List<InetSocketAddress> hs = new ArrayList<>();
        List<String> tr = List.of();
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
                    default -> { }
                }
            }
        } catch (RuntimeException e) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, "malformed address card of rank " + rank + ": '" + s + "'", e);
        }
        if (node == null) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, "address card of rank " + rank + " names no node: '" + s + "'");
        }
        return new AddressCard(rank, node, pid, List.copyOf(hs), List.copyOf(tr));
    }
}
