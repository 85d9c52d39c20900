package org.railyard.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** A waiter's first park sets its thread's timer slack to railyard.idle.timerslack, and only its thread's. */
@EnabledOnOs(OS.LINUX)
class TimerSlackTest {
    @AfterEach
    void clear() {
        System.clearProperty(Config.IDLE_TIMER_SLACK_PROP);
    }

    /** Runs on a new thread: its slack set to 50 us, one park of {@code idle}, and the slack before and after. */
    private static long[] parkOnce(BackoffIdle idle) throws InterruptedException {
        AtomicLongArray seen = new AtomicLongArray(3);
        Thread t = new Thread(() -> {
            seen.set(0, TimerSlack.set(50_000) ? 1 : 0);
            seen.set(1, TimerSlack.current());
            idle.idle(0);
            seen.set(2, TimerSlack.current());
        });
        t.start();
        t.join(10_000);
        assertThat(t.isAlive()).isFalse();
        assertThat(seen.get(0)).as("prctl(PR_SET_TIMERSLACK) works here").isEqualTo(1);
        return new long[] {seen.get(1), seen.get(2)};
    }

    @Test
    void theFirstParkSetsTheThreadsSlack() throws InterruptedException {
        assertThat(TimerSlack.set(30_000)).isTrue();
        long[] slack = parkOnce(new BackoffIdle(0, 0, 1000, 1000));
        assertThat(slack[0]).isEqualTo(50_000);
        assertThat(slack[1]).isEqualTo(Config.IDLE_TIMER_SLACK_DEFAULT);
        // the thread that ran the test is not touched
        assertThat(TimerSlack.current()).isEqualTo(30_000);
    }

    @Test
    void theSettingChoosesTheSlackAndZeroLeavesItAlone() throws InterruptedException {
        System.setProperty(Config.IDLE_TIMER_SLACK_PROP, "20000");
        assertThat(parkOnce(new BackoffIdle(0, 0, 1000, 1000))[1]).isEqualTo(20_000);
        System.setProperty(Config.IDLE_TIMER_SLACK_PROP, "0");
        assertThat(parkOnce(new BackoffIdle(0, 0, 1000, 1000))[1]).isEqualTo(50_000);
    }

    @Test
    void spinsAndYieldsDoNotTouchTheSlack() throws InterruptedException {
        // one idle call of an instance that still has spins to do: no park, no slack change
        assertThat(parkOnce(new BackoffIdle(5, 5, 1000, 1000))[1]).isEqualTo(50_000);
    }
}
