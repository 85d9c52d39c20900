/*
 * wanem: a wide-area link between two network interfaces, for the netns lab (this kernel has no
 * netem). Every Ethernet frame that arrives on one interface leaves on the other after the time a
 * link of the given rate needs to serialize it, behind the frames before it, plus a one-way delay;
 * a share of the frames is dropped at random, and frames that would wait longer than the queue
 * allows are dropped at the tail, as a router's buffer would.
 *
 *   wanem IF_A IF_B [-d DELAY_MS] [-r RATE_MBIT] [-l LOSS_PERCENT] [-q QUEUE_MS] [-s SEED]
 *
 * Defaults: 10 ms, 200 Mbit/s, no loss, a queue of 2 x delay (at least 5 ms) worth of bytes at
 * the rate (about one round trip: TCP then fills the link without the queue growing unbounded).
 * Rate 0: unlimited. The two directions are independent links with the same settings.
 *
 * How: one AF_PACKET socket per interface, in promiscuous mode, that ignores its own outgoing
 * frames; per direction a FIFO of frames, each with the time it may leave (the departure of the
 * frame before it, or its arrival if later, plus its serialization time, plus the delay). The
 * loop sleeps in ppoll until the next frame is due or a frame arrives; its timer slack is set to
 * 1 us, so the delay holds to a few microseconds on an idle machine. The interfaces must have
 * checksum and segmentation offloads off on the sending side (frames arrive here whole and with
 * their checksums; the lab script does this with ethtool).
 *
 * SIGINT/SIGTERM: prints the counters (frames forwarded, lost at random, dropped by the queue, per
 * direction) on stderr and exits 0. SIGUSR1 prints them and goes on.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

#define SLOT 2048          /* largest frame carried: a 1500 MTU frame with headers fits */
#define SLOTS 16384        /* frames queued per direction at most (the delay line and the queue) */

struct frame {
    uint64_t due;          /* monotonic ns at which it leaves */
    uint32_t len;
    unsigned char data[SLOT];
};

struct dir {
    const char *name;
    int in, out;           /* sockets: read from in, write to out */
    struct frame *q;
    uint32_t head, count;
    uint64_t busy_until;   /* when the link finishes serializing the last frame queued */
    uint64_t forwarded, lost, dropped, bytes;
};

static volatile sig_atomic_t stop, report;
static double loss;
static uint64_t delay_ns, rate_bps, queue_ns;
static uint64_t rng;

static void on_signal(int sig) {
    if (sig == SIGUSR1) {
        report = 1;
    } else {
        stop = 1;
    }
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/* xorshift64*: uniform in [0, 1) */
static double uniform(void) {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double) ((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static int open_port(const char *ifname) {
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));
    if (fd < 0) {
        perror("wanem: socket(AF_PACKET) (needs root or CAP_NET_RAW)");
        exit(2);
    }
    unsigned idx = if_nametoindex(ifname);
    if (idx == 0) {
        fprintf(stderr, "wanem: no interface named %s in this namespace\n", ifname);
        exit(2);
    }
    struct sockaddr_ll sll = {0};
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(ETH_P_ALL);
    sll.sll_ifindex = (int) idx;
    if (bind(fd, (struct sockaddr *) &sll, sizeof sll) < 0) {
        perror("wanem: bind");
        exit(2);
    }
    struct packet_mreq mr = {0};
    mr.mr_ifindex = (int) idx;
    mr.mr_type = PACKET_MR_PROMISC;
    if (setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr) < 0) {
        perror("wanem: promiscuous mode");
        exit(2);
    }
    int one = 1;
    if (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one) < 0) {
        perror("wanem: PACKET_IGNORE_OUTGOING (kernel 4.20 or later)");
        exit(2);
    }
    int buf = 8 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof buf);
    setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof buf);
    return fd;
}

/* Reads every frame waiting on d->in and queues it (or drops it). */
static void take(struct dir *d) {
    for (;;) {
        struct frame *f = &d->q[(d->head + d->count) % SLOTS];
        ssize_t n = recv(d->in, f->data, SLOT, MSG_TRUNC);
        if (n < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                perror("wanem: recv");
            }
            return;
        }
        uint64_t t = now_ns();
        if (n > SLOT) {
            fprintf(stderr, "wanem: %s: a frame of %zd bytes (offloads left on?) dropped\n", d->name, n);
            d->dropped++;
            continue;
        }
        if (loss > 0 && uniform() < loss) {
            d->lost++;
            continue;
        }
        uint64_t start = d->busy_until > t ? d->busy_until : t;
        if (d->count == SLOTS || (rate_bps > 0 && start - t > queue_ns)) {
            d->dropped++;
            continue;
        }
        uint64_t ser = rate_bps == 0 ? 0 : (uint64_t) n * 8ull * 1000000000ull / rate_bps;
        d->busy_until = start + ser;
        f->due = d->busy_until + delay_ns;
        f->len = (uint32_t) n;
        d->count++;
    }
}

