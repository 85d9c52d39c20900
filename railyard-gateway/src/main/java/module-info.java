/** {@code railyard gateway}: a site's gateway between the ranks of its site and the other sites (docs/gateway.md). */
module org.railyard.gateway {
    requires org.railyard;
    requires org.railyard.daemon;
    requires transitive info.picocli;

    exports org.railyard.gateway;
    opens org.railyard.gateway to info.picocli;
}
