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
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The relay's frames and log records: what is written reads back the same, and arbitrary bytes
 * (random, or a sound frame with one byte changed) are either a sound frame or an IOException that
 * names the fault, never another exception and never an allocation the length field made up.
 */
class RelayFrameTest {
    private static final int MAX_BODY = 1 << 20;

    private static byte[] frame(byte type, byte flags, int src, int dst, long seq, byte[] body) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        RelayFrame.write(new DataOutputStream(b), new byte[RelayFrame.HEADER], type, flags, src, dst, seq, body, 0, body.length);
        return b.toByteArray();
    }

    /** Reads one frame as a relay would: header, body, and the HELLO's own checks. */
    private static RelayFrame.Header decode(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        RelayFrame.Header h = RelayFrame.readHeader(in, new byte[RelayFrame.HEADER], MAX_BODY);
        byte[] body = RelayFrame.readBody(in, h);
        if (h.type() == RelayFrame.HELLO) {
            RelayFrame.hello(h, body);
        }
        return h;
    }

    @Test
    void aStoreReadsBackAsWritten() throws IOException {
        byte[] body = {1, 2, 3, 4, 5};
        byte[] f = frame(RelayFrame.STORE, RelayFrame.FLAG_CONTROL, 3, 7, 42, body);
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(f));
        RelayFrame.Header h = RelayFrame.readHeader(in, new byte[RelayFrame.HEADER], MAX_BODY);
        assertThat(h).isEqualTo(new RelayFrame.Header(RelayFrame.STORE, RelayFrame.FLAG_CONTROL, 3, 7, 42, 5));
        assertThat(RelayFrame.readBody(in, h)).containsExactly(body);
    }

    @Test
    void aHelloReadsBackAsWritten() throws IOException {
        byte[] nonce = new byte[RelayFrame.NONCE_BYTES];
        Arrays.fill(nonce, (byte) 9);
        byte[] f = frame(RelayFrame.HELLO, RelayFrame.FLAG_RECEIVE, 2, -1, 0, RelayFrame.helloBody(4, nonce, "job-1"));
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(f));
        RelayFrame.Header h = RelayFrame.readHeader(in, new byte[RelayFrame.HEADER], MAX_BODY);
        RelayFrame.Hello hello = RelayFrame.hello(h, RelayFrame.readBody(in, h));
        assertThat(hello.rank()).isEqualTo(2);
        assertThat(hello.jobSize()).isEqualTo(4);
        assertThat(hello.jobId()).isEqualTo("job-1");
        assertThat(hello.receive()).isTrue();
        assertThat(hello.nonce()).containsExactly(nonce);
    }

    @Test
    void faultsAreNamed() throws IOException {
        byte[] store = frame(RelayFrame.STORE, (byte) 0, 1, 2, 1, new byte[8]);
        byte[] foreign = store.clone();
        foreign[RelayFrame.MAGIC_OFFSET] = 'G';
        assertThatThrownBy(() -> decode(foreign)).isInstanceOf(IOException.class).hasMessageContaining("foreign frame");
        byte[] unknown = store.clone();
        unknown[RelayFrame.TYPE_OFFSET] = 99;
        assertThatThrownBy(() -> decode(unknown)).hasMessageContaining("unknown type 99");
        byte[] flags = store.clone();
        flags[RelayFrame.FLAGS_OFFSET] = RelayFrame.FLAG_NEW_JOB;
        assertThatThrownBy(() -> decode(flags)).hasMessageContaining("malformed STORE frame: flags 0x04");
        byte[] zeroSeq = frame(RelayFrame.STORE, (byte) 0, 1, 2, 0, new byte[8]);
        assertThatThrownBy(() -> decode(zeroSeq)).hasMessageContaining("sequence 0 (counts from 1)");
        byte[] negative = frame(RelayFrame.DELIVERED, (byte) 0, -3, 2, 1, new byte[0]);
        assertThatThrownBy(() -> decode(negative)).hasMessageContaining("source -3");
        byte[] huge = frame(RelayFrame.STORE, (byte) 0, 1, 2, 1, new byte[0]);
        MemorySegment.ofArray(huge).set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN),
                0, Integer.MAX_VALUE);
        assertThatThrownBy(() -> decode(huge)).hasMessageContaining("length " + Integer.MAX_VALUE + " outside");
        byte[] welcomeWithBody = frame(RelayFrame.WELCOME, (byte) 0, -1, 0, 0, new byte[3]);
        assertThatThrownBy(() -> decode(welcomeWithBody)).hasMessageContaining("body of 3 bytes, must be exactly 0");
        byte[] cut = Arrays.copyOf(store, store.length - 3);
        assertThatThrownBy(() -> decode(cut)).isInstanceOf(EOFException.class).hasMessageContaining("truncated STORE frame");
        byte[] hello = frame(RelayFrame.HELLO, (byte) 0, 0, -1, 0, RelayFrame.helloBody(2, new byte[16], "j"));
        hello[RelayFrame.HEADER + RelayFrame.HELLO_JOB_ID_OFFSET] = '\n';
        assertThatThrownBy(() -> decode(hello)).hasMessageContaining("job id is not printable");
    }

    /** Seeded random inputs, so that a failure repeats: each test names its seed. */
    private static final int TRIES = 1000;

    private static byte[] randomBytes(Random random, int maxLength) {
        byte[] b = new byte[random.nextInt(maxLength + 1)];
        random.nextBytes(b);
        return b;
    }

    @Test
    void arbitraryBytesAreAFrameOrANamedFault() {
        Random random = new Random(1);
        for (int i = 0; i < TRIES; i++) {
            decodeOrFault(randomBytes(random, 200));
        }
    }

    @Test
    void aSoundFrameWithOneByteChangedIsAFrameOrANamedFault() throws IOException {
        byte[] types = {RelayFrame.STORE, RelayFrame.DELIVER, RelayFrame.STORED, RelayFrame.DELIVERED,
                RelayFrame.HELLO, RelayFrame.CHALLENGE, RelayFrame.PROOF, RelayFrame.ERROR};
        Random random = new Random(2);
        for (int i = 0; i < TRIES; i++) {
            byte[] f = soundFrame(types[random.nextInt(types.length)], randomBytes(random, 64));
            f[random.nextInt(f.length)] = (byte) random.nextInt(256);
            decodeOrFault(f);
        }
    }

    private static byte[] soundFrame(byte type, byte[] body) throws IOException {
        return switch (type) {
            case RelayFrame.HELLO -> frame(type, (byte) 0, 1, -1, 0, RelayFrame.helloBody(3, new byte[16], "job"));
            case RelayFrame.CHALLENGE -> frame(type, (byte) 0, -1, 1, 0, new byte[RelayFrame.CHALLENGE_BODY]);
            case RelayFrame.PROOF -> frame(type, (byte) 0, 1, -1, 0, new byte[RelayFrame.MAC_BYTES]);
            case RelayFrame.STORED, RelayFrame.DELIVERED -> frame(type, (byte) 0, 1, 2, 5, new byte[0]);
            default -> frame(type, (byte) 0, 1, 2, 5, body);
        };
    }

    private static void decodeOrFault(byte[] bytes) {
        try {
            RelayFrame.Header h = decode(bytes);
            assertThat(h.bodyLength()).isBetween(0, MAX_BODY);
            assertThat(RelayFrame.validate(MemorySegment.ofArray(bytes), 0, MAX_BODY)).isNull();
        } catch (EOFException e) {
            // a stream that ends early: a truncated frame (or nothing at all)
        } catch (IOException e) {
            assertThat(e.getMessage()).matches("(?s).*(foreign|malformed|version|truncated).*");
        }
    }

    @Test
    void logRecordsReadBackAsWrittenAndATornTailIsNamed() throws IOException {
        byte[] verifier = new byte[RelayFrame.VERIFIER_BYTES];
        verifier[0] = 7;
        byte[] msg = {10, 20, 30};
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(RelayLogRecord.job(0, "job-x", 4, verifier));
        b.write(RelayLogRecord.storeHead(0, 1, 2, 9, true, msg, 0, msg.length));
        b.write(msg);
        b.write(RelayLogRecord.ack(0, 2, 1, 9));
        b.write(RelayLogRecord.mark(0, 2, 1, 9));
        byte[] log = b.toByteArray();
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(log));
        RelayLogRecord.Job j = (RelayLogRecord.Job) RelayLogRecord.read(in, in.available());
        assertThat(j.id()).isEqualTo("job-x");
        assertThat(j.size()).isEqualTo(4);
        assertThat(j.verifier()).containsExactly(verifier);
        RelayLogRecord.Store s = (RelayLogRecord.Store) RelayLogRecord.read(in, in.available());
        assertThat(s.source()).isEqualTo(1);
        assertThat(s.destination()).isEqualTo(2);
        assertThat(s.sequence()).isEqualTo(9);
        assertThat(s.control()).isTrue();
        assertThat(s.message()).containsExactly(msg);
        assertThat(RelayLogRecord.read(in, in.available())).isEqualTo(new RelayLogRecord.Ack(0, 2, 1, 9));
        assertThat(RelayLogRecord.read(in, in.available())).isEqualTo(new RelayLogRecord.Mark(0, 2, 1, 9));
        assertThat(RelayLogRecord.read(in, in.available())).isNull();

        byte[] torn = Arrays.copyOf(log, log.length - 5);
        DataInputStream t = new DataInputStream(new ByteArrayInputStream(torn));
        for (int i = 0; i < 3; i++) {
            assertThat(RelayLogRecord.read(t, t.available())).isNotNull();
        }
        assertThatThrownBy(() -> RelayLogRecord.read(t, t.available())).isInstanceOf(RelayLogRecord.TornRecord.class)
                .hasMessageContaining("ends inside a record");
        byte[] flipped = log.clone();
        flipped[flipped.length - 1] ^= 1;
        DataInputStream f = new DataInputStream(new ByteArrayInputStream(flipped));
        for (int i = 0; i < 3; i++) {
            assertThat(RelayLogRecord.read(f, f.available())).isNotNull();
        }
        assertThatThrownBy(() -> RelayLogRecord.read(f, f.available())).hasMessageContaining("checksum is wrong");
    }

    @Test
    void arbitraryLogBytesAreRecordsOrATornTail() {
        Random random = new Random(3);
        for (int i = 0; i < TRIES; i++) {
            readAllOrTorn(randomBytes(random, 120));
        }
    }

    private static void readAllOrTorn(byte[] bytes) {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        try {
            while (RelayLogRecord.read(in, in.available()) != null) {
                // every record that reads passed its checksum
            }
        } catch (RelayLogRecord.TornRecord e) {
            assertThat(e.getMessage()).isNotBlank();
        } catch (IOException e) {
            throw new AssertionError("not a TornRecord: " + e, e);
        }
    }
}
