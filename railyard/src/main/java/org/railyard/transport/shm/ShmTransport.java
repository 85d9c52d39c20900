package org.railyard.transport.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.railyard.bootstrap.AddressCard;
import org.railyard.transport.Bell;
import org.railyard.transport.Capability;
import org.railyard.transport.Link;
import org.railyard.transport.NodeMemory;
import org.railyard.transport.Transport;
import org.railyard.transport.TransportEnv;
import org.railyard.transport.ring.Doorbell;
import org.railyard.transport.ring.FrameRing;
import org.railyard.transport.ring.RingLink;
import org.railyard.util.Config;
import org.railyard.util.ProcessToken;

/**
 * Shared memory between processes of one node: a file in {@code /dev/shm} (tmpfs) mapped by both,
 * holding two {@link FrameRing}s. The connecting side creates and maps the file and offers its path;
 * the accepting side maps it; once the handshake has ended the file is unlinked, so nothing is left
 * behind whatever happens to the processes later. The file is created readable by its owner only.
 *
 * <p>It also shares the node's memory beyond its links ({@link Capability#NODE_MEMORY}): segments
 * mapped by several processes and cross-memory reads ({@link ShmNodeMemory}).
 */
public final class ShmTransport implements Transport {
    /** The acceptor's answer for a connector in its own process. */
    static final String IN_PROCESS = "in-process";
    private long ringBytes;
    private int maxFrame;
    private Path dir;
    private TransportEnv env;
    private Doorbell doorbell;
    private NodeMemory nodeMemory;

    @Override public String name() { return "shm"; }

    /** The cross-memory read's handle, and this process's identity token ({@link ProcessMemory}). */
    @Override
    public void prepareNative() {
        ProcessMemory.available();
    }
    @Override public int priority() { return 80; }
    @Override public int maxFrame() { return maxFrame; }

    private static final java.util.Set<Capability> CAPABILITIES = Capability.fixed(Capability.RELIABLE, Capability.ORDERED,
            Capability.SAME_NODE, Capability.DETECTS_FAILURE, Capability.NODE_MEMORY);

    @Override
    public java.util.Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public boolean start(TransportEnv env) throws IOException {
        this.env = env;
        this.doorbell = Doorbell.of(env);
        ringBytes = Config.bytes(Config.SHM_RING_PROP, Config.SHM_RING_DEFAULT);
        maxFrame = (int) Math.min(Config.bytes(Config.SHM_FRAME_PROP, Config.SHM_FRAME_DEFAULT), ringBytes / 4);
        if (Long.bitCount(ringBytes) != 1 || ringBytes < 4096) {
            throw new IllegalArgumentException("setting " + Config.SHM_RING_PROP + " = " + ringBytes
                    + " must be a power of two of at least 4096");
        }
        dir = SharedFiles.directory();
        nodeMemory = new ShmNodeMemory(dir, env.jobId());
        return true;
    }

    @Override
    public NodeMemory nodeMemory() {
        if (nodeMemory == null) {
            throw new IllegalStateException("the shm transport shares node memory once started");
        }
        return nodeMemory;
    }

    @Override
    public Bell bell() {
        return doorbell == null ? Bell.NONE : doorbell;
    }

    @Override
    public boolean reaches(AddressCard self, AddressCard peer) {
        return self.node().equals(peer.node()) && self.rank() != peer.rank();
    }

    /** The offer: {@code file|ring bytes|frame bytes|this process's token} ({@link ProcessToken}). */
    @Override
    public String offer(int peer, AddressCard peerCard) throws IOException {
        Path file = dir.resolve(SharedFiles.name(env.jobId(), env.rank() + "-" + peer));
        SharedFiles.create(file, 2 * FrameRing.bytesFor(ringBytes), false);
        return file + "|" + ringBytes + "|" + maxFrame + "|" + ProcessToken.get();
    }

    /** A connector that does not say whether the acceptor runs in its process: a link between two processes. */
    @Override
    public Link complete(int peer, String parameters, int maxFrame, SocketChannel handshake) throws IOException {
        return complete(peer, parameters, "", maxFrame, handshake);
    }

    @Override
    public Link complete(int peer, String parameters, String answer, int maxFrame, SocketChannel handshake)
            throws IOException {
        Path file = Path.of(parameters.split("\\|")[0]);
        try {
            return map(peer, parameters, IN_PROCESS.equals(answer) ? null : handshake, true);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * The acceptor's answer: {@value #IN_PROCESS} when the connector's token is this process's
     * (ranks as threads of one JVM), so that both ends drop the handshake socket, which would only
     * tell of a death that cannot part two threads of one process; empty otherwise.
     */
    @Override
    public String answer(Link link) {
        return link.holdsHandshake() ? "" : IN_PROCESS;
    }

    @Override
    public void abandon(int peer, String parameters) {
        try {
            Files.deleteIfExists(Path.of(parameters.split("\\|")[0]));
        } catch (IOException ignored) {
            // a leftover file in tmpfs is harmless and named after the job
        }
    }

    @Override
    public Link accept(int peer, String parameters, SocketChannel handshake) throws IOException {
        String[] p = parameters.split("\\|");
        boolean inProcess = p.length == 4 && p[3].equals(ProcessToken.get());
        return map(peer, parameters, inProcess ? null : handshake, false);
    }

    /** Maps the offered rings; {@code lifeline} null for a peer in this process (no liveness line). */
    private Link map(int peer, String parameters, SocketChannel lifeline, boolean connector) throws IOException {
        String[] p = parameters.split("\\|");
        Path file;
        long ring;
        int frame;
        try {
            if (p.length != 3 && p.length != 4) {
                throw new IllegalArgumentException(p.length + " fields");
            }
            file = Path.of(p[0]);
            ring = Long.parseLong(p[1]);
            frame = Integer.parseInt(p[2]);
        } catch (RuntimeException e) {
            throw new IOException("malformed shm offer '" + parameters + "': expected file|ring bytes|frame bytes[|process token]");
        }
        Path parent = file.getParent();
        if (parent == null || !parent.equals(dir) || !file.getFileName().toString().startsWith("railyard-")) {
            throw new IOException("shm offer names a file outside " + dir + ": " + file);
        }
        if (Long.bitCount(ring) != 1 || ring < 4096 || ring > Long.MAX_VALUE / 4) {
            throw new IOException("shm offer's ring of " + ring + " bytes is not a power of two of at least 4096");
        }
        long each = FrameRing.bytesFor(ring);
        Arena arena = Arena.ofShared();
        FrameRing a;
        FrameRing b;
        try {
            MemorySegment all = SharedFiles.map(file, 2 * each, arena, " for the shm rings");
            a = new FrameRing(all.asSlice(0, each), ring, frame);
            b = new FrameRing(all.asSlice(each, each), ring, frame);
        } catch (IllegalArgumentException e) {
            arena.close();
            throw new IOException("shm offer '" + parameters + "' does not describe two frame rings: " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
        FrameRing out = connector ? a : b;
        FrameRing in = connector ? b : a;
        return new RingLink(this, peer, out, in, lifeline, arena::close,
                "shm ring " + (ring >> 10) + " KiB, frames up to " + (frame >> 10) + " KiB", doorbell);
    }

    @Override
    public void close() {
    }
}
