package org.railyard.bootstrap;

import java.util.Map;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * One message of the PMI-2 wire protocol, as Slurm's {@code mpi/pmi2} plugin and MPICH's Hydra
 * speak it: a 6-character decimal length, then that many characters of
 * {@code cmd=NAME;key=value;key=value;}.
 *
 * <pre>
 *  "38    cmd=kvs-get-response;rc=0;found=FALSE;"     Slurm: the length padded on the right
 *  "    38cmd=kvs-get-response;found=FALSE;rc=0;"     Hydra: padded on the left
 *   ^^^^^^ length of what follows, spaces trimmed
 * </pre>
 *
 * <p>Attributes end with ';'; each is split at its first '=', so a value may contain '=' but not
 * ';'. MPICH's protocol document writes a ';' inside a value as ";;" and that is read back here;
 * Slurm cannot carry one at all, so {@link Pmi2Bootstrap} never sends one (it escapes values).
 * A lone ';' inside a value splits it, and the stray piece is reported as malformed. The whole
 * body is kept so that every error can quote what the server sent.
 */
final class Pmi2Message extends PmiAttributes {
    /** Width of the length field that precedes every message. */
    static final int LENGTH_FIELD = 6;

    private Pmi2Message(String body, String cmd, Map<String, String> attrs) {
        super(body, cmd, attrs, "PMI-2");
    }

    /**
     * The body of a request, framed: its length in the 6-character field, padded on the right as
     * Slurm does (Hydra reads both).
     */
    static String frame(String body) {
        if (body.length() >= 1_000_000) {
            throw new RailyardException(ErrorClass.ARG, "a PMI-2 message holds at most 999999 characters, this one "
                    + body.length());
        }
        return String.format(java.util.Locale.ROOT, "%-6d", body.length()) + body;
    }

    /**
     * Reads the length field of a message.
     *
     * @param max the longest body accepted
     * @throws RailyardException BOOTSTRAP quoting the field if it is not a number in [1, max]
     */
    static int length(String field, int max, String from) {
        String digits = field.trim();
        int n = -1;
        if (!digits.isEmpty() && digits.chars().allMatch(c -> c >= '0' && c <= '9') && digits.length() <= 7) {
            n = Integer.parseInt(digits);
        }
        if (n < 1 || n > max) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, from + " sent " + PmiMessage.quote(field)
                    + " where a PMI-2 message begins with its length (6 characters, a number from 1 to " + max
                    + "): it does not speak PMI-2, or the stream is out of step");
        }
        return n;
    }

    /**
     * Parses a message body (without its length field).
     *
     * @param from names the server in error messages
     * @throws RailyardException BOOTSTRAP quoting the body if it is not {@code cmd=NAME;[k=v;]...}
     */
    static Pmi2Message parse(String body, String from) {
        Reading read = new Reading();
        StringBuilder token = new StringBuilder();
        int i = 0;
        int n = body.length();
        while (i < n) {
            char c = body.charAt(i);
            if (c != ';') {
                token.append(c);
                i++;
                continue;
            }
            if (read.cmd() != null && i + 1 < n && body.charAt(i + 1) == ';' && token.indexOf("=") > 0) {
                token.append(';'); // ";;" stands for one ';' inside a value
                i += 2;
                continue;
            }
            String t = token.toString();
            token.setLength(0);
            i++;
            int eq = t.indexOf('=');
            if (eq <= 0) {
                throw malformed(body, from, t.isEmpty() ? "it holds an empty attribute (';;' outside a value)"
                        : "'" + t + "' is not key=value (a value with a ';' in it?)");
            }
            String problem = read.add(t.substring(0, eq), t.substring(eq + 1));
            if (problem != null) {
                throw malformed(body, from, problem);
            }
        }
        if (!token.isEmpty()) {
            throw malformed(body, from, "it does not end with ';' (a length field that is too short cuts a message)");
        }
        if (read.cmd() == null) {
            throw malformed(body, from, "it is empty");
        }
        return new Pmi2Message(body, read.cmd(), read.attrs());
    }

    private static RailyardException malformed(String body, String from, String why) {
        return new RailyardException(ErrorClass.BOOTSTRAP,
                from + " sent a malformed PMI-2 message " + PmiMessage.quote(body) + ": " + why);
    }

    String body() {
        return text();
    }

    /** {@code found=TRUE} or {@code found=FALSE}, which the message must carry. */
    boolean found(String from) {
        String v = required("found", from);
        if (v.equalsIgnoreCase("TRUE")) {
            return true;
        }
        if (v.equalsIgnoreCase("FALSE")) {
            return false;
        }
        throw new RailyardException(ErrorClass.BOOTSTRAP, from + " sent " + PmiMessage.quote(text())
                + " where attribute 'found' is neither TRUE nor FALSE");
    }
}
