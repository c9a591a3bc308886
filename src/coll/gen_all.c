/* Collectives where every rank ends with a result (paper 004 Table I, plus
 * the ring allreduce and the Bruck alltoall the issue adds):
 *
 *   Barrier    butterfly, pairwise exchange, dissemination, bcast after reduce
 *   Allreduce  butterfly (recursive doubling), dissemination, bcast after
 *              reduce, ring (reduce-scatter + allgather, long vectors)
 *   Allgather  ring, butterfly, pairwise exchange, dissemination, bcast after gather
 *   Alltoall   pairwise exchange (a window of steps in flight), Bruck
 *
 * Butterflies on a size that is not a power of two fold the first 2 * rem
 * ranks in pairs first (MPICH's scheme): the even one hands its part to the
 * odd one, which stands for both, and gets the result back at the end.
 * That keeps rank order, so the butterfly allreduce serves
 * non-commutative ops; the dissemination and ring allreduces do not. */
#include "coll/coll_int.h"

#include <stdlib.h>

static int pow2_below(int n)
{
    int p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
}

/* The fold: the rank's new rank among the p2 (or -1 for an even rank that
 * hands its part over), and the rank standing for new rank v. */
static int fold_new(int r, int rem)
{
    if (r < 2 * rem) return r % 2 ? r / 2 : -1;
    return r - rem;
}

static int fold_old(int v, int rem)
{
    return v < rem ? 2 * v + 1 : v + rem;
}

/* Messages for blocks [lo, hi) of lay in RBUF to or from peer, blocks that
 * touch in memory merged into one; zero-length ones skipped.  Each depends
 * on dep; returns a nop that completes with all of them.  Tags count up
 * from *tag (both sides see the same blocks, so they agree). */
static int blocks(coll_sched_t *s, bool send, const coll_layout_t *lay, int lo, int hi, int peer,
                  uint32_t *tag, int dep)
{
    int all = cs_nop(s);
    for (int i = lo; i < hi;) {
        size_t off = lay->off[i], len = lay->len[i];
        int j = i + 1;
        while (j < hi && lay->off[j] == off + len) len += lay->len[j++];
        i = j;
        if (len == 0) continue;
        coll_ref_t at = COLL_REF(COLL_RBUF, off);
        int v = send ? cs_send(s, at, len, peer, (*tag)++) : cs_recv(s, at, len, peer, (*tag)++);
        cs_dep(s, dep, v);
        cs_dep(s, v, all);
    }
    return all;
}

/* Sends of blocks [lo, hi) to peer after dep, as blocks() makes them; but
 * the own block alone, when the call is not in place, goes straight from
 * SBUF and waits for nothing (dep is then the copy of it into RBUF, which
 * runs meanwhile: a 2-rank 256 KiB allgather copied 256 KiB before it
 * sent). */
static int send_blocks(coll_sched_t *s, const coll_layout_t *lay, bool inplace, int lo, int hi,
                       int peer, uint32_t *tag, int dep)
{
    int r = s->rank;
    if (inplace || lo != r || hi != r + 1) return blocks(s, true, lay, lo, hi, peer, tag, dep);
    int all = cs_nop(s);
    if (lay->len[r])
        cs_dep(s, cs_send(s, COLL_REF(COLL_SBUF, 0), lay->len[r], peer, (*tag)++), all);
    return all;
}

/* Blocks [lo, lo + cnt) modulo n: at most two runs. */
static int blocks_mod(coll_sched_t *s, bool send, const coll_layout_t *lay, int lo, int cnt, int peer,
                      uint32_t *tag, int dep)
{
    int n = s->size, all = cs_nop(s);
    lo %= n;
    int first = lo + cnt <= n ? cnt : n - lo;
    cs_dep(s, blocks(s, send, lay, lo, lo + first, peer, tag, dep), all);
    if (first < cnt) cs_dep(s, blocks(s, send, lay, 0, cnt - first, peer, tag, dep), all);
    return all;
}

/* ---- Barrier ---------------------------------------------------------------------------------- */

