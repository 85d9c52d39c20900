package org.railyard.engine.rma;

import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.wire.RmaHeader;

/**
 * General active-target synchronisation of one window (MPI's post/start/complete/wait/test), a part
 * of its {@link Epochs}: the access epoch of start/complete and the exposure epoch of
 * post/waitFor/test, and the counts of POST and COMPLETE messages the targets and origins sent.
 *
 * <p>Contract: complete returns once the operations of its access epoch are complete at their
 * targets and throws what a target deferred; start waits (unless MODE_NOCHECK) for the post of
 * every target; every wait is bounded by the RMA timeout and ends early when the peer failed. The
 * on* methods are called from {@link Target} with the progress lock held.
 *
 * <p>Paths: on a mapped window ({@link SharedSync} not null) posts and completes are counters per
 * pair in the mapping's header and send nothing, and a warm epoch allocates nothing (the group is
 * translated once, the waits' conditions are made once); otherwise POST and COMPLETE messages.
 */
final class Pscw {
    private final Epochs epochs;
    private final RmaWindow w;
    private final RmaServices s;
    private final CommState comm;
    private final Outbound out;
    private final Target target;
    private final SharedSync sync;
    private final int n;
    private final int me;

    int[] startGroup;
    int[] postGroup;
    private final long[] postsWanted;
    private final long[] posts;
    private final long[] completesWanted;
    private final long[] completes;
    /** The group of the last post and of the last start, translated once while the group stays the same. */
    private final GroupRanks postRanks = new GroupRanks();
    private final GroupRanks startRanks = new GroupRanks();
    /** The targets whose posts a mapped start waits for, and the wait's condition and name, made once. */
    private int[] starting;
    private final BooleanSupplier posted = this::posted;
    private final Supplier<String> postedWhat = this::postedWhat;
    private final BooleanSupplier exposed = this::exposed;
    private final Supplier<String> exposedWhat = this::exposedWhat;

    Pscw(Epochs epochs, RmaWindow w, RmaServices s, CommState comm, Outbound out, Target target, SharedSync sync, int n) {
        this.epochs = epochs;
        this.w = w;
        this.s = s;
        this.comm = comm;
        this.out = out;
        this.target = target;
        this.sync = sync;
        this.n = n;
        this.me = comm.rank();
        this.postsWanted = new long[n];
        this.posts = new long[n];
        this.completesWanted = new long[n];
        this.completes = new long[n];
    }

    void onPost(int src) {
        posts[src]++;
    }

    void onComplete(int src) {
        completes[src]++;
    }

