/* Schedules built by hand (src/coll), run by whichever executor
 * SLUICE_COLL_EXECUTOR names (ctest runs this under host and offload), on
 * 3 ranks:
 *   - paper 004 §II's matching semantics: two sends with the same tag and
 *     no path between them, two receives likewise: either matching is
 *     allowed, and nothing else (Fig. 1);
 *   - a chain across ranks: receive (no dependency), copy, reduce (an
 *     integer sum: a Portals atomic when offloaded), send on, with
 *     receives that depend on earlier vertices, short (a shadow buffer
 *     when offloaded) and long (the ready notice sent when enabled);
 *   - a schedule of nops only, and a zero-byte message;
 *   - 20 runs of one schedule in flight at once under distinct sequence
 *     numbers, restarted 50 times with changing contents. */
#include "coll/coll.h"
#include "p2p/p2p.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static unsigned next_seq = 1;

static int add_int(const coll_op_t *op, const void *in, void *inout, size_t n)
{
    (void)op;
    const int *a = in;
    int *b = inout;
    for (size_t i = 0; i < n; i++) b[i] += a[i];
    return 0;
}
static const coll_op_t sum_int = {.apply = add_int, .esize = sizeof(int), .commute = true,
                                  .has_atom = true, .atom_op = PTL_SUM,
                                  .atom_type = PTL_INT32_T, .atom_size = sizeof(int)};

static void run(coll_sched_t *s, const void *sbuf, void *rbuf)
{
    coll_run_t *r;
    CHECK_OK(coll_sched_commit(s));
    CHECK_OK(coll_run_new(s, 77, &r));
    coll_run_bind(r, sbuf, rbuf);
    CHECK_OK(coll_run_start(r, next_seq++, false, true));
    CHECK_OK(coll_run_wait(r));
    CHECK(coll_run_done(r));
    coll_run_free(r);
}

/* Fig. 1: rank 0 sends A then B (no edge), rank 1 receives into x and y. */
static void test_two_matchings(void)
{
    int buf[4] = {0};
    coll_sched_t *s = coll_sched_new(rank, size, NULL);
    CHECK(s != NULL);
    if (rank == 0) {
        buf[0] = 111;
        buf[1] = 222;
        cs_send(s, COLL_REF(COLL_SBUF, 0), sizeof(int), 1, 5);
        cs_send(s, COLL_REF(COLL_SBUF, sizeof(int)), sizeof(int), 1, 5);
    } else if (rank == 1) {
        buf[0] = buf[1] = -1;
        cs_recv(s, COLL_REF(COLL_RBUF, 0), sizeof(int), 0, 5);
        cs_recv(s, COLL_REF(COLL_RBUF, sizeof(int)), sizeof(int), 0, 5);
    }
    run(s, buf, buf);
    coll_sched_release(s);
    if (rank == 1)
        CHECK((buf[0] == 111 && buf[1] == 222) || (buf[0] == 222 && buf[1] == 111));
}

/* Rank 0 sends len bytes of its pattern to rank 1; rank 1 receives them
 * (no dependency), copies them to the scratch, adds its own numbers with
 * a reduce, and sends the sum to rank 2, which receives it into a buffer
 * that first has to be sent back to rank 1 (so its receive depends on a
 * send: short messages through the shadow, long ones by the notice); rank
 * 1 receives that once its reduce is done (a dependent receive too; after
 * its send would deadlock once the messages need rendezvous). */
