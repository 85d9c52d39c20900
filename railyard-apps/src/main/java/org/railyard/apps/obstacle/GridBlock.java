package org.railyard.apps.obstacle;

/**
 * A box of the interior grid with one ghost layer on each side, and the projected Richardson sweep
 * over it. The sequential solver uses one block for the whole grid; each rank of the parallel solver
 * holds one block of the {@link Decomposition}.
 *
 * <p>Local index {@code (i, j, k)}, {@code 0 ≤ i ≤ nx+1} and so on, with the interior at
 * {@code 1..nx} and the ghost layers at {@code 0} and {@code nx+1}, is stored at
 * {@code i*sx + j*sy + k}. A ghost layer on the cube's boundary holds the Dirichlet value 0 and is
 * never written; one facing a neighbour block receives that neighbour's boundary layer before each
 * sweep that reads it.
 *
 * <p>Both the sequential and the parallel solver run exactly this code, with {@code φ} and {@code f}
 * evaluated at the same global coordinates, and Java evaluates double arithmetic exactly as written
 * (no fused multiply-add, no extended precision), so a synchronous parallel run reproduces the
 * sequential iterates bit for bit. The max-reductions of the stopping test are exact as well.
 */
final class GridBlock {
    /** Interior points along x, y, z. */
    final int nx, ny, nz;
    /** Global (0-based) index of the first interior point along x, y, z. */
    final int x0, y0, z0;
    /** Strides of i and j in the padded arrays (k is contiguous). */
    final int sx, sy;

    private double[] current;
    private double[] next;
    private final double[] obstacle;
    private final double[] source;
    private final double invH2;
    private final double delta;

    private double maxDiff;
    private double maxAbs;

    /** The block {@code rank} owns in {@code decomposition}. */
    static GridBlock of(ObstacleProblem problem, double delta, Decomposition decomposition, int rank) {
        return new GridBlock(problem, delta, decomposition.start(rank, 0), decomposition.count(rank, 0),
                decomposition.start(rank, 1), decomposition.count(rank, 1),
                decomposition.start(rank, 2), decomposition.count(rank, 2));
    }

    GridBlock(ObstacleProblem problem, double delta, int x0, int nx, int y0, int ny, int z0, int nz) {
        this.nx = nx;
        this.ny = ny;
        this.nz = nz;
        this.x0 = x0;
        this.y0 = y0;
        this.z0 = z0;
        this.sy = nz + 2;
        this.sx = (ny + 2) * sy;
        int size = (nx + 2) * sx;
        this.current = new double[size];
        this.next = new double[size];
        this.obstacle = new double[size];
        this.source = new double[size];
        double h = problem.h();
        this.invH2 = 1.0 / (h * h);
        this.delta = delta;
        for (int i = 1; i <= nx; i++) {
            double x = problem.coordinate(x0 + i - 1);
            for (int j = 1; j <= ny; j++) {
                double y = problem.coordinate(y0 + j - 1);
                for (int k = 1; k <= nz; k++) {
                    double z = problem.coordinate(z0 + k - 1);
                    int p = i * sx + j * sy + k;
                    obstacle[p] = problem.obstacle().at(x, y, z);
                    source[p] = problem.source().at(x, y, z);
                    // Start from the projection of 0: admissible, and 0 matches the boundary.
                    current[p] = Math.max(0.0, obstacle[p]);
                }
            }
        }
    }

    /** Interior points along {@code axis} (0 = x, 1 = y, 2 = z). */
    int extent(int axis) {
        return axis == 0 ? nx : axis == 1 ? ny : nz;
    }

    /**
     * The box {@code {i0, i1, j0, j1, k0, k1}} of the layer next to {@code face} (see
     * {@link Decomposition}): the interior boundary layer a neighbour needs ({@code ghost} false), or
     * the ghost layer that receives the neighbour's ({@code ghost} true).
     */
    int[] faceBox(int face, boolean ghost) {
        int axis = face >> 1;
        int extent = extent(axis);
        int layer = (face & 1) == 0 ? (ghost ? 0 : 1) : (ghost ? extent + 1 : extent);
        int[] box = {1, nx, 1, ny, 1, nz};
        box[2 * axis] = layer;
        box[2 * axis + 1] = layer;
        return box;
    }

    /** Number of points of a face layer: the product of the two other extents. */
    int faceSize(int face) {
        return switch (face >> 1) {
            case 0 -> ny * nz;
            case 1 -> nx * nz;
            default -> nx * ny;
        };
    }

