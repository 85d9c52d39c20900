package org.railyard.apps.obstacle;

import java.util.Arrays;
import org.railyard.Comm;
import org.railyard.IterativeComm;
import org.railyard.Request;
import org.railyard.Status;

/**
 * The asynchronous distributed projected Richardson method of seed 000, section IV: each rank
 * iterates on its block at its own pace, with the newest halo values that have arrived from its
 * neighbours, whatever iteration they come from, and sends its own boundary planes after every
 * iteration without waiting for anyone ({@link IterativeComm} in the asynchronous scheme). The
 * iteration converges because the projected Richardson map with {@code ω ≤ 1} is a contraction
 * in a weighted max norm (see {@link RichardsonSettings}), which is the condition of the
 * asynchronous convergence theorem (Baudet; Bertsekas and Tsitsiklis; for this method Spiteri and
 * Chau, reference [14] of the seed): any delays, any order of updates, as long as every component
 * keeps being updated and old values are eventually replaced by newer ones.
 *
 * <p>Halo planes travel in chunks of at most {@code chunk} doubles, one value flow each: over udp a
 * few datagrams each ({@link #UDP_CHUNK}), so a lost datagram costs one chunk one iteration; over
 * tcp and shm whole planes as far as a value may be long (fewer, larger values cost less). A ghost
 * layer may then hold chunks of different iterations, which the asynchronous model allows (each
 * component is just some earlier value).
 *
 * <p><b>Termination: snapshot-based detection.</b> The local successive difference of a rank says
 * little in an asynchronous run (a rank may look converged on stale halos), so stopping rests on a
 * recorded global vector whose residual is computed exactly:
 * <ol>
 *   <li>Each rank tells rank 0 (ordinary messages, reliable in every scheme) when its own last
 *       iterations have moved by at most the tolerance, and when they no longer do. This is only
 *       a filter that decides <em>when</em> to look.</li>
 *   <li>When every rank says so, rank 0 starts a round. Each rank, at the end of its current
 *       iteration, records its block {@code x_i} (the snapshot) and sends the snapshot's boundary
 *       planes to its neighbours, reliably. With its own snapshot and its neighbours' snapshot
 *       planes it evaluates one projected Richardson sweep, {@code F_i(x)}, on a copy, and sends
 *       rank 0 {@code max |F_i(x) - x_i|} and {@code max |F_i(x)|}; it keeps iterating meanwhile.</li>
 *   <li>Rank 0 combines them into {@code |F(x) - x|max / |F(x)|max} and answers stop if that is at
 *       most the tolerance, else continue (the ranks report again when their filter next holds).</li>
 * </ol>
 * Why it is sound: {@code x = (x_1, ..., x_p)} is one vector (each block is exactly what its owner
 * held at one moment), every rank evaluates {@code F} on that same vector (the snapshot planes come
 * over reliable channels, never the asynchronous values), so rank 0 computes exactly the stopping
 * test the sequential solver applies to its iterate, on {@code x}. The answer the solver returns
 * is that {@code x}; it meets the same test as the sequential solution, whatever happened to the
 * values in flight (lost, late, superseded). No consistent cut of the message channels is needed,
 * because nothing about the channels enters the test. The detection cannot stop too early; it stops
 * within a round or so of the iterate meeting the test, since the iteration converges.
 *
 * <p>Collective: every rank constructs it with the same arguments and calls {@link #solve},
 * {@link #gather} and {@link #close} together.
 */
public final class AsyncSolver implements AutoCloseable {
    /**
     * Halo chunk over udp, doubles: 4 KiB, three datagrams of 1472 bytes (with 5% loss, 86% of the
     * chunks get through whole; a whole plane of a 64^3 grid, 23 datagrams, would only 31% of the time).
     */
    public static final int UDP_CHUNK = 512;
    /** Iterations the local filter must hold before a rank reports it. */
    static final int PERSIST = 3;

