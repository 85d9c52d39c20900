package org.railyard.engine.coll;

import static org.railyard.engine.coll.CollChecks.*;
import static org.railyard.engine.coll.CollChoice.*;

import org.railyard.types.Kind;
import org.railyard.engine.request.Transfer;
import org.railyard.engine.comm.CommState;
import org.railyard.types.Topology;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * The neighbourhood collectives of a communicator with a topology: every block goes to or comes
 * from one neighbour, all posted at once ({@link CollExchange#neighbours}).
 */
final class CollNeighbours {
    private final Collectives coll;

    CollNeighbours(Collectives coll) {
        this.coll = coll;
    }

    Transfer neighbour(int id, CommState c, boolean alltoall, Object sbuf, int soff, int scount, Kind sk,
                       Object rbuf, int roff, int rcount, Kind rk) {
        Topology topo = topology(c, id);
        int nin = topo.sources(c.rank).length;
        int nout = topo.destinations(c.rank).length;
        checkBuffer(NAMES[id], " send buffer", -1, sbuf, sk, soff, alltoall ? nout * scount : scount);
        checkBuffer(NAMES[id], " receive buffer", -1, rbuf, rk, roff, nin * rcount);
        CollSchedule s = coll.schedule(c, id, null, (long) scount * sk.size, LINEAR);
        int[][] sc = CollTree.regular(nout, scount);
        int[][] rc = CollTree.regular(nin, rcount);
        CollExchange.neighbours(s, topo, sbuf, soff, sc[0], alltoall ? sc[1] : new int[nout], same(sk, nout), rbuf, roff,
                rc[0], rc[1], same(rk, nin));
        return coll.start(s);
    }

    Transfer ineighbourAllgatherv(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff,
                                  int[] rcounts, int[] rdispls, Kind rk) {
        int id = NEIGHBOUR_ALLGATHERV;
        Topology topo = topology(c, id);
        int nin = topo.sources(c.rank).length;
        int nout = topo.destinations(c.rank).length;
        checkType(NAMES[id] + " send", sk);
        checkType(NAMES[id] + " receive", rk);
        checkBuffer(NAMES[id], " send buffer", -1, sbuf, sk, soff, scount);
        int[] scounts = new int[nout];
        java.util.Arrays.fill(scounts, scount);
        return neighbourBlocks(id, c, topo, sbuf, soff, scounts, new int[nout], same(sk, nout), rbuf, roff, rcounts,
                rdispls, same(rk, nin));
    }

    Transfer ineighbourAlltoallv(CommState c, Object sbuf, int soff, int[] scounts, int[] sdispls, Kind sk,
                                 Object rbuf, int roff, int[] rcounts, int[] rdispls, Kind rk) {
        int id = NEIGHBOUR_ALLTOALLV;
        Topology topo = topology(c, id);
        checkType(NAMES[id] + " send", sk);
        checkType(NAMES[id] + " receive", rk);
        return neighbourBlocks(id, c, topo, sbuf, soff, scounts, sdispls, same(sk, topo.destinations(c.rank).length),
                rbuf, roff, rcounts, rdispls, same(rk, topo.sources(c.rank).length));
    }

    Transfer ineighbourAlltoallw(CommState c, Object sbuf, int[] scounts, int[] sdispls, Kind[] sks, Object rbuf,
                                 int[] rcounts, int[] rdispls, Kind[] rks) {
        int id = NEIGHBOUR_ALLTOALLW;
        return neighbourBlocks(id, c, topology(c, id), sbuf, 0, scounts, sdispls, sks, rbuf, 0, rcounts, rdispls, rks);
    }

    /**
     * The neighbourhood exchange with a count, displacement and type per block, which the v and w
     * forms share: checks the types and the blocks of both sides, then builds and starts the schedule.
     */
    Transfer neighbourBlocks(int id, CommState c, Topology topo, Object sbuf, int soff, int[] scounts,
                             int[] sdispls, Kind[] sks, Object rbuf, int roff, int[] rcounts, int[] rdispls,
                             Kind[] rks) {
        int nin = topo.sources(c.rank).length;
        int nout = topo.destinations(c.rank).length;
        checkNeighbourTypes(NAMES[id] + " send", c, sks, nout);
        checkNeighbourTypes(NAMES[id] + " receive", c, rks, nin);
        long sbytes = checkNeighbourBlocks(NAMES[id] + " send", c, sbuf, soff, scounts, sdispls, sks, nout);
        long rbytes = checkNeighbourBlocks(NAMES[id] + " receive", c, rbuf, roff, rcounts, rdispls, rks, nin);
        CollSchedule s = coll.schedule(c, id, null, Math.max(sbytes, rbytes) / Math.max(Math.max(nin, nout), 1), LINEAR);
        CollExchange.neighbours(s, topo, sbuf, soff, scounts, sdispls, sks, rbuf, roff, rcounts, rdispls, rks);
        return coll.start(s);
    }

    /** The topology of {@code c}, which collective {@code id} needs; a COMM error if there is none. */
    Topology topology(CommState c, int id) {
        coll.check(c, id);
        Topology topo = c.topology();
        if (topo == null) {
            throw new RailyardException(ErrorClass.COMM, NAMES[id] + " needs a communicator with a topology; "
                    + c.name() + " has none");
        }
        return topo;
    }
}
