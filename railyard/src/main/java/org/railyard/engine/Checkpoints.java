package org.railyard.engine;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import org.railyard.channel.ChannelTable;
import org.railyard.channel.Replay;
import org.railyard.engine.coll.Collectives;
import org.railyard.engine.comm.Communicators;
import org.railyard.engine.p2p.PointToPoint;
import org.railyard.engine.progress.Progress;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.util.Config;
import org.railyard.wire.CheckpointImage;

/**
 * Application checkpoints of one process (issue 22; MPICH-V's checkpoint plus the Channel
 * Memory's message log): {@link #take} stores the application's bytes with the library state a
 * rank started again needs ({@link CheckpointImage}) and then lets the owner relay free the
 * messages the rank consumed before it; {@link #resumeAtStart} puts that state back in a rank
 * the launcher started again, before its progress agent hands any frame up.
 *
 * <p>Needs the relay transport in replay mode ({@code railyard run --relays N --restart M}),
 * which keeps every frame after the checkpoint and gives them again in their first order, and
 * {@code railyard.checkpoint.dir}, where the image is written (the launcher sets both).
 */
final class Checkpoints {
    private final int rank;
    private final int size;
    private final ChannelTable channels;
    private final PointToPoint p2p;
    private final Communicators communicators;
    private final Collectives collectives;
    private final Progress progress;
    private final String dir;
    private final Duration bound;
    /** The image this process resumed from, or null. */
    private final CheckpointImage restored;

    Checkpoints(int rank, int size, ChannelTable channels, PointToPoint p2p, Communicators communicators,
                Collectives collectives, Progress progress) {
        this.rank = rank;
        this.size = size;
        this.channels = channels;
        this.p2p = p2p;
        this.communicators = communicators;
        this.collectives = collectives;
        this.progress = progress;
        this.dir = Config.string(Config.CHECKPOINT_DIR_PROP, Config.CHECKPOINT_DIR_DEFAULT);
        this.bound = Config.duration(Config.RELAY_ABSENCE_PROP, Config.RELAY_ABSENCE_DEFAULT);
        this.restored = resumeAtStart();
    }

    /** The application's bytes of the checkpoint this rank resumed from, or null in a first run or with no checkpoint. */
    byte[] restoredState() {
        return restored == null ? null : restored.app.clone();
    }

    private CheckpointImage resumeAtStart() {
        if (dir.isEmpty() || channels.replay() == null
                || Config.number(Config.INCARNATION_PROP, Config.INCARNATION_DEFAULT) == 0) {
            return null;
        }
        CheckpointImage img;
        try {
            img = CheckpointImage.read(Path.of(dir), rank, size);
        } catch (IOException e) {
            throw new RailyardException(ErrorClass.IO, "rank " + rank + " cannot resume from its checkpoint: " + e.getMessage());
        }
        if (img == null) {
            return null; // killed before its first checkpoint: it runs again from the start
        }
        ReentrantLock lock = progress.lock();
        lock.lock();
        try {
            for (int p = 0; p < size; p++) {
                if (img.nextPsn[p] != 0 || img.expectedPsn[p] != 0 || img.ackedPsn[p] != 0) {
                    channels.resumeSequence(p, img.nextPsn[p], img.expectedPsn[p], img.ackedPsn[p]);
                }
            }
            p2p.resume(img);
            communicators.resume(img);
        } finally {
            lock.unlock();
        }
        return img;
    }

    /** See {@code Railyard.checkpoint}. */
    void take(byte[] state) {
        if (state == null) {
            throw new RailyardException(ErrorClass.ARG, "checkpoint state is null");
        }
        Replay log = channels.replay();
        if (log == null || dir.isEmpty()) {
            throw new RailyardException(ErrorClass.ARG, "a checkpoint needs relays in replay mode and a checkpoint directory"
                    + " (railyard run --relays N --restart M sets both; " + Config.RESTARTS_PROP + " and "
                    + Config.CHECKPOINT_DIR_PROP + " here are " + Config.number(Config.RESTARTS_PROP, 0) + " and '" + dir + "')");
        }
        long deadline = System.nanoTime() + bound.toNanos();
        CheckpointImage img = null;
        ReentrantLock lock = progress.lock();
        while (img == null) {
            try {
                log.awaitStored(bound); // what this rank sent is with the relays: it will never be sent again
            } catch (IOException e) {
                throw new RailyardException(ErrorClass.IO, "checkpoint of rank " + rank + ": " + e.getMessage());
            }
            lock.lock();
            try {
                String pending = pending();
                if (pending != null) {
                    throw new RailyardException(ErrorClass.ARG, "checkpoint of rank " + rank
                            + " refused: it must be taken where nothing is pending, and " + pending);
                }
                if (channels.allSent()) {
                    img = capture(state, log);
                }
            } finally {
                lock.unlock();
            }
            if (img == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new RailyardException(ErrorClass.TIMEOUT, "checkpoint of rank " + rank
                            + ": frames stayed queued for " + bound.toSeconds() + " s (" + Config.RELAY_ABSENCE_PROP + ")");
                }
                // write what is queued, driving progress as a waiter does; the relays' STOREDs come meanwhile
                progress.driveUntil(channels::allSent, left);
            }
        }
        try {
            img.write(Path.of(dir));
        } catch (IOException e) {
            throw new RailyardException(ErrorClass.IO, "checkpoint of rank " + rank + " could not be written to " + dir
                    + ": " + e.getMessage());
        }
        log.release(img.consumed); // stored: the relay may now free what came before it
    }

    private String pending() {
        String p = p2p.pendingForCheckpoint();
        if (p == null) {
            p = communicators.pendingForCheckpoint();
        }
        if (p == null && !collectives.idle()) {
            p = "a non-blocking collective is under way";
        }
        return p;
    }

    private CheckpointImage capture(byte[] state, Replay log) {
        CheckpointImage img = new CheckpointImage(rank, size);
        img.app = state.clone();
        long[] consumed = log.consumed();
        long[] sent = log.sent();
        System.arraycopy(consumed, 0, img.consumed, 0, size);
        System.arraycopy(sent, 0, img.sent, 0, size);
        for (int p = 0; p < size; p++) {
            long[] s = channels.sequenceState(p);
            if (s != null) {
                img.nextPsn[p] = s[0];
                img.expectedPsn[p] = s[1];
                img.ackedPsn[p] = s[2];
            }
        }
        p2p.checkpoint(img);
        communicators.checkpoint(img);
        return img;
    }
}