    private static final int TAG_HALO = 1000;
    private static final int TAG_FLAG = 300;
    private static final int TAG_SNAP = 301;
    private static final int TAG_SNAP_HALO = 302;
    private static final int TAG_RESULT = 310;
    private static final int TAG_DECIDE = 311;
    private static final int TAG_GATHER = 320;
    private static final int TAG_BOUND = 321;

    private final IterativeComm it;
    private final Comm comm;
    private final ObstacleProblem problem;
    private final RichardsonSettings settings;
    private final Decomposition decomposition;
    private final Slowdown slowdown;
    private final int chunk;
    private final int rank;
    private final GridBlock block;
    private final GridBlock snap;
    private final double[] interior;
    private final Faces faces;
    private final double[][] snapSend = new double[Decomposition.FACES][];
    private final double[][] snapRecv = new double[Decomposition.FACES][];
    private final Request[] snapSends = new Request[Decomposition.FACES];
    private final Request[] snapRecvs = new Request[Decomposition.FACES];

    // detection state, every rank
    private boolean flagSent;
    private int persisted;
    private double knownMaxAbs;
    private boolean inRound;
    private boolean resultSent;
    private boolean stopped;
    private boolean converged;
    private double certified = Double.NaN;
    private int rounds;
    private final double[] snapIn = new double[1];
    private Request snapStart;
    private Request decide;
    private final double[] decision = new double[3];
    private final double[] result = new double[3];
    private Request resultSend;
    private final int[] flagOut = new int[1];
    private Request flagSend;
    private boolean boundReported;
    // detection state, rank 0
    private boolean[] flags;
    private int flagsUp;
    private Request flagRecv;
    private final int[] flagIn = new int[1];
    private Request resultRecv;
    private final double[] resultIn = new double[3];
    private int results;
    private int remoteResults;
    private double roundDiff;
    private double roundAbs;
    private Request boundRecv;
    private final int[] boundIn = new int[1];
    private int iterations;
    private long computeNanos, slowNanos;

    /**
     * Sets up this rank's block (collective: creates the view, which duplicates {@code comm}).
     *
     * @param chunk largest halo value, doubles; 0 for as large as a value may be
     */
    public AsyncSolver(Comm comm, ObstacleProblem problem, RichardsonSettings settings, Decomposition decomposition,
                       Slowdown slowdown, int chunk) {
        if (decomposition.ranks() != comm.size()) {
            throw new IllegalArgumentException("decomposition " + decomposition.shape() + " is for "
                    + decomposition.ranks() + " ranks, the communicator has " + comm.size());
        }
        if (chunk < 0) {
            throw new IllegalArgumentException("chunk must be >= 0, got " + chunk);
        }
        this.problem = problem;
        this.settings = settings;
        this.decomposition = decomposition;
        this.slowdown = slowdown;
        this.rank = comm.rank();
        double delta = settings.delta(problem.h());
        this.block = GridBlock.of(problem, delta, decomposition, rank);
        this.snap = GridBlock.of(problem, delta, decomposition, rank);
        this.interior = new double[decomposition.volume(rank)];
        this.faces = new Faces(decomposition, rank, block);
        for (int f = 0; f < Decomposition.FACES; f++) {
            if (faces.has(f)) {
                snapSend[f] = new double[block.faceSize(f)];
                snapRecv[f] = new double[block.faceSize(f)];
            }
        }
        this.it = IterativeComm.create(comm, IterativeComm.Scheme.ASYNCHRONOUS);
        this.comm = it.comm();
        int largest = (int) (it.maxValueBytes() / Double.BYTES);
        this.chunk = chunk == 0 ? largest : Math.min(chunk, largest);
        if (rank == 0) {
            flags = new boolean[comm.size()];
        }
    }

    /** The view the halos travel on (for its statistics). */
    public IterativeComm view() {
        return it;
    }

