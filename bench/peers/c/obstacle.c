/*
 * obstacle: the C twin of Railyard's main demo (org.railyard.apps.obstacle.ObstacleDemo, synchronous
 * scheme), written against the MPI C API so that the same application can be timed on a native MPI
 * library and on Railyard, on the same machine. Keep the two in step: same problem, same
 * decomposition, same halo exchange, same convergence test, same output line (below).
 *
 * Problem (ObstacleProblem.membraneOnBump): n^3 interior points of the unit cube, h = 1/(n+1),
 * f = -8, phi = 0.2 - 2 |x - c|^2 with c the centre, u = 0 on the boundary.
 * Iteration (RichardsonSettings): u <- max(phi, u - delta (A u - f)), A the 7-point Laplacian,
 * delta = omega h^2 / 6, from u = max(0, phi); stop when max|u(k+1) - u(k)| / max|u(k+1)| <= tol,
 * tested every check-every iterations and at the last allowed one.
 * Decomposition (Decomposition.of): a px x py x pz process grid, rank r = (cx py + cy) pz + cz, each
 * axis split in near-equal ranges (the first n mod parts one longer); "block" picks the factors
 * a >= b >= c of p with the least a + b + c, preferring no factor above n; "slab" p x 1 x 1; "pencil"
 * the best a x b x 1; or AxBxC.
 * One iteration (ParallelSolver.iterate): post an MPI_Irecv per neighbour (tag 100 + the sender's
 * face), pack the boundary planes and MPI_Isend them (tag 100 + face), sweep the inner box, wait for
 * each receive in face order and unpack it, sweep the six boxes next to the faces, wait for the
 * sends, swap the arrays. The test is one MPI_Allreduce (MAX) of {max diff, max |u|}.
 *
 * Agreement: every point sees the same double operations on the same operands in the same order as
 * GridBlock.sweep, so a run reproduces the Java solver's iterates, iteration count and residual bit
 * for bit. That needs IEEE double evaluation exactly as written: build with -ffp-contract=off (GCC
 * fuses a*b+c into one rounding under -march=native otherwise; Java never does) and without
 * -ffast-math. --check solves sequentially on rank 0 afterwards and compares bitwise, as the demo does.
 *
 * Timing (as ParallelSolver.timeBreakdown): compute = the sweeps; halo wait = waiting for and
 * unpacking the receives; send wait = waiting for the sends and the swap; test = the allreduce.
 * Packing and posting are in none of them. The solve time is the slowest rank's, from a barrier.
 *
 * Output: a report for people, then one line for programs, printed by rank 0 (the Java demo prints
 * the same keys):
 *   RESULT obstacle impl=c-openmpi|c-mpich|c-mpi scheme=sync np=P n=N grid=AxBxC iterations=K
 *          converged=true|false residual=R solve_s=S compute_s=.. halo_wait_s=.. send_wait_s=..
 *          test_s=..
 * the phase times being the mean over ranks, in seconds, and R the residual with 17 significant
 * digits (the exact double, for comparison with the Java value).
 *
 * Usage: mpirun -np P obstacle [--n N] [--tol T] [--max-iter M] [--check-every K] [--omega W]
 *                              [--decomp D] [--check|--no-check] [--scheme sync] [--quiet] [--help]
 * Exit status: 0, 1 if --check finds a difference, 2 on a usage error.
 *
 * Build: mpicc -O3 -march=native -ffp-contract=off -o obstacle obstacle.c
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FACES 6
#define TAG_HALO 100
#define TAG_GATHER 200
#define NONE (-1)

static const double BUMP_LOAD = -8.0;
static const double BUMP_HEIGHT = 0.2;
static const double BUMP_CURVATURE = 2.0;

static int rank, nprocs;

/* ------------------------------------------------------------------------- settings and options */

struct settings {
    double tolerance;
    int max_iterations;
    int check_every;
    double omega;
};

struct options {
    int n;
    struct settings s;
    char decomp[64];
    int check;
    int quiet;
    int help;
};

