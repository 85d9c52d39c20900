package org.railyard.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassHierarchyResolver;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Enumeration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The class files of a job's class path as its ranks define them, read once for all the ranks
 * that run as threads: the first {@link RankLoader} that asks for a class reads it from its jar
 * or directory and rewrites its exit calls ({@link ExitCalls}); every other rank defines its own
 * class from the same bytes. What is shared is bytes, never a class: each rank still defines,
 * links and initialises its own copy, so its statics stay its own.
 *
 * <p>The ranks' loaders find their resources here too (a service file, a program's data), so
 * that no rank opens the class path's jars for itself. Without it every rank opened every jar of
 * the class path on its own (each jar's directory read once per rank), and read, inflated, scanned and perhaps rewrote each class once per rank.
 * The bytes of every class a rank asked for are kept for the life of the job (ranks load classes
 * until they end), and so is the answer "not on the class path". Thread-safe: ranks that ask for
 * the same class at once wait for one read.
 */
final class RankClasses {
    /** One class file as every rank defines it, and the class path entry (jar or directory) it came from. */
    record Found(byte[] bytes, URL codeSource) {
    }

    /** Finds class files on the job's class path; never defines a class. */
    private final URLClassLoader finder;
    private final ClassHierarchyResolver hierarchy;
    private final Map<String, Slot> slots = new ConcurrentHashMap<>();
    private final AtomicLong reads = new AtomicLong();

    RankClasses(URL[] classpath) {
        finder = new URLClassLoader("rank-classes", classpath, ClassLoader.getPlatformClassLoader());
        // resolved once per class for the whole job (the class path does not change during it)
        hierarchy = ClassHierarchyResolver.ofResourceParsing(finder).orElse(ClassHierarchyResolver.defaultResolver())
                .cached(ConcurrentHashMap::new);
    }

    /**
     * Class {@code name} as a rank defines it.
     *
     * @throws ClassNotFoundException when the class path has no such class, or its file cannot be read
     * @throws ClassFormatError       when its bytes are not a class file the JDK can parse
     */
    Found find(String name) throws ClassNotFoundException {
        return slots.computeIfAbsent(name, Slot::new).get();
    }

    /** Resource {@code path} of the class path (the first entry that has it), or null. */
    URL resource(String path) {
        return finder.findResource(path);
    }

    /** Resource {@code path} in every entry of the class path that has it, in class path order. */
    Enumeration<URL> resources(String path) throws IOException {
        return finder.findResources(path);
    }

    /** The class files read so far from the class path (one per class, whatever the number of ranks). */
    long reads() {
        return reads.get();
    }

    /** One class's answer, computed by the first rank that asks and kept. */
    private final class Slot {
        private final String name;
        private Found found;
        private String missing;
        private String malformed;

        Slot(String name) {
            this.name = name;
        }

        synchronized Found get() throws ClassNotFoundException {
            if (found == null && missing == null && malformed == null) {
                load();
            }
            if (missing != null) {
                throw new ClassNotFoundException(missing);
            }
            if (malformed != null) {
                throw new ClassFormatError(malformed);
            }
            return found;
        }

        private void load() {
            String path = name.replace('.', '/') + ".class";
            URL resource = finder.findResource(path);
            if (resource == null) {
                missing = name;
                return;
            }
            byte[] bytes;
            try (InputStream in = resource.openStream()) {
                bytes = in.readAllBytes();
            } catch (IOException e) {
                missing = name + ": cannot read " + resource + ": " + e.getMessage();
                return;
            }
            reads.incrementAndGet();
            try {
                found = new Found(ExitCalls.rewrite(bytes, hierarchy), codeSource(resource, path));
            } catch (IllegalArgumentException e) {
                malformed = name + " (" + resource + "): " + e.getMessage();
            }
        }
    }

    /** The class path entry (jar or directory) that holds {@code resource}, found at {@code path} in it. */
    private static URL codeSource(URL resource, String path) {
        String s = resource.toString();
        try {
            if (s.startsWith("jar:")) {
                return URI.create(s.substring(4, s.indexOf("!/"))).toURL();
            }
            return URI.create(s.substring(0, s.length() - path.length())).toURL();
        } catch (MalformedURLException | RuntimeException e) {
            return resource;
        }
    }
}
