/* Rooted collectives on trees (paper 004 Table I): Bcast, Reduce, Gather,
 * Scatter over the pipelined k-ary, k-nomial, chain and flat trees of
 * tree.c, the van de Geijn broadcast (scatter, then ring allgather), and
 * the direct (flat) Gatherv and Scatterv.
 *
 * Virtual rank v = (rank - root) mod n puts the root at 0.  Pipelining is
 * per segment: segment i of a message is its own send/recv pair with tag
 * i, so a node forwards segment i while segment i + 1 is still arriving;
 * a window bounds the sends in flight towards each child. */
#include "coll/coll_int.h"
#include "coll/roundopt.h"

#include <stdlib.h>

static int real(int v, int root, int n)
{
    return (v + root) % n;
}

static coll_tree_kind_t tree_kind(int variant)
{
    switch (variant) {
    case CA_KARY: return CT_KARY;
    case CA_CHAIN: return CT_CHAIN;
    case CA_FLAT: return CT_FLAT;
    default: return CT_KNOMIAL;
    }
}

size_t coll_seg_of(const coll_alg_t *a, size_t len, size_t unit, size_t *nseg)
{
    size_t seg = a->seg, least = (len + COLL_MAX_SEGS - 1) / COLL_MAX_SEGS;
    if (seg && seg < least) seg = least;
    seg = seg / unit * unit;
    if (seg == 0 || seg >= len) seg = len ? len : 1;
    *nseg = len ? (len + seg - 1) / seg : 1;
    return seg;
}

/* How many virtual ranks node v's subtree spans. */
static int span_of(coll_tree_kind_t kind, int k, int n, int v)
{
    coll_tree_t t;
    coll_tree(kind, k, n, v, &t);
    return t.span;
}

/* ---- Bcast ------------------------------------------------------------------------------------ */

/* The tree broadcast of RBUF's len bytes from virtual root 0 of the n
 * ranks mapped by root; segment i is tagged i. */
static sl_status_t bcast_tree(coll_sched_t *s, const coll_alg_t *a, size_t len, int root)
{
    int n = s->size;
    coll_tree_t t;
    coll_tree(tree_kind(a->variant), a->k, n, (s->rank - root + n) % n, &t);
    size_t nseg, seg = coll_seg_of(a, len, 1, &nseg);
    size_t w = a->window > 0 ? (size_t)a->window : nseg;
    int *sent = t.nchild ? malloc(sizeof(int) * nseg * (size_t)t.nchild) : NULL;
    if (t.nchild && !sent) return SL_ERR_NOMEM;
    for (size_t i = 0; i < nseg; i++) {
        size_t off = i * seg, l = len - off < seg ? len - off : seg;
        coll_ref_t buf = COLL_REF(COLL_RBUF, off);
        int rv = t.parent >= 0 ? cs_recv(s, buf, l, real(t.parent, root, n), (uint32_t)i) : -1;
        for (int c = 0; c < t.nchild; c++) {
            int sv = cs_send(s, buf, l, real(t.child[c], root, n), (uint32_t)i);
            cs_dep(s, rv, sv);
            if (i >= w) cs_dep(s, sent[(size_t)c * nseg + i - w], sv);
            sent[(size_t)c * nseg + i] = sv;
        }
    }
    free(sent);
    return SL_OK;
}

/* van de Geijn: the root scatters n pieces down a binomial tree, then a
 * ring allgather completes them everywhere (for long messages: every byte
 * crosses each link about twice, not log n times). */
