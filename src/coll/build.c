/* One call's schedule: select the variant, generate, fall back when the
 * variant cannot serve the call, commit, and dump it when asked. */
#include "coll/coll_int.h"

#include "util/log.h"
#include "util/param.h"

#include <stdio.h>

static sl_status_t generate(coll_sched_t *s, const coll_args_t *g, const coll_alg_t *a)
{
    switch (g->kind) {
    case COLL_BARRIER: return cg_barrier(s, a);
    case COLL_BCAST: return cg_bcast(s, a, g->count, g->root);
    case COLL_REDUCE: return cg_reduce(s, a, g->count, g->root, g->inplace);
    case COLL_ALLREDUCE: return cg_allreduce(s, a, g->count, g->inplace);
    case COLL_GATHER:
        return g->vform ? cg_gatherv(s, g->lay, g->mylen, g->root, g->inplace)
                        : cg_gather(s, a, g->count, g->root, g->inplace);
    case COLL_SCATTER:
        return g->vform ? cg_scatterv(s, g->lay, g->mylen, g->root, g->inplace)
                        : cg_scatter(s, a, g->count, g->root, g->inplace);
    case COLL_ALLGATHER: return cg_allgather(s, a, g->lay, g->inplace);
    case COLL_ALLTOALL: return cg_alltoall(s, a, g->slay, g->lay, g->inplace);
    case COLL_REDUCE_SCATTER: return cg_reduce_scatter(s, a, g->counts, g->inplace);
    case COLL_SCAN: return cg_scan(s, a, g->count, g->inplace, g->exclusive);
    case COLL_NEIGHBOR: return cg_neighbor(s, g->nbr);
    default: return SL_ERR_INVALID;
    }
}

/* The size the selection keys on: the bytes each rank contributes. */
static size_t call_bytes(const coll_args_t *g, int rank)
{
    switch (g->kind) {
    case COLL_REDUCE:
    case COLL_ALLREDUCE:
    case COLL_SCAN: return g->count * g->op->esize;
    case COLL_REDUCE_SCATTER: return g->counts[rank] * g->op->esize;
    case COLL_ALLGATHER:
    case COLL_ALLTOALL: return g->lay->len[rank];
    case COLL_NEIGHBOR: return 0;
    default: return g->count;
    }
}

static bool call_regular(const coll_args_t *g, int size)
{
    if (!g->lay || g->kind == COLL_NEIGHBOR) return true;
    for (int i = 0; i < size; i++)
        if (g->lay->len[i] != g->lay->len[0] || g->lay->off[i] != (size_t)i * g->lay->len[0])
            return false;
    return true;
}

static void dump(const coll_sched_t *s, const coll_args_t *g)
{
    const char *dir = sl_param_str(SL_PARAM_COLL_DOT);
    if (!*dir) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-%s-n%d-r%d-%zu.dot", dir, coll_kind_name(g->kind),
             coll_variant_name(s->variant), s->size, s->rank, g->count);
    if (coll_sched_dot(s, path) != SL_OK) sl_log_warn("coll: cannot write %s", path);
}

static sl_status_t try_build(const coll_args_t *g, const coll_alg_t *a, int rank, int size,
                             const int *world_of, coll_sched_t **out)
{
    coll_sched_t *s = coll_sched_new(rank, size, world_of);
    if (!s) return SL_ERR_NOMEM;
    s->kind = g->kind;
    s->variant = a->variant;
    s->op = g->op;
    sl_status_t st = generate(s, g, a);
    if (st == SL_OK) st = coll_sched_commit(s);
    if (st != SL_OK) {
        coll_sched_release(s);
        return st;
    }
    *out = s;
    return SL_OK;
}

/* An intercommunicator's call: one fixed plan per collective (gen_inter.c). */
static sl_status_t build_inter(const coll_args_t *g, int rank, int size, const int *world_of,
                               coll_sched_t **out)
{
    coll_sched_t *s = coll_sched_new(rank, size, world_of);
    if (!s) return SL_ERR_NOMEM;
    s->nremote = g->nremote;
    s->kind = g->kind;
    s->variant = CA_DIRECT;
    s->op = g->op;
    sl_status_t st = cg_inter(s, g);
    if (st == SL_OK) st = coll_sched_commit(s);
    if (st != SL_OK) {
        coll_sched_release(s);
        return st;
    }
    dump(s, g);
    *out = s;
    return SL_OK;
}

sl_status_t coll_build(const coll_args_t *g, int rank, int size, const int *world_of,
                       coll_sched_t **out)
{
    if (g->nremote > 0) return build_inter(g, rank, size, world_of, out);
    static bool warned[COLL_NKIND];
    coll_call_t call = {.size = size, .bytes = call_bytes(g, rank),
                        .commute = !g->op || g->op->commute, .regular = call_regular(g, size)};
    coll_alg_t a;
    coll_select(g->kind, &call, &a);
    sl_status_t st = try_build(g, &a, rank, size, world_of, out);
    if (st == SL_ERR_INVALID) {
        if (!warned[g->kind]) {
            warned[g->kind] = true;
            sl_log_warn("coll: the %s variant '%s' cannot serve this call (%s); using the "
                        "default for it (warned once)", coll_kind_name(g->kind),
                        coll_variant_name(a.variant),
                        g->op && !g->op->commute     ? "the op does not commute"
                        : a.variant == CA_ROUNDOPT ? "no schedule for this many ranks"
                                                   : "it needs equal blocks or more elements");
        }
        coll_call_t plain = call;
        coll_alg_t d;
        coll_select_default(g->kind, &plain, &d);
        st = try_build(g, &d, rank, size, world_of, out);
        if (st == SL_ERR_INVALID) { /* e.g. a ring allreduce of fewer elements than ranks */
            static const int safe[COLL_NKIND] = {
                [COLL_BARRIER] = CA_DISSEMINATION, [COLL_BCAST] = CA_KNOMIAL,
                [COLL_REDUCE] = CA_KNOMIAL,        [COLL_ALLREDUCE] = CA_BUTTERFLY,
                [COLL_GATHER] = CA_KNOMIAL,        [COLL_SCATTER] = CA_KNOMIAL,
                [COLL_ALLGATHER] = CA_RING,        [COLL_ALLTOALL] = CA_PAIRWISE,
                [COLL_REDUCE_SCATTER] = CA_PAIRWISE, [COLL_SCAN] = CA_LINEAR,
                [COLL_NEIGHBOR] = CA_DIRECT};
            d = (coll_alg_t){.variant = safe[g->kind], .k = 2};
            st = try_build(g, &d, rank, size, world_of, out);
        }
    }
    if (st == SL_OK) dump(*out, g);
    return st;
}
