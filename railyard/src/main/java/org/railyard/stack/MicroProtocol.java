package org.railyard.stack;

/**
 * One micro-protocol of a stack (P2PSAP's micro-protocols, JGroups' protocols): a link in a chain
 * that passes everything up and down by default, so a subclass overrides only what it touches.
 *
 * <pre>
 *        channel (frames)          ^ up: frames and segments toward the application
 *   +---------------------+        |
 *   |  Synchronous        |        |
 *   |  Resize             |  down: frames, then segments toward the network
 *   |  ...                |        |
 *   |  TransportDrive     |        v
 *   +---------------------+
 *        link (datagrams)
 * </pre>
 *
 * <p>A protocol instance belongs to one {@link Session}: one direction of one flow. In a
 * {@linkplain Session#sender() sender} session data goes down and acknowledgements come up; in a
 * receiver session data comes up and acknowledgements go down. The same class serves both roles
 * and its Javadoc says what it does in each, what it <em>needs from below</em> and what it
 * <em>gives above</em>. State shared by several protocols (Cactus' shared data: sequence numbers,
 * windows, timeouts) lives in the session, each field written by one protocol only.
 *
 * <p>Besides segments, a protocol sees: a room query ({@link #writable}) that goes down the send
 * path, so a sender asks before it hands a frame over; {@link Signal}s raised by the others of its
 * session; timer ticks with the session's injected {@link Clock} time; the end of each batch of
 * received datagrams (for acknowledgements that cover a batch). Everything runs on the thread that
 * drives the stack; nothing blocks.
 */
public abstract class MicroProtocol {
    MicroProtocol above;
    MicroProtocol below;
    /** The session this instance works in; null for the protocols under the sessions (fault injection). */
    protected Session session;

    /** Called once the chain is linked and {@link #session} set, before any segment moves. */
    protected void init() {
    }

    /**
     * Send path: hands {@code s} (and its reference) to the protocol below. Data in a sender
     * session, acknowledgements in a receiver session.
     */
    protected void down(Segment s) {
        below.down(s);
    }

    /** Receive path: hands {@code s} (and its reference) to the protocol above. */
    protected void up(Segment s) {
        above.up(s);
    }

    /** Whether a frame of {@code frameBytes} could go down now without being refused or dropped below. */
    protected boolean writable(int frameBytes) {
        return below.writable(frameBytes);
    }

    /** Timer: called often (every poll of the stack) with the session clock's time. */
    protected void onTick(long now) {
    }

    /** A signal raised by a protocol of the same session (possibly this one). */
    protected void onSignal(Signal signal, long arg) {
    }

    /** A batch of received datagrams has been handed up. */
    protected void onBatchEnd() {
    }

    /** True when this protocol holds nothing that still has to reach the peer (queued, unacknowledged). */
    protected boolean drained() {
        return true;
    }

    /** The session ends: release every segment held. */
    protected void onClose() {
    }

    /** The protocol's name in the compositions (seed 000, Table I). */
    public String name() {
        return getClass().getSimpleName();
    }

    /** A short account of the protocol's state, for diagnostics; empty by default. */
    public String state() {
        return "";
    }

    /** Segments needed for a frame of {@code frameBytes} cut into datagram payloads. */
    protected final int segmentsFor(int frameBytes) {
        int p = session.pool.datagramPayload();
        return Math.max(1, (frameBytes + p - 1) / p);
    }
}
