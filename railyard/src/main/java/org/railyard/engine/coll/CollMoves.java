package org.railyard.engine.coll;

import static org.railyard.engine.coll.CollChecks.*;
import static org.railyard.engine.coll.CollChoice.*;

import java.util.function.BiConsumer;
import org.railyard.types.Kind;
import org.railyard.engine.request.Transfer;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * Selection and building of the collectives that move data without reducing it: gather(v),
 * scatter(v), allgather(v), alltoall(v, w); checks, algorithm choice from {@link CollTuning},
 * schedule built with {@link CollTree}, {@link CollGather}, {@link CollExchange},
 * {@link CollInter} or the shared segment ({@link CollShm}), then started.
 */
final class CollMoves {
    private final Collectives coll;

    CollMoves(Collectives coll) {
        this.coll = coll;
    }

    /**
     * Gather or scatter on an intercommunicator: the root's buffer holds a block per process of
     * the other group ({@code rootBuf}, checked at the root), each of those processes one block
     * ({@code buf}, checked there); see {@link CollInter#blocks}.
     */
    Transfer interBlocks(int id, CommState c, int root, Object rootBuf, int rootOff, int[] rootCounts,
                         int[] rootDispls, Kind rootKind, Object buf, int off, int count, Kind kind) {
        boolean gather = id == GATHER || id == GATHERV;
        if (interSender(c, root)) {
            checkBuffer(NAMES[id], gather ? " send buffer" : " receive buffer", -1, buf, kind, off, count);
        } else if (root == Collectives.ROOT) {
            checkBlocks(NAMES[id], gather, rootBuf, rootKind, rootOff, rootCounts, rootDispls,
                    c.size());
        }
        CollSchedule s = coll.schedule(c, id, null, (long) count * kind.size, INTER);
        CollInter.blocks(s, c, root, gather, rootBuf, rootOff, rootCounts, rootDispls, rootKind, buf, off, count, kind);
        return coll.start(s);
    }

    /**
     * Starts a site-aware collective whose site leaders first learn their members' sizes
     * ({@code mine}, the same length at every rank): a blocking call collects them before it
     * builds the schedule, a non-blocking one makes the collection the schedule's first round.
     * {@code build} adds the moves, given what {@link CollSitesMoves#collectAtLeaders} returns.
     */
    private Transfer startWithSizes(CommState c, int id, long bytes, CollSites sites, int[] mine, boolean blocking,
                                    BiConsumer<CollSchedule, int[]> build) {
        if (!blocking) {
            CollSchedule s = coll.schedule(c, id, null, bytes, SITE_AWARE);
            CollSitesMoves.collectThen(s, sites, c.rank, mine, all -> build.accept(s, all));
            return coll.start(s);
        }
        int[] all = CollSitesMoves.collectAtLeaders(coll, sites, c, id, mine);
        CollSchedule s = coll.schedule(c, id, null, bytes, SITE_AWARE);
        build.accept(s, all);
        return coll.start(s);
    }

    Transfer igather(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount,
                     Kind rk, int root) {
        coll.check(c, GATHER);
        int p = c.size();
        if (c.isInter()) {
            int[][] cd = CollTree.regular(p, rcount);
            return interBlocks(GATHER, c, root, rbuf, roff, cd[0], cd[1], rk, sbuf, soff, scount, sk);
        }
        checkRoot(c, root);
        checkBuffer("gather send buffer", sbuf, sk, soff, scount);
        if (c.rank == root) {
            checkBuffer("gather receive buffer", rbuf, rk, roff, (int) Math.min(Integer.MAX_VALUE, (long) p * rcount));
            checkSame("gather", scount, sk, rcount, rk);
        }
        long total = (long) scount * sk.size * p;
        CollSites sites = coll.sitesFor(c, GATHER);
        if (sites != null) {
            CollSchedule s = coll.schedule(c, GATHER, null, total, SITE_AWARE);
            int[][] cd = CollTree.regular(p, rcount);
            CollSitesMoves.gatherv(s, sites, c.rank, root, sbuf, soff, scount, sk, rbuf, roff, cd[0], cd[1], rk,
                    sameBytes(sites, c.rank, scount * sk.size));
            return coll.start(s);
        }
        String algo = p == 1 ? LOCAL : coll.pick(GATHER, total < coll.tuning.gatherLong ? BINOMIAL : LINEAR, GATHER_ALGOS);
        CollSchedule s = coll.schedule(c, GATHER, null, total, algo);
        CollTeam t = CollTeam.of(c);
        switch (algo) {
            case LOCAL -> s.copy(sk, sbuf, soff, scount, rk, rbuf, roff);
            case BINOMIAL -> CollTree.binomialGather(s, t, root, sbuf, soff, scount, sk, rbuf, roff, rcount, rk);
            default -> {
                int[][] cd = c.rank == root ? CollTree.regular(p, rcount) : new int[2][];
                CollTree.linearGatherv(s, t, root, sbuf, soff, scount, sk, rbuf, roff, cd[0], cd[1], rk);
            }
        }
        return coll.start(s);
    }

