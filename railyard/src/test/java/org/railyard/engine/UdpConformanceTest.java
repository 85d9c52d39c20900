package org.railyard.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.railyard.stack.SeededFaults;

/**
 * The point-to-point conformance suite ({@link PointToPointTest}, every case, as written for shm
 * and tcp) over transport "udp", with a seeded layer under every stack that drops 5% of the
 * datagrams, holds 5% back behind the next one and duplicates 1%: the composed reliable stack
 * must make all of it invisible to the engine.
 */
class UdpConformanceTest {
    private static final String FAULTS = "org.railyard.stack.SeededFaults:drop=0.05,reorder=0.05,dup=0.01,seed=";

    @BeforeAll
    static void counters() {
        SeededFaults.DROPPED_EVERYWHERE.set(0);
        SeededFaults.REORDERED_EVERYWHERE.set(0);
    }

    @AfterAll
    static void theFaultsReallyHappened() {
        assertThat(SeededFaults.DROPPED_EVERYWHERE.get()).as("datagrams dropped under the stacks").isGreaterThan(50);
        assertThat(SeededFaults.REORDERED_EVERYWHERE.get()).as("datagrams reordered under the stacks").isGreaterThan(50);
    }

    @TestFactory
    Stream<DynamicTest> thePointToPointSuitePassesOverUdpWithLossAndReordering() {
        PointToPointTest suite = new PointToPointTest();
        return Arrays.stream(PointToPointTest.class.getDeclaredMethods())
                .filter(m -> m.isAnnotationPresent(ParameterizedTest.class))
                .sorted(Comparator.comparing(Method::getName))
                .map(m -> DynamicTest.dynamicTest(m.getName() + " [udp, 5% loss, 5% reorder, 1% dup]", () -> {
                    String old = System.getProperty("railyard.stack.inject");
                    System.setProperty("railyard.stack.inject", FAULTS + Math.abs(m.getName().hashCode()));
                    try {
                        m.setAccessible(true);
                        m.invoke(suite, "udp");
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    } finally {
                        if (old == null) {
                            System.clearProperty("railyard.stack.inject");
                        } else {
                            System.setProperty("railyard.stack.inject", old);
                        }
                    }
                }));
    }
}
