package org.railyard.engine.coll;

import java.util.concurrent.locks.ReentrantLock;
import org.railyard.channel.LocalMemory;
import org.railyard.engine.comm.CommState;
import org.railyard.engine.request.Transfer;
import org.railyard.types.Kind;

/**
 * What the collectives need from the layers below them: the point-to-point requests their
 * schedules post, the progress lock under which schedules advance, waits, and the facts about
 * this process that decide an algorithm (its node and transports). The engine provides it;
 * nothing here calls back into the engine otherwise.
 *
 * <p>Threads: methods marked "lock held" are called only by the thread holding
 * {@link #progressLock()}; the rest by the thread that calls a collective.
 */
public interface CollServices {
    /** This process's rank in the world. */
    int rank();

    /** Fails with a clear error if {@code c} was freed or the library was closed. */
    void checkComm(CommState c);

    /** The lock held by whoever advances transfers and collective schedules. */
    ReentrantLock progressLock();

    /** Waits for {@code t}, driving progress; throws its error if it failed. */
    void await(Transfer t);

    /**
     * Sends a small message straight into the rail's memory if nothing is queued ahead of it;
     * false if it must go as a request ({@link #isendScheduled}). Lock held.
     */
    boolean sendEagerDirect(CommState c, int ctx, Object buf, Kind k, int off, int count, int destWorld, int tag);

    /**
     * A pooled send request on context {@code ctx} to rank {@code dest} of {@code c}; with
     * {@code mayBeRead} false a receiver on this node is not offered a read of the buffer. Lock held.
     */
    Transfer isendScheduled(CommState c, int ctx, Object buf, Kind k, int off, int count, int dest, int tag,
                            boolean mayBeRead);

    /** A pooled receive request; as {@link #isendScheduled}. Lock held. */
    Transfer irecvScheduled(CommState c, int ctx, Object buf, Kind k, int off, int count, int source, int tag);

    /** Gives back a completed request of {@link #isendScheduled} or {@link #irecvScheduled}. Lock held. */
    void recycle(Transfer t);

    /** Takes back a posted receive (after a failure); a request already matched is left alone. */
    void cancel(Transfer t);

    /** The node (host) of a world rank, from its address card; equal strings share memory. */
    String nodeOf(int worldRank);

    /** The site (cluster of a grid) of a world rank, from its address card; empty when unset. */
    String siteOf(int worldRank);

    /**
     * The memory of this node's processes that a transport of this process shares (the
     * communicators' shared segments, cross-memory reads), or null: collectives then use messages alone.
     */
    LocalMemory localMemory();

    /** True if this process may read native buffers of its node's peers (cross-memory reads). */
    boolean crossMemoryReads();

    /**
     * One duty cycle if no other thread holds the progress lock, for a thread that waits outside
     * the engine's waits and looks at its channels now and then; the work it did.
     */
    int tryDuty();

    /**
     * A wait outside the engine's waits that drives a duty cycle now and then itself begins
     * ({@code true}) or ends: the thread counts as a waiter meanwhile (the agent rests, the stall
     * report sees it).
     */
    void waitingOutside(boolean begins);

    /** Why the channel to {@code worldRank} is down, or null while it is up or not opened yet. Lock held. */
    String channelFailure(int worldRank);

    /** One line for the choice log (printed with {@code --print-choices}). */
    void choice(String line);
}
