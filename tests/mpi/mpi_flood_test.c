/* A flood of unexpected eager messages far larger than the receiver's
 * bounce buffers (run with SLUICE_BOUNCE_SIZE=131072: 8 buffers of two
 * eager messages) must arrive whole and in order: a message that finds no
 * room waits in the receiver's engine until its host links another buffer
 * (PTL_PT_SLUICE_WAIT); before, the job aborted.  Every rank but 0 starts
 * N sends of odd sizes up to the eager limit, then all meet in a barrier,
 * whose messages queue behind the flood; only then does rank 0 receive,
 * with ANY_SOURCE and ANY_TAG, checking that each source's messages come
 * in the order sent, with their sizes and contents. */
#include <mpi.h>

#include <stdlib.h>
#include <string.h>

#define MT_RANK me
static int me;
#include "mpi_expect.h"

enum { N = 150, MAXLEN = 65536 };

static int msg_len(int src, int i)
{
    return (int)(((unsigned)i * 7919u + (unsigned)src * 104729u) % MAXLEN) + 1;
}

static unsigned char msg_byte(int src, int i, int k)
{
    return (unsigned char)(src * 31 + i + k * 7);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    EXPECT(size >= 2);
    if (me != 0) {
        unsigned char *bufs = malloc((size_t)N * MAXLEN);
        MPI_Request *reqs = malloc(N * sizeof *reqs);
        EXPECT(bufs && reqs);
        for (int i = 0; i < N; i++) {
            unsigned char *b = bufs + (size_t)i * MAXLEN;
            for (int k = 0; k < msg_len(me, i); k++) b[k] = msg_byte(me, i, k);
            EXPECT(MPI_Isend(b, msg_len(me, i), MPI_BYTE, 0, i % 7, MPI_COMM_WORLD, &reqs[i]) ==
                   MPI_SUCCESS);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        EXPECT(MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        free(bufs);
        free(reqs);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        int *next = calloc((size_t)size, sizeof *next);
        unsigned char *b = malloc(MAXLEN);
        EXPECT(next && b);
        for (int m = 0; m < N * (size - 1); m++) {
            MPI_Status st;
            EXPECT(MPI_Recv(b, MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                            &st) == MPI_SUCCESS);
            int src = st.MPI_SOURCE, i = next[src]++, n;
            EXPECT(src > 0 && src < size && i < N);
            EXPECT(st.MPI_TAG == i % 7); /* non-overtaking per source */
            MPI_Get_count(&st, MPI_BYTE, &n);
            EXPECT(n == msg_len(src, i));
            for (int k = 0; k < n; k++)
                if (b[k] != msg_byte(src, i, k)) EXPECT(!"payload differs");
        }
        free(next);
        free(b);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("mpi_flood_test: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