    Transfer igatherv(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int[] counts,
                      int[] displs, Kind rk, int root, boolean blocking) {
        coll.check(c, GATHERV);
        if (c.isInter()) {
            return interBlocks(GATHERV, c, root, rbuf, roff, counts, displs, rk, sbuf, soff, scount, sk);
        }
        checkRoot(c, root);
        checkBuffer("gatherv send buffer", sbuf, sk, soff, scount);
        int p = c.size();
        if (c.rank == root) {
            checkBlocks("gatherv", true, rbuf, rk, roff, counts, displs, p);
        }
        CollSites sites = coll.sitesFor(c, GATHERV);
        if (sites != null) {
            // only the root knows every count: each site's leader learns its members' first
            return startWithSizes(c, GATHERV, (long) scount * sk.size, sites, new int[] {scount * sk.size}, blocking,
                    (s, bytes) -> CollSitesMoves.gatherv(s, sites, c.rank, root, sbuf, soff, scount, sk, rbuf, roff,
                            counts, displs, rk, bytes));
        }
        CollSchedule s = coll.schedule(c, GATHERV, null, (long) scount * sk.size, LINEAR);
        CollTree.linearGatherv(s, CollTeam.of(c), root, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk);
        return coll.start(s);
    }

    Transfer iscatter(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount,
                      Kind rk, int root) {
        coll.check(c, SCATTER);
        int p = c.size();
        if (c.isInter()) {
            int[][] cd = CollTree.regular(p, scount);
            return interBlocks(SCATTER, c, root, sbuf, soff, cd[0], cd[1], sk, rbuf, roff, rcount, rk);
        }
        checkRoot(c, root);
        checkBuffer("scatter receive buffer", rbuf, rk, roff, rcount);
        if (c.rank == root) {
            checkBuffer("scatter send buffer", sbuf, sk, soff, (int) Math.min(Integer.MAX_VALUE, (long) p * scount));
            checkSame("scatter", scount, sk, rcount, rk);
        }
        long total = (long) rcount * rk.size * p;
        CollSites sites = coll.sitesFor(c, SCATTER);
        if (sites != null) {
            CollSchedule s = coll.schedule(c, SCATTER, null, total, SITE_AWARE);
            int[][] cd = CollTree.regular(p, scount);
            CollSitesMoves.scatterv(s, sites, c.rank, root, sbuf, soff, cd[0], cd[1], sk, rbuf, roff, rcount, rk,
                    sameBytes(sites, c.rank, rcount * rk.size));
            return coll.start(s);
        }
        String algo = p == 1 ? LOCAL : coll.pick(SCATTER, total < coll.tuning.gatherLong ? BINOMIAL : LINEAR, GATHER_ALGOS);
        CollSchedule s = coll.schedule(c, SCATTER, null, total, algo);
        CollTeam t = CollTeam.of(c);
        switch (algo) {
            case LOCAL -> s.copy(sk, sbuf, soff, scount, rk, rbuf, roff);
            case BINOMIAL -> CollTree.binomialScatter(s, t, root, sbuf, soff, scount, sk, rbuf, roff, rcount, rk);
            default -> {
                int[][] cd = c.rank == root ? CollTree.regular(p, scount) : new int[2][];
                CollTree.linearScatterv(s, t, root, sbuf, soff, cd[0], cd[1], sk, rbuf, roff, rcount, rk);
            }
        }
        return coll.start(s);
    }

