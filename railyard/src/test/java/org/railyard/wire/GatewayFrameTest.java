package org.railyard.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.railyard.fuzz.Fuzz;

/**
 * The gateway's routing header: what is written reads back the same; a foreign, malformed or
 * truncated frame is an IOException naming the fault; and arbitrary bytes (corpus
 * {@code fuzz/gateway-frame/} plus a seeded budget) never end otherwise.
 */
class GatewayFrameTest {
    private static final int MAX_BODY = 1 << 20;
    private static final long JOB = GatewayFrame.jobId("job-7");
    private static final GatewayFrame.Address EAST_2 =
            new GatewayFrame.Address(GatewayFrame.siteId("east"), GatewayFrame.nodeId("n1"), 2);
    private static final GatewayFrame.Address WEST_5 =
            new GatewayFrame.Address(GatewayFrame.siteId("west"), GatewayFrame.nodeId("n9"), 5);

    private static byte[] frame(byte type, byte flags, long job, GatewayFrame.Address src, GatewayFrame.Address dst,
                                byte[] body) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        GatewayFrame.write(new DataOutputStream(b), new byte[GatewayFrame.HEADER], type, flags, job, src, dst, body);
        return b.toByteArray();
    }

    /** Reads one frame as a gateway would: header, body, and the HELLO's own checks. */
    private static GatewayFrame.Header decode(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        GatewayFrame.Frame f = GatewayFrame.readFrame(in, new byte[GatewayFrame.HEADER], MAX_BODY);
        if (f.header().type() == GatewayFrame.HELLO) {
            GatewayFrame.hello(f.header(), f.body());
        }
        return f.header();
    }

    @Test
    void dataReadsBackAsWritten() throws IOException {
        byte[] body = {1, 2, 3, 4, 5};
        byte[] f = frame(GatewayFrame.DATA, (byte) 0, JOB, EAST_2, WEST_5, body);
        assertThat(f).hasSize(GatewayFrame.HEADER + 5);
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(f));
        GatewayFrame.Header h = GatewayFrame.readHeader(in, new byte[GatewayFrame.HEADER], MAX_BODY);
        assertThat(h).isEqualTo(new GatewayFrame.Header(GatewayFrame.DATA, (byte) 0, JOB, EAST_2, WEST_5, 5));
        assertThat(GatewayFrame.readBody(in, h)).containsExactly(body);
    }

    @Test
    void aCutFrameAndItsTrailersAreChecked() throws IOException {
        assertThat(decode(frame(GatewayFrame.DATA, GatewayFrame.FLAG_CUT, JOB, EAST_2, WEST_5, new byte[] {1}))
                .has(GatewayFrame.FLAG_CUT)).isTrue();
        assertThat(decode(frame(GatewayFrame.END, (byte) 0, JOB, EAST_2, WEST_5, new byte[0])).type())
                .isEqualTo(GatewayFrame.END);
        assertThat(decode(frame(GatewayFrame.ABORT, (byte) 0, JOB, EAST_2, WEST_5, GatewayFrame.text("gone")))
                .bodyLength()).isEqualTo(4);
        assertThatThrownBy(() -> decode(frame(GatewayFrame.END, (byte) 0, JOB, EAST_2, WEST_5, new byte[] {1})))
                .hasMessageContaining("malformed END frame: body of 1 bytes, must be exactly 0");
        assertThatThrownBy(() -> decode(frame(GatewayFrame.END, GatewayFrame.FLAG_CUT, JOB, EAST_2, WEST_5, new byte[0])))
                .hasMessageContaining("malformed END frame: flags 0x10");
        GatewayFrame.Address gateway = new GatewayFrame.Address(EAST_2.site(), 0, -1);
        assertThatThrownBy(() -> decode(frame(GatewayFrame.ABORT, (byte) 0, JOB, gateway, WEST_5, new byte[0])))
                .hasMessageContaining("malformed ABORT frame: source process -1");
    }

    @Test
    void aWarmFrameHasNoBodyAndNoFlags() throws IOException {
        GatewayFrame.Address gateway = new GatewayFrame.Address(EAST_2.site(), 7430, -1);
        GatewayFrame.Address peer = new GatewayFrame.Address(WEST_5.site(), 7430, -1);
        assertThat(decode(frame(GatewayFrame.WARM, (byte) 0, JOB, gateway, peer, new byte[0])).type())
                .isEqualTo(GatewayFrame.WARM);
        assertThatThrownBy(() -> decode(frame(GatewayFrame.WARM, (byte) 0, JOB, gateway, peer, new byte[] {1})))
                .hasMessageContaining("malformed WARM frame: body of 1 bytes, must be exactly 0");
        assertThatThrownBy(() -> decode(frame(GatewayFrame.WARM, GatewayFrame.FLAG_CUT, JOB, gateway, peer, new byte[0])))
                .hasMessageContaining("malformed WARM frame: flags 0x10");
    }

    @Test
    void aHelloReadsBackAsWritten() throws IOException {
        byte[] nonce = new byte[GatewayFrame.NONCE_BYTES];
        Arrays.fill(nonce, (byte) 9);
        byte[] f = frame(GatewayFrame.HELLO, (byte) 0, JOB, EAST_2, new GatewayFrame.Address(0, 0, -1),
                GatewayFrame.helloBody(7, 4, nonce, "job-7", "east"));
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(f));
        GatewayFrame.Header h = GatewayFrame.readHeader(in, new byte[GatewayFrame.HEADER], MAX_BODY);
        GatewayFrame.Hello hello = GatewayFrame.hello(h, GatewayFrame.readBody(in, h));
        assertThat(hello.stripe()).isEqualTo(7);
        assertThat(hello.jobSize()).isEqualTo(4);
        assertThat(hello.nonce()).containsExactly(nonce);
        assertThat(hello.jobId()).isEqualTo("job-7");
        assertThat(hello.site()).isEqualTo("east");
    }

    @Test
    void aHelloWhoseNamesDoNotMatchItsHeaderIsRefused() throws IOException {
        byte[] body = GatewayFrame.helloBody(0, 4, new byte[16], "job-7", "east");
        byte[] otherJob = frame(GatewayFrame.HELLO, (byte) 0, GatewayFrame.jobId("job-8"), EAST_2, EAST_2, body);
        assertThatThrownBy(() -> decode(otherJob)).isInstanceOf(IOException.class).hasMessageContaining("job");
        byte[] otherSite = frame(GatewayFrame.HELLO, (byte) 0, JOB,
                new GatewayFrame.Address(WEST_5.site(), WEST_5.node(), 1), EAST_2, body);
        assertThatThrownBy(() -> decode(otherSite)).isInstanceOf(IOException.class).hasMessageContaining("site 'east'");
    }

    @Test
    void faultsAreNamed() throws IOException {
        byte[] ok = frame(GatewayFrame.DATA, (byte) 0, JOB, EAST_2, WEST_5, new byte[8]);
        byte[] foreign = ok.clone();
        foreign[GatewayFrame.MAGIC_OFFSET] = 'R';
        assertThatThrownBy(() -> decode(foreign)).isInstanceOf(IOException.class).hasMessageContaining("foreign frame");
        assertThatThrownBy(() -> decode(Arrays.copyOf(ok, 17))).isInstanceOf(EOFException.class)
                .hasMessageContaining("truncated header").hasMessageContaining("17 of 40");
        assertThatThrownBy(() -> decode(Arrays.copyOf(ok, 44))).isInstanceOf(EOFException.class)
                .hasMessageContaining("truncated DATA frame");
        byte[] unknown = ok.clone();
        unknown[GatewayFrame.TYPE_OFFSET] = 42;
        assertThatThrownBy(() -> decode(unknown)).hasMessageContaining("unknown type 42");
        byte[] negative = frame(GatewayFrame.DATA, (byte) 0, JOB, EAST_2, new GatewayFrame.Address(1, 1, -3), new byte[8]);
        assertThatThrownBy(() -> decode(negative)).hasMessageContaining("destination process -3");
        byte[] huge = ok.clone();
        MemorySegment.ofArray(huge).set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(
                java.nio.ByteOrder.LITTLE_ENDIAN), 0, Integer.MAX_VALUE);
        assertThatThrownBy(() -> decode(huge)).hasMessageContaining("length 2147483647 outside");
        byte[] flagged = frame(GatewayFrame.DATA, GatewayFrame.FLAG_NEW_JOB, JOB, EAST_2, WEST_5, new byte[8]);
        assertThatThrownBy(() -> decode(flagged)).hasMessageContaining("flags 0x04");
        assertThatThrownBy(() -> decode(new byte[0])).isInstanceOf(EOFException.class).hasMessage("connection closed");
    }

    @Test
    void idsAreStableAndDistinct() {
        assertThat(GatewayFrame.siteId("east")).isEqualTo(GatewayFrame.siteId("east"))
                .isNotEqualTo(GatewayFrame.siteId("west")).isNotEqualTo(GatewayFrame.nodeId("east"));
        assertThat(GatewayFrame.jobId("job-7")).isNotEqualTo(GatewayFrame.jobId("job-8"));
    }

    @Test
    void arbitraryBytesEndInAFrameOrANamedFault() {
        int valid = Fuzz.of("gateway-frame", IOException.class, input -> {
            GatewayFrame.Header h = decode(input);
            assertThat(h.bodyLength()).isBetween(0, MAX_BODY);
            if (h.type() == GatewayFrame.DATA) {
                assertThat(h.source().process()).isNotNegative();
                assertThat(h.destination().process()).isNotNegative();
            }
        }).budget(23, 3000).run();
        assertThat(valid).as("inputs that decoded").isGreaterThanOrEqualTo(5);
    }
}
