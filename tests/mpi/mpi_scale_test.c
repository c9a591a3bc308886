/* Many ranks on a small host (issue 24: 128 ranks on 2 CPUs): an
 * all-to-all with every block checked, then a ring exchange in both
 * directions for a few rounds with every message checked.  Ranks must
 * sleep while they wait, or a job this oversubscribed does not finish in
 * the test's time.  usage: mpi_scale_test [rounds] [all-to-all ints per pair] */
#include "mpi.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 4, per = argc > 2 ? atoi(argv[2]) : 16;
    CHECK_EQ(MPI_Init(&argc, &argv), MPI_SUCCESS);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double t0 = MPI_Wtime();
    int *out = malloc(sizeof(int) * (size_t)size * per), *in = malloc(sizeof(int) * (size_t)size * per);
    CHECK(out && in);
    for (int r = 0; r < rounds; r++) {
        for (int d = 0; d < size; d++)
            for (int i = 0; i < per; i++) out[d * per + i] = ((rank * 131 + d) * 17 + i) ^ r;
        CHECK_EQ(MPI_Alltoall(out, per, MPI_INT, in, per, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
        for (int s = 0; s < size; s++)
            for (int i = 0; i < per; i++)
                CHECK_MSG(in[s * per + i] == (((s * 131 + rank) * 17 + i) ^ r),
                          "round %d: block of rank %d, int %d wrong", r, s, i);
    }
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int r = 0; r < rounds * 4; r++) {
        int msg[64], got[64];
        for (int i = 0; i < 64; i++) msg[i] = rank * 1000 + r * 64 + i;
        MPI_Status st;
        CHECK_EQ(MPI_Sendrecv(msg, 64, MPI_INT, right, r, got, 64, MPI_INT, left, r,
                              MPI_COMM_WORLD, &st), MPI_SUCCESS);
        CHECK_EQ(st.MPI_SOURCE, left);
        for (int i = 0; i < 64; i++) CHECK_EQ(got[i], left * 1000 + r * 64 + i);
        CHECK_EQ(MPI_Sendrecv(msg, 64, MPI_INT, left, r, got, 64, MPI_INT, right, r,
                              MPI_COMM_WORLD, &st), MPI_SUCCESS);
        for (int i = 0; i < 64; i++) CHECK_EQ(got[i], right * 1000 + r * 64 + i);
    }
    CHECK_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    if (rank == 0)
        printf("scale: %d ranks, %d all-to-alls of %d ints per pair and %d ring exchanges in "
               "%.2f s\n", size, rounds, per, rounds * 8, MPI_Wtime() - t0);
    free(out);
    free(in);
    MPI_Finalize();
    if (rank == 0) t_done("mpi_scale_test");
    return 0;
}
