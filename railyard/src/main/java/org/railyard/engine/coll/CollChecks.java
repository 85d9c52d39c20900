package org.railyard.engine.coll;

import org.railyard.types.Reduction;

import org.railyard.types.Kind;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * The argument checks of the collectives: each failure is a {@link RailyardException} whose
 * message names the collective, the argument and what was wrong. A check that passes allocates
 * nothing (names are built only to report an error).
 */
final class CollChecks {
    private CollChecks() {
    }

    /**
     * On an intercommunicator, true if this process is in the group opposite the root (it names
     * the root's rank in the other group, which must exist); false at the root ({@link Collectives#ROOT})
     * and the rest of its group ({@link CommState#PROC_NULL}).
     */
    static boolean interSender(CommState c, int root) {
        if (root == Collectives.ROOT || root == CommState.PROC_NULL) {
            return false;
        }
        checkRoot(c, root);
        return true;
    }

    static void checkRoot(CommState c, int root) {
        if (root < 0 || root >= c.size()) {
            throw new RailyardException(ErrorClass.RANK, "root rank " + root + " is out of range [0, " + c.size()
                    + ") for communicator " + c.name());
        }
    }

    static void checkBuffer(String what, Object buf, Kind k, int off, int count) {
        checkBuffer(what, null, -1, buf, k, off, count);
    }

    /**
     * Checks the buffer of one block, named {@code what + block + " " + r} in an error (or
     * {@code what} alone when {@code block} is null). The name is built only to report an error:
     * a collective that checks p blocks a call allocates nothing for it.
     */
    static void checkBuffer(String what, String block, int r, Object buf, Kind k, int off, int count) {
        if (k == null) {
            throw new RailyardException(ErrorClass.TYPE, name(what, block, r) + " datatype is null");
        }
        try {
            k.checkRange(buf, off, count);
        } catch (RailyardException e) {
            throw new RailyardException(e.errorClass(), name(what, block, r) + ": " + e.getMessage());
        }
        if ((long) count * k.size > Integer.MAX_VALUE) {
            throw new RailyardException(ErrorClass.COUNT, name(what, block, r) + " of " + (long) count * k.size
                    + " bytes is larger than the limit of " + Integer.MAX_VALUE + " bytes");
        }
    }

    static String name(String what, String block, int r) {
        return block == null ? what : r < 0 ? what + block : what + block + " " + r;
    }

    /**
     * Checks one block per rank (counts and displacements in elements, relative to {@code off});
     * errors name them the receive (or send) blocks of {@code what}.
     */
    static void checkBlocks(String what, boolean receive, Object buf, Kind k, int off, int[] counts, int[] displs,
                            int p) {
        String side = receive ? " receive" : " send";
        if (counts == null || counts.length < p || (displs != null && displs.length < p)) {
            throw new RailyardException(ErrorClass.ARG, what + side + ": counts and displacements need " + p + " entries");
        }
        for (int r = 0; r < p; r++) {
            if (counts[r] < 0) {
                throw new RailyardException(ErrorClass.COUNT, what + side + ": count " + counts[r] + " for rank " + r
                        + " is negative");
            }
            if (counts[r] > 0) {
                checkBuffer(what, receive ? " receive block of rank" : " send block of rank", r, buf, k,
                        off + (displs == null ? 0 : displs[r]), counts[r]);
            }
        }
    }

    static void checkOp(Reduction op, Kind k, long count) {
        if (op == null) {
            throw new RailyardException(ErrorClass.OP, "operation is null");
        }
        if (count % op.width() != 0) {
            throw new RailyardException(ErrorClass.COUNT, "count " + count + " is not a whole number of " + op.name()
                    + " items of " + op.width() + " elements");
        }
    }

    /** The root's view of a vector it reduces into: the receive buffer itself if it is a Java array of the kind. */
    static boolean direct(Object buf, Kind k) {
        return buf != null && CollSchedule.isArray(buf) && Kind.ofBuffer(buf) == k;
    }

    static long sum(int[] counts, int p) {
        long s = 0;
        for (int i = 0; i < p; i++) {
            s += counts[i];
        }
        return s;
    }

    /** {@code count} for each rank of the local group; an array shared between calls, only read. */
    static int[] blocks(CommState c, int count) {
        return CollTree.regular(c.localSize(), count)[0];
    }

    /**
     * Where each of the first {@code p} blocks of {@code counts} starts when they lie end to end;
     * entry p is the total. In an int array that schedule {@code s} keeps for its next use.
     */
    static int[] starts(CollSchedule s, int[] counts, int p) {
        int[] starts = s.ints(p + 1);
        starts[0] = 0;
        for (int r = 0; r < p; r++) {
            starts[r + 1] = starts[r] + counts[r];
        }
        return starts;
    }

    static void checkSame(String what, int scount, Kind sk, int rcount, Kind rk) {
        if ((long) scount * sk.size != (long) rcount * rk.size) {
            throw new RailyardException(ErrorClass.COUNT, what + ": the root's send block (" + scount + " " + sk
                    + ") and receive block (" + rcount + " " + rk + ") differ in size");
        }
    }

    static Kind[] same(Kind k, int n) {
        Kind[] ks = new Kind[n];
        java.util.Arrays.fill(ks, k);
        return ks;
    }

    static void checkType(String what, Kind k) {
        if (k == null) {
            throw new RailyardException(ErrorClass.TYPE, what + " datatype is null");
        }
    }

    /** Checks that an array of {@code entries} (-1: null) covers the {@code n} neighbours of this process. */
    static void checkNeighbourEntries(String what, ErrorClass ec, int entries, CommState c, int n) {
        if (Math.max(entries, 0) < n) {
            throw new RailyardException(ec, what + (entries < 0 ? " are null" : " have " + entries + " entries")
                    + " but rank " + c.rank + " of " + c.name() + " has " + n + " neighbours");
        }
    }

    static void checkNeighbourTypes(String what, CommState c, Kind[] ks, int n) {
        checkNeighbourEntries(what + " types", ErrorClass.TYPE, ks == null ? -1 : ks.length, c, n);
        for (int j = 0; j < n; j++) {
            if (ks[j] == null) {
                throw new RailyardException(ErrorClass.TYPE, what + " datatype for neighbour " + j + " is null");
            }
        }
    }

    /**
     * Checks one block per neighbour: {@code counts} and {@code displs} have an entry for each of
     * the {@code n} neighbours, no count is negative, and every non-empty block
     * ({@code counts[j]} elements of {@code ks[j]} at {@code off + displs[j]}) lies inside
     * {@code buf}. Blocks of {@link CommState#PROC_NULL} neighbours are checked too. Returns the bytes
     * of all blocks.
     */
    static long checkNeighbourBlocks(String what, CommState c, Object buf, int off, int[] counts, int[] displs,
                                     Kind[] ks, int n) {
        checkNeighbourEntries(what + " counts", ErrorClass.ARG, counts == null ? -1 : counts.length, c, n);
        checkNeighbourEntries(what + " displacements", ErrorClass.ARG, displs == null ? -1 : displs.length, c, n);
        long bytes = 0;
        for (int j = 0; j < n; j++) {
            if (counts[j] < 0) {
                throw new RailyardException(ErrorClass.COUNT, what + ": count " + counts[j] + " for neighbour " + j
                        + " is negative");
            }
            if (counts[j] > 0) {
                // an offset past int range is reported as out of the buffer, not wrapped round
                int at = (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, (long) off + displs[j]));
                checkBuffer(what, " block of neighbour", j, buf, ks[j], at, counts[j]);
                bytes += (long) counts[j] * ks[j].size;
            }
        }
        return bytes;
    }
}
