package org.railyard.bootstrap;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * A byte stream to the PMI server, framed into newline-terminated ASCII lines (PMI-1, and the
 * first exchange of PMI-2) or into runs of a known length (PMI-2's length-prefixed messages,
 * {@link #receiveExactly}). Subclasses supply
 * only the bounded raw read and the write: a TCP socket ({@link PmiSocketConnection}, PMI_PORT) or
 * an inherited file descriptor ({@link PmiFdConnection}, PMI_FD).
 *
 * <p>Every read is bounded by a deadline; on expiry the caller gets a {@code TIMEOUT} exception
 * naming what it was waiting for. A line longer than {@link #MAX_LINE} is refused rather than
 * buffered without end, since only a broken or foreign server would send one.
 */
abstract class PmiConnection implements AutoCloseable {
    /** Longest accepted line, bytes. Hydra's values are at most about 1 KiB; this leaves ample room. */
    static final int MAX_LINE = 64 * 1024;

    private final byte[] in = new byte[8192];
    private int inStart;
    private int inEnd;
    private final StringBuilder partial = new StringBuilder();

    /** Who is at the other end, for messages: "PMI server at vm:42017", "PMI server on PMI_FD=6". */
    abstract String describe();

    /**
     * Reads at most {@code len} bytes, waiting no longer than {@code timeoutMillis} (at least 1).
     *
     * @return bytes read (> 0), 0 if the time ran out with nothing to read, -1 at end of stream
     */
    protected abstract int readSome(byte[] dst, int off, int len, long timeoutMillis) throws IOException;

    /** Writes all of {@code src}, giving up with an exception once {@code deadlineNanos} has passed. */
    protected abstract void writeAll(byte[] src, long deadlineNanos) throws IOException;

    /** Releases the socket or descriptor; idempotent. */
    @Override
    public abstract void close();

    /** Sends one line; the newline is added here. */
    final void send(String line, long deadlineNanos) {
        sendRaw(line + "\n", line, deadlineNanos);
    }

    /** Sends {@code text} as it is (PMI-2 framing is the caller's); {@code shown} names it in errors. */
    final void sendRaw(String text, String shown, long deadlineNanos) {
        try {
            writeAll(text.getBytes(StandardCharsets.US_ASCII), deadlineNanos);
        } catch (IOException e) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, "cannot send " + PmiMessage.quote(shown)
                    + " to the " + describe() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Receives exactly {@code count} bytes as ASCII text, waiting until {@code deadlineNanos} at most.
     * Shares the read buffer with {@link #receive}, so the two framings may follow each other.
     *
     * @param count at most {@link #MAX_LINE}
     * @throws RailyardException TIMEOUT when the deadline passes, BOOTSTRAP when the server closed
     *         the connection before all of them came (quoting what did) or the read failed
     */
    final String receiveExactly(int count, long deadlineNanos, String waitingFor) {
        if (count < 0 || count > MAX_LINE) {
            throw new IllegalArgumentException("count " + count + " outside [0, " + MAX_LINE + "]");
        }
        if (!partial.isEmpty()) {
            throw new IllegalStateException("an unterminated line is pending: " + PmiMessage.quote(partial.toString()));
        }
        byte[] out = new byte[count];
        int have = 0;
        while (have < count) {
            if (inStart < inEnd) {
                int n = Math.min(count - have, inEnd - inStart);
                System.arraycopy(in, inStart, out, have, n);
                inStart += n;
                have += n;
                continue;
            }
            inStart = inEnd = 0;
            if (!fill(deadlineNanos, waitingFor)) {
                throw new RailyardException(ErrorClass.BOOTSTRAP, "the " + describe()
                        + " closed the connection in the middle of a message: " + have + " of " + count
                        + " bytes came while this process waited for " + waitingFor
                        + (have == 0 ? "" : "; they were " + PmiMessage.quote(new String(out, 0, have, StandardCharsets.US_ASCII))));
            }
        }
        return new String(out, StandardCharsets.US_ASCII);
    }

    /**
     * Reads what the server sent into the empty buffer, waiting until {@code deadlineNanos} at most.
     *
     * @return false at the end of the stream
     * @throws RailyardException TIMEOUT when the deadline passes, BOOTSTRAP when the read fails
     */
    private boolean fill(long deadlineNanos, String waitingFor) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            throw timeout(waitingFor);
        }
        int n;
        try {
            n = readSome(in, 0, in.length, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        } catch (IOException e) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, "reading from the " + describe()
                    + " failed while waiting for " + waitingFor + ": " + e.getMessage(), e);
        }
        if (n < 0) {
            return false;
        }
        inEnd = n;
        return true;
    }

    /**
     * Receives one line (without its newline), waiting until {@code deadlineNanos} at most.
     *
     * @param waitingFor what the caller expects, for the timeout message ("the answer to cmd=barrier_in")
     * @throws RailyardException TIMEOUT when the deadline passes, BOOTSTRAP when the server closed
     *         the connection, failed, or sent an over-long line
     */
    final String receive(long deadlineNanos, String waitingFor) {
        while (true) {
            // Hand out a complete line already buffered; the server may send several at once (initack).
            for (int i = inStart; i < inEnd; i++) {
                if (in[i] == '\n') {
                    partial.append(new String(in, inStart, i - inStart, StandardCharsets.US_ASCII));
                    inStart = i + 1;
                    String line = partial.toString();
                    partial.setLength(0);
                    if (line.length() > MAX_LINE) {
                        throw tooLong(line, waitingFor);
                    }
                    return line;
                }
            }
            partial.append(new String(in, inStart, inEnd - inStart, StandardCharsets.US_ASCII));
            inStart = inEnd = 0;
            if (partial.length() > MAX_LINE) {
                throw tooLong(partial.toString(), waitingFor);
            }
            if (!fill(deadlineNanos, waitingFor)) {
                throw new RailyardException(ErrorClass.BOOTSTRAP, "the " + describe()
                        + " closed the connection while this process waited for " + waitingFor
                        + (partial.isEmpty() ? "" : "; unterminated data: " + PmiMessage.quote(partial.toString())));
            }
        }
    }

    private RailyardException tooLong(String line, String waitingFor) {
        return new RailyardException(ErrorClass.BOOTSTRAP, "the " + describe() + " sent a line longer than "
                + MAX_LINE + " bytes while this process waited for " + waitingFor + "; it begins "
                + PmiMessage.quote(line));
    }

    private RailyardException timeout(String waitingFor) {
        return new RailyardException(ErrorClass.TIMEOUT, "no answer from the " + describe() + " in time: waited for "
                + waitingFor);
    }
}
