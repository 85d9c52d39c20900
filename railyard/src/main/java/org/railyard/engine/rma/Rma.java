package org.railyard.engine.rma;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.concurrent.locks.ReentrantLock;
import org.railyard.channel.LocalMemory;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.types.Kind;
import org.railyard.util.Config;
import org.railyard.util.WaitPlan;
import org.railyard.wire.RmaHeader;

/**
 * One-sided communication of one process: creates windows (collectively) and serves them. Each
 * window runs on a private duplicate of its communicator, so its messages never meet the
 * program's. {@link #progress()} runs in every duty cycle of the engine (the background agent's
 * while the program computes, a waiting thread's otherwise): that is what makes passive target
 * passive.
 *
 * <p>Memory: {@code allocateShared}, and {@code allocate} when every member runs on this node and
 * a transport shares the node's memory ({@link RmaServices#localMemory}; {@value #SHM_PROP}, on by
 * default), map one segment of the node's memory holding every member's part (each on a 64-byte boundary, after the {@link SharedHeader}: the fence's
 * barrier and the accumulate locks): rank 0 creates it and broadcasts its name, each member maps it, all agree,
 * rank 0 unlinks it. Origins then reach every member's memory with loads, stores and atomics.
 */
public final class Rma {
    /** Longs each member contributes to a window's description: bytes, unit, array kind (-1: none), flavour. */
    static final int INFO = 4;
    /** Bound of every wait of a window on other members (seconds). */
    public static final String TIMEOUT_PROP = "railyard.rma.timeout";
    public static final long TIMEOUT_DEFAULT = 600;
    /** Whether {@code allocate} maps the members' memory when they share a node. */
    public static final String SHM_PROP = "railyard.rma.shm";

    /**
     * Bytes of data up to which a put or accumulate over messages travels inside its header record
     * (and so in its target's batch), and a result inside its batch's reply; larger data is a
     * message of its own. 0 to {@link RmaHeader#MAX_INLINE_BYTES}.
     */
    public static final String INLINE_PROP = "railyard.rma.inline";

    private static final int NAME_BYTES = 200;

    private final RmaServices s;
    private final ArrayList<RmaWindow> windows = new ArrayList<>();
    private int nextId;
    /** How the waits of mapped windows poll and yield; made at the first mapped window, the same for all. */
    private WaitPlan waitPlan;

    public Rma(RmaServices services) {
        this.s = services;
    }

    /** The waits' plan of this process's mapped windows; lock held (windows are made under it). */
    WaitPlan waitPlan() {
        if (waitPlan == null) {
            waitPlan = WaitPlan.forThisNode(s.size());
            s.choice("rank " + s.rank() + ": waits of mapped windows: " + waitPlan.describe());
        }
        return waitPlan;
    }

    /** The bound of {@value #INLINE_PROP}, checked: a value outside its range fails naming the setting. */
    static int inlineBytes() {
        long v = Config.bytes(INLINE_PROP, RmaHeader.INLINE_BYTES);
        if (v < 0 || v > RmaHeader.MAX_INLINE_BYTES) {
            throw new RailyardException(ErrorClass.ARG, INLINE_PROP + " is " + v + " bytes, outside [0, "
                    + RmaHeader.MAX_INLINE_BYTES + "]");
        }
        return (int) v;
    }

    static long timeoutNanos() {
        return Math.max(1, Config.number(TIMEOUT_PROP, TIMEOUT_DEFAULT)) * 1_000_000_000L;
    }

    /** Collective: a window over {@code buffer} (array, ByteBuffer, MemorySegment, or null for none). */
    public RmaWindow create(CommState c, Object buffer, int dispUnit) {
        checkCreate(c, dispUnit);
        if (buffer != null) {
            Kind.ofBuffer(buffer).checkRange(buffer, 0, 0);
        }
        WindowMemory mem = WindowMemory.of(buffer);
        return finish(c, RmaWindow.FLAVOR_CREATE, mem, buffer, mem.bytes(), dispUnit,
                mem.array != null ? mem.arrayKind.ordinal() : -1, null, null, null);
    }

    /** Collective: a window with no memory until {@code attach}. */
    public RmaWindow createDynamic(CommState c) {
        checkCreate(c, 1);
        return finish(c, RmaWindow.FLAVOR_DYNAMIC, WindowMemory.dynamicMemory(), null, 0, 1, -1, null, null, null);
    }

    /** Collective: a window of {@code bytes} allocated by the library; mapped by every member if {@code shared}. */
    public RmaWindow allocate(CommState c, long bytes, int dispUnit, boolean shared) {
        checkCreate(c, dispUnit);
        if (bytes < 0) {
            throw new RailyardException(ErrorClass.ARG, "window size " + bytes + " bytes is negative");
        }
        int flavor = shared ? RmaWindow.FLAVOR_SHARED : RmaWindow.FLAVOR_ALLOCATE;
        String node = s.nodeOf(c.worldRank(c.rank()));
        String other = null;
        for (int r = 0; r < c.size() && other == null; r++) {
            if (!s.nodeOf(c.worldRank(r)).equals(node)) {
                other = "rank " + r + " runs on " + s.nodeOf(c.worldRank(r)) + ", rank " + c.rank() + " on " + node;
            }
        }
        if (shared && other != null) {
            throw new RailyardException(ErrorClass.ARG, "allocateShared over " + c.name()
                    + " needs every member on one node: " + other);
        }
        boolean map = other == null && s.localMemory() != null && (shared || Config.bool(SHM_PROP, true));
        if (map || shared) {
            // every member decides the same: nodes and settings come from the same job
            long[] sizes = new long[c.size()];
            s.allgather(c, new long[] {bytes}, sizes);
            Mapping m = map(c, sizes);
            if (m != null) {
                WindowMemory mem = WindowMemory.of(m.parts[c.rank()]);
                return finish(c, flavor, mem, null, bytes, dispUnit, -1, m.parts, m.header, m.arena);
            }
            if (shared) {
                throw new RailyardException(ErrorClass.IO, "allocateShared over " + c.name()
                        + ": the members could not map one segment (see the choice log)");
            }
        }
        Arena arena = Arena.ofShared();
        MemorySegment seg = arena.allocate(Math.max(1, bytes), 64).asSlice(0, bytes);
        return finish(c, flavor, WindowMemory.of(seg), null, bytes, dispUnit, -1, null, null, arena);
    }

