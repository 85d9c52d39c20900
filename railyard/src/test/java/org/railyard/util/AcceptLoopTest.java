package org.railyard.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The accepting loop of the key-value server, the relay and the gateway: an accept that fails while
 * the listener is open (here: "Too many open files" twice, then a reset) is reported once per kind,
 * with advice for the first, and the loop goes on to take the next connection; closing the
 * listener ends it without a report.
 */
class AcceptLoopTest {

    /** A listener whose first accepts fail as {@code failures} say, then accept for real. */
    private static final class Failing extends ServerSocket {
        final List<String> failures;
        final AtomicInteger calls = new AtomicInteger();

        Failing(List<String> failures) throws IOException {
            super();
            this.failures = failures;
            bind(new InetSocketAddress("127.0.0.1", 0));
        }

        @Override
        public Socket accept() throws IOException {
            int n = calls.getAndIncrement();
            if (n < failures.size()) {
                throw new IOException(failures.get(n));
            }
            return super.accept();
        }
    }

    @Test
    void aFailedAcceptIsReportedOnceAndTheLoopGoesOn() throws Exception {
        List<String> reports = new CopyOnWriteArrayList<>();
        List<Socket> taken = new CopyOnWriteArrayList<>();
        try (Failing server = new Failing(List.of("Too many open files", "Too many open files", "Connection reset"))) {
            Thread t = Thread.ofPlatform().start(() -> AcceptLoop.run(server, () -> false,
                    e -> reports.add(e.getMessage()), taken::add));
            try (Socket client = new Socket("127.0.0.1", server.getLocalPort())) {
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (taken.isEmpty() && System.nanoTime() < end) {
                    Thread.onSpinWait();
                }
                assertThat(taken).as("the connection after the failures").hasSize(1);
            }
            server.close();
            t.join(30_000);
            assertThat(t.isAlive()).as("closing the listener ends the loop").isFalse();
            assertThat(server.calls.get()).isGreaterThanOrEqualTo(5);
        }
        assertThat(reports).hasSize(2);
        assertThat(reports.get(0)).startsWith("Too many open files (the process reached its limit of open files, ulimit -n")
                .endsWith("; accepting again while it lasts");
        assertThat(reports.get(1)).isEqualTo("Connection reset; accepting again while it lasts");
        for (Socket s : taken) {
            s.close();
        }
    }
}
