package org.railyard.engine.rma;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.railyard.channel.LocalMemory;
import org.railyard.types.Kind;
import org.railyard.engine.request.Transfer;
import org.railyard.engine.comm.CommState;

/**
 * The engine as one-sided communication sees it (implemented by the engine's {@code RmaPort}):
 * pooled point-to-point messages on a window's private communicator, the collectives that create
 * and free windows, waiting, and where processes run.
 */
public interface RmaServices {
    /** World rank of this process. */
    int rank();

    /** Ranks of the job (the world's size). */
    int size();

    /** Fails if the engine was closed or {@code c} freed. */
    void checkComm(CommState c);

    ReentrantLock progressLock();

    /** Drives progress until {@code done} holds (evaluated under the progress lock); false after {@code timeoutNanos}. */
    boolean driveUntil(BooleanSupplier done, long timeoutNanos);

    /** A pooled send on {@code c}'s context to member {@code dest}; lock held. Give it back with {@link #recycle}. */
    Transfer isend(CommState c, Object buf, Kind k, int off, int count, int dest, int tag);

    /** A pooled receive on {@code c}'s context from member {@code source}; lock held. */
    Transfer irecv(CommState c, Object buf, Kind k, int off, int count, int source, int tag);

    /**
     * A receive posted ahead of any need (the target's standing receive of a member's headers):
     * as {@link #irecv}, but it does not by itself make this rank link to {@code source} (see
     * {@link #awaitMembers}). Lock held.
     */
    Transfer irecvStanding(CommState c, Object buf, Kind k, int off, int count, int source, int tag);

    /**
     * A wait of the window's synchronisation that depends on the members of {@code c} began
     * ({@code on}) or ended: while it lasts, a member this rank has no link to is linked to after
     * the channel floor's delay, so that one that died before it ever linked is found (and fails
     * the wait with PEER_FAILED) instead of leaving the wait to its timeout. Lock held.
     */
    void awaitMembers(CommState c, boolean on);

    /** Gives back a completed request of {@link #isend} or {@link #irecv}; lock held. */
    void recycle(Transfer t);

    /** Cancels a receive that has not matched yet. */
    boolean cancel(Transfer t);

    /** Collective: a communicator over {@code c}'s group with fresh contexts. */
    CommState dup(CommState c);

    /** Frees a communicator of {@link #dup}. */
    void free(CommState c);

    /** Collective barrier. */
    void barrier(CommState c);

    /** Collective: every member's {@code mine} (same length everywhere) into {@code all}, in rank order. */
    void allgather(CommState c, long[] mine, long[] all);

    /** Collective: {@code buf} of {@code root} everywhere. */
    void bcast(CommState c, byte[] buf, int root);

    String nodeOf(int worldRank);

    /**
     * The memory of this node's processes that a transport of this process shares (the mapped
     * windows' segments), or null: windows then work by messages.
     */
    LocalMemory localMemory();

    /** A line of the choice log. */
    void choice(String line);
}
