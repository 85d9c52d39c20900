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
    void aClassWithoutExitCallsIsLeftAsItIs() throws Exception {
        byte[] bytes;
        try (var in = RankLoaderTest.class.getResourceAsStream("JobSpec.class")) {
            bytes = in.readAllBytes();
        }
        assertThat(ExitCalls.rewrite(bytes, java.lang.classfile.ClassHierarchyResolver.defaultResolver())).isSameAs(bytes);
    }
}
