package mpjbuf;

/** A read of more elements than the current section holds, or a new section before the previous one was read whole. */
public class SectionSizeMismatchException extends BufferException {
    private static final long serialVersionUID = 1L;

    public SectionSizeMismatchException() {
        super();
    }

    public SectionSizeMismatchException(String message) {
        super(message);
    }
}
