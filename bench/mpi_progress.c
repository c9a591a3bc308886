/* The progress benchmark of paper 003 §5.2 (Figure 8), in plain MPI so the
 * same source builds with any MPI's mpicc (bench/progress_compare.sh runs it
 * for Sluice, Sluice with the traditional rendezvous, MPICH and Open MPI).
 *
 * Two ranks; every iteration starts with a barrier, then
 *   sender (rank 0):   comp1, MPI_Isend, comp2, MPI_Wait, comp3
 *   receiver (rank 1): comp4, MPI_Irecv, comp5, MPI_Wait, comp6
 * A configuration (comp1,...,comp6) gives the computations in "units": a
 * calibrated busy loop (deterministic integer work, never a sleep) of
 * --unit-us microseconds each (18 us, the paper's C(1)).  Ranks past 1, if
 * any, only wait at the final barrier.
 *
 * Per row the program prints the median per-iteration time (rank 0, barrier
 * exit to barrier exit; robust on a shared machine), the mean (the paper's
 * total/iterations) and the minimum (the fastest mean of 10 consecutive
 * iterations), next to the paper's two formula values computed from C(x)
 * (the busy loop timed alone, both ranks computing) and T(msize) (a plain
 * ping-pong with no computation, half the round trip), each the fastest of
 * repeats (load only adds; the formulas model the quiet machine):
 *   fig  configuration       sizes                  ideal                     no overlap
 *   9a   (0,0,60,X,0,0)      30 KiB, X = 10..50     C(60)                     C(60)+C(X)+T
 *   9b   (0,20,0,5,5,20)     16,30,48,64,128 KiB    C(30)                     C(40)+T
 *   10a  (20,20,20,0,0,0)    128 KiB .. 4 MiB       C(40)+max(C(20),T)        C(60)+T
 *   10b  (27,0,0,20,20,20)   128 KiB .. 4 MiB       C(47)+max(C(13),T)        C(60)+T
 * In 9a/9b the sender arrives early, in 10a/10b the receiver does (its
 * MPI_Irecv is posted C(20), resp. C(7), before the sender's MPI_Isend).
 *
 * The receiver checks every message (status count and source, a sample of
 * bytes each timed iteration, every byte in the warm-up iterations and in
 * the last one); the sender alternates two buffers with different
 * position-dependent patterns, so stale or misplaced data is caught.  Any
 * inconsistency (data, count, a time below the computation it contains, a
 * non-finite value) is reported on stderr and the job exits non-zero; a
 * clean run ends with the line "# mpi_progress: ok ...".
 *
 * usage: mpirun -n 2 mpi_progress [--fig 9a|9b|10a|10b|all]... [--quick]
 *          [--iters N] [--warmup N] [--unit-us U] [--sizes S,S,...]
 *          [--config c1,c2,c3,c4,c5,c6 --sizes S,...]
 * Sizes take a K or M suffix (1024-based).  Default: all four figures,
 * 200 iterations per row (the paper uses 1000); --quick: 10. */
#include <mpi.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_DATA 7
#define TAG_PING 8
#define MAXSIZES 32
#define NSAMPLES 64

static MPI_Comm pair;       /* ranks 0 and 1 */
static int rank;
static int quick;
static int iters = 200, warmup = -1;
static double unit_us = 18.0;
static uint64_t loops_per_unit;
static volatile uint64_t sink = 0x9e3779b97f4a7c15ull;
static int errors;

/* Sluice's mpi.h subset has no collectives but the barrier: the two ranks
 * combine values with a send-receive. */
static double pair_max(double v)
{
    double other;
    MPI_Sendrecv(&v, 1, MPI_DOUBLE, 1 - rank, 9, &other, 1, MPI_DOUBLE, 1 - rank, 9, pair,
                 MPI_STATUS_IGNORE);
    return v > other ? v : other;
}

/* ---- computation ------------------------------------------------------- */

/* A dependent chain of multiply/add/xor-shift: no closed form the compiler
 * could substitute, no memory traffic, the same instructions every time. */
static void spin(uint64_t n)
{
    uint64_t x = sink;
    for (uint64_t k = 0; k < n; k++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        x ^= x >> 29;
    }
    sink = x;
}