static sl_status_t bcast_scatter_allgather(coll_sched_t *s, size_t len, int root)
{
    int n = s->size, vr = (s->rank - root + n) % n;
    size_t piece = (len + (size_t)n - 1) / (size_t)n;
#define PIECE_OFF(v) ((size_t)(v) * piece < len ? (size_t)(v) * piece : len)
#define PIECE_END(v) PIECE_OFF((v) + 1)
    coll_tree_t t;
    coll_tree(CT_KNOMIAL, 2, n, vr, &t);
    /* scatter: each node receives the pieces of its subtree, sends on each
     * child's share */
    int rv = -1, scattered = cs_nop(s);
    size_t lo = PIECE_OFF(vr), hi = PIECE_OFF(vr + t.span);
    if (t.parent >= 0 && hi > lo) {
        rv = cs_recv(s, COLL_REF(COLL_RBUF, lo), hi - lo, real(t.parent, root, n), 0);
        cs_dep(s, rv, scattered);
    }
    for (int c = 0; c < t.nchild; c++) {
        size_t clo = PIECE_OFF(t.child[c]);
        size_t chi = PIECE_OFF(t.child[c] + span_of(CT_KNOMIAL, 2, n, t.child[c]));
        if (chi <= clo) continue;
        int sv = cs_send(s, COLL_REF(COLL_RBUF, clo), chi - clo, real(t.child[c], root, n), 0);
        cs_dep(s, rv, sv);
        cs_dep(s, sv, scattered);
    }
    /* ring allgather of the pieces in virtual ranks; the root has them all
     * already, so nobody sends to it and it receives nothing */
    int right = real((vr + 1) % n, root, n), left = real((vr - 1 + n) % n, root, n);
    int have = rv; /* the piece the next step sends has arrived */
    for (int step = 0; step < n - 1; step++) {
        int sp = (vr - step + n) % n, rp = (vr - step - 1 + n) % n;
        int r2 = -1;
        if (PIECE_END(sp) > PIECE_OFF(sp) && (vr + 1) % n != 0) {
            int sv = cs_send(s, COLL_REF(COLL_RBUF, PIECE_OFF(sp)), PIECE_END(sp) - PIECE_OFF(sp),
                             right, CT_PHASE(1) + (uint32_t)step);
            cs_dep(s, have, sv);
        }
        if (PIECE_END(rp) > PIECE_OFF(rp) && vr != 0) {
            r2 = cs_recv(s, COLL_REF(COLL_RBUF, PIECE_OFF(rp)), PIECE_END(rp) - PIECE_OFF(rp), left,
                         CT_PHASE(1) + (uint32_t)step);
            cs_dep(s, scattered, r2); /* never into memory the scatter still reads */
        }
        have = r2;
    }
#undef PIECE_OFF
#undef PIECE_END
    return SL_OK;
}

/* Round-optimal: n blocks in n - 1 + ceil(log2 p) rounds (roundopt.c);
 * block i is tagged i, a send waits for its block's receive.  Without a
 * segment size the blocks are coll_roundopt_block's. */
static sl_status_t bcast_roundopt(coll_sched_t *s, const coll_alg_t *a, size_t len, int root)
{
    int n = s->size, vr = (s->rank - root + n) % n;
    coll_alg_t seg_alg = *a;
    if (!seg_alg.seg) seg_alg.seg = coll_roundopt_block(n, len);
    size_t nseg, seg = coll_seg_of(&seg_alg, len, 1, &nseg);
    coll_ro_xfer_t *xf;
    int nx;
    /* more ranks than the table has (SL_ERR_INVALID): the caller falls back */
    sl_status_t st = coll_roundopt_plan(n, (int)nseg, vr, &xf, &nx);
    if (st != SL_OK) return st == SL_ERR_PROTO ? SL_ERR_INVALID : st;
    int *got = malloc(sizeof(int) * nseg);
    if (!got) {
        free(xf);
        return SL_ERR_NOMEM;
    }
    for (size_t i = 0; i < nseg; i++) got[i] = -1; /* the root holds every block */
    for (int i = 0; i < nx; i++) {
        size_t b = (size_t)xf[i].block, off = b * seg, l = len - off < seg ? len - off : seg;
        coll_ref_t buf = COLL_REF(COLL_RBUF, off);
        int peer = real(xf[i].peer, root, n);
        if (xf[i].send) cs_dep(s, got[b], cs_send(s, buf, l, peer, (uint32_t)b));
        else got[b] = cs_recv(s, buf, l, peer, (uint32_t)b);
    }
    free(got);
    free(xf);
    return SL_OK;
}

sl_status_t cg_bcast(coll_sched_t *s, const coll_alg_t *a, size_t len, int root)
{
    if (s->size == 1) return SL_OK;
    if (a->variant == CA_SCATTER_ALLGATHER) return bcast_scatter_allgather(s, len, root);
    if (a->variant == CA_ROUNDOPT) return bcast_roundopt(s, a, len, root);
    if (a->variant > CA_FLAT) return SL_ERR_INVALID;
    return bcast_tree(s, a, len, root);
}

/* ---- Reduce ----------------------------------------------------------------------------------- */

/* The tree reduction towards virtual root 0 of ranks mapped by root.
 * Operands combine in virtual rank order (the subtrees are contiguous
 * runs): with root 0 that is rank order, as a non-commutative op needs.
 * The accumulator of a segment starts as the rank's own data and moves
 * into each child's scratch as it is combined (in = acc, inout = child's
 * part: acc op child), so the send buffer is never written.  At the
 * virtual root the result is copied to RBUF, or sent to fwd when fwd >= 0
 * (the non-commutative reduce whose root is not rank 0). */
static sl_status_t reduce_tree(coll_sched_t *s, const coll_alg_t *a, size_t count, int root,
                               bool inplace, int fwd)
{
    return cg_reduce_to(s, a, count, root, inplace ? COLL_REF(COLL_RBUF, 0) : COLL_REF(COLL_SBUF, 0),
                        COLL_REF(COLL_RBUF, 0), fwd);
}

