package org.railyard.bootstrap;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.regex.Pattern;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * What the PMI-1 and PMI-2 clients do alike above their wire protocols: the rules for keys and
 * values, long values stored in parts, the job secret drawn by rank 0, reading the environment.
 *
 * <p>A value longer than the server stores goes in parts under {@code key#0}, {@code key#1}, ...,
 * and the key itself holds {@value #PARTS_MARK}N; so keys ending in '#' and digits are reserved,
 * and so is {@value #SECRET_KEY}, under which rank 0 puts the job secret before the first fence.
 */
final class PmiKeys {
    /** The key under which rank 0 publishes the job secret, hex-encoded. */
    static final String SECRET_KEY = "railyard-job-secret";

    /** Prefix of the value that stands for a value stored in parts; followed by the part count. */
    static final String PARTS_MARK = "#parts:";

    static final int SECRET_BYTES = 32;
    private static final Pattern PART_KEY = Pattern.compile(".*#[0-9]+");

    /** A store of one key, whole (the server's own put). */
    @FunctionalInterface
    interface RawPut {
        void put(String key, String value);
    }

    /** A lookup of one key (the server's own get). */
    @FunctionalInterface
    interface RawGet {
        String get(String key);
    }

    private PmiKeys() {
    }

    /**
     * Refuses a key the caller may not put.
     *
     * @param who "Pmi1Bootstrap", "Pmi2Bootstrap", for the message
     */
    static void checkNotReserved(String key, String who) {
        if (key.equals(SECRET_KEY) || PART_KEY.matcher(key).matches()) {
            throw new RailyardException(ErrorClass.ARG, "PMI key '" + key + "' is reserved by " + who + " (the key '"
                    + SECRET_KEY + "' and keys ending in '#' and digits, which hold the parts of long values)");
        }
    }

    /** The Bootstrap contract: printable ASCII without spaces or '='. */
    static void checkText(String what, String text, boolean emptyAllowed) {
        if (text == null || (text.isEmpty() && !emptyAllowed)) {
            throw new RailyardException(ErrorClass.ARG, "PMI " + what + " must not be " + (text == null ? "null" : "empty"));
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c <= ' ' || c > '~' || c == '=') {
                throw new RailyardException(ErrorClass.ARG, "PMI " + what + " " + PmiMessage.quote(text)
                        + " has character U+" + String.format("%04X", (int) c) + " at index " + i
                        + ": keys and values must be printable ASCII without spaces or '='");
            }
        }
    }

    /**
     * Stores {@code value} whole when it is at most {@code maxValue} long, else in parts.
     *
     * @param checkKey refuses a key (the stored one, the caller's) that the server cannot hold
     */
    static void store(String key, String value, int maxValue, RawPut raw, java.util.function.BiConsumer<String, String> checkKey) {
        checkKey.accept(key, key);
        if (value.length() <= maxValue && !value.startsWith(PARTS_MARK)) {
            raw.put(key, value);
            return;
        }
        int parts = (value.length() + maxValue - 1) / maxValue;
        checkKey.accept(key + "#" + (parts - 1), key);
        for (int i = 0; i < parts; i++) {
            raw.put(key + "#" + i, value.substring(i * maxValue, Math.min(value.length(), (i + 1) * maxValue)));
        }
        raw.put(key, PARTS_MARK + parts);
    }

    /** Gets a value, putting it together from its parts if it was stored in parts. */
    static String fetch(String key, RawGet raw) {
        String value = raw.get(key);
        if (!value.startsWith(PARTS_MARK)) {
            return value;
        }
        int parts;
        try {
            parts = Integer.parseInt(value.substring(PARTS_MARK.length()));
        } catch (NumberFormatException e) {
            parts = -1;
        }
        if (parts < 1) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, "PMI key '" + key + "' holds " + PmiMessage.quote(value)
                    + ", which starts like a part count but is not one");
        }
        StringBuilder whole = new StringBuilder();
        for (int i = 0; i < parts; i++) {
            whole.append(raw.get(key + "#" + i));
        }
        return whole.toString();
    }

    /** Rank 0 draws and publishes the secret; one fence; everyone reads it back. */
    static byte[] shareSecret(int rank, RawPut put, Runnable fence, RawGet get) {
        if (rank == 0) {
            byte[] drawn = new byte[SECRET_BYTES];
            new SecureRandom().nextBytes(drawn);
            put.put(SECRET_KEY, HexFormat.of().formatHex(drawn));
        }
        fence.run();
        String hex = get.get(SECRET_KEY);
        try {
            byte[] shared = HexFormat.of().parseHex(hex);
            if (shared.length == SECRET_BYTES) {
                return shared;
            }
        } catch (IllegalArgumentException e) {
            // reported below, with the length check
        }
        throw new RailyardException(ErrorClass.BOOTSTRAP, "the job secret under key '" + SECRET_KEY
                + "' is not " + SECRET_BYTES + " hex-encoded bytes: " + PmiMessage.quote(hex)
                + " (did another program put that key?)");
    }

    /**
     * A whole number from the environment.
     *
     * @param setBy who sets it, for the message ("a PMI-1 process manager sets it together with PMI_FD")
     */
    static int envInt(Map<String, String> env, String name, int min, String setBy) {
        String v = env.get(name);
        if (v == null) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, name + " is not set; " + setBy);
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= min) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new RailyardException(ErrorClass.BOOTSTRAP, name + "='" + v + "' is not a whole number >= " + min);
    }

    static long deadlineAfter(Duration bound) {
        // Saturate: a bound of years must not overflow into the past.
        long nanos = bound.compareTo(Duration.ofDays(365)) > 0 ? Duration.ofDays(365).toNanos() : bound.toNanos();
        return System.nanoTime() + nanos;
    }

    static String human(Duration d) {
        long ms = d.toMillis();
        return ms < 1000 ? ms + "ms" : (ms % 1000 == 0 ? ms / 1000 + "s" : String.format(java.util.Locale.ROOT, "%.3fs", ms / 1000.0));
    }

    static void checkTimeout(Duration timeout, String what) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new RailyardException(ErrorClass.ARG, what + " must be positive, got " + timeout);
        }
    }

    /** {@code text} with every character outside printable ASCII as '_' ("" for null): a message for a PMI server's log. */
    static String printable(String text) {
        return text == null ? "" : text.replaceAll("[^ -~]", "_");
    }
}
