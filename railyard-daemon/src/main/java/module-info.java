/** What the daemon commands ({@code railyard relay}, {@code railyard gateway}) share as commands. */
module org.railyard.daemon {
    requires transitive info.picocli;

    exports org.railyard.daemon;
    opens org.railyard.daemon to info.picocli;
}
