package org.railyard.stack;

import java.lang.foreign.MemorySegment;
import java.util.Random;

/**
 * A test-only layer that damages the datagrams going down through it, reproducibly: it drops a
 * share of them, sends a share twice, and holds a share back until the next one has gone
 * (reordering). JGroups' DISCARD in spirit. Put under a stack by the setting
 * {@code railyard.stack.inject=org.railyard.stack.SeededFaults:drop=0.05,dup=0.01,reorder=0.05,seed=7},
 * or directly between two sessions by {@link Harness}.
 *
 * <p>Spec: comma-separated {@code drop}, {@code dup}, {@code reorder} (probabilities in [0, 1]),
 * {@code seed}, {@code dropIndex} (drop exactly that datagram, counting from 1); the peer's rank is
 * mixed into the seed so the two directions differ.
 */
public final class SeededFaults extends MicroProtocol {
    /** Probabilities; a test may change them between steps. */
    double drop;
    double dup;
    double reorder;
    /** Drops exactly the datagrams with these 1-based indices, whatever the probabilities say. */
    final java.util.Set<Long> dropAt = new java.util.HashSet<>();
    private long index;
    private final Random random;
    private Segment heldBack;
    /** True while a datagram is held back (it will go after the next one, or after a few ticks). */
    boolean holding() {
        return heldBack != null;
    }

    /** Datagrams that passed through this layer so far (the index of the last one). */
    long index() {
        return index;
    }

    /** What was done, for tests that check the layer really worked. */
    public long passed, dropped, duplicated, reordered;
    /** Datagrams dropped by every instance in this JVM (the layers a stack makes are not reachable from a test). */
    public static final java.util.concurrent.atomic.AtomicLong DROPPED_EVERYWHERE = new java.util.concurrent.atomic.AtomicLong();
    /** Datagrams held back (reordered) by every instance in this JVM. */
    public static final java.util.concurrent.atomic.AtomicLong REORDERED_EVERYWHERE = new java.util.concurrent.atomic.AtomicLong();

    public SeededFaults(String spec, int peer) {
        double d = 0;
        double u = 0;
        double r = 0;
        long seed = 1;
        for (String part : spec.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            String[] kv = part.split("=", 2);
            double v = Double.parseDouble(kv[1].trim());
            switch (kv[0].trim()) {
                case "drop" -> d = v;
                case "dup" -> u = v;
                case "reorder" -> r = v;
                case "seed" -> seed = (long) v;
                case "dropIndex" -> dropAt.add((long) v);
                default -> throw new IllegalArgumentException("SeededFaults: unknown '" + kv[0] + "' in '" + spec + "'");
            }
        }
        this.drop = d;
        this.dup = u;
        this.reorder = r;
        this.random = new Random(seed * 1_000_003L + peer);
    }

    @Override
    protected void down(Segment s) {
        double x = random.nextDouble();
        index++;
        if (x < drop || dropAt.contains(index)) {
            dropped++;
            DROPPED_EVERYWHERE.incrementAndGet();
            s.release();
            return;
        }
        if (x < drop + reorder) {
            if (heldBack == null) {
                // keep a copy: the sender may retransmit the very same buffer while it is held here
                heldBack = copy(s);
                s.release();
                reordered++;
                REORDERED_EVERYWHERE.incrementAndGet();
                return;
            }
        } else if (x < drop + reorder + dup) {
            duplicated++;
            below.down(copy(s));
        }
        passed++;
        below.down(s);
        releaseHeld();
    }

    private void releaseHeld() {
        if (heldBack != null) {
            Segment h = heldBack;
            heldBack = null;
            below.down(h);
        }
    }

    private Segment copy(Segment s) {
        Segment c = s.pool.datagramSegment();
        MemorySegment.copy(s.mem, 0, c.mem, 0, s.length);
        c.length = s.length;
        return c;
    }

    @Override
    protected void onTick(long now) {
        // a datagram held back must not wait forever when nothing follows it
        if (heldBack != null && ++idleTicks > 2) {
            idleTicks = 0;
            releaseHeld();
        }
    }

    private int idleTicks;

    @Override
    protected void onClose() {
        if (heldBack != null) {
            heldBack.release();
            heldBack = null;
        }
    }

    @Override
    public String name() {
        return "SeededFaults";
    }
}