static const char USAGE[] =
    "usage: obstacle [options]   (the C twin of ObstacleDemo, synchronous scheme)\n"
    "  --n N              interior grid points per axis (default 48)\n"
    "  --tol T            relative successive-difference tolerance (default 1e-07)\n"
    "  --max-iter M       iteration bound (default 100000)\n"
    "  --check-every K    iterations between global convergence tests (default 1)\n"
    "  --omega W          step delta = W h^2/6, 0 < W <= 1 (default 1)\n"
    "  --decomp D         slab | pencil | block | AxBxC (default block)\n"
    "  --check            also solve sequentially on rank 0 and compare bitwise (default)\n"
    "  --no-check         skip the sequential comparison\n"
    "  --scheme sync      the only scheme of this twin\n"
    "  --quiet            no header\n"
    "  --help             this text\n";

/* usage_error: every rank parses the same arguments, so all leave here together. */
static void usage_error(const char *what, const char *value) {
    if (rank == 0) {
        fprintf(stderr, "obstacle: %s%s%s%s\n%s", what, value ? " '" : "", value ? value : "", value ? "'" : "", USAGE);
    }
    MPI_Finalize();
    exit(2);
}

static long parse_long(const char *opt, const char *v) {
    char *end;
    long x = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0') {
        char what[96];
        snprintf(what, sizeof what, "%s: not a number:", opt);
        usage_error(what, v);
    }
    return x;
}

static double parse_double(const char *opt, const char *v) {
    char *end;
    double x = strtod(v, &end);
    if (*v == '\0' || *end != '\0') {
        char what[96];
        snprintf(what, sizeof what, "%s: not a number:", opt);
        usage_error(what, v);
    }
    return x;
}

static struct options parse_options(int argc, char **argv) {
    struct options o = {48, {1e-7, 100000, 1, 1.0}, "block", 1, 0, 0};
    for (int a = 1; a < argc; a++) {
        char name[64];
        const char *value = NULL;
        const char *eq = strchr(argv[a], '=');
        if (strncmp(argv[a], "--", 2) == 0 && eq != NULL && (size_t) (eq - argv[a]) < sizeof name) {
            memcpy(name, argv[a], (size_t) (eq - argv[a]));
            name[eq - argv[a]] = '\0';
            value = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", argv[a]);
        }
        if (!strcmp(name, "--check")) {
            o.check = 1;
        } else if (!strcmp(name, "--no-check")) {
            o.check = 0;
        } else if (!strcmp(name, "--quiet") || !strcmp(name, "-q")) {
            o.quiet = 1;
        } else if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
            o.help = 1;
        } else if (!strcmp(name, "--n") || !strcmp(name, "--tol") || !strcmp(name, "--max-iter")
                   || !strcmp(name, "--check-every") || !strcmp(name, "--omega") || !strcmp(name, "--decomp")
                   || !strcmp(name, "--scheme")) {
            if (value == NULL) {
                if (a + 1 >= argc) {
                    char what[96];
                    snprintf(what, sizeof what, "%s needs a value", name);
                    usage_error(what, NULL);
                }
                value = argv[++a];
            }
            if (!strcmp(name, "--n")) {
                long n = parse_long(name, value);
                if (n < 1 || n > 2000) {
                    usage_error("--n must be between 1 and 2000, got", value);
                }
                o.n = (int) n;
            } else if (!strcmp(name, "--tol")) {
                o.s.tolerance = parse_double(name, value);
                if (!(o.s.tolerance > 0)) {
                    usage_error("--tol must be > 0, got", value);
                }
            } else if (!strcmp(name, "--max-iter")) {
                long m = parse_long(name, value);
                if (m < 1 || m > 1000000000L) {
                    usage_error("--max-iter must be between 1 and 1e9, got", value);
                }
                o.s.max_iterations = (int) m;
            } else if (!strcmp(name, "--check-every")) {
                long k = parse_long(name, value);
                if (k < 1 || k > 1000000000L) {
                    usage_error("--check-every must be between 1 and 1e9, got", value);
                }
                o.s.check_every = (int) k;
            } else if (!strcmp(name, "--omega")) {
                o.s.omega = parse_double(name, value);
                if (!(o.s.omega > 0 && o.s.omega <= 1)) {
                    usage_error("--omega must be in (0, 1], got", value);
                }
            } else if (!strcmp(name, "--decomp")) {
                if (strlen(value) >= sizeof o.decomp) {
                    usage_error("--decomp: too long:", value);
                }
                strcpy(o.decomp, value);
            } else if (strcmp(value, "sync") != 0) {
                usage_error("--scheme: this twin has the synchronous scheme only (sync), got", value);
            }
        } else {
            usage_error("unknown option", argv[a]);
        }
    }
    return o;
}

/* ------------------------------------------------------------------------------- decomposition */

