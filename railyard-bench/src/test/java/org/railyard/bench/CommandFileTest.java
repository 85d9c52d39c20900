package org.railyard.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command file of a serving benchmark job, as bench/compare-coll.sh --paired writes it. */
class CommandFileTest {

    private static void append(Path file, String text) throws Exception {
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    }

    @Test
    void returnsWholeLinesInOrderAndKeepsAHalfWrittenOneUntilItsEnd(@TempDir Path dir) throws Exception {
        Path file = Files.createFile(dir.resolve("cmd"));
        append(file, "barrier 0\nbcast 65");
        try (CommandFile commands = new CommandFile(file, Duration.ofMillis(200))) {
            assertThat(commands.next()).isEqualTo("barrier 0");
            // the rest of the line is not there yet: no half line comes back, the wait ends in an error
            assertThatThrownBy(commands::next).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(file.toString()).hasMessageContaining("no command");
            append(file, "536\nquit\n");
            assertThat(commands.next()).isEqualTo("bcast 65536");
            assertThat(commands.next()).isEqualTo("quit");
        }
    }

    @Test
    void aWaitingReaderSeesALineAppendedLater(@TempDir Path dir) throws Exception {
        Path file = Files.createFile(dir.resolve("cmd"));
        try (CommandFile commands = new CommandFile(file, Duration.ofSeconds(30))) {
            CompletableFuture<String> next = CompletableFuture.supplyAsync(commands::next);
            append(file, "alltoall 1048576\n");
            assertThat(next.get(20, TimeUnit.SECONDS)).isEqualTo("alltoall 1048576");
        }
    }

    @Test
    void aMissingFileIsNamed(@TempDir Path dir) {
        Path file = dir.resolve("absent");
        assertThatThrownBy(() -> new CommandFile(file, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--serve").hasMessageContaining(file.toString());
    }
}
