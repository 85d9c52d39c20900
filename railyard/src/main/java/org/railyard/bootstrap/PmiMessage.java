package org.railyard.bootstrap;

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
final class PmiMessage extends PmiAttributes {
    /** Longest excerpt of a line quoted in an error message; PMI lines may carry 1 KiB values. */
    private static final int QUOTE_MAX = 160;

    private PmiMessage(String line, String cmd, Map<String, String> attrs) {
        super(line, cmd, attrs, "PMI-1");
    }

    /**
     * Parses a line received from the server.
     *
     * @param from names the server in error messages ("PMI server at host:port")
     * @throws RailyardException (BOOTSTRAP) quoting the line if it is not {@code cmd=NAME [k=v ...]}
     */
    static PmiMessage parse(String line, String from) {
        Reading read = new Reading();
        for (String token : line.trim().split(" +")) {
            int eq = token.indexOf('=');
            if (eq <= 0) {
                throw malformed(line, from, "'" + token + "' is not key=value");
            }
            String problem = read.add(token.substring(0, eq), token.substring(eq + 1));
            if (problem != null) {
                throw malformed(line, from, problem);
            }
        }
        if (read.cmd() == null) {
            throw malformed(line, from, "it is empty");
        }
        return new PmiMessage(line, read.cmd(), read.attrs());
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

    String line() {
        return text();
    }

    /**
     * The return code of a *_result or response line; a line without {@code rc} counts as success,
     * because several PMI-1 servers omit it on success.
     */
    int rc(String from) {
        return has("rc") ? requiredInt("rc", from) : 0;
    }
}