/* Sends the frames that are due; returns the due time of the next one, or 0 if none waits. */
static uint64_t give(struct dir *d, uint64_t t) {
    while (d->count > 0) {
        struct frame *f = &d->q[d->head];
        if (f->due > t) {
            return f->due;
        }
        if (send(d->out, f->data, f->len, 0) < 0 && errno != EAGAIN && errno != ENOBUFS) {
            perror("wanem: send");
        }
        d->forwarded++;
        d->bytes += f->len;
        d->head = (d->head + 1) % SLOTS;
        d->count--;
    }
    return 0;
}

static void print_counters(struct dir *d) {
    for (int i = 0; i < 2; i++) {
        fprintf(stderr, "wanem: %s: forwarded %llu frames (%llu bytes), lost %llu at random, dropped %llu at the queue\n",
                d[i].name, (unsigned long long) d[i].forwarded, (unsigned long long) d[i].bytes,
                (unsigned long long) d[i].lost, (unsigned long long) d[i].dropped);
    }
}

static void usage(void) {
    fprintf(stderr, "usage: wanem IF_A IF_B [-d DELAY_MS] [-r RATE_MBIT] [-l LOSS_PERCENT] [-q QUEUE_MS] [-s SEED]\n");
    exit(2);
}

static double number(const char *opt, const char *v) {
    char *end;
    double x = strtod(v, &end);
    if (*v == 0 || *end != 0 || x < 0) {
        fprintf(stderr, "wanem: %s wants a number >= 0, not '%s'\n", opt, v);
        exit(2);
    }
    return x;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        usage();
    }
    const char *a = argv[1], *b = argv[2];
    double delay_ms = 10, rate_mbit = 200, loss_pct = 0, queue_ms = -1;
    uint64_t seed = 1;
    for (int i = 3; i < argc; i += 2) {
        if (i + 1 >= argc) {
            usage();
        }
        if (!strcmp(argv[i], "-d")) delay_ms = number("-d", argv[i + 1]);
        else if (!strcmp(argv[i], "-r")) rate_mbit = number("-r", argv[i + 1]);
        else if (!strcmp(argv[i], "-l")) loss_pct = number("-l", argv[i + 1]);
        else if (!strcmp(argv[i], "-q")) queue_ms = number("-q", argv[i + 1]);
        else if (!strcmp(argv[i], "-s")) seed = (uint64_t) number("-s", argv[i + 1]);
        else usage();
    }
    if (loss_pct > 100) {
        fprintf(stderr, "wanem: -l is a percentage, at most 100\n");
        exit(2);
    }
    delay_ns = (uint64_t) (delay_ms * 1e6);
    rate_bps = (uint64_t) (rate_mbit * 1e6);
    loss = loss_pct / 100.0;
    queue_ns = (uint64_t) ((queue_ms >= 0 ? queue_ms : (2 * delay_ms > 5 ? 2 * delay_ms : 5)) * 1e6);
    rng = seed * 0x9E3779B97F4A7C15ull + 1;

    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);

    int fa = open_port(a), fb = open_port(b);
    struct dir d[2] = {
        {.in = fa, .out = fb},
        {.in = fb, .out = fa},
    };
    char n0[64], n1[64];
    snprintf(n0, sizeof n0, "%s->%s", a, b);
    snprintf(n1, sizeof n1, "%s->%s", b, a);
    d[0].name = n0;
    d[1].name = n1;
    for (int i = 0; i < 2; i++) {
        d[i].q = malloc(sizeof(struct frame) * SLOTS);
        if (!d[i].q) {
            fprintf(stderr, "wanem: out of memory\n");
            exit(2);
        }
    }
    fprintf(stderr, "wanem: %s <-> %s: delay %.3f ms, rate %.1f Mbit/s, loss %.3f%%, queue %.1f ms\n", a, b,
            delay_ms, rate_mbit, loss_pct, queue_ns / 1e6);

    struct pollfd pfd[2] = {{.fd = fa, .events = POLLIN}, {.fd = fb, .events = POLLIN}};
    while (!stop) {
        if (report) {
            report = 0;
            print_counters(d);
        }
        uint64_t t = now_ns();
        uint64_t next0 = give(&d[0], t), next1 = give(&d[1], t);
        uint64_t next = next0 == 0 ? next1 : next1 == 0 ? next0 : (next0 < next1 ? next0 : next1);
        struct timespec ts, *tp = NULL;
        if (next != 0) {
            uint64_t wait = next > t ? next - t : 0;
            ts.tv_sec = (time_t) (wait / 1000000000ull);
            ts.tv_nsec = (long) (wait % 1000000000ull);
            tp = &ts;
        }
        int r = ppoll(pfd, 2, tp, NULL);
        if (r < 0 && errno != EINTR) {
            perror("wanem: ppoll");
            return 1;
        }
        if (r > 0) {
            if (pfd[0].revents & POLLIN) take(&d[0]);
            if (pfd[1].revents & POLLIN) take(&d[1]);
        }
    }
    print_counters(d);
    return 0;
}
