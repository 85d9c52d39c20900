package org.railyard.launcher;

/**
 * A job's two output sinks behind one lock, as {@link LineSink} promises its implementations: a
 * line to either is passed on whole, never while the other is writing one.
 */
record SerialSinks(LineSink out, LineSink err) {
    /** {@code out} and {@code err}, each call to either made under one lock of the pair. */
    static SerialSinks of(LineSink out, LineSink err) {
        Object lock = new Object();
        LineSink serialOut = (rank, line) -> {
            synchronized (lock) {
                out.line(rank, line);
            }
        };
        LineSink serialErr = (rank, line) -> {
            synchronized (lock) {
                err.line(rank, line);
            }
        };
        return new SerialSinks(serialOut, serialErr);
    }
}
