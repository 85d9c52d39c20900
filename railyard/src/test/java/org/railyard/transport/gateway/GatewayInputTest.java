package org.railyard.transport.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.railyard.wire.GatewayFrame;

/** The non-blocking cutting of a rank's gateway stream into units (frame, or cut frame and its trailer). */
class GatewayInputTest {
    private static final GatewayFrame.Address A = new GatewayFrame.Address(1, 2, 0);
    private static final GatewayFrame.Address B = new GatewayFrame.Address(3, 4, 1);

    /** A channel that hands out its bytes at most {@code step} at a time, then 0 (nothing yet) once, then ends or not. */
    private static final class Trickle implements ReadableByteChannel {
        private final byte[] bytes;
        private final int step;
        private final boolean ends;
        private int at;
        private boolean dry;

        Trickle(byte[] bytes, int step, boolean ends) {
            this.bytes = bytes;
            this.step = step;
            this.ends = ends;
        }

        @Override
        public int read(ByteBuffer dst) {
            if (at == bytes.length) {
                return ends ? -1 : 0;
            }
            if (dry) {
                dry = false;
                return 0;
            }
            dry = true;
            int n = Math.min(Math.min(step, dst.remaining()), bytes.length - at);
            dst.put(bytes, at, n);
            at += n;
            return n;
        }

        @Override public boolean isOpen() { return true; }
        @Override public void close() { }
    }

    private static void frame(ByteArrayOutputStream out, byte type, byte flags, int body) {
        byte[] b = new byte[GatewayFrame.HEADER + body];
        MemorySegment s = MemorySegment.ofArray(b);
        GatewayFrame.writeHeader(s, 0, b.length, type, flags, 7L, A.site(), A.node(), A.process(), B.site(), B.node(),
                B.process());
        for (int i = GatewayFrame.HEADER; i < b.length; i++) {
            b[i] = (byte) i;
        }
        out.writeBytes(b);
    }

    /** Each unit seen: its type, its body length, and its trailer's type (0: none). */
    private static final class Seen implements GatewayInput.Consumer {
        final List<String> units = new ArrayList<>();
        int refuse;

        @Override
        public boolean unit(MemorySegment seg, long off, GatewayFrame.Header h, long toff, GatewayFrame.Header t) {
            if (refuse > 0) {
                refuse--;
                return false;
            }
            units.add(GatewayFrame.typeName(h.type()) + "/" + h.bodyLength() + (t == null ? "" : "+" + GatewayFrame.typeName(t.type())));
            return true;
        }
    }

    @Test
    void unitsComeWholeHoweverTheBytesTrickleIn() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        frame(out, GatewayFrame.DATA, (byte) 0, 49);
        frame(out, GatewayFrame.DATA, GatewayFrame.FLAG_CUT, 100_000);
        frame(out, GatewayFrame.END, (byte) 0, 0);
        frame(out, GatewayFrame.UNREACHABLE, (byte) 0, 12);
        frame(out, GatewayFrame.DATA, GatewayFrame.FLAG_CUT, 70_000);
        frame(out, GatewayFrame.ABORT, (byte) 0, 30);
        GatewayInput in = new GatewayInput(256 * 1024);
        Trickle ch = new Trickle(out.toByteArray(), 997, false);
        Seen seen = new Seen();
        int units = 0;
        for (int i = 0; i < 10_000 && seen.units.size() < 4; i++) {
            units += in.pump(ch, seen);
        }
        assertThat(units).isEqualTo(4);
        assertThat(seen.units).containsExactly("DATA/49", "DATA/100000+END", "UNREACHABLE/12", "DATA/70000+ABORT");
    }

    @Test
    void aRefusedUnitStaysWithEverythingBehindItUntilTheNextPump() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        frame(out, GatewayFrame.DATA, (byte) 0, 60);
        frame(out, GatewayFrame.DATA, (byte) 0, 61);
        GatewayInput in = new GatewayInput(4096);
        Trickle ch = new Trickle(out.toByteArray(), 1 << 20, false);
        Seen seen = new Seen();
        seen.refuse = 1;
        assertThat(in.pump(ch, seen)).isZero();
        assertThat(in.stuck()).isTrue();
        assertThat(seen.units).isEmpty();
        int units = 0;
        for (int i = 0; i < 4 && seen.units.size() < 2; i++) {
            units += in.pump(ch, seen);
        }
        assertThat(units).isEqualTo(2);
        assertThat(in.stuck()).isFalse();
        assertThat(seen.units).containsExactly("DATA/60", "DATA/61");
    }

    @Test
    void bytesReadAheadByTheHandshakeComeFirst() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        frame(out, GatewayFrame.DATA, (byte) 0, 50);
        frame(out, GatewayFrame.DATA, (byte) 0, 51);
        byte[] all = out.toByteArray();
        int split = GatewayFrame.HEADER + 50 + 13;
        GatewayInput in = new GatewayInput(4096);
        in.prime(java.util.Arrays.copyOf(all, split));
        Seen seen = new Seen();
        Trickle ch = new Trickle(java.util.Arrays.copyOfRange(all, split, all.length), 1 << 20, false);
        int units = 0;
        for (int i = 0; i < 4 && seen.units.size() < 2; i++) {
            units += in.pump(ch, seen);
        }
        assertThat(units).isEqualTo(2);
        assertThat(seen.units).containsExactly("DATA/50", "DATA/51");
    }

    @Test
    void theStreamEndingInsideAFrameOrAForeignHeaderIsAnError() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        frame(out, GatewayFrame.DATA, (byte) 0, 80);
        byte[] torn = java.util.Arrays.copyOf(out.toByteArray(), GatewayFrame.HEADER + 20);
        assertThatThrownBy(() -> {
            GatewayInput in = new GatewayInput(4096);
            Trickle ch = new Trickle(torn, 1 << 20, true);
            for (int i = 0; i < 4; i++) {
                in.pump(ch, new Seen());
            }
        }).isInstanceOf(EOFException.class).hasMessageContaining("inside a frame");
        byte[] foreign = out.toByteArray();
        foreign[GatewayFrame.MAGIC_OFFSET] = 'X';
        assertThatThrownBy(() -> new GatewayInput(4096).pump(new Trickle(foreign, 1 << 20, false), new Seen()))
                .isInstanceOf(IOException.class).hasMessageContaining("magic");
    }
}
