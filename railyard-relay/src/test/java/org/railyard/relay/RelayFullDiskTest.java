package org.railyard.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.railyard.testkit.Await;
import org.railyard.transport.relay.RelayClient;
import org.railyard.wire.RelayFrame;

/**
 * A relay whose log is on a disk that fills up (a 1 MiB tmpfs, mounted by the test: root only):
 * the sender is held back with a message saying why, and once space comes back every message is
 * stored and delivered; none is lost.
 */
class RelayFullDiskTest {
    @TempDir
    Path dir;

    private static int run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : -1;
    }

    @Test
    void aFullDiskHoldsTheSenderBackAndLosesNothing() throws Exception {
        Path disk = Files.createDirectory(dir.resolve("disk"));
        Assumptions.assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", disk.toString()) == 0,
                "needs root to mount a 1 MiB tmpfs as a small disk");
        try {
            Path filler = disk.resolve("filler");
            Files.write(filler, new byte[700 << 10]);
            List<String> lines = Relays.lines();
            int count = 200;
            try (RelayServer relay = Relays.start(disk.resolve("log"), RelayLog.Fsync.ALWAYS, 1L << 30, Long.MAX_VALUE, lines);
                 RelayClient sender = Relays.rank(relay, "job-d", 0, 2, false);
                 ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                AtomicLong stored = new AtomicLong();
                Future<?> acks = pool.submit(() -> {
                    for (long seq = 1; seq <= count; seq++) {
                        RelayClient.Incoming in = sender.next(Relays.BOUND.multipliedBy(3));
                        assertThat(in.header().type()).isEqualTo(RelayFrame.STORED);
                        assertThat(in.header().sequence()).isEqualTo(seq);
                        stored.set(seq);
                    }
                    return null;
                });
                Future<?> sending = pool.submit(() -> {
                    Random r = new Random(3);
                    for (long seq = 1; seq <= count; seq++) {
                        byte[] m = Relays.message(r, 0, seq, 8000);
                        sender.store(1, seq, false, m, 0, m.length);
                    }
                    return null;
                });
                Await.awaitUntil(() -> lines.stream().anyMatch(l -> l.startsWith("relay log cannot be written")),
                        Relays.BOUND, "the relay says its log cannot be written");
                long before = stored.get();
                assertThat(before).as("messages stored before the disk filled").isLessThan(count);
                assertThat(lines).anyMatch(l -> l.contains("holding rank 0 of job job-d back until it can"));
                Files.delete(filler);
                acks.get(Relays.BOUND.toSeconds(), TimeUnit.SECONDS);
                sending.get(Relays.BOUND.toSeconds(), TimeUnit.SECONDS);
                try (RelayClient receiver = Relays.rank(relay, "job-d", 1, 2, true)) {
                    for (long seq = 1; seq <= count; seq++) {
                        RelayClient.Incoming m = receiver.next(Relays.BOUND);
                        assertThat(m.header().sequence()).isEqualTo(seq);
                        Relays.check(m);
                    }
                }
                assertThat(Relays.counter(relay.stats(), "stored")).isEqualTo(count);
            }
        } finally {
            run("umount", disk.toString());
        }
    }
}
