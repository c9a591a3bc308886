/* MPI_Barrier really waits for everyone: rank r computes for r ms before
 * entering; every rank's exit time must be later than every rank's entry
 * time (MPI_Wtime is CLOCK_MONOTONIC, common to the processes of a host).
 * Times are exchanged after the barrier with point-to-point messages. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

#include "mpi_expect.h"

int main(int argc, char **argv)
{
    int rank, size;
    EXPECT(MPI_Init(&argc, &argv) == MPI_SUCCESS);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < 5; round++) {
        double delay = 0.001 * ((rank + round) % size), t_in = MPI_Wtime();
        while (MPI_Wtime() - t_in < delay) {
        }
        t_in = MPI_Wtime();
        EXPECT(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
        double t[2] = {t_in, MPI_Wtime()};
        /* everyone sends its times to rank 0, which checks */
        if (rank != 0) {
            EXPECT(MPI_Send(t, 2, MPI_DOUBLE, 0, round, MPI_COMM_WORLD) == MPI_SUCCESS);
        } else {
            double max_in = t[0], min_out = t[1];
            for (int r = 1; r < size; r++) {
                double u[2];
                EXPECT(MPI_Recv(u, 2, MPI_DOUBLE, r, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                       MPI_SUCCESS);
                if (u[0] > max_in) max_in = u[0];
                if (u[1] < min_out) min_out = u[1];
            }
            EXPECT(min_out >= max_in);
        }
    }
    EXPECT(MPI_Finalize() == MPI_SUCCESS);
    if (rank == 0) printf("mpi_barrier_test: ok (%d ranks)\n", size);
    return 0;
}
