package mpjdev;

/** A failure of the device layer. (MPJ Express derives it from {@code xdev.XDevException}, which Railyard does not have.) */
public class MPJDevException extends Exception {
    private static final long serialVersionUID = 1L;

    public MPJDevException() {
        super();
    }

    public MPJDevException(Throwable cause) {
        super(cause);
    }

    public MPJDevException(String message) {
        super(message);
    }
}
