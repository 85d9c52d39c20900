import mpi.Cartcomm;
import mpi.Datatype;
import mpi.MPI;
import mpi.ShiftParms;

/**
 * Steady heat in a square plate (Laplace's equation) by Jacobi iteration, in the style of an MPJ
 * Express program: the grid is split in blocks over a two-dimensional Cartesian topology
 * (Dims_create, Create_cart), each iteration exchanges one-cell halos with the four neighbours
 * (Shift and Sendrecv; the east and west halos are columns, sent with a Vector datatype), and a
 * global residual (Allreduce MAX) tells when to stop. The plate is held at 100 on its top edge and
 * 0 elsewhere.
 *
 * <p>At the end every process sends its block to rank 0 (a Vector datatype again, for the
 * interior of the block), and rank 0 runs the same iterations on the whole plate alone and
 * compares: Jacobi computes each cell from the same four values whatever the decomposition, so
 * the two must agree exactly.
 *
 * <pre>
 * railyard run -np 4 -cp examples.jar Jacobi2D [cells per side, default 96] [iterations, default 400]
 * </pre>
 */
public class Jacobi2D {
    private static final int TAG_HALO = 1;
    private static final int TAG_BLOCK = 2;

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        int n = rest.length > 0 ? Integer.parseInt(rest[0]) : 96;
        int iterations = rest.length > 1 ? Integer.parseInt(rest[1]) : 400;
        int size = MPI.COMM_WORLD.Size();

        int[] dims = {0, 0};
        Cartcomm.Dims_create(size, dims);
        Cartcomm grid = MPI.COMM_WORLD.Create_cart(dims, new boolean[] {false, false}, true);
        int rank = grid.Rank();
        int[] coords = grid.Coords(rank);

        // This block: rows [r0, r1) and columns [c0, c1) of the n x n interior, plus a halo ring.
        int r0 = coords[0] * n / dims[0];
        int r1 = (coords[0] + 1) * n / dims[0];
        int c0 = coords[1] * n / dims[1];
        int c1 = (coords[1] + 1) * n / dims[1];
        int rows = r1 - r0;
        int cols = c1 - c0;
        int w = cols + 2;
        double[] u = new double[(rows + 2) * w];
        double[] next = new double[(rows + 2) * w];
        if (coords[0] == 0) {
            for (int j = 0; j < w; j++) {
                u[j] = 100.0; // the hot top edge is the halo row above the first block row
                next[j] = 100.0;
            }
        }
        Datatype column = Datatype.Vector(rows, 1, w, MPI.DOUBLE);
        column.Commit();
        ShiftParms vertical = grid.Shift(0, 1);
        ShiftParms horizontal = grid.Shift(1, 1);

        double t0 = MPI.Wtime();
        double residual = 0;
        for (int it = 0; it < iterations; it++) {
            // Halos: first row down / last row up, first column right / last column left.
            grid.Sendrecv(u, rows * w + 1, cols, MPI.DOUBLE, vertical.rank_dest, TAG_HALO,
                    u, 1, cols, MPI.DOUBLE, vertical.rank_source, TAG_HALO);
            grid.Sendrecv(u, w + 1, cols, MPI.DOUBLE, vertical.rank_source, TAG_HALO,
                    u, (rows + 1) * w + 1, cols, MPI.DOUBLE, vertical.rank_dest, TAG_HALO);
            grid.Sendrecv(u, w + cols, 1, column, horizontal.rank_dest, TAG_HALO,
                    u, w, 1, column, horizontal.rank_source, TAG_HALO);
            grid.Sendrecv(u, w + 1, 1, column, horizontal.rank_source, TAG_HALO,
                    u, w + cols + 1, 1, column, horizontal.rank_dest, TAG_HALO);
            double local = sweep(u, next, rows, cols);
            double[] u2 = u;
            u = next;
            next = u2;
            double[] max = new double[1];
            grid.Allreduce(new double[] {local}, 0, max, 0, 1, MPI.DOUBLE, MPI.MAX);
            residual = max[0];
        }
        double elapsed = MPI.Wtime() - t0;

        // Rank 0 collects the blocks' interiors and checks them against a sequential solve.
        Datatype interior = Datatype.Vector(rows, cols, w, MPI.DOUBLE);
        interior.Commit();
        int[] box = {r0, r1, c0, c1};
        if (rank != 0) {
            grid.Send(box, 0, 4, MPI.INT, 0, TAG_BLOCK);
            grid.Send(u, w + 1, 1, interior, 0, TAG_BLOCK);
        } else {
            double[] all = new double[n * n];
            place(all, n, u, box);
            for (int src = 1; src < size; src++) {
                int[] b = new int[4];
                grid.Recv(b, 0, 4, MPI.INT, src, TAG_BLOCK);
                double[] block = new double[(b[1] - b[0]) * (b[3] - b[2])];
                grid.Recv(block, 0, block.length, MPI.DOUBLE, src, TAG_BLOCK);
                for (int i = 0; i < b[1] - b[0]; i++) {
                    System.arraycopy(block, i * (b[3] - b[2]), all, (b[0] + i) * n + b[2], b[3] - b[2]);
                }
            }
            double[] seq = sequential(n, iterations);
            double diff = 0;
            double centre = all[(n / 2) * n + n / 2];
            for (int i = 0; i < n * n; i++) {
                diff = Math.max(diff, Math.abs(all[i] - seq[i]));
            }
            System.out.printf("grid %dx%d on %dx%d processes, %d iterations, residual %.3e, %.3f s%n", n, n, dims[0],
                    dims[1], iterations, residual, elapsed);
            System.out.printf("temperature at the centre %.6f%n", centre);
            System.out.println("max |parallel - sequential| = " + diff);
        }
        MPI.Finalize();
    }

    /** One Jacobi sweep over the interior of a block with halos; returns the largest change. */
    static double sweep(double[] u, double[] next, int rows, int cols) {
        int w = cols + 2;
        double change = 0;
        for (int i = 1; i <= rows; i++) {
            for (int j = 1; j <= cols; j++) {
                int k = i * w + j;
                double v = 0.25 * (u[k - w] + u[k + w] + u[k - 1] + u[k + 1]);
                change = Math.max(change, Math.abs(v - u[k]));
                next[k] = v;
            }
        }
        return change;
    }

    private static void place(double[] all, int n, double[] u, int[] b) {
        int cols = b[3] - b[2];
        for (int i = 0; i < b[1] - b[0]; i++) {
            System.arraycopy(u, (i + 1) * (cols + 2) + 1, all, (b[0] + i) * n + b[2], cols);
        }
    }

    /** The same iterations on the whole plate, by one process. */
    static double[] sequential(int n, int iterations) {
        int w = n + 2;
        double[] u = new double[w * w];
        double[] next = new double[w * w];
        for (int j = 0; j < w; j++) {
            u[j] = 100.0;
            next[j] = 100.0;
        }
        for (int it = 0; it < iterations; it++) {
            sweep(u, next, n, n);
            double[] t = u;
            u = next;
            next = t;
        }
        double[] out = new double[n * n];
        for (int i = 0; i < n; i++) {
            System.arraycopy(u, (i + 1) * w + 1, out, i * n, n);
        }
        return out;
    }
}
