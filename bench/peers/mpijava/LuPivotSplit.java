import mpi.MPI;

/**
 * LuPivot's kernel with stamps, to see where its time goes: the same steps as {@link LuPivot}, run
 * {@code reps} times in one job (the first cold, the later ones with the JIT warmer), each rank
 * printing per run: its kernel time; the time its main thread and its whole process spent on a
 * processor meanwhile, and the kernel's span in the JVM's uptime (to set against
 * {@code -XX:+PrintCompilation}); its time in Bcast as the root and as a receiver (in total, per
 * call, and a receiver's by quarter of the steps); for a receiver, the time from the root's entry
 * to its own return and how early it came, and, over the calls where it came first, how long
 * after the root's entry it returned (p50, p90: the wake-up); and its time between two Bcasts
 * (its update, and the pivot column when it owns the next one). The ranks' clocks are
 * {@code System.nanoTime}, one clock for every process of a Linux machine.
 *
 * <p>Usage: {@code LuPivotSplit [n, default 1000] [reps, default 2]}; compile it beside
 * LuPivot.java, against Railyard's facade or MPJ Express's mpj.jar alike. Not a check: the factors
 * are not compared with the sequential ones.
 */
public class LuPivotSplit {
    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        int n = rest.length > 0 ? Integer.parseInt(rest[0]) : 1000;
        int reps = rest.length > 1 ? Integer.parseInt(rest[1]) : 2;
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        for (int rep = 0; rep < reps; rep++) {
            int mine = 0;
            for (int j = rank; j < n; j += size) mine++;
            double[][] cols = new double[mine][];
            for (int c = 0; c < mine; c++) cols[c] = LuPivot.column(n, rank + c * size);
            double[] bcast = new double[n + 1];
            long[] enter = new long[n], leave = new long[n], done = new long[n];
            long[] rootEnter = new long[n];
            MPI.COMM_WORLD.Barrier();
            java.lang.management.ThreadMXBean tmx = java.lang.management.ManagementFactory.getThreadMXBean();
            com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
            long c0 = tmx.getCurrentThreadCpuTime(), p0 = os.getProcessCpuTime();
            long up0 = java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime();
            long t0 = System.nanoTime();
            for (int k = 0; k < n - 1; k++) {
                int owner = k % size;
                if (owner == rank) {
                    // LuPivot's pivot step: the row swapped in, the multipliers kept and sent
                    double[] col = cols[k / size];
                    int r = LuPivot.pivot(col, k, n);
                    LuPivot.swap(col, k, r);
                    bcast[0] = r;
                    for (int i = 1; i < n - k; i++) {
                        col[k + i] = col[k + i] / col[k];
                        bcast[i] = col[k + i];
                    }
                }
                int m = n - k - 1;
                enter[k] = System.nanoTime();
                MPI.COMM_WORLD.Bcast(bcast, 0, m + 1, MPI.DOUBLE, owner);
                leave[k] = System.nanoTime();
                int p = (int) bcast[0];
                int first = k + 1 <= rank ? 0 : (k + 1 - rank + size - 1) / size;
                for (int c = first; c < mine; c++) {
                    double[] a = cols[c];
                    LuPivot.swap(a, k, p);
                    double akj = a[k];
                    for (int i = k + 1; i < n; i++) a[i] = a[i] - bcast[1 + i - k - 1] * akj;
                }
                done[k] = System.nanoTime();
                if (owner == rank) rootEnter[k] = enter[k];
            }
            MPI.COMM_WORLD.Barrier();
            long t1 = System.nanoTime();
            long c1 = tmx.getCurrentThreadCpuTime(), p1 = os.getProcessCpuTime();
            System.out.printf("rep %d rank %d kernel from %d to %d ms of uptime%n", rep, rank, up0, java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime());
            System.out.printf("rep %d rank %d cpu: this thread %.0f ms, process %.0f ms, wall %.0f ms%n", rep, rank, (c1 - c0) * 1e-6, (p1 - p0) * 1e-6, (t1 - t0) * 1e-6);
            long[] re = new long[n];
            MPI.COMM_WORLD.Allreduce(rootEnter, 0, re, 0, n, MPI.LONG, MPI.SUM);
            // per rank: sum of bcast time as root / as leaf, compute (leave[k] -> enter[k+1]), gap root-enter -> leaf-leave
            double bRoot = 0, bLeaf = 0, comp = 0, gap = 0, early = 0; int nr = 0, nl = 0;
            double[] bq = new double[4]; // leaf bcast by quarter of k
            long[] wake = new long[n]; int nw = 0;
            for (int k = 0; k < n - 1; k++) {
                double b = (leave[k] - enter[k]) * 1e-6;
                if (k % size == rank) { bRoot += b; nr++; } else {
                    bLeaf += b; nl++; gap += (leave[k] - re[k]) * 1e-6;
                    early += (re[k] - enter[k]) * 1e-6; bq[4 * k / n] += b;
                    if (re[k] >= enter[k]) wake[nw++] = leave[k] - re[k]; }
                comp += ((k + 1 < n - 1 ? enter[k + 1] : done[k]) - leave[k]) * 1e-6;
            }
            java.util.Arrays.sort(wake, 0, nw);
            System.out.printf("rep %d rank %d leaf-first calls %d, wake after root's arrival p50 %.1f us p90 %.1f us%n", rep, rank, nw,
                nw > 0 ? wake[nw / 2] * 1e-3 : 0, nw > 0 ? wake[nw * 9 / 10] * 1e-3 : 0);
            System.out.printf("rep %d rank %d kernel %.3f s | bcast root %.1f ms (%d, %.1f us/call) leaf %.1f ms (%d, %.1f us/call; quarters %.0f %.0f %.0f %.0f ms) | gap root-enter->leaf-leave %.1f us/call, leaf early %.1f us/call | compute %.1f ms%n",
                rep, rank, (t1 - t0) * 1e-9, bRoot, nr, 1e3 * bRoot / Math.max(1, nr), bLeaf, nl, 1e3 * bLeaf / Math.max(1, nl),
                bq[0], bq[1], bq[2], bq[3], 1e3 * gap / Math.max(1, nl), 1e3 * early / Math.max(1, nl), comp);
        }
        MPI.Finalize();
    }
}
