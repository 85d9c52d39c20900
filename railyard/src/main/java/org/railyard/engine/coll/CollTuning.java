package org.railyard.engine.coll;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.railyard.util.Config;

/**
 * The thresholds by which {@link Collectives} chooses an algorithm, each a {@code *_PROP} /
 * {@code *_DEFAULT} pair read once per engine (system property, or the environment variable of
 * the same name in capitals with '_' for '.'), and the algorithms a user forces by name with
 * {@code railyard.coll.<collective>=<algorithm>} (for example {@code RAILYARD_COLL_ALLREDUCE=ring}).
 * A forced algorithm that cannot run the call at hand (Rabenseifner with a non-commutative
 * operation, say) is replaced by the default choice, and the choice log says so.
 *
 * <p>Every process of a communicator must see the same settings: the algorithm decides who sends
 * what to whom.
 *
 * <p>The defaults follow the reasoning of Thakur, Rabenseifner and Gropp, "Optimization of
 * collective communication operations in MPICH" (2005): latency-bound algorithms (trees,
 * recursive doubling, Bruck) for short messages, bandwidth-bound ones (scatter then ring,
 * Rabenseifner, ring, pairwise exchange) for long ones, with the crossing points measured here.
 * Every default, the measurements behind it, their command and date are in
 * bench/results/coll-thresholds.md.
 */
final class CollTuning {
    /**
     * bcast: below this many bytes a binomial tree; from it, on at least
     * {@link #BCAST_SCATTER_MIN_P_PROP} processes spread over several nodes, binomial scatter then
     * ring allgather. On one node the tree is kept at every size (memory, not a link, is the
     * bottleneck there). Figures: bench/results/coll-thresholds.md.
     */
    static final String BCAST_LONG_PROP = "railyard.coll.bcast.long";
    static final long BCAST_LONG_DEFAULT = 12 * 1024;

    static final String BCAST_SCATTER_MIN_P_PROP = "railyard.coll.bcast.scatter.minsize";
    static final long BCAST_SCATTER_MIN_P_DEFAULT = 8;

    /**
     * bcast without the scatter-ring or two-level choice: from this many bytes, on at least 3
     * processes, the binomial tree is pipelined in segments of {@link #BCAST_SEGMENT_PROP} bytes.
     * Off by default: the overlap of the hops needs processors to run them on, and with more ranks
     * than cores the pipeline was no faster (figures: bench/results/coll-thresholds.md).
     */
    static final String BCAST_PIPELINE_PROP = "railyard.coll.bcast.pipeline";
    static final long BCAST_PIPELINE_DEFAULT = Long.MAX_VALUE;

    /** Segment of the pipelined broadcast, in bytes (rounded down to whole elements, at least one). */
    static final String BCAST_SEGMENT_PROP = "railyard.coll.bcast.segment";
    static final long BCAST_SEGMENT_DEFAULT = 128 * 1024;

    /** reduce (commutative): from this many bytes, Rabenseifner (reduce-scatter then gather). */
    static final String REDUCE_LONG_PROP = "railyard.coll.reduce.long";
    static final long REDUCE_LONG_DEFAULT = 64 * 1024;

    /** allreduce (commutative): from this many bytes, Rabenseifner (reduce-scatter then allgather). */
    static final String ALLREDUCE_LONG_PROP = "railyard.coll.allreduce.long";
    static final long ALLREDUCE_LONG_DEFAULT = 64 * 1024;

    /**
     * allreduce (commutative): from this many bytes on a non-power-of-two size, a ring (its 2(p-1)
     * steps cost less than the extra full-vector exchange Rabenseifner needs to fold the surplus
     * ranks).
     */
    static final String ALLREDUCE_RING_PROP = "railyard.coll.allreduce.ring";
    static final long ALLREDUCE_RING_DEFAULT = 512 * 1024;

    /** allgather(v): total bytes below which Bruck on a non-power-of-two size. */
    static final String ALLGATHER_SHORT_PROP = "railyard.coll.allgather.short";
    static final long ALLGATHER_SHORT_DEFAULT = 80 * 1024;

    /** allgather(v): total bytes below which recursive doubling on a power-of-two size; ring from it. */
    static final String ALLGATHER_LONG_PROP = "railyard.coll.allgather.long";
    static final long ALLGATHER_LONG_DEFAULT = 512 * 1024;

    /** gather and scatter: total bytes from which the root talks to every rank itself (linear). */
    static final String GATHER_LONG_PROP = "railyard.coll.gather.long";
    static final long GATHER_LONG_DEFAULT = 16 * 1024;

    /** alltoall: Bruck for blocks up to this many bytes when the size is at least {@link #ALLTOALL_BRUCK_MIN_P_PROP}. */
    static final String ALLTOALL_SHORT_PROP = "railyard.coll.alltoall.short";
    static final long ALLTOALL_SHORT_DEFAULT = 256;

