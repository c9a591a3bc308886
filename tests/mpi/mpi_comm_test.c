/* Communicators on 5 ranks: dup (congruent, isolated from its parent),
 * split by parity with reversed keys (sizes, ranks, a ring inside each
 * group), MPI_UNDEFINED, nested split, barrier on a split communicator,
 * free (a freed handle gives MPI_ERR_COMM), and 200 dup/free cycles that
 * must not run out of context ids. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

#include "mpi_expect.h"

int main(int argc, char **argv)
{
    int rank, size, r, n, res, v;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    EXPECT(size >= 4);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* dup: same ranks, a context of its own */
    MPI_Comm dup;
    EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    EXPECT(MPI_Comm_rank(dup, &r) == MPI_SUCCESS && r == rank);
    EXPECT(MPI_Comm_compare(MPI_COMM_WORLD, dup, &res) == MPI_SUCCESS && res == MPI_CONGRUENT);
    EXPECT(MPI_Comm_compare(dup, dup, &res) == MPI_SUCCESS && res == MPI_IDENT);
    if (rank == 0) {
        int a = 1, b = 2;
        EXPECT(MPI_Send(&a, 1, MPI_INT, 1, 5, MPI_COMM_WORLD) == MPI_SUCCESS);
        EXPECT(MPI_Send(&b, 1, MPI_INT, 1, 5, dup) == MPI_SUCCESS);
    } else if (rank == 1) { /* the dup's message, although sent second */
        EXPECT(MPI_Recv(&v, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE) == MPI_SUCCESS && v == 2);
        EXPECT(MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
               v == 1);
    }

    /* split by parity, keys reversed: rank order inside a group is reversed */
    MPI_Comm half;
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half) == MPI_SUCCESS);
    int members = (size + 1 - rank % 2) / 2;
    EXPECT(MPI_Comm_size(half, &n) == MPI_SUCCESS && n == members);
    EXPECT(MPI_Comm_rank(half, &r) == MPI_SUCCESS);
    EXPECT(r == members - 1 - rank / 2); /* highest world rank first */
    EXPECT(MPI_Comm_compare(MPI_COMM_WORLD, half, &res) == MPI_SUCCESS && res == MPI_UNEQUAL);
    /* a ring in the group: everyone gets the world rank of its left neighbour */
    int left = (r + n - 1) % n, right = (r + 1) % n, got;
    EXPECT(MPI_Sendrecv(&rank, 1, MPI_INT, right, 9, &got, 1, MPI_INT, left, 9, half,
                        MPI_STATUS_IGNORE) == MPI_SUCCESS);
    int left_world = rank % 2 + 2 * (members - 1 - left);
    EXPECT(got == left_world);
    EXPECT(MPI_Barrier(half) == MPI_SUCCESS);

    /* MPI_UNDEFINED leaves a rank out; nested split of the split */
    MPI_Comm some, quarter;
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, rank, &some) ==
           MPI_SUCCESS);
    if (rank == 0) EXPECT(some == MPI_COMM_NULL);
    else EXPECT(MPI_Comm_size(some, &n) == MPI_SUCCESS && n == size - 1);
    EXPECT(MPI_Comm_split(half, r < 1 ? 0 : 1, 0, &quarter) == MPI_SUCCESS);
    EXPECT(MPI_Comm_size(quarter, &n) == MPI_SUCCESS && n == (r < 1 ? 1 : members - 1));
    EXPECT(MPI_Barrier(quarter) == MPI_SUCCESS);

    /* free; a freed handle is refused */
    MPI_Comm keep = half;
    EXPECT(MPI_Comm_free(&half) == MPI_SUCCESS && half == MPI_COMM_NULL);
    EXPECT(MPI_Comm_size(keep, &n) == MPI_ERR_COMM);
    EXPECT(MPI_Comm_free(&quarter) == MPI_SUCCESS);
    if (some != MPI_COMM_NULL) EXPECT(MPI_Comm_free(&some) == MPI_SUCCESS);
    MPI_Comm world = MPI_COMM_WORLD;
    EXPECT(MPI_Comm_free(&world) == MPI_ERR_COMM);

    /* context ids come back: many dup/free cycles */
    for (int i = 0; i < 200; i++) {
        MPI_Comm c;
        EXPECT(MPI_Comm_dup(dup, &c) == MPI_SUCCESS);
        EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);
    }
    EXPECT(MPI_Comm_free(&dup) == MPI_SUCCESS);
    EXPECT(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    MPI_Finalize();
    if (rank == 0) printf("mpi_comm_test: ok (%d ranks)\n", size);
    return 0;
}
