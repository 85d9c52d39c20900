package org.railyard.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The class loader of a rank that runs as a thread: its own copy of every class of the class path
 * (statics per rank), and exits that end the rank instead of this JVM (if the rewriting failed,
 * the test JVM would exit and the run would fail).
 */
class RankLoaderTest {
    private static RankLoader loader(int rank) {
        return new RankLoader(rank, RankLoader.ownClasspath());
    }

    @ParameterizedTest
    @ValueSource(strings = {"systemExit", "runtimeExit", "halt"})
    void anExitCallEndsTheCallerWithItsStatusAndTellsTheHook(String method) throws Exception {
        try (RankLoader l = loader(0)) {
            Class<?> program = Class.forName(ExitingProgram.class.getName(), true, l);
            assertThat(program).isNotSameAs(ExitingProgram.class);
            List<Integer> heard = new ArrayList<>();
            Class<?> exit = Class.forName(RankExit.class.getName(), true, l);
            exit.getMethod("setHook", IntConsumer.class).invoke(null, (IntConsumer) heard::add);
            Method m = program.getMethod(method, int.class);
            Throwable t = catchThrowable(() -> m.invoke(null, 7));
            assertThat(t).isInstanceOf(InvocationTargetException.class);
            Throwable cause = t.getCause();
            assertThat(cause.getClass().getName()).isEqualTo(RankExit.class.getName());
            assertThat(cause.getClass()).as("the rank's own copy of RankExit").isNotSameAs(RankExit.class);
            assertThat(cause.getClass().getMethod("status").invoke(cause)).isEqualTo(7);
            assertThat(heard).containsExactly(7);
        }
    }

    @Test
    void eachRankHasItsOwnStatics() throws Exception {
        try (RankLoader a = loader(0); RankLoader b = loader(1)) {
            Method bumpA = Class.forName(ExitingProgram.class.getName(), true, a).getMethod("bump");
            Method bumpB = Class.forName(ExitingProgram.class.getName(), true, b).getMethod("bump");
            assertThat(bumpA.invoke(null)).isEqualTo(1);
            assertThat(bumpA.invoke(null)).isEqualTo(2);
            assertThat(bumpB.invoke(null)).isEqualTo(1);
            Class<?> configA = Class.forName("org.railyard.util.Config", false, a);
            assertThat(configA).isNotSameAs(Class.forName("org.railyard.util.Config", false, b));
            assertThat(configA.getClassLoader()).isSameAs(a);
        }
    }

    @Test
    void ranksOfOneJobReadEachClassOnceAndStillDefineTheirOwn() throws Exception {
        java.net.URL[] urls = RankLoader.urls(RankLoader.ownClasspath());
        RankClasses classes = new RankClasses(urls);
        try (RankLoader a = new RankLoader(0, urls, classes); RankLoader b = new RankLoader(1, urls, classes)) {
            Class<?> inA = Class.forName(ExitingProgram.class.getName(), true, a);
            long read = classes.reads();
            assertThat(read).as("ExitingProgram and what it needs, read for rank 0").isPositive();
            Class<?> inB = Class.forName(ExitingProgram.class.getName(), true, b);
            assertThat(classes.reads()).as("rank 1 defines from the bytes rank 0 read").isEqualTo(read);
            assertThat(inB).isNotSameAs(inA);
            assertThat(inB.getClassLoader()).isSameAs(b);
            assertThat(inA.getMethod("bump").invoke(null)).isEqualTo(1);
            assertThat(inA.getMethod("bump").invoke(null)).isEqualTo(2);
            assertThat(inB.getMethod("bump").invoke(null)).as("rank 1's own static").isEqualTo(1);
            // the rewritten exit calls are shared too, and still reach each rank's own RankExit
            List<Integer> heard = new ArrayList<>();
            Class<?> exitB = Class.forName(RankExit.class.getName(), true, b);
            exitB.getMethod("setHook", IntConsumer.class).invoke(null, (IntConsumer) heard::add);
            Throwable t = catchThrowable(() -> inB.getMethod("systemExit", int.class).invoke(null, 5));
            assertThat(t.getCause().getClass()).isSameAs(exitB);
            assertThat(heard).containsExactly(5);
            // each class's code source is its class path entry, as a URLClassLoader gives it
            java.net.URL where = inA.getProtectionDomain().getCodeSource().getLocation();
            assertThat(where).isEqualTo(ExitingProgram.class.getProtectionDomain().getCodeSource().getLocation());
            assertThat(inB.getProtectionDomain()).isNotSameAs(inA.getProtectionDomain());
        }
    }

    @Test
    void ranksFindTheClassPathsResourcesAsALoaderOfTheirOwnWould() throws Exception {
        java.net.URL[] urls = RankLoader.urls(RankLoader.ownClasspath());
        RankClasses classes = new RankClasses(urls);
        String service = "META-INF/services/org.railyard.transport.Transport";
        try (RankLoader a = new RankLoader(0, urls, classes); RankLoader b = new RankLoader(1, urls, classes);
             java.net.URLClassLoader own = new java.net.URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
            assertThat(a.getResource(service)).isNotNull().isEqualTo(own.getResource(service)).isEqualTo(b.getResource(service));
            assertThat(java.util.Collections.list(a.getResources(service)))
                    .isEqualTo(java.util.Collections.list(own.getResources(service)));
            assertThat(a.getResource("no/such/resource")).isNull();
            try (RankLoader noPathOfItsOwn = new RankLoader(2, new java.net.URL[0], classes)) {
                assertThat(noPathOfItsOwn.getResource(service)).as("found through the job's RankClasses")
                        .isEqualTo(own.getResource(service));
            }
            // the providers a rank finds are its own classes
            Class<?> transport = Class.forName("org.railyard.transport.Transport", false, a);
            List<Class<?>> providers = java.util.ServiceLoader.load(transport, a).stream()
                    .<Class<?>>map(java.util.ServiceLoader.Provider::type).toList();
            assertThat(providers).isNotEmpty().allMatch(c -> c.getClassLoader() == a);
        }
    }

    @Test
    void aClassMissingFromTheClassPathIsNotFoundInEveryRank() throws Exception {
        java.net.URL[] urls = RankLoader.urls(RankLoader.ownClasspath());
        RankClasses classes = new RankClasses(urls);
        try (RankLoader a = new RankLoader(0, urls, classes); RankLoader b = new RankLoader(1, urls, classes)) {
            for (RankLoader l : List.of(a, b, a)) {
                assertThat(catchThrowable(() -> Class.forName("org.railyard.NoSuchClass", false, l)))
                        .isInstanceOf(ClassNotFoundException.class).hasMessageContaining("org.railyard.NoSuchClass");
            }
        }
    }

    @Test
    void aClassWithoutExitCallsIsLeftAsItIs() throws Exception {
        byte[] bytes;
        try (var in = RankLoaderTest.class.getResourceAsStream("JobSpec.class")) {
            bytes = in.readAllBytes();
        }
        assertThat(ExitCalls.rewrite(bytes, java.lang.classfile.ClassHierarchyResolver.defaultResolver())).isSameAs(bytes);
    }
}
