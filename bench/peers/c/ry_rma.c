/*
 * ry_rma: Railyard's one-sided benchmark (`railyard bench rma`, org.railyard.bench.RmaBenchRank)
 * written against the MPI C API, so that Railyard's windows can be compared with a native MPI
 * library's on the same machine, with the same method and the same output. Keep the two in step
 * (bench/README.md, "One-sided").
 *
 * The method follows the OSU one-sided micro-benchmarks: 2 ranks (others, if any, sit out), a
 * window made by MPI_Win_allocate for each benchmark and size, rank 0 the origin and rank 1 the
 * target, except in the two active-target modes, where each rank in turn is origin of one epoch.
 *
 *   benchmarks  put_latency, get_latency: one put (get) of S bytes and its completion;
 *               put_bw, get_bw: a window of 64 puts (gets) of S bytes (32 above 8 KiB) to
 *               consecutive displacements, then their completion; a sample is one window, reported
 *               per operation, and MB/s counts the bytes of the timed windows over their time;
 *               acc_latency: MPI_Accumulate(MPI_SUM) of S/4 ints of value 1 (sizes under 4 skipped);
 *               --op OP[:TYPE] chooses another operation (sum, prod, max, min, bor) or another
 *               type (long: int64_t, float, double; S/size values of 1, sizes under one value
 *               skipped; bor takes integers only); the target starts at 0, and the row is
 *               named acc_OP_TYPE_latency unless the operation is the default sum:int;
 *               fop_latency: MPI_Fetch_and_op(MPI_SUM) of one 8-byte integer;
 *               cas_latency: MPI_Compare_and_swap of one 8-byte integer (always succeeds: the
 *               origin is the only writer and knows the value); fop and cas run at 8 bytes only.
 *   sync modes  flush: one shared lock for the whole loop, each iteration completed by a flush;
 *               lock:  each iteration in its own exclusive lock/unlock epoch;
 *               fence: rank 0's operations in one fence epoch, rank 1's (to rank 0) in the next;
 *                      an iteration is the two epochs, a latency sample half of it;
 *               pscw:  the same with post/start/complete/wait between the two ranks.
 *               (for bw, fence and pscw: rank 0 alone is origin, one epoch per window)
 *   iterations  latency: 10000 timed iterations and 100 warm-up up to 8 KiB, 1000 and 10 above
 *               (--iters N replaces 10000; the others scale with it); bw: a hundredth of that in
 *               windows (100) up to 8 KiB, 30 windows above, a tenth of it as warm-up (at least 1).
 *   checks      every rank fills its window with the pattern byte i = i*31 + rank before the
 *               measurement; afterwards the target of puts finds the origin's pattern in its
 *               window, the origin of gets finds the target's pattern in what it read, an
 *               accumulate target finds each value equal to the number of accumulates it received
 *               (sum; prod and min: 0; max and bor: 1),
 *               and every fetch-and-op and compare-and-swap result is the value expected. A
 *               mismatch stops the run.
 *   output      rank 0 writes TSV on stdout, one header line then one line per benchmark, mode
 *               and size: `benchmark transport np bytes iterations mean_us p50_us p99_us max_us
 *               MB_s`, benchmark as NAME-MODE (put_latency-flush). Times are microseconds per
 *               operation; percentiles nearest-rank over the samples; MB/s is 10^6 bytes/s.
 *
 * Usage: mpirun -np 2 ry_rma [BENCH|all][,...] [--sync flush,lock,fence,pscw] [--sizes SPEC]
 *                            [--iters N] [--op OP[:int|long|float|double]] [--transport LABEL]
 *   BENCH  put_latency, get_latency, put_bw, get_bw, acc_latency, fop_latency, cas_latency
 *   SPEC   comma-separated items, each a size (8, 64k, 4m) or a range LO:HI of powers of two;
 *          default 1:4m.
 *   LABEL  free text written in the transport column (the caller knows which BTL it selected).
 *
 * Open MPI: a window whose members share a node is served by osc sm unless the caller chose the
 * one-sided component (OMPI_MCA_osc, or osc rdma's priority): see steer_open_mpi_osc.
 *
 * Build: mpicc -O2 -o ry_rma ry_rma.c
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ry_common.h"

#define LARGE_LIMIT (8L * 1024)
#define WINDOW_SMALL 64
#define WINDOW_LARGE 32

enum bench { PUT_LAT, GET_LAT, PUT_BW, GET_BW, ACC_LAT, FOP_LAT, CAS_LAT, NBENCH };
enum sync { FLUSH, LOCK, FENCE, PSCW, NSYNC };

static const char *const BENCH_NAMES[NBENCH] = {"put_latency", "get_latency", "put_bw", "get_bw",
                                                "acc_latency", "fop_latency", "cas_latency"};
static const char *const SYNC_NAMES[NSYNC] = {"flush", "lock", "fence", "pscw"};

static int rank, nprocs;
static MPI_Comm pair;          /* ranks 0 and 1 */
static MPI_Group peer_group;   /* the other rank of the pair, for post/start */
static const char *transport = "mpi";
static long iter_base = 10000;
static int benches, syncs; /* the bits of the benchmarks and synchronisations to run; none named: all */


