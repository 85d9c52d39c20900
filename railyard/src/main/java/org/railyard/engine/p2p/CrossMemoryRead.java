package org.railyard.engine.p2p;

import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;
import org.railyard.channel.ChannelTable;
import org.railyard.channel.LocalMemory;
import org.railyard.channel.VirtualChannel;
import org.railyard.wire.FrameHeader;

/**
 * The cross-memory read protocol, a variant of rendezvous between processes of one node joined by
 * shared memory alone: the RTS of a large payload in native memory offers its address
 * ({@link FrameHeader#FLAG_REMOTE_READ}) with the sender's identity token; a receiver whose buffer
 * is native too reads the payload itself ({@link LocalMemory}: {@code process_vm_readv}) and its CTS says so
 * ({@link FrameHeader#FLAG_READ_DONE}), so no DATA follows. Anything else (a heap buffer at either
 * end, a receive too small, a refused or failed read) falls back to DATA frames. The RTS, the CTS
 * and the DATA frames of that fallback are {@link Rendezvous}'s. Driven under the progress lock.
 */
final class CrossMemoryRead implements Protocol {
    private static final System.Logger LOG = System.getLogger("org.railyard.engine");

    private final int rank;
    private final ChannelTable channels;
    private final Consumer<String> choice;
    private final Rendezvous rendezvous;
    /**
     * The node's memory when rendezvous payloads in native memory may be read by a receiver on
     * this node ({@code railyard.cma}, a transport that shares the memory, the call there); else null.
     */
    private final LocalMemory memory;
    private final boolean enabled;
    /** Smallest payload offered for a cross-memory read ({@code railyard.cma.min}). */
    private final long minBytes;
    /** Per world rank: 0 not yet checked, 1 its identity token checked, -1 cross-memory reads refused. */
    private final byte[] peerMemory;
    /** Per world rank: its process id once read from its address card, else 0. */
    private final long[] pids;
    private final LocalMemory.Reader reader;
    private long reads;
    private long readBytes;

    CrossMemoryRead(int rank, int size, ChannelTable channels, LocalMemory memory, long minBytes, Rendezvous rendezvous,
                    Consumer<String> choice) {
        this.rank = rank;
        this.rendezvous = rendezvous;
        this.channels = channels;
        this.memory = memory;
        this.enabled = memory != null;
        this.reader = memory != null ? memory.reader() : null;
        this.minBytes = minBytes;
        this.peerMemory = new byte[size];
        this.pids = new long[size];
        this.choice = choice;
    }

    boolean enabled() {
        return enabled;
    }

    long reads() {
        return reads;
    }

    long readBytes() {
        return readBytes;
    }

    /**
     * The address a send of {@code t} that does not go eagerly offers for reading, or 0 (it is then
     * a plain {@link Rendezvous}): reads are on, the send allows it, its payload is large enough and
     * in native memory, and the peer is on this node over shared memory alone and has not refused.
     */
    long offer(SendTransfer t, VirtualChannel ch) {
        if (!enabled || !t.mayBeRead || t.capacityBytes < minBytes || peerMemory[t.peer] < 0 || !ch.sharesMemory()) {
            return 0;
        }
        MemorySegment s = nativeSegment(t.buf);
        return s == null ? 0 : s.address() + (long) t.offset * t.kind.size;
    }

    /** A send whose {@link SendTransfer#readAddress} this protocol offered: its RTS carries the offer. */
    @Override
    public void start(SendTransfer t, VirtualChannel ch) {
        t.reads = this;
        t.go(SendTransfer.PHASE_RTS, ch);
    }

    /**
     * A receive matched an RTS whose offer this process accepted: reads the payload if the
     * receive can take it that way ({@link #read}), then answers CTS, which says whether it did.
     */
    @Override
    public void matched(RecvTransfer t, VirtualChannel ch, MemorySegment seg, long at, long cookie, long readAddress) {
        if (rendezvous.accept(t, ch, cookie)) {
            read(t, ch.peer(), readAddress);
            ch.sendEnvelope(t);
        }
    }

    /** Writes this process's identity token into the RTS at {@code frame} that offers a read. */
    void writeOffer(MemorySegment seg, long frame) {
        FrameHeader.writeReadOffer(seg, frame, memory.identityAddress(), memory.identityWord(0), memory.identityWord(1));
    }

    /**
     * The address an RTS with {@link FrameHeader#FLAG_REMOTE_READ} offers, or 0 when this process
     * will not read it: reads are off, or refused for this peer. The sender's identity token is
     * checked on the first offer of each peer; if it cannot be read back, the process id does not
     * name the sender (another pid namespace), and the peer's offers are declined from then on.
     */
    long accept(int peer, MemorySegment seg, long off) {
        if (!enabled || peerMemory[peer] < 0) {
            return 0;
        }
        if (peerMemory[peer] == 0) {
            long pid = pid(peer);
            if (!memory.verify(pid, FrameHeader.offerIdentityAddress(seg, off),
                    FrameHeader.offerIdentityWord(seg, off, 0), FrameHeader.offerIdentityWord(seg, off, 1))) {
                peerMemory[peer] = -1;
                choice.accept("rank " + rank + ": cross-memory reads from world rank " + peer + " (pid " + pid + ") refused: its "
                        + "identity token could not be read back; its large messages come through the shm ring");
                return 0;
            }
            peerMemory[peer] = 1;
        }
        return FrameHeader.arg(seg, off);
    }

    /**
     * The sender offered its payload at {@code readAddress} in its own memory (an offer accepted by
     * {@link #accept}): if this receive's buffer is native memory that holds the whole message,
     * reads it from there in one copy and marks the receive so that its CTS tells the sender it is
     * done. Otherwise (a heap buffer, a message that will be truncated, a failed read) the CTS asks
     * for DATA frames as usual.
     */
    void read(RecvTransfer t, int peer, long readAddress) {
        MemorySegment buffer = nativeSegment(t.buf);
        if (buffer == null || t.messageBytes > t.capacityBytes || peerMemory[peer] < 0) {
            return;
        }
        long at = (long) t.offset * t.kind.size;
        if (at + t.messageBytes > buffer.byteSize() || !buffer.scope().isAlive()) {
            return; // the DATA frames then meet the same bounds and liveness checks as any copy
        }
        long pid = pid(peer);
        // by address, not through a slice: a slice is an object per message
        long r = reader.read(pid, buffer.address() + at, readAddress, t.messageBytes);
        if (r != t.messageBytes) {
            peerMemory[peer] = -1;
            LOG.log(System.Logger.Level.WARNING, "rank " + rank + ": reading " + t.messageBytes + " B from world rank " + peer
                    + " (pid " + pid + ") failed: " + memory.errorName(r) + "; its large messages come through the shm ring");
            return;
        }
        t.received = t.messageBytes;
        t.readDone = true;
        reads++;
        readBytes += t.messageBytes;
    }

    /** The process id of world rank {@code peer}, read from its address card once. */
    private long pid(int peer) {
        if (pids[peer] == 0) {
            pids[peer] = channels.pidOf(peer);
        }
        return pids[peer];
    }

    /** The buffer as a segment of native memory, or null if it is not in native memory. */
    private static MemorySegment nativeSegment(Object buf) {
        MemorySegment s = null;
        if (buf instanceof MemorySegment m) {
            s = m;
        } else if (buf instanceof java.nio.ByteBuffer b && b.isDirect()) {
            s = MemorySegment.ofBuffer(b);
        }
        return s != null && s.isNative() ? s : null;
    }
}
