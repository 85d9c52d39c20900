package org.railyard.engine.rma;

import java.lang.foreign.MemorySegment;
import org.railyard.error.RailyardException;
import org.railyard.types.Kind;
import org.railyard.wire.RmaHeader;

/**
 * The results of the small operations with a result (get, getAccumulate, fetchAndOp,
 * compareAndSwap) collected in one batch to one target ({@link Outbound}): where each result goes
 * at the origin, and the buffer of the one reply that brings them all ({@link RmaHeader#collected}).
 *
 * <p>Contract: results are laid out in the reply in the order they were added, each padded to
 * whole longs; {@link #longs} never exceeds the window's batch length. Used under the progress
 * lock only; reused (cleared) once delivered or dropped, so a warm batch allocates nothing here.
 */
final class Replies {
    /** Collected records any batch can hold at most (each is at least a header long). */
    static final int MAX = RmaHeader.BATCH_LONGS / RmaHeader.LONGS;

    /** Longs of a reply at most: the window's batch length ({@link RmaHeader#batchLongs}). */
    private final int cap;
    /** Collected records a batch of this window can hold at most. */
    private final int max;

    private final Object[] buf = new Object[MAX];
    private final int[] off = new int[MAX];
    private final Kind[] kind = new Kind[MAX];
    private final int[] values = new int[MAX];
    private final int[] at = new int[MAX];
    /** The request of each result that came from a request form ({@code rget}, {@code rgetAccumulate}), else null. */
    private final RmaRequest[] req = new RmaRequest[MAX];
    /** How many of the results have a request. */
    int requests;
    /** The reply's receive buffer (of any window's longest reply; this window's replies fill {@link #cap} at most). */
    final long[] reply = new long[RmaHeader.BATCH_LONGS];
    int count;
    /** Longs of the reply so far. */
    int longs;
    /** The reply's tag, the same in every collected record of the batch. */
    int tag;
    /** Where in the batch the last collected record starts (it is marked {@link RmaHeader#setLast} when sent). */
    int lastRecord;

    /** True if a result of {@code bytes} more bytes still fits the reply. */
    boolean fits(long bytes) {
        return count < max && longs + RmaHeader.resultLongs(bytes) <= cap;
    }

    /** The results of one batch of a window whose header messages are {@code cap} longs at most. */
    Replies(int cap) {
        this.cap = cap;
        this.max = cap / RmaHeader.LONGS;
    }

    /**
     * Adds the result of {@code n} values of kind {@code k}, to land in {@code dst} from element
     * {@code dstOff}, completing {@code r} (if not null) once it has.
     */
    void add(Object dst, int dstOff, Kind k, int n, RmaRequest r) {
        req[count] = r;
        requests += r != null ? 1 : 0;
        buf[count] = dst;
        off[count] = dstOff;
        kind[count] = k;
        values[count] = n;
        at[count] = 8 * longs;
        count++;
        longs += RmaHeader.resultLongs((long) n * k.size);
    }

    /** Copies every result from the reply that arrived into its buffer, in order, completing its request; then clears. */
    void deliver() {
        MemorySegment from = MemorySegment.ofArray(reply);
        for (int i = 0; i < count; i++) {
            kind[i].copyIn(from, at[i], buf[i], off[i], 0, (long) values[i] * kind[i].size);
            if (req[i] != null) {
                req[i].complete();
            }
        }
        clear();
    }

    /** The reply will not come: fails every request with {@code e}, then clears. */
    void fail(RailyardException e) {
        for (int i = 0; i < count; i++) {
            if (req[i] != null) {
                req[i].fail(e.errorClass(), e.getMessage());
            }
        }
        clear();
    }

    private void clear() {
        for (int i = 0; i < count; i++) {
            buf[i] = null;
            req[i] = null;
        }
        count = 0;
        longs = 0;
        requests = 0;
    }
}
