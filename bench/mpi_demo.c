/* The demonstration on 4 ranks (any even number works): ranks 2i and 2i+1
 * form a pair and every pair runs at once, so on this 2-core machine the
 * job is oversubscribed and the numbers show what sleeping waits and
 * engine progress buy.  Plain MPI: it builds with any MPI's mpicc.
 *   1. latency: ping-pong, one-way time, 0 B .. 64 KiB, mean over pairs;
 *   2. bandwidth: windowed streaming 64 KiB .. 16 MiB, summed over pairs;
 *   3. overlap: rank 2i sends 4 MiB to rank 2i+1 while both compute for
 *      about twice the transfer time, in both arrival orders; the table
 *      shows compute alone C, transfer alone T, both together, and how much
 *      of T was hidden (100% = fully overlapped: time = max(C, T)).
 * usage: mpirun -n 4 mpi_demo [--quick] */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 16
static int rank, size, peer, quick;
static const MPI_Comm W = MPI_COMM_WORLD;

/* Sum (or max) of one value over all ranks, at rank 0: point-to-point
 * only, so the demo needs no collectives beyond a barrier. */
static double gather0(double v, int max)
{
    if (rank != 0) {
        MPI_Send(&v, 1, MPI_DOUBLE, 0, 9, W);
        return v;
    }
    for (int i = 1; i < size; i++) {
        double x;
        MPI_Recv(&x, 1, MPI_DOUBLE, i, 9, W, MPI_STATUS_IGNORE);
        v = max ? (x > v ? x : v) : v + x;
    }
    return v;
}

static double lat_us(char *buf, int len, int iters)
{
    MPI_Barrier(W);
    double t0 = 0;
    for (int i = -iters / 10; i < iters; i++) {
        if (i == 0) t0 = MPI_Wtime();
        if (rank % 2 == 0) {
            MPI_Send(buf, len, MPI_CHAR, peer, 1, W);
            MPI_Recv(buf, len, MPI_CHAR, peer, 1, W, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, len, MPI_CHAR, peer, 1, W, MPI_STATUS_IGNORE);
            MPI_Send(buf, len, MPI_CHAR, peer, 1, W);
        }
    }
    double us = (MPI_Wtime() - t0) / iters / 2 * 1e6;
    return gather0(us, 0) / size;
}

static double bw_mbps(char *buf, int len, int iters)
{
    MPI_Request req[WINDOW];
    MPI_Status sts[WINDOW];
    char ack = 0;
    MPI_Barrier(W);
    double t0 = 0;
    for (int i = -1; i < iters; i++) {
        if (i == 0) t0 = MPI_Wtime();
        for (int w = 0; w < WINDOW; w++) {
            if (rank % 2 == 0) MPI_Isend(buf, len, MPI_CHAR, peer, 2, W, &req[w]);
            else MPI_Irecv(buf, len, MPI_CHAR, peer, 2, W, &req[w]);
        }
        MPI_Waitall(WINDOW, req, sts);
        if (rank % 2 == 0) MPI_Recv(&ack, 1, MPI_CHAR, peer, 3, W, MPI_STATUS_IGNORE);
        else MPI_Send(&ack, 1, MPI_CHAR, peer, 3, W);
    }
    double mbps = (double)len * WINDOW * iters / (MPI_Wtime() - t0) / 1e6;
    return gather0(rank % 2 ? 0 : mbps, 0); /* each pair counted once */
}

/* Deterministic busy work for about `us` microseconds (calibrated once). */
static double units_per_us;
static volatile double sink;
static void compute(double us)
{
    double x = 1.0;
    long n = (long)(us * units_per_us);
    for (long i = 0; i < n; i++) x = x * 1.0000001 + 1e-9;
    sink = x;
}

static void calibrate(void)
{
    long n = 2000000;
    double t0 = MPI_Wtime(), x = 1.0;
    for (long i = 0; i < n; i++) x = x * 1.0000001 + 1e-9;
    sink = x;
    units_per_us = n / ((MPI_Wtime() - t0) * 1e6);
}

