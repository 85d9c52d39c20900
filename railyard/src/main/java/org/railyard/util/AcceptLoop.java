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
 */
public final class AcceptLoop {
    private AcceptLoop() {
    }

    /**
     * Accepts connections on {@code server} and hands each to {@code accepted}, on the calling
     * thread, until {@code closed} is true. An accept that fails while {@code closed} is still false
     * goes to {@code failed} and ends the loop too (the server accepts nothing more); one that fails
     * after the server closed ends it silently.
     */
    public static void run(ServerSocket server, BooleanSupplier closed, Consumer<IOException> failed,
                           Consumer<Socket> accepted) {
        while (!closed.getAsBoolean()) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                if (!closed.getAsBoolean()) {
                    failed.accept(e);
                }
                return;
            }
            accepted.accept(s);
        }
    }
}
