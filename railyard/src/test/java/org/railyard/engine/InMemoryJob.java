package org.railyard.engine;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.railyard.bootstrap.Bootstrap;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * Several engines in one JVM, each on its own thread, sharing an in-memory bootstrap. The engines
 * still talk over real transports (loopback sockets, mapped files), so this exercises everything
 * below the bootstrap; the multi-process tests exercise the rest.
 */
final class InMemoryJob {
    /**
     * How long a job may run: a bound on the whole job, not a speed target, so generous for a small
     * machine loaded by other builds (the largest jobs of CollAlgorithmsTest ran for over 2 minutes
     * at a load of 45 on 2 cores). A job still running then fails with every thread's stack.
     */
    static final Duration JOB_BOUND = Duration.ofMinutes(10);

    interface RankBody {
        void run(Engine e) throws Exception;
    }

    /** What a rank runs that needs its engine and the world communicator. */
    interface WorldBody {
        void run(Engine e, CommState world) throws Exception;
    }

    static final class MemoryBootstrap implements Bootstrap {
        private final int rank;
        private final int size;
        private final Map<String, String> kv;
        private final CyclicBarrier barrier;
        private final String job;
        private final byte[] secret;

        MemoryBootstrap(int rank, int size, Map<String, String> kv, CyclicBarrier barrier, String job, byte[] secret) {
            this.rank = rank;
            this.size = size;
            this.kv = kv;
            this.barrier = barrier;
            this.job = job;
            this.secret = secret;
        }

        @Override public int rank() { return rank; }
        @Override public int size() { return size; }
        @Override public String jobId() { return job; }
        @Override public byte[] jobSecret() { return secret.clone(); }
        @Override public void put(String key, String value) { kv.put(key, value); }

        @Override
        public void fence(Duration timeout) {
            try {
                barrier.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                throw new RailyardException(ErrorClass.BOOTSTRAP, "fence failed: " + e);
            }
        }

        @Override
        public String get(String key) {
            String v = kv.get(key);
            if (v == null) {
                throw new RailyardException(ErrorClass.BOOTSTRAP, "no key " + key);
            }
            return v;
        }

        @Override public String name() { return "in-memory"; }
        @Override public void close() { }
    }

    /** As {@link #run(int, String, RankBody)}, handing each rank the world too. */
    static void run(int n, String transports, WorldBody body) throws Exception {
        run(n, transports, e -> body.run(e, e.world()));
    }

    /** Runs {@code body} on {@code n} engines with the given transports allowed; rethrows the first failure. */
    static void run(int n, String transports, RankBody body) throws Exception {
        String old = System.getProperty("railyard.transports");
        System.setProperty("railyard.transports", transports);
        Map<String, String> kv = new ConcurrentHashMap<>();
        CyclicBarrier barrier = new CyclicBarrier(n);
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        String job = "test-" + System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                int rank = r;
                fs.add(pool.submit(() -> {
                    Engine e = Engine.start(new MemoryBootstrap(rank, n, kv, barrier, job, secret));
                    try {
                        body.run(e);
                    } finally {
                        e.close();
                    }
                    return null;
                }));
            }
            // every rank's failure; the one thrown is the first that is not a peer's death, since
            // a rank that fails leaves the job and fails the others' waits on it
            // (once one failed, the others get 10 s to fail in turn)
            List<Throwable> failures = new ArrayList<>();
            long deadline = System.nanoTime() + JOB_BOUND.toNanos();
            for (Future<?> f : fs) {
                try {
                    f.get(failures.isEmpty() ? Math.max(1, deadline - System.nanoTime()) : TimeUnit.SECONDS.toNanos(10),
                            TimeUnit.NANOSECONDS);
                } catch (ExecutionException ex) {
                    failures.add(ex.getCause());
                } catch (TimeoutException ex) {
                    if (failures.isEmpty()) {
                        throw new AssertionError("a job of " + n + " engines still ran after " + JOB_BOUND.toMinutes()
                                + " min; its threads:\n" + stacks(), ex);
                    }
                }
            }
            if (!failures.isEmpty()) {
                Throwable first = failures.stream().filter(t -> !(t instanceof RailyardException r
                        && r.errorClass() == ErrorClass.PEER_FAILED)).findFirst().orElse(failures.get(0));
                failures.stream().filter(t -> t != first).forEach(first::addSuppressed);
                if (first instanceof Exception c) {
                    throw c;
                }
                if (first instanceof Error err) {
                    throw err;
                }
                throw new ExecutionException(first);
            }
        } finally {
            pool.shutdownNow();
            if (old == null) {
                System.clearProperty("railyard.transports");
            } else {
                System.setProperty("railyard.transports", old);
            }
        }
    }

    /** Every live thread's stack, for the failure of a job that did not end. */
    private static String stacks() {
        StringBuilder sb = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, frames) -> {
            sb.append('"').append(t.getName()).append("\" ").append(t.getState()).append('\n');
            for (StackTraceElement f : frames) {
                sb.append("    at ").append(f).append('\n');
            }
        });
        return sb.toString();
    }
}
