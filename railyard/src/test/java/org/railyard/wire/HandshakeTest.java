package org.railyard.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The four {@link Handshake} messages: what is written reads back, and each refusal names its reason. */
class HandshakeTest {
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    private final DataOutputStream out = new DataOutputStream(buffer);

    private DataInputStream in() {
        return new DataInputStream(new ByteArrayInputStream(buffer.toByteArray()));
    }

    private static byte[] bytes(int n, int first) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (first + i);
        }
        return b;
    }

    @Test
    void helloReadsBackWithItsRail() throws IOException {
        Handshake.writeHello(out, new Handshake.Hello(-5L, 3, 9, bytes(16, 1), 2, 4));
        assertThat(buffer.size()).isEqualTo(4 + 1 + 8 + 4 + 4 + 16 + 2);
        Handshake.Hello h = Handshake.readHello(in());
        assertThat(h.jobHash()).isEqualTo(-5L);
        assertThat(h.from()).isEqualTo(3);
        assertThat(h.to()).isEqualTo(9);
        assertThat(h.nonce()).isEqualTo(bytes(16, 1));
        assertThat(h.rail()).isEqualTo(2);
        assertThat(h.rails()).isEqualTo(4);
    }

    @Test
    void aHelloOfAnotherVersionOrAnImpossibleRailIsRefused() throws IOException {
        Handshake.writeHello(out, new Handshake.Hello(1, 0, 1, bytes(16, 0), 4, 4));
        assertThatThrownBy(() -> Handshake.readHello(in())).isInstanceOf(IOException.class)
                .hasMessage("handshake names rail 4 of 4 (at most 32 rails)");
        byte[] b = buffer.toByteArray();
        b[4] = 2;
        assertThatThrownBy(() -> Handshake.readHello(new DataInputStream(new ByteArrayInputStream(b))))
                .hasMessage("handshake version 2, this side speaks 3");
        b[0] = 'G';
        assertThatThrownBy(() -> Handshake.readHello(new DataInputStream(new ByteArrayInputStream(b))))
                .hasMessageStartingWith("foreign handshake: magic 0x47594853");
    }

    @Test
    void challengeProofAndAcceptReadBack() throws IOException {
        Handshake.writeChallenge(out, new Handshake.Challenge(Handshake.DUPLICATE, bytes(16, 5), bytes(32, 50)));
        Handshake.writeProof(out, new Handshake.Proof(bytes(32, 9), List.of(new Handshake.Offer("shm", "/dev/shm/x|1|2"),
                new Handshake.Offer("tcp", "65536"))));
        Handshake.writeAccept(out, new Handshake.Accept(Handshake.OK, "udp", 8192, "4000|7"));
        DataInputStream in = in();
        Handshake.Challenge c = Handshake.readChallenge(in);
        assertThat(c.status()).isEqualTo(Handshake.DUPLICATE);
        assertThat(c.nonce()).isEqualTo(bytes(16, 5));
        assertThat(c.mac()).isEqualTo(bytes(32, 50));
        Handshake.Proof p = Handshake.readProof(in);
        assertThat(p.mac()).isEqualTo(bytes(32, 9));
        assertThat(p.offers()).containsExactly(new Handshake.Offer("shm", "/dev/shm/x|1|2"), new Handshake.Offer("tcp", "65536"));
        Handshake.Accept a = Handshake.readAccept(in);
        assertThat(a).isEqualTo(new Handshake.Accept(Handshake.OK, "udp", 8192, "4000|7"));
        assertThat(in.read()).as("nothing left").isEqualTo(-1);
    }

    @Test
    void anOfferTooLongForItsLengthFieldIsRefusedBeforeWriting() {
        String params = "x".repeat(65536);
        assertThatThrownBy(() -> Handshake.writeProof(out, new Handshake.Proof(bytes(32, 0),
                List.of(new Handshake.Offer("tcp", params))))).isInstanceOf(IOException.class).hasMessageStartingWith("offer too long");
        assertThatThrownBy(() -> Handshake.writeAccept(out, new Handshake.Accept(Handshake.OK, "tcp", 1, params)))
                .isInstanceOf(IOException.class).hasMessageStartingWith("answer too long");
    }

    @Test
    void statusNamesAreReadable() {
        assertThat(Handshake.statusName(Handshake.NO_TRANSPORT)).isEqualTo("NO_TRANSPORT");
        assertThat(Handshake.statusName((byte) 77)).isEqualTo("status77");
    }
}
