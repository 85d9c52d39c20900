package org.railyard.apps.obstacle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code --kill RANK:AFTER}: what it accepts, what it refuses, and who it leaves alone (the kill itself: RankRestartSystemTest). */
class SelfKillTest {
    @Test
    void parsesRankAndIterations() {
        assertThat(SelfKill.parse("2:30")).isEqualTo(new SelfKill(2, 30));
        assertThat(SelfKill.parse(" 0 : 0 ")).isEqualTo(new SelfKill(0, 0));
    }

    @Test
    void badSpecsAreRefusedNamingTheOptionAndTheText() {
        for (String bad : List.of("2", "2:", ":3", "a:3", "2:b", "-1:3", "2:-3", "1:2:3", "")) {
            assertThatThrownBy(() -> SelfKill.parse(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("--kill must be RANK:AFTER_ITERATIONS").hasMessageContaining("'" + bad + "'");
        }
        assertThatThrownBy(() -> ObstacleDemo.Options.parse(new String[] {"--kill", "x"}))
                .hasMessageContaining("--kill must be RANK:AFTER_ITERATIONS");
    }

    @Test
    void anotherRankKeepsItsListenerAndARunStartedAgainSaysWhenItIsBackInsteadOfDying() {
        List<Integer> seen = new ArrayList<>();
        ProgressListener next = (iteration, residual) -> seen.add(iteration);
        SelfKill kill = new SelfKill(2, 10);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        assertThat(kill.around(next, 1, 0, err)).isSameAs(next);
        ProgressListener again = kill.around(next, 2, 1, err);
        again.onCheck(5, 1.0);
        again.onCheck(10, 0.5);
        again.onCheck(15, 0.25);
        assertThat(seen).containsExactly(5, 10, 15);
        String said = bytes.toString(StandardCharsets.UTF_8);
        assertThat(said).contains("rank 2 (run 2) back past iteration 10 at ");
        assertThat(said.lines().count()).isEqualTo(1);
    }
}
