package org.railyard.launcher;

/**
 * Receives the output of a job one whole line at a time. The launcher serializes its calls to
 * every sink of a job under one lock, so lines never interleave mid-line and a sink needs no
 * synchronization of its own.
 */
@FunctionalInterface
public interface LineSink {
    /** The rank passed with the launcher's own messages ("railyard: rank 2 ... exited ..."). */
    int LAUNCHER = -1;

    /**
     * @param rank the rank whose stream the line came from, or {@link #LAUNCHER}
     * @param line the line, without its line terminator
     */
    void line(int rank, String line);
}
