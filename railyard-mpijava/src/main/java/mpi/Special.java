package mpi;

/**
 * The special ranks and tags, as the facade's fields give them (MPJ Express 0.44's values) and as
 * Railyard's native API knows them. They differ ({@code MPI.ANY_SOURCE} is -2 in MPJ Express and
 * -1 in Railyard, whose -1 would be {@code MPI.UNDEFINED} in MPJ Express), so every rank and tag
 * crosses this class once: facade to native on the way into Railyard ({@link #rankIn},
 * {@link #tagIn}), native to facade on the way out ({@link #rankOut}, {@link #tagOut}). Ordinary
 * ranks and tags (zero or more) pass unchanged.
 */
final class Special {
    private Special() {
    }

    /** MPJ Express 0.44's values; the fields of {@link MPI} are initialized from these. */
    static final int ANY_SOURCE = -2;
    static final int ANY_TAG = -2;
    static final int PROC_NULL = -3;
    static final int UNDEFINED = -1;

    /** A rank of the program (or {@code ANY_SOURCE}, {@code PROC_NULL}) as Railyard's API takes it. */
    static int rankIn(int rank) {
        return switch (rank) {
            case ANY_SOURCE -> org.railyard.Comm.ANY_SOURCE;
            case PROC_NULL -> org.railyard.Comm.PROC_NULL;
            case UNDEFINED -> throw MPIException.error("rank " + rank + " (MPI.UNDEFINED) is not a rank");
            default -> rank;
        };
    }

    /** A tag of the program (or {@code ANY_TAG}) as Railyard's API takes it. */
    static int tagIn(int tag) {
        if (tag == ANY_TAG) {
            return org.railyard.Comm.ANY_TAG;
        }
        if (tag < 0) {
            throw MPIException.error("tag " + tag + " is negative: tags are 0.." + MPI.TAG_UB + ", or MPI.ANY_TAG ("
                    + ANY_TAG + ") in a receive or probe");
        }
        return tag;
    }

    /** A rank Railyard returned, as the program sees it. */
    static int rankOut(int rank) {
        return switch (rank) {
            case org.railyard.Comm.ANY_SOURCE -> ANY_SOURCE;
            case org.railyard.Comm.PROC_NULL -> PROC_NULL;
            case org.railyard.Comm.UNDEFINED -> UNDEFINED;
            default -> rank;
        };
    }

    /** A tag Railyard returned, as the program sees it. */
    static int tagOut(int tag) {
        return tag == org.railyard.Comm.ANY_TAG ? ANY_TAG : tag;
    }

    /** {@link #rankOut} of every element, in place; returns {@code ranks}. */
    static int[] ranksOut(int[] ranks) {
        for (int i = 0; i < ranks.length; i++) {
            ranks[i] = rankOut(ranks[i]);
        }
        return ranks;
    }

    /** {@link #rankIn} of every element, into a new array. */
    static int[] ranksIn(int[] ranks) {
        if (ranks == null) {
            return null;
        }
        int[] out = new int[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            out[i] = rankIn(ranks[i]);
        }
        return out;
    }
}
