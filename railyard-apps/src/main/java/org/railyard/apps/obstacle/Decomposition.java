package org.railyard.apps.obstacle;

import java.util.Arrays;
import java.util.Locale;

/**
 * A Cartesian block decomposition of the {@code n^3} interior grid over {@code p} ranks, as in the
 * parallelepiped-based decomposition of seed 000, section IV: the ranks form a {@code px × py × pz}
 * process grid ({@code px·py·pz = p}); rank {@code r} has coordinates {@code (cx, cy, cz)} with
 * {@code r = (cx·py + cy)·pz + cz}, and owns along each axis the {@code c}-th of {@code parts}
 * contiguous ranges that split {@code n} as evenly as possible (the first {@code n mod parts} ranges
 * have one point more). When an axis has more parts than points, the last ranges are empty; a rank
 * with an empty block owns nothing, has no neighbours and is nobody's neighbour, but still takes part
 * in the collectives.
 *
 * <p>Faces are numbered {@code 2·axis + side}, {@code side} 0 towards lower and 1 towards higher
 * indices; {@link #opposite} of a face is the one across the same boundary.
 */
public final class Decomposition {
    /** Neighbour value for a face on the cube's boundary (or next to an empty block). */
    public static final int NONE = -1;
    /** Number of faces of a block. */
    public static final int FACES = 6;

    private final int n;
    private final int[] dims;

    /** A decomposition of the {@code n^3} grid over a {@code px × py × pz} process grid. */
    public Decomposition(int n, int px, int py, int pz) {
        if (n < 1) {
            throw new IllegalArgumentException("n must be >= 1, got " + n);
        }
        if (px < 1 || py < 1 || pz < 1) {
            throw new IllegalArgumentException("process grid dimensions must be >= 1, got " + px + "x" + py + "x" + pz);
        }
        this.n = n;
        this.dims = new int[] {px, py, pz};
    }

    /**
     * The decomposition named by {@code spec} for {@code ranks} ranks:
     * <ul>
     *   <li>{@code slab}: {@code p × 1 × 1}, planes of x; faces are contiguous in memory;</li>
     *   <li>{@code pencil}: the most balanced {@code a × b × 1};</li>
     *   <li>{@code block}: the most balanced {@code a × b × c} (least halo surface);</li>
     *   <li>{@code AxBxC}: exactly that process grid, whose product must be {@code ranks}.</li>
     * </ul>
     */
    public static Decomposition of(int n, int ranks, String spec) {
        if (ranks < 1) {
            throw new IllegalArgumentException("ranks must be >= 1, got " + ranks);
        }
        String s = spec.trim().toLowerCase(Locale.ROOT);
        int[] d = switch (s) {
            case "slab" -> new int[] {ranks, 1, 1};
            case "pencil" -> balancedFactors(n, ranks, 2);
            case "block" -> balancedFactors(n, ranks, 3);
            default -> parseDims(s, ranks);
        };
        return new Decomposition(n, d[0], d[1], d[2]);
    }

