package mpjbuf;

/**
 * A misuse of a {@link Buffer}. Checked, as in MPJ Express 0.44, so that programs that catch it
 * around {@link Buffer#commit()} or {@link Buffer#clear()} compile unchanged.
 */
public class BufferException extends Exception {
    private static final long serialVersionUID = 1L;

    public BufferException() {
        super();
    }

    public BufferException(String message) {
        super(message);
    }

    public BufferException(String message, Throwable cause) {
        super(message, cause);
    }
}
