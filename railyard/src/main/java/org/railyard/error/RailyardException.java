package org.railyard.error;

/**
 * The one exception root of Railyard. Unchecked: MPI programs treat errors as fatal by default, and
 * those that want to recover catch it and look at {@link #errorClass()}.
 *
 * <p>Messages name the argument or peer at fault and, for range errors, the range that was allowed,
 * for example {@code "dest rank 7 is out of range [0, 4) for communicator WORLD"}.
 */
public class RailyardException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final ErrorClass errorClass;

    public RailyardException(ErrorClass errorClass, String message) {
        super(message);
        this.errorClass = errorClass;
    }

    public RailyardException(ErrorClass errorClass, String message, Throwable cause) {
        super(message, cause);
        this.errorClass = errorClass;
    }

    public ErrorClass errorClass() {
        return errorClass;
    }

    @Override
    public String toString() {
        return "RailyardException[" + errorClass + "]: " + getMessage();
    }
}
