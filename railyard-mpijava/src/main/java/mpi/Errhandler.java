package mpi;

/**
 * What happens when a call of the package fails: {@link MPI#ERRORS_RETURN} (Railyard's default)
 * throws an {@link MPIException} to the caller; {@link MPI#ERRORS_ARE_FATAL} prints the error and
 * ends the whole job, as {@link Comm#Abort} does. Set with {@link MPI#Errorhandler_set}; it
 * applies to every communicator of the process.
 */
public class Errhandler {
    private final boolean fatal;

    Errhandler(boolean fatal) {
        this.fatal = fatal;
    }

    boolean fatal() {
        return fatal;
    }

    @Override
    public String toString() {
        return fatal ? "ERRORS_ARE_FATAL" : "ERRORS_RETURN";
    }
}
