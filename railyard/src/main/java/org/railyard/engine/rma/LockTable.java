package org.railyard.engine.rma;

/**
 * The passive-target lock of one window at its target: any number of shared holders, or one
 * exclusive holder. An origin that asked for the exclusive lock and waits keeps later shared
 * requests waiting, so a stream of shared lockers cannot starve it. Requests are retried by the
 * target's progress until granted; one lock per origin at a time (MPI's rule).
 */
final class LockTable {
    private int exclusive = -1;
    private int shared;
    private final boolean[] holdsShared;
    private final boolean[] waitsExclusive;
    private int exclusiveWaiters;

    LockTable(int members) {
        holdsShared = new boolean[members];
        waitsExclusive = new boolean[members];
    }

    /** True if {@code origin} now holds the lock of {@code type}; false: ask again later. */
    boolean tryAcquire(int origin, int type) {
        if (type == RmaWindow.LOCK_EXCLUSIVE) {
            if (exclusive < 0 && shared == 0) {
                exclusive = origin;
                if (waitsExclusive[origin]) {
                    waitsExclusive[origin] = false;
                    exclusiveWaiters--;
                }
                return true;
            }
            if (!waitsExclusive[origin]) {
                waitsExclusive[origin] = true;
                exclusiveWaiters++;
            }
            return false;
        }
        if (exclusive < 0 && exclusiveWaiters == 0) {
            holdsShared[origin] = true;
            shared++;
            return true;
        }
        return false;
    }

    /** Releases whatever {@code origin} holds or waits for (an unlock, or the origin failed). */
    void release(int origin) {
        if (exclusive == origin) {
            exclusive = -1;
        }
        if (holdsShared[origin]) {
            holdsShared[origin] = false;
            shared--;
        }
        if (waitsExclusive[origin]) {
            waitsExclusive[origin] = false;
            exclusiveWaiters--;
        }
    }

    @Override
    public String toString() {
        return exclusive >= 0 ? "exclusive by " + exclusive : shared + " shared";
    }
}
