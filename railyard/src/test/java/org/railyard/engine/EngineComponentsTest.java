package org.railyard.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The one-way dependencies between the engine's components, checked on the sources (imports and
 * fully qualified names alike): {@code engine.comm} (communicator state, groups, topologies) uses
 * no collective, {@code engine.coll} reaches the engine only through its {@code CollServices}
 * interface, {@code engine.rma} only through its {@code RmaServices}, and none names the engine's
 * assembler class.
 */
class EngineComponentsTest {
    private static final Path ENGINE = Path.of("src/main/java/org/railyard/engine");
    /** A use of a type of the engine floor: {@code org.railyard.engine[.sub].Type}. */
    private static final Pattern USE = Pattern.compile("org\\.railyard\\.engine((?:\\.[a-z]+)*)\\.([A-Z]\\w*)");

    /** Every use, in the sources of {@code component}, of a type of the engine floor outside it. */
    private static List<String> usesOutside(String component) throws IOException {
        List<String> uses = new ArrayList<>();
        try (Stream<Path> files = Files.list(ENGINE.resolve(component))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher m = USE.matcher(Files.readString(f));
                while (m.find()) {
                    String pkg = m.group(1).isEmpty() ? "" : m.group(1).substring(1);
                    if (!pkg.equals(component)) {
                        uses.add(f.getFileName() + " uses " + (pkg.isEmpty() ? "" : pkg + ".") + m.group(2));
                    }
                }
            }
        }
        return uses;
    }

    /**
     * Component -> the other components it may use. The package {@code org.railyard.engine} itself
     * assembles them and may use all; no component uses the assembler, and no two use each other,
     * so the components form no cycle.
     */
    private static final Map<String, Set<String>> MAY_USE = Map.of(
            "comm", Set.of(),
            "progress", Set.of(),
            "request", Set.of("comm"),
            "p2p", Set.of("request", "comm", "progress"),
            "coll", Set.of("request", "comm"),
            "rma", Set.of("request", "comm"));

    @Test
    void componentsDependOneWay() throws IOException {
        List<String> violations = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(ENGINE)) {
            for (Path d : dirs.filter(Files::isDirectory).sorted().toList()) {
                String component = d.getFileName().toString();
                if (!MAY_USE.containsKey(component)) {
                    violations.add("engine." + component + " has no row in MAY_USE: say what it may use");
                    continue;
                }
                Set<String> seen = new TreeSet<>();
                for (String use : usesOutside(component)) {
                    String target = use.substring(use.indexOf(" uses ") + 6);
                    String pkg = target.contains(".") ? target.substring(0, target.lastIndexOf('.')) : "the assembler";
                    if (!MAY_USE.get(component).contains(pkg) && seen.add(pkg)) {
                        violations.add("engine." + component + " uses " + pkg + " (" + use + ")");
                    }
                }
            }
        }
        assertThat(violations).isEmpty();
    }

    @Test
    void communicatorStateUsesNoCollectiveAndNotTheEngine() throws IOException {
        assertThat(usesOutside("comm")).allSatisfy(u -> assertThat(u).doesNotContain("coll.").doesNotContain(" Engine")
                .doesNotContain("CollPort").doesNotContain("CommPort"));
    }

    @Test
    void collectivesReachTheEngineOnlyThroughCollServices() throws IOException {
        List<String> uses = usesOutside("coll");
        // the point-to-point types a schedule posts and waits on, and the communicators it runs on
        assertThat(uses).isNotEmpty().allSatisfy(u -> assertThat(u).matches(".* uses (Kind|request\\.Transfer|comm\\.\\w+)"));
    }

    @Test
    void oneSidedCommunicationReachesTheEngineOnlyThroughRmaServices() throws IOException {
        List<String> uses = usesOutside("rma");
        // the requests it posts and the communicators its windows run on
        assertThat(uses).isNotEmpty().allSatisfy(u -> assertThat(u).matches(".* uses (request\\.Transfer|comm\\.CommState)"));
    }
}
