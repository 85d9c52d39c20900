package org.railyard.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Init's native set-up thread ({@link NativeSetup}) changes when the handles are made, not what
 * they do: a fresh JVM that made them ahead on that thread and one that made them where first used
 * print the same results of every call, and, with native access denied, the same reasons.
 */
class NativeSetupTest {
    private static final String PROBE = "org.railyard.transport.shm.NativeSetupProbe";

    @Test
    void handlesMadeAheadGiveTheSameResultsAsHandlesMadeOnFirstUse() throws Exception {
        List<String> lazy = probe("lazy", "--enable-native-access=ALL-UNNAMED");
        List<String> ahead = probe("ahead", "--enable-native-access=ALL-UNNAMED");
        assertThat(ahead).isEqualTo(lazy);
        assertThat(lazy).contains("futex: true null", "futex sleep on a changed word: CHANGED, wake with no sleeper: 0",
                "cross-memory reads: true null", "read of own memory: 16 bytes, 123456789abc",
                "timer slack: true, set 20000: true, now 20000");
        assertThat(lazy).anyMatch(l -> l.startsWith("binding: bound to processor "));
    }

    @Test
    void aFailureOnTheSetUpThreadReachesTheCallerWithTheSameMessage() throws Exception {
        // restricted methods refused: every handle fails to be made, on whichever thread makes it
        List<String> lazy = probe("lazy", "--illegal-native-access=deny");
        List<String> ahead = probe("ahead", "--illegal-native-access=deny");
        assertThat(ahead).isEqualTo(lazy);
        assertThat(lazy).anyMatch(l -> l.startsWith("futex: false native calls not available: ") && l.contains("native access"));
        assertThat(lazy).anyMatch(l -> l.startsWith("cross-memory reads: false native calls not available: "));
        assertThat(lazy).anyMatch(l -> l.startsWith("read of own memory: ENOSYS (native calls not available: "));
        assertThat(lazy).contains("timer slack: false, set 20000: false, now -1");
        assertThat(lazy).anyMatch(l -> l.startsWith("binding: not bound to a processor (") && l.contains("native access"));
    }

    @Test
    void theSettingTurnsTheThreadOffAndABadValueIsNamed() {
        String before = System.getProperty("railyard.native.setup");
        try {
            System.setProperty("railyard.native.setup", "false");
            assertThat(NativeSetup.start()).as("no set-up thread").isNull();
            System.setProperty("railyard.native.setup", "sometimes");
            assertThatThrownBy(NativeSetup::start).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("railyard.native.setup");
        } finally {
            if (before == null) {
                System.clearProperty("railyard.native.setup");
            } else {
                System.setProperty("railyard.native.setup", before);
            }
        }
    }

    /** The probe's lines in a fresh JVM with {@code access} (how native access is allowed). */
    private static List<String> probe(String mode, String access) throws Exception {
        String jvm = ProcessHandle.current().info().command().orElseThrow();
        List<String> cmd = new ArrayList<>(List.of(jvm, access, "-Drailyard.bind=core", "-cp",
                System.getProperty("java.class.path"), PROBE, mode));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out;
        try (var in = p.getInputStream()) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the probe ended\n%s", out).isTrue();
        assertThat(p.exitValue()).as("the probe's exit code\n%s", out).isZero();
        return out.lines().filter(l -> l.contains(": ")).toList();
    }
}
