/*
 * ry_peer: the Railyard benchmark suite written against the MPI C API, so that Railyard can be
 * compared with a native MPI library on the same machine, with the same method and the same output.
 *
 * The method (sizes, iteration counts, window, what is timed, the TSV columns) is the one described
 * in bench/README.md and implemented for Railyard by org.railyard.bench.BenchRank; keep them in step.
 *
 * Usage: mpirun -np 2 ry_peer [latency|bw|bibw|allreduce|all][,...] [--sizes SPEC] [--iters N]
 *                             [--window W] [--transport NAME]
 *   SPEC  comma-separated items, each a size (8, 64k, 4m) or a range LO:HI of powers of two.
 *   N     iteration count for small messages (<= 16 KiB); larger ones use a smaller count.
 *   NAME  free text written in the transport column (the caller knows which BTL it selected).
 *
 * Build: mpicc -O2 -o ry_peer ry_peer.c
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ry_common.h"

#define LARGE_LIMIT (16L * 1024)
#define TAG_DATA 1
#define TAG_ACK 2
#define TAG_PING 3

enum bench { LATENCY = 1, BW = 2, BIBW = 4, ALLREDUCE = 8 };
/* The name of each benchmark, bit k of the mask for NAMES[k]. */
static const char *const NAMES[] = {"latency", "bw", "bibw", "allreduce"};

static int rank, nprocs;
static const char *transport = "mpi";
static long iter_base = -1; /* -1: each benchmark's own default */
static int window = 64;
static int benches; /* the bits of the benchmarks to run; none named: all */

static void die(const char *msg) {
    if (rank == 0) {
        fprintf(stderr, "ry_peer: %s\n", msg);
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}


/*
 * Timed iterations and warm-up for one benchmark and size. Small messages (<= 16 KiB) use the base
 * count; larger ones a tenth of it for latency and allreduce and a fifth for the windowed
 * bandwidth tests; warm-up is a tenth of the timed count, at least one.
 */
static void iterations(enum bench b, long size, long *iters, long *warmup) {
    long base = iter_base;
    if (base <= 0) {
        base = b == LATENCY ? 10000 : (b == ALLREDUCE ? 1000 : 100);
    }
    long n = base;
    if (size > LARGE_LIMIT) {
        n = (b == BW || b == BIBW) ? base / 5 : base / 10;
    }
    if (n < 1) {
        n = 1;
    }
    *iters = n;
    *warmup = n / 10 < 1 ? 1 : n / 10;
}

/* samples in microseconds per unit (message or operation); mbs in 1e6 bytes per second. */
static void report(const char *name, long bytes, long iters, double *samples, double mean_us, double mbs) {
    qsort(samples, (size_t) iters, sizeof(double), cmp_double);
    printf("%s\t%s\t%d\t%ld\t%ld\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\n", name, transport, nprocs, bytes, iters, mean_us,
           percentile(samples, iters, 50), percentile(samples, iters, 99), samples[iters - 1], mbs);
    fflush(stdout);
}

/* Rank 0 reports a benchmark timed per iteration: total_us over iters, size bytes moved in each. */
static void report_mean(const char *name, long size, long iters, double *samples, double total_us) {
    if (rank == 0) {
        double mean = total_us / (double) iters;
        report(name, size, iters, samples, mean, mean > 0 ? (double) size / mean : 0);
    }
}

static void fill(unsigned char *buf, long n, int seed) {
    for (long i = 0; i < n; i++) {
        buf[i] = (unsigned char) (i * 31 + seed);
    }
}

static void check(const unsigned char *buf, long n, int seed, const char *what) {
    for (long i = 0; i < n; i++) {
        if (buf[i] != (unsigned char) (i * 31 + seed)) {
            fprintf(stderr, "ry_peer: rank %d: %s: wrong byte at %ld of %ld\n", rank, what, i, n);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
}

static void run_latency(long size, unsigned char *sbuf, unsigned char *rbuf, double *samples) {
    long iters, warmup;
    iterations(LATENCY, size, &iters, &warmup);
    fill(sbuf, size, rank);
    memset(rbuf, 0, (size_t) size);
    int peer = 1 - rank;
    MPI_Barrier(MPI_COMM_WORLD);
    double total = 0;
    for (long i = 0; i < warmup + iters; i++) {
        double t0 = now_ns();
        if (rank == 0) {
            MPI_Send(sbuf, (int) size, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int) size, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int) size, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int) size, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD);
        }
        double half = (now_ns() - t0) / 2e3;
        if (i == 0) {
            check(rbuf, size, peer, "latency");
        }
        if (i >= warmup) {
            samples[i - warmup] = half;
            total += half;
        }
    }
    report_mean("latency", size, iters, samples, total);
}