static void compute(int units)
{
    if (units > 0) spin((uint64_t)units * loops_per_unit);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Loops per unit: both ranks time short trials of the loop at once (the
 * conditions of the benchmark) and keep the fastest (a trial the scheduler
 * did not interrupt; the machine may be shared), and both use the larger
 * count (the faster rank's), so the two sides do identical work. */
static void calibrate(void)
{
    uint64_t n = 10000, mine;
    double best = 1e30;
    spin(n); /* warm */
    for (;;) { /* grow the trial until it lasts about 0.5 ms */
        double t0 = MPI_Wtime();
        spin(n);
        double t = MPI_Wtime() - t0;
        if (t > 5e-4 || n > (1ull << 40)) break;
        n *= 2;
    }
    MPI_Barrier(pair);
    for (int i = 0; i < 41; i++) {
        double t0 = MPI_Wtime();
        spin(n);
        double t = MPI_Wtime() - t0;
        if (t < best) best = t;
    }
    mine = (uint64_t)((double)n * unit_us * 1e-6 / best + 0.5);
    if (mine < 1) mine = 1;
    loops_per_unit = (uint64_t)pair_max((double)mine);
}

/* C(x) in us: the fastest of several runs, both ranks computing (noise on a
 * shared machine only adds, and the formulas model the quiet machine); the
 * larger of the two ranks' values. */
static double cache_c[1024];

static double C(int x)
{
    if (x <= 0) return 0;
    if (x < 1024 && cache_c[x] > 0) return cache_c[x];
    int reps = quick ? 5 : 15;
    double mine = 1e30, all;
    MPI_Barrier(pair);
    for (int i = 0; i < reps; i++) {
        double t0 = MPI_Wtime();
        compute(x);
        double t = (MPI_Wtime() - t0) * 1e6;
        if (t < mine) mine = t;
    }
    all = pair_max(mine);
    if (x < 1024) cache_c[x] = all;
    return all;
}

/* ---- data ----------------------------------------------------------------- */

static unsigned char pattern(size_t j, int which)
{
    uint32_t h = (uint32_t)j * 2654435761u;
    return (unsigned char)((h >> 24) ^ (j >> 16) ^ (which ? 0xa5 : 0x3c));
}

static void fill(unsigned char *b, size_t n, int which)
{
    for (size_t j = 0; j < n; j++) b[j] = pattern(j, which);
}

static void fail(const char *what, long long it, size_t at, int got, int want)
{
    if (errors++ < 10)
        fprintf(stderr, "mpi_progress: rank %d: %s (iteration %lld, byte %zu: got %d, want %d)\n",
                rank, what, it, at, got, want);
}

/* Every byte when full, else NSAMPLES spread positions plus both ends. */
static void verify(const unsigned char *b, size_t n, int which, int full, long long it)
{
    if (n == 0) return;
    if (full) {
        for (size_t j = 0; j < n; j++)
            if (b[j] != pattern(j, which)) {
                fail("data mismatch", it, j, b[j], pattern(j, which));
                return;
            }
        return;
    }
    for (int s = 0; s <= NSAMPLES; s++) {
        size_t j = s == NSAMPLES ? n - 1 : (size_t)s * n / NSAMPLES;
        if (b[j] != pattern(j, which)) {
            fail("data mismatch (sampled)", it, j, b[j], pattern(j, which));
            return;
        }
    }
}

static void check_status(const MPI_Status *st, int len, long long it)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    if (count != len) fail("received count differs from the message size", it, 0, count, len);
    if (st->MPI_SOURCE != 0 || st->MPI_TAG != TAG_DATA)
        fail("received status source/tag wrong", it, 0, st->MPI_SOURCE, 0);
}

/* ---- T(msize) ------------------------------------------------------------- */

/* T(msize) in us: half the fastest round trip of a plain ping-pong (as C). */
static double T(unsigned char *sbuf, unsigned char *rbuf, int len)
{
    int reps = quick ? 5 : (len <= 262144 ? 50 : 20);
    double mine = 1e30, all;
    MPI_Status st;
    for (int i = -2; i < reps; i++) {
        MPI_Barrier(pair);
        double t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(sbuf, len, MPI_BYTE, 1, TAG_PING, pair);
            MPI_Recv(rbuf, len, MPI_BYTE, 1, TAG_PING, pair, &st);
        } else {
            MPI_Recv(rbuf, len, MPI_BYTE, 0, TAG_PING, pair, &st);
            MPI_Send(rbuf, len, MPI_BYTE, 0, TAG_PING, pair);
        }
        double t = (MPI_Wtime() - t0) * 1e6 / 2;
        if (i >= 0 && t < mine) mine = t;
    }
    verify(rbuf, (size_t)len, 0, 1, -1); /* both ranks: the bytes went there and back */
    all = pair_max(mine);
    return all;
}