sl_status_t cg_reduce_to(coll_sched_t *s, const coll_alg_t *a, size_t count, int root,
                         coll_ref_t own, coll_ref_t dst, int fwd)
{
    int n = s->size;
    size_t es = s->op->esize, len = count * es;
    coll_tree_t t;
    coll_tree(tree_kind(a->variant), a->k, n, (s->rank - root + n) % n, &t);
    size_t nseg, seg = coll_seg_of(a, len, es, &nseg);
    size_t scratch = t.nchild ? cs_tmp(s, len * (size_t)t.nchild) : 0;
    for (size_t i = 0; i < nseg; i++) {
        size_t off = i * seg, l = len - off < seg ? len - off : seg;
        coll_ref_t acc = COLL_REF_ADD(own, off);
        int accv = -1;
        for (int c = 0; c < t.nchild; c++) {
            coll_ref_t slot = COLL_REF(COLL_TMP, scratch + (size_t)c * len + off);
            /* the root's last child straight into the result (acc op it
             * lands there: no copy at the end), unless the own operand
             * lives there (in place): the receive is posted at once */
            if (t.parent < 0 && fwd < 0 && c == t.nchild - 1 &&
                COLL_REF_BASE(own) != COLL_REF_BASE(dst))
                slot = COLL_REF_ADD(dst, off);
            int rv = cs_recv(s, slot, l, real(t.child[c], root, n), (uint32_t)i);
            int red = cs_reduce(s, acc, slot, l / es);
            cs_dep(s, rv, red);
            cs_dep(s, accv, red);
            acc = slot;
            accv = red;
        }
        if (t.parent >= 0) {
            cs_dep(s, accv, cs_send(s, acc, l, real(t.parent, root, n), (uint32_t)i));
        } else if (fwd >= 0) {
            cs_dep(s, accv, cs_send(s, acc, l, fwd, CT_PHASE(1) + (uint32_t)i));
        } else if (acc != COLL_REF_ADD(dst, off)) {
            cs_dep(s, accv, cs_copy(s, acc, COLL_REF_ADD(dst, off), l));
        }
    }
    return SL_OK;
}

sl_status_t cg_reduce(coll_sched_t *s, const coll_alg_t *a, size_t count, int root, bool inplace)
{
    if (a->variant > CA_FLAT) return SL_ERR_INVALID;
    if (s->size == 1) {
        if (!inplace) cs_copy(s, COLL_REF(COLL_SBUF, 0), COLL_REF(COLL_RBUF, 0), count * s->op->esize);
        return SL_OK;
    }
    if (s->op->commute || root == 0) return reduce_tree(s, a, count, root, inplace, -1);
    /* rank order needs the tree rooted at rank 0, which hands the result
     * on; the root's own operand (in RBUF when in place) is read by its
     * tree vertices before the result lands there */
    sl_status_t st = reduce_tree(s, a, count, 0, inplace, s->rank == 0 ? root : -1);
    if (st != SL_OK || s->rank != root) return st;
    int before = cs_join(s);
    size_t es = s->op->esize, len = count * es, nseg, seg = coll_seg_of(a, len, es, &nseg);
    for (size_t i = 0; i < nseg; i++) {
        size_t off = i * seg, l = len - off < seg ? len - off : seg;
        cs_dep(s, before, cs_recv(s, COLL_REF(COLL_RBUF, off), l, 0, CT_PHASE(1) + (uint32_t)i));
    }
    return SL_OK;
}

/* ---- Gather and Scatter ----------------------------------------------------------------------- */

/* Blocks between rank order (at rank) and virtual order (at virt): virtual
 * [0, n - root) are ranks [root, n), the rest wrap to ranks [0, root).
 * Both copies depend on after; returns a nop that completes with them. */
static int rotate(coll_sched_t *s, coll_ref_t rank, coll_ref_t virt, size_t blen, int root,
                  bool to_virtual, int after)
{
    size_t hi = (size_t)(s->size - root) * blen, lo = (size_t)root * blen;
    coll_ref_t r_hi = COLL_REF_ADD(rank, lo), v_lo = COLL_REF_ADD(virt, hi);
    int done = cs_nop(s);
    int a = to_virtual ? cs_copy(s, r_hi, virt, hi) : cs_copy(s, virt, r_hi, hi);
    int b = to_virtual ? cs_copy(s, rank, v_lo, lo) : cs_copy(s, v_lo, rank, lo);
    cs_dep(s, after, a);
    cs_dep(s, after, b);
    cs_dep(s, a, done);
    cs_dep(s, b, done);
    return done;
}

/* A node of the tree holds its subtree's blocks in virtual rank order: the
 * root in RBUF when root is rank 0 (virtual order is rank order), else in
 * scratch, rotated into RBUF at the end; other nodes in scratch, a leaf
 * straight from SBUF. */