struct decomposition {
    int n;
    int dims[3];
};

static int range_start(int n, int parts, int c) {
    return c * (n / parts) + (c < n % parts ? c : n % parts);
}

static int range_length(int n, int parts, int c) {
    return n / parts + (c < n % parts ? 1 : 0);
}

/* The factors a >= b >= c of p (c = 1 when k = 2) with the least a + b + c, a factor above n last. */
static void balanced_factors(int n, int p, int k, int out[3]) {
    long best = -1;
    for (int a = 1; a <= p; a++) {
        if (p % a != 0) {
            continue;
        }
        int rest = p / a;
        for (int b = 1; b <= (a < rest ? a : rest); b++) {
            if (rest % b != 0) {
                continue;
            }
            int c = rest / b;
            if (c > b || (k == 2 && c != 1)) {
                continue;
            }
            long score = (a <= n ? 0 : 1L << 40) + a + b + c;
            if (best < 0 || score < best) {
                best = score;
                out[0] = a;
                out[1] = b;
                out[2] = c;
            }
        }
    }
}

static struct decomposition decomposition_of(int n, int ranks, const char *spec) {
    struct decomposition d = {n, {ranks, 1, 1}};
    if (!strcmp(spec, "slab")) {
        return d;
    }
    if (!strcmp(spec, "pencil")) {
        balanced_factors(n, ranks, 2, d.dims);
        return d;
    }
    if (!strcmp(spec, "block")) {
        balanced_factors(n, ranks, 3, d.dims);
        return d;
    }
    char tail;
    if (sscanf(spec, "%dx%dx%d%c", &d.dims[0], &d.dims[1], &d.dims[2], &tail) != 3
        || d.dims[0] < 1 || d.dims[1] < 1 || d.dims[2] < 1) {
        usage_error("decomposition must be slab, pencil, block or AxBxC, got", spec);
    }
    if ((long) d.dims[0] * d.dims[1] * d.dims[2] != ranks) {
        usage_error("the process grid's product is not the number of ranks:", spec);
    }
    return d;
}

static int coord(const struct decomposition *d, int r, int axis) {
    switch (axis) {
        case 0: return r / (d->dims[1] * d->dims[2]);
        case 1: return r / d->dims[2] % d->dims[1];
        default: return r % d->dims[2];
    }
}

static int start(const struct decomposition *d, int r, int axis) {
    return range_start(d->n, d->dims[axis], coord(d, r, axis));
}

static int count(const struct decomposition *d, int r, int axis) {
    return range_length(d->n, d->dims[axis], coord(d, r, axis));
}

static long volume(const struct decomposition *d, int r) {
    return (long) count(d, r, 0) * count(d, r, 1) * count(d, r, 2);
}

static int neighbour(const struct decomposition *d, int r, int face) {
    if (volume(d, r) == 0) {
        return NONE;
    }
    int axis = face >> 1;
    int c = coord(d, r, axis) + ((face & 1) == 0 ? -1 : 1);
    if (c < 0 || c >= d->dims[axis] || range_length(d->n, d->dims[axis], c) == 0) {
        return NONE;
    }
    int cs[3] = {coord(d, r, 0), coord(d, r, 1), coord(d, r, 2)};
    cs[axis] = c;
    return (cs[0] * d->dims[1] + cs[1]) * d->dims[2] + cs[2];
}

/* ----------------------------------------------------------------------------------- the block */

/* A box of the interior with one ghost layer each side, as GridBlock: local (i, j, k) at i sx + j sy + k. */
struct block {
    int nx, ny, nz;
    int sx, sy;
    double *current, *next, *obstacle, *source;
    double inv_h2, delta;
    double max_diff, max_abs;
};

static double coordinate(int n, int index) {
    return (index + 1) * (1.0 / (n + 1));
}

