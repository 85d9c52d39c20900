/**
 * Railyard's core: the API (package {@code org.railyard}, its errors and value types) and the floors
 * below it. Only the API is exported to everyone; the floors that Railyard's own programs are
 * built from (the launcher, the relay and gateway daemons, the benchmarks, the command line) are exported to
 * those modules by name, so that no application can come to depend on an inner floor. The floors
 * and what each may use are in docs/ARCHITECTURE.md; FloorsTest checks them on the sources.
 */
module org.railyard {
    requires jdk.net;

    exports org.railyard;
    exports org.railyard.error;
    exports org.railyard.types;

    exports org.railyard.bootstrap to org.railyard.launcher, org.railyard.relay, org.railyard.gateway;
    exports org.railyard.util to org.railyard.launcher, org.railyard.relay, org.railyard.gateway, org.railyard.bench, org.railyard.cli;
    exports org.railyard.wire to org.railyard.relay, org.railyard.gateway;
    exports org.railyard.transport.relay to org.railyard.relay;
    exports org.railyard.transport.gateway to org.railyard.gateway;
    exports org.railyard.stats to org.railyard.bench;
    exports org.railyard.channel to org.railyard.bench;

    uses org.railyard.transport.Transport;
    provides org.railyard.transport.Transport with
            org.railyard.transport.self.SelfTransport,
            org.railyard.transport.shm.ShmTransport,
            org.railyard.transport.tcp.TcpTransport,
            org.railyard.transport.udp.UdpTransport,
            org.railyard.transport.gateway.GatewayTransport,
            org.railyard.transport.relay.RelayTransport;
}
