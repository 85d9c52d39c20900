package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/** A job of one, started without relays: nothing to restore, and a checkpoint is refused saying what it needs. */
class CheckpointRefusalTest {
    @Test
    void withoutRelaysInReplayModeACheckpointIsRefusedAndThereIsNothingToRestore() {
        try (Railyard ry = Railyard.init()) {
            assertThat(ry.restore()).isEmpty();
            assertThatThrownBy(() -> ry.checkpoint(new byte[] {1})).isInstanceOf(RailyardException.class)
                    .satisfies(e -> assertThat(((RailyardException) e).errorClass()).isEqualTo(ErrorClass.ARG))
                    .hasMessageContaining("a checkpoint needs relays in replay mode and a checkpoint directory")
                    .hasMessageContaining("railyard run --relays N --restart M");
            assertThatThrownBy(() -> ry.checkpoint(null)).isInstanceOf(RailyardException.class)
                    .hasMessageContaining("checkpoint state is null");
        }
    }
}
