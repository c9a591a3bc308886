/* Reduce_scatter (pairwise exchange; scatter after reduce) and Scan and
 * Exscan (pipelined chain), paper 004 Table I. */
#include "coll/coll_int.h"

#include <stdlib.h>

/* Pairwise exchange: block j of the vector goes to rank j; the rank
 * combines the n contributions to its block in rank order (a chain of
 * reductions through the slots, the accumulator moving into each next
 * slot: acc op slot). */
static sl_status_t rs_pairwise(coll_sched_t *s, const size_t *boff, const size_t *counts,
                               bool inplace)
{
    int n = s->size, r = s->rank;
    size_t es = s->op->esize, mine = counts[r] * es;
    coll_ref_t own = inplace ? COLL_REF(COLL_RBUF, 0) : COLL_REF(COLL_SBUF, 0);
    size_t slots = cs_tmp(s, mine * (size_t)n);
    int sent = cs_nop(s), acc = -1;
    for (int j = 1; j < n; j++) {
        int to = (r + j) % n;
        cs_dep(s, cs_send(s, COLL_REF_ADD(own, boff[to]), counts[to] * es, to, 0), sent);
    }
    for (int j = 0; j < n; j++) {
        coll_ref_t slot = COLL_REF(COLL_TMP, slots + (size_t)j * mine);
        int got = j == r ? cs_copy(s, COLL_REF_ADD(own, boff[r]), slot, mine)
                         : cs_recv(s, slot, mine, j, 0);
        if (j > 0) {
            int red = cs_reduce(s, COLL_REF(COLL_TMP, slots + (size_t)(j - 1) * mine), slot, counts[r]);
            cs_dep(s, got, red);
            cs_dep(s, acc, red);
            got = red;
        }
        acc = got;
    }
    int out = cs_copy(s, COLL_REF(COLL_TMP, slots + (size_t)(n - 1) * mine), COLL_REF(COLL_RBUF, 0), mine);
    cs_dep(s, acc, out);
    cs_dep(s, sent, out); /* in place the sends read RBUF */
    return SL_OK;
}

/* Reduce the whole vector to rank 0 (k-nomial tree), which scatters it. */
static sl_status_t rs_reduce_scatter(coll_sched_t *s, const coll_alg_t *a, const size_t *boff,
                                     const size_t *counts, size_t total, bool inplace)
{
    int n = s->size, r = s->rank;
    size_t es = s->op->esize;
    coll_alg_t t = {.variant = CA_KNOMIAL, .k = a->k, .seg = a->seg, .window = a->window};
    coll_ref_t own = inplace ? COLL_REF(COLL_RBUF, 0) : COLL_REF(COLL_SBUF, 0);
    coll_ref_t full = r == 0 ? COLL_REF(COLL_TMP, cs_tmp(s, total * es)) : COLL_REF(COLL_TMP, 0);
    sl_status_t st = cg_reduce_to(s, &t, total, 0, own, full, -1);
    if (st != SL_OK) return st;
    int gate = cs_join(s);
    if (r != 0) {
        cs_dep(s, gate, cs_recv(s, COLL_REF(COLL_RBUF, 0), counts[r] * es, 0, CT_PHASE(1)));
        return SL_OK;
    }
    for (int j = 1; j < n; j++)
        cs_dep(s, gate, cs_send(s, COLL_REF_ADD(full, boff[j] * es), counts[j] * es, j, CT_PHASE(1)));
    cs_dep(s, gate, cs_copy(s, full, COLL_REF(COLL_RBUF, 0), counts[0] * es));
    return SL_OK;
}

sl_status_t cg_reduce_scatter(coll_sched_t *s, const coll_alg_t *a, const size_t *counts,
                              bool inplace)
{
    int n = s->size;
    size_t *boff = malloc(sizeof(size_t) * (size_t)n), total = 0;
    if (!boff) return SL_ERR_NOMEM;
    for (int j = 0; j < n; j++) {
        boff[j] = total * s->op->esize;
        total += counts[j];
    }
    sl_status_t st;
    if (n == 1) {
        st = SL_OK;
        if (!inplace)
            cs_copy(s, COLL_REF(COLL_SBUF, 0), COLL_REF(COLL_RBUF, 0), counts[0] * s->op->esize);
    } else if (a->variant == CA_PAIRWISE) {
        st = rs_pairwise(s, boff, counts, inplace);
    } else if (a->variant == CA_REDUCE_SCATTERV) {
        for (int j = 0; j < n; j++) boff[j] /= s->op->esize; /* in elements */
        st = rs_reduce_scatter(s, a, boff, counts, total, inplace);
    } else {
        st = SL_ERR_INVALID;
    }
    free(boff);
    return st;
}

