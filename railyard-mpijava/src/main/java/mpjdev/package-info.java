/**
 * Compatibility shims for MPJ Express 0.44's device layer: the parts of {@code mpjdev} that
 * programs written for MPJ Express touch, so that they compile and run unchanged on Railyard.
 *
 * <p>Railyard has no device layer under package {@code mpi}: the facade talks to Railyard's own
 * API. What is here reports on that: {@link mpjdev.MPJDev#getSendOverhead()} and
 * {@link mpjdev.MPJDev#getRecvOverhead()} (0: Railyard takes no per-message room from the
 * program's buffers), {@link mpjdev.MPJDev#WORLD} and every communicator's
 * {@code mpjdevComm} (a {@link mpjdev.Comm} with the size and rank of the communicator), the
 * {@link mpjdev.Constants}, and the exception classes. The device-level calls (sends, receives,
 * groups and requests of {@code mpjdev}, {@code MPJDev.init} and {@code finish}) are not
 * provided: a program that calls them is an MPJ Express device, not an MPI program.
 */
package mpjdev;
