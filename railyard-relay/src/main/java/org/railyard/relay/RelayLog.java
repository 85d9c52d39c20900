package org.railyard.relay;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.function.Consumer;
import org.railyard.wire.RelayLogRecord;

/**
 * A relay's append-only message log: one file, {@code DIR/relay.log}, of {@link RelayLogRecord}s.
 * Appends come from {@link RelayStore} under its lock, in the order of the changes they record.
 *
 * <p>Durability per {@link Fsync} policy: {@code never} leaves the records to the operating system
 * (they survive the relay process, not the machine); {@code always} forces each record before the
 * append returns; {@code batch} forces from a flusher thread that takes every record appended while
 * the previous force ran (group commit), and a sender's STORED waits in {@link #awaitDurable}.
 * Positions given to waiters count records, not bytes, so a compaction in between does not
 * confuse them.
 *
 * <p>Compaction rewrites the file with only what is still needed (the jobs, each pair's highest
 * sequence number, the messages not yet acknowledged), into a temporary file that is forced and
 * then renamed over the log, so a crash at any point leaves either the old log or the new one.
 */
final class RelayLog implements AutoCloseable {
    static final String FILE = "relay.log";
    private static final System.Logger LOG = System.getLogger(RelayLog.class.getName());

    enum Fsync {
        NEVER, BATCH, ALWAYS;

        static Fsync parse(String s) {
            try {
                return valueOf(s.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--fsync must be never, batch or always, not '" + s + "'");
            }
        }
    }

    /** Writes what is still live, through a {@link Rewriter}. */
    interface Live {
        void writeAll(Rewriter out) throws IOException;
    }

    /** Receives the records of a compaction, in the order they go into the new file. */
    interface Rewriter {
        void write(byte[] record) throws IOException;

        void write(byte[] head, byte[] tail) throws IOException;
    }

    private final Path file;
    private final Fsync policy;
    private final long compactMin;
    private final Object forceLock = new Object();
    private FileChannel channel;
    private long size;
    /** Records appended since open; {@link #durable} trails it. Guarded by this. */
    private long appended;
    private long durable;
    private boolean closed;
    private final Thread flusher;

    /**
     * @param compactMin the log is compacted only once it is at least this long and at least half of
     *                   it is dead
     */
    RelayLog(Path dir, Fsync policy, long compactMin) throws IOException {
        Files.createDirectories(dir);
        this.file = dir.resolve(FILE);
        this.policy = policy;
        this.compactMin = compactMin;
        this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        this.size = channel.size();
        this.flusher = policy == Fsync.BATCH ? Thread.ofPlatform().daemon().name("relay-log-flusher").start(this::flushLoop) : null;
    }

    Path file() {
        return file;
    }

    /** Whether acknowledgements held together share one force ({@code --fsync batch}). */
    boolean groupCommits() {
        return policy == Fsync.BATCH;
    }

    long size() {
        return size;
    }

    /**
     * Reads every whole record from the start, in order. A tail cut inside a record (a crash during
     * a write) or failing its checksum is cut off the file, with a warning naming how much was lost.
     *
     * @param warn told of a torn tail, in one line
     * @return the number of records read
     */
    int replay(Consumer<RelayLogRecord.Record> sink, Consumer<String> warn) throws IOException {
        int n = 0;
        long good = 0;
        channel.position(0);
        InputStream raw = Channels.newInputStream(channel);
        CountingStream counted = new CountingStream(new BufferedInputStream(raw, 1 << 16));
        DataInputStream in = new DataInputStream(counted);
        try {
            RelayLogRecord.Record r;
            while ((r = RelayLogRecord.read(in, size - counted.count)) != null) {
                sink.accept(r);
                n++;
                good = counted.count;
            }
        } catch (RelayLogRecord.TornRecord e) {
            warn.accept("relay log " + file + ": " + e.getMessage() + " at byte " + good + "; recovered the " + n
                    + " whole records before it and cut the last " + (size - good) + " bytes (a crash during a write?)");
            channel.truncate(good);
            channel.force(true);
        }
        size = good;
        channel.position(size);
        return n;
    }