    /**
     * Iterates until the detection certifies a snapshot (collective). The result's iteration count
     * is this rank's own; its residual is the certified snapshot residual, the same on every rank.
     * The listener sees each round's snapshot residual on rank 0.
     */
    public SolveResult solve(ProgressListener listener) {
        long start = System.nanoTime();
        startDetection();
        while (!stopped) {
            if (iterations < settings.maxIterations()) {
                long compute = iterate();
                iterations++;
                computeNanos += compute;
                if (slowdown.slows(rank)) {
                    long t0 = System.nanoTime();
                    slowdown.after(compute);
                    slowNanos += System.nanoTime() - t0;
                }
                filter();
            } else if (!boundReported) {
                boundReported = true;
                comm.isend(new int[] {iterations}, 0, 1, 0, TAG_BOUND);
            }
            detect(listener);
        }
        return new SolveResult(iterations, certified, converged, (System.nanoTime() - start) * 1e-9);
    }

    /**
     * Where this rank's solve time went, in seconds: {@code {compute, slowdown}} (the rest is
     * sending, receiving and detection, which never wait for a neighbour).
     */
    public double[] timeBreakdown() {
        return new double[] {computeNanos * 1e-9, slowNanos * 1e-9};
    }

    /** One iteration; returns the nanoseconds of its sweep (what a slowdown multiplies). */
    private long iterate() {
        for (int f = 0; f < Decomposition.FACES; f++) {
            if (!faces.has(f)) {
                continue;
            }
            boolean fresh = false;
            double[] plane = faces.recvPlane[f];
            int from = Decomposition.opposite(f);
            for (int c = 0, off = 0; off < plane.length; c++, off += chunk) {
                if (it.receive(plane, off, Math.min(chunk, plane.length - off), faces.neighbour[f],
                        tag(from, c)) != IterativeComm.NONE) {
                    fresh = true;
                }
            }
            if (fresh) {
                faces.unpack(block, f, plane);
            }
        }
        long t0 = System.nanoTime();
        block.beginIteration();
        block.sweepAll();
        block.endIteration();
        long compute = System.nanoTime() - t0;
        for (int f = 0; f < Decomposition.FACES; f++) {
            if (!faces.has(f)) {
                continue;
            }
            double[] plane = faces.sendPlane[f];
            faces.pack(block, f, plane);
            for (int c = 0, off = 0; off < plane.length; c++, off += chunk) {
                it.send(plane, off, Math.min(chunk, plane.length - off), faces.neighbour[f], tag(f, c));
            }
        }
        return compute;
    }

    private int tag(int face, int c) {
        return TAG_HALO + face * 100_000 + c;
    }

    /** The local filter: this rank's own iterations have stopped moving (by the tolerance) for a while. */
    private void filter() {
        double scale = Math.max(block.maxAbs(), knownMaxAbs);
        boolean still = block.maxDiff() <= settings.tolerance() * scale;
        persisted = still ? persisted + 1 : 0;
        boolean report = persisted >= PERSIST;
        if (report != flagSent && !inRound && (flagSend == null || flagSend.test())) {
            flagSent = report;
            flagOut[0] = report ? 1 : 0;
            if (rank == 0) {
                setFlag(0, report);
            } else {
                flagSend = comm.isend(flagOut, 0, 1, 0, TAG_FLAG);
            }
        }
    }

    private void startDetection() {
        snapStart = rank == 0 ? null : comm.irecv(snapIn, 0, 1, 0, TAG_SNAP);
        if (rank == 0) {
            flagRecv = comm.size() > 1 ? comm.irecv(flagIn, 0, 1, Comm.ANY_SOURCE, TAG_FLAG) : null;
            boundRecv = comm.size() > 1 ? comm.irecv(boundIn, 0, 1, Comm.ANY_SOURCE, TAG_BOUND) : null;
        }
    }

    private void setFlag(int who, boolean up) {
        if (flags[who] != up) {
            flags[who] = up;
            flagsUp += up ? 1 : -1;
        }
    }

