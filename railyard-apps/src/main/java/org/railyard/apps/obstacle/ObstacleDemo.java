package org.railyard.apps.obstacle;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.UnaryOperator;
import org.railyard.Comm;
import org.railyard.Op;
import org.railyard.Railyard;

/**
 * The project's main demo: the 3D obstacle problem of seed 000, section IV, solved by the
 * distributed projected Richardson method, synchronous ({@link ParallelSolver}) or asynchronous
 * ({@link AsyncSolver}), on every rank of the job, then checked against the sequential solver on
 * rank 0.
 *
 * <pre>
 *   bin/railyard run -np 4 org.railyard.apps.obstacle.ObstacleDemo [options]
 * </pre>
 *
 * <p>The default grid, {@value #DEFAULT_N}^3, converges to the default tolerance in about 1300
 * iterations; on a 2-core machine with 4 ranks the parallel solve and the sequential check take
 * seconds each, and a {@code 64^3} grid (about 2100 iterations) a few times longer.
 *
 * <p><b>Agreement.</b> Both solvers run the same iteration with the same kernel ({@link GridBlock}):
 * every grid point sees the same double operations on the same operands in the same order, Java
 * double arithmetic is exactly reproducible, and the max-reductions of the stopping test are exact.
 * So the synchronous parallel solver must reproduce the sequential iterates bit for bit and stop at
 * the same iteration; the default agreement tolerance is therefore 0, and any difference at all
 * means a halo, decomposition or gathering error, not rounding. {@code --agree-tol} relaxes it for
 * experiments with schemes that do not reproduce the sequential order. The asynchronous scheme
 * cannot agree bitwise (its iterates depend on timing): its answer is the snapshot its detection
 * certified, and the demo checks that (1) the residual recomputed on rank 0 from the gathered
 * answer meets the tolerance, the sequential solver's own stopping test, and (2) the answer is
 * within {@code 2 tol |u|max rho/(1-rho)} of the sequential solution, {@code rho = cos(pi h)} the
 * contraction factor of {@link RichardsonSettings}: the distance two iterates that both pass the
 * test can be apart (unless {@code --agree-tol} says otherwise).
 *
 * <p>{@code --transport} and {@code --scheme} are read before the library starts: they set
 * {@code railyard.transports} and {@code railyard.scheme} for this process.
 *
 * <p>The report ends with one line for programs, {@code RESULT obstacle ...} (see {@link
 * #resultLine}), whose keys the C twin of the synchronous solver, {@code bench/peers/c/obstacle.c},
 * prints as well.
 *
 * <p>Exit status: 0 on success, 1 if the parallel and sequential solutions disagree, 2 on a usage
 * error; every rank exits with the same status.
 */
public final class ObstacleDemo {
    /** Default interior points per axis. */
    public static final int DEFAULT_N = 48;
    /** Default process grid; see {@link Decomposition#of}. */
    public static final String DEFAULT_DECOMP = "block";

    static final String USAGE = """
            usage: ObstacleDemo [options]
              --n N              interior grid points per axis (default %d)
              --tol T            relative successive-difference tolerance (default %s)
              --max-iter M       iteration bound (default %d)
              --check-every K    iterations between global convergence tests (default %d)
              --omega W          step delta = W h^2/6, 0 < W <= 1 (default 1)
              --decomp D         slab | pencil | block | AxBxC (default %s)
              --check            also solve sequentially on rank 0 and compare (default)
              --no-check         skip the sequential comparison
              --agree-tol X      largest accepted |parallel - sequential| (default 0: bitwise;
                                 async: the bound two iterates passing the test can differ by)
              --scheme S         sync (default) or async (asynchronous iterations, snapshot detection)
              --transport T      tcp, udp or shm: the transport between ranks (sets railyard.transports)
              --slow R:F[:M]     rank R runs F times slower (M: sleep, a lower CPU share, or spin)
              --chunk C          async: largest halo value, doubles (default over udp %d, a few
                                 datagrams; otherwise whole planes, up to the largest value)
              --halo H           sync: two-sided (default: sends and receives) or rma (puts into the
                                 neighbours' windows, each iteration's epoch ended by a fence)
              --kill R:K         rank R kills itself (SIGKILL) at the first convergence test after K
                                 iterations, in its first run only (with railyard run --relays 1
                                 --restart 1 it is started again and the answer is the same)
              --checkpoint-every K  each rank checkpoints its block and iteration count at the first
                                 convergence test past every K iterations (Railyard.checkpoint); a
                                 rank started again (railyard run --restart) goes on from there
              --quiet            no progress bar and no header
              --help             this text""".formatted(DEFAULT_N, RichardsonSettings.DEFAULT_TOLERANCE,
            RichardsonSettings.DEFAULT_MAX_ITERATIONS, RichardsonSettings.DEFAULT_CHECK_EVERY, DEFAULT_DECOMP,
            AsyncSolver.UDP_CHUNK);