static void barrier_dissemination(coll_sched_t *s)
{
    int n = s->size, r = s->rank, prev = -1;
    for (int k = 0, d = 1; d < n; k++, d *= 2) {
        int sv = cs_send(s, COLL_REF(COLL_RBUF, 0), 0, (r + d) % n, (uint32_t)k);
        int rv = cs_recv(s, COLL_REF(COLL_RBUF, 0), 0, (r - d + n) % n, (uint32_t)k);
        cs_dep(s, prev, sv);
        cs_dep(s, prev, rv);
        prev = cs_nop(s);
        cs_dep(s, sv, prev);
        cs_dep(s, rv, prev);
    }
}

static void barrier_butterfly(coll_sched_t *s)
{
    int n = s->size, r = s->rank, p2 = pow2_below(n), rem = n - p2, v = fold_new(r, rem);
    coll_ref_t z = COLL_REF(COLL_RBUF, 0);
    if (v < 0) { /* even folded rank: arrive, then wait for the release */
        cs_dep(s, cs_send(s, z, 0, r + 1, 0), cs_recv(s, z, 0, r + 1, CT_PHASE(2)));
        return;
    }
    int prev = r < 2 * rem ? cs_recv(s, z, 0, r - 1, 0) : -1;
    for (int mask = 1, k = 1; mask < p2; mask <<= 1, k++) {
        int peer = fold_old(v ^ mask, rem);
        int sv = cs_send(s, z, 0, peer, CT_PHASE(1) + (uint32_t)k);
        int rv = cs_recv(s, z, 0, peer, CT_PHASE(1) + (uint32_t)k);
        cs_dep(s, prev, sv);
        cs_dep(s, prev, rv);
        prev = cs_nop(s);
        cs_dep(s, sv, prev);
        cs_dep(s, rv, prev);
    }
    if (r < 2 * rem) cs_dep(s, prev, cs_send(s, z, 0, r - 1, CT_PHASE(2)));
}

static void barrier_pairwise(coll_sched_t *s)
{
    for (int i = 1; i < s->size; i++) {
        cs_send(s, COLL_REF(COLL_RBUF, 0), 0, (s->rank + i) % s->size, 0);
        cs_recv(s, COLL_REF(COLL_RBUF, 0), 0, (s->rank - i + s->size) % s->size, 0);
    }
}

/* Arrivals up a k-nomial tree to rank 0, the release down it. */
static void barrier_tree(coll_sched_t *s, int k)
{
    coll_tree_t t;
    coll_ref_t z = COLL_REF(COLL_RBUF, 0);
    coll_tree(CT_KNOMIAL, k, s->size, s->rank, &t);
    int up = cs_nop(s), down;
    for (int c = 0; c < t.nchild; c++) cs_dep(s, cs_recv(s, z, 0, t.child[c], 0), up);
    if (t.parent >= 0) {
        cs_dep(s, up, cs_send(s, z, 0, t.parent, 0));
        down = cs_recv(s, z, 0, t.parent, CT_PHASE(1));
        cs_dep(s, up, down);
    } else {
        down = up;
    }
    for (int c = 0; c < t.nchild; c++) cs_dep(s, down, cs_send(s, z, 0, t.child[c], CT_PHASE(1)));
}

sl_status_t cg_barrier(coll_sched_t *s, const coll_alg_t *a)
{
    if (s->size == 1) return SL_OK;
    switch (a->variant) {
    case CA_DISSEMINATION: barrier_dissemination(s); return SL_OK;
    case CA_BUTTERFLY: barrier_butterfly(s); return SL_OK;
    case CA_PAIRWISE: barrier_pairwise(s); return SL_OK;
    case CA_REDUCE_BCAST: barrier_tree(s, a->k < 2 ? 2 : a->k); return SL_OK;
    default: return SL_ERR_INVALID;
    }
}

/* ---- Allreduce -------------------------------------------------------------------------------- */

/* Recursive doubling, operands in rank order: at each step the lower part
 * is the op's first operand.  The accumulator starts as the own operand
 * (read only when it is SBUF) and lives in RBUF or a step's scratch. */