static void *checked_calloc(size_t count, size_t size) {
    void *p = calloc(count, size);
    if (p == NULL) {
        fprintf(stderr, "obstacle: rank %d: out of memory (%zu values)\n", rank, count);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

static void block_init(struct block *b, int n, double delta, int x0, int nx, int y0, int ny, int z0, int nz) {
    b->nx = nx;
    b->ny = ny;
    b->nz = nz;
    b->sy = nz + 2;
    b->sx = (ny + 2) * b->sy;
    size_t size = (size_t) (nx + 2) * b->sx;
    b->current = checked_calloc(size, sizeof(double));
    b->next = checked_calloc(size, sizeof(double));
    b->obstacle = checked_calloc(size, sizeof(double));
    b->source = checked_calloc(size, sizeof(double));
    double h = 1.0 / (n + 1);
    b->inv_h2 = 1.0 / (h * h);
    b->delta = delta;
    for (int i = 1; i <= nx; i++) {
        double x = coordinate(n, x0 + i - 1);
        for (int j = 1; j <= ny; j++) {
            double y = coordinate(n, y0 + j - 1);
            for (int k = 1; k <= nz; k++) {
                double z = coordinate(n, z0 + k - 1);
                size_t p = (size_t) i * b->sx + (size_t) j * b->sy + k;
                double dx = x - 0.5;
                double dy = y - 0.5;
                double dz = z - 0.5;
                b->obstacle[p] = BUMP_HEIGHT - BUMP_CURVATURE * (dx * dx + dy * dy + dz * dz);
                b->source[p] = BUMP_LOAD;
                b->current[p] = b->obstacle[p] > 0.0 ? b->obstacle[p] : 0.0;
            }
        }
    }
}

static void block_free(struct block *b) {
    free(b->current);
    free(b->next);
    free(b->obstacle);
    free(b->source);
}

static int extent(const struct block *b, int axis) {
    return axis == 0 ? b->nx : axis == 1 ? b->ny : b->nz;
}

/* The layer next to face: the boundary layer a neighbour needs (ghost 0) or the ghost layer (1). */
static void face_box(const struct block *b, int face, int ghost, int box[6]) {
    int axis = face >> 1;
    int e = extent(b, axis);
    int layer = (face & 1) == 0 ? (ghost ? 0 : 1) : (ghost ? e + 1 : e);
    box[0] = 1; box[1] = b->nx;
    box[2] = 1; box[3] = b->ny;
    box[4] = 1; box[5] = b->nz;
    box[2 * axis] = layer;
    box[2 * axis + 1] = layer;
}

static int face_size(const struct block *b, int face) {
    switch (face >> 1) {
        case 0: return b->ny * b->nz;
        case 1: return b->nx * b->nz;
        default: return b->nx * b->ny;
    }
}

/* Box 0 reads no ghost layer a neighbour fills; boxes 1 to 6 are next to the faces (GridBlock.sweepPlan). */
static void sweep_plan(const struct block *b, const int has[FACES], int plan[7][6]) {
    int lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        int e = extent(b, a);
        lo[a] = has[2 * a] ? 2 : 1;
        if (lo[a] > e + 1) {
            lo[a] = e + 1;
        }
        hi[a] = has[2 * a + 1] ? e - 1 : e;
        if (hi[a] < lo[a] - 1) {
            hi[a] = lo[a] - 1;
        }
    }
    int boxes[7][6] = {
        {lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]},
        {1, lo[0] - 1, 1, b->ny, 1, b->nz},
        {hi[0] + 1, b->nx, 1, b->ny, 1, b->nz},
        {lo[0], hi[0], 1, lo[1] - 1, 1, b->nz},
        {lo[0], hi[0], hi[1] + 1, b->ny, 1, b->nz},
        {lo[0], hi[0], lo[1], hi[1], 1, lo[2] - 1},
        {lo[0], hi[0], lo[1], hi[1], hi[2] + 1, b->nz},
    };
    memcpy(plan, boxes, sizeof boxes);
}

static void begin_iteration(struct block *b) {
    b->max_diff = 0.0;
    b->max_abs = 0.0;
}

/* One projected Richardson update of a box, the operations of GridBlock.sweep in its order. */
static void sweep(struct block *b, const int box[6]) {
    const double *restrict u = b->current;
    double *restrict v = b->next;
    const double *restrict phi = b->obstacle;
    const double *restrict f = b->source;
    const long sx = b->sx;
    const long sy = b->sy;
    const double inv_h2 = b->inv_h2;
    const double delta = b->delta;
    double md = b->max_diff;
    double ma = b->max_abs;
    for (int i = box[0]; i <= box[1]; i++) {
        for (int j = box[2]; j <= box[3]; j++) {
            long row = i * sx + j * sy;
            for (long p = row + box[4], end = row + box[5]; p <= end; p++) {
                double c = u[p];
                double au = (6.0 * c - (u[p - sx] + u[p + sx] + u[p - sy] + u[p + sy] + u[p - 1] + u[p + 1])) * inv_h2;
                double w = c - delta * (au - f[p]);
                w = w >= phi[p] ? w : phi[p];
                v[p] = w;
                double d = fabs(w - c);
                double a = fabs(w);
                md = md >= d ? md : d;
                ma = ma >= a ? ma : a;
            }
        }
    }
    b->max_diff = md;
    b->max_abs = ma;
}

