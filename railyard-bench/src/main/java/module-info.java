/** {@code railyard bench}: the benchmarks, their peers' drivers and the plots. */
module org.railyard.bench {
    requires org.railyard;
    requires org.railyard.launcher;
    requires info.picocli;
    requires HdrHistogram;
    requires org.knowm.xchart;
    requires java.desktop;
    requires java.management;
    requires jdk.management;

    exports org.railyard.bench;
    opens org.railyard.bench to info.picocli;
}
