package org.railyard.launcher;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassHierarchyResolver;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.security.CodeSigner;
import java.security.CodeSource;
import java.security.ProtectionDomain;
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
 * {@code System.exit} ends the rank, not the JVM of all of them.
 */
final class RankLoader extends URLClassLoader {
    static {
        registerAsParallelCapable();
    }

    private final ClassHierarchyResolver hierarchy;
    private final Map<URL, ProtectionDomain> domains = new ConcurrentHashMap<>();

    RankLoader(int rank, List<String> classpath) {
        super("rank-" + rank, urls(classpath), ClassLoader.getPlatformClassLoader());
        this.hierarchy = ClassHierarchyResolver.ofResourceParsing(this).orElse(ClassHierarchyResolver.defaultResolver());
    }

    private static URL[] urls(List<String> classpath) {
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
        String path = name.replace('.', '/') + ".class";
        URL resource = findResource(path);
        if (resource == null) {
            throw new ClassNotFoundException(name);
        }
        byte[] bytes;
        try (InputStream in = resource.openStream()) {
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new ClassNotFoundException(name + ": cannot read " + resource + ": " + e.getMessage(), e);
        }
        try {
            bytes = ExitCalls.rewrite(bytes, hierarchy);
        } catch (IllegalArgumentException e) {
            throw new ClassFormatError(name + " (" + resource + "): " + e.getMessage());
        }
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
        return defineClass(name, bytes, 0, bytes.length, domain(resource, path));
    }

    /** One protection domain per class path entry, whose code source is that entry (jar or directory). */
    private ProtectionDomain domain(URL resource, String path) {
        String s = resource.toString();
        URL base;
        try {
            if (s.startsWith("jar:")) {
                base = URI.create(s.substring(4, s.indexOf("!/"))).toURL();
            } else {
                base = URI.create(s.substring(0, s.length() - path.length())).toURL();
            }
        } catch (MalformedURLException | RuntimeException e) {
            base = resource;
        }
        return domains.computeIfAbsent(base, u -> new ProtectionDomain(new CodeSource(u, (CodeSigner[]) null), null, this, null));
    }

    /** The entries of {@code java.class.path} of this JVM, for the ranks to load Railyard from. */
    static List<String> ownClasspath() {
        String own = System.getProperty("java.class.path", "");
        return own.isEmpty() ? List.of() : List.of(own.split(File.pathSeparator));
    }
}
