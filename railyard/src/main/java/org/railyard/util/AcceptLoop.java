package org.railyard.util;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The accepting thread of a server that serves each connection apart (the key-value server, the
 * relay, the gateway): it hands every accepted socket to the server until the server closes its
 * listening socket. Closing the listening socket is how a server stops the loop; the accept that
 * this ends is no failure.
 *
 * <p>An accept that fails while the listening socket stays open (the process out of file
 * descriptors, a connection reset before it was taken) does not end the loop: a server whose
 * accepting thread stopped would leave every later client unable to reach it. The loop pauses
 * ({@link Retry}) and accepts again.
 */
public final class AcceptLoop {
    private AcceptLoop() {
    }

    /**
     * Accepts connections on {@code server} and hands each to {@code accepted}, on the calling
     * thread, until {@code closed} is true or the listening socket is closed. An accept that fails
     * while both still hold goes to {@code failed} (each new kind of failure once, with what to do
     * about it when that is known) and is retried after {@link Retry}'s pause; one that fails
     * after the server closed ends the loop silently.
     */
    public static void run(ServerSocket server, BooleanSupplier closed, Consumer<IOException> failed,
                           Consumer<Socket> accepted) {
        Retry retry = new Retry();
        while (!closed.getAsBoolean()) {
            Socket s;
            try {
                s = server.accept();
                retry.reset();
            } catch (IOException e) {
                if (closed.getAsBoolean() || server.isClosed()) {
                    return;
                }
                String news = retry.news(e);
                if (news != null) {
                    failed.accept(new IOException(news, e));
                }
                if (!retry.pause()) {
                    return;
                }
                continue;
            }
            accepted.accept(s);
        }
    }

    /**
     * The pauses of an accepting thread whose accepts fail while its listener is open:
     * {@link #FIRST_MILLIS}, doubling up to {@link #MAX_MILLIS}, back to the first after an accept
     * that worked; and which failures are new enough to report.
     */
    public static final class Retry {
        static final long FIRST_MILLIS = 10;
        static final long MAX_MILLIS = 1000;

        private long pause = FIRST_MILLIS;
        private String last;

        /** An accept worked: the next failure pauses the shortest time again. */
        public void reset() {
            pause = FIRST_MILLIS;
        }

        /** The line to report for {@code e}, or null if the last failure was the same. */
        public String news(IOException e) {
            String message = String.valueOf(e.getMessage());
            if (message.equals(last)) {
                return null;
            }
            last = message;
            return message + advice(message) + "; accepting again while it lasts";
        }

        /** Sleeps the pause and doubles it; false if the thread was interrupted (the owner stops it). */
        public boolean pause() {
            try {
                Thread.sleep(pause);
            } catch (InterruptedException stop) {
                Thread.currentThread().interrupt();
                return false;
            }
            pause = Math.min(2 * pause, MAX_MILLIS);
            return true;
        }

        /** What a user can do about an accept's failure; empty if nothing is known. */
        static String advice(String failure) {
            return failure.contains("Too many open files")
                    ? " (the process reached its limit of open files, ulimit -n: raise it, or run fewer ranks or"
                    + " clients per process)"
                    : "";
        }
    }
}
