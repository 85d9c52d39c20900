package org.railyard.wire;

/**
 * The header of a one-sided operation or of its synchronisation: a message of {@link #LONGS}
 * longs on a window's private context (tag {@code HDR}), sent from origin to target (operations,
 * FLUSH, LOCK, UNLOCK, COMPLETE) or back (ACK, GRANT, POST). A data message (the values, in the
 * target's element kind, packed) and, for a derived target type, a shape message follow it from
 * the same sender on their own tags; the message layer keeps them in order.
 *
 * <pre>
 *  long 0   bits 0-7 opcode | 8-15 element kind | 16-23 reduction | 24-31 lock type | 32-39 error
 *           | 40 inline: the data follows the header in the same message
 *           | 41 collected: the result goes into the one reply of its batch (tag: long 4), not a reply of its own
 *           | 42 last: the last collected record of its batch; the batch's reply leaves once it is applied
 *  long 1   target displacement in bytes from the window's base (an address for a dynamic window)
 *  long 2   target element count
 *  long 3   ints of the encoded target shape that follow (0: one basic value per element)
 *  long 4   id: the reply's tag (operations with a result), or the flush / unlock sequence
 *  long 5   values in the data message that follows (0: none)
 *  long 6   error: first byte of the refused range
 *  long 7   error: bytes of the refused range
 *  long 8.. inline data (at most {@link #MAX_INLINE_BYTES}, the values packed little endian), if bit 40
 * </pre>
 *
 * <p>A header message may hold several such records back to back, each a header and its inline
 * data padded to whole longs ({@link #recordLongs}), at most {@link #batchLongs} longs in all: an
 * origin's small operations to one target travel together, and the target takes the records in
 * order, as if each had come in a message of its own. Records of operations with a result (get,
 * getAccumulate, compareAndSwap) may be <em>collected</em>: the target appends each one's result,
 * padded to whole longs, to one reply of the batch, in the order of the records, and sends it
 * (longs, on the tag in long 4) after applying the record marked <em>last</em>.
 */
public final class RmaHeader {
    private RmaHeader() {
    }

    /** Length of a header, in longs. */
    public static final int LONGS = 8;
    /**
     * The most inline data a record may carry, in bytes: a target accepts any record up to it. An
     * origin inlines data up to its own bound ({@code railyard.rma.inline}, at most this), and
     * sends anything larger as a data message of its own.
     */
    public static final int MAX_INLINE_BYTES = 8192;
    /** The origin's default bound of inline data, in bytes. */
    public static final int INLINE_BYTES = 8192;
    /** Length of the longest record (a header with the most inline data), in longs. */
    public static final int MAX_LONGS = LONGS + MAX_INLINE_BYTES / 8;
    /**
     * Length of the longest header message (records back to back), in longs, in a window of up
     * to 128 members ({@link #batchLongs} for any size): a target's header receive holds it, and
     * a batch's reply too. Three of the longest records fit, with the FLUSH, UNLOCK or COMPLETE
     * that ends them.
     */
    public static final int BATCH_LONGS = 4096;
    /** The shortest header message a window of many members uses ({@link #batchLongs}): 4 KiB. */
    public static final int MIN_BATCH_LONGS = 512;
    /**
     * Longs of header receive buffers a target keeps per window, over all its members, that
     * {@link #batchLongs} stays within when the members are many: 4 MiB, {@link #BATCH_LONGS} per
     * member up to 128 members.
     */
    public static final int WINDOW_BATCH_BUDGET_LONGS = BATCH_LONGS * 128;

    /**
     * Length of the longest header message of a window of {@code members} members, in longs: the
     * size of each of a target's header receives (one per member) and of a batch's reply.
     * {@link #BATCH_LONGS} up to 128 members, then less, so that a target's receives stay within
     * {@link #WINDOW_BATCH_BUDGET_LONGS}, but never below {@link #MIN_BATCH_LONGS}. Every member
     * computes the same from the window's size.
     */
    public static int batchLongs(int members) {
        return Math.max(MIN_BATCH_LONGS, Math.min(BATCH_LONGS, WINDOW_BATCH_BUDGET_LONGS / Math.max(1, members)));
    }
    /** Byte offset of inline data in the header's message. */
    public static final int INLINE_OFFSET = 8 * LONGS;

