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
 * Rabenseifner, ring, pairwise exchange) for long ones. The crossing points were measured here,
 * on shared memory with more processes than cores (the algorithms interleaved, medians of 15
 * runs): there the number of steps weighs more than in MPICH's cluster measurements, so trees,
 * recursive doubling and posting everything at once stay best up to larger sizes.
 */
final class CollTuning {
    /**
     * bcast: below this many bytes a binomial tree; from it, on at least
     * {@link #BCAST_SCATTER_MIN_P_PROP} processes spread over several nodes, binomial scatter then
     * ring allgather. On one node the tree wins at every size: memory, not a link, is the
     * bottleneck, and the tree copies no more bytes in fewer steps.
     */
    static final String BCAST_LONG_PROP = "railyard.coll.bcast.long";
    static final long BCAST_LONG_DEFAULT = 12 * 1024;

    static final String BCAST_SCATTER_MIN_P_PROP = "railyard.coll.bcast.scatter.minsize";
    static final long BCAST_SCATTER_MIN_P_DEFAULT = 8;

    /**
     * bcast without the scatter-ring or two-level choice: from this many bytes, on at least 3
     * processes, the binomial tree is pipelined in segments of {@link #BCAST_SEGMENT_PROP} bytes.
     * Off by default: the overlap of the hops needs processors to run them on, and with 4 ranks
     * on 2 cores the pipeline took as long as the plain tree or longer (np 4, 512 KiB, five
     * alternating runs of {@code CollectiveBenchRank bcast} with {@code RAILYARD_COLL_BCAST}
     * binomial then pipeline: 143.6-302.9 us against 222.8-444.3 us with heap arrays).
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
     * that has the processor copy all its blocks where pairwise rounds wait for one partner each
     * (np 8 on 2 cores, three alternating runs of 1500 calls, mean us, linear against pairwise:
     * 256 KiB 3531, 3610, 3534 against 4025, 3777, 4309; 512 KiB 7146, 7297, 6617 against 7617,
     * 6734, 7210; np 4 at 256 KiB, seven runs: linear lower in five). For alltoall of 3 or more
     * processes the shared segment takes over from 128 KiB blocks ({@link #ALLTOALL_SHARED_PROP});
     * this still decides for 2 processes, for alltoallv, and when the segment is off.
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
     * {@link #bcastSharedFrom}). Runs of 1000 calls a size (np 4, heap arrays, six alternating
     * runs of {@code CollectiveBenchRank alltoall,bcast --sizes 64k:256k --iters 20000} with
     * {@code RAILYARD_COLL_BCAST_SHARED} at 256k, then 64k, mean us): 64 KiB 32.7, 30.4, 27.8,
     * 38.0, 55.2, 34.5 against 20.7, 25.7, 17.6, 31.2, 20.0, 21.1; 128 KiB 61.0, 52.0, 48.0, 73.9,
     * 115.3, 107.3 against 35.7, 32.4, 22.3, 58.6, 27.8, 25.5. Runs of 50 calls, which an earlier
     * threshold of 256 KiB rested on, had the tree ahead at 64 KiB in two of three. Earlier, np 4,
     * five runs at 512 KiB, medians 293 against 171 us, and 1 MiB, 497 against 393; np 8, 1 MiB:
     * 3993, 4276 against 669, 438.
     */
    static final String BCAST_SHARED_PROP = "railyard.coll.bcast.shared";
    static final long BCAST_SHARED_DEFAULT = 64 * 1024;

    /**
     * allgather(v): from this many bytes in all, through the shared segment (np 4, 16 KiB from
     * each: 48.2, 43.9, 51.1 us against 34.0, 32.5, 27.5; 64 KiB from each: 141.7, 162.9, 110.2
     * against 103.4, 113.0, 54.0; 256 KiB: 466.6, 618.1, 501.7 against 363.8, 444.9, 139.3; np 8,
     * 64 KiB: 1227, 924 against 410, 569; below 16 KiB from each no difference showed).
     */
    static final String ALLGATHER_SHARED_PROP = "railyard.coll.allgather.shared";
    static final long ALLGATHER_SHARED_DEFAULT = 64 * 1024;