/* The chain: rank r gets the prefix of ranks 0..r-1 from r - 1 segment by
 * segment, combines it with its own (prefix op own: rank order), and
 * passes the new prefix on.  Exscan delivers the incoming prefix. */
sl_status_t cg_scan(coll_sched_t *s, const coll_alg_t *a, size_t count, bool inplace,
                    bool exclusive)
{
    int n = s->size, r = s->rank;
    size_t es = s->op->esize, len = count * es;
    if (a->variant != CA_LINEAR) return SL_ERR_INVALID;
    size_t nseg, seg = coll_seg_of(a, len, es, &nseg);
    coll_ref_t rbuf = COLL_REF(COLL_RBUF, 0), own = inplace ? rbuf : COLL_REF(COLL_SBUF, 0);
    size_t t1 = r > 0 ? cs_tmp(s, len) : 0, t2 = r > 0 && r < n - 1 ? cs_tmp(s, len) : 0;
    for (size_t i = 0; i < nseg; i++) {
        size_t off = i * seg, l = len - off < seg ? len - off : seg, ec = l / es;
        coll_ref_t mine = COLL_REF_ADD(own, off), out = COLL_REF_ADD(rbuf, off);
        uint32_t tag = (uint32_t)i;
        if (!exclusive) {
            int cp = inplace ? -1 : cs_copy(s, mine, out, l), ready = cp;
            if (r > 0) {
                coll_ref_t in = COLL_REF(COLL_TMP, t1 + off);
                int rv = cs_recv(s, in, l, r - 1, tag);
                ready = cs_reduce(s, in, out, ec);
                cs_dep(s, rv, ready);
                cs_dep(s, cp, ready);
            }
            if (r < n - 1) cs_dep(s, ready, cs_send(s, out, l, r + 1, tag));
            continue;
        }
        if (r == 0) {
            if (n > 1) cs_send(s, mine, l, 1, tag);
            continue;
        }
        /* keep the own operand: in place, the prefix lands on it */
        coll_ref_t keep = mine;
        int kept = -1;
        if (inplace) {
            keep = COLL_REF(COLL_TMP, t1 + off);
            kept = cs_copy(s, mine, keep, l);
        }
        int rv = cs_recv(s, out, l, r - 1, tag);
        cs_dep(s, kept, rv);
        if (r < n - 1) {
            coll_ref_t next = COLL_REF(COLL_TMP, t2 + off);
            int cp = cs_copy(s, keep, next, l);
            cs_dep(s, kept, cp);
            int red = cs_reduce(s, out, next, ec);
            cs_dep(s, rv, red);
            cs_dep(s, cp, red);
            cs_dep(s, red, cs_send(s, next, l, r + 1, tag));
        }
    }
    return SL_OK;
}

/* The neighbour collectives: every send and receive at once (MPI 3.1
 * §7.6); the tags keep several edges between one pair apart. */
sl_status_t cg_neighbor(coll_sched_t *s, const coll_nbr_t *nb)
{
    for (int i = 0; i < nb->nin; i++)
        if (nb->in[i] >= 0)
            cs_recv(s, COLL_REF(COLL_RBUF, nb->rlay->off[i]), nb->rlay->len[i], nb->in[i],
                    (uint32_t)nb->intag[i]);
    for (int j = 0; j < nb->nout; j++)
        if (nb->out[j] >= 0)
            cs_send(s, COLL_REF(COLL_SBUF, nb->slay ? nb->slay->off[j] : 0),
                    nb->slay ? nb->slay->len[j] : nb->sendlen, nb->out[j], (uint32_t)nb->outtag[j]);
    return SL_OK;
}
