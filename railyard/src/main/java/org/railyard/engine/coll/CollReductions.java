package org.railyard.engine.coll;

import static org.railyard.engine.coll.CollChecks.*;
import static org.railyard.engine.coll.CollChoice.*;

import org.railyard.engine.comm.CommState;
import org.railyard.engine.request.Transfer;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.types.Kind;
import org.railyard.types.Reduction;

/**
 * Selection and building of the reductions (reduce, allreduce, reduce_scatter(_block), scan,
 * exscan): checks the arguments, picks the algorithm from {@link CollTuning}, builds the
 * schedule with the algorithms of {@link CollReduce} and {@link CollTree} and starts it.
 */
final class CollReductions {
    private final Collectives coll;

    CollReductions(Collectives coll) {
        this.coll = coll;
    }

    Transfer reduce(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op,
                    int root, boolean blocking) {
        coll.check(c, REDUCE);
        if (c.isInter()) {
            checkOp(op, k, count);
            Object acc = null;
            CollSchedule s = coll.schedule(c, REDUCE, op, (long) count * k.size, INTER);
            if (interSender(c, root)) {
                checkBuffer("reduce send buffer", sbuf, k, soff, count);
                acc = s.scratch(k, count);
                s.copy(k, sbuf, soff, acc, 0, count);
            } else if (root == Collectives.ROOT) {
                checkBuffer("reduce receive buffer", rbuf, k, roff, count);
            }
            CollInter.reduce(s, c, root, acc, rbuf, roff, k, count);
            return coll.start(s);
        }
        checkRoot(c, root);
        checkBuffer("reduce send buffer", sbuf, k, soff, count);
        checkOp(op, k, count);
        boolean isRoot = c.rank == root;
        if (isRoot) {
            checkBuffer("reduce receive buffer", rbuf, k, roff, count);
        }
        int p = c.size();
        long bytes = (long) count * k.size;
        CollShm shm = blocking ? coll.shared(c, REDUCE, bytes, coll.tuning.reduceShared) : null;
        if (shm != null) {
            return sharedReduce(c, REDUCE, shm, root, sbuf, soff, rbuf, roff, count, k, op);
        }
        CollSites sites = p > 1 && count > 0 && op.commutative() ? coll.sitesFor(c, REDUCE) : null;
        String algo;
        if (p == 1 || count == 0) {
            algo = LOCAL;
        } else if (sites != null) {
            algo = SITE_AWARE;
        } else if (op.commutative()) {
            algo = coll.pick(REDUCE, bytes >= coll.tuning.reduceLong && count / op.width() >= Integer.highestOneBit(p)
                    ? RABENSEIFNER : BINOMIAL, REDUCE_ALGOS);
        } else {
            algo = root == 0 ? BINOMIAL : BINOMIAL_VIA_0;
        }
        CollSchedule s = coll.schedule(c, REDUCE, op, bytes, algo);
        Object acc;
        int accOff;
        if (isRoot && direct(rbuf, k)) {
            acc = rbuf;
            accOff = roff;
            s.copy(k, sbuf, soff, rbuf, roff, count);
        } else {
            acc = count == 0 ? null : s.scratch(k, count);
            accOff = 0;
            s.copy(k, sbuf, soff, acc, 0, count);
        }
        CollTeam t = CollTeam.of(c);
        switch (algo) {
            case LOCAL -> { }
            case SITE_AWARE -> sites.reduce(s, c.rank, root, acc, accOff, k, count);
            case RABENSEIFNER -> CollReduce.rabenseifnerReduce(s, t, root, acc, accOff, k, count, op.width());
            case BINOMIAL_VIA_0 -> {
                CollTree.binomialReduce(s, t, 0, acc, accOff, k, count);
                if (c.rank == 0) {
                    s.send(acc, k, accOff, count, root);
                } else if (isRoot) {
                    s.recv(acc, k, accOff, count, 0);
                }
                s.round();
            }
            default -> CollTree.binomialReduce(s, t, root, acc, accOff, k, count);
        }
        if (isRoot && acc != rbuf && count > 0) {
            s.copy(k, acc, accOff, rbuf, roff, count);
        }
        return coll.start(s);
    }

