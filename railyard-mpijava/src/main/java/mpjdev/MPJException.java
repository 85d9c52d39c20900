package mpjdev;

/** An unchecked failure of the device layer. */
public class MPJException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MPJException(String message) {
        super(message);
    }
}
