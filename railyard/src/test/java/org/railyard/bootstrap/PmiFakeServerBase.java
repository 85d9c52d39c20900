package org.railyard.bootstrap;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * What the PMI-1 and PMI-2 test servers keep alike, whatever their wire protocol: a loopback
 * listener and a thread per connection, the record of every request, a key-value space whose puts
 * become visible to gets at the fence that follows them, a fence that answers every member once
 * all {@code size} entered it, and a close that stops every thread. Each subclass speaks one
 * protocol ({@link PmiFakeServer}, {@link Pmi2FakeServer}) over its own kind of connection
 * {@code C}, and calls {@link #startAccepting} at the end of its constructor.
 */
abstract class PmiFakeServerBase<C extends AutoCloseable> implements AutoCloseable {
    final int size;
    /** Every request received, in order of arrival. */
    final List<String> received = new CopyOnWriteArrayList<>();
    /** Keys put and made visible by a fence. */
    final Map<String, String> committed = Collections.synchronizedMap(new LinkedHashMap<>());
    private final Map<String, String> pending = new HashMap<>();
    private final List<C> inFence = new ArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final List<C> sockets = new CopyOnWriteArrayList<>();
    private final ServerSocket listener;
    private final String threadPrefix;
    volatile boolean stopped;

    /** @param threadPrefix names this server's threads ("pmi-fake") */
    PmiFakeServerBase(int size, String threadPrefix) throws IOException {
        this.size = size;
        this.threadPrefix = threadPrefix;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    }

    /** The TCP port of the listener. */
    final int listenerPort() {
        return listener.getLocalPort();
    }

    /** Starts taking connections; the subclass's fields must be set. */
    final void startAccepting() {
        threads.add(Thread.ofPlatform().daemon().name(threadPrefix + "-accept").start(this::acceptLoop));
    }

    /** Wraps an accepted socket in this protocol's connection. */
    abstract C accepted(Socket s) throws IOException;

    /** Serves one connection until it ends or the server stops; closes it. */
    abstract void serveLoop(C connection);

    /** Serves a connection on a thread of its own (also one that did not come through the listener). */
    final void serve(C connection) {
        threads.add(Thread.ofPlatform().daemon().name(threadPrefix + "-serve").start(() -> serveLoop(connection)));
    }

    private void acceptLoop() {
        while (!stopped) {
            try {
                C connection = accepted(listener.accept());
                sockets.add(connection);
                serve(connection);
            } catch (IOException e) {
                return; // listener closed by close()
            }
        }
    }

    /** A put: visible to gets after the next fence. */
    final synchronized void stage(String key, String value) {
        pending.put(key, value);
    }

    /**
     * {@code connection} enters the fence; the last of the {@code size} members commits the staged
     * puts and gets every member back to answer (itself included), the others null.
     */
    final List<C> enterFence(C connection) {
        synchronized (this) {
            inFence.add(connection);
            if (inFence.size() < size) {
                return null;
            }
            committed.putAll(pending);
            pending.clear();
            List<C> release = new ArrayList<>(inFence);
            inFence.clear();
            return release;
        }
    }

    /** Splits a request at {@code separator} (a regular expression) and each attribute at its first '='. */
    static Map<String, String> attributes(String request, String separator) {
        Map<String, String> a = new LinkedHashMap<>();
        for (String token : request.split(separator)) {
            int eq = token.indexOf('=');
            if (eq > 0) {
                a.put(token.substring(0, eq), token.substring(eq + 1));
            }
        }
        return a;
    }

    /** Writes {@code text} as ASCII and flushes. */
    static void send(java.io.OutputStream out, String text) throws IOException {
        out.write(text.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        out.flush();
    }

    static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // test server: nothing more to do
        }
    }

    @Override
    public void close() {
        stopped = true;
        try {
            listener.close();
        } catch (IOException e) {
            // already closed
        }
        // A socket may be closed under its blocked reader, which then sees the end of the stream.
        // Descriptor connections are not: their loops notice `stopped` within 50 ms and close
        // themselves, since closing a descriptor number another thread is polling could hit a
        // reused number.
        for (C c : sockets) {
            try {
                c.close();
            } catch (Exception e) {
                // test server: nothing more to do
            }
        }
        try {
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(5));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the test is being stopped: leave the daemon threads be
        }
    }
}
