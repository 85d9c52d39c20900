package mpjbuf;

/** An argument a buffer cannot use. */
public class IllegalArgumentException extends BufferException {
    private static final long serialVersionUID = 1L;

    public IllegalArgumentException() {
        super();
    }

    public IllegalArgumentException(String message) {
        super(message);
    }
}
