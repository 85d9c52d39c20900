package org.railyard.engine;

import org.railyard.engine.request.Transfer;
import org.railyard.types.Kind;

import java.util.concurrent.locks.ReentrantLock;
import org.railyard.channel.LocalMemory;
import org.railyard.engine.coll.CollServices;
import org.railyard.engine.comm.CommState;

/** The engine as the collectives see it: {@link CollServices}, each call passed to the engine as it is. */
final class CollPort implements CollServices {
    private final Engine engine;

    CollPort(Engine engine) {
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
    public void await(Transfer t) {
        engine.await(t);
    }

    @Override
    public boolean sendEagerDirect(CommState c, int ctx, Object buf, Kind k, int off, int count, int destWorld, int tag) {
        return engine.sendEagerDirect(c, ctx, buf, k, off, count, destWorld, tag);
    }

    @Override
    public Transfer isendScheduled(CommState c, int ctx, Object buf, Kind k, int off, int count, int dest, int tag,
                                   boolean mayBeRead) {
        return engine.isendScheduled(c, ctx, buf, k, off, count, dest, tag, mayBeRead);
    }

    @Override
    public Transfer irecvScheduled(CommState c, int ctx, Object buf, Kind k, int off, int count, int source, int tag) {
        return engine.irecvScheduled(c, ctx, buf, k, off, count, source, tag);
    }

    @Override
    public void recycle(Transfer t) {
        engine.recycle(t);
    }

    @Override
    public void cancel(Transfer t) {
        engine.cancel(t);
    }

    @Override
    public String nodeOf(int worldRank) {
        return engine.nodeOf(worldRank);
    }

    @Override
    public String siteOf(int worldRank) {
        return engine.siteOf(worldRank);
    }

    @Override
    public LocalMemory localMemory() {
        return engine.localMemory();
    }

    @Override
    public boolean crossMemoryReads() {
        return engine.crossMemoryReads();
    }

    @Override
    public void choice(String line) {
        engine.choice(line);
    }
}
