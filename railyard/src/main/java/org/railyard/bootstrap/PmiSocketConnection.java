package org.railyard.bootstrap;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * The connection of Hydra's {@code -pmi-port} mode: TCP to the {@code host:port} given in
 * {@code PMI_PORT}. Reads are bounded with the socket's read timeout, set afresh before each read.
 *
 * <p>Writes are not separately bounded: PMI-1 is strictly request/answer, so at most one short
 * line is ever unread by the server, far below any socket send buffer, and a write returns at once.
 */
final class PmiSocketConnection extends PmiConnection {
    private final String where;
    private final Socket socket;
    private final InputStream input;
    private final OutputStream output;

    private PmiSocketConnection(String where, Socket socket) throws IOException {
        this.where = where;
        this.socket = socket;
        this.input = socket.getInputStream();
        this.output = socket.getOutputStream();
    }

    /**
     * Connects to {@code hostPort} ("host:port", "[v6addr]:port"), bounded by {@code timeout}.
     *
     * @throws RailyardException BOOTSTRAP if the value is malformed or nobody answers there,
     *         TIMEOUT if connecting takes longer than {@code timeout}
     */
    static PmiSocketConnection connect(String hostPort, Duration timeout) {
        InetSocketAddress address = HostPort.parse(hostPort);
        if (address == null) {
            throw new RailyardException(ErrorClass.BOOTSTRAP,
                    "PMI_PORT='" + hostPort + "' is not host:port (for example node7:42017)");
        }
        String where = "PMI server at " + hostPort + " (PMI_PORT)";
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true); // one small line per request: do not let Nagle hold it back
            socket.connect(address, Math.clamp(timeout.toMillis(), 1, Integer.MAX_VALUE));
            return new PmiSocketConnection(where, socket);
        } catch (SocketTimeoutException e) {
            closeQuietly(socket);
            throw new RailyardException(ErrorClass.TIMEOUT, "cannot connect to the " + where + " within " + timeout, e);
        } catch (IOException | IllegalArgumentException e) {
            closeQuietly(socket);
            throw new RailyardException(ErrorClass.BOOTSTRAP, "cannot connect to the " + where + ": " + e, e);
        }
    }

    @Override
    String describe() {
        return where;
    }

    @Override
    protected int readSome(byte[] dst, int off, int len, long timeoutMillis) throws IOException {
        socket.setSoTimeout(Math.clamp(timeoutMillis, 1, Integer.MAX_VALUE));
        try {
            return input.read(dst, off, len);
        } catch (SocketTimeoutException e) {
            return 0;
        }
    }

    @Override
    protected void writeAll(byte[] src, long deadlineNanos) throws IOException {
        output.write(src);
        output.flush();
    }

    @Override
    public void close() {
        closeQuietly(socket);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // nothing is left to release; the job is ending or failed already
        }
    }
}
