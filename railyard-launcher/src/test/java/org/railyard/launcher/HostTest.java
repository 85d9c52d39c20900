package org.railyard.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hosts files, placement and the remote command line, without starting processes (but a shell). */
class HostTest {
    @TempDir
    Path tmp;

    @Test
    void readsHostsWithSlotsAndComments() throws IOException {
        Path f = tmp.resolve("hosts");
        Files.writeString(f, "# cluster\n  n1 slots=4  \n\nn2 # spare\nlocalhost slots=1\n");
        assertThat(Host.readFile(f)).containsExactly(new Host("n1", 4), Host.of("n2"), Host.of("localhost"));
        assertThat(Host.of("localhost").isLoopback()).isTrue();
        assertThat(Host.of("n1").isLoopback()).isFalse();
    }

    @Test
    void malformedHostsFilesNameTheLine() throws IOException {
        Path f = tmp.resolve("hosts");
        Files.writeString(f, "n1\nn2 cpus=4\n");
        assertThatThrownBy(() -> Host.readFile(f)).hasMessage("hosts file " + f + " line 2: expected 'host' or 'host slots=N', found 'cpus=4'");
        Files.writeString(f, "# nothing\n\n");
        assertThatThrownBy(() -> Host.readFile(f)).hasMessage("hosts file " + f + " lists no host");
        assertThatThrownBy(() -> Host.readFile(tmp.resolve("absent"))).hasMessageStartingWith("cannot read hosts file");
    }

    @Test
    void placementFillsSlotsThenStartsOver() {
        Host a = new Host("a", 2);
        Host b = Host.of("b");
        assertThat(Host.place(7, List.of(a, b))).containsExactly(a, a, b, a, a, b, a);
        assertThat(Host.place(1, List.of(a, b))).containsExactly(a);
    }

    @Test
    void remoteCommandSurvivesQuotesAndSpacesThroughTwoShells() throws Exception {
        List<String> argv = Launcher.rshCommand("ssh -o BatchMode=yes", "node7", Map.of("K", "it's a \"value\" $HOME"),
                List.of("printf", "%s|%s|%s\\n", "$K", "a b", "it's"));
        assertThat(argv.subList(0, 4)).containsExactly("ssh", "-o", "BatchMode=yes", "node7");
        // What sshd does with the last word: hand it to a shell.
        Process p = new ProcessBuilder("/bin/sh", "-c", argv.get(4)).redirectErrorStream(true).start();
        // stdin stays open, as the launcher keeps it: its end would mean "stop".
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).isZero();
        p.getOutputStream().close();
        assertThat(out).isEqualTo("$K|a b|it's\n");
    }

    @Test
    void jobSpecRejectsNonsense() {
        assertThatThrownBy(() -> JobSpec.of(0, "Main")).hasMessage("the number of ranks (np) must be at least 1, got 0");
        assertThatThrownBy(() -> JobSpec.of(1, " ")).hasMessageContaining("no program given");
        assertThatThrownBy(() -> JobSpec.of(1, "Main").withEnv(Map.of("A=B", "c"))).hasMessageContaining("'A=B=c'");
        assertThat(JobSpec.of(1, "Main").rsh()).isEqualTo("ssh");
    }
}