    /** Below this size posting everything at once costs no more than Bruck's packing. */
    static final String ALLTOALL_BRUCK_MIN_P_PROP = "railyard.coll.alltoall.bruck.minsize";
    static final long ALLTOALL_BRUCK_MIN_P_DEFAULT = 16;

    /** alltoall(v) over several nodes: blocks from this many bytes go by pairwise exchange, one peer per round. */
    static final String ALLTOALL_LONG_PROP = "railyard.coll.alltoall.long";
    static final long ALLTOALL_LONG_DEFAULT = 256 * 1024;

    /**
     * alltoall(v) when every process runs on one node: blocks from this many bytes go by pairwise
     * exchange. There is no network link to flood, and posting everything at once lets a process
     * that has the processor copy all its blocks where pairwise rounds wait for one partner each.
     * For alltoall of 3 or more processes the shared segment takes over from
     * {@link #ALLTOALL_SHARED_PROP}; this still decides for 2 processes, for alltoallv, and when
     * the segment is off. Figures: bench/results/coll-thresholds.md.
     */
    static final String ALLTOALL_LONG_NODE_PROP = "railyard.coll.alltoall.long.node";
    static final long ALLTOALL_LONG_NODE_DEFAULT = 1024 * 1024;

    /** reduce_scatter: total bytes below which an allreduce then a local copy. */
    static final String REDUCE_SCATTER_SHORT_PROP = "railyard.coll.reducescatter.short";
    static final long REDUCE_SCATTER_SHORT_DEFAULT = 2 * 1024;

    /**
     * The shared segment ({@link CollShm}) for the blocking bcast, allgather(v), alltoall and allreduce of a
     * communicator whose members all run on one node.
     */
    static final String SHM_PROP = "railyard.coll.shm";
    static final boolean SHM_DEFAULT = true;

    /** Bytes of a communicator's shared segment (two halves; a larger collective goes in pieces). */
    static final String SHM_SIZE_PROP = "railyard.coll.shm.size";
    static final long SHM_SIZE_DEFAULT = 8L << 20;

    /**
     * bcast: from this many bytes, through the shared segment (up to 8 processes; see
     * {@link #bcastSharedFrom}). Figures: bench/results/coll-thresholds.md.
     */
    static final String BCAST_SHARED_PROP = "railyard.coll.bcast.shared";
    static final long BCAST_SHARED_DEFAULT = 64 * 1024;

    /**
     * allgather(v): from this many bytes in all, through the shared segment. Figures:
     * bench/results/coll-thresholds.md.
     */
    static final String ALLGATHER_SHARED_PROP = "railyard.coll.allgather.shared";
    static final long ALLGATHER_SHARED_DEFAULT = 64 * 1024;

    /**
     * alltoall: from blocks of this many bytes, through the shared segment. It copies as much as
     * the rings do (each block once in, once out); it gains what the rings' rendezvous and flow
     * control cost. Figures: bench/results/coll-thresholds.md.
     */
    static final String ALLTOALL_SHARED_PROP = "railyard.coll.alltoall.shared";
    static final long ALLTOALL_SHARED_DEFAULT = 128 * 1024;

    /**
     * alltoall through the shared segment: from blocks of this many bytes, when every member's
     * buffers are native memory and cross-memory reads are on, each member reads its blocks
     * straight from the others' send buffers (one copy, {@link CollShm#readBlocks}) instead of
     * through the segment's cells (a copy in, a copy out). Figures: bench/results/coll-thresholds.md.
     */
    static final String ALLTOALL_READS_PROP = "railyard.coll.alltoall.reads";
    static final long ALLTOALL_READS_DEFAULT = 512 * 1024;

    /**
     * alltoall(v, w) and allgather(v) over point-to-point messages (between two processes, say, or
     * when the shared segment is off): a message of fewer bytes than this is not offered for a
     * cross-memory read even from native memory, and goes through the channel, whose copy in by
     * the sender and copy out by the receiver run side by side while every member sends and
     * receives at once. Figures: bench/results/coll-thresholds.md.
     */
    static final String EXCHANGE_READS_PROP = "railyard.coll.exchange.reads";
    static final long EXCHANGE_READS_DEFAULT = 2L << 20;

    /**
     * allgather(v) through the shared segment: from this many bytes in all, when every member's
     * buffers are native memory and cross-memory reads are on, each member reads the others'
     * blocks straight from their send buffers ({@link CollShm#readBlocks}). Off by default: the
     * cells copy each block in once and out p - 1 times, and those copies beat p - 1 cross-memory
     * reads while the machine is calm. Figures: bench/results/coll-thresholds.md.
     */
    static final String ALLGATHER_READS_PROP = "railyard.coll.allgather.reads";
    static final long ALLGATHER_READS_DEFAULT = Long.MAX_VALUE;

