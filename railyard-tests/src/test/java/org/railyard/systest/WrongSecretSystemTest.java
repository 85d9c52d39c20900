package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.launcher.JobResult;
import org.railyard.systest.Transcript.Line;
import org.railyard.systest.ranks.HandshakeTargetRanks;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;
import org.railyard.wire.Handshake;

/**
 * A stranger on the machine cannot join a job: while the ranks of a real job wait, a rogue in this
 * test JVM connects to rank 0's handshake listener (its port and the job id are what rank 0
 * prints; the secret is not) and tries, one connection each: (1) a HELLO with the wrong job id,
 * (2) a HELLO with the right job id claiming to be rank 1, then a PROOF whose MAC was not made with
 * the job secret, (3) not a handshake at all but a Railyard data frame (an EAGER frame, what a
 * peer would send on an established link), (4) text garbage. Each must be refused (the connection
 * is closed on it without an ACCEPT), rank 0's stderr must say why ("refused connection ... WRONG_JOB",
 * "refused connection ... wrong job secret", "foreign handshake"), and afterwards the job must run
 * on and exit 0, its real rank 1 connecting after the rogue claimed its name.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class WrongSecretSystemTest {
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final Pattern CARD = Pattern.compile("HANDSHAKE port=(\\d+) job=(\\S+) pid=(\\d+)");

    @Test
    void aRogueWithoutTheSecretIsRefusedAndTheJobRunsOn() throws Throwable {
        Transcript t = new Transcript();
        try (ServerSocket control = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            CompletableFuture<JobResult> job = Jobs.start(Jobs.spec(3, HandshakeTargetRanks.class, Map.of(), JOB_TIMEOUT,
                    Integer.toString(control.getLocalPort())), t);
            Optional<Line> card = t.await(l -> l.rank() == 0 && CARD.matcher(l.text()).matches(), BOUND);
            if (card.isEmpty()) {
                // leaving closes the control port: rank 0, if it is still coming, fails instead of waiting
                fail("rank 0 did not print its handshake port within " + BOUND.toSeconds() + " s\n" + report(t, job));
            }
            Matcher m = CARD.matcher(card.get().text());
            assertThat(m.matches()).isTrue();
            int port = Integer.parseInt(m.group(1));
            String jobId = m.group(2);

            Throwable failure = null;
            try {
                wrongJob(port, jobId);
                awaitLog(t, job, "refused connection from .* claiming rank 1: WRONG_JOB");
                wrongSecret(port, jobId);
                awaitLog(t, job, "refused connection from .* claiming rank 1: wrong job secret");
                foreignFrame(port);
                awaitLog(t, job, "foreign handshake: magic 0x[0-9a-f]{8}");
                garbage(port, "GET / HTTP/1.1\r\nHost: railyard\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                awaitLog(t, job, "foreign handshake: magic 0x47455420");
            } catch (Throwable e) {
                failure = e;
            }
            // let rank 0 go on whatever happened, so the job ends by itself
            try {
                control.setSoTimeout((int) BOUND.toMillis());
                try (Socket go = control.accept()) {
                    go.getOutputStream().write('G');
                }
            } catch (IOException e) {
                if (failure == null) {
                    failure = new AssertionError("rank 0 did not connect to the control port: " + e + "\n" + report(t, job), e);
                }
            }
            if (failure != null) {
                try {
                    job.get(JOB_TIMEOUT.toSeconds() + 30, TimeUnit.SECONDS); // the job ends before the next test
                } catch (Exception e) {
                    failure.addSuppressed(e);
                }
                t.save("wrong-secret-np3");
                throw failure;
            }

            JobResult r = job.get(JOB_TIMEOUT.toSeconds() + 30, TimeUnit.SECONDS);
            t.save("wrong-secret-np3");
            if (r.exitCode() != 0) {
                fail("the job did not run on after the rogue: exit code " + r.exitCode() + ", " + r.summary() + "\n" + t.tail(80));
            }
            for (int rank = 0; rank < 3; rank++) {
                assertThat(t.texts(rank, Transcript.Stream.OUT)).as("stdout of rank %d\n%s", rank, t.tail(80))
                        .contains("OK rogue rank " + rank);
            }
        }
    }

    private static String report(Transcript t, CompletableFuture<JobResult> job) {
        return (job.isDone() ? "job ended: " + job.join().summary() : "job still running") + "\n" + t.tail(80);
    }

    /** Waits (bounded) for a line of rank 0's stderr matching {@code regex} somewhere. */
    private static void awaitLog(Transcript t, CompletableFuture<JobResult> job, String regex) throws InterruptedException {
        Pattern p = Pattern.compile(".*" + regex + ".*");
        Optional<Line> line = t.await(l -> l.rank() == 0 && l.stream() == Transcript.Stream.ERR && p.matcher(l.text()).matches(), BOUND);
        if (line.isEmpty()) {
            fail("rank 0 did not log a line matching '" + regex + "' within " + BOUND.toSeconds() + " s\n" + report(t, job));
        }
    }

    private static Socket connect(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), (int) BOUND.toMillis());
        s.setSoTimeout((int) BOUND.toMillis());
        return s;
    }

    /** The job hash of the handshake: the first 8 bytes, big endian, of SHA-256 of the job id. */
    static long jobHash(String jobId) throws Exception {
        byte[] d = MessageDigest.getInstance("SHA-256").digest(jobId.getBytes(StandardCharsets.UTF_8));
        return ByteBuffer.wrap(d).getLong();
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new SecureRandom().nextBytes(b);
        return b;
    }

    private static void wrongJob(int port, String jobId) throws Exception {
        try (Socket s = connect(port)) {
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            DataInputStream in = new DataInputStream(s.getInputStream());
            Handshake.writeHello(out, new Handshake.Hello(jobHash(jobId + "-not"), 1, 0, random(Handshake.NONCE_BYTES)));
            Handshake.Challenge c = Handshake.readChallenge(in);
            assertThat(Handshake.statusName(c.status())).as("challenge status for a HELLO of another job").isEqualTo("WRONG_JOB");
            assertThat(c.mac()).as("a refused challenge proves nothing").isEqualTo(new byte[Handshake.MAC_BYTES]);
            assertClosed(in, "after WRONG_JOB");
        }
    }

    private static void wrongSecret(int port, String jobId) throws Exception {
        try (Socket s = connect(port)) {
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            DataInputStream in = new DataInputStream(s.getInputStream());
            Handshake.writeHello(out, new Handshake.Hello(jobHash(jobId), 1, 0, random(Handshake.NONCE_BYTES)));
            Handshake.Challenge c = Handshake.readChallenge(in);
            assertThat(Handshake.statusName(c.status())).as("challenge status for a HELLO of this job").isEqualTo("OK");
            Handshake.writeProof(out, new Handshake.Proof(random(Handshake.MAC_BYTES),
                    List.of(new Handshake.Offer("tcp", "262144"))));
            try {
                Handshake.Accept a = Handshake.readAccept(in);
                fail("rank 0 answered a proof made without the job secret with ACCEPT " + Handshake.statusName(a.status())
                        + " " + a.transport());
            } catch (EOFException | SocketException refused) {
                // closed without an answer: refused
            } catch (SocketTimeoutException e) {
                fail("rank 0 neither accepted nor closed a connection with a wrong proof within " + BOUND.toSeconds() + " s");
            }
        }
    }

    /** A Railyard EAGER data frame, sent where a handshake is expected. */
    private static void foreignFrame(int port) throws Exception {
        byte[] frame = new byte[FrameHeader.LENGTH + 16];
        MemorySegment seg = MemorySegment.ofArray(frame);
        FrameHeader.write(seg, 0, frame.length, FrameType.EAGER, (byte) 0, 0, 1, 7, 16, 0, 0);
        garbage(port, frame);
    }

    private static void garbage(int port, byte[] bytes) throws Exception {
        try (Socket s = connect(port)) {
            OutputStream out = s.getOutputStream();
            out.write(bytes);
            out.flush();
            assertClosed(s.getInputStream(), "after " + bytes.length + " foreign bytes");
        }
    }

    /** The acceptor must close the connection without sending anything more. */
    private static void assertClosed(InputStream in, String when) throws IOException {
        try {
            int b = in.read();
            assertThat(b).as("rank 0 sent a byte " + when + " instead of closing").isEqualTo(-1);
        } catch (SocketException reset) {
            // closed with unread data: a reset is a close too
        } catch (SocketTimeoutException e) {
            fail("rank 0 did not close the connection " + when + " within " + BOUND.toSeconds() + " s");
        }
    }
}
