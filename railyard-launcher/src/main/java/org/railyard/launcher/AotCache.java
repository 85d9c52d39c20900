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
 *       it, the ranks start without a cache (and the launcher says so when the cache was asked
 *       for by {@code on} or a directory);</li>
 *   <li>when the cache exists, every rank starts from it; when it does not, rank 0 alone trains
 *       it while the job runs (the JVM writes it at exit) into a file of its own, which becomes the
 *       cache only if the job ends well, by an atomic rename: two jobs training at once, or a job
 *       killed while writing, leave no half cache behind;</li>
 *   <li>{@code auto} (the default) keeps its caches under {@code ~/.cache/railyard/aot} and trains
 *       only at the second job of the same program (the first leaves a marker file): a program run
 *       once, or rebuilt before every run, never pays for training. It says nothing unless it
 *       trains, and a cache directory it cannot make means no cache, not an error;</li>
 *   <li>a cache a rank's JVM could not load (it says {@code [error][aot]} on stderr and runs
 *       without it) is deleted after the job, so the next job of the program trains it anew;</li>
 *   <li>a directory keeps the {@value #KEPT} caches used last; older ones are deleted when a job
 *       keeps a new one;</li>
 *   <li>the cache is local to the launcher's machine: ranks on other hosts run without it.</li>
 * </ul>
 */
final class AotCache {
    /** Caches a directory keeps (the size of one: bench/results/log/2026-11-28-0500-startup.md). */
    static final int KEPT = 8;
    /** Markers of programs seen once that a directory keeps. */
    static final int MARKERS_KEPT = 64;
    /** JVM options of a rank that starts from a cache. */
    static final List<String> START_OPTIONS_LOGGING = List.of("-Xlog:aot*=off:stdout", "-Xlog:aot*=error:stderr");

    private final Path file;
    private final Path training;
    private final boolean exists;
    private final boolean quiet;
    /** Why no cache can serve this program (the JVM caches classes from jars only), or null. */
    private final String unusable;
    /** Set when a rank said it could not load the cache. */
    private volatile boolean unloadable;

    private AotCache(Path file, Path training, boolean exists, boolean quiet, String unusable) {
        this.file = file;
        this.training = training;
        this.exists = exists;
        this.quiet = quiet;
        this.unusable = unusable;
    }

    /**
     * The cache for this program, or null when the setting is {@code off} (or {@code auto} finds
     * no use for one).
     *
     * @throws IllegalArgumentException when the directory the setting names cannot be made
     */
    static AotCache plan(String setting, String java, List<String> classpath, String mainClass, List<String> jvmArgs,
                         String jobId) {
        return plan(setting, defaultDirectory(), java, classpath, mainClass, jvmArgs, jobId);
    }

    /** {@link #plan(String, String, List, String, List, String)} with {@code on} and {@code auto} keeping caches in {@code defaultDir}. */
    static AotCache plan(String setting, Path defaultDir, String java, List<String> classpath, String mainClass,
                         List<String> jvmArgs, String jobId) {
        String v = setting == null ? "auto" : setting.trim();
        if (v.isEmpty() || v.equalsIgnoreCase("off") || v.equalsIgnoreCase("false")) {
            return null;
        }
        boolean auto = v.equalsIgnoreCase("auto");
        Path dir = auto || v.equalsIgnoreCase("on") || v.equalsIgnoreCase("true") ? defaultDir : Path.of(v);
        try {
            Files.createDirectories(dir);
        } catch (IOException | SecurityException e) {
            if (auto) {
                return null;
            }
            throw new IllegalArgumentException("railyard.aot: cannot make the cache directory " + dir + ": " + e.getMessage(), e);
        }
        for (String entry : classpath) {
            for (String part : entry.split(File.pathSeparator)) {
                if (!part.endsWith("*") && Files.isDirectory(Path.of(part))) {
                    return auto ? null : new AotCache(null, null, false, false, "class path entry " + part
                            + " is a directory, and the JVM caches classes from jars only");
                }
            }
        }
        String key = key(java, classpath, mainClass, jvmArgs);
        String simple = mainClass.substring(mainClass.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
        Path file = dir.resolve(simple + "-" + key + ".aot");
        boolean exists = Files.isRegularFile(file);
        if (exists) {
            touch(file);
        } else if (auto) {
            Path marker = dir.resolve(simple + "-" + key + ".seen");
            if (!Files.isRegularFile(marker)) {
                try {
                    Files.createFile(marker);
                } catch (IOException e) {
                    // another job marked it first, or the directory is read-only: no cache this time either way
                }
                return null;
            }
        }
        return new AotCache(file, dir.resolve(simple + "-" + key + "." + jobId + ".training"), exists, auto, null);
    }

    /** Where {@code on} and {@code auto} keep caches: $XDG_CACHE_HOME/railyard/aot, else ~/.cache/railyard/aot. */
    static Path defaultDirectory() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute() ? Path.of(xdg)
                : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("railyard").resolve("aot");
    }

    /** The JVM options of {@code rank}: start from the cache, train it (rank 0 of a first job), or none. */
    List<String> optionsFor(int rank) {
        if (unusable != null) {
            return List.of();
        }
        if (exists) {
            // JDK 25 warns on every start about adapter stubs it could not take from the cache and
            // makes anew: the job's output is no place for that. Errors (a cache it cannot load) go
            // to stderr, where the launcher looks for them (a -Xlog option of the user's, which
            // comes later on the command line, still wins)
            List<String> o = new java.util.ArrayList<>();
            o.add("-XX:AOTCache=" + file);
            o.addAll(START_OPTIONS_LOGGING);
            return o;
        }
        return rank == 0 ? List.of("-XX:AOTCacheOutput=" + training) : List.of();
    }

    /** What the launcher says about the cache before the job starts, or null: nothing to say. */
    String describe() {
        if (unusable != null) {
            return "ahead-of-time cache not used: " + unusable;
        }
        if (exists) {
            return quiet ? null : "ahead-of-time cache: every rank starts from " + file;
        }
        return "ahead-of-time cache: rank 0 trains " + file + " during this job (later jobs start from it"
                + (quiet ? "; railyard.aot=off, RAILYARD_AOT=off or --aot off disables it)" : ")");
    }

    /** {@code err} with the ranks' lines watched for the JVM's word that it could not load the cache. */
    LineSink watch(LineSink err) {
        if (!exists) {
            return err;
        }
        return (rank, line) -> {
            if (rank != LineSink.LAUNCHER && line.contains("[aot]") && line.contains("error")) {
                unloadable = true;
            }
            err.line(rank, line);
        };
    }

    /** After the job: keeps what rank 0 trained if the job ended well; returns what happened, or null. */
    String finish(boolean jobSucceeded) {
        if (unusable != null) {
            return null;
        }
        try {
            if (exists) {
                if (!unloadable) {
                    return null;
                }
                Files.deleteIfExists(file);
                return "ahead-of-time cache " + file + " could not be loaded by the ranks' JVM; deleted (the next job"
                        + " trains it anew)";
            }
            if (!jobSucceeded || !Files.isRegularFile(training) || Files.size(training) == 0) {
                Files.deleteIfExists(training);
                return "ahead-of-time cache not kept: " + (jobSucceeded ? "rank 0 wrote none" : "the job failed");
            }
            try {
                Files.move(training, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(training, file, StandardCopyOption.REPLACE_EXISTING);
            }
            Files.deleteIfExists(Path.of(file.toString().replaceFirst("\\.aot$", ".seen")));
            evict(file.getParent(), KEPT, MARKERS_KEPT);
            return "ahead-of-time cache kept: " + file;
        } catch (IOException e) {
            return "ahead-of-time cache not kept: " + e.getMessage();
        }
    }

    /**
     * Deletes all but the {@code caches} caches and {@code markers} markers of {@code dir} used
     * last (by modification time, which a job starting from a cache renews). Files of other names
     * are left alone; one that vanishes meanwhile (another job evicting) is no error.
     */
    static void evict(Path dir, int caches, int markers) throws IOException {
        for (String suffix : List.of(".aot", ".seen")) {
            List<Path> files;
            try (var list = Files.list(dir)) {
                files = list.filter(f -> f.getFileName().toString().endsWith(suffix) && Files.isRegularFile(f))
                        .sorted(java.util.Comparator.comparing(AotCache::modified).reversed()).toList();
            }
            int keep = suffix.equals(".aot") ? caches : markers;
            for (Path f : files.subList(Math.min(keep, files.size()), files.size())) {
                Files.deleteIfExists(f);
            }
        }
    }

    private static java.nio.file.attribute.FileTime modified(Path f) {
        try {
            return Files.getLastModifiedTime(f);
        } catch (IOException e) {
            return java.nio.file.attribute.FileTime.fromMillis(0);
        }
    }

    /** Marks a cache as used now, for {@link #evict}; a cache that cannot be touched is still used. */
    private static void touch(Path f) {
        try {
            Files.setLastModifiedTime(f, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis()));
        } catch (IOException e) {
            // read-only cache directory: it serves, it just ages
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
