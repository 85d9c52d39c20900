package org.railyard.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The README's table of settings names every setting that {@link Config} defines. */
class ConfigDocsTest {
    /** The README's "Settings" section, from its heading to the next one. */
    private static String settingsSection() throws IOException {
        Path readme = Path.of("..", "README.md");
        assertThat(readme).as("the repository's README, seen from the module's directory").exists();
        String text = Files.readString(readme);
        int start = text.indexOf("\n## Settings\n");
        assertThat(start).as("a '## Settings' section in README.md").isNotNegative();
        int end = text.indexOf("\n## ", start + 1);
        return end < 0 ? text.substring(start) : text.substring(start, end);
    }

    @Test
    void readmeTableNamesEverySetting() throws Exception {
        String section = settingsSection();
        List<String> props = new ArrayList<>();
        for (Field f : Config.class.getFields()) {
            if (f.getName().endsWith("_PROP") && Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                props.add((String) f.get(null));
            }
        }
        assertThat(props).as("settings found in Config").hasSizeGreaterThan(20);
        List<String> missing = props.stream().filter(p -> !section.contains("`" + p + "`")).toList();
        assertThat(missing).as("settings of Config with no row in README.md's settings table").isEmpty();
    }
}
