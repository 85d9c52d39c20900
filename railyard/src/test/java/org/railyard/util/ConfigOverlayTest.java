package org.railyard.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The per-loader environment overlay that {@code railyard run --threads} sets on each rank's copy
 * of {@link Config}, and the rule that makes it reach every reader: the library's main sources
 * call {@code System.getenv} only inside Config.
 */
class ConfigOverlayTest {
    @AfterEach
    void clear() {
        Config.setOverlay(Map.of());
    }

    @Test
    void theOverlayWinsOverTheProcessEnvironmentAndIsSeenBySettingsAndEnv() {
        String path = System.getenv("PATH");
        Config.setOverlay(Map.of("RAILYARD_EAGER_LIMIT", "4k", "PATH", "/overlay", "RAILYARD_RANK", "3"));
        assertThat(Config.bytes(Config.EAGER_LIMIT_PROP, Config.EAGER_LIMIT_DEFAULT)).isEqualTo(4096);
        assertThat(Config.env()).containsEntry("RAILYARD_RANK", "3").containsEntry("PATH", "/overlay");
        assertThat(Config.getenv("PATH")).isEqualTo("/overlay");
        Config.setOverlay(Map.of());
        assertThat(Config.getenv("PATH")).isEqualTo(path);
        assertThat(Config.env()).isEqualTo(System.getenv());
        assertThat(Config.bytes(Config.EAGER_LIMIT_PROP, 123)).isEqualTo(
                System.getenv("RAILYARD_EAGER_LIMIT") == null ? 123 : Config.parseBytes("x", System.getenv("RAILYARD_EAGER_LIMIT")));
    }

    @Test
    void aSystemPropertyStillWinsOverTheOverlay() {
        System.setProperty("railyard.test.overlay", "from-property");
        try {
            Config.setOverlay(Map.of("RAILYARD_TEST_OVERLAY", "from-overlay"));
            assertThat(Config.string("railyard.test.overlay", "none")).isEqualTo("from-property");
        } finally {
            System.clearProperty("railyard.test.overlay");
        }
        assertThat(Config.string("railyard.test.overlay", "none")).isEqualTo("from-overlay");
    }

    @Test
    void aNullNameOrValueIsRefused() {
        Map<String, String> bad = new HashMap<>();
        bad.put("RAILYARD_RANK", null);
        assertThatThrownBy(() -> Config.setOverlay(bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("RAILYARD_RANK");
    }

    @Test
    void onlyConfigReadsTheProcessEnvironment() throws IOException {
        Path main = Path.of("src", "main", "java");
        assertThat(main).as("the library's sources, seen from the module's directory").isDirectory();
        List<String> readers;
        try (Stream<Path> files = Files.walk(main)) {
            readers = files.filter(f -> f.toString().endsWith(".java") && !f.endsWith(Path.of("org/railyard/util/Config.java")))
                    .filter(f -> {
                        try {
                            return Files.readString(f).contains("System.getenv(");
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .map(Path::toString).toList();
        }
        assertThat(readers).as("sources that read the environment around Config's overlay").isEmpty();
    }
}
