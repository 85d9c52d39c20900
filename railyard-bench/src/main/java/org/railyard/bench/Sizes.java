package org.railyard.bench;

import java.util.Arrays;
import java.util.Locale;

/** Message sizes: parsing of size lists such as {@code 1:4m} or {@code 8,1m,4m}, and short labels. */
public final class Sizes {
    /** The default list: 1 byte to 4 MiB by powers of two. */
    public static final String DEFAULT = "1:4m";

    /** The largest size the benchmarks accept (one Java array). */
    public static final long MAX = 1L << 30;

    private Sizes() {
    }

    /**
     * Parses one size: a whole number of bytes with an optional suffix {@code k}, {@code m} or
     * {@code g} (powers of 1024) and an optional trailing {@code b} or {@code ib}.
     *
     * @throws IllegalArgumentException if the text is not such a size
     */
    public static long parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.endsWith("ib")) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("b")) {
            t = t.substring(0, t.length() - 1);
        }
        long mult = 1;
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'k' -> mult = 1L << 10;
                case 'm' -> mult = 1L << 20;
                case 'g' -> mult = 1L << 30;
                default -> { }
            }
        }
        if (mult != 1) {
            t = t.substring(0, t.length() - 1);
        }
        long v;
        try {
            v = Long.parseLong(t.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad size '" + text + "': expected a number of bytes such as 8, 64k or 4m");
        }
        if (v < 0 || v > MAX / mult) {
            throw new IllegalArgumentException("bad size '" + text + "': must be between 0 and 1g");
        }
        return v * mult;
    }

    /**
     * Parses a list: comma-separated items, each a size or a range {@code LO:HI} that expands to
     * LO, 2·LO, 4·LO, ... up to HI. The result keeps the given order and drops repeats.
     *
     * @throws IllegalArgumentException if an item is malformed or the list is empty
     */
    public static long[] parseList(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("empty size list: expected e.g. 1:4m or 8,1m,4m");
        }
        long[] out = new long[0];
        for (String item : spec.split(",")) {
            if (item.isBlank()) {
                continue;
            }
            int colon = item.indexOf(':');
            if (colon < 0) {
                out = add(out, parse(item));
                continue;
            }
            long lo = parse(item.substring(0, colon));
            long hi = parse(item.substring(colon + 1));
            if (lo <= 0 || hi < lo) {
                throw new IllegalArgumentException("bad range '" + item + "': expected LO:HI with 0 < LO <= HI");
            }
            for (long s = lo; s <= hi; s *= 2) {
                out = add(out, s);
            }
        }
        if (out.length == 0) {
            throw new IllegalArgumentException("empty size list: expected e.g. 1:4m or 8,1m,4m");
        }
        return out;
    }

    private static long[] add(long[] a, long v) {
        for (long x : a) {
            if (x == v) {
                return a;
            }
        }
        long[] b = Arrays.copyOf(a, a.length + 1);
        b[a.length] = v;
        return b;
    }

    /** A short label: {@code 512}, {@code 64k}, {@code 4m} (exact multiples only), else the number of bytes. */
    public static String label(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + "g";
        }
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + "m";
        }
        if (bytes >= 1L << 10 && bytes % (1L << 10) == 0) {
            return (bytes >> 10) + "k";
        }
        return Long.toString(bytes);
    }
}
