package org.railyard.bootstrap;

import java.util.Collections;
import java.util.LinkedHashMap;
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

    /**
     * What a parser of either protocol has read of a message so far, attribute by attribute: the
     * first must be {@code cmd=NAME}, and no key may come twice. {@link #add} says why an attribute
     * breaks that rule, for the parser's own error message.
     */
    static final class Reading {
        private String cmd;
        private final Map<String, String> attrs = new LinkedHashMap<>();

        /** Takes the next attribute; null, or the reason the message is malformed. */
        String add(String key, String value) {
            if (cmd == null) {
                if (!key.equals("cmd") || value.isEmpty()) {
                    return "it does not start with cmd=NAME";
                }
                cmd = value;
            } else if (attrs.putIfAbsent(key, value) != null) {
                return "attribute '" + key + "' appears twice";
            }
            return null;
        }

        /** The command; null while nothing was read. */
        String cmd() {
            return cmd;
        }

        /** The attributes after the command, in order, unmodifiable. */
        Map<String, String> attrs() {
            return Collections.unmodifiableMap(attrs);
        }
    }
}
