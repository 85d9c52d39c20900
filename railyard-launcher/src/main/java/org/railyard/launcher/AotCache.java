package org.railyard.launcher;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * The ahead-of-time cache of one program's rank JVMs (setting {@code railyard.aot}; JDK 25's
 * {@code -XX:AOTCache} and {@code -XX:AOTCacheOutput}). Rules:
 * <ul>
 *   <li>a cache belongs to one java binary and version, one class path (each entry with its size
 *       and modification time), one main class and one set of JVM options (logging options
 *       {@code -Xlog...} aside): a rebuilt jar or another option makes another cache, never a
 *       stale one;</li>
 *   <li>it serves programs whose class path holds jars only (the JVM's rule): with a directory on
 *       it, the launcher says so and starts the ranks without a cache;</li>
 *   <li>when the cache exists, every rank starts from it; when it does not, rank 0 alone trains
 *       it while the job runs (the JVM writes it at exit) into a file of its own, which becomes the
 *       cache only if the job ends well, by an atomic rename: two jobs training at once, or a job
 *       killed while writing, leave no half cache behind;</li>
 *   <li>the cache is local to the launcher's machine: ranks on other hosts run without it.</li>
 * </ul>
 */
final class AotCache {
    private final Path file;
    private final Path training;
    private final boolean exists;
    /** Why no cache can serve this program (the JVM caches classes from jars only), or null. */
    private final String unusable;

    private AotCache(Path file, Path training, boolean exists, String unusable) {
        this.file = file;
        this.training = training;
        this.exists = exists;
        this.unusable = unusable;
    }

    /**
     * The cache for this program, or null when the setting is {@code off}.
     *
     * @throws IllegalArgumentException when the directory the setting names cannot be made
     */
    static AotCache plan(String setting, String java, List<String> classpath, String mainClass, List<String> jvmArgs,
                         String jobId) {
        String v = setting == null ? "off" : setting.trim();
        if (v.isEmpty() || v.equalsIgnoreCase("off") || v.equalsIgnoreCase("false")) {
            return null;
        }
        Path dir = v.equalsIgnoreCase("on") || v.equalsIgnoreCase("true")
                ? Path.of(System.getProperty("user.home"), ".cache", "railyard", "aot") : Path.of(v);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new IllegalArgumentException("railyard.aot: cannot make the cache directory " + dir + ": " + e.getMessage(), e);
        }
        for (String entry : classpath) {
            for (String part : entry.split(File.pathSeparator)) {
                if (!part.endsWith("*") && Files.isDirectory(Path.of(part))) {
                    return new AotCache(null, null, false, "class path entry " + part
                            + " is a directory, and the JVM caches classes from jars only");
                }
            }
        }
        String key = key(java, classpath, mainClass, jvmArgs);
        String simple = mainClass.substring(mainClass.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
        Path file = dir.resolve(simple + "-" + key + ".aot");
        return new AotCache(file, dir.resolve(simple + "-" + key + "." + jobId + ".training"), Files.isRegularFile(file),
                null);
    }

    /** The JVM options of {@code rank}: start from the cache, train it (rank 0 of a first job), or none. */
    List<String> optionsFor(int rank) {
        if (unusable != null) {
            return List.of();
        }
        if (exists) {
            // JDK 25 warns on every start about adapter stubs it could not take from the cache and
            // makes anew; the job's output is no place for that (a -Xlog option of the user's, which
            // comes later on the command line, still wins)
            return List.of("-XX:AOTCache=" + file, "-Xlog:aot*=error");
        }
        return rank == 0 ? List.of("-XX:AOTCacheOutput=" + training) : List.of();
    }

    /** What the launcher says about the cache before the job starts. */
    String describe() {
        if (unusable != null) {
            return "ahead-of-time cache not used: " + unusable;
        }
        return exists ? "ahead-of-time cache: every rank starts from " + file
                : "ahead-of-time cache: rank 0 trains " + file + " during this job (later jobs start from it)";
    }

    /** After the job: keeps what rank 0 trained if the job ended well; returns what happened, or null. */
    String finish(boolean jobSucceeded) {
        if (exists || unusable != null) {
            return null;
        }
        try {
            if (!jobSucceeded || !Files.isRegularFile(training) || Files.size(training) == 0) {
                Files.deleteIfExists(training);
                return "ahead-of-time cache not kept: " + (jobSucceeded ? "rank 0 wrote none" : "the job failed");
            }
            try {
                Files.move(training, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(training, file, StandardCopyOption.REPLACE_EXISTING);
            }
            return "ahead-of-time cache kept: " + file;
        } catch (IOException e) {
            return "ahead-of-time cache not kept: " + e.getMessage();
        }
    }

    Path file() {
        return file;
    }

    /** A digest of everything the cache depends on. */
    static String key(String java, List<String> classpath, String mainClass, List<String> jvmArgs) {
        StringBuilder sb = new StringBuilder(java).append('\n').append(System.getProperty("java.vm.version")).append('\n')
                .append(mainClass).append('\n')
                .append(String.join("\u0000", jvmArgs.stream().filter(a -> !a.startsWith("-Xlog")).toList())).append('\n');
        for (String entry : classpath) {
            for (String part : entry.split(File.pathSeparator)) {
                sb.append(part);
                Path p = Path.of(part.endsWith("*") ? part.substring(0, part.length() - 1) : part);
                try {
                    if (part.endsWith("*") && Files.isDirectory(p)) {
                        try (var jars = Files.list(p)) {
                            for (Path j : jars.filter(x -> x.toString().endsWith(".jar")).sorted().toList()) {
                                sb.append('|').append(j).append(':').append(Files.size(j)).append(':')
                                        .append(Files.getLastModifiedTime(j).toMillis());
                            }
                        }
                    } else if (Files.exists(p)) {
                        sb.append(':').append(Files.size(p)).append(':').append(Files.getLastModifiedTime(p).toMillis());
                    }
                } catch (IOException e) {
                    sb.append(":unreadable");
                }
                sb.append('\n');
            }
        }
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(sb.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }
}
