package org.railyard.engine.rma;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.railyard.channel.LocalMemory;
import org.railyard.engine.comm.CommState;
import org.railyard.engine.request.Transfer;
import org.railyard.types.Kind;

/**
 * Engine services for tests of an origin's {@link Outbound} alone: rank 0 of 2, every send and
 * receive only recorded, in order, with a transfer that the test completes itself.
 */
final class RecordingServices implements RmaServices {
    /** A message or a receive posted: its buffer (not copied), its longs or values, peer and tag. */
    record Posted(boolean send, Object buf, int count, int peer, int tag, RmaRequest t) {
    }

    final List<Posted> posted = new ArrayList<>();
    private final ReentrantLock lock = new ReentrantLock();

    @Override public int rank() { return 0; }
    @Override public int size() { return 2; }
    @Override public void checkComm(CommState c) { }
    @Override public ReentrantLock progressLock() { return lock; }
    @Override public boolean driveUntil(BooleanSupplier done, long timeoutNanos) { return done.getAsBoolean(); }

    @Override
    public Transfer isend(CommState c, Object buf, Kind k, int off, int count, int dest, int tag) {
        RmaRequest t = new RmaRequest();
        posted.add(new Posted(true, buf, count, dest, tag, t));
        return t;
    }

    @Override
    public Transfer irecv(CommState c, Object buf, Kind k, int off, int count, int source, int tag) {
        RmaRequest t = new RmaRequest();
        posted.add(new Posted(false, buf, count, source, tag, t));
        return t;
    }

    @Override
    public Transfer irecvStanding(CommState c, Object buf, Kind k, int off, int count, int source, int tag) {
        return irecv(c, buf, k, off, count, source, tag);
    }

    /** The calls of {@link #awaitMembers}, in order: true for a wait begun, false for one ended. */
    final List<Boolean> awaits = new ArrayList<>();

    @Override public void awaitMembers(CommState c, boolean on) { awaits.add(on); }

    @Override public void recycle(Transfer t) { }
    @Override public boolean cancel(Transfer t) { return false; }
    @Override public CommState dup(CommState c) { throw new UnsupportedOperationException(); }
    @Override public void free(CommState c) { }
    @Override public void barrier(CommState c) { }
    @Override public void allgather(CommState c, long[] mine, long[] all) { throw new UnsupportedOperationException(); }
    @Override public void bcast(CommState c, byte[] buf, int root) { throw new UnsupportedOperationException(); }
    @Override public String nodeOf(int worldRank) { return "n"; }
    @Override public LocalMemory localMemory() { return null; }
    @Override public void choice(String line) { }
}
