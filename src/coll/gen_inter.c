/* The collectives of intercommunicators (MPI 4.0 §6.2.2) as schedules:
 * the intracommunicator generators run over the local group (ranks
 * 0..size-1 of the schedule), and the steps between the groups are sends
 * and receives to the remote ranks (size + j), all in one DAG, so the
 * blocking, non-blocking and persistent forms and both executors work as
 * for intracommunicators.
 *
 * The plans (the same as MPICH's, chosen for the fewest messages between
 * the groups, which on a real network are the long hops):
 *   Barrier     local barrier; the leaders (rank 0) swap a token; local barrier
 *   Bcast       root -> remote leader; k-nomial bcast there
 *   Reduce      k-nomial reduce to the leader (into scratch); leader -> root
 *   Allreduce   reduce to the leader; the leaders swap; k-nomial bcast
 *   Gather      k-nomial gather to the leader (scratch); leader -> root
 *   Scatter     root -> remote leader (scratch); k-nomial scatter there
 *   Allgather   gather to the leader; the leaders swap; bcast
 *   Reduce_scatter(_block)  reduce to the leader; the leaders swap the
 *               vectors; scatterv of the remote group's vector
 *   Gatherv, Scatterv, Allgatherv, Alltoall(v,w)   direct messages: the
 *               leader does not know the other members' blocks
 * A local phase starts only after the previous one has completed at this
 * rank (cs_join/cs_gate), so phases that reuse the generators' tags
 * between one pair are told apart by p2p's non-overtaking order; the
 * messages between the groups carry their own tag (XTAG) and come from
 * other sources than the local ones. */
#include "coll/coll_int.h"

#include <stdlib.h>

#define XTAG CT_PHASE(7)

/* The local phases' variants: fixed, valid for every call. */
static const coll_alg_t KNOMIAL = {.variant = CA_KNOMIAL, .k = 2, .window = 4};
static const coll_alg_t DISSEM = {.variant = CA_DISSEMINATION, .k = 2};

/* Vertices from from on that name base old name base nb at offset + off. */
static void rebase(coll_sched_t *s, uint32_t from, unsigned old, unsigned nb, size_t off)
{
    for (uint32_t i = from; i < s->nv; i++) {
        coll_vertex_t *v = &s->v[i];
        if (COLL_REF_BASE(v->a) == old) v->a = COLL_REF(nb, COLL_REF_OFF(v->a) + off);
        if ((v->kind == CV_COPY || v->kind == CV_REDUCE) && COLL_REF_BASE(v->b) == old)
            v->b = COLL_REF(nb, COLL_REF_OFF(v->b) + off);
    }
}

/* Everything added from from on waits for what came before it. */
static void after_all(coll_sched_t *s, int join, uint32_t from)
{
    cs_gate(s, join, from);
}

static int remote(const coll_sched_t *s, int j)
{
    return s->size + j;
}

static sl_status_t done(const coll_sched_t *s)
{
    return s->failed ? SL_ERR_NOMEM : SL_OK;
}

static sl_status_t inter_barrier(coll_sched_t *s)
{
    sl_status_t st = cg_barrier(s, &DISSEM);
    if (st != SL_OK) return st;
    int j = cs_join(s);
    uint32_t from = s->nv;
    if (s->rank == 0) {
        cs_send(s, COLL_REF(COLL_TMP, 0), 0, remote(s, 0), XTAG);
        cs_recv(s, COLL_REF(COLL_TMP, 0), 0, remote(s, 0), XTAG);
    }
    after_all(s, j, from);
    j = cs_join(s);
    from = s->nv;
    if ((st = cg_barrier(s, &DISSEM)) != SL_OK) return st;
    after_all(s, j, from);
    return done(s);
}

static sl_status_t inter_bcast(coll_sched_t *s, const coll_args_t *g)
{
    size_t len = g->count;
    if (g->root == COLL_ROOT_HERE) cs_send(s, COLL_REF(COLL_RBUF, 0), len, remote(s, 0), XTAG);
    if (g->root < 0) return done(s);
    if (s->rank == 0) cs_recv(s, COLL_REF(COLL_RBUF, 0), len, remote(s, g->root), XTAG);
    int j = cs_join(s);
    uint32_t from = s->nv;
    sl_status_t st = cg_bcast(s, &KNOMIAL, len, 0);
    after_all(s, j, from);
    return st != SL_OK ? st : done(s);
}

/* The local group's reduction of SBUF (count elements) into scratch at
 * the leader; returns the scratch offset (leader) and the join after it. */
