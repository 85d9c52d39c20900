import mpi.MPI;

/**
 * LU factorisation with partial pivoting of a dense n x n matrix, written against mpiJava 1.2 (Java 8
 * source) so that the same program runs unchanged on MPJ Express and on Railyard's {@code mpi}
 * facade; bench/compare-app.sh --mpijava times it on both.
 *
 * <p>Columns are dealt out cyclically (column j on rank j mod P). At step k the owner of column k
 * picks the pivot (the first largest |a(i,k)|, i >= k), swaps it into row k and computes the
 * multipliers; one Bcast carries the pivot row's index and the multipliers to every rank; each rank
 * swaps the two rows in its own columns and updates them. That is one broadcast per step, with less
 * and less to compute between two, the shape of the kernel in the issue.
 *
 * <p>Check: rank 0 factors the same matrix alone afterwards. Every element sees the same operations
 * in the same order, so the diagonal of U (gathered by a SUM of vectors that are zero outside each
 * rank's columns, exact) must equal the sequential one bit for bit.
 *
 * <p>Usage: {@code LuPivot [n, default 600]}. Rank 0 prints
 * {@code lu n N on P processes in T s, max |diagonal difference| D (checked|WRONG)}, T the
 * factorisation's time between two barriers, by {@code System.nanoTime}.
 */
public class LuPivot {
    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        int n = rest.length > 0 ? Integer.parseInt(rest[0]) : 600;
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        if (n < 1) {
            if (rank == 0) {
                System.err.println("LuPivot: n must be >= 1, got " + n);
            }
            MPI.Finalize();
            System.exit(2);
        }
        int mine = 0;
        for (int j = rank; j < n; j += size) {
            mine++;
        }
        // local column c is global column rank + c * size, stored contiguously
        double[][] cols = new double[mine][];
        for (int c = 0; c < mine; c++) {
            cols[c] = column(n, rank + c * size);
        }
        double[] bcast = new double[n + 1];

        MPI.COMM_WORLD.Barrier();
        // System.nanoTime, not MPI.Wtime: MPJ Express 0.44's Wtime is whole seconds
        long t0 = System.nanoTime();
        for (int k = 0; k < n - 1; k++) {
            int owner = k % size;
            int m = n - k - 1;
            if (owner == rank) {
                double[] a = cols[k / size];
                int p = pivot(a, k, n);
                swap(a, k, p);
                bcast[0] = p;
                for (int i = k + 1; i < n; i++) {
                    a[i] = a[i] / a[k];
                    bcast[1 + i - k - 1] = a[i];
                }
            }
            MPI.COMM_WORLD.Bcast(bcast, 0, m + 1, MPI.DOUBLE, owner);
            int p = (int) bcast[0];
            // this rank's columns right of k: local c from the first with rank + c * size > k
            int first = k + 1 <= rank ? 0 : (k + 1 - rank + size - 1) / size;
            for (int c = first; c < mine; c++) {
                double[] a = cols[c];
                swap(a, k, p);
                double akj = a[k];
                for (int i = k + 1; i < n; i++) {
                    a[i] = a[i] - bcast[1 + i - k - 1] * akj;
                }
            }
        }
        MPI.COMM_WORLD.Barrier();
        double elapsed = (System.nanoTime() - t0) * 1e-9;

        double[] diag = new double[n];
        for (int c = 0; c < mine; c++) {
            int j = rank + c * size;
            diag[j] = cols[c][j];
        }
        double[] all = new double[n];
        MPI.COMM_WORLD.Allreduce(diag, 0, all, 0, n, MPI.DOUBLE, MPI.SUM);
        if (rank == 0) {
            double[] expected = sequentialDiagonal(n);
            double worst = 0;
            boolean same = true;
            for (int i = 0; i < n; i++) {
                same &= Double.doubleToLongBits(all[i]) == Double.doubleToLongBits(expected[i]);
                worst = Math.max(worst, Math.abs(all[i] - expected[i]));
            }
            System.out.printf("lu n %d on %d processes in %.3f s, max |diagonal difference| %s (%s)%n", n, size,
                    elapsed, worst, same ? "checked" : "WRONG");
        }
        MPI.Finalize();
    }

    /** Column j of the matrix: pseudo-random entries in [-1, 1) from the indices alone. */
    static double[] column(int n, int j) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            long h = (i * 1_000_003L + j) * 0x9E3779B97F4A7C15L;
            h ^= h >>> 29;
            h *= 0xBF58476D1CE4E5B9L;
            h ^= h >>> 32;
            a[i] = (h >>> 11) * 0x1.0p-52 - 1.0;
        }
        return a;
    }

    /** The first row i >= k with the largest |a[i]|. */
    static int pivot(double[] a, int k, int n) {
        int p = k;
        for (int i = k + 1; i < n; i++) {
            if (Math.abs(a[i]) > Math.abs(a[p])) {
                p = i;
            }
        }
        return p;
    }

    static void swap(double[] a, int i, int j) {
        double t = a[i];
        a[i] = a[j];
        a[j] = t;
    }

    /** The diagonal of U from the same steps on one process. */
    static double[] sequentialDiagonal(int n) {
        double[][] cols = new double[n][];
        for (int j = 0; j < n; j++) {
            cols[j] = column(n, j);
        }
        double[] l = new double[n];
        for (int k = 0; k < n - 1; k++) {
            double[] a = cols[k];
            int p = pivot(a, k, n);
            swap(a, k, p);
            for (int i = k + 1; i < n; i++) {
                a[i] = a[i] / a[k];
                l[i] = a[i];
            }
            for (int j = k + 1; j < n; j++) {
                double[] b = cols[j];
                swap(b, k, p);
                double akj = b[k];
                for (int i = k + 1; i < n; i++) {
                    b[i] = b[i] - l[i] * akj;
                }
            }
        }
        double[] d = new double[n];
        for (int j = 0; j < n; j++) {
            d[j] = cols[j][j];
        }
        return d;
    }
}
