package org.railyard.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A machine ranks may be placed on, with the number of ranks it takes per round of placement.
 *
 * @param name  host name or address, as the rsh command ({@code ssh}) understands it
 * @param slots ranks placed on it in each round, at least 1
 */
public record Host(String name, int slots) {
    private static final Set<String> LOOPBACK_NAMES = Set.of("localhost", "127.0.0.1", "::1");

    public Host {
        if (name == null || name.isBlank() || name.chars().anyMatch(c -> c <= ' ')) {
            throw new IllegalArgumentException("host name '" + name + "' must be non-empty and without spaces");
        }
        if (slots < 1) {
            throw new IllegalArgumentException("host " + name + " must have at least 1 slot, got " + slots);
        }
    }

    /** A host with one slot. */
    public static Host of(String name) {
        return new Host(name, 1);
    }

    /** True for names of this very machine that need no rsh: localhost, 127.0.0.1, ::1. */
    public boolean isLoopback() {
        return LOOPBACK_NAMES.contains(name);
    }

    /**
     * Reads a hosts file: one host per line, {@code "name"} or {@code "name slots=N"}; '#' starts a
     * comment; blank lines are skipped.
     *
     * @throws IllegalArgumentException naming the file and line of the first malformed entry, or
     *                                  when the file cannot be read or lists no host
     */
    public static List<Host> readFile(Path file) {
        List<String> lines = lines(file, "hosts file");
        List<Host> hosts = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String[] words = words(lines.get(i));
            if (words[0].isEmpty()) {
                continue;
            }
            hosts.add(entry("hosts file " + file + " line " + (i + 1) + ": ", words));
        }
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException("hosts file " + file + " lists no host");
        }
        return List.copyOf(hosts);
    }

    /**
     * The lines of {@code file}, a {@code kind} ("hosts file", "sites file").
     *
     * @throws IllegalArgumentException "cannot read KIND FILE: why" when it cannot be read
     */
    static List<String> lines(Path file, String kind) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + kind + " " + file + ": " + e.getMessage(),
                    new UncheckedIOException(e));
        }
    }

    /** The words of a line of a hosts or sites file, '#' comments cut; one empty word for a blank line. */
    static String[] words(String line) {
        int hash = line.indexOf('#');
        return (hash >= 0 ? line.substring(0, hash) : line).trim().split("\\s+");
    }

    /** A host entry, {@code name} or {@code name slots=N}; {@code where} prefixes the error. */
    static Host entry(String where, String[] words) {
        int slots = 1;
        for (int w = 1; w < words.length; w++) {
            if (!words[w].startsWith("slots=")) {
                throw new IllegalArgumentException(where + "expected 'host' or 'host slots=N', found '" + words[w] + "'");
            }
            try {
                slots = Integer.parseInt(words[w].substring("slots=".length()));
            } catch (NumberFormatException e) {
                slots = 0;
            }
            if (slots < 1) {
                throw new IllegalArgumentException(where + "'" + words[w] + "' is not a number of slots of at least 1");
            }
        }
        return new Host(words[0], slots);
    }

    /**
     * Places {@code np} ranks: fills the first host's slots, then the next host's, and starts over
     * at the first host when every slot is taken, so ranks that share a host are consecutive.
     *
     * @return the host of each rank, by rank
     */
    public static List<Host> place(int np, List<Host> hosts) {
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException("no host to place " + np + " ranks on");
        }
        List<Host> placement = new ArrayList<>(np);
        while (placement.size() < np) {
            for (Host h : hosts) {
                for (int s = 0; s < h.slots() && placement.size() < np; s++) {
                    placement.add(h);
                }
            }
        }
        return placement;
    }
}
