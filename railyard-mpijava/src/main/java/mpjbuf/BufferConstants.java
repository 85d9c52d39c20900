package mpjbuf;

/** Present because MPJ Express 0.44 has it (a holder with no public members); see {@link Buffer} for the constants. */
public class BufferConstants {
    public BufferConstants() {
    }
}
