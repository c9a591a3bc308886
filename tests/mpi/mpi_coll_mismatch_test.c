/* Mismatched lengths report the same error classes on both executors
 * (docs/OFFLOAD.md, "Truncation and short messages").
 *
 * Part 1, user schedules (include/sluice.h) committed to the host and to
 * the offload executor in turn: rank 0 sends `sent` bytes, rank 1 receives
 * into room for `want` (directly, or through a shadow buffer when the
 * receive has a dependency and is small), then relays what it received to
 * rank 2 (3 ranks and more).  Longer than the receive: MPI_ERR_TRUNCATE on
 * rank 1; shorter: MPI_ERR_ARG (mcoll_error: a shorter message); every
 * other rank MPI_SUCCESS; nobody hangs; the bytes after the receive's
 * buffer stay untouched; equal lengths deliver the data, also after a
 * failed start of the same request.
 *
 * Part 2, MPI_Bcast with a flat tree (SLUICE_COLL_BCAST=flat, set by the
 * ctest entries) whose root sends more, then fewer, ints than the others
 * receive: every non-root reports the class, the root succeeds; run under
 * SLUICE_COLL_EXECUTOR=host and offload. */
#include "mpi_expect.h"
#include "test.h"

#include <mpi.h>
#include <sluice.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 64
#define TAG_DATA 5
#define TAG_RELAY 6

static int rank, size;


static unsigned char pattern(size_t i, int round)
{
    return (unsigned char)(i * 7 + (size_t)round * 13 + 1);
}

typedef struct {
    const char *name;
    size_t sent, want;
    bool dep; /* the receive waits for a nop (shadow buffer when small) */
} mis_case_t;

/* One request of the case's schedule on this rank. */
static MPI_Request build(const mis_case_t *c, int exec, unsigned char *sbuf, unsigned char *rbuf)
{
    SLUICE_Sched s;
    CHECK(SLUICE_Sched_create(MPI_COMM_WORLD, &s) == MPI_SUCCESS);
    if (rank == 0) {
        CHECK(SLUICE_Sched_send(s, sbuf, (MPI_Count)c->sent, 1, TAG_DATA, NULL) == MPI_SUCCESS);
    } else if (rank == 1) {
        int n = -1, rv = -1, sd = -1;
        CHECK(SLUICE_Sched_recv(s, rbuf, (MPI_Count)c->want, 0, TAG_DATA, &rv) == MPI_SUCCESS);
        if (c->dep) {
            CHECK(SLUICE_Sched_nop(s, &n) == MPI_SUCCESS);
            CHECK(SLUICE_Sched_dep(s, n, rv) == MPI_SUCCESS);
        }
        if (size > 2) { /* relay what came (the schedule goes on after a misfit) */
            CHECK(SLUICE_Sched_send(s, rbuf, (MPI_Count)c->want, 2, TAG_RELAY, &sd) ==
                  MPI_SUCCESS);
            CHECK(SLUICE_Sched_dep(s, rv, sd) == MPI_SUCCESS);
        }
    } else if (rank == 2) {
        CHECK(SLUICE_Sched_recv(s, rbuf, (MPI_Count)c->want, 1, TAG_RELAY, NULL) == MPI_SUCCESS);
    }
    MPI_Request r;
    CHECK(SLUICE_Sched_commit(s, exec, &r) == MPI_SUCCESS);
    CHECK(SLUICE_Sched_free(&s) == MPI_SUCCESS);
    return r;
}

/* Start and wait once: the class this rank reports */
static int run_once(MPI_Request *r, const mis_case_t *c, unsigned char *sbuf, unsigned char *rbuf,
                    int round)
{
    for (size_t i = 0; i < c->sent; i++) sbuf[i] = pattern(i, round);
    memset(rbuf, 0xee, c->want + GUARD);
    CHECK(MPI_Start(r) == MPI_SUCCESS);
    int rc = MPI_Wait(r, MPI_STATUS_IGNORE);
    for (size_t i = c->want; i < c->want + GUARD; i++)
        if (rbuf[i] != 0xee) {
            fprintf(stderr, "rank %d, %s: byte %zu past the receive written\n", rank, c->name, i);
            CHECK(rbuf[i] == 0xee);
            break;
        }
    return mt_class(rc);
}

static void run_case(const mis_case_t *c, int exec)
{
    size_t room = (c->sent > c->want ? c->sent : c->want) + GUARD;
    unsigned char *sbuf = malloc(room), *rbuf = malloc(room);
    MPI_Request r = build(c, exec, sbuf, rbuf);
    int expect = MPI_SUCCESS;
    if (rank == 1 && c->sent != c->want)
        expect = c->sent > c->want ? MPI_ERR_TRUNCATE : MPI_ERR_ARG;
    for (int round = 0; round < 2; round++) {
        int got = run_once(&r, c, sbuf, rbuf, round);
        if (got != expect)
            fprintf(stderr, "rank %d, %s, %s executor, start %d: class %d, want %d\n", rank,
                    c->name, exec == SLUICE_EXEC_HOST ? "host" : "offload", round, got, expect);
        CHECK(got == expect);
        if (c->sent == c->want && (rank == 1 || rank == 2))
            for (size_t i = 0; i < c->want; i++)
                if (rbuf[i] != pattern(i, round)) {
                    fprintf(stderr, "rank %d, %s: byte %zu wrong\n", rank, c->name, i);
                    CHECK(rbuf[i] == pattern(i, round));
                    break;
                }
    }
    CHECK(MPI_Request_free(&r) == MPI_SUCCESS);
    free(sbuf);
    free(rbuf);
    /* a failed run must not disturb the next one */
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
}

static void user_schedules(void)
{
    static const mis_case_t cases[] = {
        {"equal", 100, 100, false},
        {"longer, direct", 100, 40, false},
        {"shorter, direct", 40, 100, false},
        {"longer, shadow", 100, 40, true},
        {"shorter, shadow", 40, 100, true},
        {"empty into bytes", 0, 8, false},
        {"bytes into empty", 8, 0, true},
        {"empty into bytes, shadow", 0, 8, true},
        {"equal, shadow", 3000, 3000, true},
        {"longer, bulk", 300000, 262144, false},
        {"shorter, bulk", 262144, 300000, true},
    };
    static const int execs[] = {SLUICE_EXEC_HOST, SLUICE_EXEC_OFFLOAD};
    for (size_t e = 0; e < 2; e++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i], execs[e]);
}

/* A flat broadcast of 8 ints from rank 0 to ranks expecting n: longer
 * (n = 4) or shorter (n = 16) */
static void bcast_case(int n)
{
    int *b = malloc((size_t)(16 + GUARD) * sizeof(int));
    int count = rank == 0 ? 8 : n;
    for (int i = 0; i < 16 + GUARD; i++) b[i] = rank == 0 ? 100 + i : -1;
    int got = mt_class(MPI_Bcast(b, count, MPI_INT, 0, MPI_COMM_WORLD));
    int expect = rank == 0 ? MPI_SUCCESS : n < 8 ? MPI_ERR_TRUNCATE : MPI_ERR_ARG;
    if (got != expect) fprintf(stderr, "rank %d, bcast into %d: class %d, want %d\n", rank, n,
                               got, expect);
    CHECK(got == expect);
    for (int i = count; i < 16 + GUARD; i++) CHECK(b[i] == (rank == 0 ? 100 + i : -1));
    free(b);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    user_schedules();
    bcast_case(4);
    bcast_case(16);
    bcast_case(4);
    MPI_Finalize();
    if (rank == 0) printf("mpi_coll_mismatch: %d ranks ok\n", size);
    return 0;
}