    /** One step of the detection; never waits. */
    private void detect(ProgressListener listener) {
        if (rank == 0) {
            coordinate(listener);
        }
        if (!inRound && !stopped && rank != 0 && snapStart != null && snapStart.test()) {
            snapStart = null;
            takeSnapshot();
        }
        if (inRound && !resultSent && snapshotPlanesIn()) {
            evaluateSnapshot();
        }
        if (inRound && resultSent && decide != null && decide.test()) {
            decide = null;
            finishRound(listener);
        }
    }

    private void coordinate(ProgressListener listener) {
        while (flagRecv != null && flagRecv.test()) {
            Status st = flagRecv.await();
            setFlag(st.source(), flagIn[0] == 1);
            flagRecv = comm.irecv(flagIn, 0, 1, Comm.ANY_SOURCE, TAG_FLAG);
        }
        boolean bound = iterations >= settings.maxIterations() || (boundRecv != null && boundRecv.test());
        if (!inRound && (flagsUp == comm.size() || bound)) {
            rounds++;
            for (int r = 1; r < comm.size(); r++) {
                comm.isend(new double[] {bound ? -rounds : rounds}, 0, 1, r, TAG_SNAP);
            }
            snapIn[0] = bound ? -rounds : rounds;
            Arrays.fill(flags, false);
            flagsUp = 0;
            results = 0;
            remoteResults = 0;
            roundDiff = 0;
            roundAbs = 0;
            resultRecv = comm.size() > 1 ? comm.irecv(resultIn, 0, 3, Comm.ANY_SOURCE, TAG_RESULT) : null;
            takeSnapshot();
        }
        if (inRound) {
            while (resultRecv != null && resultRecv.test()) {
                collect(resultIn);
                // one receive posted per result still expected from the others, never one more: a
                // spare posted receive would take the next round's result
                resultRecv = ++remoteResults < comm.size() - 1
                        ? comm.irecv(resultIn, 0, 3, Comm.ANY_SOURCE, TAG_RESULT) : null;
            }
            if (results == comm.size()) {
                results = 0;
                double residual = RichardsonSettings.relativeResidual(roundDiff, roundAbs);
                listener.onCheck(iterations, residual);
                boolean stop = residual <= settings.tolerance() || snapIn[0] < 0;
                decision[0] = stop ? (residual <= settings.tolerance() ? 1 : 2) : 0;
                decision[1] = residual;
                decision[2] = roundAbs;
                for (int r = 1; r < comm.size(); r++) {
                    comm.isend(decision.clone(), 0, 3, r, TAG_DECIDE);
                }
                decide = null;
                finishRound(listener);
            }
        }
    }

    private void collect(double[] r) {
        results++;
        roundDiff = Math.max(roundDiff, r[0]);
        roundAbs = Math.max(roundAbs, r[1]);
    }

    private void takeSnapshot() {
        inRound = true;
        resultSent = false;
        block.packInterior(interior);
        snap.copyBox(interior, 0, 1, snap.nx, 1, snap.ny, 1, snap.nz, false);
        for (int f = 0; f < Decomposition.FACES; f++) {
            if (faces.has(f)) {
                snapRecvs[f] = comm.irecv(snapRecv[f], 0, snapRecv[f].length, faces.neighbour[f],
                        TAG_SNAP_HALO + Decomposition.opposite(f));
                faces.pack(snap, f, snapSend[f]);
                snapSends[f] = comm.isend(snapSend[f], 0, snapSend[f].length, faces.neighbour[f], TAG_SNAP_HALO + f);
            }
        }
    }

    private boolean snapshotPlanesIn() {
        for (int f = 0; f < Decomposition.FACES; f++) {
            if (snapRecvs[f] != null && !snapRecvs[f].test()) {
                return false;
            }
        }
        return true;
    }