static void end_iteration(struct block *b) {
    double *t = b->current;
    b->current = b->next;
    b->next = t;
}

/* Copies a box of the current iterate to (to_buffer) or from buf, in i, j, k order; returns the count. */
static long copy_box(struct block *b, double *buf, const int box[6], int to_buffer) {
    long row_length = box[5] - box[4] + 1;
    if (row_length <= 0) {
        return 0;
    }
    long o = 0;
    for (int i = box[0]; i <= box[1]; i++) {
        for (int j = box[2]; j <= box[3]; j++) {
            double *p = b->current + (long) i * b->sx + (long) j * b->sy + box[4];
            if (to_buffer) {
                memcpy(buf + o, p, row_length * sizeof(double));
            } else {
                memcpy(p, buf + o, row_length * sizeof(double));
            }
            o += row_length;
        }
    }
    return o;
}

static double relative_residual(double max_diff, double max_abs) {
    return max_diff == 0.0 ? 0.0 : max_diff / max_abs;
}

static int checks_at(const struct settings *s, int k) {
    return k % s->check_every == 0 || k == s->max_iterations;
}

struct result {
    int iterations;
    double residual;
    int converged;
    double seconds;
};

/* ----------------------------------------------------------------------------- parallel solver */

struct solver {
    struct block b;
    int neighbours[FACES];
    int boundary[FACES][6];
    int ghost[FACES][6];
    double *send_planes[FACES];
    double *recv_planes[FACES];
    MPI_Request sends[FACES];
    MPI_Request recvs[FACES];
    int plan[7][6];
    double compute, halo_wait, send_wait, test; /* seconds */
};

static void solver_init(struct solver *s, const struct decomposition *d, const struct settings *st) {
    memset(s, 0, sizeof *s);
    double h = 1.0 / (d->n + 1);
    block_init(&s->b, d->n, st->omega * h * h / 6.0, start(d, rank, 0), count(d, rank, 0), start(d, rank, 1),
               count(d, rank, 1), start(d, rank, 2), count(d, rank, 2));
    int has[FACES];
    for (int f = 0; f < FACES; f++) {
        s->neighbours[f] = neighbour(d, rank, f);
        has[f] = s->neighbours[f] != NONE;
        s->sends[f] = MPI_REQUEST_NULL;
        s->recvs[f] = MPI_REQUEST_NULL;
        if (has[f]) {
            face_box(&s->b, f, 0, s->boundary[f]);
            face_box(&s->b, f, 1, s->ghost[f]);
            s->send_planes[f] = checked_calloc((size_t) face_size(&s->b, f), sizeof(double));
            s->recv_planes[f] = checked_calloc((size_t) face_size(&s->b, f), sizeof(double));
        }
    }
    sweep_plan(&s->b, has, s->plan);
}

static void solver_free(struct solver *s) {
    for (int f = 0; f < FACES; f++) {
        free(s->send_planes[f]);
        free(s->recv_planes[f]);
    }
    block_free(&s->b);
}

static void iterate(struct solver *s) {
    begin_iteration(&s->b);
    for (int f = 0; f < FACES; f++) {
        if (s->neighbours[f] != NONE) {
            /* the opposite face of f is f ^ 1: the neighbour sends through it */
            MPI_Irecv(s->recv_planes[f], face_size(&s->b, f), MPI_DOUBLE, s->neighbours[f], TAG_HALO + (f ^ 1),
                      MPI_COMM_WORLD, &s->recvs[f]);
        }
    }
    for (int f = 0; f < FACES; f++) {
        if (s->neighbours[f] != NONE) {
            copy_box(&s->b, s->send_planes[f], s->boundary[f], 1);
            MPI_Isend(s->send_planes[f], face_size(&s->b, f), MPI_DOUBLE, s->neighbours[f], TAG_HALO + f,
                      MPI_COMM_WORLD, &s->sends[f]);
        }
    }
    double t0 = MPI_Wtime();
    sweep(&s->b, s->plan[0]);
    double t1 = MPI_Wtime();
    for (int f = 0; f < FACES; f++) {
        if (s->recvs[f] != MPI_REQUEST_NULL) {
            MPI_Wait(&s->recvs[f], MPI_STATUS_IGNORE);
            copy_box(&s->b, s->recv_planes[f], s->ghost[f], 0);
        }
    }
    double t2 = MPI_Wtime();
    for (int p = 1; p < 7; p++) {
        sweep(&s->b, s->plan[p]);
    }
    double t3 = MPI_Wtime();
    for (int f = 0; f < FACES; f++) {
        if (s->sends[f] != MPI_REQUEST_NULL) {
            MPI_Wait(&s->sends[f], MPI_STATUS_IGNORE);
        }
    }
    end_iteration(&s->b);
    double t4 = MPI_Wtime();
    s->compute += (t1 - t0) + (t3 - t2);
    s->halo_wait += t2 - t1;
    s->send_wait += t4 - t3;
}

