package org.railyard.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.railyard.transport.relay.RelayClient;

/** A relay with a log on a real file: restarts, a torn tail, compaction, every fsync policy. */
class RelayLogTest {
    @TempDir
    Path dir;

    /** Rank 0 stores {@code count} messages for rank 1 (seeded contents) and waits for every STORED. */
    private static void send(RelayServer relay, String job, int count) throws IOException {
        try (RelayClient s = Relays.rank(relay, job, 0, 2, false)) {
            Random r = new Random(11);
            for (long seq = 1; seq <= count; seq++) {
                byte[] m = Relays.message(r, 0, seq, 3000);
                s.store(1, seq, seq % 3 == 0, m, 0, m.length);
            }
            Relays.awaitStored(s, 1, 1, count);
        }
    }

    /** Rank 1 receives messages {@code from..to} in order, checking each, and acknowledges up to {@code ackTo}. */
    private static void receive(RelayServer relay, String job, long from, long to, long ackTo) throws IOException {
        long acknowledged = Relays.counter(relay.stats(), "acknowledged");
        try (RelayClient in = Relays.rank(relay, job, 1, 2, true)) {
            for (long seq = from; seq <= to; seq++) {
                RelayClient.Incoming m = in.next(Relays.BOUND);
                assertThat(m.header().sequence()).isEqualTo(seq);
                Relays.check(m);
                if (seq == ackTo) {
                    in.delivered(0, ackTo);
                }
            }
            Relays.awaitCounter(relay, "acknowledged", acknowledged + Math.max(0, ackTo - from + 1));
        }
    }

    @Test
    void aRestartedRelayDeliversAgainExactlyWhatWasNotAcknowledged() throws Exception {
        for (RelayLog.Fsync policy : RelayLog.Fsync.values()) {
            Path log = dir.resolve(policy.name());
            try (RelayServer relay = Relays.start(log, policy, 1L << 30, Long.MAX_VALUE, Relays.lines())) {
                send(relay, "job-l", 60);
                receive(relay, "job-l", 1, 60, 25);
            }
            List<String> lines = Relays.lines();
            try (RelayServer relay = Relays.start(log, policy, 1L << 30, Long.MAX_VALUE, lines)) {
                assertThat(lines).anyMatch(l -> l.contains("35 messages") && l.contains("to be delivered again"));
                receive(relay, "job-l", 26, 60, 60);
                assertThat(Relays.counter(relay.stats(), "held_messages")).isZero();
                // the job and its secret survived the restart: a stranger is still refused
                assertThat(Relays.strangerProof(relay, "job-l", 0, 2, new byte[] {1})).contains("wrong job secret");
            }
        }
    }

    @Test
    void aTailCutMidRecordIsRecoveredToTheLastWholeRecordWithAWarning() throws Exception {
        Path log = dir.resolve("torn");
        try (RelayServer relay = Relays.start(log, RelayLog.Fsync.ALWAYS, 1L << 30, Long.MAX_VALUE, Relays.lines())) {
            send(relay, "job-t", 10);
        }
        Path file = log.resolve(RelayLog.FILE);
        long size = Files.size(file);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(size - 7); // a crash in the middle of writing the last record
        }
        List<String> lines = Relays.lines();
        try (RelayServer relay = Relays.start(log, RelayLog.Fsync.ALWAYS, 1L << 30, Long.MAX_VALUE, lines)) {
            assertThat(lines).anyMatch(l -> l.contains("ends inside a record") && l.contains("recovered the 10 whole records")
                    && l.contains("cut the last"));
            assertThat(lines).anyMatch(l -> l.contains("9 messages"));
            receive(relay, "job-t", 1, 9, 9);
            // the lost message can be sent again by its sender, and is taken as new
            try (RelayClient s = Relays.rank(relay, "job-t", 0, 2, false)) {
                s.store(1, 10, false, new byte[] {10}, 0, 1);
                Relays.awaitStored(s, 1, 10, 10);
            }
        }
        assertThat(Files.size(file)).isGreaterThan(0);
    }

    @Test
    void compactionKeepsWhatIsHeldAndTheSequenceNumbersOfWhatIsGone() throws Exception {
        Path log = dir.resolve("compact");
        List<String> lines = Relays.lines();
        long compactMin = 16 << 10;
        try (RelayServer relay = Relays.start(log, RelayLog.Fsync.BATCH, 1L << 30, compactMin, lines)) {
            send(relay, "job-c", 100);
            long before = Files.size(log.resolve(RelayLog.FILE));
            receive(relay, "job-c", 1, 100, 90);
            assertThat(Relays.counter(relay.stats(), "compactions")).isPositive();
            assertThat(Files.size(log.resolve(RelayLog.FILE))).isLessThan(before / 2);
        }
        try (RelayServer relay = Relays.start(log, RelayLog.Fsync.BATCH, 1L << 30, compactMin, Relays.lines())) {
            // message 5 was consumed and compacted away, yet a sender sending it again is not delivered twice
            try (RelayClient s = Relays.rank(relay, "job-c", 0, 2, false)) {
                s.store(1, 5, false, new byte[] {5}, 0, 1);
                Relays.awaitStored(s, 1, 5, 5);
            }
            assertThat(Relays.counter(relay.stats(), "duplicates")).isEqualTo(1);
            receive(relay, "job-c", 91, 100, 100);
        }
    }
}
