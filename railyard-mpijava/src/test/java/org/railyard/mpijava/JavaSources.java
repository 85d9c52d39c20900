package org.railyard.mpijava;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Builds a user's jar the way a user would: compiles {@code .java} files of package {@code mpi}
 * programs with javac against a class path (this module's classes, or another implementation's
 * jar), and packs the classes into a jar.
 */
final class JavaSources {
    private JavaSources() {
    }

    /** Compiles {@code sources} against {@code classpath} into a fresh directory under {@code work}, then jars it. */
    static Path compileToJar(List<Path> sources, String classpath, Path work, String name) throws IOException {
        Path classes = Files.createDirectories(work.resolve(name + "-classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertThat(javac).as("a JDK with javac runs the tests").isNotNull();
        List<String> args = new ArrayList<>(List.of("-nowarn", "-encoding", "UTF-8", "-cp", classpath, "-d", classes.toString()));
        sources.forEach(s -> args.add(s.toString()));
        StringWriter errors = new StringWriter();
        int rc = javac.run(null, null, new java.io.PrintStream(OutputStream.nullOutputStream()) {
            @Override
            public void write(byte[] b, int off, int len) {
                errors.write(new String(b, off, len, java.nio.charset.StandardCharsets.UTF_8));
            }
        }, args.toArray(String[]::new));
        assertThat(rc).as("javac %s:%n%s", sources, errors).isZero();
        Path jar = work.resolve(name + ".jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
        }
        return jar;
    }

    /** This module's compiled {@code mpi} classes (and what they need), as the test JVM sees them. */
    static String facadeClasspath() {
        return System.getProperty("java.class.path");
    }
}
