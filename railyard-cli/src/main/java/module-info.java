/** The {@code railyard} command: its subcommands come from the launcher, relay and bench modules. */
module org.railyard.cli {
    requires org.railyard;
    requires org.railyard.launcher;
    requires org.railyard.relay;
    requires org.railyard.apps;
    requires org.railyard.bench;
    requires org.railyard.mpijava;
    requires info.picocli;

    opens org.railyard.cli to info.picocli;
}
