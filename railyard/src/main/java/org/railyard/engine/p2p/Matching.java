package org.railyard.engine.p2p;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.function.Consumer;
import org.railyard.channel.VirtualChannel;

/**
 * MPI matching: the receives posted and not yet matched, and the messages that arrived before any
 * receive matched them (unexpected), both in order, so that the oldest match wins (MPI's
 * non-overtaking rule). A message is matched by context, source world rank and tag, with
 * {@link PointToPoint#ANY_SOURCE} and {@link PointToPoint#ANY_TAG} on the receive's side.
 * Unexpected records are pooled, their eager payload buffers in power-of-two size classes.
 * Driven only under the progress lock.
 *
 * <p>Both lists are kept per context: a message can only match a receive of its own context (no
 * wildcard covers contexts), so the order that counts is the order within a context, and a message
 * or a receive walks past its own context's entries only, not past the receives other
 * communicators keep posted (a window's header receives, a collective's) nor their unexpected
 * messages. Contexts below {@link #DENSE} are found by index, others in a map.
 */
final class Matching {
    /** Contexts found by index; a program with more communicators than this uses the map beyond. */
    static final int DENSE = 1 << 12;

    /** One context's posted receives and unexpected messages, each oldest first. */
    private static final class Queues {
        RecvTransfer postedHead, postedTail;
        Unexpected unexpectedHead, unexpectedTail;
    }

    private Queues[] dense = new Queues[64];
    private final HashMap<Integer, Queues> sparse = new HashMap<>();
    /** Contexts that ever had an entry, in the order they first did (for walks over every context). */
    private final ArrayList<Queues> all = new ArrayList<>();
    private int posted;
    private final Unexpected[] unexpectedPool = new Unexpected[32];

    /** The queues of {@code ctx}, or null if it never had an entry. */
    private Queues find(int ctx) {
        if (ctx >= 0 && ctx < DENSE) {
            return ctx < dense.length ? dense[ctx] : null;
        }
        return sparse.get(ctx);
    }

    /** The queues of {@code ctx}, made on first use. */
    private Queues of(int ctx) {
        Queues q = find(ctx);
        if (q != null) {
            return q;
        }
        q = new Queues();
        if (ctx >= 0 && ctx < DENSE) {
            if (ctx >= dense.length) {
                dense = Arrays.copyOf(dense, Math.min(DENSE, Math.max(ctx + 1, dense.length * 2)));
            }
            dense[ctx] = q;
        } else {
            sparse.put(ctx, q);
        }
        all.add(q);
        return q;
    }

    // ================================================================== posted receives

    /** Appends a receive that found no unexpected message. */
    void post(RecvTransfer t) {
        Queues q = of(t.context);
        t.prevMatch = q.postedTail;
        t.nextMatch = null;
        if (q.postedTail == null) {
            q.postedHead = t;
        } else {
            q.postedTail.nextMatch = t;
        }
        q.postedTail = t;
        posted++;
    }

    /** The oldest posted receive that a message of {@code (ctx, src, tag)} matches, or null. */
    RecvTransfer findPosted(int ctx, int src, int tag) {
        Queues q = find(ctx);
        if (q == null) {
            return null;
        }
        for (RecvTransfer t = q.postedHead; t != null; t = t.nextMatch) {
            if (t.matches(ctx, src, tag)) {
                return t;
            }
        }
        return null;
    }

    boolean isPosted(RecvTransfer t) {
        if (t.prevMatch != null) {
            return true;
        }
        Queues q = find(t.context);
        return q != null && q.postedHead == t;
    }

    void unlinkPosted(RecvTransfer t) {
        Queues q = find(t.context);
        if (t.prevMatch == null) {
            q.postedHead = t.nextMatch;
        } else {
            t.prevMatch.nextMatch = t.nextMatch;
        }
        if (t.nextMatch == null) {
            q.postedTail = t.prevMatch;
        } else {
            t.nextMatch.prevMatch = t.prevMatch;
        }
        t.nextMatch = null;
        t.prevMatch = null;
        posted--;
    }

    // ================================================================== unexpected messages