/* ---- one row of Figure 8 ------------------------------------------------ */

struct row {
    double median, mean, min;
};

static struct row run(const int c[6], int len, unsigned char *sb[2], unsigned char *rbuf)
{
    int n = warmup + iters;
    double *stamp = malloc(sizeof(double) * (size_t)(iters + 1));
    MPI_Request req;
    MPI_Status st;
    struct row r = { 0, 0, 0 };
    if (rank == 1) memset(rbuf, 0, (size_t)len); /* no leftover of T()'s ping-pong can pass */
    for (int it = 0; it < n; it++) {
        int which = it & 1, timed = it >= warmup;
        MPI_Barrier(pair);
        if (timed) stamp[it - warmup] = MPI_Wtime();
        if (rank == 0) {
            compute(c[0]);
            MPI_Isend(sb[which], len, MPI_BYTE, 1, TAG_DATA, pair, &req);
            compute(c[1]);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            compute(c[2]);
        } else {
            compute(c[3]);
            MPI_Irecv(rbuf, len, MPI_BYTE, 0, TAG_DATA, pair, &req);
            compute(c[4]);
            MPI_Wait(&req, &st);
            check_status(&st, len, it);
            verify(rbuf, (size_t)len, which, !timed, it);
            compute(c[5]);
        }
    }
    MPI_Barrier(pair);
    stamp[iters] = MPI_Wtime();
    if (rank == 1) verify(rbuf, (size_t)len, (n - 1) & 1, 1, n - 1);
    r.mean = (stamp[iters] - stamp[0]) / iters * 1e6;
    /* One iteration seen from rank 0 can be shorter than its computation (a
     * late wake-up from the previous barrier shortens the next span), but a
     * run of w of them cannot be by much: the minimum is over windows. */
    int w = iters < 10 ? iters : 10;
    r.min = 1e30;
    for (int i = 0; i + w <= iters; i++) {
        double us = (stamp[i + w] - stamp[i]) / w * 1e6;
        if (us < r.min) r.min = us;
    }
    for (int i = 0; i < iters; i++) stamp[i] = (stamp[i + 1] - stamp[i]) * 1e6;
    r.median = median(stamp, iters);
    free(stamp);
    return r;
}

/* ---- figures -------------------------------------------------------------- */

enum { F9A, F9B, F10A, F10B, FCUSTOM };
static const char *fig_name[] = { "9a", "9b", "10a", "10b", "custom" };
static int nrows;

/* "30K,1M,100" -> sizes; 0 on anything malformed */
static int parse_sizes(const char *s, int *out)
{
    int n = 0;
    for (;;) {
        char *end;
        double v = strtod(s, &end);
        if (end == s || n == MAXSIZES) return 0;
        if (*end == 'K' || *end == 'k') v *= 1024, end++;
        else if (*end == 'M' || *end == 'm') v *= 1024 * 1024, end++;
        if (!(v >= 0 && v <= 1 << 30) || (*end && *end != ',')) return 0;
        out[n++] = (int)v;
        if (!*end) return n;
        s = end + 1;
    }
}

static int maxlen_of(const int *sizes, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++) m = sizes[i] > m ? sizes[i] : m;
    return m;
}

static void check_row(const char *fig, const char *cfg, int len, struct row r, int lower,
                      double ideal, double noovl, double t)
{
    double v[] = { r.median, r.mean, r.min, ideal, noovl, t };
    for (unsigned i = 0; i < sizeof v / sizeof *v; i++)
        if (!isfinite(v[i]) || v[i] < 0) {
            fprintf(stderr, "mpi_progress: %s %s %d: non-finite or negative value\n", fig, cfg,
                    len);
            errors++;
        }
    /* Load only makes an iteration slower, and the calibration made a unit
     * last unit_us at the loop's fastest: iterations faster than the
     * computation they contain mean the clock or the busy loop is broken.
     * (Not against the measured C(x): under load every repeat of it may
     * have been slowed.) */
    if (r.min < 0.8 * lower * unit_us) {
        fprintf(stderr,
                "mpi_progress: %s %s %d: 10 iterations at %.1f us each, shorter than the %d "
                "units (%.1f us) of computation each contains\n",
                fig, cfg, len, r.min, lower, lower * unit_us);
        errors++;
    }
}

