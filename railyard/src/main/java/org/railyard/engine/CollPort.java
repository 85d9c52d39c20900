package org.railyard.engine;

import org.railyard.channel.VirtualChannel;
import org.railyard.engine.coll.CollServices;
import org.railyard.engine.comm.CommState;
import org.railyard.engine.request.Transfer;
import org.railyard.types.Kind;

/** The engine as the collectives see it: {@link CollServices}, each call passed to the engine or its progress and channels. */
final class CollPort extends EnginePort implements CollServices {
    CollPort(Engine engine) {
        super(engine);
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
    public void cancel(Transfer t) {
        engine.cancel(t);
    }

    @Override
    public String siteOf(int worldRank) {
        return engine.siteOf(worldRank);
    }

    @Override
    public int tryDuty() {
        return engine.progress().tryDuty();
    }

    @Override
    public void waitingOutside(boolean begins) {
        if (begins) {
            engine.progress().enterOutside();
        } else {
            engine.progress().leaveOutside();
        }
    }

    @Override
    public String channelFailure(int worldRank) {
        VirtualChannel ch = engine.channels().existing(worldRank);
        if (ch == null || !ch.gone()) {
            return null;
        }
        return ch.failure() != null ? ch.failure() : "its channel is " + ch.state();
    }

    @Override
    public boolean crossMemoryReads() {
        return engine.crossMemoryReads();
    }
}