/* Rank 0's value to everyone (so all ranks take the same decisions). */
static void bcast0(double *v)
{
    if (rank == 0)
        for (int i = 1; i < size; i++) MPI_Send(v, 1, MPI_DOUBLE, i, 10, W);
    else
        MPI_Recv(v, 1, MPI_DOUBLE, 0, 10, W, MPI_STATUS_IGNORE);
}

/* One overlap iteration: the sender (even rank) and the receiver start the
 * transfer, compute for comp_us, then wait; returns the slowest rank's time. */
static double overlap_once(char *buf, int len, double comp_us, int receiver_first, int xfer)
{
    MPI_Request r = MPI_REQUEST_NULL;
    char tok = 0;
    MPI_Barrier(W);
    double t0 = MPI_Wtime();
    if (rank % 2 == 0) {
        if (receiver_first) MPI_Recv(&tok, 1, MPI_CHAR, peer, 4, W, MPI_STATUS_IGNORE);
        if (xfer) MPI_Isend(buf, len, MPI_CHAR, peer, 5, W, &r);
        if (!receiver_first) MPI_Send(&tok, 1, MPI_CHAR, peer, 4, W);
    } else {
        if (!receiver_first) MPI_Recv(&tok, 1, MPI_CHAR, peer, 4, W, MPI_STATUS_IGNORE);
        if (xfer) MPI_Irecv(buf, len, MPI_CHAR, peer, 5, W, &r);
        if (receiver_first) MPI_Send(&tok, 1, MPI_CHAR, peer, 4, W);
    }
    compute(comp_us);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    double worst = gather0(MPI_Wtime() - t0, 1) * 1e6;
    bcast0(&worst);
    return worst;
}

static double best_of(int reps, char *buf, int len, double comp, int rf, int xfer)
{
    double best = 1e30;
    for (int i = 0; i < reps; i++) {
        double t = overlap_once(buf, len, comp, rf, xfer);
        if (t < best) best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &size);
    quick = argc > 1 && !strcmp(argv[1], "--quick");
    if (size % 2) {
        if (rank == 0) fprintf(stderr, "mpi_demo: needs an even number of ranks\n");
        MPI_Abort(W, 2);
    }
    peer = rank ^ 1;
    int maxbw = 16 << 20, big = 4 << 20;
    char *buf = malloc((size_t)maxbw);
    memset(buf, 1, (size_t)maxbw);
    calibrate();
    if (rank == 0) printf("# %d ranks, %d pairs running at once\n", size, size / 2);
    if (rank == 0) printf("# 1. one-way latency (us), mean over pairs\n%10s %10s\n", "bytes", "us");
    for (int len = 0; len <= 65536; len = len ? len * 4 : 1) {
        double us = lat_us(buf, len, quick ? 50 : (len <= 4096 ? 2000 : 300));
        if (rank == 0) printf("%10d %10.2f\n", len, us);
    }
    if (rank == 0) printf("# 2. bandwidth (MB/s), sum over pairs\n%10s %10s\n", "bytes", "MB/s");
    for (int len = 65536; len <= maxbw; len *= 4) {
        double mbps = bw_mbps(buf, len, quick ? 2 : (len <= 1048576 ? 50 : 5));
        if (rank == 0) printf("%10d %10.0f\n", len, mbps);
    }
    int reps = quick ? 2 : 7;
    double t = best_of(reps, buf, big, 0, 0, 1); /* transfer alone */
    double comp = 2 * t;
    double c = best_of(reps, buf, big, comp, 0, 0);
    if (rank == 0)
        printf("# 3. overlap: %d bytes, compute C = %.0f us, transfer alone T = %.0f us\n"
               "%-16s %12s %12s %10s\n",
               big, c, t, "order", "C+transfer", "C+T (none)", "T hidden");
    for (int rf = 0; rf < 2; rf++) {
        double both = best_of(reps, buf, big, comp, rf, 1);
        double hidden = (c + t - both) / t * 100;
        if (rank == 0)
            printf("%-16s %12.0f %12.0f %9.0f%%\n", rf ? "receiver first" : "sender first", both,
                   c + t, hidden < 0 ? 0 : hidden > 100 ? 100 : hidden);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
