package org.railyard.engine.rma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.types.Kind;
import org.railyard.wire.RmaHeader;

/**
 * Puts above 256 bytes in the origin's batch ({@link Outbound#batchInline}, engine services
 * faked): a window of 64 puts of 1 KiB and its flush leave as a few header messages, every record
 * in issue order with its data, and no data message; data above the bound
 * ({@value Rma#INLINE_PROP}) is refused, so its caller sends it apart; the setting moves the bound
 * and a value outside its range fails naming it.
 */
class OutboundBatchedDataTest {
    private static final Shape BYTES = Shape.of(Kind.BYTE);

    @AfterEach
    void clearSetting() {
        System.clearProperty(Rma.INLINE_PROP);
    }

    @Test
    void aWindowOfKibPutsLeavesAsAFewHeaderMessagesWithEveryRecordInOrder() {
        RecordingServices s = new RecordingServices();
        Outbound out = new Outbound(null, s, null, 2);
        int puts = 64;
        int len = 1024;
        for (int i = 0; i < puts; i++) {
            byte[] data = new byte[len];
            java.util.Arrays.fill(data, (byte) i);
            assertThat(out.batchInline(1, RmaHeader.OP_PUT, Kind.BYTE, 0, (long) len * i, len, len, data, 0, BYTES, BYTES))
                    .as("put %d of %d bytes joins the batch", i, len).isTrue();
        }
        out.locked(() -> {
            out.startFlush(1);
            return null;
        });
        assertThat(s.posted).as("only sends, and no data message").allMatch(p -> p.send() && p.tag() == Target.TAG_HDR);
        int perRecord = RmaHeader.inlineRecordLongs(len);
        int perBatch = RmaHeader.BATCH_LONGS / perRecord;
        assertThat(s.posted).as("messages for %d puts of %d bytes and a flush", puts, len)
                .hasSize((puts + perBatch - 1) / perBatch);
        int put = 0;
        for (RecordingServices.Posted p : s.posted) {
            long[] m = (long[]) p.buf();
            int at = 0;
            while (at < p.count()) {
                long[] h = java.util.Arrays.copyOfRange(m, at, at + RmaHeader.LONGS);
                if (RmaHeader.op(h) == RmaHeader.OP_FLUSH) {
                    assertThat(put).as("the flush follows every put").isEqualTo(puts);
                    at += RmaHeader.LONGS;
                    continue;
                }
                assertThat(RmaHeader.op(h)).isEqualTo(RmaHeader.OP_PUT);
                assertThat(RmaHeader.inline(h)).isTrue();
                assertThat(RmaHeader.disp(h)).as("record %d's place", put).isEqualTo((long) len * put);
                assertThat(RmaHeader.values(h)).isEqualTo(len);
                byte first = (byte) (m[at + RmaHeader.LONGS] & 0xFF);
                byte last = (byte) (m[at + RmaHeader.recordLongs(h, 1) - 1] >>> 56);
                assertThat(first).as("record %d's first byte", put).isEqualTo((byte) put);
                assertThat(last).as("record %d's last byte", put).isEqualTo((byte) put);
                at += RmaHeader.recordLongs(h, 1);
                put++;
            }
        }
        assertThat(put).isEqualTo(puts);
    }

