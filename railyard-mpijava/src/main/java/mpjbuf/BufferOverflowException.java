package mpjbuf;

/** A write or a section header that does not fit the buffer (the facade's buffers grow instead, so it is thrown only by a RawBuffer the program gave, see Buffer). */
public class BufferOverflowException extends BufferException {
    private static final long serialVersionUID = 1L;

    public BufferOverflowException() {
        super();
    }

    public BufferOverflowException(String message) {
        super(message);
    }
}