    private void evaluateSnapshot() {
        for (int f = 0; f < Decomposition.FACES; f++) {
            if (snapRecvs[f] != null) {
                snapRecvs[f] = null;
                faces.unpack(snap, f, snapRecv[f]);
            }
        }
        // F on the snapshot, written to the copy's next iterate: the snapshot itself stays current
        snap.beginIteration();
        snap.sweepAll();
        result[0] = snap.maxDiff();
        result[1] = snap.maxAbs();
        resultSent = true;
        if (rank == 0) {
            collect(result);
        } else {
            resultSend = comm.isend(result, 0, 3, 0, TAG_RESULT);
            decide = comm.irecv(decision, 0, 3, 0, TAG_DECIDE);
        }
    }

    private void finishRound(ProgressListener listener) {
        for (int f = 0; f < Decomposition.FACES; f++) {
            if (snapSends[f] != null) {
                snapSends[f].await();
                snapSends[f] = null;
            }
        }
        if (resultSend != null) {
            resultSend.await();
            resultSend = null;
        }
        inRound = false;
        knownMaxAbs = decision[2];
        if (decision[0] != 0) {
            stopped = true;
            converged = decision[0] == 1;
            certified = decision[1];
            return;
        }
        // not yet: report again once the filter holds anew
        flagSent = false;
        persisted = 0;
        if (rank != 0) {
            snapStart = comm.irecv(snapIn, 0, 1, 0, TAG_SNAP);
        }
    }

    /**
     * The sequential solver's stopping quantity for the packed grid {@code u}: one projected
     * Richardson sweep over the whole grid, {@code |F(u) - u|max / |F(u)|max}. For the answer of a
     * converged asynchronous solve this equals, bit for bit, the residual its detection certified
     * (the same operations on the same operands, exact maxima).
     */
    public static double residual(ObstacleProblem problem, RichardsonSettings settings, double[] u) {
        int n = problem.n();
        GridBlock g = new GridBlock(problem, settings.delta(problem.h()), 0, n, 0, n, 0, n);
        g.copyBox(u, 0, 1, n, 1, n, 1, n, false);
        g.beginIteration();
        g.sweepAll();
        return RichardsonSettings.relativeResidual(g.maxDiff(), g.maxAbs());
    }

    /**
     * How far apart two iterates that both pass the stopping test may be, with the contraction
     * factor {@code rho = cos(pi h)} of {@link RichardsonSettings}: each is within
     * {@code rho/(1-rho)} successive differences of the solution, so they are within
     * {@code 2 tol |u|max rho/(1-rho)} of each other ({@code u} the reference solution).
     */
    public static double agreementBound(ObstacleProblem problem, RichardsonSettings settings, double[] reference) {
        double max = 0;
        for (double v : reference) {
            max = Math.max(max, Math.abs(v));
        }
        double rho = Math.cos(Math.PI * problem.h());
        return 2 * settings.tolerance() * max * rho / (1 - rho);
    }

    /** Detection rounds rank 0 ran (0 elsewhere). */
    public int rounds() {
        return rounds;
    }

    /**
     * Collects the certified snapshot on {@code root} (collective), packed as
     * {@link ObstacleProblem#index} says; null elsewhere.
     */
    public double[] gather(int root) {
        // the snapshot's interior is the answer: its residual is what was certified
        snap.packInterior(interior);
        return Gather.blocks(comm, decomposition, problem.n(), interior, root, TAG_GATHER);
    }

    /**
     * Cancels what the detection still has posted, sends what the view still holds, and frees the
     * view (collective).
     */
    @Override
    public void close() {
        if (snapStart != null) {
            snapStart.cancel();
        }
        if (flagRecv != null) {
            flagRecv.cancel();
        }
        if (boundRecv != null) {
            boundRecv.cancel();
        }
        if (flagSend != null) {
            flagSend.await();
        }
        // no flag or bound report may still be on its way to rank 0 when its receives are gone
        comm.barrier();
        it.close();
    }

}
