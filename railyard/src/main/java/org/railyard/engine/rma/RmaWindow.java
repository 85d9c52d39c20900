package org.railyard.engine.rma;

import java.lang.foreign.MemorySegment;
import org.railyard.engine.Kind;
import org.railyard.engine.Transfer;
import org.railyard.engine.coll.Reduction;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/** The engine's side of one window (the api's {@code Window}); API stage: operations not built yet. */
public final class RmaWindow {
    public static final int LOCK_EXCLUSIVE = 1;
    public static final int LOCK_SHARED = 2;
    public static final int MODE_NOCHECK = 1;
    public static final int MODE_NOSTORE = 2;
    public static final int MODE_NOPUT = 4;
    public static final int MODE_NOPRECEDE = 8;
    public static final int MODE_NOSUCCEED = 16;

    private static RailyardException notYet() {
        return new RailyardException(ErrorClass.INTERNAL, "one-sided communication is not built yet");
    }

    public long attach(MemorySegment s) { throw notYet(); }
    public void detach(MemorySegment s) { throw notYet(); }
    public int flavor() { throw notYet(); }
    public long bytes() { throw notYet(); }
    public int dispUnit() { throw notYet(); }
    public int dispUnit(int rank) { throw notYet(); }
    public Object buffer() { throw notYet(); }
    public MemorySegment memory() { throw notYet(); }
    public MemorySegment sharedQuery(int rank) { throw notYet(); }
    public String name() { throw notYet(); }
    public void setName(String n) { throw notYet(); }
    public Transfer put(Object buf, int off, int count, Shape type, int target, long disp, int tcount, Shape ttype,
                        boolean request) { throw notYet(); }
    public Transfer get(Object buf, int off, int count, Shape type, int target, long disp, int tcount, Shape ttype,
                        boolean request) { throw notYet(); }
    public Transfer accumulate(Object buf, int off, int count, Shape type, int target, long disp, int tcount,
                               Shape ttype, Reduction op, boolean request) { throw notYet(); }
    public Transfer getAccumulate(Object buf, int off, int count, Shape type, Object result, int roff, int rcount,
                                  Shape rtype, int target, long disp, int tcount, Shape ttype, Reduction op,
                                  boolean request) { throw notYet(); }
    public void fetchAndOp(Object buf, int off, Object result, int roff, Kind k, int target, long disp, Reduction op) {
        throw notYet();
    }
    public void compareAndSwap(Object buf, int off, Object compare, int coff, Object result, int roff, Kind k,
                               int target, long disp) { throw notYet(); }
    public void fence(int assertions) { throw notYet(); }
    public void post(int[] worldRanks, int assertions) { throw notYet(); }
    public void start(int[] worldRanks, int assertions) { throw notYet(); }
    public void complete() { throw notYet(); }
    public void waitFor() { throw notYet(); }
    public boolean test() { throw notYet(); }
    public void lock(int type, int target, int assertions) { throw notYet(); }
    public void unlock(int target) { throw notYet(); }
    public void lockAll(int assertions) { throw notYet(); }
    public void unlockAll() { throw notYet(); }
    public void flush(int target, boolean local) { throw notYet(); }
    public void flushAll(boolean local) { throw notYet(); }
    public void sync() { throw notYet(); }
    public void free() { throw notYet(); }
}
