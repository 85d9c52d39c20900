package org.railyard.transport.gateway;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import org.railyard.bootstrap.JobKeys;
import org.railyard.util.KeepAlive;
import org.railyard.wire.GatewayFrame;

/**
 * The opening of a connection to a site gateway, blocking, each step bounded: a rank's connection to
 * its site's gateway, or a gateway's connection to a peer gateway (one WAN stripe of one job). The
 * opener proves the job's gateway verifier; the gateway proves it back when it already knows the
 * job, or learns it (the first of a job to arrive registers it). See {@link GatewayFrame}.
 */
public final class GatewayClient {
    private static final SecureRandom RANDOM = new SecureRandom();

    /** An open, proven connection and the streams over it (the gateway's frames follow on {@code in}). */
    public record Opened(Socket socket, DataInputStream in, DataOutputStream out) { }

    private GatewayClient() {
    }

    /**
     * Connects to {@code gateway} and proves the job.
     *
     * @param self    the opener's address (process -1 for a gateway)
     * @param stripe  the WAN stripe a gateway opens (0 for a rank)
     * @param site    the opener's site name
     * @param asGateway true when the opener is a gateway
     * @param keepAlive the kernel's probes of the connection once open (a peer that vanishes
     *                  without closing ends it), or null for none
     * @throws IOException naming the gateway's reason when it refuses
     */
    public static Opened open(InetSocketAddress gateway, String jobId, byte[] verifier, GatewayFrame.Address self,
                              int size, int stripe, String site, boolean asGateway, Duration timeout,
                              KeepAlive keepAlive) throws IOException {
        // a socket with a channel: the gateway transport writes frames from native memory through it
        Socket s = java.nio.channels.SocketChannel.open().socket();
        try {
            s.setTcpNoDelay(true);
            KeepAlive.apply(s, keepAlive);
            s.connect(gateway, (int) timeout.toMillis());
            s.setSoTimeout((int) timeout.toMillis());
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream(), 1 << 16));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 1 << 16));
            byte flag = asGateway ? GatewayFrame.FLAG_GATEWAY : 0;
            long job = GatewayFrame.jobId(jobId);
            GatewayFrame.Address none = new GatewayFrame.Address(0, 0, -1);
            byte[] scratch = new byte[GatewayFrame.HEADER];
            byte[] nonceC = new byte[GatewayFrame.NONCE_BYTES];
            RANDOM.nextBytes(nonceC);
            GatewayFrame.write(out, scratch, GatewayFrame.HELLO, flag, job, self, none,
                    GatewayFrame.helloBody(stripe, size, nonceC, jobId, site));
            out.flush();
            byte[] c = expect(in, scratch, GatewayFrame.CHALLENGE);
            boolean newJob = (scratch[GatewayFrame.FLAGS_OFFSET] & GatewayFrame.FLAG_NEW_JOB) != 0;
            byte[] nonceG = GatewayFrame.slice(c, GatewayFrame.CHALLENGE_NONCE_OFFSET, GatewayFrame.NONCE_BYTES);
            if (!newJob) {
                byte[] proof = GatewayFrame.slice(c, GatewayFrame.CHALLENGE_MAC_OFFSET, GatewayFrame.MAC_BYTES);
                if (!JobKeys.same(proof, JobKeys.relayProof(verifier, "G", self.process(), nonceC, nonceG))) {
                    throw new IOException("gateway " + gateway + " could not prove it serves job " + jobId
                            + " (another job by that id, or a stranger)");
                }
            }
            byte[] proof = GatewayFrame.proofBody(JobKeys.relayProof(verifier, "C", self.process(), nonceG, nonceC),
                    newJob ? verifier : null);
            GatewayFrame.write(out, scratch, GatewayFrame.PROOF, (byte) (flag | (newJob ? GatewayFrame.FLAG_NEW_JOB : 0)),
                    job, self, none, proof);
            out.flush();
            expect(in, scratch, GatewayFrame.WELCOME);
            s.setSoTimeout(0);
            return new Opened(s, in, out);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private static byte[] expect(DataInputStream in, byte[] scratch, byte type) throws IOException {
        GatewayFrame.Header h;
        try {
            h = GatewayFrame.readHeader(in, scratch, GatewayFrame.MAX_TEXT);
        } catch (EOFException e) {
            throw new EOFException("gateway closed the connection during the handshake");
        }
        byte[] body = GatewayFrame.readBody(in, h);
        if (h.type() == GatewayFrame.ERROR) {
            throw new IOException("gateway refused: " + new String(body, StandardCharsets.UTF_8));
        }
        if (h.type() != type) {
            throw new IOException("gateway answered " + GatewayFrame.typeName(h.type()) + " where "
                    + GatewayFrame.typeName(type) + " was due");
        }
        return body;
    }

    /** The counters of the gateway at {@code gateway}, as its {@code name value} lines. */
    public static String stats(InetSocketAddress gateway, Duration timeout) throws IOException {
        return ask(gateway, GatewayFrame.STATS_REQUEST, GatewayFrame.STATS, timeout);
    }

    /** The site name the gateway at {@code gateway} serves. */
    public static String ident(InetSocketAddress gateway, Duration timeout) throws IOException {
        return ask(gateway, GatewayFrame.IDENT_REQUEST, GatewayFrame.IDENT, timeout);
    }

    private static String ask(InetSocketAddress gateway, byte request, byte answer, Duration timeout) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(gateway, (int) timeout.toMillis());
            s.setSoTimeout((int) timeout.toMillis());
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            byte[] scratch = new byte[GatewayFrame.HEADER];
            GatewayFrame.Address none = new GatewayFrame.Address(0, 0, -1);
            GatewayFrame.write(out, scratch, request, (byte) 0, 0, none, none, new byte[0]);
            out.flush();
            return new String(expect(in, scratch, answer), StandardCharsets.UTF_8);
        }
    }
}