    @Test
    void dataAboveTheBoundIsRefusedAndTheSettingMovesTheBound() {
        Outbound dflt = new Outbound(null, new RecordingServices(), null, 2);
        byte[] data = new byte[RmaHeader.MAX_INLINE_BYTES + 1];
        assertThat(dflt.batchInline(1, RmaHeader.OP_PUT, Kind.BYTE, 0, 0, RmaHeader.INLINE_BYTES, RmaHeader.INLINE_BYTES,
                data, 0, BYTES, BYTES)).as("a put of the default bound").isTrue();
        assertThat(dflt.batchInline(1, RmaHeader.OP_PUT, Kind.BYTE, 0, 0, RmaHeader.INLINE_BYTES + 1,
                RmaHeader.INLINE_BYTES + 1, data, 0, BYTES, BYTES)).as("a put past it").isFalse();

        System.setProperty(Rma.INLINE_PROP, "256");
        Outbound small = new Outbound(null, new RecordingServices(), null, 2);
        assertThat(small.batchInline(1, RmaHeader.OP_PUT, Kind.BYTE, 0, 0, 256, 256, data, 0, BYTES, BYTES)).isTrue();
        assertThat(small.batchInline(1, RmaHeader.OP_PUT, Kind.BYTE, 0, 0, 257, 257, data, 0, BYTES, BYTES)).isFalse();

        System.setProperty(Rma.INLINE_PROP, String.valueOf(RmaHeader.MAX_INLINE_BYTES + 1));
        assertThatThrownBy(() -> new Outbound(null, new RecordingServices(), null, 2))
                .isInstanceOf(RailyardException.class)
                .hasMessageContaining(Rma.INLINE_PROP)
                .hasMessageContaining(String.valueOf(RmaHeader.MAX_INLINE_BYTES))
                .satisfies(e -> assertThat(((RailyardException) e).errorClass()).isEqualTo(ErrorClass.ARG));
    }

    /**
     * A window of many members keeps its targets' receives within a bound: its header messages
     * are shorter ({@link RmaHeader#batchLongs}, the same at every member), no batch the origin
     * sends is longer, and the inline bound shrinks so that the longest record still fits one.
     */
    @Test
    void aWindowOfManyMembersSendsShorterBatchesAndInlinesLess() {
        assertThat(RmaHeader.batchLongs(2)).isEqualTo(RmaHeader.BATCH_LONGS);
        assertThat(RmaHeader.batchLongs(128)).isEqualTo(RmaHeader.BATCH_LONGS);
        assertThat(RmaHeader.batchLongs(256)).isEqualTo(RmaHeader.BATCH_LONGS / 2);
        assertThat(RmaHeader.batchLongs(1024)).isEqualTo(RmaHeader.MIN_BATCH_LONGS);
        assertThat(RmaHeader.batchLongs(1 << 20)).isEqualTo(RmaHeader.MIN_BATCH_LONGS);
        for (int members : new int[] {1, 2, 100, 129, 200, 1000, 5000}) {
            assertThat((long) members * Math.min(RmaHeader.batchLongs(members), RmaHeader.BATCH_LONGS))
                    .as("a target's receives over %d members, in longs", members)
                    .isLessThanOrEqualTo(Math.max(RmaHeader.WINDOW_BATCH_BUDGET_LONGS, (long) members * RmaHeader.MIN_BATCH_LONGS));
        }

        int members = 1024;
        int cap = RmaHeader.batchLongs(members);
        RecordingServices s = new RecordingServices();
        Outbound out = new Outbound(null, s, null, members);
        assertThat(out.inlineBytes).as("the inline bound of a window of %d", members)
                .isEqualTo(8 * (cap - 2 * RmaHeader.LONGS)).isLessThan(RmaHeader.INLINE_BYTES);
        byte[] data = new byte[RmaHeader.INLINE_BYTES];
        assertThat(out.batchInline(7, RmaHeader.OP_PUT, Kind.BYTE, 0, 0, out.inlineBytes + 1, out.inlineBytes + 1, data, 0,
                BYTES, BYTES)).as("a put past the window's bound goes apart").isFalse();
        int puts = 40;
        for (int i = 0; i < puts; i++) {
            assertThat(out.batchInline(7, RmaHeader.OP_PUT, Kind.BYTE, 0, 0, out.inlineBytes, out.inlineBytes, data, 0,
                    BYTES, BYTES)).isTrue();
        }
        out.locked(() -> {
            out.startFlush(7);
            return null;
        });
        assertThat(s.posted).as("one header message per record of the window's bound, then its flush")
                .hasSize(puts).allSatisfy(p -> assertThat(p.count()).isLessThanOrEqualTo(cap));
    }
}