    Transfer iscatterv(CommState c, Object sbuf, int soff, int[] counts, int[] displs, Kind sk, Object rbuf, int roff,
                       int rcount, Kind rk, int root, boolean blocking) {
        coll.check(c, SCATTERV);
        if (c.isInter()) {
            return interBlocks(SCATTERV, c, root, sbuf, soff, counts, displs, sk, rbuf, roff, rcount, rk);
        }
        checkRoot(c, root);
        checkBuffer("scatterv receive buffer", rbuf, rk, roff, rcount);
        int p = c.size();
        if (c.rank == root) {
            checkBlocks("scatterv", false, sbuf, sk, soff, counts, displs, p);
        }
        CollSites sites = coll.sitesFor(c, SCATTERV);
        if (sites != null) {
            return startWithSizes(c, SCATTERV, (long) rcount * rk.size, sites, new int[] {rcount * rk.size}, blocking,
                    (s, bytes) -> CollSitesMoves.scatterv(s, sites, c.rank, root, sbuf, soff, counts, displs, sk, rbuf,
                            roff, rcount, rk, bytes));
        }
        CollSchedule s = coll.schedule(c, SCATTERV, null, (long) rcount * rk.size, LINEAR);
        CollTree.linearScatterv(s, CollTeam.of(c), root, sbuf, soff, counts, displs, sk, rbuf, roff, rcount, rk);
        return coll.start(s);
    }

    Transfer allgatherv(int id, CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff,
                        int[] counts, int[] displs, Kind rk, boolean blocking) {
        coll.check(c, id);
        int p = c.size();
        checkBuffer(NAMES[id], " send buffer", -1, sbuf, sk, soff, scount);
        checkBlocks(NAMES[id], true, rbuf, rk, roff, counts, displs, p);
        if (c.isInter()) {
            CollSchedule s = coll.schedule(c, id, null, sum(counts, p) * rk.size, INTER);
            if (id == ALLGATHER) {
                // regular blocks, one per process of the other group: through the leaders
                CollInter.allgather(s, c, sbuf, soff, scount, sk, rbuf, roff, p == 0 ? 0 : counts[0], rk);
            } else {
                CollInter.allgatherv(s, c, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk);
            }
            return coll.start(s);
        }
        if ((long) scount * sk.size != (long) counts[c.rank] * rk.size) {
            throw new RailyardException(ErrorClass.COUNT, NAMES[id] + ": send block of " + scount + " " + sk
                    + " differs in size from this rank's receive block of " + counts[c.rank] + " " + rk);
        }
        long total = sum(counts, p) * rk.size;
        CollSites sites = coll.sitesFor(c, id);
        if (sites != null) {
            CollSchedule s = coll.schedule(c, id, null, total, SITE_AWARE);
            CollSitesMoves.allgatherv(s, sites, c.rank, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk,
                    coll.tuning.bcastLong);
            return coll.start(s);
        }
        CollShm shm = blocking ? coll.shared(c, id, total, coll.tuning.allgatherShared) : null;
        if (shm != null) {
            CollTeam t = CollTeam.of(c);
            if (total >= coll.tuning.allgatherReads && shm.tryReads(CollShm.ALLGATHER)) {
                Transfer read = coll.viaReads(c, id, shm, t, CollShm.ALLGATHER, sbuf, soff, sk, rbuf, (long) scount * sk.size,
                        total, at -> shm.readBlocks(t, at, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk, 0, NAMES[id]));
                if (read != null) {
                    return read;
                }
            }
            CollSchedule s = coll.schedule(c, id, null, total, CollShm.NAME);
            shm.allgatherv(s, t, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk);
            return coll.start(s);
        }
        boolean pof2 = Integer.bitCount(p) == 1;
        String dflt = p == 1 ? LOCAL
                : pof2 && total < coll.tuning.allgatherLong ? RECURSIVE_DOUBLING
                : !pof2 && total < coll.tuning.allgatherShort ? BRUCK : RING;
        String algo = dflt == LOCAL ? LOCAL : coll.pick(id, dflt, ALLGATHER_ALGOS);
        if (algo == RECURSIVE_DOUBLING && Integer.bitCount(p) != 1) {
            algo = BRUCK;
        }
        CollSchedule s = coll.schedule(c, id, null, total, algo);
        s.copiedBelow = coll.tuning.exchangeReads;
        CollTeam t = CollTeam.of(c);
        switch (algo) {
            case LOCAL -> s.copy(sk, sbuf, soff, scount, rk, rbuf, roff + displs[0]);
            case RING -> CollGather.ring(s, t, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk);
            case BRUCK -> CollGather.bruck(s, t, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk);
            default -> CollGather.recursiveDoubling(s, t, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk);
        }
        return coll.start(s);
    }

