package mpi;

import java.util.function.Supplier;

/**
 * A persistent request ({@code Send_init}, {@code Recv_init}, ...): the arguments of an operation,
 * started any number of times.
 *
 * <h2>How it maps to Railyard</h2>
 * Each {@link #Start()} performs the matching non-blocking call of {@link Comm} ({@code Isend},
 * {@code Issend}, {@code Ibsend}, {@code Irsend} or {@code Irecv}) with the saved arguments, so a
 * started persistent request is exactly one {@link org.railyard.Request}; waiting on it makes it
 * inactive again (not null: {@link #Is_null()} stays false), ready for the next start. Waiting on
 * an inactive one returns an empty status at once.
 */
public class Prequest extends Request {
    private final Supplier<Pending> starter;

    Prequest(Supplier<Pending> starter) {
        super(null);
        this.starter = starter;
    }

    /** Starts the operation; the request must be inactive (never started, or completed by a wait or test). */
    public void Start() throws MPIException {
        if (pending != null) {
            throw MPIException.error("Prequest.Start: the request is still active; complete it with a wait or test first");
        }
        pending = starter.get();
    }

    /** Starts every request of the array, in order. */
    public static void Startall(Prequest[] array_of_requests) throws MPIException {
        for (Prequest p : array_of_requests) {
            p.Start();
        }
    }

    /** A persistent request is never the null request. */
    @Override
    public boolean Is_null() throws MPIException {
        return false;
    }
}
