package org.railyard.daemon;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * What the daemon commands ({@code railyard relay}, {@code railyard gateway}) do alike around
 * their servers: parse a {@code HOST:PORT} and a listening port, print lines that the server's
 * threads write at once without interleaving them, and run until the process is asked to stop.
 * The parsers know no command-line library: a bad value is an {@link IllegalArgumentException}
 * whose message names the option and the value, which {@link DaemonOptions} turns into the
 * command's usage error.
 */
public final class Daemons {
    private Daemons() {
    }

    /**
     * {@code text} as {@code HOST:PORT}, the port in 1..65535.
     *
     * @throws IllegalArgumentException "OPTION wants HOST:PORT, not 'TEXT'" otherwise
     */
    public static InetSocketAddress hostPort(String option, String text) {
        int colon = text.lastIndexOf(':');
        int port = -1;
        if (colon > 0) {
            try {
                port = Integer.parseInt(text.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(option + " wants HOST:PORT, not '" + text + "'");
        }
        return new InetSocketAddress(text.substring(0, colon), port);
    }

    /**
     * Checks a port to listen on (0 picks a free one).
     *
     * @throws IllegalArgumentException "--port must be between 0 and 65535, not PORT" otherwise
     */
    public static int listenPort(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--port must be between 0 and 65535, not " + port);
        }
        return port;
    }

    /** Prints {@code text} as it is and flushes, under {@code out}'s lock. */
    public static void print(PrintWriter out, String text) {
        synchronized (out) {
            out.print(text);
            out.flush();
        }
    }

    /** Prints {@code line} and a line end and flushes, under {@code out}'s lock. */
    public static void println(PrintWriter out, String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }

    /** A sink that prints each line whole with {@link #println}, for a server's log. */
    public static Consumer<String> lines(PrintWriter out) {
        return line -> println(out, line);
    }

    /**
     * Installs a shutdown hook that closes {@code server}, then runs {@code started} (what the
     * command announces once it can be stopped cleanly), and returns once the process is asked to
     * stop (SIGTERM, SIGINT: the JVM's shutdown) and the server is closed. A failure to close is
     * ignored: the process stops anyway.
     */
    public static void runUntilStopped(AutoCloseable server, Runnable started) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception ignored) {
                // stopping anyway
            }
            stopped.countDown();
        }));
        started.run();
        stopped.await();
    }
}
