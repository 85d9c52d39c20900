package org.railyard.apps.obstacle;

import org.railyard.Comm;
import org.railyard.Op;
import org.railyard.Request;
import org.railyard.Window;

/**
 * The synchronous distributed projected Richardson method of seed 000, section IV: the grid is
 * split into blocks ({@link Decomposition}), each rank iterates on its block, and every iteration
 * the ranks swap the planes next to their common faces (halo exchange), so that iteration
 * {@code k+1} everywhere uses exactly the values of iteration {@code k}. This is the same iteration
 * as {@link SequentialSolver}'s, and reproduces it bit for bit (see {@link GridBlock}).
 *
 * <p>One iteration on a rank: post a non-blocking receive per neighbour into that face's ghost
 * plane buffer; pack the boundary planes and post non-blocking sends; sweep the inner part of the
 * block, which needs no halo, while the planes travel; wait for the receives, unpack them into the
 * ghost layers and sweep the points next to the faces; wait for the sends (the send buffers are
 * reused next iteration). Every {@code checkEvery} iterations, one allreduce (MAX) of the local
 * {@code max |u^{k+1} - u^k|} and {@code max |u^{k+1}|} gives every rank the same relative residual,
 * so all stop at the same iteration. All buffers are allocated up front; the loop itself allocates
 * nothing but the request handles the communicator returns.
 *
 * <p>{@link Halo#RMA} does the same exchange one-sided: every rank exposes a window over its ghost
 * planes (two sets, used in alternate iterations), puts its boundary planes into its neighbours'
 * ghost planes, sweeps the inner part while they travel, and a fence ends the iteration's epoch,
 * after which its own ghost planes hold the neighbours' values. Two sets suffice: a neighbour
 * writes the set of iteration {@code k} again only in iteration {@code k+2}, after the fence of
 * {@code k+1}, which it leaves only once this rank has entered it, and so has unpacked the set of
 * {@code k}. The iterates are the same, bit for bit.
 *
 * <p>Collective: every rank of the communicator constructs the solver with the same arguments and
 * calls {@link #solve}, {@link #gather} and {@link #close} together. The solver works on a private
 * duplicate of the communicator, so its messages never meet the caller's.
 */
public final class ParallelSolver implements AutoCloseable {
    /** Halo tags are {@code TAG_HALO + face}, the face of the sender the plane leaves through. */
    private static final int TAG_HALO = 100;
    private static final int TAG_GATHER = 200;

    /** How the halo planes travel. */
    public enum Halo {
        /** Non-blocking sends and receives (the default). */
        TWO_SIDED,
        /** Puts into the neighbours' windows, an iteration's epoch ended by a fence. */
        RMA
    }

    private final Comm comm;
    private final ObstacleProblem problem;
    private final RichardsonSettings settings;
    private final Decomposition decomposition;
    private final GridBlock block;

    private final Faces faces;
    private final Request[] sends = new Request[Decomposition.FACES];
    private final Request[] recvs = new Request[Decomposition.FACES];
    private final int[][] sweepPlan;
    private final double[] localMax = new double[2];
    private final Halo halo;
    // RMA: the window over this rank's ghost planes, where face f's plane of set p starts in it
    // (doubles), where this rank's plane through face f lands in the neighbour's, and the set in use
    private final Window window;
    private final double[] ghosts;
    private final int[][] ghostAt = new int[2][Decomposition.FACES];
    private final long[][] theirGhostAt = new long[2][Decomposition.FACES];
    private int set;
    private final double[] globalMax = new double[2];
    private Slowdown slowdown = Slowdown.NONE;
    /** Where this rank's solve time went, in nanoseconds: sweeping, waiting for halo planes, waiting
     * for sends to complete, the convergence test's allreduce, the slowdown. */
    private long computeNanos, haloWaitNanos, sendWaitNanos, testNanos, slowNanos;

    /**
     * Sets up this rank's block (collective: duplicates {@code comm}).
     *
     * @throws IllegalArgumentException if the decomposition is not for {@code comm.size()} ranks and
     *         the problem's grid
     */
    public ParallelSolver(Comm comm, ObstacleProblem problem, RichardsonSettings settings, Decomposition decomposition) {
        this(comm, problem, settings, decomposition, Halo.TWO_SIDED);
    }

