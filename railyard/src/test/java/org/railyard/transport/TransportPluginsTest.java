package org.railyard.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The plugins are independent of each other and invisible above the transport SPI: a plugin
 * package names no other plugin (the shared ring code sits in its own package, {@code ring}), the
 * SPI names none, and no floor above names a plugin or the ring package, by import or by fully
 * qualified name. They are found with {@link ServiceLoader} alone.
 */
class TransportPluginsTest {
    private static final Path ROOT = Path.of("src/main/java/org/railyard");
    /** The shared code of the ring transports: the one sub-package of transport that is no plugin. */
    private static final String RING = "ring";
    private static final Pattern NAMED = Pattern.compile("org\\.railyard\\.transport\\.([a-z]+)\\b");

    /** The transport sub-package a file belongs to ("" for the SPI itself, null outside transport). */
    private static String subPackage(Path file) {
        Path rel = ROOT.relativize(file);
        if (rel.getNameCount() < 2 || !rel.getName(0).toString().equals("transport")) {
            return null;
        }
        return rel.getNameCount() == 2 ? "" : rel.getName(1).toString();
    }

    /** Every sub-package of transport but {@link #RING}: self, shm, tcp, udp, and any added later. */
    private static Set<String> plugins() throws IOException {
        try (Stream<Path> dirs = Files.list(ROOT.resolve("transport"))) {
            return dirs.filter(Files::isDirectory).map(d -> d.getFileName().toString()).filter(n -> !n.equals(RING))
                    .collect(java.util.stream.Collectors.toSet());
        }
    }

    @Test
    void noPluginIsNamedOutsideItselfAndTheRingCodeOnlyByPlugins() throws IOException {
        Set<String> plugins = plugins();
        assertThat(plugins).contains("self", "shm", "tcp", "udp");
        List<String> violations = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String own = subPackage(f);
                Matcher m = NAMED.matcher(Files.readString(f));
                while (m.find()) {
                    String named = m.group(1);
                    boolean plugin = plugins.contains(named);
                    boolean ring = named.equals(RING);
                    boolean itself = named.equals(own);
                    boolean pluginUsesRing = ring && own != null && plugins.contains(own);
                    if ((plugin || ring) && !itself && !pluginUsesRing) {
                        violations.add(ROOT.relativize(f) + " names " + m.group(0));
                    }
                }
            }
        }
        assertThat(violations).as("references to a transport plugin from outside it").isEmpty();
    }

    @Test
    void thePluginsAreFoundWithServiceLoaderAndOneLinksAProcessToItself() {
        List<Transport> found = new ArrayList<>();
        ServiceLoader.load(Transport.class).forEach(found::add);
        assertThat(found).extracting(Transport::name).contains("self", "shm", "tcp", "udp").doesNotHaveDuplicates();
        assertThat(found).filteredOn(t -> t.capabilities().contains(Capability.LOOPBACK))
                .extracting(Transport::name).containsExactly("self");
    }

    /** The node's memory is shm's alone; a transport without the capability says so when asked. */
    @Test
    void onlyShmSharesTheNodesMemory() {
        List<Transport> found = new ArrayList<>();
        ServiceLoader.load(Transport.class).forEach(found::add);
        assertThat(found).filteredOn(t -> t.capabilities().contains(Capability.NODE_MEMORY))
                .extracting(Transport::name).containsExactly("shm");
        Transport tcp = found.stream().filter(t -> t.name().equals("tcp")).findFirst().orElseThrow();
        assertThatThrownBy(tcp::nodeMemory).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("tcp shares no node memory");
    }

    /**
     * The transports whose links no handshake makes (loopback, or through an intermediary) are
     * exactly the loopback and indirect ones, and each refuses the handshake's calls naming itself.
     */
    @Test
    void theLoopbackAndIndirectTransportsRefuseAHandshakeNamingThemselves() {
        List<Transport> found = new ArrayList<>();
        ServiceLoader.load(Transport.class).forEach(found::add);
        List<Transport> free = found.stream().filter(t -> t instanceof HandshakeFree).toList();
        assertThat(free).extracting(Transport::name).containsExactlyInAnyOrder("self", "relay", "gateway");
        assertThat(found).filteredOn(t -> t.capabilities().contains(Capability.LOOPBACK)
                || t.capabilities().contains(Capability.INDIRECT)).containsExactlyInAnyOrderElementsOf(free);
        for (Transport t : free) {
            String why = "transport " + t.name() + " makes no link through a handshake";
            assertThatThrownBy(() -> t.offer(1, null)).isInstanceOf(IOException.class).hasMessage(why);
            assertThatThrownBy(() -> t.complete(1, "", 1024, null)).isInstanceOf(IOException.class).hasMessage(why);
            assertThatThrownBy(() -> t.accept(1, "", null)).isInstanceOf(IOException.class).hasMessage(why);
        }
    }

    @Test
    void theRingTransportsOfOneProcessShareOneBell() throws IOException {
        TransportEnv env = new TransportEnv(0, 1, "job-bell", "node-a", true);
        List<Transport> ring = new ArrayList<>();
        for (Transport t : ServiceLoader.load(Transport.class)) {
            if (t.name().equals("self") || t.name().equals("shm")) {
                assertThat(t.start(env)).as(t.name() + " starts").isTrue();
                ring.add(t);
            }
        }
        assertThat(ring).hasSize(2);
        assertThat(ring.get(0).bell()).as("one bell per process").isSameAs(ring.get(1).bell())
                .isNotSameAs(Bell.NONE).isSameAs(Bell.of(ring));
        TransportEnv other = new TransportEnv(0, 1, "job-bell", "node-a", true);
        Transport fresh = ServiceLoader.load(Transport.class).stream().map(ServiceLoader.Provider::get)
                .filter(t -> t.name().equals("self")).findFirst().orElseThrow();
        fresh.start(other);
        assertThat(fresh.bell()).as("another process (environment) has its own").isNotSameAs(ring.get(0).bell());
        for (Transport t : ring) {
            t.close();
        }
    }
}
