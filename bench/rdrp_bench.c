/* One large message at a time from rank 0 to rank 1 (rank 1 answers with a
 * zero-byte message), 1 MiB .. max, so that the time is the transfer of one
 * message: what the rendezvous chunking costs shows directly.  Plain MPI;
 * bench/rdrp_sweep.sh runs it under different SLUICE_RDRP_* settings.
 * Prints "rdrp SIZE MBPS" (median of the repetitions).
 * usage: mpirun -n 2 rdrp_bench [max bytes (default 64 MiB)] [--quick] */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double one(char *buf, int len, int rank)
{
    char ack;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank == 0) {
        MPI_Send(buf, len, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(&ack, 0, MPI_CHAR, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(buf, len, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&ack, 0, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
    }
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    int rank, size, maxlen = 64 << 20, quick = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else maxlen = atoi(argv[i]);
    }
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "rdrp_bench: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = malloc((size_t)maxlen);
    memset(buf, rank + 1, (size_t)maxlen); /* touch every page before timing */
    int reps = quick ? 3 : 15;
    double *t = malloc(sizeof *t * (size_t)reps);
    for (int len = 1 << 20; len <= maxlen && len > 0; len *= 2) {
        one(buf, len, rank); /* warm-up */
        for (int i = 0; i < reps; i++) t[i] = one(buf, len, rank);
        qsort(t, (size_t)reps, sizeof *t, cmp);
        if (rank == 0) printf("rdrp %d %.1f\n", len, len / t[reps / 2] / 1e6);
    }
    free(t);
    free(buf);
    MPI_Finalize();
    return 0;
}
