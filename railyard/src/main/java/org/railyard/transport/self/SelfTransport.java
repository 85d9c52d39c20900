package org.railyard.transport.self;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.railyard.bootstrap.AddressCard;
import org.railyard.transport.Capability;
import org.railyard.transport.Bell;
import org.railyard.transport.Link;
import org.railyard.transport.HandshakeFree;
import org.railyard.transport.TransportEnv;
import org.railyard.transport.ring.Doorbell;
import org.railyard.transport.ring.FrameRing;
import org.railyard.transport.ring.RingLink;

/**
 * A process sending to itself: one {@link FrameRing} in private memory, read and written by the
 * same progress agent. Never goes through the handshake: the connector asks for {@link #loopback}
 * ({@link Capability#LOOPBACK}). Its ring rings the process's one {@link Doorbell}, shared with shm.
 */
public final class SelfTransport implements HandshakeFree {
    private static final long RING = 1L << 22;
    private static final int FRAME = 256 * 1024;

    @Override public String name() { return "self"; }
    @Override public int priority() { return 100; }
    @Override public int maxFrame() { return FRAME; }

    private static final java.util.Set<Capability> CAPABILITIES = Capability.fixed(Capability.RELIABLE, Capability.ORDERED,
            Capability.SAME_NODE, Capability.LOOPBACK);

    @Override
    public java.util.Set<Capability> capabilities() {
        return CAPABILITIES;
    }
    private Doorbell doorbell;

    @Override
    public boolean start(TransportEnv env) {
        doorbell = Doorbell.of(env);
        return true;
    }

    @Override
    public Bell bell() {
        return doorbell == null ? Bell.NONE : doorbell;
    }

    @Override
    public boolean reaches(AddressCard self, AddressCard peer) {
        return self.rank() == peer.rank();
    }

    /** The link of a process to itself. */
    @Override
    public Link loopback(int rank) throws IOException {
        Arena arena = Arena.ofShared();
        MemorySegment seg = arena.allocate(FrameRing.bytesFor(RING), 4096);
        FrameRing ring = new FrameRing(seg, RING, FRAME);
        FrameRing reader = new FrameRing(seg, RING, FRAME);
        return new RingLink(this, rank, ring, reader, null, arena::close, "self ring " + (RING >> 10) + " KiB", doorbell);
    }

    @Override
    public void close() {
    }
}