    void post(int[] worldRanks, int assertions) {
        w.checkUsable();
        if (postGroup != null) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "post on window " + w.name()
                    + " while an exposure epoch is open (waitFor or test first)");
        }
        int[] g = postRanks.members(worldRanks, this, "post");
        VarHandle.fullFence();
        if (sync != null) {
            epochs.refreshDead();
            for (int r : g) {
                completesWanted[r]++;
                if (!epochs.dead[r]) {
                    sync.post(me, r);
                }
            }
            postGroup = g;
            return;
        }
        out.locked(() -> {
            for (int r : g) {
                completesWanted[r]++;
                if (out.failed[r] == null) {
                    target.send(r, RmaHeader.make(RmaHeader.OP_POST, 0, 0, 0, 0, 0, 0, 0, 0));
                }
            }
            return null;
        });
        postGroup = g;
    }

    void start(int[] worldRanks, int assertions) {
        w.checkUsable();
        if (startGroup != null) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "start on window " + w.name()
                    + " while an access epoch is open (complete first)");
        }
        int[] g = startRanks.members(worldRanks, this, "start");
        if (sync != null) {
            for (int r : g) {
                postsWanted[r]++;
            }
            if ((assertions & RmaWindow.MODE_NOCHECK) == 0) {
                epochs.refreshDead();
                starting = g;
                try {
                    sync.awaitBell(me, posted, epochs.refresh, postedWhat);
                } finally {
                    starting = null;
                }
                for (int r : g) {
                    if (epochs.dead[r]) {
                        throw epochs.failedPeer(r);
                    }
                }
            }
            startGroup = g;
            return;
        }
        out.locked(() -> {
            for (int r : g) {
                postsWanted[r]++;
            }
            return null;
        });
        if ((assertions & RmaWindow.MODE_NOCHECK) == 0) {
            out.waitUntil(() -> {
                for (int r : g) {
                    if (posts[r] < postsWanted[r] && out.failed[r] == null) {
                        return false;
                    }
                }
                return true;
            }, "the post of every target of start");
            for (int r : g) {
                if (out.failed[r] != null) {
                    throw out.peerFailed(r);
                }
            }
        }
        startGroup = g;
    }

    void complete() {
        w.checkUsable();
        int[] g = startGroup;
        if (g == null) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "complete on window " + w.name() + " without start");
        }
        startGroup = null;
        VarHandle.fullFence();
        if (sync != null) {
            epochs.refreshDead();
            for (int r : g) {
                if (!epochs.dead[r]) {
                    sync.complete(me, r);
                }
            }
            return;
        }
        out.locked(() -> {
            for (int r : g) {
                if (out.failed[r] == null) {
                    out.opsSince[r] = 0;
                    out.control(r, RmaHeader.OP_COMPLETE, 0, 0);
                }
            }
            return null;
        });
        out.waitUntil(() -> {
            for (int r : g) {
                if (out.pendingTo[r] != 0) {
                    return false;
                }
            }
            return true;
        }, "local completion of the access epoch");
        for (int r : g) {
            out.throwDeferred(r);
        }
    }

    void waitFor() {
        w.checkUsable();
        int[] g = exposure("waitFor");
        if (sync != null) {
            epochs.refreshDead();
            sync.awaitBell(me, exposed, epochs.refresh, exposedWhat);
            endExposure(g);
            return;
        }
        out.waitUntil(() -> exposureDone(g), "the complete of every origin of post");
        endExposure(g);
    }

    boolean test() {
        w.checkUsable();
        int[] g = exposure("test");
        if (sync != null) {
            epochs.refreshDead();
            if (!exposureDone(g)) {
                return false;
            }
            endExposure(g);
            return true;
        }
        if (!s.driveUntil(() -> exposureDone(g), 0)) {
            return false;
        }
        endExposure(g);
        return true;
    }

    int[] exposure(String what) {
        if (postGroup == null) {
            throw new RailyardException(ErrorClass.RMA_SYNC, what + " on window " + w.name() + " without post");
        }
        return postGroup;
    }

    boolean exposureDone(int[] g) {
        if (sync != null) {
            for (int r : g) {
                if (sync.completes(me, r) < completesWanted[r] && !epochs.dead[r]) {
                    return false;
                }
            }
            return true;
        }
        for (int r : g) {
            if (completes[r] < completesWanted[r] && out.failed[r] == null) {
                return false;
            }
        }
        return true;
    }

    void endExposure(int[] g) {
        postGroup = null;
        VarHandle.fullFence();
        for (int r : g) {
            if (out.failed[r] != null) {
                throw out.peerFailed(r);
            }
        }
    }

    /** True once every live target of the mapped start under way ({@link #starting}) has posted. */
    private boolean posted() {
        for (int r : starting) {
            if (sync.posts(r, me) < postsWanted[r] && !epochs.dead[r]) {
                return false;
            }
        }
        return true;
    }

    private String postedWhat() {
        return "window " + w.name() + ": the post of every target of start";
    }

    private String exposedWhat() {
        return "window " + w.name() + ": the complete of every origin of post";
    }

    /** The window ranks of {@code worldRanks}; an ARG error names one that is no member. */
    int[] members(int[] worldRanks, String what) {
        int[] g = new int[worldRanks.length];
        for (int i = 0; i < g.length; i++) {
            g[i] = comm.localRank(worldRanks[i]);
            if (g[i] < 0 || g[i] >= n) {
                throw new RailyardException(ErrorClass.ARG, what + " on window " + w.name() + ": world rank "
                        + worldRanks[i] + " of the group is no member of the window");
            }
        }
        return g;
    }

    private boolean exposed() {
        return exposureDone(postGroup);
    }
}

