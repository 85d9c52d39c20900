package org.railyard.engine.coll;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.railyard.engine.Engine;
import org.railyard.engine.comm.CommState;
import org.railyard.types.Kind;
import org.railyard.types.Reduction;

/**
 * What the collective tests expect and how they check it: each rank's contribution, the
 * sequential fold every reduction must agree with (a non-commutative 2x2 matrix product among the
 * operations, so that rank order shows), forcing an algorithm, and checked bcast, allgather and
 * alltoall calls that look at every element and at the elements around the result.
 */
final class CollExpect {
    private CollExpect() {
    }

    /** 2x2 matrix product over longs (items of 4): associative, not commutative. */
    static final Reduction MATMUL = Reduction.of("MATMUL", false, 4, (k, in, inOff, inout, ioOff, n) -> {
        long[] a = (long[]) in;
        long[] b = (long[]) inout;
        for (int i = 0; i < n; i += 4) {
            long a0 = a[inOff + i], a1 = a[inOff + i + 1], a2 = a[inOff + i + 2], a3 = a[inOff + i + 3];
            long b0 = b[ioOff + i], b1 = b[ioOff + i + 1], b2 = b[ioOff + i + 2], b3 = b[ioOff + i + 3];
            b[ioOff + i] = a0 * b0 + a1 * b2;
            b[ioOff + i + 1] = a0 * b1 + a1 * b3;
            b[ioOff + i + 2] = a2 * b0 + a3 * b2;
            b[ioOff + i + 3] = a2 * b1 + a3 * b3;
        }
    });

    static long value(int rank, int i) {
        return (rank + 1) * 1_000_003L + i * 7L + (i % 5 == 0 ? -rank : rank * rank);
    }

    static long[] contribution(int rank, int n, Reduction op) {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            v[i] = op == MATMUL ? (i % 4 == 0 || i % 4 == 3 ? 1 : (rank * 31 + i) % 11 - 4) : value(rank, i);
        }
        return v;
    }

    /** v[lo] op v[lo+1] op ... op v[hi-1], folded sequentially. */
    static long[] fold(Reduction op, int lo, int hi, int n) {
        long[] acc = contribution(hi - 1, n, op);
        for (int r = hi - 2; r >= lo; r--) {
            op.apply(Kind.LONG, contribution(r, n, op), 0, acc, 0, n);
        }
        return acc;
    }

    /**
     * The roots a rooted collective of {@code count} elements is checked from: every rank for
     * counts up to 1000, where the shapes of the tree or ring relative to the root are what is
     * tested; for larger counts, whose size only adds segments or pieces to the same shapes, the
     * middle rank alone (relative ranks still wrap around).
     */
    static int[] roots(int n, int count) {
        if (count > 1000) {
            return new int[] {n / 2};
        }
        int[] all = new int[n];
        for (int r = 0; r < n; r++) {
            all[r] = r;
        }
        return all;
    }

    /**
     * Checks one element of a large result; as cheap as a comparison while they agree (an
     * assertion object per element made the largest cases cost seconds), and on a mismatch fails
     * naming {@code what} and the element's index.
     */
    static void expectElement(long actual, long expected, String what, long index) {
        if (actual != expected) {
            assertThat(actual).as("%s, element %d", what, index).isEqualTo(expected);
        }
    }

    static void force(Engine e, String coll, String algo) {
        e.collectives().tuning().force(coll, algo);
    }

    /** Broadcasts {@code count} longs from {@code root} into element 1 of a buffer; checks them and the two around. */
    static void bcastFromRoot(Collectives c, CommState w, int me, int count, int root, String what) {
        long[] b = new long[count + 2];
        if (me == root) {
            for (int i = 0; i < count; i++) {
                b[i + 1] = value(root, i);
            }
        }
        c.bcast(w, b, Kind.LONG, 1, count, root);
        String bcast = "bcast " + what + " count " + count + " root " + root;
        for (int i = 0; i < count; i++) {
            expectElement(b[i + 1], value(root, i), bcast, i);
        }
        assertThat(b[0]).isZero();
        assertThat(b[count + 1]).isZero();
    }

    /** Allgathers {@code count} longs from each of the {@code n} ranks and checks every block. */
    static void allgatherChecked(Collectives c, CommState w, int me, int n, int count, String what) {
        long[] all = new long[n * count];
        c.allgather(w, contribution(me, count, Reduction.SUM), 0, count, Kind.LONG, all, 0, count, Kind.LONG);
        for (int r = 0; r < n; r++) {
            assertThat(Arrays.copyOfRange(all, r * count, (r + 1) * count)).as("allgather %s count %d block %d", what, count, r)
                    .isEqualTo(contribution(r, count, Reduction.SUM));
        }
    }

    /** Alltoall of {@code count} longs between each pair of the {@code n} ranks; checks every element. */
    static void alltoallChecked(Collectives c, CommState w, int me, int n, int count, String what) {
        long[] send = new long[n * count];
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < count; i++) {
                send[r * count + i] = me * 1_000_000L + r * 1000L + i;
            }
        }
        long[] recv = new long[n * count];
        c.alltoall(w, send, 0, count, Kind.LONG, recv, 0, count, Kind.LONG);
        String alltoall = "alltoall " + what + " count " + count;
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < count; i++) {
                expectElement(recv[r * count + i], r * 1_000_000L + me * 1000L + i, alltoall, r * count + i);
            }
        }
    }

    /** How many times {@code part} stands in {@code text}. */
    static int occurrences(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }

    /**
     * An alltoall of {@code count} longs a block from native memory (a segment, or direct buffers
     * with {@code direct}; a heap array with {@code heap}) at an offset of one element, checked.
     */
    static void nativeAlltoallChecked(Collectives c, CommState w, int me, int n, int count, boolean direct,
                                              boolean heap, String what) {
        long cells = (long) n * count + 2;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment s = arena.allocate(8 * cells, 8);
            MemorySegment r = arena.allocate(8 * cells, 8);
            for (int q = 0; q < n; q++) {
                for (int i = 0; i < count; i++) {
                    s.setAtIndex(ValueLayout.JAVA_LONG, 1 + (long) q * count + i, me * 1_000_000L + q * 1000L + i);
                }
            }
            Object send = heap ? s.toArray(ValueLayout.JAVA_LONG)
                    : direct ? s.asByteBuffer().order(java.nio.ByteOrder.nativeOrder()) : s;
            Object recv = direct ? r.asByteBuffer().order(java.nio.ByteOrder.nativeOrder()) : r;
            c.alltoall(w, send, 1, count, Kind.LONG, recv, 1, count, Kind.LONG);
            for (int q = 0; q < n; q++) {
                String block = "alltoall of " + what + ", block from " + q;
                for (int i = 0; i < count; i++) {
                    expectElement(r.getAtIndex(ValueLayout.JAVA_LONG, 1 + (long) q * count + i),
                            q * 1_000_000L + me * 1000L + i, block, i);
                }
            }
            assertThat(r.getAtIndex(ValueLayout.JAVA_LONG, 0)).as("before the blocks, %s", what).isZero();
            assertThat(r.getAtIndex(ValueLayout.JAVA_LONG, cells - 1)).as("after the blocks, %s", what).isZero();
        }
    }
}
