/**
 * One-sided communication: windows, their operations and their synchronisation.
 *
 * <h2>Paths</h2>
 * A window whose members all share a node and whose memory the library allocates is mapped by
 * every member ({@link org.railyard.engine.rma.Rma}): an origin reaches any member's memory itself,
 * puts and gets are copies, flush is a memory fence, fence is a barrier over the mapping's
 * header ({@link org.railyard.engine.rma.SharedHeader}), and lock/unlock, lockAll and
 * post/start/complete/wait are words of that header ({@link org.railyard.engine.rma.SharedSync}:
 * writers first, an acquire on lock and a release on unlock). Any other window (user memory, or members on
 * several nodes) carries each operation and each synchronisation as messages on the window's
 * private communicator, applied at the target by its {@link org.railyard.engine.rma.Target} in a
 * duty cycle. The path is chosen per window at creation and printed in the choice log.
 *
 * <h2>Accumulates are atomic per element</h2>
 * MPI-3 makes accumulate, getAccumulate, fetchAndOp and compareAndSwap atomic per element with
 * respect to each other, and orders those of one origin to one place. The rule that gives it:
 * <ul>
 * <li>Messages: the target applies them one at a time under the progress lock, in the order each
 *     origin sent them; data that lands in the window on arrival (a put received in place) does so
 *     only when nothing of its origin but such puts and flushes waits before it.</li>
 * <li>Mapped memory: every such operation on member {@code t}'s memory holds {@code t}'s accumulate
 *     lock in the mapping's header while it touches it. An update of one naturally aligned int,
 *     long, float or double (fetchAndOp, compareAndSwap, a one-value accumulate) holds it shared and
 *     is one atomic {@code VarHandle} operation, so such updates run together; anything else (a
 *     block of values, another kind) holds it exclusively and is combined in place with plain loops
 *     ({@link org.railyard.engine.rma.Combine}). The origin applies each operation before the call
 *     returns, which keeps its order.
 *     ({@link org.railyard.engine.rma.SharedAccess})</li>
 * </ul>
 * Puts and gets take no lock: MPI leaves a put concurrent with an accumulate to the same place
 * undefined.
 */
package org.railyard.engine.rma;