    /**
     * alltoall: from blocks of this many bytes, through the shared segment. It copies as much as
     * the rings do (each block once in, once out); it gains what the rings' rendezvous and flow
     * control cost. Runs of 1000 calls a size (np 4, heap arrays, the six alternating runs of the
     * bcast measurement above with {@code RAILYARD_COLL_ALLTOALL_SHARED} at 1m, then 64k, mean
     * us): 128 KiB 275.9, 198.9, 242.7, 341.2, 246.9, 302.3 against 301.3, 92.5, 82.3, 247.4,
     * 108.5, 265.2; 256 KiB 607.7, 436.2, 462.3, 489.3, 453.2, 451.6 against 331.0, 469.5, 226.5,
     * 445.3, 472.8, 436.7; 64 KiB split (three each way). np 8, two runs: 128 KiB 1670, 1705
     * against 1217, 1174; 64 KiB 571.5, 611.9 against 715.8, 639.9.
     */
    static final String ALLTOALL_SHARED_PROP = "railyard.coll.alltoall.shared";
    static final long ALLTOALL_SHARED_DEFAULT = 128 * 1024;

    /**
     * alltoall through the shared segment: from blocks of this many bytes, when every member's
     * buffers are native memory and cross-memory reads are on, each member reads its blocks
     * straight from the others' send buffers (one copy, {@link CollShm#readBlocks}) instead of
     * through the segment's cells (a copy in, a copy out). Paired runs at np 4 (median of five
     * rounds, us, bench/results/collectives-large-np4-paired-*-2026-11-27.md), native buffers read
     * from 64 KiB against heap arrays through the cells: with {@code --touch} 128 KiB 227.4 against
     * 116.1, 256 KiB 381.1 against 238.1, 512 KiB 1047 against 1063, 1 MiB 2424 against 2324;
     * without, 188.1 against 110.9, 332.2 against 189.6, 599.0 against 508.7, 1310 against 1405.
     * From 512 KiB the reads draw with the cells and keep their level in the slow spells where the
     * cells' written lines cross cores at a high price.
     */
    static final String ALLTOALL_READS_PROP = "railyard.coll.alltoall.reads";
    static final long ALLTOALL_READS_DEFAULT = 512 * 1024;

    /**
     * alltoall(v, w) and allgather(v) over point-to-point messages (between two processes, say, or
     * when the shared segment is off): a message of fewer bytes than this is not offered for a
     * cross-memory read even from native memory, and goes through the channel. Every member sends
     * and receives at once there, and the channel's copy in by the sender and copy out by the
     * receiver run side by side. Between two processes with native buffers the reads mostly lost
     * from 256 KiB to 1 MiB (allgather at 1 MiB was split) and won at 4 MiB; see
     * bench/results/coll-exchange-reads-2026-11-27.md and bench/RESULTS.md.
     */
    static final String EXCHANGE_READS_PROP = "railyard.coll.exchange.reads";
    static final long EXCHANGE_READS_DEFAULT = 2L << 20;

    /**
     * allgather(v) through the shared segment: from this many bytes in all, when every member's
     * buffers are native memory and cross-memory reads are on, each member reads the others'
     * blocks straight from their send buffers ({@link CollShm#readBlocks}). Off by default:
     * the cells copy each block in once and out p - 1 times, and those copies beat p - 1
     * cross-memory reads while the machine is calm. Four alternating runs at np 4, off-heap,
     * blocks of 64 KiB / 256 KiB / 1 MiB, mean us: cells 101.7 / 136.0 / 1364, 35.8 / 115.0 /
     * 528.2, 35.0 / 116.3 / 514.2, 34.9 / 129.7 / 513.3; reads 77.7 / 190.4 / 658.6, 67.0 /
     * 218.4 / 695.3, 65.1 / 210.1 / 676.2, 68.5 / 202.8 / 664.4. The reads hold their level when
     * written lines crossing cores turn dear (bench/probes/DirtyLineProbe.java), as in the first
     * run of the cells.
     */
    static final String ALLGATHER_READS_PROP = "railyard.coll.allgather.reads";
    static final long ALLGATHER_READS_DEFAULT = Long.MAX_VALUE;

