package org.railyard.gateway;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a gateway holds of one job: its id, its gateway verifier, its size, the connections of its
 * ranks of this site (by world rank) and its WAN stripes (by peer site and stripe index).
 */
final class GatewayJob {
    /** Opens a WAN stripe. */
    @FunctionalInterface
    interface Opener {
        Endpoint open() throws IOException;
    }

    final String id;
    final long hash;
    final byte[] verifier;
    final int size;
    private final ConcurrentHashMap<Integer, Endpoint> ranks = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Endpoint> stripes = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Object> opening = new ConcurrentHashMap<>();
    /** (destination site, source rank) to its stripe, dealt in turn as sources first send there. */
    private final ConcurrentHashMap<Long, Integer> dealt = new ConcurrentHashMap<>();
    /** Per destination site: how many sources have been dealt a stripe to it. */
    private final ConcurrentHashMap<Integer, java.util.concurrent.atomic.AtomicInteger> dealers = new ConcurrentHashMap<>();

    GatewayJob(String id, long hash, byte[] verifier, int size) {
        this.id = id;
        this.hash = hash;
        this.verifier = verifier.clone();
        this.size = size;
    }

    /** A rank connected (again: its earlier connection, if any, is closed). */
    void register(int rank, Endpoint ep) {
        Endpoint old;
        synchronized (this) {
            old = ranks.put(rank, ep);
            notifyAll();
        }
        if (old != null && old != ep) {
            old.close();
        }
    }

    /** The rank's connection ended; true if no rank of the job is connected here any more. */
    synchronized boolean unregister(int rank, Endpoint ep) {
        ranks.remove(rank, ep);
        return ranks.isEmpty();
    }

    void closeStripes() {
        for (Endpoint e : java.util.List.copyOf(stripes.values())) {
            e.close();
        }
        stripes.clear();
    }

    java.util.Collection<Endpoint> ranks() {
        return java.util.List.copyOf(ranks.values());
    }

    int ranksHere() {
        return ranks.size();
    }

    int stripesOpen() {
        return stripes.size();
    }

    /** The connection of {@code rank}, waiting up to {@code wait} for it to connect; null if it did not. */
    Endpoint awaitRank(int rank, Duration wait) {
        Endpoint e = ranks.get(rank);
        if (e != null && e.isOpen()) {
            return e;
        }
        long deadline = System.nanoTime() + wait.toNanos();
        synchronized (this) {
            while (true) {
                e = ranks.get(rank);
                if (e != null && e.isOpen()) {
                    return e;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                try {
                    wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
        }
    }

    /**
     * The stripe (0 to {@code stripes - 1}) that carries the frames of {@code source} to
     * {@code site}: the same for all of them, so a pair's frames keep their order, and dealt in
     * turn to the sources as each first sends there, so that as many sources as stripes never
     * share one. (A hash of the pair would put the pairs of a neighbour exchange, whose source and
     * destination differ by the same amount, on one stripe.)
     */
    int stripeFor(int site, int source, int stripes) {
        if (stripes == 1) {
            return 0;
        }
        long key = ((long) site << 32) | (source & 0xffffffffL);
        Integer k = dealt.get(key);
        if (k != null) {
            return k;
        }
        return dealt.computeIfAbsent(key, x -> Math.floorMod(
                dealers.computeIfAbsent(site, y -> new java.util.concurrent.atomic.AtomicInteger()).getAndIncrement(),
                stripes));
    }

    /** The WAN stripes open now, to every site. */
    java.util.Collection<Endpoint> stripes() {
        return java.util.List.copyOf(stripes.values());
    }

    /** WAN stripe {@code k} to {@code site}, opened by {@code opener} the first time (and after it closed). */
    Endpoint stripe(int site, int k, Opener opener) throws IOException {
        long key = ((long) site << 32) | (k & 0xffffffffL);
        Endpoint e = stripes.get(key);
        if (e != null && e.isOpen()) {
            return e;
        }
        synchronized (opening.computeIfAbsent(key, x -> new Object())) {
            e = stripes.get(key);
            if (e != null && e.isOpen()) {
                return e;
            }
            e = opener.open();
            stripes.put(key, e);
            return e;
        }
    }

    /** WAN stripe {@code k} to {@code site} if one is open (opened by either side), else null. */
    Endpoint openStripe(int site, int k) {
        Endpoint e = stripes.get(((long) site << 32) | (k & 0xffffffffL));
        return e != null && e.isOpen() ? e : null;
    }

    /** A stripe the peer opened: used for frames to its site unless this side has one open already. */
    void offerStripe(int site, int k, Endpoint e) {
        stripes.compute(((long) site << 32) | (k & 0xffffffffL), (key, old) -> old != null && old.isOpen() ? old : e);
    }

    void dropStripe(Endpoint e) {
        stripes.values().remove(e);
    }
}
