package org.railyard.engine.comm;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.util.Config;
import org.railyard.wire.CheckpointImage;

/**
 * The communicators' part of an application checkpoint (issue 22): which communicators this
 * process made since it started, whether a restarted rank could make them again (only an
 * intracommunicator {@code dup} can be answered from the record without the peers), their
 * counters for the checkpoint, and, in a rank started from one, the recorded dups handed out
 * again in order. {@link Communicators} tells it of every creation; it never communicates.
 */
final class CommRecord {
    /**
     * Every communicator made by dup, in order, freed ones too, kept only where checkpoints may be
     * taken ({@code railyard.checkpoint.dir} set): a checkpoint records their counters.
     */
    private final List<CommState> made = new ArrayList<>();
    private final boolean recording = !Config.string(Config.CHECKPOINT_DIR_PROP, Config.CHECKPOINT_DIR_DEFAULT).isEmpty();
    /** Communicators whose contexts were agreed with the peers, and how many of them by an intracommunicator dup. */
    private int creations;
    private int dupCreations;
    private int replayed;
    /** A rank started from a checkpoint: the dups made before it, handed out again in order without communicating. */
    private final ArrayDeque<Integer> replayContexts = new ArrayDeque<>();
    private final Map<Integer, CheckpointImage.CommCounters> replayCounters = new HashMap<>();

    /** See {@link Communicators#pendingForCheckpoint}. */
    String pending() {
        if (!replayContexts.isEmpty()) {
            return replayContexts.size() + " communicator(s) of the checkpoint restored from are not made again yet (dup them first)";
        }
        if (creations != dupCreations) {
            return (creations - dupCreations) + " communicator(s) were made by a call other than dup of an intracommunicator"
                    + " (split, create, a topology, an intercommunicator); a restarted rank could not make them again";
        }
        return null;
    }

    /** Records WORLD's, SELF's and every dup's counters, and the dups' contexts in order. */
    void checkpoint(CheckpointImage img, CommState world, CommState self) {
        img.comms.add(counters(world));
        img.comms.add(counters(self));
        for (CommState c : made) {
            img.agreed.add(c.context);
            img.comms.add(counters(c));
        }
    }

    private static CheckpointImage.CommCounters counters(CommState c) {
        return new CheckpointImage.CommCounters(c.context, c.collectiveCount(), c.childCount());
    }

    /** A rank started from a checkpoint: WORLD and SELF take their counters back; the recorded dups wait for their calls. */
    void resume(CheckpointImage img, CommState world, CommState self) {
        for (CheckpointImage.CommCounters c : img.comms) {
            replayCounters.put(c.context(), c);
        }
        resumeCounters(world);
        resumeCounters(self);
        replayContexts.addAll(img.agreed);
    }

    private void resumeCounters(CommState c) {
        CheckpointImage.CommCounters k = replayCounters.get(c.context);
        if (k != null) {
            c.resumeCounters(k.collSeq(), k.children());
        }
    }

    /** Before agreeing on contexts with the peers: refused while recorded dups are still to be made again. */
    void requireNothingToReplay() {
        if (!replayContexts.isEmpty()) {
            throw new RailyardException(ErrorClass.COMM, "this rank restarted from a checkpoint made after "
                    + replayContexts.size() + " more dup(s): a call other than dup cannot be replayed (only dup of an"
                    + " intracommunicator is)");
        }
    }

    /** Contexts were agreed with the peers for a new communicator. */
    void created() {
        creations++;
    }

    /**
     * In a rank started from a checkpoint, the dup of {@code c} the record holds next (its context
     * and counters, no collective); null when there is none to replay.
     */
    CommState replayDup(CommState c, int worldSize, int worldRank) {
        Integer ctx = replayContexts.poll();
        if (ctx == null) {
            return null;
        }
        CommState s = new CommState(ctx, c.worldRanks.clone(), worldSize, worldRank, c.name() + ".dup" + ++replayed);
        resumeCounters(s);
        made.add(s);
        return s;
    }

    /** A dup of an intracommunicator was made with the peers. */
    void dupMade(CommState s) {
        if (recording) {
            made.add(s);
        }
        dupCreations++;
    }
}
