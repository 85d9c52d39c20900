package org.railyard.wire;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The pre-connection handshake, spoken over a blocking TCP socket before any data frame. Big
 * endian (Java's data streams). Four messages:
 *
 * <pre>
 * connector -> acceptor  HELLO     "RYHS" u8 version  i64 job hash  i32 from  i32 to  16B nonceC
 *                                  u8 rail  u8 rails                    (version 2)
 * acceptor -> connector  CHALLENGE "RYHS" u8 status   16B nonceA  32B macA = HMAC(secret, "A", from, to, nonceC, nonceA)
 * connector -> acceptor  PROOF     "RYHS" 32B macC = HMAC(secret, "C", from, to, nonceA, nonceC)
 *                                  u8 n  n x (u8 len, name, u16 len, parameters)   transports, best first
 * acceptor -> connector  ACCEPT    "RYHS" u8 status  u8 len, name of the chosen transport  i32 its frame limit
 *                                  u16 len, the acceptor's answer parameters (its own endpoint, for udp)
 *                                                                       (version 3)
 * </pre>
 *
 * Each side proves it knows the job secret without sending it; a side that cannot is dropped
 * before it can send a single data frame. The connector offers the transports both cards share, in
 * priority order (pscom's ARCH_REQ/ARCH_NEXT in one message); the acceptor takes the first it can
 * open, or answers {@link #NO_TRANSPORT}.
 *
 * <p>Rails: a virtual channel to a peer may be made of several links, one per (network path,
 * connection) pair. HELLO names which of the connector's {@code rails} this connection is, so
 * the acceptor keeps one state (and one tie-break) per rail, and can take a rail index again
 * after that rail's earlier link died.
 */
public final class Handshake {
    private Handshake() {
    }

    public static final int MAGIC = 0x52594853; // "RYHS"
    public static final byte VERSION = 3;
    /** Most rails one channel may have (rail indices are below this). */
    public static final int MAX_RAILS = 32;
    public static final int NONCE_BYTES = 16;
    public static final int MAC_BYTES = 32;

    /** CHALLENGE status: go on. */
    public static final byte OK = 0;
    /** CHALLENGE status: not this job (job hash differs). */
    public static final byte WRONG_JOB = 1;
    /** CHALLENGE status: the acceptor is not the rank the connector asked for. */
    public static final byte WRONG_RANK = 2;
    /** CHALLENGE status: a link between the two exists or is being made from the other side; use that one. */
    public static final byte DUPLICATE = 3;
    /** ACCEPT status: none of the offered transports could be opened. */
    public static final byte NO_TRANSPORT = 4;
    /** CHALLENGE status: the acceptor is shutting down. */
    public static final byte CLOSING = 5;

    /**
     * @param rail  which rail of the channel this connection is, {@code 0 <= rail < rails}
     * @param rails how many rails the connector counts for this channel
     */
    public record Hello(long jobHash, int from, int to, byte[] nonce, int rail, int rails) {
        /** The HELLO of a single-rail channel. */
        public Hello(long jobHash, int from, int to, byte[] nonce) {
            this(jobHash, from, to, nonce, 0, 1);
        }
    }

    public record Challenge(byte status, byte[] nonce, byte[] mac) { }

    public record Offer(String transport, String parameters) { }

    public record Proof(byte[] mac, List<Offer> offers) { }

    /** @param parameters the acceptor's answer to the offer it took ({@code Transport.answer}), "" if none */
    public record Accept(byte status, String transport, int maxFrame, String parameters) {
        public Accept(byte status, String transport, int maxFrame) {
            this(status, transport, maxFrame, "");
        }
    }

    public static String statusName(byte s) {
        return switch (s) {
            case OK -> "OK";
            case WRONG_JOB -> "WRONG_JOB";
            case WRONG_RANK -> "WRONG_RANK";
            case DUPLICATE -> "DUPLICATE";
            case NO_TRANSPORT -> "NO_TRANSPORT";
            case CLOSING -> "CLOSING";
            default -> "status" + s;
        };
    }

    public static void writeHello(DataOutputStream out, Hello h) throws IOException {
        out.writeInt(MAGIC);
        out.writeByte(VERSION);
        out.writeLong(h.jobHash());
        out.writeInt(h.from());
        out.writeInt(h.to());
        out.write(h.nonce(), 0, NONCE_BYTES);
        out.writeByte(h.rail());
        out.writeByte(h.rails());
        out.flush();
    }

    public static Hello readHello(DataInputStream in) throws IOException {
        try {
            magic(in);
            int version = in.readUnsignedByte();
            if (version != VERSION) {
                throw new IOException("handshake version " + version + ", this side speaks " + VERSION);
            }
            long job = in.readLong();
            int from = in.readInt();
            int to = in.readInt();
            byte[] nonce = bytes(in, NONCE_BYTES);
            int rail = in.readUnsignedByte();
            int rails = in.readUnsignedByte();
            if (rails < 1 || rails > MAX_RAILS || rail >= rails) {
                throw new IOException("handshake names rail " + rail + " of " + rails + " (at most " + MAX_RAILS + " rails)");
            }
            return new Hello(job, from, to, nonce, rail, rails);
        } catch (EOFException e) {
            throw cutShort("HELLO");
        }
    }

    public static void writeChallenge(DataOutputStream out, Challenge c) throws IOException {
        out.writeInt(MAGIC);
        out.writeByte(c.status());
        out.write(c.nonce(), 0, NONCE_BYTES);
        out.write(c.mac(), 0, MAC_BYTES);
        out.flush();
    }

    public static Challenge readChallenge(DataInputStream in) throws IOException {
        try {
            magic(in);
            byte status = in.readByte();
            return new Challenge(status, bytes(in, NONCE_BYTES), bytes(in, MAC_BYTES));
        } catch (EOFException e) {
            throw cutShort("CHALLENGE");
        }
    }

    public static void writeProof(DataOutputStream out, Proof p) throws IOException {
        out.writeInt(MAGIC);
        out.write(p.mac(), 0, MAC_BYTES);
        out.writeByte(p.offers().size());
        for (Offer o : p.offers()) {
            byte[] name = o.transport().getBytes(StandardCharsets.US_ASCII);
            byte[] params = o.parameters().getBytes(StandardCharsets.UTF_8);
            if (name.length > 255 || params.length > 65535) {
                throw new IOException("offer too long: " + o);
            }
            out.writeByte(name.length);
            out.write(name);
            out.writeShort(params.length);
            out.write(params);
        }
        out.flush();
    }

    public static Proof readProof(DataInputStream in) throws IOException {
        try {
            magic(in);
            byte[] mac = bytes(in, MAC_BYTES);
            int n = in.readUnsignedByte();
            List<Offer> offers = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                String name = new String(bytes(in, in.readUnsignedByte()), StandardCharsets.US_ASCII);
                String params = new String(bytes(in, in.readUnsignedShort()), StandardCharsets.UTF_8);
                offers.add(new Offer(name, params));
            }
            return new Proof(mac, offers);
        } catch (EOFException e) {
            throw cutShort("PROOF");
        }
    }

    public static void writeAccept(DataOutputStream out, Accept a) throws IOException {
        out.writeInt(MAGIC);
        out.writeByte(a.status());
        byte[] name = a.transport().getBytes(StandardCharsets.US_ASCII);
        out.writeByte(name.length);
        out.write(name);
        out.writeInt(a.maxFrame());
        byte[] params = a.parameters().getBytes(StandardCharsets.UTF_8);
        if (params.length > 65535) {
            throw new IOException("answer too long: " + a.parameters());
        }
        out.writeShort(params.length);
        out.write(params);
        out.flush();
    }

    public static Accept readAccept(DataInputStream in) throws IOException {
        try {
            magic(in);
            byte status = in.readByte();
            String name = new String(bytes(in, in.readUnsignedByte()), StandardCharsets.US_ASCII);
            int maxFrame = in.readInt();
            String params = new String(bytes(in, in.readUnsignedShort()), StandardCharsets.UTF_8);
            return new Accept(status, name, maxFrame, params);
        } catch (EOFException e) {
            throw cutShort("ACCEPT");
        }
    }

    /** The error of a message the peer stopped sending in the middle (an EOFException, as before, but named). */
    private static EOFException cutShort(String message) {
        return new EOFException("handshake " + message + " cut short: the peer closed the connection in the middle of it");
    }

    private static void magic(DataInputStream in) throws IOException {
        int m = in.readInt();
        if (m != MAGIC) {
            throw new IOException(String.format("foreign handshake: magic 0x%08x, expected 0x%08x ('RYHS')", m, MAGIC));
        }
    }

    private static byte[] bytes(DataInputStream in, int n) throws IOException {
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }
}