static sl_status_t reduce_to_leader(coll_sched_t *s, size_t count, size_t *t, int *join)
{
    size_t bytes = count * s->op->esize;
    *t = s->rank == 0 ? cs_tmp(s, bytes) : 0;
    uint32_t from = s->nv;
    sl_status_t st = cg_reduce(s, &KNOMIAL, count, 0, false);
    rebase(s, from, COLL_RBUF, COLL_TMP, *t);
    *join = cs_join(s);
    return st;
}

static sl_status_t inter_reduce(coll_sched_t *s, const coll_args_t *g)
{
    if (g->root == COLL_ROOT_IDLE) return done(s); /* no op either */
    size_t bytes = g->count * g->op->esize, t;
    if (g->root == COLL_ROOT_HERE) cs_recv(s, COLL_REF(COLL_RBUF, 0), bytes, remote(s, 0), XTAG);
    if (g->root < 0) return done(s);
    int j;
    sl_status_t st = reduce_to_leader(s, g->count, &t, &j);
    if (st != SL_OK) return st;
    if (s->rank == 0) cs_dep(s, j, cs_send(s, COLL_REF(COLL_TMP, t), bytes, remote(s, g->root), XTAG));
    return done(s);
}

static sl_status_t inter_allreduce(coll_sched_t *s, const coll_args_t *g)
{
    size_t bytes = g->count * g->op->esize, t;
    int j;
    sl_status_t st = reduce_to_leader(s, g->count, &t, &j);
    if (st != SL_OK) return st;
    if (s->rank == 0) {
        cs_dep(s, j, cs_send(s, COLL_REF(COLL_TMP, t), bytes, remote(s, 0), XTAG));
        cs_recv(s, COLL_REF(COLL_RBUF, 0), bytes, remote(s, 0), XTAG);
    }
    j = cs_join(s);
    uint32_t from = s->nv;
    st = cg_bcast(s, &KNOMIAL, bytes, 0);
    after_all(s, j, from);
    return st != SL_OK ? st : done(s);
}

/* The local group's blocks of blen bytes from SBUF gathered at the leader
 * into scratch (returned), and the join after it. */
static sl_status_t gather_to_leader(coll_sched_t *s, size_t blen, size_t *t, int *join)
{
    *t = s->rank == 0 ? cs_tmp(s, blen * (size_t)s->size) : 0;
    uint32_t from = s->nv;
    sl_status_t st = cg_gather(s, &KNOMIAL, blen, 0, false);
    rebase(s, from, COLL_RBUF, COLL_TMP, *t);
    *join = cs_join(s);
    return st;
}

static sl_status_t inter_gather(coll_sched_t *s, const coll_args_t *g)
{
    int nr = s->nremote;
    if (g->vform) {
        if (g->root == COLL_ROOT_HERE)
            for (int j = 0; j < nr; j++)
                cs_recv(s, COLL_REF(COLL_RBUF, g->lay->off[j]), g->lay->len[j], remote(s, j), XTAG);
        else if (g->root >= 0) cs_send(s, COLL_REF(COLL_SBUF, 0), g->mylen, remote(s, g->root), XTAG);
        return done(s);
    }
    if (g->root == COLL_ROOT_HERE)
        cs_recv(s, COLL_REF(COLL_RBUF, 0), g->count * (size_t)nr, remote(s, 0), XTAG);
    if (g->root < 0) return done(s);
    size_t t;
    int j;
    sl_status_t st = gather_to_leader(s, g->count, &t, &j);
    if (st != SL_OK) return st;
    if (s->rank == 0)
        cs_dep(s, j, cs_send(s, COLL_REF(COLL_TMP, t), g->count * (size_t)s->size,
                             remote(s, g->root), XTAG));
    return done(s);
}

static sl_status_t inter_scatter(coll_sched_t *s, const coll_args_t *g)
{
    int nr = s->nremote;
    if (g->vform) {
        if (g->root == COLL_ROOT_HERE)
            for (int j = 0; j < nr; j++)
                cs_send(s, COLL_REF(COLL_SBUF, g->lay->off[j]), g->lay->len[j], remote(s, j), XTAG);
        else if (g->root >= 0) cs_recv(s, COLL_REF(COLL_RBUF, 0), g->mylen, remote(s, g->root), XTAG);
        return done(s);
    }
    if (g->root == COLL_ROOT_HERE)
        cs_send(s, COLL_REF(COLL_SBUF, 0), g->count * (size_t)nr, remote(s, 0), XTAG);
    if (g->root < 0) return done(s);
    size_t all = g->count * (size_t)s->size, t = s->rank == 0 ? cs_tmp(s, all) : 0;
    if (s->rank == 0) cs_recv(s, COLL_REF(COLL_TMP, t), all, remote(s, g->root), XTAG);
    int j = cs_join(s);
    uint32_t from = s->nv;
    sl_status_t st = cg_scatter(s, &KNOMIAL, g->count, 0, false);
    rebase(s, from, COLL_SBUF, COLL_TMP, t);
    after_all(s, j, from);
    return st != SL_OK ? st : done(s);
}

