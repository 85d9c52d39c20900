package mpjbuf;

/** A write or read of a type other than the current section's. */
public class TypeMismatchException extends BufferException {
    private static final long serialVersionUID = 1L;

    public TypeMismatchException() {
        super();
    }

    public TypeMismatchException(String message) {
        super(message);
    }
}
