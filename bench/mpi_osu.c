/* The three patterns the standard MPI micro-benchmarks (the OSU suite's
 * latency, bw and bibw) measure, with their buffers, run lengths and
 * synchronisation, so that what Sluice reports is what users see:
 *   lat   ping-pong of MPI_Send/MPI_Recv; 10,000 round trips (100 untimed)
 *         up to 8 KiB, 1,000 (10) above; one-way us = time / 2 / iterations.
 *   bw    rank 0 posts a window of 64 MPI_Isends, all from one page-aligned
 *         send buffer, rank 1 64 MPI_Irecvs, all into one page-aligned
 *         receive buffer, both MPI_Waitall, and a 4-byte ack closes the
 *         window; 100 windows (10 untimed) up to 8 KiB, 20 (2) above; MB/s.
 *   bibw  both ranks post 64 MPI_Irecvs, then 64 MPI_Isends, then wait for
 *         all 128; bytes of both directions / time, MB/s.
 * Every size from 1 B to the largest, by powers of two, in one process (as
 * the suite runs them: what warms up at small sizes stays warm), after a
 * barrier each.  Prints "SIZE VALUE" lines.  Plain MPI: every mpicc builds it.
 * usage: mpirun -n 2 mpi_osu lat|bw|bibw [largest (4 MiB)] [smallest (1)] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WINDOW 64
#define LARGE 8192

static int rank;

static double lat(char *s, char *r, int len)
{
    int iters = len > LARGE ? 1000 : 10000, skip = len > LARGE ? 10 : 100;
    double t0 = 0;
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip) t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(s, len, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(r, len, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(r, len, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(s, len, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) * 1e6 / 2 / iters;
}

static double bw(char *s, char *r, int len, int both)
{
    int iters = len > LARGE ? 20 : 100, skip = len > LARGE ? 2 : 10;
    MPI_Request rq[2 * WINDOW];
    MPI_Status st[2 * WINDOW]; /* not MPI_STATUSES_IGNORE: gcc warns on MPICH's prototype */
    double t0 = 0;
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip) t0 = MPI_Wtime();
        if (both) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(r, len, MPI_CHAR, 1 - rank, 10, MPI_COMM_WORLD, &rq[w]);
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(s, len, MPI_CHAR, 1 - rank, 10, MPI_COMM_WORLD, &rq[WINDOW + w]);
            MPI_Waitall(2 * WINDOW, rq, st);
        } else if (rank == 0) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(s, len, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &rq[w]);
            MPI_Waitall(WINDOW, rq, st);
            MPI_Recv(r, 4, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(r, len, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &rq[w]);
            MPI_Waitall(WINDOW, rq, st);
            MPI_Send(s, 4, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
        }
    }
    double t = MPI_Wtime() - t0;
    return (double)len * WINDOW * iters * (both ? 2 : 1) / t / 1e6;
}

int main(int argc, char **argv)
{
    int size;
    const char *mode = argc > 1 ? argv[1] : "bw";
    long largest = argc > 2 ? atol(argv[2]) : 4l << 20, smallest = argc > 3 ? atol(argv[3]) : 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int kind = !strcmp(mode, "lat") ? 0 : !strcmp(mode, "bw") ? 1 : !strcmp(mode, "bibw") ? 2 : -1;
    long page = sysconf(_SC_PAGESIZE);
    void *s = NULL, *r = NULL;
    if (size != 2 || kind < 0 || largest < 1 || smallest < 1 ||
        posix_memalign(&s, (size_t)page, (size_t)largest) ||
        posix_memalign(&r, (size_t)page, (size_t)largest)) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -n 2 mpi_osu lat|bw|bibw [largest] [smallest]\n");
        MPI_Finalize();
        return 1;
    }
    for (long len = smallest; len <= largest; len *= 2) {
        memset(s, 'a', (size_t)len);
        memset(r, 'b', (size_t)len);
        MPI_Barrier(MPI_COMM_WORLD);
        double v = kind == 0 ? lat(s, r, (int)len) : bw(s, r, (int)len, kind == 2);
        if (rank == 0) printf("%ld %.3f\n", len, v);
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
