package org.railyard.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The stage line of {@link StartupTiming} and its reading of the launch time. */
class StartupTimingTest {
    @Test
    void stagesAreMillisecondsFromTheLaunch() {
        assertThat(StartupTiming.line(3, 8, "pmi-2", 1_000_000L, 1_812_000L, 5_102_500L, 6_210_000L, 7_020_100L))
                .isEqualTo("railyard startup: rank 3 of 8 (pmi-2) ms from launch: process 812.0, init called 4102.5,"
                        + " bootstrap 5210.0, init done 6020.1");
    }

    @Test
    void marksAndStepsAreKeptOnlyWhileTimingIsOn() {
        String before = System.getProperty("railyard.startup.timing");
        try {
            System.setProperty("railyard.startup.timing", "false");
            assertThat(StartupTiming.begin()).isNull();
            StartupTiming.mark("ignored"); // no timing under way: nothing kept, nothing thrown
            System.setProperty("railyard.startup.timing", "true");
            StartupTiming t = StartupTiming.begin();
            t.bootstrapDone();
            StartupTiming.mark("binding");
            StartupTiming.step("futex", 2_500_000L);
            StartupTiming.step("timer slack", 400_000L);
            assertThat(t.stages(1, StartupTiming.nowUs())).matches("railyard startup stages: rank 1: bootstrap [0-9.]+,"
                    + " binding [0-9.]+, init done [0-9.]+; futex 2\\.5 ms, timer slack 0\\.4 ms");
        } finally {
            if (before == null) {
                System.clearProperty("railyard.startup.timing");
            } else {
                System.setProperty("railyard.startup.timing", before);
            }
        }
    }

    @Test
    void launchTimeFallsBackWhenAbsentOrNotANumber() {
        assertThat(StartupTiming.launch("1764270000123456", 5)).isEqualTo(1764270000123456L);
        assertThat(StartupTiming.launch(null, 5)).isEqualTo(5);
        assertThat(StartupTiming.launch("soon", 5)).isEqualTo(5);
    }
}
