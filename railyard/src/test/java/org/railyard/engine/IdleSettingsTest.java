package org.railyard.engine;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.util.Config;

/** A malformed railyard.idle.timerslack fails the engine's start with a message naming it, not a wait later. */
class IdleSettingsTest {
    @AfterEach
    void clear() {
        System.clearProperty(Config.IDLE_TIMER_SLACK_PROP);
    }

    @ParameterizedTest
    @ValueSource(strings = {"soon", "-5"})
    void aMalformedTimerSlackFailsTheStart(String value) {
        System.setProperty(Config.IDLE_TIMER_SLACK_PROP, value);
        assertThatThrownBy(() -> InMemoryJob.run(1, "shm", e -> { }))
                .hasStackTraceContaining("railyard.idle.timerslack").hasStackTraceContaining(value);
    }
}
