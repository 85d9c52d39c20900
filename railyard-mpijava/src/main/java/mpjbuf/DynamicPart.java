package mpjbuf;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;

/**
 * The dynamic part of a {@link Buffer}: the values of its dynamic sections ({@link Type#OBJECT},
 * {@code *_DYNAMIC}), written one after the other with one Java serialization stream, so a
 * reader takes them back in the order they were written. While the buffer is written the bytes
 * grow in a stream; once committed (or received) they are a plain array.
 */
final class DynamicPart {
    /** The bytes, once committed, received or set; null if there are none. */
    private byte[] bytes;
    private ByteArrayOutputStream sink;
    private ObjectOutputStream out;
    private ObjectInputStream in;

    void write(Values v, Object src, int[] indexes) throws BufferException {
        try {
            if (out == null) {
                sink = new ByteArrayOutputStream();
                out = new ObjectOutputStream(sink);
            }
            for (int i : indexes) {
                v.write(out, src, i);
            }
        } catch (IOException e) {
            throw new DynamicBufferException("values could not be written to the dynamic part: " + e, e);
        }
    }

    void read(Values v, Object dst, int[] indexes, Type section) throws BufferException {
        try {
            if (in == null) {
                if (bytes == null) {
                    throw new DynamicBufferException("the buffer has no dynamic part to read " + section + " values from", null);
                }
                in = new CustomObjectInputStream(new ByteArrayInputStream(bytes));
            }
            for (int i : indexes) {
                v.read(in, dst, i);
            }
        } catch (IOException e) {
            throw new DynamicBufferException("values could not be read from the dynamic part: " + e, e);
        }
    }

    /** Ends writing: what was written becomes the bytes; reading starts from the first value. */
    void commit() throws DynamicBufferException {
        if (out != null) {
            try {
                out.flush();
            } catch (IOException e) {
                throw new DynamicBufferException("the dynamic part could not be written", e);
            }
            bytes = sink.toByteArray();
        }
        closeStreams();
    }

    /** The bytes: while writing, a copy of what was written so far; null if there are none. */
    byte[] bytes() {
        if (out != null) {
            try {
                out.flush();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("the dynamic part could not be written", e);
            }
            return sink.toByteArray();
        }
        return bytes;
    }

    /** Replaces the bytes (as a receive does); reading starts over. */
    void set(byte[] bytes) {
        this.bytes = bytes;
        this.in = null;
    }

    /** Forgets the bytes and the streams. */
    void clear() {
        bytes = null;
        closeStreams();
    }

    /** Drops the streams (keeping the bytes): the next read starts from the first value. */
    void closeStreams() {
        out = null;
        sink = null;
        in = null;
    }

    boolean isEmpty() {
        return bytes == null && out == null;
    }
}
