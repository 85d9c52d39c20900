/*
 * What the C peers of Railyard's benchmarks share (ry_peer.c, ry_coll.c, ry_rma.c and the twins that
 * follow them): the clock, the size lists of their --sizes option (8, 64k, 4m, 1g: powers of 1024,
 * ranges lo:hi by doubling, repeats dropped), the options every peer takes (common_option), the
 * lists of benchmark names they take (parse_names), the reading of a command line (parse_args), the
 * percentiles of their reports and the header line of their results. A header of static functions,
 * so each peer still builds with one mpicc command from this directory.
 */
#ifndef RY_COMMON_H
#define RY_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#ifndef MAX_SIZES
#define MAX_SIZES 64
#endif

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

/* Parses 8, 64k, 4m, 1g (powers of 1024; an optional trailing b or ib); returns -1 when malformed. */
static long parse_size(const char *s, size_t len) {
    char buf[64];
    if (len == 0 || len >= sizeof buf) {
        return -1;
    }
    memcpy(buf, s, len);
    buf[len] = 0;
    char *end;
    long v = strtol(buf, &end, 10);
    if (end == buf || v < 0) {
        return -1;
    }
    long mult = 1;
    if (*end == 'k' || *end == 'K') {
        mult = 1L << 10;
    } else if (*end == 'm' || *end == 'M') {
        mult = 1L << 20;
    } else if (*end == 'g' || *end == 'G') {
        mult = 1L << 30;
    }
    if (mult != 1) {
        end++;
        if (*end == 'i' || *end == 'I') {
            end++;
        }
    }
    if (*end == 'b' || *end == 'B') {
        end++;
    }
    if (*end != 0 || v > (1L << 30) / mult) {
        return -1;
    }
    return v * mult;
}

/* Appends s to sizes[] unless it is there already (the list keeps its order and drops repeats). */
static int add_size(long *sizes, int n, long s) {
    for (int i = 0; i < n; i++) {
        if (sizes[i] == s) {
            return n;
        }
    }
    if (n < MAX_SIZES) {
        sizes[n++] = s;
    }
    return n;
}

/* Fills sizes[] from SPEC; returns how many, or -1 when malformed. */
static int parse_sizes(const char *spec, long *sizes) {
    int n = 0;
    const char *p = spec;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t) (comma - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        if (colon) {
            long lo = parse_size(p, (size_t) (colon - p));
            long hi = parse_size(colon + 1, len - (size_t) (colon - p) - 1);
            if (lo <= 0 || hi < lo) {
                return -1;
            }
            for (long s = lo; s <= hi; s *= 2) {
                n = add_size(sizes, n, s);
            }
        } else if (len > 0) {
            long s = parse_size(p, len);
            if (s < 0) {
                return -1;
            }
            n = add_size(sizes, n, s);
        }
        p += len;
        if (*p == ',') {
            p++;
        }
    }
    return n;
}

/* Orders doubles for qsort. */
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* Nearest-rank percentile of sorted samples. */
static double percentile(const double *sorted, long n, double p) {
    long k = (long) (p / 100.0 * (double) n + 0.999999999);
    if (k < 1) {
        k = 1;
    }
    if (k > n) {
        k = n;
    }
    return sorted[k - 1];
}

/*
 * The options of every peer: where the peer keeps their values, which common_option overwrites;
 * and for parse_args, the names a peer takes as arguments (its benchmarks), the bits of those named
 * (*chosen), and what it says of an unknown name and of an unknown option.
 */
struct common_options {
    long *sizes;            /* MAX_SIZES entries */
    int *nsizes;
    long *iter_base;
    const char **transport;
    const char *const *names;
    int count;
    int *chosen;
    const char *unknown_name;
    const char *usage;
};

/*
 * Reads the option at argv[*i] if it is one every peer takes: --sizes SPEC, --iters N, --transport
 * LABEL (and --no-jit-warmup, which the Java programs take and the C peers ignore). Returns 1 and
 * moves *i past its value; 0 if argv[*i] is another option. A bad value ends the program through
 * the peer's die(message), which does not return.
 */
static int common_option(int argc, char **argv, int *i, struct common_options *o, void (*die)(const char *msg)) {
    const char *a = argv[*i];
    if (strcmp(a, "--sizes") == 0 && *i + 1 < argc) {
        *o->nsizes = parse_sizes(argv[++*i], o->sizes);
        if (*o->nsizes <= 0) {
            die("--sizes: expected items such as 8, 64k, 4m or ranges such as 1:4m, comma separated");
        }
        return 1;
    }
    if (strcmp(a, "--iters") == 0 && *i + 1 < argc) {
        *o->iter_base = strtol(argv[++*i], NULL, 10);
        if (*o->iter_base <= 0) {
            die("--iters: expected a positive count");
        }
        return 1;
    }
    if (strcmp(a, "--transport") == 0 && *i + 1 < argc) {
        *o->transport = argv[++*i];
        return 1;
    }
    if (strcmp(a, "--no-jit-warmup") == 0) {
        return 1;
    }
    return 0;
}

/* The largest of the n sizes, and at least at_least. */
static inline long largest_size(const long *sizes, int n, long at_least) {
    long max = at_least;
    for (int i = 0; i < n; i++) {
        if (sizes[i] > max) {
            max = sizes[i];
        }
    }
    return max;
}

/* Rank 0 prints the header line of the results, the columns the Java benchmarks print too. */
static void print_header(int rank) {
    if (rank == 0) {
        printf("benchmark\ttransport\tnp\tbytes\titerations\tmean_us\tp50_us\tp99_us\tmax_us\tMB_s\n");
        fflush(stdout);
    }
}

/*
 * Sets in *mask bit i for each names[i] in list (comma separated, any case), and every bit of the
 * count for "all"; returns 0 when one is unknown.
 */
static int parse_names(const char *list, const char *const *names, int count, int *mask) {
    char *copy = strdup(list);
    int ok = 1;
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        int found = 0;
        for (int i = 0; i < count; i++) {
            if (strcasecmp(tok, names[i]) == 0 || strcasecmp(tok, "all") == 0) {
                *mask |= strcasecmp(tok, "all") == 0 ? (1 << count) - 1 : 1 << i;
                found = 1;
                break;
            }
        }
        ok &= found;
    }
    free(copy);
    return ok;
}

/*
 * Reads the command line: the options every peer takes (common_option), the peer's own flags
 * (own(argc, argv, &i) reads argv[i], moves i past a value it takes and returns 1, or returns 0 for
 * another argument) and its benchmark names (parse_names into o->chosen). An unknown name or option
 * ends the program through die(message).
 */
static void parse_args(int argc, char **argv, struct common_options *o, int (*own)(int argc, char **argv, int *i),
                       void (*die)(const char *msg)) {
    for (int i = 1; i < argc; i++) {
        if (common_option(argc, argv, &i, o, die) || own(argc, argv, &i)) {
            continue;
        }
        if (argv[i][0] == '-') {
            die(o->usage);
        } else if (!parse_names(argv[i], o->names, o->count, o->chosen)) {
            die(o->unknown_name);
        }
    }
}

#endif
