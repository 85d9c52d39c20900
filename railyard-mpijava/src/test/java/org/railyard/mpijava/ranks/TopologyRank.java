package org.railyard.mpijava.ranks;

import mpi.CartParms;
import mpi.Cartcomm;
import mpi.Comm;
import mpi.GraphParms;
import mpi.Graphcomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.ShiftParms;
import mpi.Status;
import org.railyard.testkit.Graphs;

/**
 * {@code mpi.Cartcomm} and {@code mpi.Graphcomm}: Dims_create, grids periodic and not, shifts and
 * halo exchanges, sub-grids, graphs, and processes left out of a topology. Written for 6 ranks,
 * works on any number >= 4; prints "done".
 */
public class TopologyRank {
    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int me = world.Rank();
        int np = world.Size();

        int[] d = {0, 0};
        Cartcomm.Dims_create(6, d);
        Check.equal(d, new int[] {3, 2}, "Dims_create(6, 2 free)");
        d = new int[] {0, 3, 0};
        Cartcomm.Dims_create(24, d);
        Check.equal(d, new int[] {4, 3, 2}, "Dims_create with a fixed dimension");
        d = new int[] {0, 0};
        Cartcomm.Dims_create(7, d);
        Check.equal(d, new int[] {7, 1}, "Dims_create of a prime");
        Check.fails(() -> Cartcomm.Dims_create(7, new int[] {2, 0}), "", "a fixed dimension that does not divide");

        // A torus in dimension 0 only, over every process.
        int[] dims = {0, 2};
        Cartcomm.Dims_create(np, dims);
        Cartcomm cart = world.Create_cart(dims, new boolean[] {true, false}, true);
        Check.equal(cart.Topo_test(), MPI.CART, "Topo_test of a grid");
        Check.equal(world.Topo_test(), MPI.UNDEFINED, "Topo_test of the world");
        CartParms cp = cart.Get();
        Check.equal(cp.dims, dims, "Get dims");
        Check.that(cp.periods[0] && !cp.periods[1], "Get periods");
        int[] my = cart.Coords(cart.Rank());
        Check.equal(cp.coords, my, "Get coords");
        Check.equal(my, new int[] {me / 2, me % 2}, "row-major coordinates");
        Check.equal(cart.Rank(my), me, "Rank of own coordinates");
        Check.equal(cart.Rank(new int[] {my[0] + dims[0], my[1]}), me, "periodic dimension wraps");
        Check.equal(cart.Map(dims, new boolean[] {true, false}), me, "Map keeps the rank");
        Check.equal(cart.Map(new int[] {1, 1}, new boolean[] {false, false}), me == 0 ? 0 : MPI.UNDEFINED, "Map to a smaller grid");
        ShiftParms down = cart.Shift(0, 1);
        Check.equal(down.rank_dest, cart.Rank(new int[] {(my[0] + 1) % dims[0], my[1]}), "Shift along the torus: dest");
        Check.equal(down.rank_source, cart.Rank(new int[] {(my[0] - 1 + dims[0]) % dims[0], my[1]}), "Shift: source");
        ShiftParms right = cart.Shift(1, 1);
        Check.equal(right.rank_dest, my[1] == 0 ? me + 1 : MPI.PROC_NULL, "Shift off a non-periodic edge");
        Check.equal(right.rank_source, my[1] == 1 ? me - 1 : MPI.PROC_NULL, "Shift from beyond the edge");
        // A halo exchange with the shifts.
        int[] halo = {-1};
        Status s = cart.Sendrecv(new int[] {me}, 0, 1, MPI.INT, down.rank_dest, 1, halo, 0, 1, MPI.INT, down.rank_source, 1);
        Check.equal(halo[0], down.rank_source, "halo from the upper neighbour");
        Check.equal(s.source, down.rank_source, "halo status");
        halo[0] = -1;
        cart.Sendrecv(new int[] {me}, 0, 1, MPI.INT, right.rank_dest, 2, halo, 0, 1, MPI.INT, right.rank_source, 2);
        Check.equal(halo[0], my[1] == 1 ? me - 1 : -1, "halo across a non-periodic edge");
        // Columns: keep dimension 0.
        Cartcomm column = cart.Sub(new boolean[] {true, false});
        Check.equal(column.Size(), dims[0], "Sub size");
        Check.equal(column.Get().dims, new int[] {dims[0]}, "Sub dims");
        Check.equal(column.Rank(), my[0], "Sub rank");
        int[] sum = new int[1];
        column.Allreduce(new int[] {me}, 0, sum, 0, 1, MPI.INT, MPI.SUM);
        int want = 0;
        for (int r = my[1]; r < np; r += 2) {
            want += r;
        }
        Check.equal(sum[0], want, "collective on a sub-grid");
        Cartcomm copy = (Cartcomm) cart.clone();
        Check.equal(copy.Get().dims, dims, "a cloned grid keeps its topology");
        Check.equal(Comm.Compare(copy, cart), MPI.CONGRUENT, "a clone is congruent");
        // A grid smaller than the world: the rest get null.
        Cartcomm small = world.Create_cart(new int[] {2, 2}, new boolean[] {false, false}, false);
        Check.that(me < 4 ? small != null && small.Size() == 4 : small == null, "a 2x2 grid leaves ranks 4 and up out");

        // A ring graph over every process, and a star over the first three.
        int[] index = Graphs.ringIndex(np);
        int[] edges = Graphs.ringEdges(np);
        Graphcomm ring = world.Create_graph(index, edges, false);
        Check.equal(ring.Topo_test(), MPI.GRAPH, "Topo_test of a graph");
        GraphParms gp = ring.Get();
        Check.equal(gp.index, index, "Get index");
        Check.equal(gp.edges, edges, "Get edges");
        Check.equal(ring.Neighbours(me), new int[] {(me + np - 1) % np, (me + 1) % np}, "Neighbours");
        Check.equal(ring.Map(index, edges), me, "graph Map keeps the rank");
        int[] nb = ring.Neighbours(me);
        int[] got = new int[1];
        ring.Sendrecv(new int[] {me}, 0, 1, MPI.INT, nb[1], 3, got, 0, 1, MPI.INT, nb[0], 3);
        Check.equal(got[0], nb[0], "message along the ring graph");
        Graphcomm ring2 = (Graphcomm) ring.clone();
        Check.equal(ring2.Get().edges, edges, "a cloned graph keeps its topology");
        Graphcomm star = world.Create_graph(new int[] {2, 3, 4}, new int[] {1, 2, 0, 0}, false);
        if (me < 3) {
            Check.equal(star.Neighbours(0), new int[] {1, 2}, "star centre");
            Check.equal(star.Neighbours(2), new int[] {0}, "star leaf");
        } else {
            Check.that(star == null, "a 3-node graph leaves ranks 3 and up out");
        }
        world.Barrier();
        MPI.Finalize();
        System.out.println("done");
    }
}
