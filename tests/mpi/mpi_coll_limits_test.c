/* Collectives whose offloaded set-up needs more than the NI allows
 * (docs/OFFLOAD.md, "NI limits"): they fail with MPI_ERR_NO_MEM on every
 * rank within a bounded time, whether every rank is short of objects or
 * only one (the others would wait for its messages), or run on the host
 * where the executor does not offload them; collectives that fit still
 * run offloaded afterwards.
 *
 * The ctest entries lower the limits (SLUICE_NI_MAX_ENTRIES=600,
 * SLUICE_NI_MAX_TRIGGERED=16, the variants below) and run 4 ranks with
 * SLUICE_COLL_EXECUTOR=offload or auto (SLUICE_COLL_PROGRESS=0, so auto
 * offloads the non-blocking calls without a reduction):
 *   - an Ibcast of 64 KiB in 256 segments over a flat tree: the root needs
 *     3 x 256 sends (over 600 entries), the others 256 receives (fit), so
 *     only the root is short: it fails, and tells the others;
 *   - an Allreduce of 8192 ints over a butterfly: 64 atomics of 512 bytes
 *     on one counter (over 16) on every rank, so every rank fails on its
 *     own (offload; the host runs it under auto);
 *   - a Reduce of 8192 ints over a flat tree: only the root reduces
 *     (offload; host under auto);
 *   - then a small Ibcast, Iallreduce and Barrier, which fit. */
#include "mpi_expect.h"
#include "test.h"

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOUND_S 10.0 /* a failed call returns well within this */

static int rank, size;
static bool offload; /* SLUICE_COLL_EXECUTOR=offload (else auto) */


static void expect_class(const char *what, int rc, double t0, int want)
{
    double dt = MPI_Wtime() - t0;
    int got = mt_class(rc);
    if (got != want || dt > BOUND_S)
        fprintf(stderr, "rank %d, %s: class %d after %.2f s, want %d\n", rank, what, got, dt,
                want);
    CHECK(got == want);
    CHECK(dt <= BOUND_S);
}

/* Offloaded (both settings), only the root short of entries */
static void big_ibcast(int round)
{
    enum { N = 65536 };
    unsigned char *b = malloc(N);
    for (int i = 0; i < N; i++) b[i] = rank == 0 ? (unsigned char)(i + round) : 0;
    MPI_Request r;
    double t0 = MPI_Wtime();
    CHECK(MPI_Ibcast(b, N, MPI_BYTE, 0, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
    expect_class("Ibcast over the entry limit", MPI_Wait(&r, MPI_STATUS_IGNORE), t0,
                 MPI_ERR_NO_MEM);
    free(b);
}

/* Offloaded under offload only: over the triggered-operation limit on
 * every rank (allreduce) or at the root (reduce); the host executor runs
 * them under auto, and they must be right */
static void big_reductions(void)
{
    enum { N = 8192 };
    int *in = malloc(N * sizeof(int)), *out = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++) in[i] = rank + i;
    double t0 = MPI_Wtime();
    int rc = MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect_class("Allreduce over the triggered limit", rc, t0,
                 offload ? MPI_ERR_NO_MEM : MPI_SUCCESS);
    if (!offload)
        for (int i = 0; i < N; i++) CHECK(out[i] == size * i + size * (size - 1) / 2);
    t0 = MPI_Wtime();
    rc = MPI_Reduce(in, out, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    expect_class("Reduce over the triggered limit at the root", rc, t0,
                 offload ? MPI_ERR_NO_MEM : MPI_SUCCESS);
    if (!offload && rank == 0)
        for (int i = 0; i < N; i++) CHECK(out[i] == size * i + size * (size - 1) / 2);
    free(in);
    free(out);
}

/* What fits still runs, offloaded, with the right data */
static void small_ones(int round)
{
    int b[4], s[4], t[4];
    for (int i = 0; i < 4; i++) {
        b[i] = rank == 1 ? 40 + i + round : -1;
        s[i] = rank * 10 + i;
    }
    MPI_Request r[2];
    CHECK(MPI_Ibcast(b, 4, MPI_INT, 1, MPI_COMM_WORLD, &r[0]) == MPI_SUCCESS);
    CHECK(MPI_Iallreduce(s, t, 4, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r[1]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    for (int i = 0; i < 4; i++) {
        CHECK(b[i] == 40 + i + round);
        CHECK(t[i] == (size - 1) * 10 + i);
    }
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *ex = getenv("SLUICE_COLL_EXECUTOR");
    offload = ex && !strcmp(ex, "offload");
    small_ones(0);
    big_ibcast(0);
    small_ones(1);
    big_reductions();
    big_ibcast(1);
    small_ones(2);
    MPI_Finalize();
    if (rank == 0)
        printf("mpi_coll_limits: %d ranks ok (%s)\n", size, offload ? "offload" : "auto");
    return 0;
}
