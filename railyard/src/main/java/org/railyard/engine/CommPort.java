package org.railyard.engine;

import org.railyard.engine.request.Transfer;
import org.railyard.types.Kind;

import org.railyard.engine.coll.Collectives;
import org.railyard.types.Reduction;
import org.railyard.engine.comm.CommServices;
import org.railyard.engine.comm.CommState;

/** The engine and its collectives as communicator creation sees them: {@link CommServices}. */
final class CommPort implements CommServices {
    private final Engine engine;
    private final Collectives coll;

    CommPort(Engine engine, Collectives coll) {
        this.engine = engine;
        this.coll = coll;
    }

    @Override
    public void checkComm(CommState c) {
        engine.checkComm(c);
    }

    @Override
    public void choice(String line) {
        engine.choice(line);
    }

    @Override
    public void allreduce(CommState c, long[] in, long[] out, int n, Fold op) {
        Reduction r = switch (op) {
            case MAX -> Reduction.MAX;
            case MIN -> Reduction.MIN;
            case SUM -> Reduction.SUM;
        };
        coll.allreduce(c, in, 0, out, 0, n, Kind.LONG, r);
    }

    @Override
    public void bcast(CommState c, Object buf, Kind k, int count, int root) {
        coll.bcast(c, buf, k, 0, count, root);
    }

    @Override
    public void alltoall(CommState c, int[] out, int[] in) {
        coll.alltoall(c, out, 0, 1, Kind.INT, in, 0, 1, Kind.INT);
    }

    @Override
    public void alltoallv(CommState c, int[] send, int[] scounts, int[] sdispls, int[] recv, int[] rcounts, int[] rdispls) {
        coll.alltoallv(c, send, 0, scounts, sdispls, Kind.INT, recv, 0, rcounts, rdispls, Kind.INT);
    }

    @Override
    public int[] nodeOf(CommState c) {
        return coll.nodeOf(c);
    }

    @Override
    public int nodeCount(CommState c) {
        return coll.nodeCount(c);
    }

    @Override
    public void sendrecv(CommState c, Object out, Object in, Kind k, int outCount, int inCount, int peer, int tag) {
        Transfer r = engine.irecv(c, in, k, 0, inCount, peer, tag);
        Transfer s = engine.isend(c, out, k, 0, outCount, peer, tag, Engine.MODE_STANDARD);
        engine.await(s);
        engine.await(r);
    }

    @Override
    public void sendrecvCollective(CommState c, long[] out, long[] in, int peer, int tag) {
        Transfer r = engine.irecvUnchecked(c, c.context + 1, in, Kind.LONG, 0, in.length, peer, tag);
        Transfer s = engine.isendUnchecked(c, c.context + 1, out, Kind.LONG, 0, out.length, peer, tag, Engine.MODE_STANDARD);
        engine.await(s);
        engine.await(r);
    }

    @Override
    public void freed(CommState c) {
        coll.release(c);
    }
}
