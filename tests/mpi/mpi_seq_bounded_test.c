/* The sequence counters that pair RECEIVER_READYs with sends stay bounded
 * (SLUICE_SEQ_BUCKETS buckets, no entry per key), on 2 ranks:
 *  1. 20,000 small messages, each on a fresh tag (a program using tags as
 *     message ids): both ranks' buckets in use never exceed the setting.
 *  2. Afterwards a receive posted first on another fresh tag still gets
 *     its message by RECV_RNDV (the receiver's number reached the sender
 *     and matched its count): keys sharing buckets, sent in the order their
 *     receives were posted, keep the two sides' numbers aligned.
 *  3. Receives posted in the reverse order of the sends on 48 tags (with
 *     one bucket, every RECEIVER_READY is numbered against another key):
 *     every message arrives whole, in the right receive, with its status;
 *     the numbers only cost speed.
 * Run with SLUICE_SEQ_BUCKETS=64 (argv[1] = "aligned": part 2 must use
 * RECV_RNDV) and with 1 (part 2 checks the data only). */
#include "p2p/p2p.h"

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_expect.h"

static const MPI_Comm W = MPI_COMM_WORLD;
enum { FRESH = 20000, TAG0 = 100000, BIG = 300001, NREV = 48, MED = 70001, TOKEN = 7 };

static unsigned char pat(size_t i, int seed)
{
    return (unsigned char)(i * 13u + (i >> 9) + (unsigned)seed * 29u);
}

static void fill(unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++) b[i] = pat(i, seed);
}

static void check(const unsigned char *b, size_t n, int seed)
{
    EXPECT_BYTES(b, n, i, pat(i, seed));
}

static unsigned long buckets(void)
{
    const char *e = getenv("SLUICE_SEQ_BUCKETS");
    return e ? strtoul(e, NULL, 10) : 16384;
}

static void fresh_tags(int rank)
{
    for (int i = 0; i < FRESH; i++) {
        int v = rank ? i : -1;
        if (rank) EXPECT(MPI_Send(&v, 1, MPI_INT, 0, TAG0 + i, W) == MPI_SUCCESS);
        else {
            MPI_Status st;
            EXPECT(MPI_Recv(&v, 1, MPI_INT, 1, TAG0 + i, W, &st) == MPI_SUCCESS);
            EXPECT(v == i && st.MPI_TAG == TAG0 + i);
        }
    }
    p2p_stats_t s;
    p2p_get_stats(&s);
    EXPECT(s.seq_keys > 0 && s.seq_keys <= buckets());
}

static void receiver_first(int rank, int aligned)
{
    unsigned char *b = malloc(BIG);
    EXPECT(b);
    int t = 0;
    if (rank == 0) {
        MPI_Request r;
        MPI_Status st;
        int n = 0;
        memset(b, 0, BIG);
        EXPECT(MPI_Irecv(b, BIG, MPI_BYTE, 1, 5, W, &r) == MPI_SUCCESS);
        EXPECT(MPI_Send(&t, 1, MPI_INT, 1, TOKEN, W) == MPI_SUCCESS); /* after the notice */
        EXPECT(MPI_Wait(&r, &st) == MPI_SUCCESS);
        EXPECT(MPI_Get_count(&st, MPI_BYTE, &n) == MPI_SUCCESS && n == BIG && st.MPI_TAG == 5);
        check(b, BIG, 5);
    } else {
        p2p_stats_t s0, s1;
        fill(b, BIG, 5);
        EXPECT(MPI_Recv(&t, 1, MPI_INT, 0, TOKEN, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        p2p_get_stats(&s0);
        EXPECT(MPI_Send(b, BIG, MPI_BYTE, 0, 5, W) == MPI_SUCCESS);
        p2p_get_stats(&s1);
        if (aligned) EXPECT(s1.recv_rndv == s0.recv_rndv + 1 && s1.rr_used == s0.rr_used + 1);
    }
    free(b);
}

static void reversed(int rank)
{
    unsigned char *b = malloc((size_t)NREV * MED);
    EXPECT(b);
    int t = 0;
    if (rank == 0) {
        MPI_Request r[NREV];
        memset(b, 0, (size_t)NREV * MED);
        for (int k = NREV - 1; k >= 0; k--)
            EXPECT(MPI_Irecv(b + (size_t)k * MED, MED, MPI_BYTE, 1, 200 + k, W, &r[k]) ==
                   MPI_SUCCESS);
        EXPECT(MPI_Send(&t, 1, MPI_INT, 1, TOKEN, W) == MPI_SUCCESS);
        for (int k = 0; k < NREV; k++) {
            MPI_Status st;
            int n = 0;
            EXPECT(MPI_Wait(&r[k], &st) == MPI_SUCCESS);
            EXPECT(MPI_Get_count(&st, MPI_BYTE, &n) == MPI_SUCCESS && n == MED);
            EXPECT(st.MPI_SOURCE == 1 && st.MPI_TAG == 200 + k);
            check(b + (size_t)k * MED, MED, 200 + k);
        }
    } else {
        for (int k = 0; k < NREV; k++) fill(b + (size_t)k * MED, MED, 200 + k);
        EXPECT(MPI_Recv(&t, 1, MPI_INT, 0, TOKEN, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (int k = 0; k < NREV; k++)
            EXPECT(MPI_Send(b + (size_t)k * MED, MED, MPI_BYTE, 0, 200 + k, W) == MPI_SUCCESS);
    }
    free(b);
}

int main(int argc, char **argv)
{
    int rank, size;
    EXPECT(MPI_Init(&argc, &argv) == MPI_SUCCESS);
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &size);
    EXPECT(size == 2);
    int aligned = argc > 1 && !strcmp(argv[1], "aligned");
    fresh_tags(rank);
    receiver_first(rank, aligned);
    reversed(rank);
    receiver_first(rank, aligned); /* part 3 sent as many as it posted: aligned again */
    MPI_Barrier(W);
    p2p_stats_t s;
    p2p_get_stats(&s);
    EXPECT(s.seq_keys <= buckets());
    if (rank == 0)
        printf("mpi_seq_bounded_test: ok (%lu buckets, %lu in use)\n", buckets(), s.seq_keys);
    MPI_Finalize();
    return 0;
}
