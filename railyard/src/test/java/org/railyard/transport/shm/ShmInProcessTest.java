package org.railyard.transport.shm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.railyard.bootstrap.AddressCard;
import org.railyard.transport.Link;
import org.railyard.transport.TransportEnv;
import org.railyard.util.ProcessToken;

/**
 * An shm link between two ranks of one process (threads of one JVM) keeps no socket: the offer
 * carries the connector's process token, the acceptor that finds its own answers "in-process", and
 * both links let the handshake's ends close its socket. An offer from another process keeps the
 * socket as the liveness line, and so does a connector that got no answer.
 */
class ShmInProcessTest {

    private static ShmTransport started(int rank, String job) throws IOException {
        ShmTransport shm = new ShmTransport();
        assertThat(shm.start(new TransportEnv(rank, 2, job, "node-a"))).isTrue();
        return shm;
    }

    @Test
    void twoRanksOfOneProcessDropTheHandshakeSocket() throws IOException {
        String job = "inproc-" + ProcessHandle.current().pid();
        ShmTransport a = started(0, job);
        ShmTransport b = started(1, job);
        AddressCard cardB = new AddressCard(1, "node-a", ProcessHandle.current().pid(), List.of(), List.of("shm"));
        String offer = a.offer(1, cardB);
        assertThat(offer.split("\\|")).as("file, ring, frame, token").hasSize(4);
        assertThat(offer).endsWith("|" + ProcessToken.get());
        try (Sockets s = new Sockets()) {
            Link accepted = b.accept(0, offer, s.acceptor);
            String answer = b.answer(accepted);
            Link completed = a.complete(1, offer, answer, accepted.maxFrame(), s.connector);
            try {
                assertThat(answer).isEqualTo(ShmTransport.IN_PROCESS);
                assertThat(accepted.holdsHandshake()).isFalse();
                assertThat(completed.holdsHandshake()).isFalse();
                assertThat(completed.isOpen()).isTrue();
            } finally {
                completed.close();
                accepted.close();
            }
            assertThat(s.acceptor.isOpen()).as("a link that does not hold the socket does not close it either").isTrue();
        }
    }

    @Test
    void aPeerThatClosesItsEndIsToldByTheRingWithoutASocket() throws IOException {
        String job = "inproc-close-" + ProcessHandle.current().pid();
        ShmTransport a = started(0, job);
        ShmTransport b = started(1, job);
        String offer = a.offer(1, new AddressCard(1, "node-a", ProcessHandle.current().pid(), List.of(), List.of("shm")));
        try (Sockets s = new Sockets()) {
            Link accepted = b.accept(0, offer, s.acceptor);
            Link completed = a.complete(1, offer, b.answer(accepted), accepted.maxFrame(), s.connector);
            assertThat(completed.holdsHandshake()).isFalse();
            completed.close();
            long end = System.nanoTime() + 10_000_000_000L;
            while (accepted.isOpen() && System.nanoTime() < end) {
                accepted.poll((link, seg, off, len) -> true, 16);
                Thread.onSpinWait();
            }
            assertThat(accepted.isOpen()).as("the acceptor's link, after the connector's closed").isFalse();
            assertThat(accepted.failure()).contains("peer closed its end");
        }
    }

    @Test
    void anOfferFromAnotherProcessKeepsTheLivenessLine() throws IOException {
        String job = "xproc-" + ProcessHandle.current().pid();
        ShmTransport a = started(0, job);
        ShmTransport b = started(1, job);
        String offer = a.offer(1, new AddressCard(1, "node-a", 1, List.of(), List.of("shm")));
        String foreign = offer.substring(0, offer.lastIndexOf('|') + 1) + "1.abc";
        String threeFields = offer.substring(0, offer.lastIndexOf('|'));
        try (Sockets s = new Sockets()) {
            Link accepted = b.accept(0, foreign, s.acceptor);
            Link older = b.accept(0, threeFields, s.acceptor);
            Link completed = a.complete(1, offer, b.answer(accepted), accepted.maxFrame(), s.connector);
            try {
                assertThat(b.answer(accepted)).isEmpty();
                assertThat(accepted.holdsHandshake()).isTrue();
                assertThat(older.holdsHandshake()).as("an offer without a token").isTrue();
                assertThat(completed.holdsHandshake()).isTrue();
            } finally {
                completed.close();
                older.close();
                accepted.close();
            }
            assertThat(s.acceptor.isOpen()).as("the liveness line closes with its link").isFalse();
        }
    }

    @Test
    void theTokenIsOneForTheProcess() {
        String first = ProcessToken.get();
        assertThat(ProcessToken.get()).isSameAs(first);
        assertThat(System.getProperty(ProcessToken.PROPERTY)).isEqualTo(first);
        assertThat(first).startsWith(ProcessHandle.current().pid() + ".");
    }

    /** A connected pair of loopback sockets standing for a handshake's two ends. */
    private static final class Sockets implements AutoCloseable {
        final SocketChannel connector;
        final SocketChannel acceptor;

        Sockets() throws IOException {
            try (ServerSocketChannel server = ServerSocketChannel.open()) {
                server.bind(new InetSocketAddress("127.0.0.1", 0));
                connector = SocketChannel.open(server.getLocalAddress());
                acceptor = server.accept();
            }
        }

        @Override
        public void close() throws IOException {
            connector.close();
            acceptor.close();
        }
    }
}
