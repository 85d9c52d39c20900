// The machine's cross-core copy rate, with no MPI and no Java: two threads, bound to processors 0
// and 1, take turns; each copies the 384 KiB the other just wrote into a buffer of its own, then
// writes 384 KiB of its own for the other. That is the memory traffic of one rank of an alltoall of
// 128 KiB blocks at np 4 through a shared segment (copy in, copy out), without the ranks.
//
// On the 2-core development machine (a KVM guest) this rate is not a constant: it holds for
// seconds, then moves between about 25 and 120 us a turn (bench/README.md). compare-coll.sh runs
// it before each step, so that a table can be read against the state the machine was in.
//
// Build: cc -O2 -pthread -o xcore_copy bench/probes/xcore_copy.c
// Usage: xcore_copy [SECONDS] [--every]
//   prints the mean time of a turn (two copies of 384 KiB by one thread) over SECONDS (default 1);
//   with --every, also one line per second.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BYTES (384 * 1024)

static char *written[2];  // what thread i wrote for the other
static char *own[2];      // thread i's private copy
static atomic_int turn;
static atomic_int stop;
static double seconds = 1;
static int every;
static double total_us;
static long turns;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *run(void *arg) {
    int me = (int) (long) arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(me, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
        fprintf(stderr, "xcore_copy: cannot bind a thread to processor %d (needs 2 processors)\n", me);
        exit(2);
    }
    double start = now(), mark = start, busy = 0;
    long n = 0, marked = 0;
    while (!atomic_load(&stop)) {
        while (atomic_load(&turn) != me) {
            if (atomic_load(&stop)) {
                return NULL;
            }
        }
        double t0 = now();
        memcpy(own[me], written[1 - me], BYTES);
        memcpy(written[me], own[me], BYTES);
        double t1 = now();
        if (me == 0) {
            busy += t1 - t0;
            n++;
            if (every && t1 - mark >= 1.0) {
                printf("%4.0f s: %.1f us a turn\n", t1 - start, (busy - total_us * 1e-6) / (n - marked) * 1e6);
                fflush(stdout);
                total_us = busy * 1e6;
                marked = n;
                mark = t1;
            }
            if (t1 - start >= seconds) {
                total_us = busy * 1e6;
                turns = n;
                atomic_store(&stop, 1);
            }
        }
        atomic_store(&turn, 1 - me);
    }
    return NULL;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--every") == 0) {
            every = 1;
        } else if ((seconds = atof(argv[i])) <= 0) {
            fprintf(stderr, "usage: xcore_copy [SECONDS] [--every]\n");
            return 2;
        }
    }
    for (int i = 0; i < 2; i++) {
        written[i] = aligned_alloc(4096, BYTES);
        own[i] = aligned_alloc(4096, BYTES);
        if (written[i] == NULL || own[i] == NULL) {
            fprintf(stderr, "xcore_copy: out of memory\n");
            return 2;
        }
        memset(written[i], i + 1, BYTES);
        memset(own[i], i + 3, BYTES);
    }
    pthread_t t[2];
    for (long i = 0; i < 2; i++) {
        pthread_create(&t[i], NULL, run, (void *) i);
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
    }
    printf("%.1f us a turn (mean of %ld turns over %.0f s)\n", total_us / turns, turns, seconds);
    return 0;
}
