/* MPI_Alloc_mem memory in point-to-point traffic, on 2 ranks.  Between
 * MPI_Init and MPI_Finalize the blocks come from the engine's shared heap
 * (SLUICE_SHM_HEAP), which the rendezvous protocols move with memcpy; when
 * the heap cannot hold a block, ordinary memory.  Checks: which blocks are
 * shared (p2p_get_stats().mem_shared, against SLUICE_SHM_HEAP), every byte
 * of HYBRID, SEND_RNDV and RECV_RNDV messages between shared and ordinary
 * buffers in both directions and both arrival orders, at odd offsets and
 * sizes, guard bytes after the receive, and MPI_Free_mem of each kind
 * (twice: MPI_ERR_BASE).
 * usage: mpi_alloc_mem_test (SLUICE_SHM_HEAP small: every block falls back) */
#include "p2p/p2p.h"

#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char g_case[160];
#define MT_CONTEXT g_case
#include "mpi_expect.h"

#define BIG ((size_t)4 << 20)
#define GUARD 64
static const MPI_Comm W = MPI_COMM_WORLD;

static unsigned char pat(size_t i, int seed)
{
    return (unsigned char)(i * 13u + (i >> 9) + (unsigned)seed * 7u);
}

static void token(int rank, int from_rank)
{
    int t = 0;
    if (rank == from_rank) EXPECT(MPI_Send(&t, 1, MPI_INT, 1 - rank, 99, W) == MPI_SUCCESS);
    else EXPECT(MPI_Recv(&t, 1, MPI_INT, from_rank, 99, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
}

/* One message of n bytes from `from` to the other rank, sender's data at
 * sbuf + off, receiver's at rbuf + off + 1; the receiver arrives first
 * (rfirst) or second. */
static void transfer(int rank, int from, unsigned char *sbuf, unsigned char *rbuf, size_t n,
                     size_t off, int rfirst, int seed)
{
    if (rank == from) {
        for (size_t i = 0; i < n; i++) sbuf[off + i] = pat(i, seed);
        MPI_Request r;
        if (rfirst) token(rank, 1 - from); /* its receive (and RECEIVER_READY) is out */
        EXPECT(MPI_Isend(sbuf + off, (int)n, MPI_BYTE, 1 - from, seed, W, &r) == MPI_SUCCESS);
        if (!rfirst) token(rank, from); /* the header is there before the token */
        EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        return;
    }
    unsigned char *at = rbuf + off + 1;
    memset(at, 0xEE, n + GUARD);
    MPI_Request r;
    MPI_Status st;
    if (!rfirst) token(rank, from); /* the message is on its way first */
    EXPECT(MPI_Irecv(at, (int)n, MPI_BYTE, from, seed, W, &r) == MPI_SUCCESS);
    if (rfirst) token(rank, rank);
    EXPECT(MPI_Wait(&r, &st) == MPI_SUCCESS);
    int count;
    EXPECT(MPI_Get_count(&st, MPI_BYTE, &count) == MPI_SUCCESS && (size_t)count == n);
    EXPECT_BYTES(at, n, i, pat(i, seed));
    for (size_t i = n; i < n + GUARD; i++) EXPECT(at[i] == 0xEE);
}

int main(int argc, char **argv)
{
    int rank, size;
    EXPECT(MPI_Init(&argc, &argv) == MPI_SUCCESS);
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &size);
    snprintf(g_case, sizeof g_case, "setup");
    EXPECT(size == 2);
    MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
    const char *heap_env = getenv("SLUICE_SHM_HEAP");
    size_t heap = heap_env ? strtoull(heap_env, NULL, 10) : (size_t)64 << 20;
    int expect_shared = heap >= 2 * (BIG + 4096); /* both blocks fit */

    p2p_stats_t s0, s1;
    p2p_get_stats(&s0);
    unsigned char *shared_a = NULL, *shared_b = NULL, *plain = malloc(BIG + 4096);
    EXPECT(plain);
    EXPECT(MPI_Alloc_mem((MPI_Aint)(BIG + 4096), MPI_INFO_NULL, &shared_a) == MPI_SUCCESS);
    EXPECT(MPI_Alloc_mem((MPI_Aint)(BIG + 4096), MPI_INFO_NULL, &shared_b) == MPI_SUCCESS);
    EXPECT(shared_a && shared_b && ((uintptr_t)shared_a & 63) == 0);
    p2p_get_stats(&s1);
    snprintf(g_case, sizeof g_case, "shared heap of %zu bytes", heap);
    EXPECT(s1.mem_shared - s0.mem_shared == (expect_shared ? 2u : 0u));

    /* HYBRID, SEND_RNDV (sender first) and RECV_RNDV (receiver first) */
    const size_t sizes[] = {100003, (1u << 20) + 333, BIG - 7};
    unsigned char *bufs[3][2] = {{shared_a, shared_b}, {shared_a, plain}, {plain, shared_b}};
    const char *kinds[3] = {"shared to shared", "shared to malloc", "malloc to shared"};
    int seed = 1;
    for (int k = 0; k < 3; k++)
        for (size_t z = 0; z < 3; z++)
            for (int from = 0; from < 2; from++)
                for (int rfirst = 0; rfirst < 2; rfirst++, seed++) {
                    snprintf(g_case, sizeof g_case, "%s, %zu bytes, rank %d sends, %s first",
                             kinds[k], sizes[z], from, rfirst ? "receiver" : "sender");
                    transfer(rank, from, bufs[k][0], bufs[k][1], sizes[z], (size_t)seed % 61,
                             rfirst, seed);
                }

    snprintf(g_case, sizeof g_case, "MPI_Free_mem");
    EXPECT(MPI_Free_mem(shared_a + 64) == MPI_ERR_BASE);
    EXPECT(MPI_Free_mem(shared_a) == MPI_SUCCESS);
    EXPECT(MPI_Free_mem(shared_a) == MPI_ERR_BASE);
    EXPECT(MPI_Free_mem(shared_b) == MPI_SUCCESS);
    free(plain);
    /* the freed heap space is handed out again */
    unsigned char *again = NULL;
    EXPECT(MPI_Alloc_mem((MPI_Aint)(BIG + 4096), MPI_INFO_NULL, &again) == MPI_SUCCESS && again);
    p2p_stats_t s2;
    p2p_get_stats(&s2);
    EXPECT(s2.mem_shared - s1.mem_shared == (expect_shared ? 1u : 0u));
    EXPECT(MPI_Free_mem(again) == MPI_SUCCESS);
    MPI_Barrier(W);
    if (rank == 0)
        printf("mpi_alloc_mem_test: ok (%s; %d transfers)\n",
               expect_shared ? "blocks from the shared heap" : "heap too small: ordinary memory",
               seed - 1);
    MPI_Finalize();
    return 0;
}
