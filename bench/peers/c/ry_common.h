/*
 * What the C peers of Railyard's benchmarks share (ry_peer.c, ry_coll.c and the twins that follow
 * them): the clock, and the size lists of their --sizes option (8, 64k, 4m, 1g: powers of 1024,
 * ranges lo:hi by doubling, repeats dropped). A header of static functions, so each peer still
 * builds with one mpicc command from this directory.
 */
#ifndef RY_COMMON_H
#define RY_COMMON_H

#include <stdlib.h>
#include <string.h>
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

#endif