    public static final int OP_PUT = 1;
    public static final int OP_GET = 2;
    public static final int OP_ACC = 3;
    /** getAccumulate and fetchAndOp: the old values come back. */
    public static final int OP_GET_ACC = 4;
    /** compareAndSwap: the data message is (origin value, compare value); the old value comes back. */
    public static final int OP_CAS = 5;
    /** Origin to target: answer ACK once every earlier operation of this origin is applied. */
    public static final int OP_FLUSH = 6;
    public static final int OP_LOCK = 7;
    /** A FLUSH that also releases the origin's lock. */
    public static final int OP_UNLOCK = 8;
    /** Origin to target: the access epoch of PSCW ends (after every earlier operation). */
    public static final int OP_COMPLETE = 9;
    /** Target to origin: the flush or unlock of {@code id} is done; error fields may name a refused range. */
    public static final int OP_ACK = 10;
    /** Target to origin: the lock is granted. */
    public static final int OP_GRANT = 11;
    /** Target to origin: an exposure epoch is open to it. */
    public static final int OP_POST = 12;
    /**
     * Origin to target: the origin gave up waiting for its LOCK (its wait timed out). The target
     * takes it out of turn: a LOCK still queued is dropped and answered with GRANT (so that the
     * origin's count of answers stays one per request), a lock already granted is released.
     */
    public static final int OP_WITHDRAW = 13;

    /** The error field: the operation's range lay outside the target's (attached) memory. */
    public static final int ERR_RANGE = 1;
    /** The error field: the operation did not fit the target's memory type (a Java array window). */
    public static final int ERR_TYPE = 2;

    public static long[] make(int op, int kind, int reduction, int lockType, long disp, long count, int shapeInts,
                              long id, long values) {
        long[] h = new long[LONGS];
        write(h, 0, op, kind, reduction, lockType, disp, count, shapeInts, id, values);
        return h;
    }

    private static void write(long[] m, int at, int op, int kind, int reduction, int lockType, long disp, long count,
                              int shapeInts, long id, long values) {
        m[at] = (op & 0xFF) | (kind & 0xFF) << 8 | (reduction & 0xFF) << 16 | (long) (lockType & 0xFF) << 24;
        m[at + 1] = disp;
        m[at + 2] = count;
        m[at + 3] = shapeInts;
        m[at + 4] = id;
        m[at + 5] = values;
        m[at + 6] = 0;
        m[at + 7] = 0;
    }

    /**
     * Writes at long {@code at} of batch {@code m} the header of an operation with {@code bytes}
     * (1 to {@link #MAX_INLINE_BYTES}) of inline data and no target shape, as {@link #makeInline} makes
     * it, and zeroes the last long of its record, so that the data copied after it leaves no stale
     * bytes in its padding. Returns the record's longs; the caller copies the data to byte
     * {@code 8 * at + INLINE_OFFSET}.
     */
    public static int writeInline(long[] m, int at, int op, int kind, int reduction, long disp, long count, long values,
                                  int bytes) {
        int rec = inlineRecordLongs(bytes);
        m[at + rec - 1] = 0;
        write(m, at, op, kind, reduction, 0, disp, count, 0, 0, values);
        m[at] |= INLINE;
        return rec;
    }

    /** A header with room for {@code bytes} bytes of inline data after it, and its inline flag set. */
    public static long[] makeInline(int op, int kind, int reduction, long disp, long count, int shapeInts, long id,
                                    long values, int bytes) {
        long[] h = new long[inlineRecordLongs(bytes)];
        long[] base = make(op, kind, reduction, 0, disp, count, shapeInts, id, values);
        System.arraycopy(base, 0, h, 0, LONGS);
        h[0] |= INLINE;
        return h;
    }

    /** Longs of a record of a header and {@code bytes} bytes of inline data, padded to whole longs. */
    public static int inlineRecordLongs(long bytes) {
        return LONGS + (int) ((bytes + 7) / 8);
    }

    /** Longs of the record that header {@code h} starts: the header and its inline data padded to whole longs. */
    public static int recordLongs(long[] h, int kindBytes) {
        return inline(h) ? inlineRecordLongs(values(h) * kindBytes) : LONGS;
    }