static void die(const char *msg) {
    if (rank == 0) {
        fprintf(stderr, "ry_rma: %s\n", msg);
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static void fail_check(const char *what, long at, long expected, long got) {
    fprintf(stderr, "ry_rma: rank %d: %s: at %ld expected %ld, found %ld\n", rank, what, at, expected, got);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
}



#ifdef OPEN_MPI
#define OSC_RDMA_PRIORITY_BELOW_SM "50"
/*
 * Open MPI 4.1 (osc rdma over btl vader, its default for MPI_Win_allocate on one node) breaks
 * MPI_Compare_and_swap: the origin hands its own mapping's address of the target's window memory
 * to vader's emulated atomic, and the target applies the swap at that address in its address
 * space, which holds nothing there (SIGSEGV in the target's next progress, MPI_Barrier here; with
 * address randomisation off the two mappings coincide and it passes). Its fetch-and-op checks for
 * that case, its compare-and-swap does not. OSU's osu_cas_latency crashes the same way.
 * So, when the caller named no one-sided component, osc rdma's priority goes below osc sm's:
 * a window whose members share a node gets osc sm (loads, stores and atomics in shared memory)
 * and any other window osc rdma as before. Must run before MPI_Init; returns whether it did.
 */
static int steer_open_mpi_osc(void) {
    if (getenv("OMPI_MCA_osc") != NULL || getenv("OMPI_MCA_osc_rdma_priority") != NULL) {
        return 0;
    }
    return setenv("OMPI_MCA_osc_rdma_priority", OSC_RDMA_PRIORITY_BELOW_SM, 0) == 0;
}
#else
static int steer_open_mpi_osc(void) { return 0; }
#endif

static int is_bw(enum bench b) { return b == PUT_BW || b == GET_BW; }

/* Operations per iteration (the bw window), timed iterations and warm-up (header comment). */
static void iterations(enum bench b, long size, long *ops, long *iters, long *warmup) {
    int large = size > LARGE_LIMIT;
    if (is_bw(b)) {
        *ops = large ? WINDOW_LARGE : WINDOW_SMALL;
        *iters = large ? iter_base * 3 / 1000 : iter_base / 100;
        if (*iters < 1) {
            *iters = 1;
        }
        *warmup = *iters / 10 < 1 ? 1 : *iters / 10;
    } else {
        *ops = 1;
        *iters = large ? iter_base / 10 : iter_base;
        if (*iters < 1) {
            *iters = 1;
        }
        *warmup = large ? iter_base / 1000 : iter_base / 100;
        if (*warmup < 1) {
            *warmup = 1;
        }
    }
}



/* acc_latency's operation (--op): the MPI operation, its name, and the type of its values. */
enum acc_type { ACC_INT, ACC_LONG, ACC_FLOAT, ACC_DOUBLE, NACC_TYPE };
static const char *const ACC_TYPE_NAMES[] = {"int", "long", "float", "double"};
static MPI_Op acc_op = MPI_SUM;
static const char *acc_name = "sum";
static enum acc_type acc_type = ACC_INT;
static char acc_label[64] = "acc_latency";

static int acc_bytes(void) {
    static const int bytes[] = {sizeof(int), sizeof(int64_t), sizeof(float), sizeof(double)};
    return bytes[acc_type];
}

static MPI_Datatype acc_mpi_type(void) {
    switch (acc_type) {
    case ACC_LONG: return MPI_INT64_T;
    case ACC_FLOAT: return MPI_FLOAT;
    case ACC_DOUBLE: return MPI_DOUBLE;
    default: return MPI_INT;
    }
}

/* Value i of a window of acc_type, as a double (a float counts exactly up to 2^24). */
static double acc_value(const void *base, long i) {
    switch (acc_type) {
    case ACC_LONG: return (double) ((const int64_t *) base)[i];
    case ACC_FLOAT: return ((const float *) base)[i];
    case ACC_DOUBLE: return ((const double *) base)[i];
    default: return ((const int *) base)[i];
    }
}

/* Fills n bytes of buf with values of 1 of acc_type. */
static void acc_ones(void *buf, long n) {
    for (long i = 0; i < n / acc_bytes(); i++) {
        switch (acc_type) {
        case ACC_LONG: ((int64_t *) buf)[i] = 1; break;
        case ACC_FLOAT: ((float *) buf)[i] = 1.0f; break;
        case ACC_DOUBLE: ((double *) buf)[i] = 1.0; break;
        default: ((int *) buf)[i] = 1; break;
        }
    }
}

/* Each target value after n >= 1 accumulates of 1 into 0. */
static long acc_expected(long n) {
    if (acc_op == MPI_SUM) {
        return n;
    }
    return (acc_op == MPI_PROD || acc_op == MPI_MIN) ? 0 : 1;
}

static void report(enum bench b, enum sync s, long bytes, long iters, double *samples, double mean_us, double mbs) {
    qsort(samples, (size_t) iters, sizeof(double), cmp_double);
    printf("%s-%s\t%s\t%d\t%ld\t%ld\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\n", b == ACC_LAT ? acc_label : BENCH_NAMES[b],
           SYNC_NAMES[s], transport, nprocs,
           bytes, iters, mean_us, percentile(samples, iters, 50), percentile(samples, iters, 99), samples[iters - 1],
           mbs);
    fflush(stdout);
}

static unsigned char pattern(long i, int seed) { return (unsigned char) (i * 31 + seed); }

/* Fails the check unless the n bytes of buf hold the pattern of rank src. */
static void check_pattern(const char *what, const unsigned char *buf, long n, int src) {
    for (long i = 0; i < n; i++) {
        if (buf[i] != pattern(i, src)) {
            fail_check(what, i, pattern(i, src), buf[i]);
        }
    }
}

/* One measurement's state: the window, the local buffers, what the checks need. */
struct run {
    enum bench b;
    enum sync s;
    long size, ops, iters, warmup;
    MPI_Win win;
    unsigned char *base; /* this rank's window memory */
    unsigned char *sbuf; /* origin data: pattern of this rank, or ints of 1 for accumulate */
    unsigned char *rbuf; /* what gets and atomics bring back */
    long received;       /* accumulates, fetch-and-ops or swaps this rank's window took */
    int64_t next;        /* fop/cas: the value the next operation will find at the target */
};

/* Issues the operations of one iteration from this rank to peer (no completion). */
static void issue(struct run *r, int peer) {
    long n = r->size;
    switch (r->b) {
    case PUT_LAT:
    case PUT_BW:
        for (long j = 0; j < r->ops; j++) {
            MPI_Put(r->sbuf + j * n, (int) n, MPI_BYTE, peer, j * n, (int) n, MPI_BYTE, r->win);
        }
        break;
    case GET_LAT:
    case GET_BW:
        for (long j = 0; j < r->ops; j++) {
            MPI_Get(r->rbuf + j * n, (int) n, MPI_BYTE, peer, j * n, (int) n, MPI_BYTE, r->win);
        }
        break;
    case ACC_LAT:
        MPI_Accumulate(r->sbuf, (int) (n / acc_bytes()), acc_mpi_type(), peer, 0, (int) (n / acc_bytes()),
                       acc_mpi_type(), acc_op, r->win);
        break;
    case FOP_LAT: {
        static const int64_t one = 1;
        MPI_Fetch_and_op(&one, r->rbuf, MPI_INT64_T, peer, 0, MPI_SUM, r->win);
        break;
    }
    case CAS_LAT: {
        static int64_t swap, compare;
        compare = r->next;
        swap = r->next + 1;
        MPI_Compare_and_swap(&swap, &compare, r->rbuf, MPI_INT64_T, peer, 0, r->win);
        break;
    }
    default:
        break;
    }
}

/* After an iteration's completion: the value an atomic fetched is the one expected. */
static void after(struct run *r) {
    if (r->b == FOP_LAT || r->b == CAS_LAT) {
        int64_t got;
        memcpy(&got, r->rbuf, sizeof got);
        if (got != r->next) {
            fail_check(r->b == FOP_LAT ? "fetch-and-op result" : "compare-and-swap result", 0, (long) r->next,
                       (long) got);
        }
        r->next++;
    }
}

/* One epoch in an active-target mode in which rank origin issues the operation and checks its result. */
static void active_epoch(struct run *r, int origin, int peer) {
    if (r->s == FENCE) {
        if (rank == origin) {
            issue(r, peer);
        }
        MPI_Win_fence(0, r->win);
        if (rank == origin) {
            after(r);
        }
    } else if (rank == origin) {
        MPI_Win_start(peer_group, 0, r->win);
        issue(r, peer);
        MPI_Win_complete(r->win);
        after(r);
    } else {
        MPI_Win_post(peer_group, 0, r->win);
        MPI_Win_wait(r->win);
    }
}

/* One iteration in an active-target mode: epoch 1 rank 0 is origin, epoch 2 rank 1 (latency);
 * for bw only epoch 1. */
static void active_iteration(struct run *r) {
    int peer = 1 - rank;
    active_epoch(r, 0, peer);
    if (!is_bw(r->b)) {
        active_epoch(r, 1, peer);
    }
}

/* The timed loop; rank 0 returns the samples (microseconds per operation) and the elapsed time. */
static double timed_loop(struct run *r, double *samples) {
    int target = 1;
    double start = 0;
    double per = (double) r->ops * ((r->s == FENCE || r->s == PSCW) && !is_bw(r->b) ? 2 : 1);
    if (r->s == FLUSH && rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, target, 0, r->win);
    }
    if (r->s == FENCE) {
        MPI_Win_fence(MPI_MODE_NOPRECEDE, r->win);
    }
    for (long i = 0; i < r->warmup + r->iters; i++) {
        double t0 = now_ns();
        if (i == r->warmup) {
            start = t0;
        }
        if (r->s == FLUSH || r->s == LOCK) {
            if (rank == 0) {
                if (r->s == LOCK) {
                    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, r->win);
                }
                issue(r, target);
                if (r->s == LOCK) {
                    MPI_Win_unlock(target, r->win);
                } else {
                    MPI_Win_flush(target, r->win);
                }
                after(r);
            }
        } else {
            active_iteration(r);
        }
        if (i >= r->warmup && rank == 0) {
            samples[i - r->warmup] = (now_ns() - t0) / 1e3 / per;
        }
    }
    double elapsed_us = (now_ns() - start) / 1e3;
    if (r->s == FLUSH && rank == 0) {
        MPI_Win_unlock(target, r->win);
    }
    if (r->s == FENCE) {
        MPI_Win_fence(MPI_MODE_NOSUCCEED, r->win);
    }
    MPI_Barrier(pair);
    return elapsed_us;
}

