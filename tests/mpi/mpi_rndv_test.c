/* Messages over the eager limit (SEND_RNDV, receiver-driven gets) on 3
 * ranks: integrity from eager_limit+1 to 64 MiB with odd sizes and
 * misaligned buffers in both arrival orders (arranged by handshakes: the
 * receiver probes the waiting message, or posts first and says so),
 * truncation with guard bytes (the sender still completes), ANY_SOURCE with
 * two concurrent large senders, probe reporting the full size, a strided
 * receive, and a synchronous large send.  Run under several chunk/inflight
 * settings by ctest. */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_expect.h"

static const MPI_Comm W = MPI_COMM_WORLD;

static unsigned char pattern(size_t i, int seed)
{
    return (unsigned char)((i * 131u + (size_t)seed * 7u + (i >> 12)) & 0xff);
}

static void fill(unsigned char *p, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++) p[i] = pattern(i, seed);
}

static size_t first_bad(const unsigned char *p, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != pattern(i, seed)) return i;
    return n;
}

static void token(int peer, int tag, int send)
{
    int t = tag;
    if (send) EXPECT(MPI_Send(&t, 1, MPI_INT, peer, tag, W) == MPI_SUCCESS);
    else EXPECT(MPI_Recv(&t, 1, MPI_INT, peer, tag, W, MPI_STATUS_IGNORE) == 0 && t == tag);
}

/* rank 0 sends n bytes from offset `mis` of its buffer to rank 1. */
static void one_size(int rank, unsigned char *buf, size_t n, int mis, int recv_first, int seed)
{
    MPI_Request r;
    MPI_Status st;
    int count;
    if (rank == 0) {
        fill(buf + mis, n, seed);
        if (recv_first) token(1, 2, 0);
        EXPECT(MPI_Isend(buf + mis, (int)n, MPI_BYTE, 1, 1, W, &r) == MPI_SUCCESS);
        EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    } else if (rank == 1) {
        memset(buf, 0, n + 64);
        if (recv_first) {
            EXPECT(MPI_Irecv(buf + mis, (int)n, MPI_BYTE, 0, 1, W, &r) == MPI_SUCCESS);
            token(0, 2, 1);
        } else {
            EXPECT(MPI_Probe(0, 1, W, &st) == MPI_SUCCESS); /* waiting, unexpected */
            EXPECT(MPI_Get_count(&st, MPI_BYTE, &count) == MPI_SUCCESS && (size_t)count == n);
            EXPECT(MPI_Irecv(buf + mis, (int)n, MPI_BYTE, 0, 1, W, &r) == MPI_SUCCESS);
        }
        EXPECT(MPI_Wait(&r, &st) == MPI_SUCCESS && st.MPI_SOURCE == 0 && st.MPI_TAG == 1);
        EXPECT(MPI_Get_count(&st, MPI_BYTE, &count) == MPI_SUCCESS && (size_t)count == n);
        size_t bad = first_bad(buf + mis, n, seed);
        if (bad != n) fprintf(stderr, "size %zu: first bad byte at %zu\n", n, bad);
        EXPECT(bad == n);
        for (int i = 0; i < mis; i++) EXPECT(buf[i] == 0);
        EXPECT(buf[mis + n] == 0);
    }
}

static void truncation(int rank, unsigned char *buf)
{
    size_t sent = (1u << 20) + 5, cap = 300001;
    if (rank == 0) {
        fill(buf, sent, 9);
        EXPECT(MPI_Send(buf, (int)sent, MPI_BYTE, 1, 3, W) == MPI_SUCCESS);
    } else if (rank == 1) {
        MPI_Status st;
        int count;
        memset(buf, 0xee, cap + 4096);
        EXPECT(MPI_Recv(buf, (int)cap, MPI_BYTE, 0, 3, W, &st) == MPI_ERR_TRUNCATE);
        EXPECT(MPI_Get_count(&st, MPI_BYTE, &count) == MPI_SUCCESS && (size_t)count == cap);
        EXPECT(first_bad(buf, cap, 9) == cap);
        for (size_t i = cap; i < cap + 4096; i++) EXPECT(buf[i] == 0xee);
    }
}

/* Ranks 0 and 2 both send 3 MiB to rank 1, which takes them with
 * ANY_SOURCE; each sender's data must land whole in one buffer. */
static void any_source(int rank, unsigned char *buf)
{
    size_t n = 3u << 20;
    if (rank == 0 || rank == 2) {
        fill(buf, n, 20 + rank);
        EXPECT(MPI_Send(buf, (int)n, MPI_BYTE, 1, 4, W) == MPI_SUCCESS);
    } else {
        unsigned char *b2 = malloc(n);
        MPI_Request r[2];
        MPI_Status st[2];
        EXPECT(b2);
        EXPECT(MPI_Irecv(buf, (int)n, MPI_BYTE, MPI_ANY_SOURCE, 4, W, &r[0]) == 0);
        EXPECT(MPI_Irecv(b2, (int)n, MPI_BYTE, MPI_ANY_SOURCE, 4, W, &r[1]) == 0);
        EXPECT(MPI_Waitall(2, r, st) == MPI_SUCCESS);
        EXPECT(st[0].MPI_SOURCE != st[1].MPI_SOURCE);
        EXPECT(first_bad(buf, n, 20 + st[0].MPI_SOURCE) == n);
        EXPECT(first_bad(b2, n, 20 + st[1].MPI_SOURCE) == n);
        free(b2);
    }
}

/* 300,000 doubles sent contiguous, received every other one of 600,000. */
static void strided(int rank)
{
    int n = 300000;
    double *v = calloc(2 * (size_t)n, sizeof *v);
    EXPECT(v);
    if (rank == 0) {
        for (int i = 0; i < n; i++) v[i] = i * 0.5;
        EXPECT(MPI_Ssend(v, n, MPI_DOUBLE, 1, 5, W) == MPI_SUCCESS);
    } else if (rank == 1) {
        MPI_Datatype vec;
        EXPECT(MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &vec) == MPI_SUCCESS);
        EXPECT(MPI_Type_commit(&vec) == MPI_SUCCESS);
        EXPECT(MPI_Recv(v, 1, vec, 0, 5, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (int i = 0; i < 2 * n; i++) EXPECT(v[i] == (i % 2 ? 0.0 : (i / 2) * 0.5));
        EXPECT(MPI_Type_free(&vec) == MPI_SUCCESS);
    }
    free(v);
}

int main(int argc, char **argv)
{
    int rank, size;
    EXPECT(MPI_Init(&argc, &argv) == MPI_SUCCESS);
    EXPECT(MPI_Comm_rank(W, &rank) == MPI_SUCCESS);
    EXPECT(MPI_Comm_size(W, &size) == MPI_SUCCESS && size == 3);
    EXPECT(MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    size_t max = (64u << 20) + 64;
    unsigned char *buf = malloc(max + 64);
    EXPECT(buf);
    static const size_t sizes[] = {65537, 65536 + 4095, 100003, 524288, 524289, 1048573,
                                   4194307, 67108864};
    int seed = 1;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int recv_first = 0; recv_first < 2; recv_first++, seed++)
            one_size(rank, buf, sizes[k], (int)(k * 3 % 8), recv_first, seed);
    truncation(rank, buf);
    any_source(rank, buf);
    strided(rank);
    free(buf);
    EXPECT(MPI_Barrier(W) == MPI_SUCCESS);
    if (rank == 0) printf("mpi_rndv_test: ok (%d ranks)\n", size);
    EXPECT(MPI_Finalize() == MPI_SUCCESS);
    return 0;
}
