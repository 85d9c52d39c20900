package mpi;

/**
 * What {@link Cartcomm#Shift} returns: the rank to receive from and the rank to send to for a
 * shift along one dimension ({@link MPI#PROC_NULL} past the edge of a non-periodic one), ready
 * for {@link Comm#Sendrecv}.
 */
public class ShiftParms {
    public int rank_source;
    public int rank_dest;

    ShiftParms(int source, int dest) {
        this.rank_source = source;
        this.rank_dest = dest;
    }
}
