package org.railyard.bootstrap;

import java.net.InetSocketAddress;

/** The {@code host:port} values of the bootstraps' settings: the key-value server's, PMI_PORT. */
final class HostPort {
    private HostPort() {
    }

    /** {@code host:port} or {@code [ipv6]:port} as an address; null if {@code v} has no host or no port from 1 to 65535. */
    static InetSocketAddress parse(String v) {
        int colon = v.lastIndexOf(':');
        String host = colon > 0 ? v.substring(0, colon) : "";
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = -1;
        try {
            port = Integer.parseInt(v.substring(colon + 1));
        } catch (NumberFormatException e) {
            // no port: the caller reports the value as it reports any other shape that is not host:port
        }
        if (host.isEmpty() || port < 1 || port > 65535) {
            return null;
        }
        return new InetSocketAddress(host, port);
    }
}
