package mpi;

import org.railyard.types.GraphTopology;

/**
 * A communicator with a graph topology, in MPI's form: {@code index[i]} is the number of edges of
 * nodes 0 to i together, {@code edges} lists the neighbours of node 0, then of node 1, ...
 *
 * <h2>How it maps to Railyard</h2>
 * It wraps a Railyard communicator made by {@code createGraph} (see
 * {@link Intracomm#Create_graph}); {@link #Get()} and {@link #Neighbours} read Railyard's
 * {@link GraphTopology}, {@link #clone()} is {@code dup}, {@link #Map} is {@code graphMap} (the
 * rank {@code Create_graph} with reorder gives: the same rank on one node).
 */
public class Graphcomm extends Intracomm {
    Graphcomm(org.railyard.Comm nat) {
        super(nat);
    }

    private GraphTopology graph() {
        return MPIException.call(() -> nat.graph());
    }

    /** Collective: a duplicate with the same graph and a new context (Railyard's {@code dup} keeps the topology). */
    @Override
    public Object clone() throws MPIException {
        return MPIException.call(() -> new Graphcomm(nat.dup()));
    }

    /** The graph: {@code index} and {@code edges}. */
    public GraphParms Get() throws MPIException {
        GraphTopology g = graph();
        GraphParms p = new GraphParms();
        p.index = g.index();
        p.edges = g.edges();
        return p;
    }

    /** The neighbours of {@code rank}, in edge order. */
    public int[] Neighbours(int rank) throws MPIException {
        return MPIException.call(() -> graph().neighbours(rank));
    }

    /**
     * The rank this process would have in a graph of {@code index} and {@code edges} made from
     * this communicator with reordering ({@code Create_graph(index, edges, true)}), or
     * {@link MPI#UNDEFINED} if the graph has no node for it.
     */
    public int Map(int[] index, int[] edges) throws MPIException {
        int r = MPIException.call(() -> nat.graphMap(index, edges));
        return r == org.railyard.Comm.UNDEFINED ? MPI.UNDEFINED : r;
    }

    @Override
    public int Topo_test() throws MPIException {
        return MPI.GRAPH;
    }
}
