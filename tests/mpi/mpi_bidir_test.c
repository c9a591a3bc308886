/* The bidirectional window of the standard bandwidth benchmarks, at every
 * size from 1 B to 1 MiB and at each switch point of the protocols and
 * mechanisms: pairs of ranks (0-1, 2-3, ...) each post W receives from
 * the other, then W sends to it, then wait for all 2W; repeated.  Every
 * byte of every message and every status (source, tag, count) is checked.
 *
 * This pattern hung at 4 KiB in 3-5 runs of 10 (both ranks asleep in
 * MPI_Waitall): a credit packet of the wire was lost when its receiver
 * spent the credits another one brought before freeing that packet's
 * slot (docs/WIRE.md).  ctest runs it with SLUICE_WIRE_CHECK=1, so that
 * the same fault ends the job with the overflow at once instead of a hang.
 * usage: mpi_bidir_test [window] [byte budget per size] [largest size] */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char g_case[96];
static int g_rank = -1;
#define MT_CONTEXT g_case
#define MT_RANK g_rank
#include "mpi_expect.h"

/* Sizes: powers of two and the points where the path changes (fastbox
 * cell 120 B, wire packet 4084 B, short ring / inline / volatile 8 KiB,
 * eager 64 KiB, HYBRID 128 KiB), each with its neighbours. */
static const size_t sizes[] = {
    1,      2,      4,      8,      16,     32,     64,     119,    120,    121,
    128,    256,    512,    1024,   2048,   3072,   4083,   4084,   4085,   4096,
    6144,   8191,   8192,   8193,   12345,  16384,  32768,  65535,  65536,  65537,
    98304,  131071, 131072, 131073, 262144, 524288, 1048576};

static unsigned char pattern(int src, int it, int i, size_t b)
{
    return (unsigned char)(src * 131 + it * 31 + i * 7 + b * 13 + (b >> 9));
}

static void run_size(int peer, size_t len, int w, int reps, unsigned char *sbuf,
                     unsigned char *rbuf)
{
    MPI_Request *rq = malloc(2 * (size_t)w * sizeof *rq);
    MPI_Status *st = malloc(2 * (size_t)w * sizeof *st);
    EXPECT(rq && st);
    for (int it = 0; it < reps; it++) {
        snprintf(g_case, sizeof g_case, "%zu bytes, repetition %d", len, it);
        for (int i = 0; i < w; i++)
            for (size_t b = 0; b < len; b++) sbuf[(size_t)i * len + b] = pattern(g_rank, it, i, b);
        memset(rbuf, 0xee, (size_t)w * len);
        for (int i = 0; i < w; i++)
            EXPECT(MPI_Irecv(rbuf + (size_t)i * len, (int)len, MPI_BYTE, peer, 100 + i,
                             MPI_COMM_WORLD, &rq[i]) == MPI_SUCCESS);
        for (int i = 0; i < w; i++)
            EXPECT(MPI_Isend(sbuf + (size_t)i * len, (int)len, MPI_BYTE, peer, 100 + i,
                             MPI_COMM_WORLD, &rq[w + i]) == MPI_SUCCESS);
        EXPECT(MPI_Waitall(2 * w, rq, st) == MPI_SUCCESS);
        for (int i = 0; i < w; i++) {
            int count = -1;
            EXPECT(MPI_Get_count(&st[i], MPI_BYTE, &count) == MPI_SUCCESS);
            EXPECT(count == (int)len && st[i].MPI_SOURCE == peer && st[i].MPI_TAG == 100 + i &&
                   st[i].MPI_ERROR == MPI_SUCCESS);
            const unsigned char *got = rbuf + (size_t)i * len;
            EXPECT_BYTES(got, len, b, pattern(peer, it, i, b));
        }
    }
    free(rq);
    free(st);
}

int main(int argc, char **argv)
{
    int w = argc > 1 ? atoi(argv[1]) : 64;
    double budget = argc > 2 ? atof(argv[2]) : 32.0 * 1024 * 1024;
    size_t largest = argc > 3 ? (size_t)atol(argv[3]) : ((size_t)1 << 20);
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    EXPECT(size % 2 == 0 && w > 0);
    int peer = g_rank ^ 1;
    unsigned char *sbuf = malloc((size_t)w * largest), *rbuf = malloc((size_t)w * largest);
    EXPECT(sbuf && rbuf);
    int n = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0] && sizes[s] <= largest; s++) {
        /* a budget of bytes per size and direction: many windows of small
         * messages (the hang needed hundreds), at least two of large ones */
        double r = budget / ((double)w * (double)sizes[s]);
        int reps = r < 2 ? 2 : r > 200 ? 200 : (int)r;
        run_size(peer, sizes[s], w, reps, sbuf, rbuf);
        n++;
    }
    snprintf(g_case, sizeof g_case, "end");
    EXPECT(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    if (g_rank == 0) printf("mpi_bidir_test: %d sizes x window %d, both ways, passed\n", n, w);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
