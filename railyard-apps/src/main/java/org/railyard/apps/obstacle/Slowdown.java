package org.railyard.apps.obstacle;

import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * Makes one rank slower than the others, for studying heterogeneous machines on a homogeneous one:
 * after each iteration's computation, which took {@code t}, the rank spends {@code (factor - 1) t}
 * more, so its iterations take {@code factor} times as long ("slowed by half": factor 2).
 *
 * <ul>
 *   <li>{@code spin}: a busy loop, like a processor that is simply slower;</li>
 *   <li>{@code sleep}: the rank parks, like a process held to a lower CPU share (a cgroup quota):
 *       slower, without taking the time from the other ranks, which matters on a machine with fewer
 *       cores than ranks.</li>
 * </ul>
 *
 * <p>Given on the command line as {@code RANK:FACTOR[:spin|sleep]} (default sleep).
 *
 * @param rank the rank slowed, or -1 for none
 * @param factor how many times longer its iterations take, at least 1
 * @param spin busy loop instead of parking
 */
public record Slowdown(int rank, double factor, boolean spin) {
    /** No rank slowed. */
    public static final Slowdown NONE = new Slowdown(-1, 1, false);

    public Slowdown {
        if (!(factor >= 1)) {
            throw new IllegalArgumentException("slowdown factor must be >= 1, got " + factor);
        }
    }

    /** Parses {@code RANK:FACTOR[:spin|sleep]}. */
    public static Slowdown parse(String spec) {
        String[] p = spec.split(":");
        if (p.length < 2 || p.length > 3) {
            throw new IllegalArgumentException("--slow must be RANK:FACTOR[:spin|sleep], got '" + spec + "'");
        }
        try {
            boolean spin = p.length == 3 && switch (p[2].toLowerCase(Locale.ROOT)) {
                case "spin" -> true;
                case "sleep" -> false;
                default -> throw new IllegalArgumentException("--slow mode must be spin or sleep, got '" + p[2] + "'");
            };
            return new Slowdown(Integer.parseInt(p[0]), Double.parseDouble(p[1]), spin);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--slow must be RANK:FACTOR[:spin|sleep], got '" + spec + "'", e);
        }
    }

    /** True if {@code r} is the slowed rank. */
    public boolean slows(int r) {
        return r == rank && factor > 1;
    }

    /** Called by the slowed rank after a computation of {@code computeNanos}: adds the extra time. */
    public void after(long computeNanos) {
        long extra = (long) ((factor - 1) * computeNanos);
        long end = System.nanoTime() + extra;
        if (spin) {
            while (System.nanoTime() - end < 0) {
                Thread.onSpinWait();
            }
        } else {
            LockSupport.parkNanos(extra);
            // parking may end early (spurious wake-up); the rest is waited out
            while (System.nanoTime() - end < 0) {
                LockSupport.parkNanos(end - System.nanoTime());
            }
        }
    }

    @Override
    public String toString() {
        return rank < 0 ? "none" : "rank " + rank + " x" + factor + (spin ? " (busy loop)" : " (lower CPU share)");
    }
}