static double global_residual(struct solver *s) {
    double t0 = MPI_Wtime();
    double local[2] = {s->b.max_diff, s->b.max_abs};
    double global[2];
    MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    s->test += MPI_Wtime() - t0;
    return relative_residual(global[0], global[1]);
}

/* RichardsonLoop.run: iterate until a test meets the tolerance or the bound is reached. */
static struct result solve_parallel(struct solver *s, const struct settings *st) {
    double t0 = MPI_Wtime();
    struct result r = {0, NAN, 0, 0};
    while (r.iterations < st->max_iterations && !r.converged) {
        iterate(s);
        r.iterations++;
        if (checks_at(st, r.iterations)) {
            r.residual = global_residual(s);
            r.converged = r.residual <= st->tolerance;
        }
    }
    r.seconds = MPI_Wtime() - t0;
    return r;
}

static struct result solve_sequential(struct block *b, const struct settings *st) {
    int whole[6] = {1, b->nx, 1, b->ny, 1, b->nz};
    double t0 = MPI_Wtime();
    struct result r = {0, NAN, 0, 0};
    while (r.iterations < st->max_iterations && !r.converged) {
        begin_iteration(b);
        sweep(b, whole);
        end_iteration(b);
        r.iterations++;
        if (checks_at(st, r.iterations)) {
            r.residual = relative_residual(b->max_diff, b->max_abs);
            r.converged = r.residual <= st->tolerance;
        }
    }
    r.seconds = MPI_Wtime() - t0;
    return r;
}