static void test_chain(size_t n)
{
    size_t len = n * sizeof(int);
    int *a = malloc(len + 64), *b = malloc(len + 64);
    CHECK(a && b);
    for (size_t i = 0; i < n; i++) {
        a[i] = (int)(i * 3 + 1);
        b[i] = -7;
    }
    coll_sched_t *s = coll_sched_new(rank, size, NULL);
    CHECK(s != NULL);
    if (rank == 0) {
        cs_send(s, COLL_REF(COLL_SBUF, 0), len, 1, 1);
    } else if (rank == 1) {
        size_t t = cs_tmp(s, len);
        int rv = cs_recv(s, COLL_REF(COLL_RBUF, 0), len, 0, 1);
        int cp = cs_copy(s, COLL_REF(COLL_RBUF, 0), COLL_REF(COLL_TMP, t), len);
        cs_dep(s, rv, cp);
        int rd = cs_reduce(s, COLL_REF(COLL_SBUF, 0), COLL_REF(COLL_TMP, t), n);
        cs_dep(s, cp, rd);
        int sd = cs_send(s, COLL_REF(COLL_TMP, t), len, 2, 2);
        cs_dep(s, rd, sd);
        int back = cs_recv(s, COLL_REF(COLL_RBUF, 0), len, 2, 3);
        cs_dep(s, rd, back);
    } else if (rank == 2) {
        int out = cs_send(s, COLL_REF(COLL_RBUF, 0), len, 1, 3);
        int in = cs_recv(s, COLL_REF(COLL_RBUF, 0), len, 1, 2);
        cs_dep(s, out, in);
    }
    s->op = &sum_int;
    /* rank 1 adds a[i] (its SBUF) to what rank 0 sent (a[i] too) */
    run(s, a, b);
    coll_sched_release(s);
    for (size_t i = 0; i < n; i++) {
        int want = rank == 0 ? -7 : rank == 1 ? -7 : 2 * a[i];
        if (b[i] != want) {
            fprintf(stderr, "rank %d n %zu: b[%zu] = %d, want %d\n", rank, n, i, b[i], want);
            CHECK(b[i] == want);
        }
    }
    free(a);
    free(b);
}

/* Nops only (every rank), then a zero-byte message 0 -> 1. */
static void test_nops_and_empty(void)
{
    coll_sched_t *s = coll_sched_new(rank, size, NULL);
    int x = cs_nop(s), y = cs_nop(s), z = cs_nop(s);
    cs_dep(s, x, y);
    cs_dep(s, x, z);
    run(s, NULL, NULL);
    coll_sched_release(s);
    s = coll_sched_new(rank, size, NULL);
    char c = 9;
    if (rank == 0) cs_send(s, COLL_REF(COLL_SBUF, 0), 0, 1, 4);
    if (rank == 1) cs_recv(s, COLL_REF(COLL_RBUF, 0), 0, 0, 4);
    run(s, &c, &c);
    coll_sched_release(s);
    CHECK(c == 9);
}

/* A ring shift of one int, 20 runs in flight, 50 times. */
static void test_in_flight(void)
{
    enum { RUNS = 20, ROUNDS = 50 };
    coll_sched_t *s = coll_sched_new(rank, size, NULL);
    cs_send(s, COLL_REF(COLL_SBUF, 0), sizeof(int), (rank + 1) % size, 6);
    cs_recv(s, COLL_REF(COLL_RBUF, 0), sizeof(int), (rank + size - 1) % size, 6);
    CHECK_OK(coll_sched_commit(s));
    coll_run_t *r[RUNS];
    int in[RUNS], out[RUNS];
    for (int i = 0; i < RUNS; i++) CHECK_OK(coll_run_new(s, 78, &r[i]));
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < RUNS; i++) {
            in[i] = rank * 100000 + round * 100 + i;
            out[i] = -1;
            coll_run_bind(r[i], &in[i], &out[i]);
            CHECK_OK(coll_run_start(r[i], 1 + (unsigned)i, false, true));
        }
        for (int i = RUNS - 1; i >= 0; i--) CHECK_OK(coll_run_wait(r[i]));
        int from = (rank + size - 1) % size;
        for (int i = 0; i < RUNS; i++) CHECK(out[i] == from * 100000 + round * 100 + i);
    }
    for (int i = 0; i < RUNS; i++) coll_run_free(r[i]);
    coll_sched_release(s);
}

int main(void)
{
    CHECK_OK(p2p_init(&rank, &size));
    CHECK(size == 3);
    test_two_matchings();
    static const size_t counts[] = {1, 100, 2048, 2049, 70000};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) test_chain(counts[i]);
    test_nops_and_empty();
    test_in_flight();
    CHECK_OK(p2p_fini());
    if (rank == 0) printf("coll_sched: ok (%s)\n", getenv("SLUICE_COLL_EXECUTOR") ?: "auto");
    return 0;
}