static void allreduce_butterfly(coll_sched_t *s, size_t count, bool inplace)
{
    int n = s->size, r = s->rank, p2 = pow2_below(n), rem = n - p2, v = fold_new(r, rem);
    size_t len = count * s->op->esize;
    coll_ref_t rbuf = COLL_REF(COLL_RBUF, 0), own = inplace ? rbuf : COLL_REF(COLL_SBUF, 0);
    if (v < 0) { /* hand the operand to r + 1, get the result back */
        int sv = cs_send(s, own, len, r + 1, 0);
        cs_dep(s, sv, cs_recv(s, rbuf, len, r + 1, CT_PHASE(2)));
        return;
    }
    coll_ref_t acc = own;
    int accv = -1; /* the last vertex that wrote or read acc */
    if (r < 2 * rem) { /* the odd rank of a pair: acc = left op own, in RBUF */
        size_t t = cs_tmp(s, len);
        int rv = cs_recv(s, COLL_REF(COLL_TMP, t), len, r - 1, 0);
        int cp = inplace ? -1 : cs_copy(s, own, rbuf, len);
        accv = cs_reduce(s, COLL_REF(COLL_TMP, t), rbuf, count);
        cs_dep(s, rv, accv);
        cs_dep(s, cp, accv);
        acc = rbuf;
    }
    bool comm = s->op->commute;
    for (int mask = 1, k = 1; mask < p2; mask <<= 1, k++) {
        int pv = v ^ mask, peer = fold_old(pv, rem), red;
        int sv = cs_send(s, acc, len, peer, CT_PHASE(1) + (uint32_t)k);
        cs_dep(s, accv, sv);
        if (COLL_REF_BASE(acc) == COLL_SBUF && (comm || pv > v)) {
            /* the first step: theirs straight into RBUF, ours op theirs
             * there (no scratch, no copy at the end) */
            int rv = cs_recv(s, rbuf, len, peer, CT_PHASE(1) + (uint32_t)k);
            red = cs_reduce(s, acc, rbuf, count);
            cs_dep(s, rv, red);
            acc = rbuf;
        } else {
            coll_ref_t in = COLL_REF(COLL_TMP, cs_tmp(s, len));
            int rv = cs_recv(s, in, len, peer, CT_PHASE(1) + (uint32_t)k);
            if (comm || pv < v) { /* theirs op ours, into ours: ours must be writable */
                int cp = -1;
                if (COLL_REF_BASE(acc) == COLL_SBUF) {
                    cp = cs_copy(s, acc, rbuf, len);
                    cs_dep(s, accv, cp);
                    acc = rbuf;
                }
                red = cs_reduce(s, in, acc, count);
                cs_dep(s, cp, red);
            } else { /* ours op theirs, into theirs */
                red = cs_reduce(s, acc, in, count);
                acc = in;
            }
            cs_dep(s, rv, red);
        }
        cs_dep(s, accv, red);
        cs_dep(s, sv, red);
        accv = red;
    }
    if (acc != rbuf) {
        int cp = cs_copy(s, acc, rbuf, len);
        cs_dep(s, accv, cp);
        accv = cp;
    }
    if (r < 2 * rem) cs_dep(s, accv, cs_send(s, rbuf, len, r - 1, CT_PHASE(2)));
}

/* Dissemination (commutative ops): after round i the rank holds W_{i+1},
 * the combination of the 2^(i+1) ranks ending at it.  Past the largest
 * power of two 2^K <= n the missing n - 2^K ranks come as the W_j of the
 * binary digits j of n - 2^K, each from the rank where its window ends. */