    Transfer alltoall(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount,
                      Kind rk, boolean blocking) {
        coll.check(c, ALLTOALL);
        int p = c.size();
        checkBuffer("alltoall send buffer", sbuf, sk, soff, (int) Math.min(Integer.MAX_VALUE, (long) p * scount));
        checkBuffer("alltoall receive buffer", rbuf, rk, roff, (int) Math.min(Integer.MAX_VALUE, (long) p * rcount));
        checkSame("alltoall", scount, sk, rcount, rk);
        long block = (long) scount * sk.size;
        if (c.isInter()) {
            CollSchedule s = coll.schedule(c, ALLTOALL, null, block, INTER);
            int[][] sc = CollTree.regular(p, scount);
            int[][] rc = CollTree.regular(p, rcount);
            CollInter.alltoall(s, c, sbuf, soff, sc[0], sc[1], sk, rbuf, roff, rc[0], rc[1], rk);
            return coll.start(s);
        }
        CollSites sites = coll.sitesFor(c, ALLTOALL);
        if (sites != null) {
            CollSchedule s = coll.schedule(c, ALLTOALL, null, block, SITE_AWARE);
            int[][] sc = CollTree.regular(p, scount);
            int[][] rc = CollTree.regular(p, rcount);
            int[] bytes = sites.members[sites.siteOf[c.rank]][0] == c.rank
                    ? filled(sites.members[sites.siteOf[c.rank]].length * p, (int) block) : null;
            CollSitesMoves.alltoallv(s, sites, c.rank, sbuf, soff, sc[0], sc[1], sk, rbuf, roff, rc[0], rc[1], rk, bytes,
                    bytes);
            return coll.start(s);
        }
        CollShm shm = blocking ? coll.shared(c, ALLTOALL, block, coll.tuning.alltoallShared) : null;
        if (shm != null) {
            CollTeam t = CollTeam.of(c);
            if (block >= coll.tuning.alltoallReads && shm.tryReads(CollShm.ALLTOALL)) {
                int[][] rc = CollTree.regular(p, rcount);
                Transfer read = coll.viaReads(c, ALLTOALL, shm, t, CollShm.ALLTOALL, sbuf, soff, sk, rbuf, block, block,
                        at -> shm.readBlocks(t, at, sbuf, soff + t.me * scount, scount, sk, rbuf, roff, rc[0], rc[1], rk,
                                block, NAMES[ALLTOALL]));
                if (read != null) {
                    return read;
                }
            }
            CollSchedule s = coll.schedule(c, ALLTOALL, null, block, CollShm.NAME);
            shm.alltoall(s, t, sbuf, soff, scount, sk, rbuf, roff, rcount, rk);
            return coll.start(s);
        }
        String dflt = p == 1 ? LOCAL
                : block <= coll.tuning.alltoallShort && p >= coll.tuning.alltoallBruckMinP ? BRUCK
                : block >= coll.alltoallLong(c) ? PAIRWISE : LINEAR;
        String algo = dflt == LOCAL ? LOCAL : coll.pick(ALLTOALL, dflt, ALLTOALL_ALGOS);
        CollSchedule s = coll.schedule(c, ALLTOALL, null, block, algo);
        s.copiedBelow = coll.tuning.exchangeReads;
        CollTeam t = CollTeam.of(c);
        if (algo == BRUCK) {
            CollExchange.bruck(s, t, sbuf, soff, scount, sk, rbuf, roff, rcount, rk);
        } else {
            int[][] sc = CollTree.regular(p, scount);
            int[][] rc = CollTree.regular(p, rcount);
            if (algo == PAIRWISE) {
                CollExchange.pairwise(s, t, sbuf, soff, sc[0], sc[1], sk, rbuf, roff, rc[0], rc[1], rk);
            } else {
                CollExchange.linear(s, t, sbuf, soff, sc[0], sc[1], sk, rbuf, roff, rc[0], rc[1], rk);
            }
        }
        return coll.start(s);
    }

