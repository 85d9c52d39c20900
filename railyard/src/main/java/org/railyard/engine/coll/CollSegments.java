package org.railyard.engine.coll;

import static org.railyard.engine.coll.CollChoice.NAMES;

import java.util.ArrayList;
import java.util.List;
import org.railyard.engine.comm.CommState;

/**
 * The shared segments of the communicators whose members are all on one node ({@link CollShm}):
 * which collective calls use one, mapping it at the first call that qualifies, and unmapping it
 * when the communicator is freed or the engine closes. Called under the progress lock, except
 * {@link #release} and {@link #close}, which take this object's own lock on the list.
 */
final class CollSegments {
    private final CollServices p2p;
    private final Collectives colls;
    /** The communicators with a shared segment mapped, to unmap them at the end. */
    private final List<CommState> segments = new ArrayList<>();

    CollSegments(CollServices p2p, Collectives colls) {
        this.p2p = p2p;
        this.colls = colls;
    }

    /**
     * The shared segment for a blocking collective {@code id} of {@code bytes} (the size the
     * choice log gives it) on {@code c}, mapped at the first call that qualifies; null when the
     * point-to-point algorithms run instead: the segment is off ({@code railyard.coll.shm}), the
     * call moves less than {@code from} bytes or has fewer than 3 processes and the segment is not
     * forced, another algorithm is forced, the communicator is an intercommunicator or spans
     * several nodes or sites, or some member could not map it (no transport of it shares the node's
     * memory, say: {@link CollShm#attach} agrees on that once). Every member decides alike from the same
     * settings.
     */
    CollShm shared(CommState c, int id, long bytes, long from) {
        CollTuning tuning = colls.tuning;
        CollState st = CollState.of(c);
        if (!tuning.shm || c.isInter() || c.size() < 2 || bytes == 0 || st.shmRefused || st.shmSetup) {
            return null;
        }
        String f = tuning.forced(NAMES[id]);
        // between two processes every byte is copied twice either way, and the ring overlaps the
        // writer's copy with the reader's where the segment puts a barrier between them
        if (f != null ? !f.equals(CollShm.NAME) : bytes < from || c.size() < 3) {
            return null;
        }
        // members on several sites are not on one node, whatever their node names say
        if (colls.nodes(c).count != 1 || colls.sitesFor(c, id) != null) {
            return null;
        }
        return mapped(c, st);
    }

    /**
     * The shared segment for the counter barrier and small allreduce ({@link CollCounter}) of a
     * blocking collective {@code id} on {@code c}, mapped at the first call that qualifies; null
     * when the message algorithms run instead: the segment or the counter collectives are off
     * ({@code railyard.coll.shm}, {@code railyard.coll.counter}), another algorithm is forced, the
     * communicator has fewer processes than {@code railyard.coll.counter.min} (2), is an intercommunicator, spans several nodes or
     * sites, or some member could not map the segment. Every member decides alike.
     */
    CollShm counter(CommState c, int id) {
        CollTuning tuning = colls.tuning;
        CollState st = CollState.of(c);
        if (!tuning.shm || !tuning.counter || c.isInter() || c.size() < tuning.counterMin || st.shmRefused || st.shmSetup) {
            return null;
        }
        String f = tuning.forced(NAMES[id]);
        if (f != null && !f.equals(CollCounter.NAME)) {
            return null;
        }
        if (colls.nodes(c).count != 1 || colls.sitesFor(c, id) != null) {
            return null;
        }
        return mapped(c, st);
    }

    /** The segment of {@code c}, mapped now if it is not yet; null if some member could not map it. */
    private CollShm mapped(CommState c, CollState st) {
        if (st.shm == null) {
            st.shmSetup = true;
            try {
                st.shm = CollShm.attach(p2p, colls, c, CollShm.halfOf(colls.tuning.shmSize, c.size()));
            } finally {
                st.shmSetup = false;
            }
            if (st.shm == null) {
                st.shmRefused = true;
                return null;
            }
            synchronized (segments) {
                segments.add(c);
            }
        }
        return st.shm;
    }

    /** A line for each counter barrier a thread waits in now, for a stall report (any thread). */
    void describeCounterWaits(StringBuilder sb) {
        synchronized (segments) {
            for (CommState c : segments) {
                CollShm shm = CollState.of(c).shm;
                if (shm != null) {
                    shm.counter().describe(sb);
                }
            }
        }
    }

    /** Unmaps the shared segment of {@code c}, if it has one (the communicator is freed). */
    public void release(CommState c) {
        synchronized (segments) {
            CollState st = CollState.of(c);
            if (st.shm != null) {
                st.shm.close();
                st.shm = null;
                st.shmRefused = true;
                segments.remove(c);
            }
        }
    }

    /** Unmaps every shared segment (the engine closes). */
    public void close() {
        synchronized (segments) {
            for (CommState c : List.copyOf(segments)) {
                release(c);
            }
        }
    }

}
