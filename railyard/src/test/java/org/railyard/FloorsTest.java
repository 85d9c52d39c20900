package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The house rule of docs/ARCHITECTURE.md, checked on the sources: a floor imports only the floor
 * below it and the side floors (wire for frame layouts, bootstrap, stats, util, error).
 */
class FloorsTest {
    private static final Set<String> SIDE = Set.of("wire", "bootstrap", "stats", "util", "error");

    /** floor -> floors it may import besides itself and the side floors. */
    private static final Map<String, Set<String>> ALLOWED = Map.of(
            "api", Set.of("engine"),
            "engine", Set.of("channel"),
            "channel", Set.of("stack", "transport"),
            "stack", Set.of("transport"),
            "transport", Set.of(),
            "wire", Set.of(),
            "bootstrap", Set.of(),
            "stats", Set.of(),
            "util", Set.of(),
            "error", Set.of());

    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?org\\.railyard\\.([a-z]+)?\\.?([A-Za-z]*)", Pattern.MULTILINE);

    private static String floorOf(Path root, Path file) {
        Path rel = root.relativize(file);
        return rel.getNameCount() == 1 ? "api" : rel.getName(0).toString();
    }

    private static String floorOfImport(Matcher m) {
        String first = m.group(1);
        // org.railyard.Comm (a class in the top package) is the api floor
        return first == null || Character.isUpperCase(m.group(0).charAt("import org.railyard.".length())) ? "api" : first;
    }

    @Test
    void everyImportGoesDownOneFloorOrToASideFloor() throws IOException {
        Path root = Path.of("src/main/java/org/railyard");
        List<String> violations = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String floor = floorOf(root, f);
                if (!ALLOWED.containsKey(floor)) {
                    violations.add(f + ": package " + floor + " is no floor of docs/ARCHITECTURE.md");
                    continue;
                }
                Matcher m = IMPORT.matcher(Files.readString(f));
                while (m.find()) {
                    String target = floorOfImport(m);
                    if (target.equals(floor) || (SIDE.contains(target) && !SIDE.contains(floor))
                            || ALLOWED.get(floor).contains(target)
                            || (SIDE.contains(floor) && Set.of("error", "util").contains(target))) {
                        continue;
                    }
                    violations.add(f + " (" + floor + ") imports " + m.group(0).substring(7) + " (" + target + ")");
                }
            }
        }
        assertThat(violations).isEmpty();
    }
}
