package mpjbuf;

/** Objects (or dynamic sections) that could not be written to or read from the dynamic part of a buffer. */
public class DynamicBufferException extends BufferException {
    private static final long serialVersionUID = 1L;

    public DynamicBufferException(String message, Throwable cause) {
        super(message, cause);
    }
}
