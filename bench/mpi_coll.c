/* Collective benchmarks in the manner of the OSU micro-benchmarks, plain
 * MPI (built with Sluice's, MPICH's and Open MPI's mpicc by
 * bench/coll_compare.sh):
 *
 *   blocking  barrier bcast allreduce alltoall allgather reduce
 *             one line per size: "bytes latency_us" (mean over the
 *             iterations, averaged over the ranks, with a barrier after
 *             each call outside the timed part, as osu_<coll> measures)
 *   overlap   ibarrier ibcast iallreduce ialltoall iallgather
 *             one line per size: "bytes overlap_% pure_us cpu_us post_us"
 *             as osu_i<coll> measures it: the pure time of post + wait,
 *             then post, compute for that long with no MPI call at all
 *             (no MPI_Test), wait; overlap = 1 - (total - compute) / pure.
 *             cpu_us: time inside the post and the wait calls (paper
 *             002's overhead), post_us: inside the post alone (what
 *             starting, or compiling an offloaded schedule, costs).
 *
 * usage: [ITERS=n] mpi_coll MODE [MAXBYTES] [MINBYTES] */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

/* Iterations per size; ITERS caps them (the oversubscribed demonstration
 * rows: MPICH polls for milliseconds per call there). */
static int iters_for(size_t bytes)
{
    int it = bytes <= 4096 ? 2000 : bytes <= 65536 ? 400 : bytes <= 1 << 20 ? 60 : 20;
    const char *cap = getenv("ITERS");
    if (cap && atoi(cap) > 0 && atoi(cap) < it) it = atoi(cap);
    return it;
}

typedef enum { BARRIER, BCAST, ALLREDUCE, ALLTOALL, ALLGATHER, REDUCE } kind_t;

static char *sbuf, *rbuf;

/* One blocking call, or (req) the non-blocking one. */
static void call(kind_t k, size_t bytes, MPI_Request *req)
{
    int n = (int)bytes;
    switch (k) {
    case BARRIER: req ? MPI_Ibarrier(MPI_COMM_WORLD, req) : MPI_Barrier(MPI_COMM_WORLD); break;
    case BCAST:
        req ? MPI_Ibcast(rbuf, n, MPI_CHAR, 0, MPI_COMM_WORLD, req)
            : MPI_Bcast(rbuf, n, MPI_CHAR, 0, MPI_COMM_WORLD);
        break;
    case ALLREDUCE: /* floats, as osu_allreduce */
        req ? MPI_Iallreduce(sbuf, rbuf, n / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, req)
            : MPI_Allreduce(sbuf, rbuf, n / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case REDUCE:
        MPI_Reduce(sbuf, rbuf, n / 4, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    case ALLTOALL:
        req ? MPI_Ialltoall(sbuf, n, MPI_CHAR, rbuf, n, MPI_CHAR, MPI_COMM_WORLD, req)
            : MPI_Alltoall(sbuf, n, MPI_CHAR, rbuf, n, MPI_CHAR, MPI_COMM_WORLD);
        break;
    case ALLGATHER:
        req ? MPI_Iallgather(sbuf, n, MPI_CHAR, rbuf, n, MPI_CHAR, MPI_COMM_WORLD, req)
            : MPI_Allgather(sbuf, n, MPI_CHAR, rbuf, n, MPI_CHAR, MPI_COMM_WORLD);
        break;
    }
}

/* Rank average of a per-rank value. */
static double avg(double x)
{
    double s;
    MPI_Allreduce(&x, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return s / size;
}

/* As osu_<coll> times it: each call alone, a barrier after it (outside
 * the timed part), so the root of a bcast or reduce cannot run ahead of
 * the others and the figure is a latency, not a rate. */
static double blocking(kind_t k, size_t bytes)
{
    int it = iters_for(bytes), warm = it / 10 + 1;
    double t = 0;
    for (int i = 0; i < warm + it; i++) {
        double t0 = MPI_Wtime();
        call(k, bytes, NULL);
        if (i >= warm) t += MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return avg(t / it * 1e6);
}

/* Busy computation for about us microseconds, touching no MPI. */
static volatile double sink;
static void compute(double us)
{
    double until = MPI_Wtime() + us * 1e-6, x = 1.0;
    while (MPI_Wtime() < until)
        for (int i = 0; i < 200; i++) x = x * 1.0000001 + 1e-9;
    sink = x;
}

static void overlap(kind_t k, size_t bytes, double *ovl, double *pure, double *cpu, double *post)
{
    int it = iters_for(bytes) / 2 + 1, warm = it / 10 + 1;
    MPI_Request r;
    for (int i = 0; i < warm; i++) {
        call(k, bytes, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < it; i++) {
        call(k, bytes, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    double tp = (MPI_Wtime() - t0) / it * 1e6;
    /* every rank computes as long as the slowest's pure time */
    MPI_Allreduce(MPI_IN_PLACE, &tp, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double tc = 0, tin = 0, tt = 0, tpost = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < it; i++) {
        double a = MPI_Wtime();
        call(k, bytes, &r);
        double b = MPI_Wtime();
        compute(tp);
        double c = MPI_Wtime();
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        double d = MPI_Wtime();
        tin += (b - a) + (d - c);
        tpost += b - a;
        tc += c - b;
        tt += d - a;
    }
    tt = tt / it * 1e6;
    tc = tc / it * 1e6;
    double o = 100.0 * (1.0 - (tt - tc) / tp);
    *ovl = avg(o < 0 ? 0 : o > 100 ? 100 : o);
    *pure = avg(tp);
    *cpu = avg(tin / it * 1e6);
    *post = avg(tpost / it * 1e6);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "allreduce";
    size_t max = argc > 2 ? strtoul(argv[2], NULL, 10) : 4u << 20;
    size_t min = argc > 3 ? strtoul(argv[3], NULL, 10) : 4;
    static const char *names[] = {"barrier", "bcast", "allreduce", "alltoall", "allgather", "reduce"};
    bool nb = mode[0] == 'i';
    int k = -1;
    for (int i = 0; i < 6; i++)
        if (!strcmp(mode + nb, names[i])) k = i;
    if (k < 0 || (nb && k == REDUCE)) {
        if (!rank) fprintf(stderr, "unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t cap = max * (size_t)size + 64;
    sbuf = malloc(cap);
    rbuf = malloc(cap);
    memset(sbuf, 1, cap);
    memset(rbuf, 0, cap);
    if (k == BARRIER) min = max = 0;
    for (size_t b = min; b <= max; b = b ? b * 4 : 1) {
        if (!nb) {
            double lat = blocking((kind_t)k, b);
            if (!rank) printf("%zu %.3f\n", b, lat);
        } else {
            double o, p, c, q;
            overlap((kind_t)k, b, &o, &p, &c, &q);
            if (!rank) printf("%zu %.1f %.3f %.3f %.3f\n", b, o, p, c, q);
        }
        fflush(stdout);
        if (b == 0) break;
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
