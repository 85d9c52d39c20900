package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The house rule of docs/ARCHITECTURE.md, checked on the sources of every module of the build:
 * inside the core module a floor uses only the floor below it and the side floors (wire for frame
 * layouts, bootstrap, stats, util, error, types); every other module uses only what its row below
 * allows. "Uses" means an import or a fully qualified name anywhere in the code (comments and
 * string literals aside), so {@code org.railyard.channel.RailPolicies.create(...)} written inline
 * counts like its import.
 */
class FloorsTest {
    private static final Set<String> SIDE = Set.of("wire", "bootstrap", "stats", "util", "error", "types");

    /** Core floor -> floors it may use besides itself and the side floors. */
    private static final Map<String, Set<String>> CORE = Map.of(
            "api", Set.of("engine"),
            "engine", Set.of("channel"),
            "channel", Set.of("stack", "transport"),
            "stack", Set.of("transport"),
            "transport", Set.of());

    /** The packages below org.railyard that belong to other modules than the core, by module. */
    private static final Map<String, String> MODULE_PACKAGES = Map.of(
            "launcher", "railyard-launcher",
            "daemon", "railyard-daemon",
            "relay", "railyard-relay",
            "gateway", "railyard-gateway",
            "apps", "railyard-apps",
            "bench", "railyard-bench",
            "cli", "railyard-cli");

    /**
     * Module -> what it may use: core floors by name ("api" is the package org.railyard itself) and
     * other modules by artifact name. The facade and the applications use only the exported API
     * (api, error, types); programs built from the floors (daemons, launcher, benchmarks) name the
     * floors they are built from.
     */
    private static final Map<String, Set<String>> MODULES = Map.of(
            "railyard-mpijava", Set.of("api", "error", "types"),
            "railyard-apps", Set.of("api", "error", "types", "railyard-mpijava"),
            // railyard-relay: run --relays N starts relays inside the launcher; railyard-gateway: --gateways embedded
            "railyard-launcher", Set.of("api", "bootstrap", "util", "error", "railyard-relay", "railyard-gateway"),
            // railyard-daemon: the daemon commands' shared options and helpers, built from no floor
            "railyard-daemon", Set.of(),
            "railyard-relay", Set.of("wire", "bootstrap", "util", "error", "transport", "railyard-daemon"),
            "railyard-gateway", Set.of("wire", "bootstrap", "util", "error", "transport", "railyard-daemon"),
            "railyard-bench", Set.of("api", "error", "types", "util", "stats", "channel", "railyard-launcher",
                    "railyard-mpijava"),
            "railyard-cli", Set.of("railyard-launcher", "railyard-relay", "railyard-gateway", "railyard-apps", "railyard-bench",
                    "railyard-mpijava", "util"));

    private static final Pattern REFERENCE = Pattern.compile("\\borg\\.railyard\\.([a-zA-Z_][a-zA-Z0-9_]*)|^import (?:static )?mpi\\.",
            Pattern.MULTILINE);
    private static final Pattern PACKAGE = Pattern.compile("^package ([a-zA-Z0-9_.]+);", Pattern.MULTILINE);
    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    /**
     * What reaches the memory of a node's processes by itself: mapping a file shared with other
     * processes, reading another process's memory, naming the tmpfs. Only the shm transport does
     * (its {@code NodeMemory}); every other source gets that memory through the transport SPI
     * ({@code Transport.nodeMemory()}, and above the transport floor {@code channel.LocalMemory}).
     */
    private static final Pattern NODE_MEMORY = Pattern.compile("FileChannel\\s*\\.\\s*MapMode|\\bMapMode\\s*\\.\\s*READ_WRITE"
            + "|process_vm_readv|\"/dev/shm\"");
    private static final String NODE_MEMORY_OWNER = "org.railyard.transport.shm";

