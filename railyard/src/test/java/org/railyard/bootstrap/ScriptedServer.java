package org.railyard.bootstrap;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A loopback server for fuzz tests of the bootstrap clients: each connection runs the current
 * {@link Script} on a virtual thread (say what a test input says, then hang up), and is then
 * drained until the client closes, so the client never sees a reset instead of the end of stream.
 */
final class ScriptedServer implements AutoCloseable {
    /** What the server does on one connection before it shuts its output. */
    @FunctionalInterface
    interface Script {
        void run(Socket s, InputStream in) throws IOException;
    }

    private final ServerSocket listener;
    private volatile Script script = (s, in) -> { };

    ScriptedServer() throws IOException {
        listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread.ofPlatform().daemon().name("scripted-server").start(this::acceptLoop);
    }

    int port() {
        return listener.getLocalPort();
    }

    /** The script of the connections that come next. */
    void script(Script next) {
        script = next;
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket s = listener.accept();
                Script current = script;
                Thread.ofVirtual().start(() -> serve(s, current));
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void serve(Socket s, Script current) {
        try (s) {
            s.setSoTimeout(10_000);
            InputStream in = s.getInputStream();
            current.run(s, in);
            s.shutdownOutput();
            while (in.read() >= 0) {
                // drain until the client closes
            }
        } catch (IOException ignored) {
            // the client went away first: nothing to tell it
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }
}