    Transfer allreduce(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op,
                       boolean blocking) {
        coll.check(c, ALLREDUCE);
        checkBuffer("allreduce send buffer", sbuf, k, soff, count);
        checkBuffer("allreduce receive buffer", rbuf, k, roff, count);
        checkOp(op, k, count);
        int p = c.size();
        long bytes = (long) count * k.size;
        int items = count / op.width();
        if (c.isInter()) {
            CollSchedule s = coll.schedule(c, ALLREDUCE, op, bytes, INTER);
            Object acc = s.scratch(k, count);
            s.copy(k, sbuf, soff, acc, 0, count);
            CollInter.allreduce(s, c, acc, rbuf, roff, k, count);
            return coll.start(s);
        }
        CollSites sites = p > 1 && count > 0 && op.commutative() ? coll.sitesFor(c, ALLREDUCE) : null;
        CollShm shm = blocking ? coll.shared(c, ALLREDUCE, bytes, coll.tuning.allreduceShared) : null;
        if (shm != null) {
            return sharedReduce(c, ALLREDUCE, shm, -1, sbuf, soff, rbuf, roff, count, k, op);
        }
        shm = blocking && count > 0 && bytes <= coll.tuning.allreduceCounter ? coll.counter(c, ALLREDUCE) : null;
        if (shm != null && bytes <= shm.slot(p)) {
            return counterAllreduce(c, shm, sbuf, soff, rbuf, roff, count, k, op);
        }
        String algo;
        if (p == 1 || count == 0) {
            algo = LOCAL;
        } else if (sites != null) {
            algo = SITE_AWARE;
        } else if (!op.commutative()) {
            algo = RECURSIVE_DOUBLING;
        } else {
            String dflt = coll.twoLevel(c) ? NODE_AWARE
                    : bytes >= coll.tuning.allreduceRing && Integer.bitCount(p) != 1 && items >= p ? RING
                    : bytes >= coll.tuning.allreduceLong && items >= Integer.highestOneBit(p) ? RABENSEIFNER
                    : RECURSIVE_DOUBLING;
            algo = coll.pick(ALLREDUCE, dflt, ALLREDUCE_ALGOS);
            if (algo == NODE_AWARE && !coll.nodes(c).twoLevel()) {
                algo = RECURSIVE_DOUBLING;
            }
        }
        CollSchedule s = coll.schedule(c, ALLREDUCE, op, bytes, algo);
        boolean direct = direct(rbuf, k);
        Object acc = direct ? rbuf : s.scratch(k, count);
        int accOff = direct ? roff : 0;
        s.copy(k, sbuf, soff, acc, accOff, count);
        CollTeam t = CollTeam.of(c);
        switch (algo) {
            case LOCAL -> { }
            case SITE_AWARE -> sites.allreduce(s, c.rank, acc, accOff, k, count, op.width(), bytes >= coll.tuning.allreduceLong);
            case NODE_AWARE -> coll.nodes(c).allreduce(s, c.rank, acc, accOff, k, count, op.width(), bytes >= coll.tuning.allreduceLong);
            case RING -> CollReduce.ring(s, t, acc, accOff, k, count, op.width());
            case RABENSEIFNER -> CollReduce.rabenseifner(s, t, acc, accOff, k, count, op.width());
            default -> CollReduce.recursiveDoubling(s, t, acc, accOff, k, count);
        }
        if (!direct) {
            s.copy(k, acc, 0, rbuf, roff, count);
        }
        return coll.start(s);
    }

    /**
     * allreduce over the counter barrier ({@link CollCounter}), blocking, run to its end here
     * without a schedule or the progress lock: folded in the receive buffer itself when it is a Java
     * array of the kind, else in the counter's scratch array and copied out.
     */
    private Transfer counterAllreduce(CommState c, CollShm shm, Object sbuf, int soff, Object rbuf, int roff, int count,
                                      Kind k, Reduction op) {
        coll.logChoice(c, ALLREDUCE, op, (long) count * k.size, CollCounter.NAME);
        shm.counter().allreduce(sbuf, soff, rbuf, roff, direct(rbuf, k), k, count, op);
        return CollSchedule.DONE;
    }

    /**
     * reduce ({@code root} a rank) or allreduce ({@code root} -1) through the shared segment: the
     * result is folded in the receive buffer itself when it is a Java array of the kind (at the
     * root, or everywhere for allreduce), else in a scratch array copied out at the end.
     */
    Transfer sharedReduce(CommState c, int id, CollShm shm, int root, Object sbuf, int soff, Object rbuf, int roff,
                          int count, Kind k, Reduction op) {
        CollSchedule s = coll.schedule(c, id, op, (long) count * k.size, CollShm.NAME);
        boolean receives = root < 0 || c.rank == root;
        boolean direct = receives && direct(rbuf, k);
        Object acc = direct ? rbuf : s.scratch(k, count);
        int accOff = direct ? roff : 0;
        shm.reduce(s, CollTeam.of(c), root, sbuf, soff, acc, accOff, k, count, op.width());
        if (receives && !direct) {
            s.copy(k, acc, 0, rbuf, roff, count);
        }
        return coll.start(s);
    }