/* Collects the interior of every block on rank 0 into an n^3 array, k fastest; NULL elsewhere. */
static double *gather(struct solver *s, const struct decomposition *d) {
    long mine = volume(d, rank);
    int interior[6] = {1, s->b.nx, 1, s->b.ny, 1, s->b.nz};
    if (rank != 0) {
        if (mine > 0) {
            double *buf = checked_calloc((size_t) mine, sizeof(double));
            copy_box(&s->b, buf, interior, 1);
            MPI_Send(buf, (int) mine, MPI_DOUBLE, 0, TAG_GATHER, MPI_COMM_WORLD);
            free(buf);
        }
        return NULL;
    }
    int n = d->n;
    double *global = checked_calloc((size_t) n * n * n, sizeof(double));
    long largest = 0;
    for (int r = 0; r < nprocs; r++) {
        largest = volume(d, r) > largest ? volume(d, r) : largest;
    }
    double *buf = checked_calloc((size_t) (largest > 0 ? largest : 1), sizeof(double));
    for (int r = 0; r < nprocs; r++) {
        long v = volume(d, r);
        if (v == 0) {
            continue;
        }
        if (r == 0) {
            copy_box(&s->b, buf, interior, 1);
        } else {
            MPI_Recv(buf, (int) v, MPI_DOUBLE, r, TAG_GATHER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        int gx = start(d, r, 0), lx = count(d, r, 0);
        int gy = start(d, r, 1), ly = count(d, r, 1);
        int gz = start(d, r, 2), lz = count(d, r, 2);
        long o = 0;
        for (int i = 0; i < lx; i++) {
            for (int j = 0; j < ly; j++) {
                memcpy(global + ((long) (gx + i) * n + gy + j) * n + gz, buf + o, (size_t) lz * sizeof(double));
                o += lz;
            }
        }
    }
    free(buf);
    return global;
}

static const char *implementation(void) {
#if defined(OPEN_MPI)
    return "c-openmpi";
#elif defined(MPICH)
    return "c-mpich";
#else
    return "c-mpi";
#endif
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    struct options o = parse_options(argc, argv);
    if (o.help) {
        if (rank == 0) {
            fputs(USAGE, stdout);
        }
        MPI_Finalize();
        return 0;
    }
    struct decomposition d = decomposition_of(o.n, nprocs, o.decomp);
    char shape[48];
    snprintf(shape, sizeof shape, "%dx%dx%d", d.dims[0], d.dims[1], d.dims[2]);
    if (rank == 0 && !o.quiet) {
        printf("C twin of the Railyard obstacle demo (%s): projected Richardson, synchronous\n", implementation());
        printf("  grid       %d^3, h = 1/%d; ranks %d, process grid %s\n", o.n, o.n + 1, nprocs, shape);
        printf("  stop       |u(k+1) - u(k)|max / |u(k+1)|max <= %.1e, tested every %d iteration(s), at most %d\n",
               o.s.tolerance, o.s.check_every, o.s.max_iterations);
    }

    struct solver s;
    solver_init(&s, &d, &o.s);
    MPI_Barrier(MPI_COMM_WORLD);
    struct result r = solve_parallel(&s, &o.s);
    double wall;
    MPI_Allreduce(&r.seconds, &wall, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double mine[4] = {s.compute, s.halo_wait, s.send_wait, s.test};
    double least[4], most[4], sum[4];
    MPI_Reduce(mine, least, 4, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, most, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, sum, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    double *solution = o.check ? gather(&s, &d) : NULL;

    int status = 0;
    if (rank == 0) {
        printf("ranks:            %d (process grid %s)\n", nprocs, shape);
        printf("grid:             %d^3\n", o.n);
        printf("iterations:       %d (%s)\n", r.iterations, r.converged ? "converged" : "NOT converged: iteration bound reached");
        printf("final residual:   %.3e (tolerance %.1e)\n", r.residual, o.s.tolerance);
        printf("wall time:        %.3f s\n", wall);
        printf("time/rank:        compute %.3f-%.3f s, halo wait %.3f-%.3f s, send wait %.3f-%.3f s, test %.3f-%.3f s\n",
               least[0], most[0], least[1], most[1], least[2], most[2], least[3], most[3]);
        if (o.check) {
            struct block seq;
            double h = 1.0 / (o.n + 1);
            block_init(&seq, o.n, o.s.omega * h * h / 6.0, 0, o.n, 0, o.n, 0, o.n);
            struct result ref = solve_sequential(&seq, &o.s);
            int all[6] = {1, o.n, 1, o.n, 1, o.n};
            double *expected = checked_calloc((size_t) o.n * o.n * o.n, sizeof(double));
            copy_box(&seq, expected, all, 1);
            double max_diff = 0.0;
            for (long p = 0; p < (long) o.n * o.n * o.n; p++) {
                double diff = fabs(solution[p] - expected[p]);
                if (diff != diff || max_diff != max_diff) {
                    max_diff = NAN; /* a NaN anywhere fails the comparison */
                } else if (diff > max_diff) {
                    max_diff = diff;
                }
            }
            printf("sequential:       %d iterations, %.3f s (speed-up %.2f)\n", ref.iterations, ref.seconds,
                   ref.seconds / wall);
            printf("max difference:   %.17g\n", max_diff);
            if (max_diff == 0.0 && ref.iterations == r.iterations) {
                printf("OK: parallel solution agrees with sequential within 0 (max |difference| 0, %d iterations both)\n",
                       r.iterations);
            } else {
                printf("MISMATCH: max |parallel - sequential| = %.17g (accepted 0), iterations %d parallel vs %d sequential\n",
                       max_diff, r.iterations, ref.iterations);
                status = 1;
            }
            free(expected);
            block_free(&seq);
        }
        printf("RESULT obstacle impl=%s scheme=sync np=%d n=%d grid=%s iterations=%d converged=%s residual=%.17g"
               " solve_s=%.6f compute_s=%.6f halo_wait_s=%.6f send_wait_s=%.6f test_s=%.6f\n",
               implementation(), nprocs, o.n, shape, r.iterations, r.converged ? "true" : "false", r.residual, wall,
               sum[0] / nprocs, sum[1] / nprocs, sum[2] / nprocs, sum[3] / nprocs);
        fflush(stdout);
    }
    free(solution);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    solver_free(&s);
    MPI_Finalize();
    return status;
}