static void run_bw(enum bench b, long size, unsigned char *sbuf, unsigned char *rbuf, double *samples,
                   MPI_Request *reqs) {
    long iters, warmup;
    iterations(b, size, &iters, &warmup);
    fill(sbuf, size, rank);
    memset(rbuf, 0, (size_t) size);
    int peer = 1 - rank;
    int ack = 0;
    int sends = (b == BIBW || rank == 0) ? window : 0;
    int recvs = (b == BIBW || rank == 1) ? window : 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double start = 0;
    for (long i = 0; i < warmup + iters; i++) {
        double t0 = now_ns();
        if (i == warmup) {
            start = t0;
        }
        int n = 0;
        for (int w = 0; w < recvs; w++) {
            MPI_Irecv(rbuf, (int) size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &reqs[n++]);
        }
        for (int w = 0; w < sends; w++) {
            MPI_Isend(sbuf, (int) size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &reqs[n++]);
        }
        MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
        if (rank == 0) {
            MPI_Recv(&ack, 1, MPI_INT, peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Send(&ack, 1, MPI_INT, peer, TAG_ACK, MPI_COMM_WORLD);
        }
        if (i == 0 && recvs > 0) {
            check(rbuf, size, peer, b == BW ? "bw" : "bibw");
        }
        if (i >= warmup) {
            samples[i - warmup] = (now_ns() - t0) / 1e3 / window;
        }
    }
    double elapsed_us = (now_ns() - start) / 1e3;
    if (rank == 0) {
        double messages = (double) iters * window * (b == BIBW ? 2 : 1);
        double mean = elapsed_us / ((double) iters * window);
        report(b == BW ? "bw" : "bibw", size, iters, samples, mean, (double) size * messages / elapsed_us);
    }
}

static void run_allreduce(long size, double *in, double *out, double *samples) {
    long count = size / (long) sizeof(double);
    if (count < 1) {
        return;
    }
    long iters, warmup;
    iterations(ALLREDUCE, size, &iters, &warmup);
    for (long i = 0; i < count; i++) {
        in[i] = (double) (rank + 1) + (double) i;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double total = 0;
    for (long i = 0; i < warmup + iters; i++) {
        double t0 = now_ns();
        MPI_Allreduce(in, out, (int) count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double us = (now_ns() - t0) / 1e3;
        if (i == 0) {
            double expect = (double) nprocs * (nprocs + 1) / 2.0 + (double) nprocs * (double) (count - 1);
            if (out[count - 1] != expect) {
                fprintf(stderr, "ry_peer: rank %d: allreduce: got %g, expected %g\n", rank, out[count - 1], expect);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        }
        if (i >= warmup) {
            samples[i - warmup] = us;
            total += us;
        }
    }
    report_mean("allreduce", size, iters, samples, total);
}

/* This peer's flag beside the common ones, --window W; 0 for another argument. */
static int own_option(int argc, char **argv, int *i) {
    if (strcmp(argv[*i], "--window") != 0 || *i + 1 >= argc) {
        return 0;
    }
    window = (int) strtol(argv[++*i], NULL, 10);
    if (window <= 0) {
        die("--window: expected a positive count");
    }
    return 1;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    long sizes[MAX_SIZES];
    int nsizes = parse_sizes("1:4m", sizes);
    struct common_options co = {sizes, &nsizes, &iter_base, &transport, NAMES, 4, &benches,
                                "unknown benchmark; expected latency, bw, bibw, allreduce or all",
                                "usage: ry_peer [latency|bw|bibw|allreduce|all] [--sizes SPEC] [--iters N] "
                                "[--window W] [--transport NAME]"};
    parse_args(argc, argv, &co, own_option, die);
    if (benches == 0) {
        benches = LATENCY | BW | BIBW | ALLREDUCE;
    }
    if ((benches & (LATENCY | BW | BIBW)) && nprocs < 2) {
        die("latency, bw and bibw need at least 2 processes");
    }

    long maxsize = largest_size(sizes, nsizes, 8);
    long maxiters = 1;
    for (int b = LATENCY; b <= ALLREDUCE; b <<= 1) {
        long it, wu;
        iterations((enum bench) b, 1, &it, &wu);
        if (it > maxiters) {
            maxiters = it;
        }
    }
    unsigned char *sbuf = malloc((size_t) maxsize);
    unsigned char *rbuf = malloc((size_t) maxsize);
    double *samples = malloc(sizeof(double) * (size_t) maxiters);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t) window * 2);
    if (!sbuf || !rbuf || !samples || !reqs) {
        die("out of memory");
    }

    print_header(rank);
    int pair = rank < 2; /* point-to-point tests run between ranks 0 and 1; others wait */
    for (int b = LATENCY; b <= ALLREDUCE; b <<= 1) {
        if (!(benches & b)) {
            continue;
        }
        for (int i = 0; i < nsizes; i++) {
            long s = sizes[i];
            if (b == ALLREDUCE) {
                run_allreduce(s, (double *) sbuf, (double *) rbuf, samples);
            } else if (pair) {
                if (b == LATENCY) {
                    run_latency(s, sbuf, rbuf, samples);
                } else {
                    run_bw((enum bench) b, s, sbuf, rbuf, samples, reqs);
                }
            }
            if (b != ALLREDUCE && !pair) {
                MPI_Barrier(MPI_COMM_WORLD); /* matches the barrier the pair takes before each size */
            }
        }
    }
    free(sbuf);
    free(rbuf);
    free(samples);
    free(reqs);
    MPI_Finalize();
    return 0;
}
