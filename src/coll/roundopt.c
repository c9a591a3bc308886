/* Plans of the round-optimal broadcast (roundopt.h).
 *
 * q = ceil(log2 p) skips, skip[q] = p and skip[k] = ceil(skip[k + 1] / 2).
 * In round i, with k = (i + x) mod q and j = (i + x) div q, rank r receives
 * from r - skip[k] (mod p) the block R[r][k] + j q - x: none while that is
 * negative, the last block once it is past the end (x = (q - (n-1) mod q)
 * mod q puts the last block at the start of a phase, and these repeats
 * are how it reaches every rank within q - 1 rounds of being sent).  A
 * rank takes each block once; a repeat it already holds is not sent.
 *
 * Both ends of every transfer must agree on it without talking, so each
 * rank plays the whole broadcast (every rank, every round: O(p (n + q)))
 * and keeps its own transfers; the same play checks the table. */
#include "coll/roundopt.h"

#include <stdint.h>
#include <stdlib.h>

static int log2_ceil(int p)
{
    int q = 0;
    while ((1 << q) < p) q++;
    return q;
}

int coll_roundopt_rounds(int p, int nblk)
{
    return nblk - 1 + log2_ceil(p);
}

static size_t isqrt(size_t v)
{
    size_t r = 0;
    while ((r + 1) * (r + 1) <= v) r++;
    return r;
}

size_t coll_roundopt_block(int p, size_t len)
{
    int q = log2_ceil(p);
    if (q <= 1 || len <= COLL_ROUNDOPT_AB) return len ? len : 1;
    size_t n = isqrt((size_t)(q - 1) * (len / COLL_ROUNDOPT_AB));
    if (n < 1) n = 1;
    return (len + n - 1) / n;
}

typedef struct ro_play {
    int p, q, n, x, me;
    int skip[8];
    const char *tab;
    uint8_t *have;  /* [rank * n + block] */
    int *arrive;    /* the block each rank receives this round, -1 none */
    coll_ro_xfer_t *xf;
    int nx;
} ro_play_t;

/* The block rank r (1..p-1) takes in round i, or -1. */
static int ro_block(const ro_play_t *g, int r, int i)
{
    int v = i + g->x, k = v % g->q;
    int b = g->tab[(r - 1) * g->q + k] - 'A' - g->q + v / g->q * g->q - g->x;
    if (b > g->n - 1) b = g->n - 1;
    return b < 0 || g->have[(size_t)r * (size_t)g->n + (size_t)b] ? -1 : b;
}

static sl_status_t ro_round(ro_play_t *g, int i)
{
    int k = (i + g->x) % g->q;
    for (int r = 1; r < g->p; r++) {
        int b = ro_block(g, r, i), s = (r - g->skip[k] + g->p) % g->p;
        g->arrive[r] = b;
        if (b < 0) continue;
        if (!g->have[(size_t)s * (size_t)g->n + (size_t)b]) return SL_ERR_PROTO;
        if (r == g->me || s == g->me)
            g->xf[g->nx++] = (coll_ro_xfer_t){.round = i, .block = b, .send = s == g->me,
                                              .peer = s == g->me ? r : s};
    }
    for (int r = 1; r < g->p; r++)
        if (g->arrive[r] >= 0) g->have[(size_t)r * (size_t)g->n + (size_t)g->arrive[r]] = 1;
    return SL_OK;
}

static sl_status_t ro_play(ro_play_t *g)
{
    int rounds = coll_roundopt_rounds(g->p, g->n);
    for (int i = 0; i < rounds; i++) {
        sl_status_t st = ro_round(g, i);
        if (st != SL_OK) return st;
    }
    for (size_t i = 0; i < (size_t)g->p * (size_t)g->n; i++)
        if (!g->have[i]) return SL_ERR_PROTO;
    return SL_OK;
}

sl_status_t coll_roundopt_plan(int p, int nblk, int me, coll_ro_xfer_t **out, int *nout)
{
    if (!out || !nout || p < 1 || p > COLL_ROUNDOPT_PMAX || nblk < 1 || me < 0 || me >= p)
        return SL_ERR_INVALID;
    *out = NULL;
    *nout = 0;
    if (p == 1) return SL_OK;
    ro_play_t g = {.p = p, .q = log2_ceil(p), .n = nblk, .me = me, .tab = coll_roundopt_tab[p]};
    g.x = (g.q - (nblk - 1) % g.q) % g.q;
    g.skip[g.q] = p;
    for (int k = g.q - 1; k >= 0; k--) g.skip[k] = g.skip[k + 1] - g.skip[k + 1] / 2;
    /* rank 0 holds everything; every other rank receives each block once,
     * and me sends at most one block per round */
    size_t most = (size_t)nblk + (size_t)coll_roundopt_rounds(p, nblk);
    g.have = calloc((size_t)p * (size_t)nblk, 1);
    g.arrive = malloc(sizeof(int) * (size_t)p);
    g.xf = malloc(sizeof(coll_ro_xfer_t) * most);
    sl_status_t st = g.have && g.arrive && g.xf ? SL_OK : SL_ERR_NOMEM;
    if (st == SL_OK) {
        for (int b = 0; b < nblk; b++) g.have[b] = 1;
        st = ro_play(&g);
    }
    free(g.have);
    free(g.arrive);
    if (st != SL_OK) {
        free(g.xf);
        return st;
    }
    *out = g.xf;
    *nout = g.nx;
    return SL_OK;
}