static void allreduce_dissemination(coll_sched_t *s, size_t count, bool inplace)
{
    int n = s->size, r = s->rank, K = 0;
    size_t len = count * s->op->esize;
    while ((1 << (K + 1)) <= n) K++;
    coll_ref_t *w = malloc(sizeof(coll_ref_t) * (size_t)(K + 1));
    int *wv = malloc(sizeof(int) * (size_t)(K + 1));
    if (!w || !wv) {
        free(w);
        free(wv);
        s->failed = true;
        return;
    }
    w[0] = inplace ? COLL_REF(COLL_RBUF, 0) : COLL_REF(COLL_SBUF, 0);
    wv[0] = -1;
    for (int i = 0; i < K; i++) {
        int d = 1 << i;
        coll_ref_t in = COLL_REF(COLL_TMP, cs_tmp(s, len));
        cs_dep(s, wv[i], cs_send(s, w[i], len, (r + d) % n, (uint32_t)i));
        int rv = cs_recv(s, in, len, (r - d + n) % n, (uint32_t)i);
        wv[i + 1] = cs_reduce(s, w[i], in, count);
        cs_dep(s, rv, wv[i + 1]);
        cs_dep(s, wv[i], wv[i + 1]);
        w[i + 1] = in;
    }
    coll_ref_t acc = w[K];
    int accv = wv[K], m = n - (1 << K), o = 1 << K;
    for (int j = K - 1; j >= 0; j--) {
        if (!(m & (1 << j))) continue;
        coll_ref_t in = COLL_REF(COLL_TMP, cs_tmp(s, len));
        cs_dep(s, wv[j], cs_send(s, w[j], len, (r + o) % n, CT_PHASE(1) + (uint32_t)j));
        int rv = cs_recv(s, in, len, (r - o + n) % n, CT_PHASE(1) + (uint32_t)j);
        int red = cs_reduce(s, acc, in, count);
        cs_dep(s, rv, red);
        cs_dep(s, accv, red);
        acc = in;
        accv = red;
        o += 1 << j;
    }
    /* in place, w[0] is RBUF: the last read of it must come first */
    int last = cs_join(s);
    if (acc != COLL_REF(COLL_RBUF, 0)) cs_dep(s, last, cs_copy(s, acc, COLL_REF(COLL_RBUF, 0), len));
    free(w);
    free(wv);
}

/* The ring (commutative ops, long vectors): a reduce-scatter around the
 * ring leaves block r + 1 complete at rank r, then an allgather around it
 * hands every block on. */
static sl_status_t allreduce_ring(coll_sched_t *s, size_t count, bool inplace)
{
    int n = s->size, r = s->rank, right = (r + 1) % n, left = (r - 1 + n) % n;
    size_t es = s->op->esize, len = count * es;
    if (count < (size_t)n) return SL_ERR_INVALID;
    size_t q = count / (size_t)n, extra = count % (size_t)n;
#define BOFF(b) (((size_t)(b) * q + ((size_t)(b) < extra ? (size_t)(b) : extra)) * es)
#define BLEN(b) ((q + ((size_t)(b) < extra)) * es)
    coll_ref_t rbuf = COLL_REF(COLL_RBUF, 0);
    int cp = inplace ? -1 : cs_copy(s, COLL_REF(COLL_SBUF, 0), rbuf, len);
    size_t tmp = cs_tmp(s, (q + 1) * es * (size_t)(n - 1));
    int prev = cp; /* the reduce that completed the block the next step sends */
    for (int st = 0; st < n - 1; st++) {
        int sb = (r - st + n) % n, rb = (r - st - 1 + n) % n;
        coll_ref_t in = COLL_REF(COLL_TMP, tmp + (size_t)st * (q + 1) * es);
        int sv = cs_send(s, COLL_REF_ADD(rbuf, BOFF(sb)), BLEN(sb), right, (uint32_t)st);
        cs_dep(s, prev, sv);
        int rv = cs_recv(s, in, BLEN(rb), left, (uint32_t)st);
        int red = cs_reduce(s, in, COLL_REF_ADD(rbuf, BOFF(rb)), BLEN(rb) / es);
        cs_dep(s, rv, red);
        cs_dep(s, cp, red);
        prev = red;
    }
    int gate = cs_join(s);
    for (int st = 0; st < n - 1; st++) {
        int sb = (r + 1 - st + n) % n, rb = (r - st + n) % n;
        int sv = cs_send(s, COLL_REF_ADD(rbuf, BOFF(sb)), BLEN(sb), right, CT_PHASE(1) + (uint32_t)st);
        cs_dep(s, gate, sv);
        cs_dep(s, prev, sv);
        int rv = cs_recv(s, COLL_REF_ADD(rbuf, BOFF(rb)), BLEN(rb), left, CT_PHASE(1) + (uint32_t)st);
        cs_dep(s, gate, rv);
        prev = rv;
    }
#undef BOFF
#undef BLEN
    return SL_OK;
}