    /**
     * Sets up this rank's block, with the halo exchange {@code halo} (collective: duplicates
     * {@code comm}, and for {@link Halo#RMA} creates a window over it).
     *
     * @throws IllegalArgumentException if the decomposition is not for {@code comm.size()} ranks and
     *         the problem's grid
     */
    public ParallelSolver(Comm comm, ObstacleProblem problem, RichardsonSettings settings, Decomposition decomposition,
                          Halo halo) {
        if (decomposition.ranks() != comm.size()) {
            throw new IllegalArgumentException("decomposition " + decomposition.shape() + " is for "
                    + decomposition.ranks() + " ranks, the communicator has " + comm.size());
        }
        if (decomposition.n() != problem.n()) {
            throw new IllegalArgumentException("decomposition is for n=" + decomposition.n() + ", problem has n=" + problem.n());
        }
        this.problem = problem;
        this.settings = settings;
        this.decomposition = decomposition;
        int rank = comm.rank();
        this.block = GridBlock.of(problem, settings.delta(problem.h()), decomposition, rank);
        this.faces = new Faces(decomposition, rank, block);
        this.sweepPlan = block.sweepPlan(faces.present());
        this.comm = comm.dup();
        this.halo = halo;
        if (halo == Halo.RMA) {
            int mine = ghostLayout(rank, ghostAt);
            for (int f = 0; f < Decomposition.FACES; f++) {
                if (faces.has(f)) {
                    int[][] theirs = new int[2][Decomposition.FACES];
                    ghostLayout(faces.neighbour[f], theirs);
                    theirGhostAt[0][f] = theirs[0][Decomposition.opposite(f)];
                    theirGhostAt[1][f] = theirs[1][Decomposition.opposite(f)];
                }
            }
            this.ghosts = new double[mine];
            this.window = Window.create(this.comm, ghosts, Double.BYTES);
            window.fence(Window.MODE_NOPRECEDE);
        } else {
            this.ghosts = null;
            this.window = null;
        }
    }

    /**
     * Where each face's ghost plane of each set starts in the ghost array of {@code rank}'s block
     * (a plane per face, with a neighbour or not, set 0 then set 1), into {@code at}; returns the
     * array's length. Every rank computes it for its neighbours from the decomposition alone.
     */
    private int ghostLayout(int rank, int[][] at) {
        int n = 0;
        for (int p = 0; p < 2; p++) {
            for (int f = 0; f < Decomposition.FACES; f++) {
                at[p][f] = n;
                int axis = f >> 1;
                n += decomposition.count(rank, (axis + 1) % 3) * decomposition.count(rank, (axis + 2) % 3);
            }
        }
        return n;
    }

    /** The decomposition in use. */
    public Decomposition decomposition() {
        return decomposition;
    }

    /**
     * Iterates from the current iterate ({@code max(0, φ)} before the first solve) until the stopping
     * test of the settings is met (collective).
     * The listener is called at every convergence test on every rank, with the global residual.
     */
    public SolveResult solve(ProgressListener listener) {
        return RichardsonLoop.run(settings, listener, this::iterate, this::globalResidual);
    }

    /** As {@link #solve}, going on from a state {@link #load}ed after {@code done} iterations. */
    public SolveResult solveFrom(int done, ProgressListener listener) {
        return RichardsonLoop.run(settings, listener, this::iterate, this::globalResidual, done);
    }

