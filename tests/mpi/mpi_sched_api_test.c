/* include/sluice.h with bad arguments: the documented error classes (with
 * MPI_ERRORS_RETURN), then a schedule of two ranks' messages that needs
 * its dependencies (a receive into a buffer a send must read first) and a
 * user op on the host executor, each started 100 times; then a ring whose
 * reduce vertices apply five different (op, datatype) pairs, one of them
 * twice, on both executors. */
#include "mpi_expect.h"
#include "test.h"

#include <mpi.h>
#include <sluice.h>

#include <stdio.h>
#include <stdlib.h>


static void fold(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++) b[i] = 2 * b[i] + a[i]; /* does not commute */
}

static void test_errors(int rank, int size)
{
    SLUICE_Sched s = SLUICE_SCHED_NULL;
    int x = 0, v = -1;
    CHECK(mt_class(SLUICE_Sched_create(MPI_COMM_NULL, &s)) == MPI_ERR_COMM);
    CHECK(mt_class(SLUICE_Sched_create(MPI_COMM_WORLD, NULL)) == MPI_ERR_ARG);
    CHECK(mt_class(SLUICE_Sched_send(SLUICE_SCHED_NULL, &x, 4, 0, 0, NULL)) == MPI_ERR_ARG);
    CHECK(SLUICE_Sched_create(MPI_COMM_WORLD, &s) == MPI_SUCCESS);
    CHECK(mt_class(SLUICE_Sched_send(s, &x, 4, size, 0, NULL)) == MPI_ERR_RANK);
    CHECK(mt_class(SLUICE_Sched_recv(s, &x, 4, -1, 0, NULL)) == MPI_ERR_RANK);
    CHECK(mt_class(SLUICE_Sched_send(s, &x, 4, 0, 1 << 17, NULL)) == MPI_ERR_TAG);
    CHECK(mt_class(SLUICE_Sched_send(s, &x, 4, 0, -1, NULL)) == MPI_ERR_TAG);
    CHECK(mt_class(SLUICE_Sched_send(s, &x, -1, 0, 0, NULL)) == MPI_ERR_COUNT);
    CHECK(mt_class(SLUICE_Sched_recv(s, NULL, 4, 0, 0, NULL)) == MPI_ERR_BUFFER);
    CHECK(mt_class(SLUICE_Sched_copy(s, &x, NULL, 4, NULL)) == MPI_ERR_BUFFER);
    CHECK(mt_class(SLUICE_Sched_reduce(s, &x, &x, 1, MPI_DATATYPE_NULL, MPI_SUM, NULL)) ==
          MPI_ERR_TYPE);
    CHECK(mt_class(SLUICE_Sched_reduce(s, &x, &x, 1, MPI_INT, MPI_OP_NULL, NULL)) == MPI_ERR_OP);
    CHECK(SLUICE_Sched_reduce(s, &x, &x, 1, MPI_INT, MPI_SUM, &v) == MPI_SUCCESS && v == 0);
    /* every reduce vertex has its own op and type; each pair is checked */
    double d = 0;
    CHECK(SLUICE_Sched_reduce(s, &x, &x, 1, MPI_INT, MPI_MAX, &v) == MPI_SUCCESS && v == 1);
    CHECK(SLUICE_Sched_reduce(s, &d, &d, 1, MPI_DOUBLE, MPI_SUM, &v) == MPI_SUCCESS && v == 2);
    CHECK(mt_class(SLUICE_Sched_reduce(s, &d, &d, 1, MPI_DOUBLE, MPI_BAND, NULL)) == MPI_ERR_OP);
    MPI_Datatype gap;
    CHECK(MPI_Type_create_resized(MPI_INT, 0, 8, &gap) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&gap) == MPI_SUCCESS);
    CHECK(mt_class(SLUICE_Sched_reduce(s, &d, &d, 1, gap, MPI_SUM, NULL)) == MPI_ERR_TYPE);
    MPI_Type_free(&gap);
    int a, b;
    CHECK(SLUICE_Sched_nop(s, &a) == MPI_SUCCESS && SLUICE_Sched_nop(s, &b) == MPI_SUCCESS);
    CHECK(mt_class(SLUICE_Sched_dep(s, a, a)) == MPI_ERR_ARG);
    CHECK(mt_class(SLUICE_Sched_dep(s, a, 99)) == MPI_ERR_ARG);
    CHECK(SLUICE_Sched_dep(s, a, b) == MPI_SUCCESS && SLUICE_Sched_dep(s, b, a) == MPI_SUCCESS);
    MPI_Request r;
    CHECK(mt_class(SLUICE_Sched_dot(s, "/dev/null")) == MPI_ERR_ARG); /* not committed */
    CHECK(mt_class(SLUICE_Sched_commit(s, 7, &r)) == MPI_ERR_ARG);
    CHECK(mt_class(SLUICE_Sched_commit(s, SLUICE_EXEC_HOST, NULL)) == MPI_ERR_ARG);
    CHECK(mt_class(SLUICE_Sched_commit(s, SLUICE_EXEC_HOST, &r)) == MPI_ERR_ARG); /* a cycle */
    CHECK(mt_class(SLUICE_Sched_nop(s, NULL)) == MPI_ERR_ARG); /* committed (and failed) */
    CHECK(SLUICE_Sched_free(&s) == MPI_SUCCESS && s == SLUICE_SCHED_NULL);
    CHECK(mt_class(SLUICE_Sched_free(&s)) == MPI_ERR_ARG);
    /* a user op cannot be offloaded */
    MPI_Op op;
    CHECK(MPI_Op_create(fold, 0, &op) == MPI_SUCCESS);
    CHECK(SLUICE_Sched_create(MPI_COMM_WORLD, &s) == MPI_SUCCESS);
    CHECK(SLUICE_Sched_reduce(s, &x, &x, 1, MPI_INT, op, NULL) == MPI_SUCCESS);
    CHECK(mt_class(SLUICE_Sched_commit(s, SLUICE_EXEC_OFFLOAD, &r)) ==
          MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(SLUICE_Sched_free(&s) == MPI_SUCCESS);
    /* nor one among ops that could be */
    CHECK(SLUICE_Sched_create(MPI_COMM_WORLD, &s) == MPI_SUCCESS);
    CHECK(SLUICE_Sched_reduce(s, &x, &x, 1, MPI_INT, MPI_SUM, NULL) == MPI_SUCCESS);
    CHECK(SLUICE_Sched_reduce(s, &x, &x, 1, MPI_INT, op, NULL) == MPI_SUCCESS);
    CHECK(SLUICE_Sched_reduce(s, &d, &d, 1, MPI_DOUBLE, MPI_MAX, NULL) == MPI_SUCCESS);
    CHECK(mt_class(SLUICE_Sched_commit(s, SLUICE_EXEC_OFFLOAD, &r)) ==
          MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(SLUICE_Sched_free(&s) == MPI_SUCCESS);
    MPI_Op_free(&op);
    (void)rank;
}

/* Rank 0 sends buf to rank 1, then receives rank 1's reply into the same
 * buffer (a receive that must wait for the send); rank 1 receives into
 * in, folds in into acc with a non-commutative user op (host executor),
 * and replies with acc. */
static void test_run(int rank, int exec)
{
    enum { K = 1000 };
    int *buf = malloc(K * sizeof(int)), *acc = malloc(K * sizeof(int));
    int *in = malloc(K * sizeof(int));
    MPI_Op op;
    CHECK(MPI_Op_create(fold, 0, &op) == MPI_SUCCESS);
    SLUICE_Sched s;
    CHECK(SLUICE_Sched_create(MPI_COMM_WORLD, &s) == MPI_SUCCESS);
    int sd, rv, rd;
    if (rank == 0) {
        CHECK(SLUICE_Sched_send(s, buf, K * sizeof(int), 1, 3, &sd) == MPI_SUCCESS);
        CHECK(SLUICE_Sched_recv(s, buf, K * sizeof(int), 1, 4, &rv) == MPI_SUCCESS);
        CHECK(SLUICE_Sched_dep(s, sd, rv) == MPI_SUCCESS);
    } else if (rank == 1) {
        CHECK(SLUICE_Sched_recv(s, in, K * sizeof(int), 0, 3, &rv) == MPI_SUCCESS);
        if (exec == SLUICE_EXEC_HOST)
            CHECK(SLUICE_Sched_reduce(s, in, acc, K, MPI_INT, op, &rd) == MPI_SUCCESS);
        else
            CHECK(SLUICE_Sched_reduce(s, in, acc, K, MPI_INT, MPI_SUM, &rd) == MPI_SUCCESS);
        CHECK(SLUICE_Sched_dep(s, rv, rd) == MPI_SUCCESS);
        CHECK(SLUICE_Sched_send(s, acc, K * sizeof(int), 0, 4, &sd) == MPI_SUCCESS);
        CHECK(SLUICE_Sched_dep(s, rd, sd) == MPI_SUCCESS);
    }
    MPI_Request r;
    CHECK(SLUICE_Sched_commit(s, exec, &r) == MPI_SUCCESS);
    CHECK(SLUICE_Sched_dot(s, "/dev/null") == MPI_SUCCESS);
    CHECK(SLUICE_Sched_free(&s) == MPI_SUCCESS);
    for (int it = 0; it < 100; it++) {
        for (int i = 0; i < K; i++) {
            buf[i] = it * 7 + i;
            acc[i] = i - it;
        }
        CHECK(MPI_Start(&r) == MPI_SUCCESS);
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        if (rank == 0)
            for (int i = 0; i < K; i++) {
                int a = it * 7 + i, b = i - it;
                int want = exec == SLUICE_EXEC_HOST ? 2 * b + a : a + b;
                if (buf[i] != want) {
                    fprintf(stderr, "it %d: buf[%d] = %d, want %d\n", it, i, buf[i], want);
                    CHECK(buf[i] == want);
                }
            }
    }
    CHECK(MPI_Request_free(&r) == MPI_SUCCESS);
    MPI_Op_free(&op);
    free(buf);
    free(acc);
    free(in);
}

/* A ring: every rank sends five arrays to the next and receives the
 * previous rank's, then folds each into its own with another (op, type):
 * int sum (twice, into two accumulators), double max, long long min,
 * unsigned bor, and on the host a non-commutative user op on int.  Each
 * start has new values; every element is checked on every rank. */
enum { RK = 300 };
typedef struct ring_bufs {
    int si[RK], ri[RK], ai[RK], bi[RK], ui[RK], rui[RK];
    double sd[RK], rd[RK], ad[RK];
    long long sl[RK], rl[RK], al[RK];
    unsigned su[RK], ru[RK], au[RK];
} ring_bufs_t;

static int ival(int rank, int it, int i) { return rank * 1000 + it * 7 - i; }
static double dval(int rank, int it, int i) { return (rank * 31 + i * 17 + it) % 97 - 40.5; }
static long long lval(int rank, int it, int i) { return ((long long)(rank + 1) << 40) - i * it; }
static unsigned uval(int rank, int it, int i) { return 1u << ((rank + i + it) % 32); }

static void ring_fill(ring_bufs_t *b, int rank, int it)
{
    for (int i = 0; i < RK; i++) {
        b->si[i] = b->ai[i] = ival(rank, it, i);
        b->bi[i] = i;
        b->ui[i] = b->si[i] + 3;
        b->sd[i] = b->ad[i] = dval(rank, it, i);
        b->sl[i] = b->al[i] = lval(rank, it, i);
        b->su[i] = b->au[i] = uval(rank, it, i);
    }
}

static void ring_check(const ring_bufs_t *b, int rank, int prev, int it, bool user)
{
    for (int i = 0; i < RK; i++) {
        int p = ival(prev, it, i), m = ival(rank, it, i);
        double dp = dval(prev, it, i), dm = dval(rank, it, i);
        long long lp = lval(prev, it, i), lm = lval(rank, it, i);
        bool ok = b->ai[i] == p + m && b->bi[i] == p + i && b->ad[i] == (dp > dm ? dp : dm) &&
                  b->al[i] == (lp < lm ? lp : lm) &&
                  b->au[i] == (uval(prev, it, i) | uval(rank, it, i)) &&
                  (!user || b->ui[i] == 2 * (m + 3) + p);
        if (!ok) {
            fprintf(stderr, "rank %d it %d: element %d wrong (int %d/%d, double %g, ll %lld, "
                    "unsigned %x, user %d)\n", rank, it, i, b->ai[i], b->bi[i], b->ad[i],
                    b->al[i], b->au[i], b->ui[i]);
            CHECK(ok);
        }
    }
}

static void test_multi_op(int rank, int size, int exec)
{
    ring_bufs_t *b = calloc(1, sizeof *b);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    bool user = exec == SLUICE_EXEC_HOST;
    MPI_Op op;
    CHECK(MPI_Op_create(fold, 0, &op) == MPI_SUCCESS);
    SLUICE_Sched s;
    CHECK(SLUICE_Sched_create(MPI_COMM_WORLD, &s) == MPI_SUCCESS);
    int rv[4], rd[6], n = 0;
    CHECK(SLUICE_Sched_send(s, b->si, sizeof b->si, next, 1, NULL) == MPI_SUCCESS);
    CHECK(SLUICE_Sched_send(s, b->sd, sizeof b->sd, next, 2, NULL) == MPI_SUCCESS);
    CHECK(SLUICE_Sched_send(s, b->sl, sizeof b->sl, next, 3, NULL) == MPI_SUCCESS);
    CHECK(SLUICE_Sched_send(s, b->su, sizeof b->su, next, 4, NULL) == MPI_SUCCESS);
    CHECK(SLUICE_Sched_recv(s, b->ri, sizeof b->ri, prev, 1, &rv[0]) == MPI_SUCCESS);
    CHECK(SLUICE_Sched_recv(s, b->rd, sizeof b->rd, prev, 2, &rv[1]) == MPI_SUCCESS);
    CHECK(SLUICE_Sched_recv(s, b->rl, sizeof b->rl, prev, 3, &rv[2]) == MPI_SUCCESS);
    CHECK(SLUICE_Sched_recv(s, b->ru, sizeof b->ru, prev, 4, &rv[3]) == MPI_SUCCESS);
    CHECK(SLUICE_Sched_reduce(s, b->ri, b->ai, RK, MPI_INT, MPI_SUM, &rd[n++]) == MPI_SUCCESS);
    CHECK(SLUICE_Sched_reduce(s, b->rd, b->ad, RK, MPI_DOUBLE, MPI_MAX, &rd[n++]) == 0);
    CHECK(SLUICE_Sched_reduce(s, b->rl, b->al, RK, MPI_LONG_LONG, MPI_MIN, &rd[n++]) == 0);
    CHECK(SLUICE_Sched_reduce(s, b->ru, b->au, RK, MPI_UNSIGNED, MPI_BOR, &rd[n++]) == 0);
    CHECK(SLUICE_Sched_reduce(s, b->ri, b->bi, RK, MPI_INT, MPI_SUM, &rd[n++]) == MPI_SUCCESS);
    if (user) CHECK(SLUICE_Sched_reduce(s, b->ri, b->ui, RK, MPI_INT, op, &rd[n++]) == 0);
    for (int j = 0; j < n; j++) CHECK(SLUICE_Sched_dep(s, rv[j < 4 ? j : 0], rd[j]) == 0);
    MPI_Request r;
    CHECK(SLUICE_Sched_commit(s, exec, &r) == MPI_SUCCESS);
    CHECK(SLUICE_Sched_free(&s) == MPI_SUCCESS);
    MPI_Op_free(&op); /* (the schedule keeps what it needs) */
    for (int it = 0; it < 50; it++) {
        ring_fill(b, rank, it);
        CHECK(MPI_Start(&r) == MPI_SUCCESS);
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        ring_check(b, rank, prev, it, user);
    }
    CHECK(MPI_Request_free(&r) == MPI_SUCCESS);
    free(b);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_errors(rank, size);
    test_run(rank, SLUICE_EXEC_HOST);
    test_run(rank, SLUICE_EXEC_OFFLOAD);
    test_multi_op(rank, size, SLUICE_EXEC_HOST);
    test_multi_op(rank, size, SLUICE_EXEC_OFFLOAD);
    MPI_Finalize();
    if (rank == 0) printf("mpi_sched_api: ok\n");
    return 0;
}