/* The checks of the header comment, each rank on what it holds, after the measurement. */
static void check(struct run *r) {
    int origin_of_all = rank == 0;
    int active_both = (r->s == FENCE || r->s == PSCW) && !is_bw(r->b);
    int was_origin = origin_of_all || active_both;
    int was_target = rank == 1 || active_both;
    int peer = 1 - rank;
    long n = r->size * r->ops;
    long total = r->warmup + r->iters;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, r->win);
    switch (r->b) {
    case PUT_LAT:
    case PUT_BW:
        if (was_target) {
            check_pattern("put: window byte", r->base, n, peer);
        }
        break;
    case GET_LAT:
    case GET_BW:
        if (was_origin) {
            check_pattern("get: byte read", r->rbuf, n, peer);
        }
        break;
    case ACC_LAT:
        if (was_target) {
            long want = acc_expected(total);
            for (long i = 0; i < r->size / acc_bytes(); i++) {
                double v = acc_value(r->base, i);
                if (v != (double) want) {
                    fail_check("accumulate: window value", i, want, (long) v);
                }
            }
        }
        break;
    case FOP_LAT:
    case CAS_LAT:
        if (was_target) {
            int64_t v;
            memcpy(&v, r->base, sizeof v);
            if (v != total) {
                fail_check("atomic: window value", 0, total, (long) v);
            }
        }
        break;
    default:
        break;
    }
    MPI_Win_unlock(rank, r->win);
}