sl_status_t cg_allreduce(coll_sched_t *s, const coll_alg_t *a, size_t count, bool inplace)
{
    size_t len = count * s->op->esize;
    if (s->size == 1) {
        if (!inplace) cs_copy(s, COLL_REF(COLL_SBUF, 0), COLL_REF(COLL_RBUF, 0), len);
        return SL_OK;
    }
    switch (a->variant) {
    case CA_BUTTERFLY: allreduce_butterfly(s, count, inplace); return SL_OK;
    case CA_DISSEMINATION:
        if (!s->op->commute) return SL_ERR_INVALID;
        allreduce_dissemination(s, count, inplace);
        return SL_OK;
    case CA_RING:
        if (!s->op->commute) return SL_ERR_INVALID;
        return allreduce_ring(s, count, inplace);
    case CA_REDUCE_BCAST: {
        coll_alg_t t = {.variant = CA_KNOMIAL, .k = a->k, .seg = a->seg, .window = a->window};
        sl_status_t st = cg_reduce(s, &t, count, 0, inplace);
        if (st != SL_OK) return st;
        int gate = cs_join(s);
        uint32_t from = s->nv;
        st = cg_bcast(s, &t, len, 0);
        cs_gate(s, gate, from);
        return st;
    }
    default: return SL_ERR_INVALID;
    }
}

/* ---- Allgather -------------------------------------------------------------------------------- */

static int own_block(coll_sched_t *s, const coll_layout_t *lay, bool inplace)
{
    if (inplace) return -1;
    return cs_copy(s, COLL_REF(COLL_SBUF, 0), COLL_REF(COLL_RBUF, lay->off[s->rank]),
                   lay->len[s->rank]);
}

static void allgather_ring(coll_sched_t *s, const coll_layout_t *lay, bool inplace)
{
    int n = s->size, r = s->rank, right = (r + 1) % n, left = (r - 1 + n) % n;
    int prev = own_block(s, lay, inplace);
    for (int st = 0; st < n - 1; st++) {
        uint32_t ts = (uint32_t)st * 2, tr = ts;
        int sb = (r - st + n) % n, rb = (r - st - 1 + n) % n;
        send_blocks(s, lay, inplace, sb, sb + 1, right, &ts, prev);
        prev = blocks(s, false, lay, rb, rb + 1, left, &tr, -1);
    }
}

static void allgather_pairwise(coll_sched_t *s, const coll_layout_t *lay, bool inplace)
{
    int n = s->size, r = s->rank, cp = own_block(s, lay, inplace);
    for (int st = 1; st < n; st++) {
        uint32_t ts = 0, tr = 0;
        send_blocks(s, lay, inplace, r, r + 1, (r + st) % n, &ts, cp);
        blocks(s, false, lay, (r - st + n) % n, (r - st + n) % n + 1, (r - st + n) % n, &tr, -1);
    }
}

/* Blocks that new rank v stands for (the fold): a run of old ranks. */
static void group_range(int g0, int gn, int rem, int *lo, int *hi)
{
    *lo = g0 < rem ? 2 * g0 : g0 + rem;
    int last = g0 + gn - 1;
    *hi = (last < rem ? 2 * last + 1 : last + rem) + 1;
}

static void allgather_butterfly(coll_sched_t *s, const coll_layout_t *lay, bool inplace)
{
    int n = s->size, r = s->rank, p2 = pow2_below(n), rem = n - p2, v = fold_new(r, rem);
    int prev = own_block(s, lay, inplace);
    uint32_t t0 = 0, t1 = 0;
    if (v < 0) { /* hand the own block to r + 1, get everything back */
        send_blocks(s, lay, inplace, r, r + 1, r + 1, &t0, prev);
        uint32_t tb = CT_PHASE(2);
        blocks(s, false, lay, 0, r, r + 1, &tb, -1);
        blocks(s, false, lay, r + 1, n, r + 1, &tb, -1);
        return;
    }
    if (r < 2 * rem) {
        int rv = blocks(s, false, lay, r - 1, r, r - 1, &t1, -1);
        int both = cs_nop(s);
        cs_dep(s, rv, both);
        cs_dep(s, prev, both);
        prev = both;
    }
    for (int mask = 1, k = 1; mask < p2; mask <<= 1, k++) {
        int pv = v ^ mask, peer = fold_old(pv, rem), lo, hi;
        uint32_t ts = CT_PHASE(1) + (uint32_t)k * 64, tr = ts;
        group_range(v & ~(mask - 1), mask, rem, &lo, &hi);
        int sv = send_blocks(s, lay, inplace, lo, hi, peer, &ts, prev);
        group_range(pv & ~(mask - 1), mask, rem, &lo, &hi);
        int rv = blocks(s, false, lay, lo, hi, peer, &tr, -1);
        int step = cs_nop(s);
        cs_dep(s, sv, step);
        cs_dep(s, rv, step);
        cs_dep(s, prev, step);
        prev = step;
    }
    if (r < 2 * rem) {
        uint32_t tb = CT_PHASE(2);
        blocks(s, true, lay, 0, r - 1, r - 1, &tb, prev);
        blocks(s, true, lay, r, n, r - 1, &tb, prev);
    }
}

