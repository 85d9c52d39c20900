package mpi;

/** What {@link Cartcomm#Get()} returns: the grid's dimensions and periodicity, and this process's coordinates. */
public class CartParms {
    public int[] dims;
    public boolean[] periods;
    public int[] coords;

    CartParms(int[] dims, boolean[] periods, int[] coords) {
        this.dims = dims;
        this.periods = periods;
        this.coords = coords;
    }
}