    /**
     * allreduce: from vectors of this many bytes, through the shared segment (blocking, p &ge; 3,
     * one node; any operation, since each range is folded in rank order). Its two barriers replace
     * the 2 log p exchanges of Rabenseifner or the 2 (p - 1) steps of the ring. Figures:
     * bench/results/coll-thresholds.md.
     */
    static final String ALLREDUCE_SHARED_PROP = "railyard.coll.allreduce.shared";
    static final long ALLREDUCE_SHARED_DEFAULT = 128 * 1024;

    /**
     * reduce: from vectors of this many bytes, through the shared segment (as allreduce; only the
     * root copies out). Figures: bench/results/coll-thresholds.md.
     */
    static final String REDUCE_SHARED_PROP = "railyard.coll.reduce.shared";
    static final long REDUCE_SHARED_DEFAULT = 128 * 1024;

    /**
     * reduce_scatter(_block): from vectors of this many bytes in all, through the shared segment:
     * one barrier, each block crosses the segment once, and each member folds its own block.
     * Figures: bench/results/coll-thresholds.md.
     */
    static final String REDUCE_SCATTER_SHARED_PROP = "railyard.coll.reducescatter.shared";
    static final long REDUCE_SCATTER_SHARED_DEFAULT = 128 * 1024;

    /**
     * The counter barrier over the shared segment ({@link CollCounter}) for the blocking barrier,
     * small allreduce and bcast of a communicator of {@link #COUNTER_MIN_PROP} processes or more on one node.
     */
    static final String COUNTER_PROP = "railyard.coll.counter";
    static final boolean COUNTER_DEFAULT = true;

    /**
     * The fewest processes of a communicator whose barrier, small allreduce and bcast use the counter
     * barrier (2: between two ranks one counter word replaces a message each way; the figures are in
     * bench/results/log/2026-11-29-0121-quiet-window.md).
     */
    static final String COUNTER_MIN_PROP = "railyard.coll.counter.min";
    static final long COUNTER_MIN_DEFAULT = 2;

    /**
     * allreduce: vectors up to this many bytes go through the counter barrier ({@link CollCounter}:
     * each member reads every member's vector, so the bound stays small).
     */
    static final String ALLREDUCE_COUNTER_PROP = "railyard.coll.allreduce.counter";
    static final long ALLREDUCE_COUNTER_DEFAULT = 4 * 1024;

    /** Node-aware two-level algorithms when several processes share a node and there are several nodes. */
    static final String NODE_AWARE_PROP = "railyard.coll.nodeaware";
    static final boolean NODE_AWARE_DEFAULT = true;

