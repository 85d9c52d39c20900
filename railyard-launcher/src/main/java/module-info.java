/** {@code railyard run}: starts the ranks of a job, serves their bootstrap, and watches them. */
module org.railyard.launcher {
    requires org.railyard;
    requires org.railyard.relay;
    requires transitive info.picocli;

    exports org.railyard.launcher;
    opens org.railyard.launcher to info.picocli;
}
