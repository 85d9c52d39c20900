package org.railyard.wire;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * One rank's checkpoint (see {@code Railyard.checkpoint}): the application's bytes and the
 * library state a rank started again must resume from so that the messages after the checkpoint
 * match as they did. It is the only owner of the file format {@code rank-R.ckpt}.
 *
 * <pre>
 *  0        4        8          12         16
 *  +--------+--------+----------+----------+
 *  | "RYCK" | version| rank     | size     |   header (big-endian ints)
 *  +--------+--------+----------+----------+
 *  | app: int length, bytes                |
 *  | relay: per peer long consumed, long sent        (size entries each)
 *  | channel: per peer long nextPsn, expectedPsn, ackedPsn
 *  | comms: int nextContext; int n, n x int agreed context;
 *  |        int m, m x (int context, int collSeq, int children)
 *  | transfers: int used; used x int generation; int f, f x int free slot
 *  | unexpected: int u, u x (int context, int source, int tag, int length, bytes)
 *  +---------------------------------------+
 *  | CRC32C of everything before it (int)  |
 *  +---------------------------------------+
 * </pre>
 *
 * {@link #decode} checks the magic, the version, the rank and size it expects, every count
 * against what the bytes left can hold, and the checksum, and names the first fault it finds.
 */
public final class CheckpointImage {
    private static final int MAGIC = 0x5259434B; // "RYCK"
    private static final int VERSION = 1;

    /** A communicator's counters: its context, collectives started, communicators derived from it. */
    public record CommCounters(int context, int collSeq, int children) { }

    /** An eager message held unmatched at the checkpoint, payload included. */
    public record HeldMessage(int context, int source, int tag, byte[] payload) { }

    public final int rank;
    public final int size;
    public byte[] app = new byte[0];
    /** Per peer: the last relay sequence number handed to the channel (the replay position). */
    public final long[] consumed;
    /** Per peer: the last relay sequence number this rank gave a frame it sent. */
    public final long[] sent;
    public final long[] nextPsn;
    public final long[] expectedPsn;
    public final long[] ackedPsn;
    public int nextContext;
    /** The contexts agreed by the communicator-creating calls, in the order they ran. */
    public final List<Integer> agreed = new ArrayList<>();
    public final List<CommCounters> comms = new ArrayList<>();
    public int[] generations = new int[0];
    public int[] freeSlots = new int[0];
    public final List<HeldMessage> held = new ArrayList<>();

    public CheckpointImage(int rank, int size) {
        this.rank = rank;
        this.size = size;
        this.consumed = new long[size];
        this.sent = new long[size];
        this.nextPsn = new long[size];
        this.expectedPsn = new long[size];
        this.ackedPsn = new long[size];
    }

    /** The file of {@code rank}'s checkpoint in {@code dir}. */
    public static Path file(Path dir, int rank) {
        return dir.resolve("rank-" + rank + ".ckpt");
    }

    public byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + app.length);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.writeInt(rank);
            out.writeInt(size);
            out.writeInt(app.length);
            out.write(app);
            for (int p = 0; p < size; p++) {
                out.writeLong(consumed[p]);
                out.writeLong(sent[p]);
            }
            for (int p = 0; p < size; p++) {
                out.writeLong(nextPsn[p]);
                out.writeLong(expectedPsn[p]);
                out.writeLong(ackedPsn[p]);
            }
            out.writeInt(nextContext);
            out.writeInt(agreed.size());
            for (int c : agreed) {
                out.writeInt(c);
            }
            out.writeInt(comms.size());
            for (CommCounters c : comms) {
                out.writeInt(c.context());
                out.writeInt(c.collSeq());
                out.writeInt(c.children());
            }
            writeInts(out, generations);
            writeInts(out, freeSlots);
            out.writeInt(held.size());
            for (HeldMessage m : held) {
                out.writeInt(m.context());
                out.writeInt(m.source());
                out.writeInt(m.tag());
                out.writeInt(m.payload().length);
                out.write(m.payload());
            }
            out.flush();
            CRC32C crc = new CRC32C();
            crc.update(bytes.toByteArray());
            out.writeInt((int) crc.getValue());
        } catch (IOException e) {
            throw new IllegalStateException(e); // a byte array stream does not fail
        }
        return bytes.toByteArray();
    }

    /** Reads an image of {@code rank} of a job of {@code size}, or an IOException naming what is wrong. */
    public static CheckpointImage decode(byte[] b, int rank, int size) throws IOException {
        if (b.length < 24) {
            throw new IOException("checkpoint of " + b.length + " bytes is shorter than its header");
        }
        CRC32C crc = new CRC32C();
        crc.update(b, 0, b.length - 4);
        int stored = ByteBuffer.wrap(b, b.length - 4, 4).getInt();
        if (stored != (int) crc.getValue()) {
            throw new IOException("checkpoint fails its checksum (torn or corrupt file)");
        }
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(b, 0, b.length - 4));
        try {
            if (in.readInt() != MAGIC) {
                throw new IOException("not a Railyard checkpoint (bad magic)");
            }
            int version = in.readInt();
            if (version != VERSION) {
                throw new IOException("checkpoint version " + version + ", this library reads " + VERSION);
            }
            int r = in.readInt();
            int s = in.readInt();
            if (r != rank || s != size) {
                throw new IOException("checkpoint of rank " + r + " of " + s + ", expected rank " + rank + " of " + size);
            }
            CheckpointImage img = new CheckpointImage(r, s);
            img.app = bytes(in, in.readInt(), "application state");
            for (int p = 0; p < s; p++) {
                img.consumed[p] = in.readLong();
                img.sent[p] = in.readLong();
            }
            for (int p = 0; p < s; p++) {
                img.nextPsn[p] = in.readLong();
                img.expectedPsn[p] = in.readLong();
                img.ackedPsn[p] = in.readLong();
            }
            img.nextContext = in.readInt();
            int n = count(in, in.readInt(), 4, "agreed contexts");
            for (int i = 0; i < n; i++) {
                img.agreed.add(in.readInt());
            }
            n = count(in, in.readInt(), 12, "communicators");
            for (int i = 0; i < n; i++) {
                img.comms.add(new CommCounters(in.readInt(), in.readInt(), in.readInt()));
            }
            img.generations = ints(in, count(in, in.readInt(), 4, "transfer slots"));
            img.freeSlots = ints(in, count(in, in.readInt(), 4, "free transfer slots"));
            n = count(in, in.readInt(), 16, "held messages");
            for (int i = 0; i < n; i++) {
                int ctx = in.readInt();
                int src = in.readInt();
                int tag = in.readInt();
                img.held.add(new HeldMessage(ctx, src, tag, bytes(in, in.readInt(), "held message")));
            }
            if (in.available() != 0) {
                throw new IOException("checkpoint has " + in.available() + " bytes after its last section");
            }
            return img;
        } catch (EOFException e) {
            throw new IOException("checkpoint ends inside a section (truncated)");
        }
    }

    private static int count(DataInputStream in, int n, int each, String what) throws IOException {
        if (n < 0 || (long) n * each > in.available()) {
            throw new IOException("checkpoint says " + n + " " + what + ", more than its bytes hold");
        }
        return n;
    }

    private static byte[] bytes(DataInputStream in, int n, String what) throws IOException {
        count(in, n, 1, "bytes of " + what);
        return in.readNBytes(n);
    }

    /** Writes {@code a}'s length, then its ints: what {@link #ints} reads back after the count. */
    private static void writeInts(DataOutputStream out, int[] a) throws IOException {
        out.writeInt(a.length);
        for (int v : a) {
            out.writeInt(v);
        }
    }

    private static int[] ints(DataInputStream in, int n) throws IOException {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = in.readInt();
        }
        return a;
    }

    /**
     * Writes the image to {@link #file} in {@code dir}, replacing the previous one only once the new
     * one is whole on disk (written to a temporary file, forced, renamed over).
     */
    public void write(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path target = file(dir, rank);
        Path tmp = dir.resolve("rank-" + rank + ".ckpt.tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buf = ByteBuffer.wrap(encode());
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** The image of {@code rank} in {@code dir}, or null if it has none; an IOException naming the file if it is unreadable. */
    public static CheckpointImage read(Path dir, int rank, int size) throws IOException {
        Path f = file(dir, rank);
        byte[] b;
        try {
            b = Files.readAllBytes(f);
        } catch (NoSuchFileException e) {
            return null;
        }
        try {
            return decode(b, rank, size);
        } catch (IOException e) {
            throw new IOException(f + ": " + e.getMessage(), e);
        }
    }
}