/* Dissemination (Bruck's allgather without its rotation): after step i
 * the rank holds the 2^(i+1) blocks from its own on (mod n). */
static void allgather_dissemination(coll_sched_t *s, const coll_layout_t *lay, bool inplace)
{
    int n = s->size, r = s->rank, prev = own_block(s, lay, inplace);
    for (int i = 0, d = 1; d < n; i++, d *= 2) {
        int cnt = d < n - d ? d : n - d;
        uint32_t ts = (uint32_t)i * 8, tr = ts;
        int sv = i == 0 ? send_blocks(s, lay, inplace, r, r + 1, (r - d + n) % n, &ts, prev)
                        : blocks_mod(s, true, lay, r, cnt, (r - d + n) % n, &ts, prev);
        int rv = blocks_mod(s, false, lay, r + d, cnt, (r + d) % n, &tr, -1);
        int step = cs_nop(s);
        cs_dep(s, sv, step);
        cs_dep(s, rv, step);
        cs_dep(s, prev, step);
        prev = step;
    }
}

sl_status_t cg_allgather(coll_sched_t *s, const coll_alg_t *a, const coll_layout_t *lay,
                         bool inplace)
{
    if (s->size == 1) {
        own_block(s, lay, inplace);
        return SL_OK;
    }
    switch (a->variant) {
    case CA_RING: allgather_ring(s, lay, inplace); return SL_OK;
    case CA_PAIRWISE: allgather_pairwise(s, lay, inplace); return SL_OK;
    case CA_BUTTERFLY: allgather_butterfly(s, lay, inplace); return SL_OK;
    case CA_DISSEMINATION: allgather_dissemination(s, lay, inplace); return SL_OK;
    case CA_GATHER_BCAST: {
        /* regular blocks only: the result is one contiguous broadcast */
        size_t blen = lay->len[0];
        for (int i = 0; i < s->size; i++)
            if (lay->len[i] != blen || lay->off[i] != (size_t)i * blen) return SL_ERR_INVALID;
        coll_alg_t t = {.variant = CA_KNOMIAL, .k = a->k, .seg = a->seg, .window = a->window};
        sl_status_t st = cg_gather(s, &t, blen, 0, inplace);
        int gate = cs_join(s);
        uint32_t from = s->nv;
        if (st == SL_OK) st = cg_bcast(s, &t, blen * (size_t)s->size, 0);
        cs_gate(s, gate, from);
        return st;
    }
    default: return SL_ERR_INVALID;
    }
}

/* ---- Alltoall --------------------------------------------------------------------------------- */

static sl_status_t alltoall_pairwise(coll_sched_t *s, const coll_alg_t *a, const coll_layout_t *sl,
                                     const coll_layout_t *rl, bool inplace)
{
    int n = s->size, r = s->rank, w = a->window > 0 ? a->window : n;
    int *step = malloc(sizeof(int) * (size_t)n);
    if (!step) return SL_ERR_NOMEM;
    coll_ref_t src = COLL_REF(COLL_SBUF, 0);
    int first = -1;
    if (inplace) { /* send from a copy of RBUF, which the receives overwrite */
        size_t end = 0;
        for (int i = 0; i < n; i++)
            if (rl->off[i] + rl->len[i] > end) end = rl->off[i] + rl->len[i];
        src = COLL_REF(COLL_TMP, cs_tmp(s, end));
        first = cs_copy(s, COLL_REF(COLL_RBUF, 0), src, end);
        sl = rl;
    }
    for (int st = 0; st < n; st++) {
        int to = (r + st) % n, from = (r - st + n) % n, sv, rv;
        step[st] = cs_nop(s);
        if (st == 0) {
            sv = inplace ? -1 : cs_copy(s, COLL_REF_ADD(src, sl->off[r]),
                                        COLL_REF(COLL_RBUF, rl->off[r]), rl->len[r]);
            rv = -1;
        } else {
            sv = cs_send(s, COLL_REF_ADD(src, sl->off[to]), sl->len[to], to, 0);
            rv = cs_recv(s, COLL_REF(COLL_RBUF, rl->off[from]), rl->len[from], from, 0);
        }
        cs_dep(s, first, sv);
        cs_dep(s, first, rv);
        if (st >= w) {
            cs_dep(s, step[st - w], sv);
            cs_dep(s, step[st - w], rv);
        }
        cs_dep(s, sv, step[st]);
        cs_dep(s, rv, step[st]);
    }
    free(step);
    return SL_OK;
}

