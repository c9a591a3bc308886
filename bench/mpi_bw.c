/* Windowed bandwidth alone: rank 0 posts 64 MPI_Isends of one size, rank 1
 * 64 MPI_Irecvs into one buffer (as osu_bw), both MPI_Waitall, and a 1-byte
 * ack closes the window; two untimed windows first.  One line "bw MB/s".
 * Only basic MPI calls, so every MPI's mpicc builds it; bench/latency_ab.sh
 * with MODE=bw alternates builds and prints medians.
 * usage: mpirun -n 2 mpi_bw [windows (20)] [bytes (1 MiB)] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define WINDOW 64

int main(int argc, char **argv)
{
    int rank, size;
    int iters = argc > 1 ? atoi(argv[1]) : 20;
    int len = argc > 2 ? atoi(argv[2]) : 1 << 20;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *buf = len > 0 ? malloc((size_t)len) : NULL, ack = 0;
    if (size < 2 || iters < 1 || !buf) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -n 2 mpi_bw [windows > 0] [bytes > 0]\n");
        MPI_Finalize();
        return 1;
    }
    MPI_Request req[WINDOW];
    double t0 = 0;
    for (int i = -2; i < iters; i++) {
        if (i == 0) t0 = MPI_Wtime();
        if (rank > 1) continue;
        for (int w = 0; w < WINDOW; w++) {
            if (rank == 0) MPI_Isend(buf, len, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &req[w]);
            else MPI_Irecv(buf, len, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &req[w]);
        }
        MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
        if (rank == 0) MPI_Recv(&ack, 1, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else MPI_Send(&ack, 1, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("bw %.0f\n", (double)len * WINDOW * iters / (MPI_Wtime() - t0) / 1e6);
    free(buf);
    MPI_Finalize();
    return 0;
}