static void figure(int f, const int *usizes, int nusizes, const int *ucfg)
{
    static const int s9a[] = { 30720 };
    static const int s9b[] = { 16384, 30720, 49152, 65536, 131072 };
    static const int s10[] = { 131072, 262144, 524288, 1048576, 2097152, 4194304 };
    const int *sizes;
    int nsizes, nx = 1;
    switch (f) {
    case F9A: sizes = s9a, nsizes = 1, nx = 5; break;
    case F9B: sizes = s9b, nsizes = 5; break;
    case F10A: case F10B: sizes = s10, nsizes = 6; break;
    default: sizes = usizes, nsizes = nusizes;
    }
    if (nusizes) sizes = usizes, nsizes = nusizes;
    int maxlen = maxlen_of(sizes, nsizes);
    unsigned char *sb[2] = { malloc((size_t)maxlen + 1), malloc((size_t)maxlen + 1) };
    unsigned char *rbuf = malloc((size_t)maxlen + 1);
    fill(sb[0], (size_t)maxlen, 0);
    fill(sb[1], (size_t)maxlen, 1);
    memset(rbuf, 0, (size_t)maxlen + 1);
    if (rank == 0) {
        switch (f) {
        case F9A:
            printf("# figure 9a: configuration (0,0,60,X,0,0), X = 10..50; the sender arrives "
                   "early\n# ideal = C(60) (the sender's computation hides everything), "
                   "no overlap = C(60)+C(X)+T(msize)\n");
            break;
        case F9B:
            printf("# figure 9b: configuration (0,20,0,5,5,20); the sender arrives early\n"
                   "# ideal = C(30) (the receiver's Irecv..Wait hides the transfer), "
                   "no overlap = C(40)+T(msize)\n");
            break;
        case F10A:
            printf("# figure 10a: configuration (20,20,20,0,0,0); the receiver arrives early "
                   "(sender-side overlap)\n# ideal = C(40)+max(C(20),T(msize)), "
                   "no overlap = C(60)+T(msize)\n");
            break;
        case F10B:
            printf("# figure 10b: configuration (27,0,0,20,20,20); the receiver arrives early "
                   "(receiver-side overlap)\n# ideal = C(47)+max(C(13),T(msize)), "
                   "no overlap = C(60)+T(msize)\n");
            break;
        default:
            printf("# custom configuration (%d,%d,%d,%d,%d,%d)\n# ideal = the larger side's "
                   "computation (a lower bound), no overlap = not defined (-)\n",
                   ucfg[0], ucfg[1], ucfg[2], ucfg[3], ucfg[4], ucfg[5]);
        }
        printf("%-6s %-20s %9s %9s %10s %10s %10s %10s %10s\n", "#fig", "config", "bytes",
               "T_us", "median_us", "mean_us", "min_us", "ideal_us", "no_ovl_us");
        fflush(stdout);
    }
    for (int si = 0; si < nsizes; si++) {
        int len = sizes[si];
        double t = T(sb[0], rbuf, len);
        for (int xi = 0; xi < nx; xi++) {
            int c[6];
            double ideal, noovl;
            int lower; /* units of computation on the busier side */
            switch (f) {
            case F9A:
                c[0] = 0, c[1] = 0, c[2] = 60, c[3] = 10 * (xi + 1), c[4] = 0, c[5] = 0;
                ideal = C(60), noovl = C(60) + C(c[3]) + t, lower = 60;
                break;
            case F9B:
                c[0] = 0, c[1] = 20, c[2] = 0, c[3] = 5, c[4] = 5, c[5] = 20;
                ideal = C(30), noovl = C(40) + t, lower = 30;
                break;
            case F10A:
                c[0] = 20, c[1] = 20, c[2] = 20, c[3] = 0, c[4] = 0, c[5] = 0;
                ideal = C(40) + fmax(C(20), t), noovl = C(60) + t, lower = 60;
                break;
            case F10B:
                c[0] = 27, c[1] = 0, c[2] = 0, c[3] = 20, c[4] = 20, c[5] = 20;
                ideal = C(47) + fmax(C(13), t), noovl = C(60) + t, lower = 60;
                break;
            default: {
                memcpy(c, ucfg, sizeof c);
                int s = c[0] + c[1] + c[2], r = c[3] + c[4] + c[5];
                lower = s > r ? s : r, ideal = C(lower), noovl = NAN;
            }
            }
            struct row r = run(c, len, sb, rbuf);
            char cfg[64];
            snprintf(cfg, sizeof cfg, "(%d,%d,%d,%d,%d,%d)", c[0], c[1], c[2], c[3], c[4], c[5]);
            if (rank == 0) {
                check_row(fig_name[f], cfg, len, r, lower, ideal, f == FCUSTOM ? 0 : noovl, t);
                printf("%-6s %-20s %9d %9.1f %10.1f %10.1f %10.1f %10.1f ", fig_name[f], cfg,
                       len, t, r.median, r.mean, r.min, ideal);
                if (f == FCUSTOM) printf("%10s\n", "-");
                else printf("%10.1f\n", noovl);
                fflush(stdout);
            }
            nrows++;
        }
    }
    free(sb[0]);
    free(sb[1]);
    free(rbuf);
}

