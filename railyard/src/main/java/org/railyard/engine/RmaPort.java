package org.railyard.engine;

import org.railyard.engine.request.Transfer;
import java.util.concurrent.locks.ReentrantLock;
import org.railyard.channel.LocalMemory;
import java.util.function.BooleanSupplier;
import org.railyard.types.Kind;
import org.railyard.engine.comm.CommState;
import org.railyard.engine.rma.RmaServices;

/** The engine as one-sided communication sees it: {@link RmaServices}, each call passed to the engine. */
final class RmaPort implements RmaServices {
    private final Engine engine;

    RmaPort(Engine engine) {
        this.engine = engine;
    }

    @Override
    public int rank() {
        return engine.rank();
    }

    @Override
    public void checkComm(CommState c) {
        engine.checkComm(c);
    }

    @Override
    public ReentrantLock progressLock() {
        return engine.progressLock();
    }

    @Override
    public boolean driveUntil(BooleanSupplier done, long timeoutNanos) {
        return engine.driveUntil(done, timeoutNanos);
    }

    @Override
    public Transfer isend(CommState c, Object buf, Kind k, int off, int count, int dest, int tag) {
        return engine.isendScheduled(c, c.context(), buf, k, off, count, dest, tag, true);
    }

    @Override
    public Transfer irecv(CommState c, Object buf, Kind k, int off, int count, int source, int tag) {
        return engine.irecvScheduled(c, c.context(), buf, k, off, count, source, tag);
    }

    @Override
    public void recycle(Transfer t) {
        engine.recycle(t);
    }

    @Override
    public boolean cancel(Transfer t) {
        return engine.cancel(t);
    }

    @Override
    public CommState dup(CommState c) {
        return engine.communicators().dup(c);
    }

    @Override
    public void free(CommState c) {
        engine.communicators().free(c);
    }

    @Override
    public void barrier(CommState c) {
        engine.collectives().barrier(c);
    }

    @Override
    public void allgather(CommState c, long[] mine, long[] all) {
        engine.collectives().allgather(c, mine, 0, mine.length, Kind.LONG, all, 0, mine.length, Kind.LONG);
    }

    @Override
    public void bcast(CommState c, byte[] buf, int root) {
        engine.collectives().bcast(c, buf, Kind.BYTE, 0, buf.length, root);
    }

    @Override
    public String nodeOf(int worldRank) {
        return engine.nodeOf(worldRank);
    }

    @Override
    public LocalMemory localMemory() {
        return engine.localMemory();
    }

    @Override
    public void choice(String line) {
        engine.choice(line);
    }
}
