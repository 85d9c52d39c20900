package org.railyard;

import java.time.Duration;
import org.railyard.types.Kind;
import org.railyard.engine.ValueFlows;

/**
 * A communicator view for iterative schemes, with the reduced operations of P2PSAP (seed 000):
 * {@link #send}, {@link #receive} and {@link #await} (P2Psend, P2Preceive, P2Pwait). The program
 * chooses the scheme; the library chooses how to carry it (over udp, the stack floor composes the
 * connection for the scheme, and recomposes it when the scheme changes).
 *
 * <p>A <em>flow</em> is the values one rank sends another under one tag. Each value sent gets the
 * next sequence number of its flow, from 1.
 * <ul>
 *   <li><b>{@link Scheme#ASYNCHRONOUS}</b> (asynchronous iterations): {@link #send} copies the
 *       value and returns; it never waits for the receiver. A value not yet on its way when a newer
 *       one is sent is replaced by it. {@link #receive} gives the most recent value that has
 *       arrived on the flow since the last receive, or {@link #NONE}. Values may be lost (over an
 *       unreliable transport) or superseded, never reordered or duplicated, and each flow holds at
 *       most one value at each end: nothing grows when one side is faster.</li>
 *   <li><b>{@link Scheme#SYNCHRONOUS}</b>: every value sent is delivered, in order; {@link
 *       #receive} gives the oldest one not yet received, or {@link #NONE}; {@link #await} waits for
 *       it. Values wait at the receiver until received (as MPI's eager messages do).</li>
 * </ul>
 *
 * <p>{@link #scheme(Scheme)} changes the scheme of later sends, for example to synchronous for a
 * global step of an otherwise asynchronous computation, and back. Each connection the view uses is
 * reconfigured at that point by both of its ends (quiesce, switch, resume): across the change
 * nothing is reordered or duplicated, and every value the old scheme promised is delivered.
 *
 * <pre>{@code
 * try (IterativeComm it = IterativeComm.create(world, IterativeComm.Scheme.ASYNCHRONOUS)) {
 *     it.send(plane, 0, plane.length, right, 0);              // never waits
 *     if (it.receive(ghost, 0, ghost.length, left, 0) != IterativeComm.NONE) { ... }  // newest value
 * }
 * }</pre>
 *
 * <p>Collective: every rank of the communicator creates the view together (it duplicates the
 * communicator, so its values never meet other messages). Engine messages and collectives on
 * {@link #comm()} remain available (and reliable) in either scheme.
 */
public final class IterativeComm implements AutoCloseable {
    /** The iterative scheme of a view. */
    public enum Scheme { SYNCHRONOUS, ASYNCHRONOUS }

    /** Returned by {@link #receive} when no new value has arrived. */
    public static final long NONE = ValueFlows.NONE;

    private final Comm comm;
    private final ValueFlows flows;
    private volatile Scheme scheme;

    private IterativeComm(Comm comm, Scheme scheme) {
        this.comm = comm;
        this.flows = comm.engine.values();
        this.scheme = scheme;
    }

    /** A view of a duplicate of {@code comm} in {@code scheme} (collective over {@code comm}). */
    public static IterativeComm create(Comm comm, Scheme scheme) {
        return new IterativeComm(comm.dup(), scheme);
    }

    /** The private communicator of this view: for collectives and ordinary messages beside the values. */
    public Comm comm() {
        return comm;
    }

    public int rank() {
        return comm.rank();
    }

    public int size() {
        return comm.size();
    }

    /** The largest value {@link #send} takes, bytes: one frame on every transport the job may use. */
    public long maxValueBytes() {
        return comm.engine.eagerLimit();
    }

    /** The scheme later sends use. */
    public Scheme scheme() {
        return scheme;
    }

    /**
     * Changes the scheme of later sends (this rank's flows). The connections they use are
     * reconfigured by their two ends as the first value of the new scheme reaches each; this call
     * does not wait.
     */
    public void scheme(Scheme s) {
        if (s == null) {
            throw new IllegalArgumentException("scheme is null");
        }
        this.scheme = s;
    }

    /**
     * Sends {@code count} elements of {@code buf} from {@code offset} to {@code dest} on flow
     * {@code tag}; returns the value's sequence number. Never waits for the receiver. A value is at
     * most the engine's eager limit (one frame on every transport); split larger ones over tags.
     */
    public long send(Object buf, int offset, int count, int dest, int tag) {
        return flows.send(comm.state, buf, Kind.ofBuffer(buf), offset, count, dest, tag, scheme == Scheme.ASYNCHRONOUS);
    }

    /**
     * Takes the next value of flow {@code tag} from {@code source} into {@code buf} (the newest
     * under the asynchronous scheme, the oldest not yet received under the synchronous one);
     * returns its sequence number, or {@link #NONE} if no new value has arrived.
     */
    public long receive(Object buf, int offset, int count, int source, int tag) {
        return flows.receive(comm.state, buf, Kind.ofBuffer(buf), offset, count, source, tag);
    }

    /** Waits until {@link #receive} of flow {@code tag} from {@code source} will return a value; false after {@code timeout}. */
    public boolean await(int source, int tag, Duration timeout) {
        return flows.await(comm.state, source, tag, timeout.toNanos());
    }

    /** Waits until every value sent from this process is on its way (handed to a link); false after {@code timeout}. */
    public boolean flush(Duration timeout) {
        return flows.flush(timeout.toNanos());
    }

    /** Counters of this process's value flows (all views), for reports. */
    public String stats() {
        return flows.stats();
    }

    /** Sends what is queued (bounded wait) and frees the view's communicator (collective). */
    @Override
    public void close() {
        flush(Duration.ofSeconds(10));
        comm.free();
    }
}
