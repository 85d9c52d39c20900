package org.railyard.types;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * A Cartesian grid of processes: {@code dims[d]} processes along dimension d, each dimension
 * periodic (a torus) or not. Ranks are laid out in row-major order: the last coordinate varies
 * fastest. Immutable.
 *
 * <p>Neighbours, in the order the neighbourhood collectives use: for each dimension d, the process
 * at -1 then the one at +1 along d ({@link #PROC_NULL} past the edge of a non-periodic
 * dimension).
 */
public final class CartTopology implements Topology {
    /** The rank a shift yields past the edge of a non-periodic dimension: MPI's PROC_NULL, equal to {@code Comm.PROC_NULL}. */
    public static final int PROC_NULL = -2;

    private final int[] dims;
    private final boolean[] periods;
    private final int size;

    public CartTopology(int[] dims, boolean[] periods) {
        if (dims.length != periods.length) {
            throw new RailyardException(ErrorClass.ARG, "dims has " + dims.length + " entries but periods has "
                    + periods.length);
        }
        if (dims.length > 127) {
            throw new RailyardException(ErrorClass.ARG, "a grid has at most 127 dimensions, not " + dims.length);
        }
        long n = 1;
        for (int d : dims) {
            if (d <= 0) {
                throw new RailyardException(ErrorClass.ARG, "grid dimension " + d + " in " + Arrays.toString(dims)
                        + " must be positive");
            }
            n *= d;
            if (n > Integer.MAX_VALUE) {
                throw new RailyardException(ErrorClass.ARG, "grid " + Arrays.toString(dims) + " is too large");
            }
        }
        this.dims = dims.clone();
        this.periods = periods.clone();
        this.size = (int) n;
    }

    @Override
    public int size() {
        return size;
    }

    public int ndims() {
        return dims.length;
    }

    public int[] dims() {
        return dims.clone();
    }

    public boolean[] periods() {
        return periods.clone();
    }

    /** Coordinates of {@code rank}. */
    public int[] coords(int rank) {
        if (rank < 0 || rank >= size) {
            throw new RailyardException(ErrorClass.RANK, "rank " + rank + " is not in the grid of " + size);
        }
        int[] c = new int[dims.length];
        for (int d = dims.length - 1; d >= 0; d--) {
            c[d] = rank % dims[d];
            rank /= dims[d];
        }
        return c;
    }

    /**
     * The rank at {@code coords}; a coordinate outside a periodic dimension wraps around, one
     * outside a non-periodic dimension is an error.
     */
    public int rank(int[] coords) {
        if (coords.length != dims.length) {
            throw new RailyardException(ErrorClass.ARG, "expected " + dims.length + " coordinates, got " + coords.length);
        }
        int r = 0;
        for (int d = 0; d < dims.length; d++) {
            int c = coords[d];
            if (c < 0 || c >= dims[d]) {
                if (!periods[d]) {
                    throw new RailyardException(ErrorClass.RANK, "coordinate " + c + " is outside non-periodic dimension "
                            + d + " of size " + dims[d]);
                }
                c = Math.floorMod(c, dims[d]);
            }
            r = r * dims[d] + c;
        }
        return r;
    }

    /**
     * The ranks {@code {source, dest}} of a shift by {@code disp} along dimension {@code dim} as
     * seen from {@code rank}: {@code dest} is {@code disp} steps ahead, {@code source} as many
     * behind; {@link #PROC_NULL} past the edge of a non-periodic dimension.
     */
    public int[] shift(int rank, int dim, int disp) {
        if (dim < 0 || dim >= dims.length) {
            throw new RailyardException(ErrorClass.ARG, "dimension " + dim + " is out of range [0, " + dims.length + ")");
        }
        int[] c = coords(rank);
        int here = c[dim];
        c[dim] = here - disp;
        int source = inside(c[dim], dim) ? rank(c) : PROC_NULL;
        c[dim] = here + disp;
        int dest = inside(c[dim], dim) ? rank(c) : PROC_NULL;
        return new int[] {source, dest};
    }

    private boolean inside(int c, int dim) {
        return periods[dim] || (c >= 0 && c < dims[dim]);
    }

    @Override
    public int[] neighbours(int rank) {
        int[] nb = new int[2 * dims.length];
        for (int d = 0; d < dims.length; d++) {
            int[] sd = shift(rank, d, 1);
            nb[2 * d] = sd[0];
            nb[2 * d + 1] = sd[1];
        }
        return nb;
    }

    /**
     * Fills the zero entries of {@code dims} so that the product of all entries is {@code nnodes}
     * and the filled ones are as close to each other as possible (the smallest spread between
     * largest and smallest, then the smallest largest), in non-increasing order. Entries already
     * positive are kept. Searches the non-increasing divisor sequences exhaustively (a few
     * hundred at most for realistic sizes), so the result is the most balanced one, not just what a
     * greedy prime-by-prime assignment happens to give. 12 over two free dimensions gives 4 x 3,
     * 72 over three gives 6 x 4 x 3, 7 over two gives 7 x 1.
     *
     * @return a new array; {@code dims} is not changed
     */
    public static int[] dimsCreate(int nnodes, int[] dims) {
        if (nnodes <= 0) {
            throw new RailyardException(ErrorClass.ARG, "number of nodes " + nnodes + " must be positive");
        }
        int[] out = dims.clone();
        long fixed = 1;
        int free = 0;
        for (int d : out) {
            if (d < 0) {
                throw new RailyardException(ErrorClass.ARG, "dims entry " + d + " must be positive or 0 (free)");
            }
            if (d == 0) {
                free++;
            } else {
                fixed *= d;
            }
        }
        if (fixed > nnodes || nnodes % fixed != 0) {
            throw new RailyardException(ErrorClass.ARG, "the fixed dims " + Arrays.toString(dims)
                    + " do not divide " + nnodes + " nodes");
        }
        int m = (int) (nnodes / fixed);
        if (free == 0) {
            if (m != 1) {
                throw new RailyardException(ErrorClass.ARG, "dims " + Arrays.toString(dims) + " hold " + fixed
                        + " nodes, not " + nnodes);
            }
            return out;
        }
        List<Integer> divisors = new ArrayList<>();
        for (int d = m; d >= 1; d--) {
            if (m % d == 0) {
                divisors.add(d);
            }
        }
        int[] best = new int[free];
        int[] cur = new int[free];
        best[0] = -1;
        search(divisors, m, 0, m, cur, best);
        int j = 0;
        for (int i = 0; i < out.length; i++) {
            if (out[i] == 0) {
                out[i] = best[j++];
            }
        }
        return out;
    }

    /** Depth-first over non-increasing divisor sequences whose product is {@code m}; keeps the best in {@code best}. */
    private static void search(List<Integer> divisors, int rest, int at, int max, int[] cur, int[] best) {
        int left = cur.length - at;
        if (left == 1) {
            if (rest > max) {
                return;
            }
            cur[at] = rest;
            int spread = cur[0] - rest;
            int bestSpread = best[0] < 0 ? Integer.MAX_VALUE : best[0] - best[best.length - 1];
            if (spread < bestSpread || (spread == bestSpread && cur[0] < best[0])) {
                System.arraycopy(cur, 0, best, 0, cur.length);
            }
            return;
        }
        for (int d : divisors) {
            if (d > max || rest % d != 0) {
                continue;
            }
            if (Math.pow(d, left) < rest) {
                break; // divisors are descending: smaller ones cannot cover the rest either
            }
            cur[at] = d;
            search(divisors, rest / d, at + 1, d, cur, best);
        }
    }

    @Override
    public String toString() {
        return "cart" + Arrays.toString(dims) + " periodic " + Arrays.toString(periods);
    }
}
