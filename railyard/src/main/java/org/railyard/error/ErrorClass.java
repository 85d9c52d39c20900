package org.railyard.error;

/** Category of a {@link RailyardException}; mirrors the MPI error classes a user already knows. */
public enum ErrorClass {
    /** A buffer argument is null, of an unsupported kind, or too small for offset + count. */
    BUFFER,
    /** A count is negative or does not fit the buffer. */
    COUNT,
    /** A datatype is unknown or does not match the buffer. */
    TYPE,
    /** A tag is outside [0, TAG_UB] (or not ANY_TAG where a wildcard is allowed). */
    TAG,
    /** A rank is outside [0, size) and is not PROC_NULL (or ANY_SOURCE where allowed). */
    RANK,
    /** A communicator was freed, or is not usable for this call. */
    COMM,
    /** A reduction operation does not apply to the datatype. */
    OP,
    /** Any other argument out of range. */
    ARG,
    /** A message was longer than the receive buffer; the status tells how long. */
    TRUNCATE,
    /** A peer process died, or its connection broke and was not restored in time. */
    PEER_FAILED,
    /** A bounded wait expired (connect, handshake, bootstrap, progress). */
    TIMEOUT,
    /** A peer sent a frame that is malformed, foreign or out of sequence. */
    PROTOCOL,
    /** A connection could not prove the job secret. */
    AUTH,
    /** Bootstrap (key-value exchange, PMI) failed. */
    BOOTSTRAP,
    /** The request was cancelled. */
    CANCELLED,
    /** The library was used before init or after close. */
    NOT_INITIALIZED,
    /** An operating-system level I/O failure that is not one of the above. */
    IO,
    /** A bug in Railyard: please report it with the message. */
    INTERNAL,
    /** A one-sided operation or synchronisation outside the epoch it needs (MPI_ERR_RMA_SYNC). */
    RMA_SYNC
}
