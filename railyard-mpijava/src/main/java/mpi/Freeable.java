package mpi;

/** Objects whose resources a program may release explicitly (package-private, as in MPJ Express). */
interface Freeable {
    void free() throws MPIException;
}