    /** The oldest unexpected message a receive of {@code (ctx, src, tag)} matches, or null. */
    Unexpected findUnexpected(int ctx, int src, int tag) {
        Queues q = find(ctx);
        if (q == null) {
            return null;
        }
        for (Unexpected u = q.unexpectedHead; u != null; u = u.next) {
            if (u.matches(ctx, src, tag)) {
                return u;
            }
        }
        return null;
    }

    /**
     * Keeps a message no receive matched: an eager one with its payload copied from
     * {@code seg[payload, payload + bytes)}, or the envelope of a rendezvous one ({@code rts}).
     */
    void addUnexpected(int ctx, int src, int tag, long bytes, Protocol protocol, boolean rts, VirtualChannel from,
                       long senderCookie, long readAddress, MemorySegment seg, long payload) {
        Unexpected u = acquire(rts ? 0 : bytes);
        u.context = ctx;
        u.source = src;
        u.tag = tag;
        u.bytes = bytes;
        u.rendezvous = rts;
        u.protocol = protocol;
        u.channel = from;
        u.senderCookie = senderCookie;
        u.readAddress = readAddress;
        if (!rts && bytes > 0) {
            MemorySegment.copy(seg, payload, u.dataSeg, 0, bytes);
        }
        Queues q = of(ctx);
        u.next = null;
        u.prev = q.unexpectedTail;
        if (q.unexpectedTail == null) {
            q.unexpectedHead = u;
        } else {
            q.unexpectedTail.next = u;
        }
        q.unexpectedTail = u;
    }

    /** Takes a matched message out of the list; give it back with {@link #release} once read. */
    void unlink(Unexpected u) {
        Queues q = find(u.context);
        if (u.prev == null) {
            q.unexpectedHead = u.next;
        } else {
            u.prev.next = u.next;
        }
        if (u.next == null) {
            q.unexpectedTail = u.prev;
        } else {
            u.next.prev = u.prev;
        }
        u.next = null;
        u.prev = null;
    }

    /** True if a receive is posted and not matched. */
    boolean anyPosted() {
        return posted > 0;
    }

    /**
     * Every unexpected message, context by context (in the order contexts first had an entry),
     * oldest first within each: the order a checkpoint keeps and a resumed rank adds them again in,
     * which keeps each context's order (the only order matching sees).
     */
    void forEachUnexpected(Consumer<Unexpected> f) {
        for (Queues q : all) {
            for (Unexpected u = q.unexpectedHead; u != null; u = u.next) {
                f.accept(u);
            }
        }
    }

    /** Appends the posted receives and the unexpected messages, oldest first per context, at most {@code max} lines of each. */
    void describe(StringBuilder sb, int max) {
        int n = 0;
        for (Queues q : all) {
            for (RecvTransfer t = q.postedHead; t != null; t = t.nextMatch, n++) {
                if (n < max) {
                    sb.append("  posted: ").append(t.describe()).append('\n');
                }
            }
        }
        sb.append("  ").append(n).append(" receives posted\n");
        int[] m = {0};
        forEachUnexpected(u -> {
            if (m[0]++ < max) {
                sb.append("  unexpected: from rank ").append(u.source).append(", context ").append(u.context)
                        .append(", tag 0x").append(Integer.toHexString(u.tag)).append(", ").append(u.bytes).append(" B")
                        .append(u.rendezvous ? " (request to send)" : "").append('\n');
            }
        });
        sb.append("  ").append(m[0]).append(" unexpected messages\n");
    }

    /** An unexpected-message record whose buffer holds at least {@code bytes}; size classes are powers of two. */
    private Unexpected acquire(long bytes) {
        int cls = bytes == 0 ? 0 : 64 - Long.numberOfLeadingZeros(Math.max(bytes, 64) - 1);
        Unexpected u = unexpectedPool[cls];
        if (u != null) {
            unexpectedPool[cls] = u.next;
            return u;
        }
        u = new Unexpected();
        if (cls > 0) {
            u.data = new byte[1 << cls];
            u.dataSeg = MemorySegment.ofArray(u.data);
        }
        return u;
    }

    void release(Unexpected u) {
        u.channel = null;
        int cls = u.data == null ? 0 : 31 - Integer.numberOfLeadingZeros(u.data.length);
        u.next = unexpectedPool[cls];
        u.prev = null;
        unexpectedPool[cls] = u;
    }
}