    /**
     * This rank's part of the iterate after {@code iterations} iterations, as bytes for a
     * checkpoint (taken at a convergence test, where no halo message of this rank is in flight).
     */
    public byte[] save(int iterations) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
            out.writeInt(iterations);
            block.save(out);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Puts back what {@link #save} returned; returns its iteration count. */
    public int load(byte[] state) {
        try (java.io.DataInputStream in = new java.io.DataInputStream(new java.io.ByteArrayInputStream(state))) {
            int k = in.readInt();
            block.load(in);
            if (in.available() != 0) {
                throw new IllegalArgumentException("solver state has " + in.available() + " bytes too many (another grid?)");
            }
            return k;
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("solver state is shorter than this rank's block (another grid?)", e);
        }
    }

    /**
     * Makes one rank slower (for the study of heterogeneous ranks); its iterations then take
     * {@code factor} times their computing time. Returns this solver.
     */
    public ParallelSolver slowdown(Slowdown s) {
        this.slowdown = s;
        return this;
    }

    private void iterate() {
        block.beginIteration();
        if (halo == Halo.RMA) {
            putHalos();
        } else {
            startHaloExchange();
        }
        long t0 = System.nanoTime();
        block.sweep(sweepPlan[0]);
        long t1 = System.nanoTime();
        if (halo == Halo.RMA) {
            fenceAndUnpack();
        } else {
            finishHaloExchange();
        }
        long t2 = System.nanoTime();
        for (int b = 1; b < sweepPlan.length; b++) {
            block.sweep(sweepPlan[b]);
        }
        long t3 = System.nanoTime();
        awaitSends();
        block.endIteration();
        long t4 = System.nanoTime();
        long compute = (t1 - t0) + (t3 - t2);
        computeNanos += compute;
        haloWaitNanos += t2 - t1;
        sendWaitNanos += t4 - t3;
        if (slowdown.slows(comm.rank())) {
            slowdown.after(compute);
            slowNanos += System.nanoTime() - t4;
        }
    }

    private double globalResidual() {
        long t0 = System.nanoTime();
        localMax[0] = block.maxDiff();
        localMax[1] = block.maxAbs();
        comm.allreduce(localMax, 0, globalMax, 0, 2, Op.MAX);
        testNanos += System.nanoTime() - t0;
        return RichardsonSettings.relativeResidual(globalMax[0], globalMax[1]);
    }

    /**
     * Where this rank's time went in the solves so far, in seconds: {@code {compute, halo wait,
     * send wait, convergence test, slowdown}}. Packing and posting the halo planes is in none of them.
     */
    public double[] timeBreakdown() {
        return new double[] {computeNanos * 1e-9, haloWaitNanos * 1e-9, sendWaitNanos * 1e-9,
                testNanos * 1e-9, slowNanos * 1e-9};
    }

    private void startHaloExchange() {
        for (int f = 0; f < Decomposition.FACES; f++) {
            if (faces.has(f)) {
                // Receives first, so that a neighbour's plane finds its buffer posted.
                double[] plane = faces.recvPlane[f];
                recvs[f] = comm.irecv(plane, 0, plane.length, faces.neighbour[f],
                        TAG_HALO + Decomposition.opposite(f));
            }
        }
        for (int f = 0; f < Decomposition.FACES; f++) {
            if (faces.has(f)) {
                double[] plane = faces.sendPlane[f];
                faces.pack(block, f, plane);
                sends[f] = comm.isend(plane, 0, plane.length, faces.neighbour[f], TAG_HALO + f);
            }
        }
    }

    private void finishHaloExchange() {
        for (int f = 0; f < Decomposition.FACES; f++) {
            if (recvs[f] != null) {
                recvs[f].await();
                recvs[f] = null;
                faces.unpack(block, f, faces.recvPlane[f]);
            }
        }
    }

    /** RMA: packs the boundary planes and puts each into the neighbour's ghost plane of this iteration's set. */
    private void putHalos() {
        for (int f = 0; f < Decomposition.FACES; f++) {
            if (faces.has(f)) {
                double[] plane = faces.sendPlane[f];
                faces.pack(block, f, plane);
                window.put(plane, 0, plane.length, faces.neighbour[f], theirGhostAt[set][f]);
            }
        }
    }

    /** RMA: ends the epoch (every put of the iteration is in place) and unpacks this set's ghost planes. */
    private void fenceAndUnpack() {
        window.fence(0);
        for (int f = 0; f < Decomposition.FACES; f++) {
            if (faces.has(f)) {
                double[] plane = faces.recvPlane[f];
                System.arraycopy(ghosts, ghostAt[set][f], plane, 0, plane.length);
                faces.unpack(block, f, plane);
            }
        }
        set ^= 1;
    }

    private void awaitSends() {
        for (int f = 0; f < Decomposition.FACES; f++) {
            if (sends[f] != null) {
                sends[f].await();
                sends[f] = null;
            }
        }
    }

    /**
     * Collects the current iterate on {@code root} (collective): every other rank sends its block's
     * interior, the root places each at its offsets. Returns the packed {@code n^3} solution
     * ({@link ObstacleProblem#index}) on the root, null elsewhere.
     */
    public double[] gather(int root) {
        double[] mine = new double[decomposition.volume(comm.rank())];
        block.packInterior(mine);
        return Gather.blocks(comm, decomposition, problem.n(), mine, root, TAG_GATHER);
    }

    /** Frees the solver's window, if any, and its communicator (collective). */
    @Override
    public void close() {
        if (window != null) {
            window.fence(Window.MODE_NOSUCCEED);
            window.free();
        }
        comm.free();
    }
}
