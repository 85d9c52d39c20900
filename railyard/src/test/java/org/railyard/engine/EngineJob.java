package org.railyard.engine;

/** {@link InMemoryJob} for tests of the API floor (package {@code org.railyard}), which build their Comm on each engine. */
public final class EngineJob {
    /** What each rank runs, on its own engine. */
    public interface Body {
        void run(Engine e) throws Exception;
    }

    private EngineJob() {
    }

    /** Runs {@code body} on {@code n} engines talking over {@code transports}; rethrows the first failure. */
    public static void run(int n, String transports, Body body) throws Exception {
        InMemoryJob.run(n, transports, body::run);
    }
}
