package mpi;

/** What {@link Graphcomm#Get()} returns: the graph in MPI's form (cumulative {@code index}, flat {@code edges}). */
public class GraphParms {
    public int[] index;
    public int[] edges;

    public GraphParms() {
    }
}