sl_status_t cg_gather(coll_sched_t *s, const coll_alg_t *a, size_t blen, int root, bool inplace)
{
    int n = s->size, vr = (s->rank - root + n) % n;
    if (a->variant > CA_FLAT) return SL_ERR_INVALID;
    coll_tree_t t;
    coll_tree(tree_kind(a->variant), a->k, n, vr, &t);
    bool is_root = t.parent < 0;
    coll_ref_t mine = inplace ? COLL_REF(COLL_RBUF, (size_t)s->rank * blen) : COLL_REF(COLL_SBUF, 0);
    if (!is_root && t.nchild == 0) {
        cs_send(s, mine, blen, real(t.parent, root, n), 0);
        return SL_OK;
    }
    coll_ref_t buf = is_root && root == 0 ? COLL_REF(COLL_RBUF, 0)
                                          : COLL_REF(COLL_TMP, cs_tmp(s, blen * (size_t)t.span));
    int own = buf == mine ? -1 : cs_copy(s, mine, buf, blen);
    int last = cs_nop(s);
    cs_dep(s, own, last);
    for (int c = 0; c < t.nchild; c++) {
        size_t span = (size_t)span_of(tree_kind(a->variant), a->k, n, t.child[c]);
        cs_dep(s, cs_recv(s, COLL_REF_ADD(buf, (size_t)(t.child[c] - vr) * blen), blen * span,
                          real(t.child[c], root, n), 0),
               last);
    }
    if (!is_root) cs_dep(s, last, cs_send(s, buf, blen * (size_t)t.span, real(t.parent, root, n), 0));
    else if (root != 0) rotate(s, COLL_REF(COLL_RBUF, 0), buf, blen, root, false, last);
    return SL_OK;
}

sl_status_t cg_scatter(coll_sched_t *s, const coll_alg_t *a, size_t blen, int root, bool inplace)
{
    int n = s->size, vr = (s->rank - root + n) % n;
    if (a->variant > CA_FLAT) return SL_ERR_INVALID;
    coll_tree_t t;
    coll_tree(tree_kind(a->variant), a->k, n, vr, &t);
    bool is_root = t.parent < 0;
    if (!is_root && t.nchild == 0) { /* a leaf: straight into RBUF */
        cs_recv(s, COLL_REF(COLL_RBUF, 0), blen, real(t.parent, root, n), 0);
        return SL_OK;
    }
    coll_ref_t buf;
    int have = -1;
    if (is_root && root == 0) {
        buf = COLL_REF(COLL_SBUF, 0);
    } else {
        buf = COLL_REF(COLL_TMP, cs_tmp(s, blen * (size_t)t.span));
        have = is_root ? rotate(s, COLL_REF(COLL_SBUF, 0), buf, blen, root, true, -1)
                       : cs_recv(s, buf, blen * (size_t)t.span, real(t.parent, root, n), 0);
    }
    for (int c = 0; c < t.nchild; c++) {
        size_t span = (size_t)span_of(tree_kind(a->variant), a->k, n, t.child[c]);
        cs_dep(s, have,
               cs_send(s, COLL_REF_ADD(buf, (size_t)(t.child[c] - vr) * blen), blen * span,
                       real(t.child[c], root, n), 0));
    }
    if (!(is_root && inplace)) cs_dep(s, have, cs_copy(s, buf, COLL_REF(COLL_RBUF, 0), blen));
    return SL_OK;
}

/* Gatherv/Scatterv: the root talks to every rank directly (only the root
 * knows every block's size, so no tree can forward them). */
sl_status_t cg_gatherv(coll_sched_t *s, const coll_layout_t *lay, size_t mylen, int root,
                       bool inplace)
{
    if (s->rank != root) {
        cs_send(s, COLL_REF(COLL_SBUF, 0), mylen, root, 0);
        return SL_OK;
    }
    for (int r = 0; r < s->size; r++) {
        coll_ref_t at = COLL_REF(COLL_RBUF, lay->off[r]);
        if (r != root) cs_recv(s, at, lay->len[r], r, 0);
        else if (!inplace) cs_copy(s, COLL_REF(COLL_SBUF, 0), at, lay->len[r]);
    }
    return SL_OK;
}

sl_status_t cg_scatterv(coll_sched_t *s, const coll_layout_t *lay, size_t mylen, int root,
                        bool inplace)
{
    if (s->rank != root) {
        cs_recv(s, COLL_REF(COLL_RBUF, 0), mylen, root, 0);
        return SL_OK;
    }
    for (int r = 0; r < s->size; r++) {
        coll_ref_t at = COLL_REF(COLL_SBUF, lay->off[r]);
        if (r != root) cs_send(s, at, lay->len[r], r, 0);
        else if (!inplace) cs_copy(s, at, COLL_REF(COLL_RBUF, 0), lay->len[r]);
    }
    return SL_OK;
}
