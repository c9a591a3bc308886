/* MPI latency (ping-pong, one-way = half the round trip) and windowed
 * bandwidth between ranks 0 and 1, in the style of the OSU micro-benchmarks,
 * using only basic MPI calls, so the same source builds with any MPI's
 * mpicc (bench/mpi_compare.sh compares Sluice, MPICH and Open MPI in one
 * run).  Prints "lat SIZE USEC", "bw SIZE MBPS" and "rate 8 USEC" (per
 * message, windowed 8-byte sends) lines.
 * With --alloc-mem the buffer comes from MPI_Alloc_mem (for Sluice: the
 * shared heap, moved by memcpy instead of cross-memory attach).
 * usage: mpirun -n 2 mpi_pingpong [max bytes (default 4 MiB)] [--quick] [--alloc-mem] */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64

static double latency(char *buf, int len, int iters, int rank)
{
    double t0 = 0;
    for (int i = -iters / 10; i < iters; i++) {
        if (i == 0) t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, len, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, len, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, len, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, len, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) / iters / 2 * 1e6;
}

/* Seconds for iters windows of WINDOW nonblocking sends (rank 0) and
 * receives (rank 1) of len bytes, each window closed by a 1-byte ack,
 * after `warm` untimed windows.  Window slot w uses buf + w * stride. */
static double windows(char *buf, size_t stride, int len, int iters, int warm, int rank)
{
    MPI_Request req[WINDOW];
    MPI_Status sts[WINDOW]; /* not MPI_STATUSES_IGNORE: GCC 12 warns on MPICH's header */
    char ack;
    double t0 = 0;
    for (int i = -warm; i < iters; i++) {
        if (i == 0) t0 = MPI_Wtime();
        for (int w = 0; w < WINDOW; w++) {
            char *b = buf + (size_t)w * stride;
            if (rank == 0) MPI_Isend(b, len, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &req[w]);
            else MPI_Irecv(b, len, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &req[w]);
        }
        MPI_Waitall(WINDOW, req, sts);
        if (rank == 0) MPI_Recv(&ack, 1, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else MPI_Send(&ack, 1, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
    }
    return MPI_Wtime() - t0;
}

/* Windowed bandwidth, MB/s (every message of a window in the same buffer,
 * as the OSU test does). */
static double bandwidth(char *buf, int len, int iters, int rank)
{
    return (double)len * WINDOW * iters / windows(buf, 0, len, iters, 1, rank) / 1e6;
}

/* Message rate: 8-byte messages in windows, microseconds per message (the
 * per-message cost of the busier side, as the OSU message-rate test
 * measures it). */
static double msg_time(char *buf, int iters, int rank)
{
    return windows(buf, 8, 8, iters, iters / 10 + 1, rank) / iters / WINDOW * 1e6;
}

int main(int argc, char **argv)
{
    int rank, size, maxlen = 4 << 20, quick = 0, alloc_mem = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--alloc-mem")) alloc_mem = 1;
        else maxlen = atoi(argv[i]);
    }
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "mpi_pingpong: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t buflen = (size_t)(maxlen > 8 * WINDOW ? maxlen : 8 * WINDOW) + 1;
    char *buf = NULL;
    if (alloc_mem) MPI_Alloc_mem((MPI_Aint)buflen, MPI_INFO_NULL, &buf);
    else buf = malloc(buflen);
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 3);
    memset(buf, 0, buflen);
    if (rank < 2) {
        for (int len = 0; len <= maxlen; len = len ? len * 4 : 1) {
            int iters = quick ? 20 : (len <= 4096 ? 20000 : len <= 262144 ? 2000 : 200);
            double us = latency(buf, len, iters, rank);
            if (rank == 0) printf("lat %d %.3f\n", len, us);
        }
        for (int len = 1; len <= maxlen; len *= 4) {
            int iters = quick ? 2 : (len <= 65536 ? 200 : 20);
            double mbps = bandwidth(buf, len, iters, rank);
            if (rank == 0) printf("bw %d %.1f\n", len, mbps);
        }
        double us = msg_time(buf, quick ? 20 : 5000, rank);
        if (rank == 0) printf("rate 8 %.3f\n", us);
    }
    if (alloc_mem) MPI_Free_mem(buf);
    else free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
