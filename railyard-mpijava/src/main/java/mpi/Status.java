package mpi;

/**
 * What a completed receive, a probe or a wait tells: the sender ({@link #source}), the tag
 * ({@link #tag}), the position of the request in the array of a {@code Waitany}/{@code Waitsome}
 * ({@link #index}), and how much arrived ({@link #Get_count}, {@link #Get_elements}).
 *
 * <p>Built from Railyard's {@link org.railyard.Status}: the facade keeps the length of the message
 * in bytes and turns it into counts for the datatype the caller asks about, so the counts of a
 * probed message are right for any datatype. For {@link MPI#OBJECT} the count is the number of
 * objects sent, which the length of Railyard's object message encodes (see {@link Comm}), so a
 * program may {@code Probe}, size an {@code Object[]} with {@code Get_count(MPI.OBJECT)}, then
 * receive.
 */
public class Status implements Freeable {
    /** Rank of the sender in the communicator of the receive; {@link MPI#ANY_SOURCE} in an empty status. */
    public int source;
    /** Tag of the message; {@link MPI#ANY_TAG} in an empty status. */
    public int tag;
    /** Index of the request in the array passed to an any/some wait or test; {@link MPI#UNDEFINED} otherwise. */
    public int index;

    /** Length of the message on the wire, bytes. */
    long bytes;
    /** Objects received, for an OBJECT receive; -1 if the count must come from {@link #bytes}. */
    int objects = -1;
    boolean cancelled;

    /** An empty status: any source, any tag, nothing received. */
    public Status() {
        this.source = MPI.ANY_SOURCE;
        this.tag = MPI.ANY_TAG;
        this.index = MPI.UNDEFINED;
    }

    /** A status from Railyard's values of {@code source} and {@code tag} (see {@link Special}). */
    Status(int source, int tag, long bytes) {
        this.source = Special.rankOut(source);
        this.tag = Special.tagOut(tag);
        this.index = MPI.UNDEFINED;
        this.bytes = bytes;
    }

    static Status of(org.railyard.Status s) {
        Status st = new Status(s.source(), s.tag(), s.bytes());
        st.cancelled = s.cancelled();
        return st;
    }

    /**
     * Number of whole elements of {@code datatype} received, or {@link MPI#UNDEFINED} if what
     * arrived is not a whole number of them. For a datatype that moves no data (size 0, such as a
     * {@code Struct} of no blocks) it is 0, as MPI says (MPJ Express 0.44 answers 1).
     */
    public int Get_count(Datatype datatype) throws MPIException {
        datatype.checkUsable();
        int size = datatype.size();
        if (size == 0 && datatype.base != Datatype.B_PACKED) {
            // MPI 3.1, 3.2.5: "If the size of the datatype is zero, this routine will return a count of zero."
            // (MPJ Express 0.44 answers 1.)
            return 0;
        }
        int values = Get_elements(datatype);
        if (values == MPI.UNDEFINED) {
            return MPI.UNDEFINED;
        }
        return values % size == 0 ? values / size : MPI.UNDEFINED;
    }

    /** True if the request this status completes was cancelled before it matched a message. */
    public boolean Test_cancelled() throws MPIException {
        return cancelled;
    }

    /** A status holds no library resources: there is nothing to release. */
    @Override
    public void free() {
    }

    /**
     * Number of base values received (of the base type of {@code datatype}: ints for a vector of
     * {@code MPI.INT}, objects for {@code MPI.OBJECT}); {@link MPI#UNDEFINED} if the message is not
     * a whole number of them.
     */
    public int Get_elements(Datatype datatype) throws MPIException {
        datatype.checkUsable();
        if (cancelled) {
            return 0;
        }
        if (datatype.isObject()) {
            if (objects >= 0) {
                return objects;
            }
            if (bytes == 0 && source == MPI.PROC_NULL) {
                return 0;
            }
            int n = ObjectMessages.countOf(bytes);
            return n < 0 ? MPI.UNDEFINED : n;
        }
        if (datatype.kind == null) {
            return bytes == 0 ? 0 : MPI.UNDEFINED;
        }
        int w = datatype.kind.size;
        return bytes % w == 0 ? (int) (bytes / w) : MPI.UNDEFINED;
    }

    @Override
    public String toString() {
        return "Status[source=" + source + ", tag=" + tag + ", bytes=" + bytes
                + (objects >= 0 ? ", objects=" + objects : "") + (cancelled ? ", cancelled" : "")
                + (index != MPI.UNDEFINED ? ", index=" + index : "") + "]";
    }
}
