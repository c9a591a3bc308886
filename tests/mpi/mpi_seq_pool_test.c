/* Stored RECEIVER_READY hints beyond the sender's pool (4,096 entries for
 * all keys): rank 1 posts 5,000 rendezvous receives, each on its own tag,
 * and only then does rank 0 send them.  The sender had to give up the
 * oldest hints (rr_lost > 0) and still used the rest (rr_used > 0); every
 * message arrives whole, in its receive, with its status.  Run with a small
 * eager limit so that the messages are rendezvous ones. */
#include "p2p/p2p.h"

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

#include "mpi_expect.h"

enum { N = 5000, LEN = 4096, TAG0 = 1000 };

static unsigned char pat(size_t i, int m)
{
    return (unsigned char)(i * 7u + (unsigned)m * 31u + (i >> 8));
}

int main(int argc, char **argv)
{
    int rank, size;
    EXPECT(MPI_Init(&argc, &argv) == MPI_SUCCESS);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    EXPECT(size == 2);
    unsigned char *buf = malloc((size_t)N * LEN);
    MPI_Request *q = malloc(N * sizeof *q);
    EXPECT(buf && q);
    if (rank == 1) {
        for (int m = 0; m < N; m++)
            EXPECT(MPI_Irecv(buf + (size_t)m * LEN, LEN, MPI_BYTE, 0, TAG0 + m, MPI_COMM_WORLD,
                             &q[m]) == MPI_SUCCESS);
        MPI_Barrier(MPI_COMM_WORLD); /* every receive posted: its hint is on its way */
        MPI_Status *st = malloc(N * sizeof *st);
        EXPECT(st && MPI_Waitall(N, q, st) == MPI_SUCCESS);
        for (int m = 0; m < N; m++) {
            int n = -1;
            MPI_Get_count(&st[m], MPI_BYTE, &n);
            EXPECT(st[m].MPI_SOURCE == 0 && st[m].MPI_TAG == TAG0 + m && n == LEN);
            EXPECT_BYTES(buf + (size_t)m * LEN, LEN, i, pat(i, m));
        }
        free(st);
    } else {
        for (int m = 0; m < N; m++)
            for (size_t i = 0; i < LEN; i++) buf[(size_t)m * LEN + i] = pat(i, m);
        MPI_Barrier(MPI_COMM_WORLD);
        /* the hints that came during the barrier (the rest are read now) */
        for (int m = 0; m < N; m++)
            EXPECT(MPI_Isend(buf + (size_t)m * LEN, LEN, MPI_BYTE, 1, TAG0 + m, MPI_COMM_WORLD,
                             &q[m]) == MPI_SUCCESS);
        EXPECT(MPI_Waitall(N, q, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        p2p_stats_t s;
        p2p_get_stats(&s);
        printf("mpi_seq_pool_test: %lu hints used, %lu lost, %lu stale\n", s.rr_used, s.rr_lost,
               s.rr_stale);
        EXPECT(s.rr_lost > 0 && s.rr_used > 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    free(q);
    MPI_Finalize();
    if (rank == 0) printf("mpi_seq_pool_test: ok\n");
    return 0;
}