    @Test
    void everyModuleUsesOnlyWhatItsFloorAllows() throws IOException {
        Path parent = Path.of("..").toAbsolutePath().normalize();
        List<String> violations = new ArrayList<>();
        Set<String> modules = new LinkedHashSet<>();
        Matcher mm = MODULE.matcher(Files.readString(parent.resolve("pom.xml")));
        while (mm.find()) {
            modules.add(mm.group(1));
        }
        assertThat(modules).as("modules of the parent pom").contains("railyard", "railyard-mpijava");
        for (String module : modules) {
            Path src = parent.resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(src)) {
                continue;
            }
            if (!module.equals("railyard") && !MODULES.containsKey(module)) {
                violations.add("module " + module + " has no row in FloorsTest.MODULES: say what it may use");
                continue;
            }
            try (Stream<Path> files = Files.walk(src)) {
                // module-info.java names what a module exports; javac holds the other modules to it
                for (Path f : files.filter(p -> p.toString().endsWith(".java") && !p.endsWith("module-info.java")).sorted()
                        .toList()) {
                    check(module, parent.relativize(f), Files.readString(f), violations);
                }
            }
        }
        assertThat(violations).isEmpty();
    }

    /**
     * The node's shared memory is a capability of the shm transport: no other package of any
     * module maps shared files, reads another process's memory or names {@code /dev/shm} (the
     * engine's collective segments, mapped windows and cross-memory reads go through
     * {@code channel.LocalMemory}).
     */
    @Test
    void onlyTheShmTransportReachesTheNodesMemoryByItself() throws IOException {
        Path parent = Path.of("..").toAbsolutePath().normalize();
        List<String> violations = new ArrayList<>();
        Matcher mm = MODULE.matcher(Files.readString(parent.resolve("pom.xml")));
        int files = 0;
        while (mm.find()) {
            Path src = parent.resolve(mm.group(1)).resolve("src/main/java");
            if (!Files.isDirectory(src)) {
                continue;
            }
            try (Stream<Path> all = Files.walk(src)) {
                for (Path f : all.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                    checkNodeMemory(parent.relativize(f), Files.readString(f), violations);
                    files++;
                }
            }
        }
        assertThat(files).as("sources read").isGreaterThan(100);
        assertThat(violations).isEmpty();
    }

    private static void checkNodeMemory(Path file, String text, List<String> violations) {
        Matcher pm = PACKAGE.matcher(text);
        String pkg = pm.find() ? pm.group(1) : "";
        if (pkg.equals(NODE_MEMORY_OWNER)) {
            return;
        }
        Matcher m = NODE_MEMORY.matcher(strip(text, true));
        if (m.find()) {
            violations.add(file + " (" + pkg + ") reaches the node's memory by itself (" + m.group()
                    + "): only " + NODE_MEMORY_OWNER + " does; ask the transport SPI's NodeMemory");
        }
    }

    private static void check(String module, Path file, String text, List<String> violations) {
        Matcher pm = PACKAGE.matcher(text);
        String pkg = pm.find() ? pm.group(1) : "";
        String code = codeOnly(text);
        String self = module.equals("railyard") ? coreFloor(pkg) : module;
        if (module.equals("railyard") && !CORE.containsKey(self) && !SIDE.contains(self)) {
            violations.add(file + ": package " + pkg + " is no floor of docs/ARCHITECTURE.md");
            return;
        }
        Set<String> seen = new TreeSet<>();
        Matcher m = REFERENCE.matcher(code);
        while (m.find()) {
            if (m.start() == pm.start(1) - "package ".length()) {
                continue;
            }
            String target = m.group(1) == null ? "railyard-mpijava" : unitOf(m.group(1));
            if (target.equals(self) || allowed(module, self, target)) {
                continue;
            }
            if (seen.add(target)) {
                violations.add(file + " (" + self + ") uses " + target + ": " + m.group(0));
            }
        }
    }

    private static boolean allowed(String module, String self, String target) {
        if (!module.equals("railyard")) {
            return MODULES.get(module).contains(target);
        }
        if (SIDE.contains(self)) {
            return Set.of("error", "util").contains(target);
        }
        return SIDE.contains(target) || CORE.get(self).contains(target);
    }

    /** The unit a name after {@code org.railyard.} belongs to: a class of the top package is the api floor. */
    private static String unitOf(String first) {
        if (Character.isUpperCase(first.charAt(0))) {
            return "api";
        }
        return MODULE_PACKAGES.getOrDefault(first, first);
    }

    private static String coreFloor(String pkg) {
        String rest = pkg.equals("org.railyard") ? "" : pkg.substring("org.railyard.".length());
        return rest.isEmpty() ? "api" : rest.split("\\.")[0];
    }

    /** The text with comments and string and character literals blanked out (line breaks kept). */
    static String codeOnly(String s) {
        return strip(s, false);
    }

    /** The text with comments blanked out, and string and character literals too unless {@code keepStrings}. */
    private static String strip(String s, boolean keepStrings) {
        StringBuilder out = new StringBuilder(s.length());
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (s.startsWith("//", i)) {
                int e = s.indexOf('\n', i);
                i = e < 0 ? s.length() : e;
            } else if (s.startsWith("/*", i)) {
                int e = s.indexOf("*/", i + 2);
                int end = e < 0 ? s.length() : e + 2;
                s.substring(i, end).chars().filter(ch -> ch == '\n').forEach(ch -> out.append('\n'));
                i = end;
            } else if (s.startsWith("\"\"\"", i)) {
                int e = s.indexOf("\"\"\"", i + 3);
                int end = e < 0 ? s.length() : e + 3;
                out.append(keepStrings ? s.substring(i, end) : "\"\"");
                i = end;
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < s.length() && s.charAt(j) != c && s.charAt(j) != '\n') {
                    j += s.charAt(j) == '\\' ? 2 : 1;
                }
                int end = Math.min(s.length(), j + 1);
                out.append(keepStrings ? s.substring(i, end) : String.valueOf(c) + c);
                i = end;
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    /**
     * The transports are found with ServiceLoader: on the class path through META-INF/services, on
     * the module path through module-info's {@code provides}; the two lists must name the same plugins.
     */
    @Test
    void theModuleProvidesEveryTransportTheServiceFileLists() throws IOException {
        String service = "org.railyard.transport.Transport";
        Set<String> listed = new TreeSet<>();
        for (String line : Files.readAllLines(Path.of("src/main/resources/META-INF/services", service))) {
            if (!line.isBlank() && !line.startsWith("#")) {
                listed.add(line.trim());
            }
        }
        String info = codeOnly(Files.readString(Path.of("src/main/java/module-info.java")));
        Matcher m = Pattern.compile("provides\\s+" + Pattern.quote(service) + "\\s+with([^;]+);").matcher(info);
        assertThat(m.find()).as("module-info provides " + service).isTrue();
        Set<String> provided = new TreeSet<>();
        for (String name : m.group(1).split(",")) {
            provided.add(name.trim());
        }
        assertThat(provided).isEqualTo(listed);
    }

    @Test
    void theCheckSeesFullyQualifiedNamesAndIgnoresComments() {
        List<String> v = new ArrayList<>();
        check("railyard-mpijava", Path.of("X.java"), """
                package mpi;
                // org.railyard.engine.Engine in a comment is no use
                /** {@link org.railyard.channel.VirtualChannel} neither */
                class X {
                    String s = "org.railyard.transport.Link";
                    int p = org.railyard.engine.Engine.PROC_NULL;
                }
                """, v);
        assertThat(v).singleElement().asString().contains("uses engine");
        v.clear();
        check("railyard", Path.of("org/railyard/transport/Y.java"), """
                package org.railyard.transport;
                import org.railyard.util.Config;
                class Y { Object o = org.railyard.channel.ChannelTable.class; }
                """, v);
        assertThat(v).singleElement().asString().contains("(transport) uses channel");
    }

    @Test
    void theNodeMemoryCheckSeesMappingsAndReadsOutsideShmOnly() {
        List<String> v = new ArrayList<>();
        String mapping = """
                package %s;
                // FileChannel.MapMode in a comment is no use
                class Z {
                    Object m(java.nio.channels.FileChannel ch) throws Exception {
                        return ch.map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, 8, null);
                    }
                }
                """;
        checkNodeMemory(Path.of("Z.java"), mapping.formatted("org.railyard.transport.shm"), v);
        assertThat(v).as("the shm transport maps").isEmpty();
        checkNodeMemory(Path.of("Z.java"), mapping.formatted("org.railyard.engine.coll"), v);
        assertThat(v).singleElement().asString().contains("(org.railyard.engine.coll) reaches the node's memory");
        v.clear();
        checkNodeMemory(Path.of("Y.java"), """
                package org.railyard.engine.p2p;
                /** reads with process_vm_readv, in a comment: no use */
                class Y { String sym = "process_vm_readv"; }
                """, v);
        assertThat(v).singleElement().asString().contains("process_vm_readv");
        v.clear();
        checkNodeMemory(Path.of("X.java"), "package org.railyard.util;\nclass X { java.nio.file.Path p = java.nio.file.Path.of(\"/dev/shm\"); }\n", v);
        assertThat(v).singleElement().asString().contains("/dev/shm");
    }
}
