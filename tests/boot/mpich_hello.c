/* An MPI program built with MPICH's own compiler wrapper (mpicc.mpich), so it
 * uses MPICH's PMI-1 client: run under sluicerun it shows that the launcher
 * speaks the protocol as real PMI-1 clients expect.  Checks an allreduce.
 * With argument "abort", rank 1 calls MPI_Abort(MPI_COMM_WORLD, 9) (MPICH
 * sends cmd=abort exitcode=9) and the job must end with status 9. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, mine, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "abort") == 0) {
        if (rank == 1) MPI_Abort(MPI_COMM_WORLD, 9);
        MPI_Barrier(MPI_COMM_WORLD); /* never completes */
        return 3;
    }
    mine = rank + 1;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size + 1) / 2) {
        fprintf(stderr, "rank %d: allreduce gave %d, want %d\n", rank, sum, size * (size + 1) / 2);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) printf("mpich_hello: %d ranks, allreduce ok\n", size);
    MPI_Finalize();
    return 0;
}
