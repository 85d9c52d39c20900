package org.railyard.stack;

/**
 * What the composer needs to know about a flow (seed 000, section III): the scheme of the
 * computation, where the peer is, and whether the transport already delivers reliably and in order.
 *
 * @param scheme the iterative scheme the flow serves
 * @param locality where the peer is
 * @param reliableTransport true when the transport's links are reliable and ordered (tcp, shm)
 */
public record Context(Scheme scheme, Locality locality, boolean reliableTransport) {
    /** "sync, other-site, unreliable transport". */
    @Override
    public String toString() {
        return scheme.label() + ", " + locality.label() + ", " + (reliableTransport ? "reliable-ordered" : "unreliable")
                + " transport";
    }
}