    /**
     * allreduce: from vectors of this many bytes, through the shared segment (blocking, p &ge; 3,
     * one node; any operation, since each range is folded in rank order). Its two barriers replace
     * the 2 log p exchanges of Rabenseifner or the 2 (p - 1) steps of the ring. Heap arrays, mean
     * us, alternating runs of {@code CollectiveBenchRank allreduce --iters 20000} (10000 at np 3
     * and 8) with this setting at 1g, then at 64k: np 4 128 KiB 118.7, 127.1, 174.4 against 77.1,
     * 157.2, 129.2; 1 MiB 845.6, 789.5, 1096 against 505.2, 747.0, 851.4 (off-heap 1331, 1008, 1356
     * against 620.5, 882.8, 735.4); np 3 1 MiB 812.5, 826.0 against 600.5, 678.9; np 8 1 MiB 3233,
     * 4041 against 2675, 2538. At 64 KiB it drew at np 3 and 4 and lost at np 8 (289.5, 324.7
     * against 391.7, 348.9); at 128 KiB np 8 drew (398.4, 613.3 against 465.4, 457.6).
     */
    static final String ALLREDUCE_SHARED_PROP = "railyard.coll.allreduce.shared";
    static final long ALLREDUCE_SHARED_DEFAULT = 128 * 1024;

    /**
     * reduce: from vectors of this many bytes, through the shared segment (as allreduce; only the
     * root copies out). Heap arrays, mean us, alternating runs of {@code CollectiveBenchRank
     * reduce,reduce_scatter_block --sizes 32k:1m --iters 20000} (10000 at np 8) with this setting
     * and the next at 1g, then at 32k: np 4 128 KiB 110.4, 129.7, 150.2 against 138.0, 90.2, 55.0;
     * 512 KiB 502.5, 512.0, 499.4 against 323.7, 184.0, 438.6; np 3 128 KiB 208.6, 145.7 against
     * 80.2, 100.0; np 8 128 KiB 417.3, 433.1 against 214.2, 416.9; 1 MiB 2140, 2208 against 1572,
     * 2032. At 32 KiB the segment lost at np 3 and 8, at 64 KiB it drew at np 3.
     */
    static final String REDUCE_SHARED_PROP = "railyard.coll.reduce.shared";
    static final long REDUCE_SHARED_DEFAULT = 128 * 1024;

    /**
     * reduce_scatter(_block): from vectors of this many bytes in all, through the shared segment:
     * one barrier, each block crosses the segment once, and each member folds its own block. The
     * runs above, reduce_scatter_block: np 4 128 KiB 131.8, 135.7, 139.6 against 69.2, 41.2, 112.0;
     * 1 MiB 671.4, 886.8, 753.8 against 630.2, 299.0, 421.1; np 3 128 KiB 78.3, 73.9 against 50.8,
     * 79.9; np 8 128 KiB 314.1, 385.4 against 278.0, 323.4; 64 KiB 218.1, 218.4 against 168.2,
     * 257.6.
     */
    static final String REDUCE_SCATTER_SHARED_PROP = "railyard.coll.reducescatter.shared";
    static final long REDUCE_SCATTER_SHARED_DEFAULT = 128 * 1024;

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
     * tree's hops of the whole message grow with log2 p, the segment's copies do not; below 64 KiB
     * the segment's barrier still costs more at np 8 (three alternating runs, mean us, segment
     * from 1 B against from 256 KiB: 16 KiB 68.7, 148.5, 64.8 against 27.9, 30.8, 24.9; 64 KiB
     * 91.5, 83.5, 109.0 against 116.0, 133.3, 146.2; 128 KiB 120.5, 148.3, 99.0 against 225.0,
     * 262.8, 219.5; two runs, from 16 KiB against from 64 KiB: 16 KiB 77.9, 66.0 against 36.2,
     * 22.1; 32 KiB 55.0, 65.0 against 45.2, 47.6).
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
