/* The MPI_Send/MPI_Recv ping-pong alone (8 bytes unless told), many round
 * trips, one line "lat8 USEC" (one-way = half the round trip).  Only basic
 * MPI calls, so every MPI's mpicc builds it; bench/latency_ab.sh alternates
 * builds and prints medians, since single runs on a shared host vary by
 * +-30%.
 * usage: mpirun -n 2 mpi_lat8 [round trips (default 100000)] [bytes (8)] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    int iters = argc > 1 ? atoi(argv[1]) : 100000;
    int bytes = argc > 2 ? atoi(argv[2]) : 8;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *buf = bytes >= 0 ? calloc((size_t)bytes + 1, 1) : NULL;
    if (size < 2 || iters < 1 || !buf) {
        if (rank == 0) fprintf(stderr, "mpi_lat8: needs 2 ranks, a positive count, bytes >= 0\n");
        MPI_Finalize();
        return 1;
    }
    double t0 = 0;
    for (int i = -iters / 10; i < iters; i++) {
        if (i == 0) t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) printf("lat8 %.3f\n", (MPI_Wtime() - t0) / iters / 2 * 1e6);
    free(buf);
    MPI_Finalize();
    return 0;
}
