package mpi;

import org.railyard.types.CartTopology;
import org.railyard.error.RailyardException;

/**
 * A communicator with a Cartesian topology: processes on a grid, possibly periodic, ranks laid
 * out row-major (the last coordinate varies fastest).
 *
 * <h2>How it maps to Railyard</h2>
 * It wraps a Railyard communicator made by {@code createCart} (see
 * {@link Intracomm#Create_cart}); the queries are Railyard's {@link CartTopology}:
 * {@link #Coords} is {@code cartCoords}, {@link #Rank(int[])} {@code cartRank}, {@link #Shift}
 * {@code cartShift}, {@link #Sub} {@code cartSub}, {@link #Dims_create} {@code dimsCreate} (which
 * balances the free dimensions, largest first), {@link #clone()} {@code dup}, {@link #Map}
 * {@code cartMap} (the rank {@code Create_cart} with reorder gives: the same rank on one node).
 */
public class Cartcomm extends Intracomm {
    Cartcomm(org.railyard.Comm nat) {
        super(nat);
    }

    private CartTopology cart() {
        return MPIException.call(() -> nat.cart());
    }

    /** Collective: a duplicate with the same grid and a new context (Railyard's {@code dup} keeps the topology). */
    @Override
    public Object clone() throws MPIException {
        return MPIException.call(() -> new Cartcomm(nat.dup()));
    }

    /** The rank of the process at {@code coords} (wrapped in periodic dimensions). */
    public int Rank(int[] coords) throws MPIException {
        try {
            return nat.cartRank(coords);
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /** The coordinates of {@code rank}. */
    public int[] Coords(int rank) throws MPIException {
        return MPIException.call(() -> nat.cartCoords(rank));
    }

    /**
     * The neighbours of this process for a shift of {@code disp} along dimension
     * {@code direction}: the rank to receive from and the rank to send to.
     */
    public ShiftParms Shift(int direction, int disp) throws MPIException {
        int[] sd = MPIException.call(() -> nat.cartShift(direction, disp));
        return new ShiftParms(Special.rankOut(sd[0]), Special.rankOut(sd[1]));
    }

    /** Collective: the sub-grid through this process keeping the dimensions flagged in {@code remain_dims}. */
    public Cartcomm Sub(boolean[] remain_dims) throws MPIException {
        return MPIException.call(() -> new Cartcomm(nat.cartSub(remain_dims)));
    }

    /**
     * The rank this process would have in a grid of {@code dims} made from this communicator with
     * reordering ({@code Create_cart(dims, periods, true)}), or {@link MPI#UNDEFINED} if the grid
     * leaves it out: its own rank, unless its processes span several nodes out of node order.
     */
    public int Map(int[] dims, boolean[] periods) throws MPIException {
        int r = MPIException.call(() -> nat.cartMap(dims, periods));
        return r == org.railyard.Comm.UNDEFINED ? MPI.UNDEFINED : r;
    }

    /** The grid: dimensions, periodicity, and this process's coordinates. */
    public CartParms Get() throws MPIException {
        CartTopology t = cart();
        return new CartParms(t.dims(), t.periods(), t.coords(Rank()));
    }

    @Override
    public int Topo_test() throws MPIException {
        return MPI.CART;
    }

    /**
     * Fills the zero entries of {@code dims} (in place) so that the product of all entries is
     * {@code nnodes}, as balanced as possible; non-zero entries are kept. Fails if they do not
     * divide {@code nnodes}.
     */
    public static void Dims_create(int nnodes, int[] dims) throws MPIException {
        int[] out = MPIException.call(() -> org.railyard.Comm.dimsCreate(nnodes, dims));
        System.arraycopy(out, 0, dims, 0, dims.length);
    }
}