    /**
     * Splits the interior into boxes {@code {i0, i1, j0, j1, k0, k1}} so that communication can
     * overlap computation: box 0 is the inner part, which reads no ghost layer that a neighbour
     * fills, and boxes 1 to 6 are the points next to a face with a neighbour ({@code
     * hasNeighbour[face]}), which can only be swept once the halos have arrived. The seven boxes
     * partition the interior exactly (some may be empty); this holds also for blocks one point thick.
     */
    int[][] sweepPlan(boolean[] hasNeighbour) {
        int[] lo = new int[3];
        int[] hi = new int[3];
        for (int a = 0; a < 3; a++) {
            int e = extent(a);
            // lo <= e + 1 and hi >= lo - 1 keep the low and high layers disjoint when e is 0 or 1.
            lo[a] = Math.min(hasNeighbour[2 * a] ? 2 : 1, e + 1);
            hi[a] = Math.max(hasNeighbour[2 * a + 1] ? e - 1 : e, lo[a] - 1);
        }
        return new int[][] {
            {lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]},
            {1, lo[0] - 1, 1, ny, 1, nz},
            {hi[0] + 1, nx, 1, ny, 1, nz},
            {lo[0], hi[0], 1, lo[1] - 1, 1, nz},
            {lo[0], hi[0], hi[1] + 1, ny, 1, nz},
            {lo[0], hi[0], lo[1], hi[1], 1, lo[2] - 1},
            {lo[0], hi[0], lo[1], hi[1], hi[2] + 1, nz},
        };
    }

    /** Starts an iteration: the sweeps that follow accumulate its maxima from zero. */
    void beginIteration() {
        maxDiff = 0.0;
        maxAbs = 0.0;
    }

    /**
     * One projected Richardson update of the points of the box {@code [i0,i1]×[j0,j1]×[k0,k1]}
     * (local interior indices, inclusive; empty if a bound is reversed), reading the current iterate
     * and writing the next one. Points are independent (Jacobi), so boxes may be swept in any order.
     */
    void sweep(int i0, int i1, int j0, int j1, int k0, int k1) {
        final double[] u = current;
        final double[] v = next;
        final double[] phi = obstacle;
        final double[] f = source;
        final int sx = this.sx;
        final int sy = this.sy;
        final double invH2 = this.invH2;
        final double delta = this.delta;
        double md = maxDiff;
        double ma = maxAbs;
        for (int i = i0; i <= i1; i++) {
            for (int j = j0; j <= j1; j++) {
                int row = i * sx + j * sy;
                for (int p = row + k0, end = row + k1; p <= end; p++) {
                    double c = u[p];
                    double au = (6.0 * c - (u[p - sx] + u[p + sx] + u[p - sy] + u[p + sy] + u[p - 1] + u[p + 1])) * invH2;
                    double w = Math.max(c - delta * (au - f[p]), phi[p]);
                    v[p] = w;
                    md = Math.max(md, Math.abs(w - c));
                    ma = Math.max(ma, Math.abs(w));
                }
            }
        }
        maxDiff = md;
        maxAbs = ma;
    }

    /** Sweeps the whole interior. */
    void sweepAll() {
        sweep(1, nx, 1, ny, 1, nz);
    }

    /** Sweeps a box {@code {i0, i1, j0, j1, k0, k1}}, as {@link #sweepPlan} and {@link #faceBox} give them. */
    void sweep(int[] box) {
        sweep(box[0], box[1], box[2], box[3], box[4], box[5]);
    }

    /**
     * Copies a box {@code {i0, i1, j0, j1, k0, k1}} to or from the start of {@code buf}, as the
     * {@linkplain #copyBox(double[], int, int, int, int, int, int, int, boolean) long form}.
     */
    int copyBox(double[] buf, int[] box, boolean toBuffer) {
        return copyBox(buf, 0, box[0], box[1], box[2], box[3], box[4], box[5], toBuffer);
    }

    /** Ends an iteration: the next iterate becomes the current one (the arrays swap, nothing is copied). */
    void endIteration() {
        double[] t = current;
        current = next;
        next = t;
    }

    /** Writes both iterate arrays (ghost planes included), for a checkpoint. */
    void save(java.io.DataOutputStream out) throws java.io.IOException {
        for (double[] a : new double[][] {current, next}) {
            for (double v : a) {
                out.writeDouble(v);
            }
        }
    }

    /** Reads back what {@link #save} wrote, bit for bit. */
    void load(java.io.DataInputStream in) throws java.io.IOException {
        for (double[] a : new double[][] {current, next}) {
            for (int i = 0; i < a.length; i++) {
                a[i] = in.readDouble();
            }
        }
    }

    /** {@code max |u^{k+1} - u^k|} over the points swept since {@link #beginIteration}. */
    double maxDiff() {
        return maxDiff;
    }

    /** {@code max |u^{k+1}|} over the points swept since {@link #beginIteration}. */
    double maxAbs() {
        return maxAbs;
    }

    /**
     * Copies the box {@code [i0,i1]×[j0,j1]×[k0,k1]} (local indices, ghosts allowed) of the current
     * iterate into {@code buf} from {@code offset} ({@code toBuffer}), or from {@code buf} into the
     * box, in i, j, k order. Returns the number of values moved.
     */
    int copyBox(double[] buf, int offset, int i0, int i1, int j0, int j1, int k0, int k1, boolean toBuffer) {
        final double[] u = current;
        int rowLength = k1 - k0 + 1;
        if (rowLength <= 0) {
            return 0;
        }
        int o = offset;
        for (int i = i0; i <= i1; i++) {
            for (int j = j0; j <= j1; j++) {
                int p = i * sx + j * sy + k0;
                if (toBuffer) {
                    System.arraycopy(u, p, buf, o, rowLength);
                } else {
                    System.arraycopy(buf, o, u, p, rowLength);
                }
                o += rowLength;
            }
        }
        return o - offset;
    }

    /** Copies the interior of the current iterate into {@code buf} ({@code nx*ny*nz} values, k fastest). */
    int packInterior(double[] buf) {
        return copyBox(buf, 0, 1, nx, 1, ny, 1, nz, true);
    }

    /**
     * Writes a block's packed interior ({@code buf}, as from {@link #packInterior}) into the packed
     * {@code n^3} array {@code global} at global offsets {@code (gx, gy, gz)}.
     */
    static void unpackInto(double[] global, int n, double[] buf, int gx, int lx, int gy, int ly, int gz, int lz) {
        int o = 0;
        for (int i = 0; i < lx; i++) {
            for (int j = 0; j < ly; j++) {
                System.arraycopy(buf, o, global, ((gx + i) * n + gy + j) * n + gz, lz);
                o += lz;
            }
        }
    }

    /** Current iterate at local interior index (1-based, as stored). */
    double valueAt(int i, int j, int k) {
        return current[i * sx + j * sy + k];
    }
}
