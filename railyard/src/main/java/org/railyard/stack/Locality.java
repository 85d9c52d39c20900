package org.railyard.stack;

import java.util.Locale;

/** Where the peer of a connection is, as the composer sees it (seed 000: intra or inter cluster). */
public enum Locality {
    /** The same node (machine). */
    SAME_NODE,
    /** Another node of the same site (cluster): a short, uncongested path of one owner. */
    SAME_SITE,
    /** Another site: a long path shared with other traffic, where flows must back off when congested. */
    OTHER_SITE;

    /** "same-node", "same-site", "other-site". */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Parses a {@link #label()} (any case, '-' or '_'). */
    public static Locality parse(String s) {
        String n = s.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        try {
            return valueOf(n);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("locality must be same-node, same-site or other-site, got '" + s + "'", e);
        }
    }
}
