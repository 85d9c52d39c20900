package org.railyard.wire;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The records of a relay server's append-only message log (a file, not a socket; big endian). The
 * only place that knows their offsets.
 *
 * <pre>
 * every record   u32 body length  u32 CRC32C of (type, body)  u8 type  body
 * JOB   body     i32 job number  i32 job size  32B verifier  u8 n  n bytes job id
 * STORE body     i32 job number  i32 source  i32 destination  i64 sequence  u8 control (0|1)  message bytes
 * ACK   body     i32 job number  i32 destination  i32 source  i64 sequence
 * MARK  body     i32 job number  i32 destination  i32 source  i64 sequence
 * </pre>
 *
 * <p>JOB registers a job (its number is what the other records name). STORE keeps a message.
 * ACK: the destination consumed every message of {@code source} up to {@code sequence}. MARK,
 * written only by compaction before the STOREs it keeps: the sequence number of the pair's last
 * message removed, so a message sent again after its removal is still known as a duplicate. A record whose length runs past
 * the end of the file, or whose checksum differs, is a torn tail: {@link #read} reports it with
 * {@link TornRecord}.
 */
public final class RelayLogRecord {
    private RelayLogRecord() {
    }

    public static final int LENGTH_OFFSET = 0;
    public static final int CRC_OFFSET = 4;
    public static final int TYPE_OFFSET = 8;
    /** Record header length; bodies start here. */
    public static final int HEADER = 9;

    public static final byte JOB = 1;
    public static final byte STORE = 2;
    public static final byte ACK = 3;
    public static final byte MARK = 4;

    /** Fixed part of a STORE body; the message follows. */
    public static final int STORE_FIXED = 21;
    public static final int PAIR_BODY = 20;
    /** Longest body this format accepts (a STORE of the largest relayed message). */
    public static final int MAX_BODY = STORE_FIXED + (1 << 30);

    public sealed interface Record permits Job, Store, Ack, Mark { }

    public record Job(int number, String id, int size, byte[] verifier) implements Record { }

    public record Store(int job, int source, int destination, long sequence, boolean control, byte[] message)
            implements Record { }

    public record Ack(int job, int destination, int source, long sequence) implements Record { }

    public record Mark(int job, int destination, int source, long sequence) implements Record { }

    /** The log ends inside a record, or a record's checksum is wrong: what was whole ends before it. */
    public static final class TornRecord extends IOException {
        private static final long serialVersionUID = 1L;

        public TornRecord(String message) {
            super(message);
        }
    }

    public static byte[] job(int number, String id, int size, byte[] verifier) {
        byte[] name = id.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = body(JOB, 4 + 4 + RelayFrame.VERIFIER_BYTES + 1 + name.length);
        b.putInt(number).putInt(size).put(verifier, 0, RelayFrame.VERIFIER_BYTES).put((byte) name.length).put(name);
        return seal(b, null, 0, 0);
    }

    /** The record of a STORE up to its message, checksum included; the {@code length} message bytes follow it. */
    public static byte[] storeHead(int job, int source, int destination, long sequence, boolean control,
                                   byte[] message, int off, int length) {
        ByteBuffer b = body(STORE, STORE_FIXED + length);
        b.putInt(job).putInt(source).putInt(destination).putLong(sequence).put((byte) (control ? 1 : 0));
        return seal(b, message, off, length);
    }

    public static byte[] ack(int job, int destination, int source, long sequence) {
        return pair(ACK, job, destination, source, sequence);
    }

    public static byte[] mark(int job, int destination, int source, long sequence) {
        return pair(MARK, job, destination, source, sequence);
    }

    private static byte[] pair(byte type, int job, int destination, int source, long sequence) {
        ByteBuffer b = body(type, PAIR_BODY);
        b.putInt(job).putInt(destination).putInt(source).putLong(sequence);
        return seal(b, null, 0, 0);
    }

    /** A buffer for a record's header and fixed body; the length counts {@code bodyLength}. */
    private static ByteBuffer body(byte type, int bodyLength) {
        int fixed = type == STORE ? STORE_FIXED : bodyLength;
        ByteBuffer b = ByteBuffer.allocate(HEADER + fixed);
        b.putInt(LENGTH_OFFSET, bodyLength);
        b.put(TYPE_OFFSET, type);
        b.position(HEADER);
        return b;
    }

    private static byte[] seal(ByteBuffer b, byte[] tail, int off, int length) {
        byte[] a = b.array();
        CRC32C crc = new CRC32C();
        crc.update(a, TYPE_OFFSET, a.length - TYPE_OFFSET);
        if (tail != null) {
            crc.update(tail, off, length);
        }
        b.putInt(CRC_OFFSET, (int) crc.getValue());
        return a;
    }

    /**
     * Reads the next record.
     *
     * @param left bytes left in the log from this record on: a length past them is a torn tail,
     *             found before anything is allocated for it
     * @return null at a clean end of the log (no byte left)
     * @throws TornRecord when the log ends inside a record or a checksum or a body is wrong
     */
    public static Record read(DataInputStream in, long left) throws IOException {
        int first = in.read();
        if (first < 0) {
            return null;
        }
        byte[] head = new byte[HEADER];
        head[0] = (byte) first;
        try {
            in.readFully(head, 1, HEADER - 1);
        } catch (EOFException e) {
            throw new TornRecord("the log ends inside a record header");
        }
        ByteBuffer h = ByteBuffer.wrap(head);
        int length = h.getInt(LENGTH_OFFSET);
        int crc = h.getInt(CRC_OFFSET);
        byte type = h.get(TYPE_OFFSET);
        if (length < 0 || length > MAX_BODY) {
            throw new TornRecord("a record claims a body of " + length + " bytes");
        }
        if (length > left - HEADER) {
            throw new TornRecord("the log ends inside a record of " + length + " bytes");
        }
        byte[] body = new byte[length];
        try {
            in.readFully(body);
        } catch (EOFException e) {
            throw new TornRecord("the log ends inside a record of " + length + " bytes");
        }
        CRC32C c = new CRC32C();
        c.update(type);
        c.update(body);
        if ((int) c.getValue() != crc) {
            throw new TornRecord("a record's checksum is wrong");
        }
        ByteBuffer b = ByteBuffer.wrap(body);
        try {
            return switch (type) {
                case JOB -> {
                    int number = b.getInt();
                    int size = b.getInt();
                    byte[] v = new byte[RelayFrame.VERIFIER_BYTES];
                    b.get(v);
                    byte[] id = new byte[b.get() & 0xff];
                    b.get(id);
                    yield new Job(number, new String(id, StandardCharsets.US_ASCII), size, v);
                }
                case STORE -> {
                    int job = b.getInt();
                    int src = b.getInt();
                    int dst = b.getInt();
                    long seq = b.getLong();
                    boolean control = b.get() != 0;
                    byte[] m = new byte[b.remaining()];
                    b.get(m);
                    yield new Store(job, src, dst, seq, control, m);
                }
                case ACK -> new Ack(b.getInt(), b.getInt(), b.getInt(), b.getLong());
                case MARK -> new Mark(b.getInt(), b.getInt(), b.getInt(), b.getLong());
                default -> throw new TornRecord("a record of unknown type " + type);
            };
        } catch (java.nio.BufferUnderflowException e) {
            throw new TornRecord("a record of type " + type + " is shorter than its type needs");
        }
    }

    /** Bytes a STORE record of a message of {@code length} bytes takes in the log. */
    public static long storeSize(int length) {
        return HEADER + STORE_FIXED + (long) length;
    }
}
