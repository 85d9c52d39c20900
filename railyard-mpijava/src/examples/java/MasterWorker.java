import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import mpi.MPI;
import mpi.Status;

/**
 * A task farm in the style of an MPJ Express program: rank 0 hands out tasks (Java objects, sent
 * with MPI.OBJECT) to whichever worker is free, collecting results with ANY_SOURCE, and tells the
 * workers to stop when the work is done. The tasks count the primes in ranges of integers; the
 * master checks the total against a count of its own.
 *
 * <pre>
 * railyard run -np 4 -cp examples.jar MasterWorker [limit, default 2000000] [tasks, default 40]
 * </pre>
 */
public class MasterWorker {
    private static final int TAG_TASK = 1;
    private static final int TAG_RESULT = 2;
    private static final int TAG_STOP = 3;

    /** A range of integers to search for primes. */
    static final class Task implements Serializable {
        private static final long serialVersionUID = 1L;
        final int id;
        final long from;
        final long to;

        Task(int id, long from, long to) {
            this.id = id;
            this.from = from;
            this.to = to;
        }
    }

    /** The primes found in a task's range, with the largest one and who computed it. */
    static final class Result implements Serializable {
        private static final long serialVersionUID = 1L;
        final int taskId;
        final long primes;
        final long largest;
        final int worker;

        Result(int taskId, long primes, long largest, int worker) {
            this.taskId = taskId;
            this.primes = primes;
            this.largest = largest;
            this.worker = worker;
        }
    }

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        long limit = rest.length > 0 ? Long.parseLong(rest[0]) : 2_000_000L;
        int tasks = rest.length > 1 ? Integer.parseInt(rest[1]) : 40;
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        if (size < 2) {
            System.err.println("MasterWorker needs at least 2 processes");
            MPI.COMM_WORLD.Abort(2);
        }
        if (rank == 0) {
            master(limit, tasks, size);
        } else {
            worker(rank);
        }
        MPI.Finalize();
    }

    private static void master(long limit, int tasks, int size) {
        List<Task> todo = new ArrayList<>();
        for (int t = 0; t < tasks; t++) {
            todo.add(new Task(t, limit * t / tasks, limit * (t + 1) / tasks));
        }
        double t0 = MPI.Wtime();
        int next = 0;
        int busy = 0;
        for (int w = 1; w < size && next < todo.size(); w++) {
            MPI.COMM_WORLD.Send(new Object[] {todo.get(next++)}, 0, 1, MPI.OBJECT, w, TAG_TASK);
            busy++;
        }
        long primes = 0;
        long largest = 0;
        int[] perWorker = new int[size];
        Object[] in = new Object[1];
        while (busy > 0) {
            Status s = MPI.COMM_WORLD.Recv(in, 0, 1, MPI.OBJECT, MPI.ANY_SOURCE, TAG_RESULT);
            Result r = (Result) in[0];
            primes += r.primes;
            largest = Math.max(largest, r.largest);
            perWorker[s.source]++;
            busy--;
            if (next < todo.size()) {
                MPI.COMM_WORLD.Send(new Object[] {todo.get(next++)}, 0, 1, MPI.OBJECT, s.source, TAG_TASK);
                busy++;
            }
        }
        for (int w = 1; w < size; w++) {
            MPI.COMM_WORLD.Send(new Object[0], 0, 0, MPI.OBJECT, w, TAG_STOP);
        }
        double elapsed = MPI.Wtime() - t0;
        long check = count(0, limit)[0];
        StringBuilder who = new StringBuilder();
        for (int w = 1; w < size; w++) {
            who.append(w == 1 ? "" : " ").append(perWorker[w]);
        }
        System.out.printf("%d tasks on %d workers (tasks per worker: %s) in %.3f s%n", tasks, size - 1, who, elapsed);
        System.out.println("primes below " + limit + ": " + primes + ", largest " + largest
                + (primes == check ? " (checked)" : " (WRONG: expected " + check + ")"));
    }

    private static void worker(int rank) {
        Object[] in = new Object[1];
        while (true) {
            Status s = MPI.COMM_WORLD.Probe(0, MPI.ANY_TAG);
            if (s.tag == TAG_STOP) {
                MPI.COMM_WORLD.Recv(in, 0, 0, MPI.OBJECT, 0, TAG_STOP);
                return;
            }
            MPI.COMM_WORLD.Recv(in, 0, 1, MPI.OBJECT, 0, TAG_TASK);
            Task t = (Task) in[0];
            long[] c = count(t.from, t.to);
            MPI.COMM_WORLD.Send(new Object[] {new Result(t.id, c[0], c[1], rank)}, 0, 1, MPI.OBJECT, 0, TAG_RESULT);
        }
    }

    /** Number of primes in [from, to) and the largest of them (0 if none). */
    static long[] count(long from, long to) {
        long n = 0;
        long last = 0;
        for (long x = Math.max(2, from); x < to; x++) {
            boolean prime = true;
            for (long d = 2; d * d <= x; d++) {
                if (x % d == 0) {
                    prime = false;
                    break;
                }
            }
            if (prime) {
                n++;
                last = x;
            }
        }
        return new long[] {n, last};
    }
}
