package org.railyard.engine.p2p;

import java.lang.foreign.MemorySegment;
import org.railyard.channel.VirtualChannel;

/**
 * A message that arrived before any receive matched it: an eager message with its payload copied
 * aside, or the envelope of a rendezvous message (whose payload stays with the sender until a
 * receive matches and answers with CTS). Pooled; kept in arrival order in an intrusive list.
 */
final class Unexpected {
    int context;
    int source;
    int tag;
    long bytes;
    boolean rendezvous;
    /** The protocol that announced it, which the receive that matches it hands it to. */
    Protocol protocol;
    long senderCookie;
    /** An RTS whose cross-memory read offer was accepted: the payload's address in the sender, else 0. */
    long readAddress;
    VirtualChannel channel;
    byte[] data;
    MemorySegment dataSeg;
    Unexpected next;
    Unexpected prev;

    boolean matches(int ctx, int src, int tg) {
        return context == ctx && (src == PointToPoint.ANY_SOURCE || src == source) && (tg == PointToPoint.ANY_TAG || tg == tag);
    }
}
