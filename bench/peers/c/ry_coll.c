/*
 * ry_coll: Railyard's collective benchmark (org.railyard.bench.CollectiveBenchRank) written against
 * the MPI C API, so that Railyard's collectives can be compared with a native MPI library on the
 * same machine, with the same method and the same output. Keep the two in step (bench/README.md).
 *
 * Every rank times each call of the collective; rank 0 writes one TSV row per collective and size
 * with the mean over all ranks of their mean time, and rank 0's median, 99th percentile and maximum
 * (nearest rank over its samples). Sizes follow the OSU collective tests: allreduce and bcast move a
 * vector of that many bytes (allreduce sums doubles, so sizes under 8 bytes are skipped); allgather
 * gathers that many bytes from each rank; alltoall sends that many bytes to each rank; barrier runs
 * once, at size 0. bcast's root is rank 0. The first result of each size is checked.
 *
 * Usage: mpirun -np N ry_coll [allreduce|bcast|alltoall|allgather|barrier|all][,...] [--sizes SPEC]
 *                             [--iters N] [--transport LABEL] [--touch]
 *                             [--serve FILE]
 *   SPEC   comma-separated items, each a size (8, 64k, 1m) or a range LO:HI of powers of two;
 *          default 1:1m.
 *   N      timed calls up to 8 KiB (default 1000); a fifth of it up to 64 KiB, a twentieth beyond.
 *   LABEL  free text written in the transport column (the caller knows which BTL it selected).
 *   --touch  before each call, untimed, write one byte (one double for allreduce) in every 64 bytes
 *          of what the call sends, as a program does that computes its data between calls: the
 *          call then moves lines just written by this process's core instead of lines that every
 *          reader still holds from the call before.
 *   --no-jit-warmup is accepted, and ignored, for the Java programs' command line.
 *   --serve FILE  measure no list: after the header, every rank reads lines from FILE as the driver
 *          (bench/compare-coll.sh --paired) appends them, each "COLLECTIVE BYTES" (one row, bytes up
 *          to the largest of --sizes) or "quit". A rank waiting for a line looks at the file every
 *          10 ms, not inside an MPI call that would spin, and gives up after 30 minutes.
 *
 * Build: mpicc -O2 -o ry_coll ry_coll.c
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ry_common.h"

#define SMALL (8L * 1024)
#define MEDIUM (64L * 1024)

enum coll { BARRIER = 1, BCAST = 2, ALLREDUCE = 4, ALLGATHER = 8, ALLTOALL = 16 };

static const char *const NAMES[] = {"barrier", "bcast", "allreduce", "allgather", "alltoall"};

static int rank, nprocs;
static const char *transport = "mpi";
static long iter_base = -1; /* -1: the default, 1000 */