    /** Bit of long 0: the data follows the header in the same message. */
    private static final long INLINE = 1L << 40;
        /** Bit of long 0: the record's result goes into its batch's one reply ({@link #collected}). */
    private static final long COLLECTED = 1L << 41;
    /** Bit of long 0: the last collected record of its batch. */
    private static final long LAST = 1L << 42;

    /** Marks header {@code h} collected: its result joins the reply of tag {@code replyTag}. */
    public static void setCollected(long[] h, int replyTag) {
        h[0] |= COLLECTED;
        h[4] = replyTag;
    }

    /** Marks the record starting at long {@code at} of batch {@code m} as its batch's last collected one. */
    public static void setLast(long[] m, int at) {
        m[at] |= LAST;
    }

    /** True if the result of this record goes into its batch's one reply. */
    public static boolean collected(long[] h) {
        return (h[0] & COLLECTED) != 0;
    }

    /** True if this record is the last collected one of its batch: the reply leaves after it. */
    public static boolean last(long[] h) {
        return (h[0] & LAST) != 0;
    }

    /** Longs that a result of {@code bytes} bytes takes in a batch's reply. */
    public static int resultLongs(long bytes) {
        return (int) ((bytes + 7) / 8);
    }

    /** True if the data follows the header in its message. */
    public static boolean inline(long[] h) {
        return (h[0] >>> 40 & 1) != 0;
    }

    public static int op(long[] h) {
        return (int) (h[0] & 0xFF);
    }

    public static int kind(long[] h) {
        return (int) (h[0] >>> 8 & 0xFF);
    }

    public static int reduction(long[] h) {
        return (int) (h[0] >>> 16 & 0xFF);
    }

    public static int lockType(long[] h) {
        return (int) (h[0] >>> 24 & 0xFF);
    }

    public static int error(long[] h) {
        return (int) (h[0] >>> 32 & 0xFF);
    }

    public static void setError(long[] h, int err, long first, long bytes) {
        h[0] = h[0] & ~(0xFFL << 32) | (long) (err & 0xFF) << 32;
        h[6] = first;
        h[7] = bytes;
    }

    public static long disp(long[] h) {
        return h[1];
    }

    public static long count(long[] h) {
        return h[2];
    }

    public static int shapeInts(long[] h) {
        return (int) h[3];
    }

    public static long id(long[] h) {
        return h[4];
    }

    public static long values(long[] h) {
        return h[5];
    }

    /** Sets the id (long 4): a reply's tag, or a flush / unlock sequence. */
    public static void setId(long[] h, long id) {
        h[4] = id;
    }

    public static long errorFirst(long[] h) {
        return h[6];
    }

    public static long errorBytes(long[] h) {
        return h[7];
    }

    /** A reason, or null, for a header that no sender of this library would write (checked before any use). */
    public static String check(long[] h, int kinds, int reductions) {
        return check(h, kinds, reductions, INLINE_OFFSET, 1);
    }

    /**
     * A reason, or null, for a header of a message of {@code messageBytes} bytes whose element
     * kind has {@code kindBytes} bytes: inline data must be there, and fit.
     */
    public static String check(long[] h, int kinds, int reductions, long messageBytes, int kindBytes) {
        if (messageBytes < INLINE_OFFSET) {
            return "one-sided header of " + messageBytes + " bytes, shorter than " + INLINE_OFFSET;
        }
        int op = op(h);
        if (op < OP_PUT || op > OP_WITHDRAW) {
            return "unknown one-sided opcode " + op;
        }
        if (kind(h) >= kinds || reduction(h) >= reductions) {
            return "one-sided header names element kind " + kind(h) + " and reduction " + reduction(h);
        }
        if (count(h) < 0 || values(h) < 0 || values(h) > Integer.MAX_VALUE || shapeInts(h) < 0 || h[3] > 1 << 24) {
            return "one-sided header has count " + count(h) + ", values " + values(h) + ", shape " + h[3];
        }
        if (inline(h) && (values(h) * kindBytes > MAX_INLINE_BYTES || messageBytes < INLINE_OFFSET + values(h) * kindBytes)) {
            return "one-sided header with " + values(h) + " inline values of " + kindBytes + " bytes in a message of "
                    + messageBytes + " bytes";
        }
        return null;
    }
}
