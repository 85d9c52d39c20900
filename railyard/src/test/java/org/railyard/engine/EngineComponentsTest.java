package org.railyard.engine;

import org.railyard.types.Kind;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

    @Test
    void communicatorStateUsesNoCollectiveAndNotTheEngine() throws IOException {
        assertThat(usesOutside("comm")).allSatisfy(u -> assertThat(u).doesNotContain("coll.").doesNotContain(" Engine")
                .doesNotContain("CollPort").doesNotContain("CommPort"));
    }

    @Test
    void collectivesReachTheEngineOnlyThroughCollServices() throws IOException {
        List<String> uses = usesOutside("coll");
        // the point-to-point types a schedule posts and waits on, and the communicators it runs on
        assertThat(uses).isNotEmpty().allSatisfy(u -> assertThat(u).matches(".* uses (Kind|Transfer|comm\\.\\w+)"));
    }

    @Test
    void oneSidedCommunicationReachesTheEngineOnlyThroughRmaServices() throws IOException {
        List<String> uses = usesOutside("rma");
        // the requests it posts and the communicators its windows run on
        assertThat(uses).isNotEmpty().allSatisfy(u -> assertThat(u).matches(".* uses (Transfer|comm\\.CommState)"));
    }
}