static void run_one(enum bench b, enum sync s, long size, double *samples) {
    struct run r;
    memset(&r, 0, sizeof r);
    r.b = b;
    r.s = s;
    r.size = (b == FOP_LAT || b == CAS_LAT) ? 8 : size;
    iterations(b, r.size, &r.ops, &r.iters, &r.warmup);
    long n = r.size * r.ops;
    MPI_Win_allocate((MPI_Aint) n, 1, MPI_INFO_NULL, pair, &r.base, &r.win);
    r.sbuf = malloc((size_t) n);
    r.rbuf = malloc((size_t) n);
    if (!r.sbuf || !r.rbuf) {
        die("out of memory");
    }
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, r.win);
    if (b == ACC_LAT || b == FOP_LAT || b == CAS_LAT) {
        memset(r.base, 0, (size_t) n);
        acc_ones(r.sbuf, n);
    } else {
        for (long i = 0; i < n; i++) {
            r.base[i] = pattern(i, rank);
            r.sbuf[i] = pattern(i, rank);
        }
    }
    MPI_Win_unlock(rank, r.win);
    memset(r.rbuf, 0, (size_t) n);
    MPI_Barrier(pair);

    double elapsed_us = timed_loop(&r, samples);
    check(&r);
    if (rank == 0) {
        double ops = (double) r.iters * (double) r.ops * ((s == FENCE || s == PSCW) && !is_bw(b) ? 2 : 1);
        double mean = elapsed_us / ops;
        double mbs = is_bw(b) ? (double) r.size * (double) r.iters * (double) r.ops / elapsed_us
                              : (mean > 0 ? (double) r.size / mean : 0);
        report(b, s, r.size, r.iters, samples, mean, mbs);
    }
    MPI_Win_free(&r.win);
    free(r.sbuf);
    free(r.rbuf);
}

