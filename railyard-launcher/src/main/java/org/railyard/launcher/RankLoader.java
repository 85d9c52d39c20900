package org.railyard.launcher;

import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.security.CodeSigner;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The class loader of one rank that runs as a thread: the job's class path, with the platform
 * loader as parent, so that Railyard, the program and their libraries are loaded once per rank
 * and every static field is the rank's own (as in MPJ Express's multicore device). Only the JDK
 * (the platform and boot loaders) is shared between ranks.
 *
 * <p>Every class it defines has its exit calls rewritten ({@link ExitCalls}), so that a rank's
 * {@code System.exit} ends the rank, not the JVM of all of them. The class files come from a
 * {@link RankClasses} that the job's ranks share: read and rewritten once, defined by each rank.
 */
final class RankLoader extends URLClassLoader {
    static {
        registerAsParallelCapable();
    }

    private final RankClasses classes;
    private final Map<URL, ProtectionDomain> domains = new ConcurrentHashMap<>();

    /** A loader of its own class path (its class files read for it alone). */
    RankLoader(int rank, List<String> classpath) {
        this(rank, urls(classpath), null);
    }

    /**
     * A loader of {@code classpath} that takes its class files from {@code classes}, shared with
     * the job's other ranks (null: its own).
     */
    RankLoader(int rank, URL[] classpath, RankClasses classes) {
        super("rank-" + rank, classpath, ClassLoader.getPlatformClassLoader());
        this.classes = classes != null ? classes : new RankClasses(classpath);
    }

    /** The class path entries as URLs, for {@link RankLoader} and {@link RankClasses}. */
    static URL[] urls(List<String> classpath) {
        URL[] urls = new URL[classpath.size()];
        for (int i = 0; i < urls.length; i++) {
            try {
                urls[i] = Path.of(classpath.get(i)).toAbsolutePath().toUri().toURL();
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException("class path entry '" + classpath.get(i) + "' is not a path", e);
            }
        }
        return urls;
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        RankClasses.Found found = classes.find(name);
        int dot = name.lastIndexOf('.');
        if (dot > 0) {
            String pkg = name.substring(0, dot);
            if (getDefinedPackage(pkg) == null) {
                try {
                    definePackage(pkg, null, null, null, null, null, null, null);
                } catch (IllegalArgumentException raced) {
                    // another thread of this rank defined it first
                }
            }
        }
        byte[] bytes = found.bytes();
        return defineClass(name, bytes, 0, bytes.length, domain(found.codeSource()));
    }

    /** The job's class path's resource, found once for all ranks: the same URL a loader of its own would give. */
    @Override
    public URL findResource(String name) {
        return classes.resource(name);
    }

    @Override
    public Enumeration<URL> findResources(String name) throws IOException {
        return classes.resources(name);
    }

    /** One protection domain per class path entry, whose code source is that entry (jar or directory). */
    private ProtectionDomain domain(URL base) {
        return domains.computeIfAbsent(base, u -> new ProtectionDomain(new CodeSource(u, (CodeSigner[]) null), null, this, null));
    }

    /** The entries of {@code java.class.path} of this JVM, for the ranks to load Railyard from. */
    static List<String> ownClasspath() {
        String own = System.getProperty("java.class.path", "");
        return own.isEmpty() ? List.of() : List.of(own.split(File.pathSeparator));
    }
}
