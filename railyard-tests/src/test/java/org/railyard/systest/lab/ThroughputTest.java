package org.railyard.systest.lab;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * A test whose assertions are throughputs of a lab's links: it needs an idle machine, so it runs
 * only when asked for with {@code RAILYARD_LAB_PERF=1} (bench/lab/run.sh measures the same figures).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Test
@EnabledIfEnvironmentVariable(named = "RAILYARD_LAB_PERF", matches = "1",
        disabledReason = "throughput assertions need an idle machine: run with RAILYARD_LAB_PERF=1, or bench/lab/run.sh")
@interface ThroughputTest {
}