/* --op OP[:int|long|float|double], as RmaBenchRank.AccOp: sets acc_op, acc_name, acc_type and acc_label. */
static void parse_op(const char *spec) {
    static const char *const names[] = {"sum", "prod", "max", "min", "bor"};
    const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BOR};
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t) (colon - spec) : strlen(spec);
    int found = -1;
    for (int k = 0; k < 5; k++) {
        if (strlen(names[k]) == len && strncasecmp(spec, names[k], len) == 0) {
            found = k;
        }
    }
    if (found < 0) {
        die("--op: unknown operation; expected sum, prod, max, min or bor, optionally :int, :long, :float or :double");
    }
    int type = colon ? -1 : ACC_INT;
    for (int k = 0; colon && k < NACC_TYPE; k++) {
        if (strcasecmp(colon + 1, ACC_TYPE_NAMES[k]) == 0) {
            type = k;
        }
    }
    if (type < 0) {
        die("--op: unknown type; expected :int, :long, :float or :double");
    }
    acc_op = ops[found];
    acc_name = names[found];
    acc_type = (enum acc_type) type;
    if ((acc_type == ACC_FLOAT || acc_type == ACC_DOUBLE) && acc_op == MPI_BOR) {
        char msg[80];
        snprintf(msg, sizeof msg, "--op: bor takes no %ss (MPI_BOR is for integers)", ACC_TYPE_NAMES[acc_type]);
        die(msg);
    }
    if (acc_op == MPI_SUM && acc_type == ACC_INT) {
        snprintf(acc_label, sizeof acc_label, "acc_latency");
    } else {
        snprintf(acc_label, sizeof acc_label, "acc_%s_%s_latency", acc_name, ACC_TYPE_NAMES[acc_type]);
    }
}

