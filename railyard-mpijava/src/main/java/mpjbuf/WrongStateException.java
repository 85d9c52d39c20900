package mpjbuf;

/** A call in the wrong state: writing a committed buffer, reading one still being written, using a freed one, or data before a section header. */
public class WrongStateException extends BufferException {
    private static final long serialVersionUID = 1L;

    public WrongStateException() {
        super();
    }

    public WrongStateException(String message) {
        super(message);
    }
}
