package org.railyard.bootstrap;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * One line of the PMI-1 wire protocol: {@code cmd=NAME key=value key=value}, without the newline.
 *
 * <p>Attributes are separated by single or repeated spaces; each one is split at its first '=',
 * so a value may itself contain '=' (Hydra echoes such values back unchanged), but never a space.
 * The line is kept verbatim so that every error about it can quote what the server really sent.
 */
final class PmiMessage {
    /** Longest excerpt of a line quoted in an error message; PMI lines may carry 1 KiB values. */
    private static final int QUOTE_MAX = 160;

    private final String line;
    private final String cmd;
    private final Map<String, String> attrs;

    private PmiMessage(String line, String cmd, Map<String, String> attrs) {
        this.line = line;
        this.cmd = cmd;
        this.attrs = attrs;
    }

    /**
     * Parses a line received from the server.
     *
     * @param from names the server in error messages ("PMI server at host:port")
     * @throws RailyardException (BOOTSTRAP) quoting the line if it is not {@code cmd=NAME [k=v ...]}
     */
    static PmiMessage parse(String line, String from) {
        Map<String, String> attrs = new LinkedHashMap<>();
        String cmd = null;
        for (String token : line.trim().split(" +")) {
            int eq = token.indexOf('=');
            if (eq <= 0) {
                throw malformed(line, from, "'" + token + "' is not key=value");
            }
            String key = token.substring(0, eq);
            String value = token.substring(eq + 1);
            if (cmd == null) {
                if (!key.equals("cmd") || value.isEmpty()) {
                    throw malformed(line, from, "it does not start with cmd=NAME");
                }
                cmd = value;
            } else if (attrs.putIfAbsent(key, value) != null) {
                throw malformed(line, from, "attribute '" + key + "' appears twice");
            }
        }
        if (cmd == null) {
            throw malformed(line, from, "it is empty");
        }
        return new PmiMessage(line, cmd, Collections.unmodifiableMap(attrs));
    }

    private static RailyardException malformed(String line, String from, String why) {
        return new RailyardException(ErrorClass.BOOTSTRAP,
                from + " sent a malformed PMI-1 line " + quote(line) + ": " + why);
    }

    /** The line as received, quoted and shortened for an error message. */
    static String quote(String line) {
        String s = line.length() <= QUOTE_MAX ? line : line.substring(0, QUOTE_MAX) + "...(" + line.length() + " chars)";
        return "'" + s + "'";
    }

    String cmd() {
        return cmd;
    }

    String line() {
        return line;
    }

    /** The attribute, or null when the line does not carry it. */
    String attr(String key) {
        return attrs.get(key);
    }

    /**
     * The attribute, which the protocol says the line must carry.
     *
     * @throws RailyardException (BOOTSTRAP) quoting the line when it is missing
     */
    String required(String key, String from) {
        String v = attrs.get(key);
        if (v == null) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, from + " sent " + quote(line)
                    + " without the attribute '" + key + "' that PMI-1 requires in cmd=" + cmd);
        }
        return v;
    }

    /**
     * A whole-number attribute the line must carry.
     *
     * @throws RailyardException (BOOTSTRAP) quoting the line when it is missing or not a number
     */
    int requiredInt(String key, String from) {
        String v = required(key, from);
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, from + " sent " + quote(line)
                    + " where attribute '" + key + "' is not a whole number");
        }
    }

    /**
     * The return code of a *_result or response line; a line without {@code rc} counts as success,
     * because several PMI-1 servers omit it on success.
     */
    int rc(String from) {
        return attrs.containsKey("rc") ? requiredInt("rc", from) : 0;
    }

    @Override
    public String toString() {
        return line;
    }
}