    private void checkCreate(CommState c, int dispUnit) {
        s.checkComm(c);
        if (c.isInter()) {
            throw new RailyardException(ErrorClass.COMM, "a window needs an intracommunicator, not " + c.name());
        }
        if (dispUnit <= 0) {
            throw new RailyardException(ErrorClass.ARG, "displacement unit " + dispUnit + " is not positive");
        }
    }

    private RmaWindow finish(CommState c, int flavor, WindowMemory mem, Object buffer, long bytes, int dispUnit,
                             int arrayKind, MemorySegment[] parts, MemorySegment header, Arena arena) {
        CommState dup = s.dup(c);
        long[] info = new long[INFO * c.size()];
        s.allgather(dup, new long[] {bytes, dispUnit, arrayKind, flavor}, info);
        ReentrantLock lock = s.progressLock();
        lock.lock();
        try {
            RmaWindow w = new RmaWindow(this, s, dup, "win" + (++nextId) + " on " + c.name(), flavor, mem, buffer, info,
                    parts, header, arena);
            windows.add(w);
            w.start();
            s.choice("rank " + s.rank() + ": window " + w.name() + ": " + (header != null
                    ? "mapped: operations are loads, stores and atomics; fence, lock/unlock and post/start/complete/wait "
                    + "through the mapping's header"
                    : "messages: operations and every synchronisation are messages to the targets' progress; data up to "
                    + w.inlineBytes() + " B travels inline, in batches"));
            return w;
        } finally {
            lock.unlock();
        }
    }

    /** A window is freed; lock held. */
    void unregister(RmaWindow w) {
        windows.remove(w);
    }

    /** True if no window is open (an open window's targets serve its origins' requests). Lock held. */
    public boolean quiet() {
        return windows.isEmpty();
    }

    /** Serves every window: headers in, operations applied, origin requests completed. Lock held. */
    public int progress() {
        int work = 0;
        for (int i = 0; i < windows.size(); i++) {
            work += windows.get(i).progress();
        }
        return work;
    }

    // ================================================================== the mapped segment

    private record Mapping(Arena arena, MemorySegment[] parts, MemorySegment header) {
    }

    /** Maps every member's part (sizes in rank order) in one file; null (logged) if some member could not. */
    private Mapping map(CommState c, long[] sizes) {
        long total = SharedHeader.bytes(sizes.length);
        long[] at = new long[sizes.length];
        for (int r = 0; r < sizes.length; r++) {
            at[r] = total;
            total += (sizes[r] + 63) & ~63L;
        }
        LocalMemory memory = s.localMemory();
        byte[] name = new byte[NAME_BYTES];
        String created = null;
        // allocateShared comes here without one: the members still agree, then fail alike
        String why = memory == null ? "no transport of this process shares the node's memory (railyard.transports)" : null;
        if (c.rank() == 0 && why == null) {
            try {
                created = memory.createSegment("win", total);
                byte[] b = created.getBytes(StandardCharsets.US_ASCII);
                name[0] = (byte) b.length;
                System.arraycopy(b, 0, name, 1, b.length);
            } catch (IOException | RuntimeException e) {
                why = "creating it failed: " + e;
            }
        }
        Arena arena = null;
        MemorySegment seg = null;
        try {
            s.bcast(c, name, 0);
            int len = name[0] & 0xFF;
            if (len == 0) {
                why = why != null ? why : "rank 0 could not create it";
            } else if (why == null) {
                arena = Arena.ofShared();
                try {
                    seg = memory.attachSegment(new String(name, 1, len, StandardCharsets.US_ASCII), total, arena,
                            " (do all members agree on the window's sizes?)");
                } catch (IOException | RuntimeException e) {
                    why = "mapping it failed: " + e;
                }
            }
            long[] all = new long[c.size()];
            s.allgather(c, new long[] {seg != null ? 1 : 0}, all);
            boolean ok = true;
            for (long v : all) {
                ok &= v == 1;
            }
            if (ok) {
                MemorySegment[] parts = new MemorySegment[sizes.length];
                for (int r = 0; r < sizes.length; r++) {
                    parts[r] = seg.asSlice(at[r], sizes[r]);
                }
                return new Mapping(arena, parts, seg.asSlice(0, SharedHeader.bytes(sizes.length)));
            }
            why = why != null ? why : "another member could not map it";
        } finally {
            if (created != null) {
                memory.unlinkSegment(created);
            }
        }
        if (arena != null) {
            arena.close();
        }
        s.choice("rank " + s.rank() + ": window over " + c.name() + ": no mapped segment, " + why);
        return null;
    }
}
