package org.railyard.wire;

/** Frame types of {@link FrameHeader#TYPE_OFFSET}. */
public final class FrameType {
    private FrameType() {
    }

    /** A whole small message: envelope and payload. */
    public static final byte EAGER = 1;
    /** Request to send: the envelope of a large (or synchronous) message. */
    public static final byte RTS = 2;
    /** Clear to send: the receiver matched an RTS and is ready for the data. */
    public static final byte CTS = 3;
    /** A fragment of a rendezvous message's payload. */
    public static final byte DATA = 4;
    /** The sender leaves the job (finalize); an end of stream after it is no failure. */
    public static final byte BYE = 5;

    public static boolean valid(byte t) {
        return t >= EAGER && t <= BYE;
    }

    public static String name(byte t) {
        return switch (t) {
            case EAGER -> "EAGER";
            case RTS -> "RTS";
            case CTS -> "CTS";
            case DATA -> "DATA";
            case BYE -> "BYE";
            default -> "type" + t;
        };
    }
}
