package org.railyard;

import org.railyard.engine.EngineJob;

/** {@link EngineJob} for tests of the API floor whose ranks need only their world communicator and rank. */
final class WorldJob {
    /** What each rank runs: its world communicator and its rank in it. */
    interface Body {
        void run(Comm world, int me) throws Exception;
    }

    private WorldJob() {
    }

    /** Lets the collectives and topologies of {@code w} take its ranks as running on these nodes (one name per rank). */
    static void assumeNodes(Comm w, String... nodeOfRank) {
        EngineJob.assumeNodes(w.engine, w.state(), nodeOfRank);
    }

    /** Runs {@code body} on {@code n} engines talking over {@code transports}; rethrows the first failure. */
    static void run(int n, String transports, Body body) throws Exception {
        EngineJob.run(n, transports, e -> {
            Comm w = new Comm(e, e.world());
            body.run(w, w.rank());
        });
    }
}
