package mpi;

/**
 * The body of a user-defined reduction ({@link Op#Op(User_function, boolean)}): combine
 * {@code count} elements of {@code invec} from {@code inoffset} into {@code inoutvec} from
 * {@code inoutoffset}, element by element: {@code inoutvec[i] = invec[i] op inoutvec[i]}.
 * {@code invec} holds the contribution of lower ranks, so a non-commutative operation sees MPI's
 * rank order.
 *
 * <p>The arrays are of the datatype's base type. For a datatype with holes, Railyard reduces the
 * packed values: the function then gets a contiguous datatype of the same size and base type
 * (offsets and counts step by its extent), not the original one.
 */
public abstract class User_function {
    public User_function() {
    }

    public abstract void Call(Object invec, int inoffset, Object inoutvec, int inoutoffset, int count, Datatype datatype)
            throws MPIException;
}
