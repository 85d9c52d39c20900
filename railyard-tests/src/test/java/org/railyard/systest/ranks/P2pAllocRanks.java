package org.railyard.systest.ranks;

import static org.railyard.systest.ranks.RankSupport.require;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.railyard.Comm;
import org.railyard.Op;
import org.railyard.Railyard;
import org.railyard.Status;
import org.railyard.testkit.Allocation;

/**
 * Blocking point-to-point calls in a ping-pong between ranks 0 and 1: standard sends at eager
 * sizes (8 B, 1 KiB) and at a rendezvous size (256 KiB), and synchronous sends of 8 B (a
 * rendezvous of an empty-looking message), each with heap arrays and with off-heap segments. Each
 * round trip runs {@code WARM} times, then in at least {@link Allocation#MIN_WINDOWS} windows (more, up to {@link Allocation#MAX_WINDOWS}, until every rank's least is under the goal) of {@code PER_WINDOW} (see
 * {@link Allocation}), and rank 0 prints {@code ALLOC <call> <bytes> <heap|offheap> <least B/round
 * trip> (windows ...)}: the heap bytes every thread of this JVM allocated (the progress agent's
 * included) per round trip. A request, a frame header object
 * or a status taken from the heap per message would show here as tens of bytes and more. The
 * echoed payload is checked once per case; the program ends with {@code OK p2p-alloc rank R}.
 */
public final class P2pAllocRanks {
    private static final int WARM = 3000;
    /** Bytes per round trip: room for a pool growing once during the measured calls, not for a request per message. */
    public static final double GOAL = 32;
    /**
     * Bytes per round trip of the cross-memory read (shm, off-heap, rendezvous size): about 40 are
     * still taken by the read path, from a source not yet found (96 before the receiver stopped
     * slicing the buffer and looking the sender's process id up per message). Held here so that it
     * cannot grow unseen; the goal is {@link #GOAL}.
     */
    public static final double READ_GOAL = 64;
    private static final int PER_WINDOW = 2000;
    private static final int[] SIZES = {8, 1024, 256 * 1024};

    private P2pAllocRanks() {
    }

    public static void main(String[] args) {
        try (Railyard ry = Railyard.init(args); Arena arena = Arena.ofShared()) {
            Comm c = ry.world();
            int me = c.rank();
            require(c.size() == 2, "run with 2 ranks, not " + c.size());
            Status st = new Status();
            for (int size : SIZES) {
                byte[] heap = new byte[size];
                MemorySegment off = arena.allocate(size, 64);
                for (int i = 0; i < size; i++) {
                    heap[i] = (byte) (i * 3);
                    off.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 5));
                }
                measure(c, me, "send", size, "heap", () -> pingPong(c, me, heap, size, false, st),
                        () -> require(heap[size - 1] == (byte) ((size - 1) * 3), "heap payload echoed"));
                measure(c, me, "send", size, "offheap", () -> pingPong(c, me, off, size, false, st),
                        () -> require(off.get(ValueLayout.JAVA_BYTE, size - 1) == (byte) ((size - 1) * 5),
                                "off-heap payload echoed"));
            }
            byte[] small = new byte[8];
            measure(c, me, "ssend", 8, "heap", () -> pingPong(c, me, small, 8, true, st), () -> { });
            System.out.println("OK p2p-alloc rank " + me);
        }
    }

    /** Rank 0 sends and waits for the echo; rank 1 receives and sends it back. */
    private static void pingPong(Comm c, int me, Object buf, int size, boolean sync, Status st) {
        if (me == 0) {
            send(c, buf, size, 1, sync);
            c.recv(buf, 0, size, 1, 7, st);
        } else {
            c.recv(buf, 0, size, 0, 7, st);
            send(c, buf, size, 0, sync);
        }
    }

    private static void send(Comm c, Object buf, int size, int dest, boolean sync) {
        if (sync) {
            c.ssend(buf, 0, size, dest, 7);
        } else {
            c.send(buf, 0, size, dest, 7);
        }
    }

    /** True for the case that the shm transport moves by a cross-memory read (its own goal). */
    public static boolean isCrossMemoryRead(int size, String buffers) {
        return size == 256 * 1024 && buffers.equals("offheap") && "shm".equals(System.getenv("RAILYARD_TRANSPORTS"));
    }

    private static void measure(Comm c, int me, String what, int size, String buffers, Runnable call, Runnable check) {
        call.run();
        check.run();
        for (int i = 1; i < WARM; i++) {
            call.run();
        }
        try {
            double goal = isCrossMemoryRead(size, buffers) ? READ_GOAL : GOAL;
            Allocation.Windows w = Allocation.perCallUntil(PER_WINDOW, goal, c::barrier,
                    mine -> c.allreduce(mine ? 1.0 : 0.0, Op.MIN) == 1.0, call::run);
            if (me == 0) {
                System.out.println("ALLOC " + what + " " + size + " " + buffers + " " + w);
            }
        } catch (Exception e) {
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
    }
}
