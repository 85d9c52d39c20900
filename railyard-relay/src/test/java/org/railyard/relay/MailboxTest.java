package org.railyard.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Channel Memory of one destination: its queues, its arrival order, its acknowledgements. */
class MailboxTest {
    private static Mailbox.Message msg(int source, long seq, boolean control) {
        return new Mailbox.Message(source, seq, control, new byte[] {(byte) source, (byte) seq});
    }

    private static List<String> deliverAll(Mailbox box) {
        List<String> out = new ArrayList<>();
        for (Mailbox.Message m = box.nextUndelivered(); m != null; m = box.nextUndelivered()) {
            out.add(m.source + ":" + m.sequence);
        }
        return out;
    }

    @Test
    void controlQueueDataQueuePerSourceAndArrivalOrder() {
        Mailbox box = new Mailbox(3, 4);
        box.add(msg(0, 1, false));
        box.add(msg(1, 1, true));
        box.add(msg(2, 1, false));
        box.add(msg(0, 2, true));
        box.add(msg(1, 2, false));
        assertThat(box.firstDataFrom(0).sequence).isEqualTo(1);
        assertThat(box.firstDataFrom(1).sequence).isEqualTo(2);
        assertThat(box.firstDataFrom(3)).isNull();
        assertThat(box.firstControl().source).isEqualTo(1);
        assertThat(deliverAll(box)).containsExactly("0:1", "1:1", "2:1", "0:2", "1:2");
        assertThat(box.count()).isEqualTo(5);
        assertThat(box.bytes()).isEqualTo(10);
    }

    @Test
    void acknowledgementsRemoveOnlyWhatWasDeliveredAndARewindReplaysTheRestInArrivalOrder() {
        Mailbox box = new Mailbox(0, 3);
        box.add(msg(1, 1, false));
        box.add(msg(2, 1, true));
        box.add(msg(1, 2, false));
        box.add(msg(2, 2, false));
        assertThat(box.nextUndelivered().sequence).isEqualTo(1); // 1:1 handed out, the rest not
        List<Mailbox.Message> removed = new ArrayList<>();
        box.acknowledge(1, 2, true, removed::add);
        assertThat(removed).extracting(m -> m.sequence).containsExactly(1L); // 1:2 was never handed out
        assertThat(deliverAll(box)).containsExactly("2:1", "1:2", "2:2");
        box.acknowledge(2, 1, true, removed::add);
        assertThat(box.firstControl()).isNull();
        box.rewind();
        assertThat(deliverAll(box)).containsExactly("1:2", "2:2");
        box.acknowledge(1, 99, true, removed::add);
        box.acknowledge(2, 99, true, removed::add);
        assertThat(box.count()).isZero();
        assertThat(box.hasUndelivered()).isFalse();
        box.add(msg(1, 3, false));
        assertThat(deliverAll(box)).containsExactly("1:3");
    }

    @Test
    void sequencesMustFollowEachOtherPerSource() {
        Mailbox box = new Mailbox(0, 2);
        box.add(msg(1, 1, false));
        assertThatThrownBy(() -> box.add(msg(1, 3, false))).hasMessageContaining("message 3 from rank 1 after 1");
        box.mark(1, 7);
        assertThat(box.highest(1)).isEqualTo(7);
        box.add(msg(1, 8, false));
        assertThat(box.highest(1)).isEqualTo(8);
    }
}
