package org.railyard.systest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * For a test whose job did not end in time: the thread stacks of every Java process this test JVM
 * started (ranks, gateways, relays), taken with the JDK's {@code jcmd <pid> Thread.print} and
 * written to {@code target/systest-logs/<name>-<pid>.stacks}, so that a hang seen once in CI can
 * be read afterwards instead of guessed at. Best effort: a process that ends meanwhile, or a JDK
 * without {@code jcmd}, leaves a line saying so.
 */
public final class StackDumps {
    private StackDumps() {
    }

    /** Dumps every descendant JVM; returns one line per process (pid, command, where its stacks went). */
    public static String ofDescendants(String name) {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Path dir = Path.of("target", "systest-logs");
        List<String> lines = new ArrayList<>();
        ProcessHandle.current().descendants()
                .filter(p -> p.info().command().map(c -> c.endsWith("java")).orElse(false))
                .forEach(p -> lines.add(dump(jcmd, dir, name, p)));
        return lines.isEmpty() ? "no descendant JVM to dump" : String.join("\n", lines);
    }

    private static String dump(Path jcmd, Path dir, String name, ProcessHandle p) {
        String what = p.pid() + " " + p.info().arguments().map(a -> a.length > 0 ? a[a.length - 1] : "").orElse("");
        try {
            Files.createDirectories(dir);
            Path out = dir.resolve(name.replaceAll("[^A-Za-z0-9_.,=-]", "_") + "-" + p.pid() + ".stacks");
            Process j = new ProcessBuilder(jcmd.toString(), Long.toString(p.pid()), "Thread.print")
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!j.waitFor(30, TimeUnit.SECONDS)) {
                j.destroyForcibly();
                return what + ": jcmd did not answer within 30 s";
            }
            return what + ": stacks in " + out.toAbsolutePath();
        } catch (IOException e) {
            return what + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return what + ": interrupted";
        }
    }
}
