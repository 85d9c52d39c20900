package org.railyard.engine;

import org.railyard.engine.request.Transfer;
import java.util.function.BooleanSupplier;
import org.railyard.types.Kind;
import org.railyard.channel.ChannelTable;
import org.railyard.engine.comm.CommState;
import org.railyard.engine.rma.RmaServices;

/** The engine as one-sided communication sees it: {@link RmaServices}, each call passed to the engine. */
final class RmaPort extends EnginePort implements RmaServices {
    RmaPort(Engine engine) {
        super(engine);
    }

    @Override
    public int size() {
        return engine.size();
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
    public Transfer irecvStanding(CommState c, Object buf, Kind k, int off, int count, int source, int tag) {
        return engine.pointToPoint().irecvStanding(c, c.context(), buf, k, off, count, source, tag);
    }

    @Override
    public void awaitMembers(CommState c, boolean on) {
        ChannelTable channels = engine.channels();
        for (int q = 0; q < c.size(); q++) {
            int world = c.worldRank(q);
            if (world != engine.rank()) {
                channels.channel(world).awaited(on);
            }
        }
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
}
