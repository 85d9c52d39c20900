package org.railyard.stack;

import java.util.Locale;

/** The iterative scheme a flow is composed for (seed 000): every value delivered, or only the latest. */
public enum Scheme {
    /** Synchronous iterations (and all message passing): every frame, in order. */
    SYNC,
    /** Asynchronous iterations: the newest value of each flow; older ones may be superseded or lost. */
    ASYNC;

    /** "sync" or "async". */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses "sync" / "async" (any case). */
    public static Scheme parse(String s) {
        return switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "sync", "synchronous" -> SYNC;
            case "async", "asynchronous" -> ASYNC;
            default -> throw new IllegalArgumentException("scheme must be sync or async, got '" + s + "'");
        };
    }
}
