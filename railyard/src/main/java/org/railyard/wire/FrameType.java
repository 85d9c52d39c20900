package org.railyard.wire;

/**
 * Frame types of {@link FrameHeader#TYPE_OFFSET}. Types up to {@link #BYE} are <em>sequenced</em>:
 * the virtual channel stamps each with the next packet sequence number and the receiver delivers
 * them in that order. {@link #ACK} and {@link #HEARTBEAT} are link-level control frames of one rail
 * (see {@link LinkControl}): never sequenced, never reordered, never handed to the engine.
 * {@link #VALUE} frames are handed to the engine but carry no sequence number: they belong to the
 * value flows of iterative schemes, which the stack floor may supersede or lose.
 */
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
    /** Link control: the receiver's cumulative acknowledgement for a rail (see {@link LinkControl}). */
    public static final byte ACK = 6;
    /** Link control: "this rail is alive", sent on a rail that has carried nothing for a while. */
    public static final byte HEARTBEAT = 7;
    /**
     * A value of the latest-value exchange of iterative schemes (see {@link FrameHeader}): outside
     * the packet sequence, because the stack floor may supersede or (asynchronous scheme) lose it.
     */
    public static final byte VALUE = 8;

    public static boolean valid(byte t) {
        return t >= EAGER && t <= VALUE;
    }

    /** True for the types that carry a packet sequence number and are delivered in its order. */
    public static boolean sequenced(byte t) {
        return t >= EAGER && t <= BYE;
    }

    public static String name(byte t) {
        return switch (t) {
            case EAGER -> "EAGER";
            case RTS -> "RTS";
            case CTS -> "CTS";
            case DATA -> "DATA";
            case BYE -> "BYE";
            case ACK -> "ACK";
            case HEARTBEAT -> "HEARTBEAT";
            case VALUE -> "VALUE";
            default -> "type" + t;
        };
    }
}
