package org.railyard.transport;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.railyard.bootstrap.AddressCard;

/**
 * Finds the rails between two processes from their address cards. A <em>path</em> is a pair of a
 * local address and a peer address on the same IPv4 subnet (the subnet of the narrower prefix of
 * the two); traffic of a path leaves by the local address's interface because the socket is bound
 * to it before it connects. Every path carries {@code railsPerPath} connections, and the rails are
 * numbered path by path.
 *
 * <p>Both ends must number the rails alike without talking: the pairs are listed with the
 * lower-ranked process's addresses in the outer loop and the higher-ranked one's in the inner loop,
 * each in ascending address order (so rail 0 is the path of the lowest subnet), whichever end
 * computes them.
 *
 * <p>Only networks inside {@code railNets} (when it is not empty) become paths, so a management
 * network stays out of the data. Processes of one node, or of one machine whatever their node names
 * ({@link AddressCard#sameMachine}), get the loopback path; processes that share
 * no subnet get one path with no fixed addresses (the connector then tries the peer's handshake
 * addresses in turn, and the kernel picks the route).
 */
public final class RailPaths {
    private RailPaths() {
    }

    /** Name of the path of two processes that share no subnet: the kernel routes. */
    public static final String ANY_ROUTE = "any route";

    /**
     * One network path.
     *
     * @param local  address to bind before connecting, or null to let the kernel choose
     * @param remote peer address to connect to (its handshake port), or null: try every handshake address
     * @param name   for logs, e.g. {@code 10.1.0.1 -> 10.1.0.2}
     */
    public record Path(InetAddress local, InetSocketAddress remote, String name) {
    }

    /** An IPv4 network in CIDR form. */
    public record Net(int address, int prefix) {
        /** Parses {@code a.b.c.d/n}. */
        public static Net parse(String cidr) {
            int slash = cidr.indexOf('/');
            if (slash < 0) {
                throw new IllegalArgumentException("'" + cidr + "' is not a network in CIDR form such as 10.1.0.0/16");
            }
            int prefix;
            try {
                prefix = Integer.parseInt(cidr.substring(slash + 1).trim());
            } catch (NumberFormatException e) {
                prefix = -1;
            }
            if (prefix < 0 || prefix > 32) {
                throw new IllegalArgumentException("'" + cidr + "' has a prefix length outside 0..32");
            }
            return new Net(ipv4(cidr.substring(0, slash).trim()), prefix);
        }

        int mask() {
            return prefix == 0 ? 0 : -1 << (32 - prefix);
        }

        /** True if {@code address} lies in this network. */
        public boolean contains(int addr) {
            return (addr & mask()) == (address & mask());
        }
    }

    /** Parses a comma-separated CIDR list (empty: no restriction). */
    public static List<Net> parseNets(String list) {
        List<Net> out = new ArrayList<>();
        for (String s : list.split(",")) {
            if (!s.isBlank()) {
                out.add(Net.parse(s.trim()));
            }
        }
        return out;
    }

    /**
     * The paths from {@code self} to {@code peer} (never empty), in the rail order both ends agree on.
     *
     * @param railNets networks allowed to carry data (empty: any)
     */
    public static List<Path> between(AddressCard self, AddressCard peer, List<Net> railNets) {
        List<Path> out = new ArrayList<>();
        if (self.node().equals(peer.node()) || self.sameMachine(peer)) {
            InetSocketAddress loop = peer.handshake().stream().filter(a -> a.getHostString().startsWith("127."))
                    .findFirst().orElse(null);
            if (loop != null) {
                out.add(new Path(null, loop, "loopback"));
                return out;
            }
        }
        boolean selfLow = self.rank() < peer.rank();
        AddressCard lo = selfLow ? self : peer;
        AddressCard hi = selfLow ? peer : self;
        int port = port(peer);
        for (Net na : sorted(lo.nets())) {
            for (Net nb : sorted(hi.nets())) {
                Net shared = new Net(na.address(), Math.min(na.prefix(), nb.prefix()));
                if (na.address() == nb.address() || !shared.contains(nb.address()) || !allowed(railNets, na.address())
                        || !allowed(railNets, nb.address())) {
                    continue;
                }
                String mine = text(selfLow ? na.address() : nb.address());
                String theirs = text(selfLow ? nb.address() : na.address());
                if (port < 0) {
                    continue;
                }
                try {
                    out.add(new Path(InetAddress.getByName(mine), InetSocketAddress.createUnresolved(theirs, port),
                            mine + " -> " + theirs));
                } catch (UnknownHostException e) {
                    throw new IllegalArgumentException("address " + mine + " of rank " + self.rank() + "'s card", e);
                }
            }
        }
        if (out.isEmpty()) {
            out.add(new Path(null, null, ANY_ROUTE));
        }
        return out;
    }

    private static List<Net> sorted(List<String> cidrs) {
        List<Net> out = new ArrayList<>();
        for (String c : cidrs) {
            out.add(Net.parse(c));
        }
        out.sort((x, y) -> Integer.compareUnsigned(x.address(), y.address()));
        return out;
    }

    private static boolean allowed(List<Net> nets, int addr) {
        if (nets.isEmpty()) {
            return true;
        }
        for (Net n : nets) {
            if (n.contains(addr)) {
                return true;
            }
        }
        return false;
    }

    /** The handshake port of a card (every published address shares it), or -1. */
    private static int port(AddressCard c) {
        return c.handshake().isEmpty() ? -1 : c.handshake().getFirst().getPort();
    }

    static int ipv4(String dotted) {
        String[] p = dotted.split("\\.");
        if (p.length != 4) {
            throw new IllegalArgumentException("'" + dotted + "' is not an IPv4 address");
        }
        int v = 0;
        for (String x : p) {
            int b;
            try {
                b = Integer.parseInt(x);
            } catch (NumberFormatException e) {
                b = -1;
            }
            if (b < 0 || b > 255) {
                throw new IllegalArgumentException("'" + dotted + "' is not an IPv4 address");
            }
            v = (v << 8) | b;
        }
        return v;
    }

    static String text(int v) {
        return ((v >>> 24) & 255) + "." + ((v >>> 16) & 255) + "." + ((v >>> 8) & 255) + "." + (v & 255);
    }

    /** {@code a.b.c.d/prefix} of an IPv4 interface address. */
    static String cidr(Inet4Address a, int prefix) {
        return a.getHostAddress() + "/" + prefix;
    }
}