/* Allgather(v) and Alltoall(v,w) the direct way: every block to and from
 * every remote rank at once (slay NULL: the whole SBUF to each). */
static sl_status_t direct(coll_sched_t *s, const coll_args_t *g, const coll_layout_t *slay)
{
    for (int j = 0; j < s->nremote; j++) {
        if (slay) cs_send(s, COLL_REF(COLL_SBUF, slay->off[j]), slay->len[j], remote(s, j), XTAG);
        else cs_send(s, COLL_REF(COLL_SBUF, 0), g->mylen, remote(s, j), XTAG);
        cs_recv(s, COLL_REF(COLL_RBUF, g->lay->off[j]), g->lay->len[j], remote(s, j), XTAG);
    }
    return done(s);
}

static sl_status_t inter_allgather(coll_sched_t *s, const coll_args_t *g)
{
    if (g->vform) return direct(s, g, NULL);
    size_t theirs = g->count * (size_t)s->nremote, t;
    int j;
    sl_status_t st = gather_to_leader(s, g->mylen, &t, &j);
    if (st != SL_OK) return st;
    if (s->rank == 0) {
        cs_dep(s, j, cs_send(s, COLL_REF(COLL_TMP, t), g->mylen * (size_t)s->size, remote(s, 0), XTAG));
        cs_recv(s, COLL_REF(COLL_RBUF, 0), theirs, remote(s, 0), XTAG);
    }
    j = cs_join(s);
    uint32_t from = s->nv;
    st = cg_bcast(s, &KNOMIAL, theirs, 0);
    after_all(s, j, from);
    return st != SL_OK ? st : done(s);
}

/* The local group's vector reduced at the leader and swapped with the
 * remote leader's; the remote group's vector is scattered over this
 * group as counts says. */
static sl_status_t inter_reduce_scatter(coll_sched_t *s, const coll_args_t *g)
{
    size_t es = g->op->esize, bytes = g->count * es, t, t2 = s->rank == 0 ? cs_tmp(s, bytes) : 0;
    int j;
    sl_status_t st = reduce_to_leader(s, g->count, &t, &j);
    if (st != SL_OK) return st;
    if (s->rank == 0) {
        cs_dep(s, j, cs_send(s, COLL_REF(COLL_TMP, t), bytes, remote(s, 0), XTAG));
        cs_recv(s, COLL_REF(COLL_TMP, t2), bytes, remote(s, 0), XTAG);
    }
    j = cs_join(s);
    size_t *off = malloc(sizeof(size_t) * 2 * (size_t)s->size), *len = off + s->size, at = 0;
    if (!off) return SL_ERR_NOMEM;
    for (int i = 0; i < s->size; i++) {
        off[i] = at;
        len[i] = g->counts[i] * es;
        at += len[i];
    }
    coll_layout_t lay = {off, len};
    uint32_t from = s->nv;
    st = cg_scatterv(s, &lay, len[s->rank], 0, false);
    rebase(s, from, COLL_SBUF, COLL_TMP, t2);
    after_all(s, j, from);
    free(off);
    return st != SL_OK ? st : done(s);
}

sl_status_t cg_inter(coll_sched_t *s, const coll_args_t *g)
{
    switch (g->kind) {
    case COLL_BARRIER: return inter_barrier(s);
    case COLL_BCAST: return inter_bcast(s, g);
    case COLL_REDUCE: return inter_reduce(s, g);
    case COLL_ALLREDUCE: return inter_allreduce(s, g);
    case COLL_GATHER: return inter_gather(s, g);
    case COLL_SCATTER: return inter_scatter(s, g);
    case COLL_ALLGATHER: return inter_allgather(s, g);
    case COLL_ALLTOALL: return direct(s, g, g->slay);
    case COLL_REDUCE_SCATTER: return inter_reduce_scatter(s, g);
    default: return SL_ERR_INVALID; /* Scan, Exscan, neighbours: not on intercommunicators */
    }
}
