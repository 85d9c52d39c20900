package mpi;

import java.util.function.Supplier;
import org.railyard.error.RailyardException;

/**
 * An error reported by a call of the {@code mpi} package.
 *
 * <p>It is unchecked, as in MPJ Express 0.44 (where it descends from {@code RuntimeException}), so
 * programs written for MPJ Express that declare nothing compile, and programs written for the
 * original mpiJava 1.2 (where it was checked) compile too: their {@code throws MPIException} and
 * {@code catch (MPIException e)} clauses stay legal.
 *
 * <p>Errors of the Railyard library underneath ({@link RailyardException}) arrive wrapped: the
 * message starts with their error class ({@code TRUNCATE}, {@code RANK}, ...), and
 * {@link #getCause()} is the original exception.
 */
public class MPIException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MPIException() {
        super();
    }

    public MPIException(String message) {
        super(message);
    }

    public MPIException(Throwable cause) {
        super(describe(cause), cause);
    }

    MPIException(String message, Throwable cause) {
        super(message, cause);
    }

    private static String describe(Throwable cause) {
        if (cause instanceof RailyardException r) {
            return r.errorClass() + ": " + r.getMessage();
        }
        return cause == null ? null : cause.toString();
    }

    /** The facade's translation of a library error, keeping the library's message and class. */
    static MPIException of(RailyardException e) {
        if (MPI.isFinalized()) {
            return raise(new MPIException("MPI.Finalize was called (" + describe(e) + ")", e));
        }
        return raise(new MPIException(e));
    }

    /**
     * The result of {@code body}, a call of the library whose errors arrive translated ({@link #of}).
     * For the facade's calls that make or describe communicators, groups and windows: the lambda is
     * an object per call, so the calls on a message's path translate with a try block of their own.
     */
    static <T> T call(Supplier<T> body) {
        try {
            return body.get();
        } catch (RailyardException e) {
            throw of(e);
        }
    }

    /** Runs {@code body}, a call of the library whose errors arrive translated; as {@link #call}. */
    static void run(Runnable body) {
        try {
            body.run();
        } catch (RailyardException e) {
            throw of(e);
        }
    }

    /** An error found by the facade itself. */
    static MPIException error(String message) {
        return raise(new MPIException(message));
    }

    static MPIException error(String message, Throwable cause) {
        return raise(new MPIException(message, cause));
    }

    /**
     * Every error of the package passes here before it is thrown: under
     * {@link MPI#ERRORS_ARE_FATAL} the job ends now, with the message on the standard error.
     */
    private static MPIException raise(MPIException e) {
        if (MPI.errorsAreFatal()) {
            MPI.fatal(e);
        }
        return e;
    }
}