    Transfer reduceScatter(int id, CommState c, Object sbuf, int soff, Object rbuf, int roff, int[] counts,
                           Kind k, Reduction op, boolean blocking) {
        coll.check(c, id);
        // on an intercommunicator the counts are those of the local group, which the result is scattered over
        int p = c.localSize();
        if (counts == null || counts.length < p) {
            throw new RailyardException(ErrorClass.ARG, NAMES[id] + ": counts need " + p + " entries");
        }
        for (int r = 0; r < p; r++) {
            if (counts[r] < 0) {
                throw new RailyardException(ErrorClass.COUNT, NAMES[id] + ": count " + counts[r] + " for rank " + r
                        + " is negative");
            }
        }
        long total = sum(counts, p);
        checkBuffer(NAMES[id], " send buffer", -1, sbuf, k, soff, (int) Math.min(Integer.MAX_VALUE, total));
        int mine = counts[c.rank];
        checkBuffer(NAMES[id], " receive buffer", -1, rbuf, k, roff, mine);
        if (op == null) {
            checkOp(null, k, 0);
        }
        for (int r = 0; r < p; r++) {
            checkOp(op, k, counts[r]);
        }
        int n = (int) total;
        long bytes = total * k.size;
        if (c.isInter()) {
            CollSchedule s = coll.schedule(c, id, op, bytes, INTER);
            Object acc = n == 0 ? null : s.scratch(k, n);
            s.copy(k, sbuf, soff, acc, 0, n);
            CollInter.reduceScatter(s, c, acc, c.rank == 0 && n > 0 ? s.scratch(k, n) : null, k, n, counts,
                    starts(s, counts, p), rbuf, roff);
            return coll.start(s);
        }
        CollShm shm = blocking ? coll.shared(c, id, bytes, coll.tuning.reduceScatterShared) : null;
        if (shm != null) {
            CollSchedule s = coll.schedule(c, id, op, bytes, CollShm.NAME);
            boolean direct = direct(rbuf, k);
            Object acc = direct || mine == 0 ? rbuf : s.scratch(k, mine);
            int accOff = direct ? roff : 0;
            shm.reduceScatter(s, CollTeam.of(c), sbuf, soff, counts, starts(s, counts, p), k, acc, accOff, op.width());
            if (!direct && mine > 0) {
                s.copy(k, acc, 0, rbuf, roff, mine);
            }
            return coll.start(s);
        }
        String algo = p == 1 || n == 0 ? LOCAL
                : bytes < coll.tuning.reduceScatterShort ? coll.pick(id, ALLREDUCE_COPY, REDUCE_SCATTER_ALGOS)
                : op.commutative() ? coll.pick(id, RING, REDUCE_SCATTER_ALGOS)
                : coll.pick(id, REDUCE_SCATTERV, REDUCE_SCATTER_NONCOMMUTATIVE_ALGOS);
        if (algo == RING && !op.commutative()) {
            algo = REDUCE_SCATTERV;
        }
        CollSchedule s = coll.schedule(c, id, op, bytes, algo);
        int[] starts = starts(s, counts, p);
        Object acc = n == 0 ? null : s.scratch(k, n);
        s.copy(k, sbuf, soff, acc, 0, n);
        CollTeam t = CollTeam.of(c);
        switch (algo) {
            case LOCAL -> { }
            case ALLREDUCE_COPY -> CollReduce.recursiveDoubling(s, t, acc, 0, k, n);
            case RING -> CollReduce.ringReduceScatter(s, t, acc, 0, k, starts);
            default -> {
                CollTree.binomialReduce(s, t, 0, acc, 0, k, n);
                CollTree.linearScatterv(s, t, 0, acc, 0, counts, starts, k, rbuf, roff, mine, k);
            }
        }
        if (algo != REDUCE_SCATTERV && mine > 0) {
            s.copy(k, acc, starts[c.rank], rbuf, roff, mine);
        }
        return coll.start(s);
    }

    Transfer scan(int id, CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k,
                  Reduction op) {
        coll.check(c, id);
        checkBuffer(NAMES[id], " send buffer", -1, sbuf, k, soff, count);
        checkBuffer(NAMES[id], " receive buffer", -1, rbuf, k, roff, count);
        checkOp(op, k, count);
        boolean exclusive = id == EXSCAN;
        CollSchedule s = coll.schedule(c, id, op, (long) count * k.size, c.size() == 1 || count == 0 ? LOCAL : RECURSIVE_DOUBLING);
        if (count == 0) {
            return coll.start(s);
        }
        Object partial = s.scratch(k, count);
        s.copy(k, sbuf, soff, partial, 0, count);
        boolean direct = direct(rbuf, k);
        Object result = direct ? rbuf : s.scratch(k, count);
        int resOff = direct ? roff : 0;
        if (!exclusive) {
            s.copy(k, sbuf, soff, result, resOff, count);
        }
        CollReduce.scan(s, CollTeam.of(c), partial, result, resOff, k, count, exclusive);
        if (!direct && (!exclusive || c.rank > 0)) {
            s.copy(k, result, 0, rbuf, roff, count);
        }
        return coll.start(s);
    }
}
