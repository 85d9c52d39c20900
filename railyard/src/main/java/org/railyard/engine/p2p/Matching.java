package org.railyard.engine.p2p;

import java.lang.foreign.MemorySegment;
import org.railyard.channel.VirtualChannel;

/**
 * MPI matching: the receives posted and not yet matched, and the messages that arrived before any
 * receive matched them (unexpected), both in order, so that the oldest match wins (MPI's
 * non-overtaking rule). A message is matched by context, source world rank and tag, with
 * {@link PointToPoint#ANY_SOURCE} and {@link PointToPoint#ANY_TAG} on the receive's side.
 * Unexpected records are pooled, their eager payload buffers in power-of-two size classes.
 * Driven only under the progress lock.
 */
final class Matching {
    private RecvTransfer postedHead, postedTail;
    private Unexpected unexpectedHead, unexpectedTail;
    private final Unexpected[] unexpectedPool = new Unexpected[32];

    // ================================================================== posted receives

    /** Appends a receive that found no unexpected message. */
    void post(RecvTransfer t) {
        t.prevMatch = postedTail;
        t.nextMatch = null;
        if (postedTail == null) {
            postedHead = t;
        } else {
            postedTail.nextMatch = t;
        }
        postedTail = t;
    }

    /** The oldest posted receive that a message of {@code (ctx, src, tag)} matches, or null. */
    RecvTransfer findPosted(int ctx, int src, int tag) {
        for (RecvTransfer t = postedHead; t != null; t = t.nextMatch) {
            if (t.matches(ctx, src, tag)) {
                return t;
            }
        }
        return null;
    }

    boolean isPosted(RecvTransfer t) {
        return t.prevMatch != null || postedHead == t;
    }

    void unlinkPosted(RecvTransfer t) {
        if (t.prevMatch == null) {
            postedHead = t.nextMatch;
        } else {
            t.prevMatch.nextMatch = t.nextMatch;
        }
        if (t.nextMatch == null) {
            postedTail = t.prevMatch;
        } else {
            t.nextMatch.prevMatch = t.prevMatch;
        }
        t.nextMatch = null;
        t.prevMatch = null;
    }

    // ================================================================== unexpected messages

    /** The oldest unexpected message a receive of {@code (ctx, src, tag)} matches, or null. */
    Unexpected findUnexpected(int ctx, int src, int tag) {
        for (Unexpected u = unexpectedHead; u != null; u = u.next) {
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
        u.next = null;
        u.prev = unexpectedTail;
        if (unexpectedTail == null) {
            unexpectedHead = u;
        } else {
            unexpectedTail.next = u;
        }
        unexpectedTail = u;
    }

    /** Takes a matched message out of the list; give it back with {@link #release} once read. */
    void unlink(Unexpected u) {
        if (u.prev == null) {
            unexpectedHead = u.next;
        } else {
            u.prev.next = u.next;
        }
        if (u.next == null) {
            unexpectedTail = u.prev;
        } else {
            u.next.prev = u.prev;
        }
        u.next = null;
        u.prev = null;
    }

    /** True if a receive is posted and not matched. */
    boolean anyPosted() {
        return postedHead != null;
    }

    /** The oldest unexpected message (then follow {@code next}), or null. */
    Unexpected oldestUnexpected() {
        return unexpectedHead;
    }

    /** Appends the posted receives and the unexpected messages, oldest first, at most {@code max} lines of each. */
    void describe(StringBuilder sb, int max) {
        int n = 0;
        for (RecvTransfer t = postedHead; t != null; t = t.nextMatch, n++) {
            if (n < max) {
                sb.append("  posted: ").append(t.describe()).append('\n');
            }
        }
        sb.append("  ").append(n).append(" receives posted\n");
        n = 0;
        for (Unexpected u = unexpectedHead; u != null; u = u.next, n++) {
            if (n < max) {
                sb.append("  unexpected: from rank ").append(u.source).append(", context ").append(u.context)
                        .append(", tag 0x").append(Integer.toHexString(u.tag)).append(", ").append(u.bytes).append(" B")
                        .append(u.rendezvous ? " (request to send)" : "").append('\n');
            }
        }
        sb.append("  ").append(n).append(" unexpected messages\n");
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
