package org.railyard.mpijava.ranks;

import mpi.Cartcomm;
import mpi.Graphcomm;
import mpi.Group;
import mpi.Intracomm;
import mpi.MPI;
import mpi.ShiftParms;
import org.railyard.testkit.Graphs;

/**
 * Create_cart with reorder on processes that take themselves for two nodes, dealt in turn (world
 * rank r on "node" r % 2, through the setting railyard.node, so they talk over tcp as separate
 * nodes would): the ring puts the first node's processes first; Map tells each its rank
 * beforehand; the shifts of the reordered ring find the right neighbours; a ring graph created
 * with reorder is laid out the same way. Prints "done".
 */
public class CartReorderRank {
    public static void main(String[] args) throws Exception {
        int worldRank = Integer.parseInt(System.getenv("RAILYARD_RANK"));
        System.setProperty("railyard.node", "simulated-node-" + worldRank % 2);
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int me = world.Rank();
        int np = world.Size();
        Check.equal(me, worldRank, "world rank");

        int[] dims = {np};
        boolean[] periods = {true};
        Cartcomm kept = world.Create_cart(dims, periods, false);
        Check.equal(kept.Rank(), me, "without reorder a process keeps its rank");
        int mapped = kept.Map(dims, periods);
        Cartcomm ring = world.Create_cart(dims, periods, true);
        Check.equal(ring.Rank(), mapped, "Map gives the rank Create_cart with reorder gives");

        int[] cartRanks = new int[np];
        int[] expected = new int[np];
        int at = 0;
        for (int parity = 0; parity < 2; parity++) {
            for (int r = parity; r < np; r += 2) {
                expected[at++] = r;
            }
        }
        for (int i = 0; i < np; i++) {
            cartRanks[i] = i;
        }
        int[] worlds = Group.Translate_ranks(ring.Group(), cartRanks, world.Group());
        Check.equal(worlds, expected, "world rank of each ring position: the first node's processes, then the second's");

        ShiftParms sp = ring.Shift(0, 1);
        int[] in = {-1};
        ring.Sendrecv(new int[] {me}, 0, 1, MPI.INT, sp.rank_dest, 5, in, 0, 1, MPI.INT, sp.rank_source, 5);
        Check.equal(in[0], worlds[sp.rank_source], "the value from the ring neighbour before this one");
        int[] sum = new int[1];
        ring.Allreduce(new int[] {me}, 0, sum, 0, 1, MPI.INT, MPI.SUM);
        Check.equal(sum[0], np * (np - 1) / 2, "allreduce on the reordered ring");

        // a ring graph: reordered the same way, and Graphcomm.Map agrees
        int[] index = Graphs.ringIndex(np);
        int[] edges = Graphs.ringEdges(np);
        Graphcomm keptGraph = world.Create_graph(index, edges, false);
        Check.equal(keptGraph.Rank(), me, "a graph without reorder keeps the ranks");
        int graphMapped = keptGraph.Map(index, edges);
        Graphcomm graph = world.Create_graph(index, edges, true);
        Check.equal(graph.Rank(), graphMapped, "Graphcomm.Map gives the rank Create_graph with reorder gives");
        Check.equal(Group.Translate_ranks(graph.Group(), cartRanks, world.Group()), expected,
                "world rank of each graph vertex");
        int[] nb = graph.Neighbours(graph.Rank());
        in[0] = -1;
        graph.Sendrecv(new int[] {me}, 0, 1, MPI.INT, nb[1], 6, in, 0, 1, MPI.INT, nb[0], 6);
        Check.equal(in[0], expected[nb[0]], "the value from the graph neighbour before this one");
        world.Barrier();
        MPI.Finalize();
        System.out.println("done");
    }
}
