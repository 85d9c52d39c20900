package mpjbuf;

/** A read past the packed data: no section header where one was asked for. */
public class BufferUnderflowException extends BufferException {
    private static final long serialVersionUID = 1L;

    public BufferUnderflowException() {
        super();
    }

    public BufferUnderflowException(String message) {
        super(message);
    }
}
