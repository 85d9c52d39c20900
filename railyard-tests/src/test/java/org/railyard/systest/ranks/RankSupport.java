package org.railyard.systest.ranks;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.railyard.Request;
import org.railyard.Status;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * What the rank programs share: assertions that fail with a message naming what was expected,
 * data patterns that tell a message's origin from its bytes, and waits with a bound.
 *
 * <p>Rank programs report on stdout with lines the tests parse: {@code BEGIN <check> rank R},
 * {@code OK <check> rank R}, {@code FAIL <check> rank R: <why>}. A failing rank exits non-zero,
 * which makes the launcher stop the job.
 */
final class RankSupport {
    private RankSupport() {
    }

    /** Bound on any single wait inside a rank program; the job's own timeout bounds the rest. */
    static final Duration BOUND = Duration.ofSeconds(60);

    static void require(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }

    static void requireEquals(long expected, long actual, String what) {
        if (expected != actual) {
            throw new AssertionError(what + ": expected " + expected + ", got " + actual);
        }
    }

    /** Waits for {@code r} at most {@link #BOUND}; fails naming {@code what} if it is still pending then. */
    static Status await(Request r, String what) {
        Status st = r.await(BOUND);
        if (st == null) {
            throw new AssertionError(what + ": still pending after " + BOUND.toSeconds() + " s");
        }
        return st;
    }

    /** Runs {@code action}, which must throw a RailyardException of class {@code expected}; returns it. */
    static RailyardException expectFailure(ErrorClass expected, String what, Runnable action) {
        try {
            action.run();
        } catch (RailyardException e) {
            if (e.errorClass() != expected) {
                throw new AssertionError(what + ": expected " + expected + ", got " + e, e);
            }
            return e;
        }
        throw new AssertionError(what + ": expected RailyardException " + expected + ", but it succeeded");
    }

    static void requireContains(String text, String part, String what) {
        if (text == null || !text.contains(part)) {
            throw new AssertionError(what + ": expected a message containing '" + part + "', got '" + text + "'");
        }
    }

    // ------------------------------------------------------------------ data patterns

    /** The int a message of {@code seq} from {@code src} holds at index {@code i}. */
    static int intAt(int src, int seq, int i) {
        return src * 1_000_003 + seq * 7_919 + i * 31 + (i >>> 10);
    }

    static void fillInts(int[] a, int off, int len, int src, int seq) {
        for (int i = 0; i < len; i++) {
            a[off + i] = intAt(src, seq, i);
        }
    }

    static void verifyInts(int[] a, int off, int len, int src, int seq, String what) {
        for (int i = 0; i < len; i++) {
            if (a[off + i] != intAt(src, seq, i)) {
                throw new AssertionError(what + ": int " + i + " of " + len + " is " + a[off + i] + ", expected "
                        + intAt(src, seq, i) + " (message " + seq + " of rank " + src + ")");
            }
        }
    }

    static byte byteAt(int src, int seq, long i) {
        return (byte) (src * 29 + seq * 13 + i * 7 + (i >>> 8) + (i >>> 16));
    }

    static void fillBytes(byte[] a, int off, int len, int src, int seq) {
        for (int i = 0; i < len; i++) {
            a[off + i] = byteAt(src, seq, i);
        }
    }

    static void verifyBytes(byte[] a, int off, int len, int src, int seq, String what) {
        for (int i = 0; i < len; i++) {
            if (a[off + i] != byteAt(src, seq, i)) {
                throw new AssertionError(what + ": byte " + i + " of " + len + " is " + a[off + i] + ", expected "
                        + byteAt(src, seq, i));
            }
        }
    }

    // ------------------------------------------------------------------ process introspection

    /**
     * The TCP ports this process listens on, read from /proc (Linux): the sockets among this
     * process's file descriptors that are in state LISTEN in /proc/self/net/tcp or tcp6.
     */
    static List<Integer> listeningTcpPorts() throws IOException {
        Set<String> inodes = new HashSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                } catch (IOException gone) {
                    // a descriptor closed while we listed them
                }
            }
        }
        List<Integer> ports = new ArrayList<>();
        for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
            Path p = Path.of(table);
            if (!Files.exists(p)) {
                continue;
            }
            List<String> lines = Files.readAllLines(p);
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.trim().split("\\s+");
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                if (f.length > 9 && f[3].equals("0A") && inodes.contains(f[9])) {
                    String local = f[1];
                    ports.add(Integer.parseInt(local.substring(local.indexOf(':') + 1), 16));
                }
            }
        }
        return ports;
    }
}