    private ObstacleDemo() {
    }

    public static void main(String[] args) {
        configure(args);
        int status;
        try (Railyard ry = Railyard.init(args)) {
            status = run(ry.world(), args, System.out, System.err);
        }
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * Sets {@code railyard.transports} and {@code railyard.scheme} from {@code --transport} and
     * {@code --scheme} before the library starts (a malformed command line is reported later, by
     * {@link Options#parse}, on every rank alike).
     */
    static void configure(String[] args) {
        try {
            Options o = Options.parse(args);
            if (o.transport() != null) {
                System.setProperty("railyard.transports", o.transport());
            }
            System.setProperty("railyard.scheme", o.async() ? "async" : "sync");
        } catch (IllegalArgumentException e) {
            // reported by run()
        }
    }

    /**
     * Parsed command line.
     *
     * @param agreeTolerance NaN when not given: 0 for sync, the bound of the class comment for async
     * @param transport null when not given
     * @param chunk async halo chunk in doubles; 0: whole planes, as long as a value may be
     */
    record Options(int n, RichardsonSettings settings, String decomp, boolean check, double agreeTolerance,
                   boolean quiet, boolean help, boolean async, String transport, Slowdown slow, int chunk,
                   ParallelSolver.Halo halo, SelfKill kill, int checkpointEvery) {

        static Options parse(String[] args) {
            int n = DEFAULT_N;
            RichardsonSettings s = RichardsonSettings.defaults();
            String decomp = DEFAULT_DECOMP;
            boolean check = true;
            double agree = Double.NaN;
            boolean async = false;
            String transport = null;
            Slowdown slow = Slowdown.NONE;
            int chunk = -1;
            ParallelSolver.Halo halo = ParallelSolver.Halo.TWO_SIDED;
            SelfKill kill = SelfKill.NONE;
            int checkpointEvery = 0;
            boolean quiet = false;
            boolean help = false;
            for (int a = 0; a < args.length; a++) {
                String arg = args[a];
                String value = null;
                int eq = arg.indexOf('=');
                if (arg.startsWith("--") && eq > 0) {
                    value = arg.substring(eq + 1);
                    arg = arg.substring(0, eq);
                }
                switch (arg) {
                    case "--check" -> check = true;
                    case "--no-check" -> check = false;
                    case "--quiet", "-q" -> quiet = true;
                    case "--help", "-h" -> help = true;
                    case "--n", "--tol", "--max-iter", "--check-every", "--omega", "--decomp", "--agree-tol", "--scheme",
                         "--transport", "--slow", "--chunk", "--halo", "--kill", "--checkpoint-every" -> {
                        if (value == null) {
                            if (a + 1 >= args.length) {
                                throw new IllegalArgumentException(arg + " needs a value");
                            }
                            value = args[++a];
                        }
                        try {
                            switch (arg) {
                                case "--n" -> n = Integer.parseInt(value);
                                case "--tol" -> s = s.withTolerance(Double.parseDouble(value));
                                case "--max-iter" -> s = s.withMaxIterations(Integer.parseInt(value));
                                case "--check-every" -> s = s.withCheckEvery(Integer.parseInt(value));
                                case "--omega" -> s = s.withOmega(Double.parseDouble(value));
                                case "--decomp" -> decomp = value;
                                case "--scheme" -> async = switch (value) {
                                    case "sync" -> false;
                                    case "async" -> true;
                                    default -> throw new IllegalArgumentException("--scheme must be sync or async, got '"
                                            + value + "'");
                                };
                                case "--transport" -> {
                                    if (!value.matches("tcp|udp|shm")) {
                                        throw new IllegalArgumentException("--transport must be tcp, udp or shm, got '"
                                                + value + "'");
                                    }
                                    transport = value;
                                }
                                case "--slow" -> slow = Slowdown.parse(value);
                                case "--kill" -> kill = SelfKill.parse(value);
                                case "--checkpoint-every" -> checkpointEvery = Integer.parseInt(value);
                                case "--chunk" -> chunk = Integer.parseInt(value);
                                case "--halo" -> halo = switch (value) {
                                    case "two-sided" -> ParallelSolver.Halo.TWO_SIDED;
                                    case "rma" -> ParallelSolver.Halo.RMA;
                                    default -> throw new IllegalArgumentException("--halo must be two-sided or rma, got '"
                                            + value + "'");
                                };
                                default -> agree = Double.parseDouble(value);
                            }
                        } catch (NumberFormatException e) {
                            throw new IllegalArgumentException(arg + ": not a number: '" + value + "'", e);
                        }
                    }
                    default -> throw new IllegalArgumentException("unknown option '" + args[a] + "'");
                }
            }
            if (n < 1) {
                throw new IllegalArgumentException("--n must be >= 1, got " + n);
            }
            if (chunk == -1) {
                chunk = "udp".equals(transport) ? AsyncSolver.UDP_CHUNK : 0;
            } else if (chunk < 1) {
                throw new IllegalArgumentException("--chunk must be >= 1, got " + chunk);
            }
            if (agree < 0) {
                throw new IllegalArgumentException("--agree-tol must be >= 0, got " + agree);
            }
            if (checkpointEvery < 0) {
                throw new IllegalArgumentException("--checkpoint-every must be >= 0, got " + checkpointEvery);
            }
            if (checkpointEvery > 0 && (async || halo == ParallelSolver.Halo.RMA)) {
                throw new IllegalArgumentException("--checkpoint-every is for --scheme sync with two-sided halos");
            }
            if (async && halo == ParallelSolver.Halo.RMA) {
                throw new IllegalArgumentException("--halo rma is for --scheme sync (the asynchronous scheme sends value flows)");
            }
            return new Options(n, s, decomp, check, agree, quiet, help, async, transport, slow, chunk, halo, kill,
                    checkpointEvery);
        }
    }

    /**
     * Runs the demo on {@code world} (collective); returns the exit status, the same on every rank.
     * Rank 0 writes the report to {@code out} and the progress bar and errors to {@code err}; a
     * malformed command line is reported by every rank.
     */
    static int run(Comm world, String[] args, PrintStream out, PrintStream err) {
        boolean root = world.rank() == 0;
        Options o;
        Decomposition decomposition;
        try {
            // Every rank parses the same arguments and so reaches the same verdict without talking.
            o = Options.parse(args);
            decomposition = Decomposition.of(o.n(), world.size(), o.decomp());
        } catch (IllegalArgumentException e) {
            // every rank says why: the first to end makes the launcher stop the others, rank 0 perhaps
            // before it printed anything
            err.println("ObstacleDemo: " + e.getMessage());
            if (root) {
                err.println(USAGE);
            }
            return 2;
        }
        if (o.help()) {
            if (root) {
                out.println(USAGE);
            }
            return 0;
        }
        ObstacleProblem problem = ObstacleProblem.membraneOnBump(o.n());
        RichardsonSettings settings = o.settings();
        if (root && !o.quiet()) {
            printHeader(out, world.size(), problem, settings, decomposition);
        }

        // --kill: the rank to die does so inside the solve, in its first run only
        Railyard ry = Railyard.current();
        int incarnation = ry == null ? 0 : ry.incarnation();
        UnaryOperator<ProgressListener> crash = l -> o.kill().around(l, world.rank(), incarnation, err);
        SolveResult parallel;
        double[] solution;
        String details = "";
        double[] phases;
        String[] phaseNames;
        boolean bar = root && !o.quiet();
        if (o.async()) {
            try (AsyncSolver solver = new AsyncSolver(world, problem, settings, decomposition, o.slow(), o.chunk())) {
                world.barrier();
                parallel = withBar(bar, o, settings, err, crash, solver::solve);
                solution = solver.gather(0);
                // every rank iterated at its own pace: the range says how uneven the run was
                double least = world.allreduce((double) parallel.iterations(), Op.MIN);
                double most = world.allreduce((double) parallel.iterations(), Op.MAX);
                phases = solver.timeBreakdown();
                phaseNames = new String[] {"compute", "slowdown"};
                details = String.format(Locale.ROOT, "iterations/rank:  %d to %d, %d detection round(s)%n"
                        + "value flows:      %s%n", (long) least, (long) most, solver.rounds(), solver.view().stats())
                        + breakdown(world, phases, phaseNames);
            }
        } else {
            try (ParallelSolver solver = new ParallelSolver(world, problem, settings, decomposition, o.halo())) {
                solver.slowdown(o.slow());
                // --checkpoint-every: a rank started again goes on from its last checkpoint; the
                // barrier below, like the solver's dup above it, was passed before that checkpoint
                byte[] saved = ry == null || o.checkpointEvery() == 0 ? null : ry.restore().orElse(null);
                int done = saved == null ? 0 : solver.load(saved);
                if (saved == null) {
                    world.barrier();
                } else {
                    err.println("ObstacleDemo: rank " + world.rank() + " (run " + (incarnation + 1)
                            + ") resumes from its checkpoint after " + done + " iterations at " + System.currentTimeMillis() + " ms");
                    err.flush();
                }
                UnaryOperator<ProgressListener> saving = l -> checkpointing(l, ry, solver, o.checkpointEvery(), done);
                parallel = withBar(bar, o, settings, err, l -> crash.apply(saving.apply(l)), l -> solver.solveFrom(done, l));
                solution = solver.gather(0);
                phases = solver.timeBreakdown();
                phaseNames = new String[] {"compute", "halo wait", "send wait", "test", "slowdown"};
                details = (o.halo() == ParallelSolver.Halo.RMA
                        ? "halo exchange:    one-sided, puts into the neighbours' windows between fences" + System.lineSeparator()
                        : "") + breakdown(world, phases, phaseNames);
            }
        }
        // The slowest rank's time is the solve's wall time (all leave the last allreduce, or the
        // last detection round, within a round trip of each other).
        double wall = world.allreduce(parallel.seconds(), Op.MAX);
        String result = resultLine(world, o, decomposition, parallel, wall, phases, phaseNames);

        int[] status = {0};
        if (root) {
            status[0] = report(out, world.size(), problem, settings, decomposition, o, parallel, wall, solution, details);
            out.print(result);
        }
        world.bcast(status, 0, 1, 0);
        return status[0];
    }

    /**
     * The "time/rank" line (collective): per phase of the solve, the least and most seconds any rank
     * spent in it, so a reader sees whether the job computed or waited. The last phase (the
     * slowdown) is left out when no rank was slowed.
     */
    static String breakdown(Comm world, double[] mine, String... names) {
        double[] least = new double[mine.length];
        double[] most = new double[mine.length];
        world.allreduce(mine, 0, least, 0, mine.length, Op.MIN);
        world.allreduce(mine, 0, most, 0, mine.length, Op.MAX);
        StringBuilder b = new StringBuilder("time/rank:        ");
        for (int i = 0; i < mine.length; i++) {
            if (i == mine.length - 1 && most[i] == 0) {
                break;
            }
            b.append(String.format(Locale.ROOT, "%s%s %.3f-%.3f s", i == 0 ? "" : ", ", names[i], least[i], most[i]));
        }
        return b.append(System.lineSeparator()).toString();
    }

    /**
     * The line for programs (collective), last of the report, with the keys the C twin
     * ({@code bench/peers/c/obstacle.c}) prints, read by {@code bench/compare-app.sh} and the twin's
     * system test:
     * <pre>
     *   RESULT obstacle impl=railyard scheme=sync|async np=P n=N grid=AxBxC iterations=K
     *          converged=true|false residual=R solve_s=S compute_s=.. halo_wait_s=.. ...
     * </pre>
     * {@code R} is {@link Double#toString}, which reads back as the same double; {@code S} is the
     * wall time of the solve (the slowest rank's); then one key per phase of the "time/rank" line,
     * the mean over ranks in seconds (async: the iterations of rank 0).
     */
    static String resultLine(Comm world, Options o, Decomposition d, SolveResult r, double wall, double[] phases,
                             String... names) {
        double[] sum = new double[phases.length];
        world.allreduce(phases, 0, sum, 0, phases.length, Op.SUM);
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
                "RESULT obstacle impl=railyard scheme=%s np=%d n=%d grid=%s iterations=%d converged=%s residual=%s solve_s=%.6f",
                o.async() ? "async" : "sync", world.size(), d.n(), d.shape(), r.iterations(), r.converged(),
                Double.toString(r.residual()), wall));
        for (int i = 0; i < phases.length; i++) {
            b.append(String.format(Locale.ROOT, " %s_s=%.6f", names[i].replace(' ', '_'), sum[i] / world.size()));
        }
        return b.append(System.lineSeparator()).toString();
    }

    /** Runs {@code solve} with a progress bar on {@code err} when {@code show}. */
    /**
     * {@code --checkpoint-every K}: at the first convergence test at or past each multiple of K
     * iterations after {@code done}, after {@code next}, the solver's state goes to {@link Railyard#checkpoint}
     * (every halo message of the iteration is complete there).
     */
    private static ProgressListener checkpointing(ProgressListener next, Railyard ry, ParallelSolver solver, int every,
                                                  int done) {
        if (every == 0 || ry == null) {
            return next;
        }
        int[] due = {(done / every + 1) * every};
        return (iteration, residual) -> {
            next.onCheck(iteration, residual);
            if (iteration >= due[0]) {
                ry.checkpoint(solver.save(iteration));
                due[0] = (iteration / every + 1) * every;
            }
        };
    }

    private static SolveResult withBar(boolean show, Options o, RichardsonSettings settings, PrintStream err,
                                       UnaryOperator<ProgressListener> crash,
                                       java.util.function.Function<ProgressListener, SolveResult> solve) {
        if (!show) {
            return solve.apply(crash.apply(ProgressListener.NONE));
        }
        try (ConvergenceBar bar = new ConvergenceBar("obstacle " + o.n() + "^3", settings.tolerance(),
                settings.maxIterations(), err)) {
            SolveResult r = solve.apply(crash.apply(bar));
            bar.finish(r);
            return r;
        }
    }

    private static void printHeader(PrintStream out, int ranks, ObstacleProblem problem, RichardsonSettings s,
                                    Decomposition d) {
        int n = problem.n();
        out.println("Railyard obstacle demo: 3D obstacle problem (seed 000, sec. IV), projected Richardson");
        out.printf(Locale.ROOT, "  problem    %s, u = 0 on the boundary of the unit cube%n", problem.description());
        out.printf(Locale.ROOT, "  grid       %d^3 = %d unknowns, h = 1/%d, 7-point Laplacian%n", n, (long) n * n * n, n + 1);
        out.printf(Locale.ROOT, "  ranks      %d, process grid %s%n", ranks, d.shape());
        out.printf(Locale.ROOT, "  step       delta = %s/6 (omega = %s)%n", s.omega() == 1.0 ? "h^2" : s.omega() + " h^2", s.omega());
        out.printf(Locale.ROOT, "  stop       |u(k+1) - u(k)|max / |u(k+1)|max <= %.1e, tested every %d iteration(s), at most %d%n",
                s.tolerance(), s.checkEvery(), s.maxIterations());
    }

    private static int report(PrintStream out, int ranks, ObstacleProblem problem, RichardsonSettings settings,
                              Decomposition d, Options o, SolveResult parallel, double wall, double[] solution,
                              String details) {
        int n = problem.n();
        Complementarity c = Complementarity.of(problem, settings.delta(problem.h()), solution);
        out.printf(Locale.ROOT, "ranks:            %d (process grid %s)%n", ranks, d.shape());
        out.printf(Locale.ROOT, "grid:             %d^3%n", n);
        out.printf(Locale.ROOT, "scheme:           %s, transport %s, slowdown %s%n", o.async() ? "async" : "sync",
                o.transport() == null ? "(library's choice)" : o.transport(), o.slow());
        out.printf(Locale.ROOT, "iterations:       %d (%s)%n", parallel.iterations(),
                parallel.converged() ? "converged" : "NOT converged: iteration bound reached");
        out.printf(Locale.ROOT, "final residual:   %.3e (tolerance %.1e)%n", parallel.residual(), settings.tolerance());
        out.printf(Locale.ROOT, "wall time:        %.3f s%n", wall);
        out.print(details);
        out.printf(Locale.ROOT, "contact set:      %d points (%.1f%%), min(u - phi) = %.1e, max|min(u - phi, delta(Au - f))| = %.1e%n",
                c.contactPoints(), 100.0 * c.contactPoints() / ((double) n * n * n), c.minGap(), c.maxNaturalResidual());
        if (!o.check()) {
            return 0;
        }
        SequentialSolver sequential = new SequentialSolver(problem, settings);
        SolveResult ref = sequential.solve(ProgressListener.NONE);
        double[] expected = sequential.solution();
        double maxDiff = 0.0;
        for (int p = 0; p < expected.length; p++) {
            // Math.max propagates NaN, so a NaN anywhere fails the comparison below.
            maxDiff = Math.max(maxDiff, Math.abs(solution[p] - expected[p]));
        }
        out.printf(Locale.ROOT, "sequential:       %d iterations, %.3f s (speed-up %.2f)%n",
                ref.iterations(), ref.seconds(), ref.seconds() / wall);
        out.printf(Locale.ROOT, "max difference:   %s%n", maxDiff);
        out.printf(Locale.ROOT, "efficiency:       %.3f (sequential time / (ranks x wall time))%n",
                ref.seconds() / (ranks * wall));
        if (o.async()) {
            // the answer is the certified snapshot: recompute its residual here, from the gathered grid
            double residual = AsyncSolver.residual(problem, settings, solution);
            double bound = Double.isNaN(o.agreeTolerance()) ? AsyncSolver.agreementBound(problem, settings, expected)
                    : o.agreeTolerance();
            out.printf(Locale.ROOT, "recomputed:       residual %.3e of the gathered answer (tolerance %.1e)%n",
                    residual, settings.tolerance());
            if (parallel.converged() && residual <= settings.tolerance() && maxDiff <= bound) {
                out.printf(Locale.ROOT, "OK: asynchronous solution meets the stopping test (residual %.3e) and agrees with"
                        + " sequential within %.3e (max |difference| %s)%n", residual, bound, maxDiff);
                return 0;
            }
            out.printf(Locale.ROOT, "MISMATCH: residual %.3e (tolerance %.1e), max |parallel - sequential| = %s (accepted %.3e)%n",
                    residual, settings.tolerance(), maxDiff, bound);
            return 1;
        }
        double agree = Double.isNaN(o.agreeTolerance()) ? 0.0 : o.agreeTolerance();
        boolean sameIterations = ref.iterations() == parallel.iterations();
        if (maxDiff <= agree && sameIterations) {
            out.printf(Locale.ROOT, "OK: parallel solution agrees with sequential within %s (max |difference| %s, %d iterations both)%n",
                    agree, maxDiff, ref.iterations());
            return 0;
        }
        out.printf(Locale.ROOT, "MISMATCH: max |parallel - sequential| = %s (accepted %s), iterations %d parallel vs %d sequential%n",
                maxDiff, agree, parallel.iterations(), ref.iterations());
        return 1;
    }
}