    /** Appends a record (its head, then {@code len} bytes of {@code tail}); returns its position for {@link #awaitDurable}. */
    long append(byte[] head, byte[] tail, int off, int len) throws IOException {
        long start = size;
        try {
            if (len > 0) {
                writeFully(channel, ByteBuffer.wrap(head), ByteBuffer.wrap(tail, off, len)); // one system call
            } else {
                writeFully(channel, ByteBuffer.wrap(head));
            }
        } catch (IOException e) {
            try {
                channel.truncate(start); // leave no half record behind a failed write (a full disk)
                channel.position(start);
            } catch (IOException ignored) {
                // the next replay cuts the torn tail
            }
            throw e;
        }
        size = start + head.length + len;
        if (policy == Fsync.ALWAYS) {
            synchronized (forceLock) {
                channel.force(false);
            }
        }
        synchronized (this) {
            appended++;
            if (policy != Fsync.BATCH) {
                durable = appended;
            }
            notifyAll();
            return appended;
        }
    }

    long append(byte[] record) throws IOException {
        return append(record, null, 0, 0);
    }

    /** Returns once the record at {@code position} is as durable as the policy makes it. */
    void awaitDurable(long position) throws InterruptedException, IOException {
        synchronized (this) {
            while (durable < position) {
                if (closed) {
                    throw new IOException("relay log closed");
                }
                wait();
            }
        }
    }

    private void flushLoop() {
        while (true) {
            long target;
            synchronized (this) {
                while (durable == appended && !closed) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (closed) {
                    return;
                }
                target = appended;
            }
            try {
                synchronized (forceLock) {
                    channel.force(false);
                }
            } catch (IOException e) {
                LOG.log(System.Logger.Level.ERROR, "relay log " + file + ": fsync failed: " + e + "; retrying");
                java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L); // backoff before the retry
                continue;
            }
            synchronized (this) {
                durable = Math.max(durable, target);
                notifyAll();
            }
        }
    }

    boolean wantsCompaction(long liveBytes) {
        return size >= compactMin && liveBytes * 2 < size;
    }

    /**
     * Replaces the log with what {@code live} writes; the caller holds the store's lock, so
     * nothing is appended meanwhile.
     */
    void compact(Live live) throws IOException {
        Path tmp = file.resolveSibling(FILE + ".compact");
        long before = size;
        try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            long[] written = {0};
            live.writeAll(new Rewriter() {
                @Override
                public void write(byte[] record) throws IOException {
                    written[0] += writeFully(out, ByteBuffer.wrap(record));
                }

                @Override
                public void write(byte[] head, byte[] tail) throws IOException {
                    written[0] += writeFully(out, ByteBuffer.wrap(head));
                    written[0] += writeFully(out, ByteBuffer.wrap(tail));
                }
            });
            out.force(true);
            synchronized (forceLock) {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                channel.close();
                channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                size = written[0];
                channel.position(size);
            }
        }
        synchronized (this) {
            durable = appended;
            notifyAll();
        }
        LOG.log(System.Logger.Level.INFO, "relay log " + file + " compacted from " + before + " to " + size + " bytes");
    }

    /** Writes every byte of {@code head} and then of {@code tail}, gathered. */
    private static void writeFully(FileChannel ch, ByteBuffer head, ByteBuffer tail) throws IOException {
        ByteBuffer[] both = {head, tail};
        while (tail.hasRemaining()) {
            ch.write(both);
        }
    }

    private static long writeFully(FileChannel ch, ByteBuffer b) throws IOException {
        long n = b.remaining();
        while (b.hasRemaining()) {
            ch.write(b);
        }
        return n;
    }

    @Override
    public void close() throws IOException {
        synchronized (this) {
            closed = true;
            notifyAll();
        }
        if (flusher != null) {
            try {
                flusher.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (forceLock) {
            if (policy != Fsync.NEVER && channel.isOpen()) {
                channel.force(false);
            }
            channel.close();
        }
    }

    /** Counts the bytes read through it, so a replay knows where the last whole record ended. */
    private static final class CountingStream extends java.io.FilterInputStream {
        long count;

        CountingStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long k = super.skip(n);
            count += k;
            return k;
        }
    }
}
