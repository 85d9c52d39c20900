/** {@code railyard relay}: the store-and-forward relay server (docs/relay.md). */
module org.railyard.relay {
    requires org.railyard;
    requires org.railyard.daemon;
    requires transitive info.picocli;
    requires jdk.unsupported; // sun.misc.Signal: counters on SIGUSR2 (StatsSignal)

    exports org.railyard.relay;
    opens org.railyard.relay to info.picocli;
}