    private static int[] parseDims(String s, int ranks) {
        String[] parts = s.split("x");
        if (parts.length != 3) {
            throw new IllegalArgumentException("decomposition must be slab, pencil, block or AxBxC, got '" + s + "'");
        }
        int[] d = new int[3];
        try {
            for (int a = 0; a < 3; a++) {
                d[a] = Integer.parseInt(parts[a]);
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("decomposition must be slab, pencil, block or AxBxC, got '" + s + "'", e);
        }
        if ((long) d[0] * d[1] * d[2] != ranks) {
            throw new IllegalArgumentException("process grid " + s + " has " + ((long) d[0] * d[1] * d[2])
                    + " blocks but there are " + ranks + " ranks");
        }
        return d;
    }

    /**
     * The factorisation {@code p = a·b·c} with {@code a ≥ b ≥ c} ({@code c = 1} when {@code k = 2})
     * that minimises {@code a + b + c}, the total halo surface in units of {@code n^2} (the cut
     * planes number {@code (a-1) + (b-1) + (c-1)}), preferring those with no empty block
     * (no factor above {@code n}). The largest factor goes to x, whose faces are contiguous.
     */
    static int[] balancedFactors(int n, int p, int k) {
        int[] best = null;
        long bestScore = Long.MAX_VALUE;
        for (int a = 1; a <= p; a++) {
            if (p % a != 0) {
                continue;
            }
            int rest = p / a;
            for (int b = 1; b <= Math.min(a, rest); b++) {
                if (rest % b != 0) {
                    continue;
                }
                int c = rest / b;
                if (c > b || (k == 2 && c != 1)) {
                    continue;
                }
                boolean fits = a <= n;
                long score = (fits ? 0 : 1L << 40) + (long) a + b + c;
                if (score < bestScore) {
                    bestScore = score;
                    best = new int[] {a, b, c};
                }
            }
        }
        if (best == null) {
            // k = 2 always has (p, 1, 1); reaching here is a bug.
            throw new IllegalStateException("no factorisation of " + p + " into " + k + " factors");
        }
        return best;
    }

    /** Start of the {@code c}-th of {@code parts} near-equal ranges splitting {@code n}. */
    public static int rangeStart(int n, int parts, int c) {
        return c * (n / parts) + Math.min(c, n % parts);
    }

    /** Length of the {@code c}-th of {@code parts} near-equal ranges splitting {@code n}. */
    public static int rangeLength(int n, int parts, int c) {
        return n / parts + (c < n % parts ? 1 : 0);
    }

    /** Interior points per axis. */
    public int n() {
        return n;
    }

    /** Number of ranks, {@code px·py·pz}. */
    public int ranks() {
        return dims[0] * dims[1] * dims[2];
    }

    /** Parts along {@code axis}. */
    public int dim(int axis) {
        return dims[axis];
    }

    /** Coordinate of {@code rank} in the process grid along {@code axis}. */
    public int coord(int rank, int axis) {
        return switch (axis) {
            case 0 -> rank / (dims[1] * dims[2]);
            case 1 -> rank / dims[2] % dims[1];
            case 2 -> rank % dims[2];
            default -> throw new IllegalArgumentException("axis " + axis);
        };
    }

    /** The rank at process-grid coordinates {@code (cx, cy, cz)}. */
    public int rankAt(int cx, int cy, int cz) {
        return (cx * dims[1] + cy) * dims[2] + cz;
    }

    /** First global index along {@code axis} owned by {@code rank}. */
    public int start(int rank, int axis) {
        return rangeStart(n, dims[axis], coord(rank, axis));
    }

    /** Points along {@code axis} owned by {@code rank} (0 for an empty block). */
    public int count(int rank, int axis) {
        return rangeLength(n, dims[axis], coord(rank, axis));
    }

    /** Points owned by {@code rank}. */
    public int volume(int rank) {
        return count(rank, 0) * count(rank, 1) * count(rank, 2);
    }

    /** True if {@code rank} owns no point. */
    public boolean isEmpty(int rank) {
        return volume(rank) == 0;
    }

    /** The face across the same boundary as {@code face}. */
    public static int opposite(int face) {
        return face ^ 1;
    }

    /**
     * The rank owning the block across {@code face} of {@code rank}'s block, or {@link #NONE} on the
     * cube's boundary, next to an empty block, or for an empty block.
     */
    public int neighbour(int rank, int face) {
        if (isEmpty(rank)) {
            return NONE;
        }
        int axis = face >> 1;
        int c = coord(rank, axis) + ((face & 1) == 0 ? -1 : 1);
        if (c < 0 || c >= dims[axis] || rangeLength(n, dims[axis], c) == 0) {
            return NONE;
        }
        int[] cs = {coord(rank, 0), coord(rank, 1), coord(rank, 2)};
        cs[axis] = c;
        return rankAt(cs[0], cs[1], cs[2]);
    }

    /** The process grid, as {@code "2x2x1"}. */
    public String shape() {
        return dims[0] + "x" + dims[1] + "x" + dims[2];
    }

    @Override
    public String toString() {
        return "Decomposition[n=" + n + ", " + shape() + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Decomposition d && d.n == n && Arrays.equals(d.dims, dims);
    }

    @Override
    public int hashCode() {
        return 31 * n + Arrays.hashCode(dims);
    }
}