/* Bruck: rotate so that block i goes i ranks up, move every block whose
 * index has bit k set 2^k ranks up in step k (packed into one message),
 * then undo the rotation.  log2 n messages of about half the data each:
 * for short blocks, where the message count dominates. */
static sl_status_t alltoall_bruck(coll_sched_t *s, size_t blen, bool inplace)
{
    int n = s->size, r = s->rank;
    coll_ref_t src = inplace ? COLL_REF(COLL_RBUF, 0) : COLL_REF(COLL_SBUF, 0);
    coll_ref_t t = COLL_REF(COLL_TMP, cs_tmp(s, blen * (size_t)n));
    int have = cs_nop(s);
    /* t[i] = src[(r + i) % n] */
    cs_dep(s, cs_copy(s, COLL_REF_ADD(src, (size_t)r * blen), t, (size_t)(n - r) * blen), have);
    if (r) cs_dep(s, cs_copy(s, src, COLL_REF_ADD(t, (size_t)(n - r) * blen), (size_t)r * blen), have);
    for (int k = 0, d = 1; d < n; k++, d *= 2) {
        int cnt = 0;
        for (int i = 0; i < n; i++) cnt += (i & d) != 0;
        coll_ref_t out = COLL_REF(COLL_TMP, cs_tmp(s, blen * (size_t)cnt));
        coll_ref_t in = COLL_REF(COLL_TMP, cs_tmp(s, blen * (size_t)cnt));
        int packed = cs_nop(s), j = 0;
        for (int i = 0; i < n; i++)
            if (i & d) {
                int c = cs_copy(s, COLL_REF_ADD(t, (size_t)i * blen), COLL_REF_ADD(out, (size_t)j++ * blen), blen);
                cs_dep(s, have, c);
                cs_dep(s, c, packed);
            }
        cs_dep(s, packed, cs_send(s, out, blen * (size_t)cnt, (r + d) % n, (uint32_t)k));
        int rv = cs_recv(s, in, blen * (size_t)cnt, (r - d + n) % n, (uint32_t)k);
        int next = cs_nop(s);
        j = 0;
        for (int i = 0; i < n; i++)
            if (i & d) {
                int c = cs_copy(s, COLL_REF_ADD(in, (size_t)j++ * blen), COLL_REF_ADD(t, (size_t)i * blen), blen);
                cs_dep(s, rv, c);
                cs_dep(s, packed, c);
                cs_dep(s, c, next);
            }
        cs_dep(s, have, next);
        have = next;
    }
    /* RBUF[(r - i) mod n] = t[i]; in place, the rotation read RBUF first */
    for (int i = 0; i < n; i++)
        cs_dep(s, have, cs_copy(s, COLL_REF_ADD(t, (size_t)i * blen),
                                COLL_REF(COLL_RBUF, (size_t)((r - i + n) % n) * blen), blen));
    return SL_OK;
}

sl_status_t cg_alltoall(coll_sched_t *s, const coll_alg_t *a, const coll_layout_t *slay,
                        const coll_layout_t *rlay, bool inplace)
{
    if (a->variant == CA_BRUCK) {
        size_t blen = rlay->len[0];
        for (int i = 0; i < s->size; i++)
            if (rlay->len[i] != blen || rlay->off[i] != (size_t)i * blen ||
                (!inplace && (slay->len[i] != blen || slay->off[i] != (size_t)i * blen)))
                return SL_ERR_INVALID;
        return alltoall_bruck(s, blen, inplace);
    }
    if (a->variant != CA_PAIRWISE) return SL_ERR_INVALID;
    return alltoall_pairwise(s, a, slay, rlay, inplace);
}
