package org.railyard.bootstrap;

import java.util.Map;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * A parsed message of either PMI wire protocol: its command, its attributes, and the text as
 * received, so that every error about it quotes what the server really sent.
 */
abstract class PmiAttributes {
    private final String text;
    private final String cmd;
    private final Map<String, String> attrs;
    private final String protocol;

    /** @param protocol "PMI-1", "PMI-2", for messages */
    PmiAttributes(String text, String cmd, Map<String, String> attrs, String protocol) {
        this.text = text;
        this.cmd = cmd;
        this.attrs = attrs;
        this.protocol = protocol;
    }

    final String cmd() {
        return cmd;
    }

    /** The message as received. */
    final String text() {
        return text;
    }

    /** The attribute, or null when the message does not carry it. */
    final String attr(String key) {
        return attrs.get(key);
    }

    final boolean has(String key) {
        return attrs.containsKey(key);
    }

    /**
     * The attribute, which the protocol says the message must carry.
     *
     * @throws RailyardException (BOOTSTRAP) quoting the message when it is missing
     */
    final String required(String key, String from) {
        String v = attrs.get(key);
        if (v == null) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, from + " sent " + PmiMessage.quote(text)
                    + " without the attribute '" + key + "' that " + protocol + " requires in cmd=" + cmd);
        }
        return v;
    }

    /**
     * A whole-number attribute the message must carry.
     *
     * @throws RailyardException (BOOTSTRAP) quoting the message when it is missing or not a number
     */
    final int requiredInt(String key, String from) {
        String v = required(key, from);
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, from + " sent " + PmiMessage.quote(text)
                    + " where attribute '" + key + "' is not a whole number");
        }
    }

    @Override
    public final String toString() {
        return text;
    }
}
