/* The round-optimal broadcast's plans (src/coll/roundopt.c) for every
 * communicator size of its table, checked as a whole: every rank plans on
 * its own, and the plans must fit together.
 *   - a send by s of block b to r in round i is r's receive of b from s in
 *     round i, and the reverse;
 *   - every rank but the root receives every block exactly once and sends
 *     only blocks it received in an earlier round;
 *   - one receive and one send per rank per round (one-ported), and the
 *     last transfer within n - 1 + ceil(log2 p) rounds: round-optimal;
 *   - the arguments it refuses.
 * Block counts: 1 .. 4q + 5 (the schedule repeats with period q beyond
 * that) for every p, and 256 (COLL_MAX_SEGS) for some.  Under a sanitizer
 * (2.6 s took 35 s with ASan and 136 s with TSan, for single-threaded
 * arithmetic they have little to say about) p > 32 gets 1 .. q + 2 and
 * 2q + 3, and 256 only p <= 16. */
#include "coll/roundopt.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

typedef struct {
    int src, block;
} arrival_t;

static int log2_ceil(int p)
{
    int q = 0;
    while ((1 << q) < p) q++;
    return q;
}

/* One rank's plan against the arrivals the receivers planned. */
static void check_rank(int p, int n, int me, const coll_ro_xfer_t *xf, int nx,
                       const arrival_t *arr, int rounds)
{
    int *got_round = malloc(sizeof(int) * (size_t)n);
    CHECK(got_round);
    for (int b = 0; b < n; b++) got_round[b] = me == 0 ? -1 : rounds;
    int last_round = -1, sends_in_round = 0, recvs_in_round = 0;
    for (int i = 0; i < nx; i++) {
        const coll_ro_xfer_t *x = &xf[i];
        CHECK(x->round >= 0 && x->round < rounds && x->round >= last_round);
        if (x->round != last_round) sends_in_round = recvs_in_round = 0;
        last_round = x->round;
        CHECK(x->block >= 0 && x->block < n && x->peer >= 0 && x->peer < p && x->peer != me);
        if (x->send) {
            CHECK_MSG(++sends_in_round == 1, "p %d n %d rank %d round %d", p, n, me, x->round);
            CHECK_MSG(got_round[x->block] < x->round, "p %d n %d rank %d sends block %d early",
                      p, n, me, x->block);
            const arrival_t *a = &arr[(size_t)x->round * (size_t)p + (size_t)x->peer];
            CHECK_MSG(a->src == me && a->block == x->block, "p %d n %d: %d -> %d unmatched", p,
                      n, me, x->peer);
        } else {
            CHECK(++recvs_in_round == 1 && me != 0);
            CHECK_MSG(got_round[x->block] == rounds, "p %d n %d rank %d: block %d twice", p, n,
                      me, x->block);
            got_round[x->block] = x->round;
            CHECK(arr[(size_t)x->round * (size_t)p + (size_t)me].src == x->peer);
        }
    }
    for (int b = 0; b < n; b++)
        CHECK_MSG(got_round[b] < rounds, "p %d n %d rank %d lacks block %d", p, n, me, b);
    free(got_round);
}

static void check_size(int p, int n)
{
    int rounds = coll_roundopt_rounds(p, n);
    CHECK_EQ(rounds, n - 1 + log2_ceil(p));
    coll_ro_xfer_t **xf = calloc((size_t)p, sizeof *xf);
    int *nx = calloc((size_t)p, sizeof(int));
    arrival_t *arr = malloc(sizeof(arrival_t) * (size_t)(rounds + 1) * (size_t)p);
    CHECK(xf && nx && arr);
    for (size_t i = 0; i < (size_t)(rounds + 1) * (size_t)p; i++) arr[i] = (arrival_t){-1, -1};
    for (int me = 0; me < p; me++) {
        CHECK_OK(coll_roundopt_plan(p, n, me, &xf[me], &nx[me]));
        for (int i = 0; i < nx[me]; i++)
            if (!xf[me][i].send && xf[me][i].round < rounds)
                arr[(size_t)xf[me][i].round * (size_t)p + (size_t)me] =
                    (arrival_t){xf[me][i].peer, xf[me][i].block};
    }
    size_t sends = 0, recvs = 0;
    for (int me = 0; me < p; me++) {
        check_rank(p, n, me, xf[me], nx[me], arr, rounds);
        for (int i = 0; i < nx[me]; i++) sends += xf[me][i].send, recvs += !xf[me][i].send;
        free(xf[me]);
    }
    /* every receive was someone's send: nothing is moved twice */
    CHECK_EQ(sends, recvs);
    CHECK_EQ(recvs, (size_t)(p - 1) * (size_t)n);
    free(xf);
    free(nx);
    free(arr);
}

int main(void)
{
    coll_ro_xfer_t *xf;
    int nx;
    CHECK_EQ(coll_roundopt_plan(0, 1, 0, &xf, &nx), SL_ERR_INVALID);
    CHECK_EQ(coll_roundopt_plan(COLL_ROUNDOPT_PMAX + 1, 1, 0, &xf, &nx), SL_ERR_INVALID);
    CHECK_EQ(coll_roundopt_plan(4, 0, 0, &xf, &nx), SL_ERR_INVALID);
    CHECK_EQ(coll_roundopt_plan(4, 3, 4, &xf, &nx), SL_ERR_INVALID);
    CHECK_EQ(coll_roundopt_plan(4, 3, -1, &xf, &nx), SL_ERR_INVALID);
    CHECK_EQ(coll_roundopt_plan(4, 3, 0, NULL, &nx), SL_ERR_INVALID);
    CHECK_OK(coll_roundopt_plan(1, 5, 0, &xf, &nx));
    CHECK(nx == 0 && xf == NULL);
    /* default blocks: sqrt((q - 1) len / COLL_ROUNDOPT_AB) of them */
    CHECK_EQ(coll_roundopt_block(2, 4 << 20), 4 << 20);          /* nothing to pipeline */
    CHECK_EQ(coll_roundopt_block(4, 4 << 20), 256 << 10);        /* q 2: 16 blocks */
    CHECK_EQ(coll_roundopt_block(8, 4 << 20), (4 << 20) / 22 + 1); /* q 3: 22 */
    CHECK_EQ(coll_roundopt_block(8, 1000), 1000);
    CHECK_EQ(coll_roundopt_block(8, 0), 1);
    for (int p = 2; p <= COLL_ROUNDOPT_PMAX; p++) {
        int q = log2_ceil(p);
        bool all = !SANITIZED || p <= 32;
        for (int n = 1; n <= 4 * q + 5; n++)
            if (all || n <= q + 2 || n == 2 * q + 3) check_size(p, n);
        if (p <= 16 || (!SANITIZED && (p % 31 == 0 || p == COLL_ROUNDOPT_PMAX)))
            check_size(p, 256);
    }
    t_done("unit_roundopt");
    return 0;
}