/* This peer's flags beside the common ones, --sync LIST and --op OP; 0 for another argument. */
static int own_option(int argc, char **argv, int *i) {
    if (strcmp(argv[*i], "--op") == 0 && *i + 1 < argc) {
        parse_op(argv[++*i]);
        return 1;
    }
    if (strcmp(argv[*i], "--sync") != 0 || *i + 1 >= argc) {
        return 0;
    }
    if (!parse_names(argv[++*i], SYNC_NAMES, NSYNC, &syncs)) {
        die("--sync: expected flush, lock, fence, pscw or all, comma separated");
    }
    return 1;
}

int main(int argc, char **argv) {
    int steered = steer_open_mpi_osc();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (steered && rank == 0) {
        fprintf(stderr, "ry_rma: no one-sided component chosen: osc rdma's priority set below osc sm's "
                        "(Open MPI's osc rdma over vader crashes in MPI_Compare_and_swap; set OMPI_MCA_osc to choose)\n");
    }

    long sizes[MAX_SIZES];
    int nsizes = parse_sizes("1:4m", sizes);
    struct common_options co = {sizes, &nsizes, &iter_base, &transport, BENCH_NAMES, NBENCH, &benches,
                                "unknown benchmark; expected put_latency, get_latency, put_bw, get_bw, acc_latency, "
                                "fop_latency, cas_latency or all, comma separated",
                                "usage: ry_rma [BENCH|all][,...] [--sync flush,lock,fence,pscw] [--sizes SPEC] "
                                "[--iters N] [--op OP[:int|double]] [--transport LABEL]"};
    parse_args(argc, argv, &co, own_option, die);
    if (benches == 0) {
        benches = (1 << NBENCH) - 1;
    }
    if (syncs == 0) {
        syncs = (1 << NSYNC) - 1;
    }
    if (nprocs < 2) {
        die("one-sided benchmarks need 2 processes");
    }
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
    double *samples = malloc(sizeof(double) * (size_t) iter_base);
    if (!samples) {
        die("out of memory");
    }
    print_header(rank);
    if (pair != MPI_COMM_NULL) { /* ranks from 2 on take no part */
        MPI_Group all;
        MPI_Comm_group(pair, &all);
        int other = 1 - rank;
        MPI_Group_incl(all, 1, &other, &peer_group);
        MPI_Group_free(&all);
        for (int b = 0; b < NBENCH; b++) {
            if (!(benches & (1 << b))) {
                continue;
            }
            for (int s = 0; s < NSYNC; s++) {
                if (!(syncs & (1 << s))) {
                    continue;
                }
                for (int i = 0; i < nsizes; i++) {
                    if (b == ACC_LAT && sizes[i] < acc_bytes()) {
                        continue;
                    }
                    run_one((enum bench) b, (enum sync) s, sizes[i], samples);
                    if (b == FOP_LAT || b == CAS_LAT) {
                        break; /* one 8-byte element, whatever the sizes */
                    }
                }
            }
        }
        MPI_Group_free(&peer_group);
        MPI_Comm_free(&pair);
    }
    free(samples);
    MPI_Finalize();
    return 0;
}