    Transfer ialltoallv(CommState c, Object sbuf, int soff, int[] scounts, int[] sdispls, Kind sk, Object rbuf,
                        int roff, int[] rcounts, int[] rdispls, Kind rk, boolean blocking) {
        coll.check(c, ALLTOALLV);
        int p = c.size();
        checkBlocks("alltoallv", false, sbuf, sk, soff, scounts, sdispls, p);
        checkBlocks("alltoallv", true, rbuf, rk, roff, rcounts, rdispls, p);
        long most = Math.max(sum(scounts, p) * sk.size, sum(rcounts, p) * rk.size);
        if (c.isInter()) {
            CollSchedule s = coll.schedule(c, ALLTOALLV, null, most / Math.max(1, p), INTER);
            CollInter.alltoall(s, c, sbuf, soff, scounts, sdispls, sk, rbuf, roff, rcounts, rdispls, rk);
            return coll.start(s);
        }
        CollSites sites = coll.sitesFor(c, ALLTOALLV);
        if (sites != null) {
            // a leader regroups its members' blocks: it learns their sizes, both ways, first
            int[] mine = new int[2 * p];
            for (int r = 0; r < p; r++) {
                mine[r] = scounts[r] * sk.size;
                mine[p + r] = rcounts[r] * rk.size;
            }
            return startWithSizes(c, ALLTOALLV, most / p, sites, mine, blocking, (s, all) -> {
                int[] sendBytes = null;
                int[] recvBytes = null;
                if (all != null) {
                    int m = all.length / (2 * p);
                    sendBytes = new int[m * p];
                    recvBytes = new int[m * p];
                    for (int x = 0; x < m; x++) {
                        System.arraycopy(all, 2 * p * x, sendBytes, p * x, p);
                        System.arraycopy(all, 2 * p * x + p, recvBytes, p * x, p);
                    }
                }
                CollSitesMoves.alltoallv(s, sites, c.rank, sbuf, soff, scounts, sdispls, sk, rbuf, roff, rcounts, rdispls,
                        rk, sendBytes, recvBytes);
            });
        }
        String algo = coll.pick(ALLTOALLV, most / p >= coll.alltoallLong(c) ? PAIRWISE : LINEAR, ALLTOALLV_ALGOS);
        CollSchedule s = coll.schedule(c, ALLTOALLV, null, most / p, algo);
        s.copiedBelow = coll.tuning.exchangeReads;
        if (algo == PAIRWISE) {
            CollExchange.pairwise(s, CollTeam.of(c), sbuf, soff, scounts, sdispls, sk, rbuf, roff, rcounts, rdispls, rk);
        } else {
            CollExchange.linear(s, CollTeam.of(c), sbuf, soff, scounts, sdispls, sk, rbuf, roff, rcounts, rdispls, rk);
        }
        return coll.start(s);
    }

    /** {@code bytes} for each member of {@code rank}'s site (what its leader packs when every block is alike). */
    private static int[] sameBytes(CollSites sites, int rank, int bytes) {
        int[] site = sites.members[sites.siteOf[rank]];
        return filled(site.length, bytes);
    }

    private static int[] filled(int n, int value) {
        int[] a = new int[n];
        java.util.Arrays.fill(a, value);
        return a;
    }

    Transfer ialltoallw(CommState c, Object sbuf, int[] scounts, int[] sdispls, Kind[] sks, Object rbuf,
                        int[] rcounts, int[] rdispls, Kind[] rks) {
        coll.check(c, ALLTOALLW);
        int p = c.size();
        if (sks == null || rks == null || sks.length < p || rks.length < p) {
            throw new RailyardException(ErrorClass.TYPE, "alltoallw needs a send and a receive type for each of " + p + " ranks");
        }
        long bytes = 0;
        for (int r = 0; r < p; r++) {
            if (scounts[r] > 0 || (r == c.rank && !c.isInter())) {
                checkBuffer("alltoallw", " send block of rank", r, sbuf, sks[r], sdispls[r], scounts[r]);
            }
            if (rcounts[r] > 0 || (r == c.rank && !c.isInter())) {
                checkBuffer("alltoallw", " receive block of rank", r, rbuf, rks[r], rdispls[r], rcounts[r]);
            }
            bytes += (long) scounts[r] * sks[r].size;
        }
        if (c.isInter()) {
            CollSchedule s = coll.schedule(c, ALLTOALLW, null, bytes / Math.max(1, p), INTER);
            CollInter.alltoallw(s, c, sbuf, 0, scounts, sdispls, sks, null, rbuf, 0, rcounts, rdispls, rks, null);
            return coll.start(s);
        }
        CollSchedule s = coll.schedule(c, ALLTOALLW, null, bytes / p, LINEAR);
        s.copiedBelow = coll.tuning.exchangeReads;
        CollExchange.linearW(s, CollTeam.of(c), sbuf, scounts, sdispls, sks, rbuf, rcounts, rdispls, rks);
        return coll.start(s);
    }
}
