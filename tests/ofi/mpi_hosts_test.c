/* Mixed traffic over two virtual hosts (sluicerun --hosts a:2,b:2): every
 * rank exchanges with every other rank at once, so pairs on one host use
 * shared memory and pairs across hosts libfabric, in the same job.
 *  1. Sizes from 0 bytes to 2 MiB, every one to every peer, in both
 *     directions together (eager, and over SLUICE_EAGER_LIMIT whatever
 *     protocol ctest forces: hybrid, send_rndv, recv_rndv with its
 *     receiver-driven pull, traditional), every byte checked against a
 *     pattern of (source, destination, size, round).
 *  2. A flood: FLOOD messages of 1..2000 bytes from every rank to every
 *     peer, all posted at once, so credits run out across hosts (the
 *     receivers post their receives only after a barrier), checked.
 *  3. The protocols the sender used (p2p_get_stats) include the one ctest
 *     asked for, and SLUICE_HOST names the host the test expects (ranks
 *     0,1 on a, 2,3 on b). */
#include "p2p/p2p.h"

#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLOOD 3000
#define ROUNDS 3

static int g_rank, g_fails;

#define CHECK(c, ...)                                                                       \
    do {                                                                                    \
        if (!(c)) {                                                                         \
            fprintf(stderr, "FAIL rank %d %s:%d: %s: ", g_rank, __FILE__, __LINE__, #c);    \
            fprintf(stderr, __VA_ARGS__);                                                   \
            fprintf(stderr, "\n");                                                          \
            if (++g_fails > 10) MPI_Abort(MPI_COMM_WORLD, 1);                               \
        }                                                                                   \
    } while (0)

static unsigned char pat(int src, int dst, size_t n, int round, size_t i)
{
    return (unsigned char)(i * 131 + (size_t)src * 17 + (size_t)dst * 29 + n * 7 + (size_t)round);
}

static void fill(unsigned char *b, int src, int dst, size_t n, int round)
{
    for (size_t i = 0; i < n; i++) b[i] = pat(src, dst, n, round, i);
}

static void verify(const unsigned char *b, int src, int dst, size_t n, int round)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pat(src, dst, n, round, i)) {
            CHECK(0, "byte %zu of %zu from rank %d (round %d): %u, expected %u", i, n, src,
                  round, b[i], pat(src, dst, n, round, i));
            return;
        }
}

/* 1: every size to every peer, both ways at once. */
static void sizes(int size)
{
    static const size_t len[] = {0, 1, 64, 120, 1000, 4096, 8192, 65536, 65537,
                                 100000, 262144, 1048576, 2097152};
    const int nl = (int)(sizeof len / sizeof len[0]);
    for (int round = 0; round < ROUNDS; round++)
        for (int k = 0; k < nl; k++) {
            size_t n = len[k];
            unsigned char **sb = calloc((size_t)size, sizeof *sb), **rb = calloc((size_t)size, sizeof *rb);
            MPI_Request *req = calloc(2 * (size_t)size, sizeof *req);
            int nr = 0;
            for (int p = 0; p < size; p++) {
                if (p == g_rank) continue;
                rb[p] = malloc(n + 1);
                sb[p] = malloc(n + 1);
                fill(sb[p], g_rank, p, n, round);
                MPI_Irecv(rb[p], (int)n, MPI_BYTE, p, k, MPI_COMM_WORLD, &req[nr++]);
            }
            for (int p = 0; p < size; p++)
                if (p != g_rank) MPI_Isend(sb[p], (int)n, MPI_BYTE, p, k, MPI_COMM_WORLD, &req[nr++]);
            MPI_Status *st = calloc((size_t)nr, sizeof *st);
            CHECK(MPI_Waitall(nr, req, st) == MPI_SUCCESS, "size %zu", n);
            for (int p = 0, i = 0; p < size; p++) {
                if (p == g_rank) continue;
                int count = -1;
                MPI_Get_count(&st[i++], MPI_BYTE, &count);
                CHECK(count == (int)n, "size %zu from %d: count %d", n, p, count);
                verify(rb[p], p, g_rank, n, round);
                free(rb[p]);
                free(sb[p]);
            }
            free(st);
            free(req);
            free(sb);
            free(rb);
        }
}

/* 2: FLOOD messages to every peer, receives posted late. */
static void flood(int size)
{
    int peers = size - 1;
    unsigned char **sb = calloc((size_t)peers * FLOOD, sizeof *sb);
    MPI_Request *req = calloc((size_t)peers * FLOOD, sizeof *req);
    int nr = 0;
    for (int i = 0; i < FLOOD; i++)
        for (int p = 0; p < size; p++) {
            if (p == g_rank) continue;
            size_t n = 1 + (size_t)(i * 37 + g_rank) % 2000;
            sb[nr] = malloc(n);
            fill(sb[nr], g_rank, p, n, i);
            MPI_Isend(sb[nr], (int)n, MPI_BYTE, p, 1000, MPI_COMM_WORLD, &req[nr]);
            nr++;
        }
    MPI_Barrier(MPI_COMM_WORLD); /* the senders are out of credits by now */
    unsigned char *rb = malloc(2000);
    for (int i = 0; i < FLOOD; i++)
        for (int p = 0; p < size; p++) {
            if (p == g_rank) continue;
            size_t n = 1 + (size_t)(i * 37 + p) % 2000;
            MPI_Status st;
            CHECK(MPI_Recv(rb, 2000, MPI_BYTE, p, 1000, MPI_COMM_WORLD, &st) == MPI_SUCCESS,
                  "flood %d from %d", i, p);
            int count = -1;
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(count == (int)n, "flood message %d from %d: %d bytes, expected %zu", i, p,
                  count, n);
            verify(rb, p, g_rank, n, i); /* in order: message i is the i-th */
        }
    CHECK(MPI_Waitall(nr, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "flood sends");
    for (int i = 0; i < nr; i++) free(sb[i]);
    free(rb);
    free(sb);
    free(req);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *host = getenv("SLUICE_HOST");
    const char *want = argc > 1 ? argv[1] : NULL; /* "ab": ranks 0,1 on a, 2,3 on b */
    if (want) {
        char expect[2] = {g_rank < size / 2 ? want[0] : want[1], 0};
        CHECK(host && !strcmp(host, expect), "SLUICE_HOST=%s, expected %s", host ? host : "(unset)",
              expect);
    }
    p2p_stats_t s0, s1;
    p2p_get_stats(&s0);
    sizes(size);
    flood(size);
    p2p_get_stats(&s1);
    const char *proto = getenv("SLUICE_PROTOCOL");
    unsigned long eager = s1.eager - s0.eager + s1.short_msgs - s0.short_msgs;
    CHECK(eager > 0, "no eager messages");
    if (proto && !strcmp(proto, "hybrid")) CHECK(s1.hybrid > s0.hybrid, "no HYBRID sends");
    if (proto && !strcmp(proto, "send_rndv")) CHECK(s1.send_rndv > s0.send_rndv, "no SEND_RNDV");
    if (proto && !strcmp(proto, "recv_rndv")) CHECK(s1.recv_rndv > s0.recv_rndv, "no RECV_RNDV");
    if (proto && !strcmp(proto, "traditional"))
        CHECK(s1.traditional > s0.traditional, "no traditional rendezvous");
    int fails = g_fails, all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (g_rank == 0)
        printf("mpi_hosts_test: %d ranks (%s), protocol %s: %s\n", size, host ? host : "one host",
               proto ? proto : "auto", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