    final long bcastLong = Config.bytes(BCAST_LONG_PROP, BCAST_LONG_DEFAULT);
    final long bcastScatterMinP = Config.number(BCAST_SCATTER_MIN_P_PROP, BCAST_SCATTER_MIN_P_DEFAULT);
    final long bcastPipeline = Config.bytes(BCAST_PIPELINE_PROP, BCAST_PIPELINE_DEFAULT);
    long bcastSegment = Math.max(1, Config.bytes(BCAST_SEGMENT_PROP, BCAST_SEGMENT_DEFAULT));
    final long reduceLong = Config.bytes(REDUCE_LONG_PROP, REDUCE_LONG_DEFAULT);
    final long allreduceLong = Config.bytes(ALLREDUCE_LONG_PROP, ALLREDUCE_LONG_DEFAULT);
    final long allreduceRing = Config.bytes(ALLREDUCE_RING_PROP, ALLREDUCE_RING_DEFAULT);
    final long allgatherShort = Config.bytes(ALLGATHER_SHORT_PROP, ALLGATHER_SHORT_DEFAULT);
    final long allgatherLong = Config.bytes(ALLGATHER_LONG_PROP, ALLGATHER_LONG_DEFAULT);
    final long gatherLong = Config.bytes(GATHER_LONG_PROP, GATHER_LONG_DEFAULT);
    final long alltoallShort = Config.bytes(ALLTOALL_SHORT_PROP, ALLTOALL_SHORT_DEFAULT);
    final long alltoallBruckMinP = Config.number(ALLTOALL_BRUCK_MIN_P_PROP, ALLTOALL_BRUCK_MIN_P_DEFAULT);
    final long alltoallLong = Config.bytes(ALLTOALL_LONG_PROP, ALLTOALL_LONG_DEFAULT);
    final long alltoallLongNode = Config.bytes(ALLTOALL_LONG_NODE_PROP, ALLTOALL_LONG_NODE_DEFAULT);
    final long reduceScatterShort = Config.bytes(REDUCE_SCATTER_SHORT_PROP, REDUCE_SCATTER_SHORT_DEFAULT);
    final boolean nodeAware = Config.bool(NODE_AWARE_PROP, NODE_AWARE_DEFAULT);
    final boolean sites = Config.bool(Config.COLL_SITES_PROP, Config.COLL_SITES_DEFAULT);
    final boolean shm = Config.bool(SHM_PROP, SHM_DEFAULT);
    long shmSize = Config.bytes(SHM_SIZE_PROP, SHM_SIZE_DEFAULT);
    final long bcastShared = Config.bytes(BCAST_SHARED_PROP, BCAST_SHARED_DEFAULT);
    final long allgatherShared = Config.bytes(ALLGATHER_SHARED_PROP, ALLGATHER_SHARED_DEFAULT);
    long alltoallShared = Config.bytes(ALLTOALL_SHARED_PROP, ALLTOALL_SHARED_DEFAULT);
    long alltoallReads = Config.bytes(ALLTOALL_READS_PROP, ALLTOALL_READS_DEFAULT);
    long allgatherReads = Config.bytes(ALLGATHER_READS_PROP, ALLGATHER_READS_DEFAULT);
    final long exchangeReads = Config.bytes(EXCHANGE_READS_PROP, EXCHANGE_READS_DEFAULT);
    final long allreduceShared = Config.bytes(ALLREDUCE_SHARED_PROP, ALLREDUCE_SHARED_DEFAULT);
    final long reduceShared = Config.bytes(REDUCE_SHARED_PROP, REDUCE_SHARED_DEFAULT);
    final boolean counter = Config.bool(COUNTER_PROP, COUNTER_DEFAULT);
    final long counterMin = Math.max(2, Config.number(COUNTER_MIN_PROP, COUNTER_MIN_DEFAULT));
    final long allreduceCounter = Config.bytes(ALLREDUCE_COUNTER_PROP, ALLREDUCE_COUNTER_DEFAULT);
    final long reduceScatterShared = Config.bytes(REDUCE_SCATTER_SHARED_PROP, REDUCE_SCATTER_SHARED_DEFAULT);
    /** Largest intermediate buffer a pooled schedule keeps for its next call ({@code railyard.coll.scratch.keep}). */
    final long scratchKeep = Config.bytes(Config.COLL_SCRATCH_KEEP_PROP, Config.COLL_SCRATCH_KEEP_DEFAULT);

    /** The collectives whose algorithm can be forced, by the names the choice log uses. */
    static final String[] COLLECTIVES = {"barrier", "bcast", "reduce", "allreduce", "reduce_scatter", "scan", "exscan",
        "gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce_scatter_block"};

    private final Map<String, String> forced = new ConcurrentHashMap<>();

    CollTuning() {
        for (String c : COLLECTIVES) {
            String v = Config.raw("railyard.coll." + c);
            if (v != null) {
                forced.put(c, v);
            }
        }
    }

    /** Sets the segment of the pipelined broadcast (tests use small ones to make many segments). */
    void bcastSegment(long bytes) {
        bcastSegment = Math.max(1, bytes);
    }

    /**
     * The size from which bcast goes through the shared segment on {@code p} processes:
     * {@link #BCAST_SHARED_PROP} up to 8 processes, a quarter of it for each doubling beyond. The
     * tree's hops of the whole message grow with log2 p, the segment's copies do not (figures:
     * bench/results/coll-thresholds.md).
     */
    long bcastSharedFrom(int p) {
        int doublings = 32 - Integer.numberOfLeadingZeros(Math.max(1, p - 1)) - 3;
        return doublings <= 0 ? bcastShared : bcastShared >> Math.min(62, 2 * doublings);
    }

    /** Sets the block size from which alltoall goes through the shared segment (tests see the other algorithms with it high). */
    void alltoallShared(long bytes) {
        alltoallShared = bytes;
    }

    /** Sets the block size from which alltoall reads the others' native buffers (tests see the segment's cells with it high). */
    void alltoallReads(long bytes) {
        alltoallReads = bytes;
    }

    /** Sets the total size from which allgather(v) reads the others' native buffers (tests turn it on). */
    void allgatherReads(long bytes) {
        allgatherReads = bytes;
    }

    /** Sets the size of the shared segments mapped from now on (tests use small ones to make many pieces). */
    void shmSize(long bytes) {
        shmSize = bytes;
    }

    /** The algorithm forced for {@code collective} ("allreduce", "bcast", ...), or null. */
    String forced(String collective) {
        return forced.isEmpty() ? null : forced.get(collective);
    }

    /** Forces an algorithm for this engine (tests); null lifts it. Every rank must force the same. */
    void force(String collective, String algorithm) {
        if (algorithm == null) {
            forced.remove(collective);
        } else {
            forced.put(collective, algorithm);
        }
    }
}
