package org.railyard.relay;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What a relay counts, printed as {@code name value} lines by {@code railyard relay --stats}. Every
 * thread of the relay writes them; a snapshot is read without stopping anyone.
 */
final class RelayCounters {
    final AtomicLong connections = new AtomicLong();
    final AtomicLong connected = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong malformed = new AtomicLong();
    final AtomicLong jobs = new AtomicLong();
    final AtomicLong stored = new AtomicLong();
    final AtomicLong storedBytes = new AtomicLong();
    final AtomicLong duplicates = new AtomicLong();
    final AtomicLong delivered = new AtomicLong();
    final AtomicLong acknowledged = new AtomicLong();
    final AtomicLong heldBack = new AtomicLong();
    final AtomicLong compactions = new AtomicLong();
    final AtomicLong recovered = new AtomicLong();

    /** The counters, then the store's present contents, one {@code name value} per line. */
    String format(long heldMessages, long heldBytes, long maxBytes, long logBytes) {
        return "connections " + connections.get() + "\n"
                + "connected " + connected.get() + "\n"
                + "refused " + refused.get() + "\n"
                + "malformed " + malformed.get() + "\n"
                + "jobs " + jobs.get() + "\n"
                + "stored " + stored.get() + "\n"
                + "stored_bytes " + storedBytes.get() + "\n"
                + "duplicates " + duplicates.get() + "\n"
                + "delivered " + delivered.get() + "\n"
                + "acknowledged " + acknowledged.get() + "\n"
                + "held_back " + heldBack.get() + "\n"
                + "recovered " + recovered.get() + "\n"
                + "compactions " + compactions.get() + "\n"
                + "held_messages " + heldMessages + "\n"
                + "held_bytes " + heldBytes + "\n"
                + "max_bytes " + maxBytes + "\n"
                + "log_bytes " + logBytes + "\n";
    }
}
