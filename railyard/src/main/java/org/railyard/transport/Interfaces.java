package org.railyard.transport;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** This machine's IPv4 interfaces as the address card publishes them, and as the handshake listener is reached. */
final class Interfaces {
    private static final System.Logger LOG = System.getLogger("org.railyard.transport");

    private Interfaces() {
    }

    /**
     * Every IPv4 address of this machine's interfaces that are up (loopback excepted), with its
     * prefix length, as {@code a.b.c.d/prefix}: what the address card publishes for path finding.
     * "Up" is the administrator's flag, not the carrier: a cable out at start-up (or a link whose
     * carrier the kernel reports a moment late) is still a path, whose rail the channel connects
     * when it comes.
     */
    static List<String> nets() {
        return ipv4Interfaces().stream().map(a -> RailPaths.cidr((Inet4Address) a.getAddress(), a.getNetworkPrefixLength()))
                .toList();
    }

    /** The IPv4 addresses of the interfaces that are up, loopback excepted, with their prefixes. */
    private static List<InterfaceAddress> ipv4Interfaces() {
        List<InterfaceAddress> out = new ArrayList<>();
        try {
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!administrativelyUp(ni) || ni.isLoopback()) {
                    continue;
                }
                for (InterfaceAddress a : ni.getInterfaceAddresses()) {
                    if (a.getAddress() instanceof Inet4Address) {
                        out.add(a);
                    }
                }
            }
        } catch (SocketException e) {
            LOG.log(System.Logger.Level.DEBUG, "cannot list interfaces: " + e);
        }
        return out;
    }

    /**
     * True if the interface is switched on. {@link NetworkInterface#isUp()} also demands a carrier
     * (IFF_RUNNING); on Linux the flags in {@code /sys/class/net} give IFF_UP alone.
     */
    static boolean administrativelyUp(NetworkInterface ni) throws SocketException {
        Path flags = Path.of("/sys/class/net", ni.getName(), "flags");
        try {
            String hex = Files.readString(flags).trim();
            return (Long.decode(hex) & 1) != 0; // IFF_UP
        } catch (IOException | RuntimeException e) {
            return ni.isUp();
        }
    }

    static List<InetAddress> addresses() {
        return ipv4Interfaces().stream().map(InterfaceAddress::getAddress).toList();
    }

}
