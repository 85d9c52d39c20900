package org.railyard.gateway;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.locks.ReentrantLock;
import org.railyard.wire.GatewayFrame;

/** A connection that frames are forwarded to; written one frame at a time under {@link #writing}. */
final class Endpoint {
    final Socket socket;
    final OutputStream out;
    final ReentrantLock writing = new ReentrantLock();
    final String from;
    /** A rank's connection: its address; null otherwise. */
    volatile GatewayFrame.Address address;
    /** A peer gateway's connection: its site id; 0 otherwise. */
    volatile int peerSite;
    volatile GatewayJob job;
    /** {@link System#nanoTime} of the last write to it (a forwarded piece, a frame of this gateway's). */
    volatile long lastWrite = System.nanoTime();
    private final byte[] scratch = new byte[GatewayFrame.HEADER];

    Endpoint(Socket socket, String from) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.from = from;
    }

    void send(byte type, byte[] body) throws IOException {
        send(type, (byte) 0, body);
    }

    void send(byte type, byte flags, byte[] body) throws IOException {
        GatewayFrame.Address none = new GatewayFrame.Address(0, 0, -1);
        write(type, flags, none, none, body);
    }

    void sendQuietly(byte type, byte[] body) {
        try {
            send(type, body);
        } catch (IOException ignored) {
            // the connection is being closed for a reason already logged
        }
    }

    void sendQuietly(byte type, GatewayFrame.Address src, GatewayFrame.Address dst, byte[] body) {
        try {
            write(type, (byte) 0, src, dst, body);
        } catch (IOException ignored) {
            // its own reader will notice
        }
    }

    private void write(byte type, byte flags, GatewayFrame.Address src, GatewayFrame.Address dst, byte[] body)
            throws IOException {
        writing.lock();
        try {
            ByteArrayOutputStream b = new ByteArrayOutputStream(GatewayFrame.HEADER + body.length);
            GatewayFrame.write(new DataOutputStream(b), scratch, type, flags, job == null ? 0 : job.hash, src, dst, body);
            out.write(b.toByteArray());
            lastWrite = System.nanoTime();
        } finally {
            writing.unlock();
        }
    }

    /**
     * Sends WARM if nothing was written for {@code quietNanos} and no frame is being written now
     * (a stripe busy with a frame is not idle); a failed write is left to the stripe's reader.
     * True if it sent one.
     */
    boolean warmIfQuiet(long quietNanos) {
        if (System.nanoTime() - lastWrite < quietNanos || !writing.tryLock()) {
            return false;
        }
        try {
            GatewayFrame.Address self = new GatewayFrame.Address(0, 0, -1);
            write(GatewayFrame.WARM, (byte) 0, self, self, new byte[0]);
            return true;
        } catch (IOException ignored) {
            return false; // its own reader will notice
        } finally {
            writing.unlock();
        }
    }

    void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already broken
        }
    }

    boolean isOpen() {
        return !socket.isClosed();
    }
}