static void die(const char *msg) {
    if (rank == 0) {
        fprintf(stderr, "ry_coll: %s\n", msg);
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}


/* Timed calls at a size: the base (default 1000) up to 8 KiB, a fifth to 64 KiB, a twentieth beyond. */
static long iterations(long size) {
    long base = iter_base > 0 ? iter_base : 1000;
    long n = size <= SMALL ? base : (size <= MEDIUM ? base / 5 : base / 20);
    return n < 1 ? 1 : n;
}

/* True if the first result of collective c at this size is what the senders wrote. */
static int result_ok(enum coll c, long size, const unsigned char *rbuf, const double *dout, long count) {
    switch (c) {
    case BCAST:
        return rank == 0 || size == 0 || rbuf[size - 1] == (unsigned char) ((size - 1) * 31);
    case ALLREDUCE:
        return count == 0
            || dout[count - 1] == (double) nprocs * (nprocs + 1) / 2.0 + (double) nprocs * (double) (count - 1);
    case ALLGATHER:
        return size == 0 || rbuf[size * nprocs - 1] == (unsigned char) ((size - 1) * 31 + nprocs - 1);
    case ALLTOALL:
        return size == 0
            || rbuf[size * nprocs - 1] == (unsigned char) (((long) rank * size + size - 1) * 31 + nprocs - 1);
    default:
        return 1;
    }
}

/* --touch: write what the next call sends (one byte, or one double, in every 64 bytes), untimed. */
static int touch;
static int colls;                  /* the bits of the collectives to run; none named: all */
static const char *serve_file; /* --serve: the file of requests, else NULL */

static void touch_send(enum coll c, long size, unsigned char *sbuf, double *din, long count, long i) {
    if (c == ALLREDUCE) {
        for (long k = 0; k < count; k += 8) {
            din[k] = (double) i;
        }
    } else if (c == ALLGATHER || c == ALLTOALL || (c == BCAST && rank == 0)) {
        long n = c == ALLTOALL ? size * nprocs : size;
        for (long k = 0; k < n; k += 64) {
            sbuf[k] = (unsigned char) i;
        }
    }
}

/* Times collective c at one size on every rank; rank 0 prints the row. */
static void measure(enum coll c, const char *name, long size, unsigned char *sbuf, unsigned char *rbuf, double *din,
                    double *dout, double *samples) {
    long iters = iterations(size);
    long warm = iters / 10 < 1 ? 1 : iters / 10;
    long count = size / (long) sizeof(double);
    int n = (int) size;
    for (long i = 0; i < count; i++) {
        din[i] = (double) (rank + 1) + (double) i;
        dout[i] = 0;
    }
    for (long i = 0; i < size * nprocs; i++) {
        sbuf[i] = (unsigned char) (i * 31 + rank);
    }
    memset(rbuf, 0, (size_t) (size * nprocs));
    MPI_Barrier(MPI_COMM_WORLD);
    double sum = 0;
    for (long i = 0; i < warm + iters; i++) {
        if (touch && i > 0) { /* the first call's result is checked against the values filled above */
            touch_send(c, size, sbuf, din, count, i);
        }
        double t0 = now_ns();
        switch (c) {
        case BARRIER:
            MPI_Barrier(MPI_COMM_WORLD);
            break;
        case BCAST:
            MPI_Bcast(rank == 0 ? sbuf : rbuf, n, MPI_BYTE, 0, MPI_COMM_WORLD);
            break;
        case ALLREDUCE:
            MPI_Allreduce(din, dout, (int) count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            break;
        case ALLGATHER:
            MPI_Allgather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, MPI_COMM_WORLD);
            break;
        case ALLTOALL:
            MPI_Alltoall(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, MPI_COMM_WORLD);
            break;
        }
        double dt = now_ns() - t0;
        if (i == 0 && !result_ok(c, size, rbuf, dout, count)) {
            fprintf(stderr, "ry_coll: %s at rank %d, %ld B: wrong result\n", name, rank, size);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        if (i >= warm) {
            samples[i - warm] = dt / 1e3;
            sum += dt;
        }
    }
    double mine = sum / 1e3 / (double) iters;
    double total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double mean = total / nprocs;
    if (rank == 0) {
        qsort(samples, (size_t) iters, sizeof(double), cmp_double);
        printf("%s\t%s\t%d\t%ld\t%ld\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\n", name, transport, nprocs, size, iters, mean,
               percentile(samples, iters, 50), percentile(samples, iters, 99), samples[iters - 1],
               mean > 0 ? (double) size / mean : 0);
        fflush(stdout);
    }
}

/* --serve: the next complete line of the command file into line (without its end), waited for. */
static void next_command(FILE *f, const char *path, char *line, size_t cap) {
    size_t len = 0;
    double deadline = now_ns() + 30.0 * 60 * 1e9;
    for (;;) {
        int ch = getc(f);
        if (ch == '\n') {
            line[len] = '\0';
            return;
        }
        if (ch != EOF) {
            if (len + 1 >= cap) {
                die("--serve: a command line is too long");
            }
            line[len++] = (char) ch;
            continue;
        }
        clearerr(f); /* at the end for now: what the driver appends later is read then */
        if (now_ns() > deadline) {
            fprintf(stderr, "ry_coll: --serve: no command in %s for 30 minutes (the driver is gone?)\n", path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}

/* --serve: one cell a line of the command file until "quit"; every rank reads it on its own. */
static void serve(const char *path, long maxsize, unsigned char *sbuf, unsigned char *rbuf, double *din, double *dout,
                  double *samples) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "ry_coll: --serve: cannot read the command file %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char line[256];
    for (;;) {
        next_command(f, path, line, sizeof line);
        char name[64];
        long size = -1;
        char extra;
        int fields = sscanf(line, " %63s %ld %c", name, &size, &extra);
        if (fields == 1 && strcmp(name, "quit") == 0) {
            break;
        }
        int k = -1;
        for (int j = 0; j < 5; j++) {
            if (strcasecmp(name, NAMES[j]) == 0) {
                k = j;
            }
        }
        if (fields != 2 || k < 0 || size < 0 || size > maxsize ||
            ((1 << k) == ALLREDUCE && size < (long) sizeof(double))) {
            fprintf(stderr, "ry_coll: --serve: cannot measure '%s' from %s: expected COLLECTIVE BYTES (bytes up to %ld, "
                            "at least 8 for allreduce) or quit\n", line, path, maxsize);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        measure((enum coll) (1 << k), NAMES[k], size, sbuf, rbuf, din, dout, samples);
    }
    fclose(f);
}

/* This peer's flags beside the common ones, --touch and --serve FILE; 0 for another argument. */
static int own_option(int argc, char **argv, int *i) {
    if (strcmp(argv[*i], "--touch") == 0) {
        touch = 1;
        return 1;
    }
    if (strcmp(argv[*i], "--serve") == 0 && *i + 1 < argc) {
        serve_file = argv[++*i];
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    long sizes[MAX_SIZES];
    int nsizes = parse_sizes("1:1m", sizes);
    struct common_options co = {sizes, &nsizes, &iter_base, &transport, NAMES, 5, &colls,
                                "unknown collective; expected allreduce, bcast, alltoall, allgather, barrier or all",
                                "usage: ry_coll [allreduce|bcast|alltoall|allgather|barrier|all][,...] [--sizes SPEC] "
                                "[--iters N] [--transport LABEL] [--touch] [--serve FILE]"};
    parse_args(argc, argv, &co, own_option, die);
    if (colls == 0) {
        colls = BARRIER | BCAST | ALLREDUCE | ALLGATHER | ALLTOALL;
    }

    long maxsize = largest_size(sizes, nsizes, 8);
    unsigned char *sbuf = malloc((size_t) (maxsize * nprocs));
    unsigned char *rbuf = malloc((size_t) (maxsize * nprocs));
    double *din = malloc((size_t) maxsize);
    double *dout = malloc((size_t) maxsize);
    double *samples = malloc(sizeof(double) * (size_t) iterations(0));
    if (!sbuf || !rbuf || !din || !dout || !samples) {
        die("out of memory");
    }

    print_header(rank);
    static const long barrier_size[] = {0};
    if (serve_file) {
        serve(serve_file, maxsize, sbuf, rbuf, din, dout, samples);
        colls = 0; /* measured what the file named */
    }
    for (int k = 0; k < 5; k++) {
        enum coll c = (enum coll) (1 << k);
        if (!(colls & c)) {
            continue;
        }
        const long *list = c == BARRIER ? barrier_size : sizes;
        int n = c == BARRIER ? 1 : nsizes;
        for (int i = 0; i < n; i++) {
            if (c == ALLREDUCE && list[i] < (long) sizeof(double)) {
                continue;
            }
            measure(c, NAMES[k], list[i], sbuf, rbuf, din, dout, samples);
        }
    }
    free(sbuf);
    free(rbuf);
    free(din);
    free(dout);
    free(samples);
    MPI_Finalize();
    return 0;
}