static void usage(void)
{
    fprintf(stderr, "usage: mpi_progress [--fig 9a|9b|10a|10b|all]... [--quick] [--iters N] "
                    "[--warmup N] [--unit-us U] [--sizes S,S,...] [--config c1,...,c6]\n");
}

int main(int argc, char **argv)
{
    int size, figs[4], nfigs = 0, sizes[MAXSIZES], nsizes = 0, cfg[6], custom = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "--quick")) quick = 1;
        else if (!v) bad = 1;
        else if (!strcmp(a, "--fig")) {
            i++;
            if (!strcmp(v, "all")) { for (int f = 0; f < 4; f++) figs[f] = f; nfigs = 4; }
            else {
                int f = 0;
                while (f < 4 && strcmp(v, fig_name[f])) f++;
                if (f == 4 || nfigs == 4) bad = 1;
                else figs[nfigs++] = f;
            }
        } else if (!strcmp(a, "--iters")) iters = atoi(argv[++i]), bad = iters < 1;
        else if (!strcmp(a, "--warmup")) warmup = atoi(argv[++i]), bad = warmup < 0;
        else if (!strcmp(a, "--unit-us")) unit_us = atof(argv[++i]), bad = !(unit_us > 0);
        else if (!strcmp(a, "--sizes")) nsizes = parse_sizes(argv[++i], sizes), bad = !nsizes;
        else if (!strcmp(a, "--config")) {
            i++;
            custom = sscanf(v, "%d,%d,%d,%d,%d,%d", &cfg[0], &cfg[1], &cfg[2], &cfg[3], &cfg[4],
                            &cfg[5]) == 6;
            bad = !custom;
            for (int k = 0; k < 6 && !bad; k++) bad = cfg[k] < 0 || cfg[k] > 100000;
        } else bad = 1;
        if (bad) {
            if (rank == 0) {
                fprintf(stderr, "mpi_progress: bad argument '%s'\n", a);
                usage();
            }
            MPI_Finalize();
            return 2;
        }
    }
    if (custom && !nsizes) {
        if (rank == 0) fprintf(stderr, "mpi_progress: --config needs --sizes\n");
        MPI_Finalize();
        return 2;
    }
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "mpi_progress: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (quick && iters == 200) iters = 10;
    if (warmup < 0) warmup = quick ? 2 : 10;
    if (!nfigs && !custom) { for (int f = 0; f < 4; f++) figs[f] = f; nfigs = 4; }

    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
    if (rank < 2) {
        calibrate();
        double c1 = C(1);
        if (rank == 0) {
            char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
            int l = 0;
            MPI_Get_library_version(lib, &l);
            char *nl = strchr(lib, '\n');
            if (nl) *nl = 0;
            printf("# mpi_progress (paper 003 Figure 8): %s\n", lib);
            printf("# unit: %.1f us requested, C(1) = %.2f us measured (%llu loops); %d iterations "
                   "per row (+%d warm-up); times in us per iteration: median, mean and minimum "
                   "(fastest 10 in a row); C(x) and T(msize) (ping-pong half round trip) are "
                   "fastest of repeats\n",
                   unit_us, c1, (unsigned long long)loops_per_unit, iters, warmup);
            fflush(stdout);
        }
        for (int i = 0; i < nfigs; i++) figure(figs[i], sizes, nsizes, cfg);
        if (custom) figure(FCUSTOM, sizes, nsizes, cfg);
        errors = (int)pair_max(errors); /* either rank's errors fail the run */
        if (rank == 0 && !errors)
            printf("# mpi_progress: ok (%d rows, data verified)\n", nrows);
        MPI_Comm_free(&pair);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return errors ? 1 : 0;
}
