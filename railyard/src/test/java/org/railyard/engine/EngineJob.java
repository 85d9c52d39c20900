package org.railyard.engine;

import org.railyard.engine.coll.Collectives;
import org.railyard.engine.comm.CommState;

/** {@link InMemoryJob} for tests of the API floor (package {@code org.railyard}), which build their Comm on each engine. */
public final class EngineJob {
    /** What each rank runs, on its own engine. */
    public interface Body {
        void run(Engine e) throws Exception;
    }

    /** What each rank of a test of the collectives runs: its engine, the engine's collectives, the world, its rank. */
    public interface CollBody {
        void run(Engine e, Collectives c, CommState world, int me) throws Exception;
    }

    private EngineJob() {
    }

    /** Lets the collectives and topologies of {@code c} take its ranks as running on these nodes (one name per rank). */
    public static void assumeNodes(Engine e, CommState c, String... nodeOfRank) {
        e.collectives().assumeNodes(c, nodeOfRank);
    }

    /** How many other ranks {@code e} has a channel to (made by a send, a receive or a link from the peer). */
    public static int channelsTo(Engine e) {
        int count = 0;
        for (int peer = 0; peer < e.size(); peer++) {
            if (peer != e.rank() && e.channels().existing(peer) != null) {
                count++;
            }
        }
        return count;
    }

    /** Runs {@code body} on {@code n} engines talking over {@code transports}; rethrows the first failure. */
    public static void run(int n, String transports, Body body) throws Exception {
        InMemoryJob.run(n, transports, body::run);
    }

    /** As {@link #run(int, String, Body)}, handing each rank its collectives, the world and its rank. */
    public static void run(int n, String transports, CollBody body) throws Exception {
        run(n, transports, e -> body.run(e, e.collectives(), e.world(), e.rank()));
    }
}
