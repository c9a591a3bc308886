/* Building schedules: vertices, edges, scratch; the commit that turns the
 * edge list into successor lists; the Graphviz dump. */
#include "coll/coll.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

coll_sched_t *coll_sched_new(int rank, int size, const int *world_of)
{
    coll_sched_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->rank = rank;
    s->size = size;
    s->world_of = world_of;
    s->refs = 1;
    return s;
}

void coll_sched_retain(coll_sched_t *s)
{
    s->refs++;
}

void coll_sched_release(coll_sched_t *s)
{
    if (!s || --s->refs > 0) return;
    if (s->keep_free) s->keep_free(s->keep);
    free(s->xops);
    free(s->v);
    free(s->edge);
    free(s->succ);
    free(s);
}

static int add(coll_sched_t *s, coll_vertex_t v)
{
    if (s->failed) return -1;
    if (s->nv == s->capv) {
        uint32_t cap = s->capv ? 2 * s->capv : 16;
        coll_vertex_t *nv = realloc(s->v, cap * sizeof *nv);
        if (!nv) {
            s->failed = true;
            return -1;
        }
        s->v = nv;
        s->capv = cap;
    }
    s->v[s->nv] = v;
    return (int)s->nv++;
}

/* A peer outside the communicator is a builder's bug: the schedule fails
 * (commit returns an error) instead of reading past world_of. */
static int world(coll_sched_t *s, int peer)
{
    if (peer < 0 || peer >= s->size + s->nremote) {
        s->failed = true;
        return -1;
    }
    return s->world_of ? s->world_of[peer] : peer;
}

int cs_send(coll_sched_t *s, coll_ref_t buf, size_t len, int peer, uint32_t tag)
{
    return add(s, (coll_vertex_t){.kind = CV_SEND, .peer = world(s, peer),
                                  .tag = tag & COLL_TAG_MASK, .len = len, .a = buf});
}

int cs_recv(coll_sched_t *s, coll_ref_t buf, size_t len, int peer, uint32_t tag)
{
    return add(s, (coll_vertex_t){.kind = CV_RECV, .peer = world(s, peer),
                                  .tag = tag & COLL_TAG_MASK, .len = len, .a = buf});
}

int cs_copy(coll_sched_t *s, coll_ref_t src, coll_ref_t dst, size_t len)
{
    return add(s, (coll_vertex_t){.kind = CV_COPY, .len = len, .a = src, .b = dst});
}

int cs_reduce(coll_sched_t *s, coll_ref_t in, coll_ref_t inout, size_t count)
{
    return cs_reduce_op(s, in, inout, count, NULL);
}

int cs_reduce_op(coll_sched_t *s, coll_ref_t in, coll_ref_t inout, size_t count,
                 const coll_op_t *op)
{
    uint32_t k = 0;
    if (op && op != s->op) {
        while (k < s->nxops && s->xops[k] != op) k++;
        if (k == s->nxops) {
            const coll_op_t **nx =
                k < COLL_MAX_XOPS ? realloc(s->xops, (k + 1) * sizeof *nx) : NULL;
            if (!nx) {
                s->failed = true;
                return -1;
            }
            s->xops = nx;
            s->xops[s->nxops++] = op;
        }
        k++;
    }
    return add(s, (coll_vertex_t){.kind = CV_REDUCE, .opi = (uint16_t)k, .len = count, .a = in,
                                  .b = inout});
}

bool coll_sched_atomic(const coll_sched_t *s)
{
    if (s->op && !s->op->has_atom) return false;
    for (uint32_t k = 0; k < s->nxops; k++)
        if (!s->xops[k]->has_atom) return false;
    return true;
}

int cs_nop(coll_sched_t *s)
{
    return add(s, (coll_vertex_t){.kind = CV_NOP});
}

void cs_dep(coll_sched_t *s, int before, int after)
{
    if (before < 0 || after < 0 || before == after || s->failed) return;
    if ((uint32_t)before >= s->nv || (uint32_t)after >= s->nv) { /* no such vertex: a bug */
        s->failed = true;
        return;
    }
    if (s->ne == s->cape) {
        uint32_t cap = s->cape ? 2 * s->cape : 32;
        uint32_t(*ne)[2] = realloc(s->edge, cap * sizeof *ne);
        if (!ne) {
            s->failed = true;
            return;
        }
        s->edge = ne;
        s->cape = cap;
    }
    s->edge[s->ne][0] = (uint32_t)before;
    s->edge[s->ne][1] = (uint32_t)after;
    s->ne++;
    s->v[after].ndeps++;
}

/* The sinks so far are the vertices nothing depends on yet. */
int cs_join(coll_sched_t *s)
{
    if (s->failed) return -1;
    uint32_t n = s->nv;
    char *has_succ = calloc(n ? n : 1, 1);
    if (!has_succ) {
        s->failed = true;
        return -1;
    }
    for (uint32_t e = 0; e < s->ne; e++) has_succ[s->edge[e][0]] = 1;
    int j = cs_nop(s);
    for (uint32_t i = 0; i < n; i++)
        if (!has_succ[i]) cs_dep(s, (int)i, j);
    free(has_succ);
    return j;
}

void cs_gate(coll_sched_t *s, int gate, uint32_t from)
{
    for (uint32_t i = from; i < s->nv && !s->failed; i++)
        if (s->v[i].ndeps == 0) cs_dep(s, gate, (int)i);
}

size_t cs_tmp(coll_sched_t *s, size_t len)
{
    size_t off = s->tmp_bytes;
    s->tmp_bytes += (len + 63) & ~(size_t)63;
    return off;
}

/* Successor lists in one array (counting sort of the edges by source). */
/* Kahn's algorithm: does every vertex become ready?  (A cycle would never
 * start; generators cannot make one, hand-built schedules can.) */
static bool acyclic(const coll_sched_t *s)
{
    uint32_t *rem = malloc((s->nv ? s->nv : 1) * sizeof *rem);
    uint32_t *stack = malloc((s->nv ? s->nv : 1) * sizeof *stack);
    uint32_t n = 0, seen = 0;
    bool ok = rem && stack;
    for (uint32_t i = 0; ok && i < s->nv; i++)
        if ((rem[i] = s->v[i].ndeps) == 0) stack[n++] = i;
    while (ok && n) {
        const coll_vertex_t *x = &s->v[stack[--n]];
        seen++;
        for (uint32_t j = 0; j < x->nsucc; j++)
            if (--rem[s->succ[x->succ0 + j]] == 0) stack[n++] = s->succ[x->succ0 + j];
    }
    free(rem);
    free(stack);
    return ok && seen == s->nv;
}

sl_status_t coll_sched_commit(coll_sched_t *s)
{
    if (s->failed) return SL_ERR_NOMEM;
    s->succ = malloc((s->ne ? s->ne : 1) * sizeof *s->succ);
    if (!s->succ) return SL_ERR_NOMEM;
    s->nxfer = 0;
    for (uint32_t i = 0; i < s->nv; i++) {
        s->v[i].nsucc = 0;
        bool xfer = s->v[i].kind == CV_SEND || s->v[i].kind == CV_RECV;
        s->nxfer += xfer;
        if (xfer && s->v[i].len > s->max_msg) s->max_msg = s->v[i].len;
    }
    for (uint32_t e = 0; e < s->ne; e++) s->v[s->edge[e][0]].nsucc++;
    uint32_t at = 0;
    for (uint32_t i = 0; i < s->nv; i++) {
        s->v[i].succ0 = at;
        at += s->v[i].nsucc;
        s->v[i].nsucc = 0;
    }
    for (uint32_t e = 0; e < s->ne; e++) {
        coll_vertex_t *u = &s->v[s->edge[e][0]];
        s->succ[u->succ0 + u->nsucc++] = s->edge[e][1];
    }
    free(s->edge);
    s->edge = NULL;
    s->cape = 0;
    s->committed = true;
    return acyclic(s) ? SL_OK : SL_ERR_INVALID;
}

/* ---- Graphviz -------------------------------------------------------------------------------- */

static const char *base_name(coll_ref_t r)
{
    static const char *names[] = {"sbuf", "rbuf", "tmp"};
    unsigned b = COLL_REF_BASE(r);
    return b < COLL_NBASE ? names[b] : "?";
}

static void dot_vertex(FILE *f, const coll_vertex_t *v, uint32_t i)
{
    switch (v->kind) {
    case CV_SEND:
        fprintf(f, "  v%u [shape=box,label=\"send %zu B\\nto %d tag %u\\n%s+%zu\"];\n", i, v->len,
                v->peer, v->tag, base_name(v->a), COLL_REF_OFF(v->a));
        break;
    case CV_RECV:
        fprintf(f, "  v%u [shape=box,style=rounded,label=\"recv %zu B\\nfrom %d tag %u\\n%s+%zu\"];\n",
                i, v->len, v->peer, v->tag, base_name(v->a), COLL_REF_OFF(v->a));
        break;
    case CV_REDUCE:
        fprintf(f, "  v%u [shape=ellipse,label=\"reduce %zu (op %u)\\n%s+%zu op %s+%zu\"];\n", i,
                v->len, (unsigned)v->opi, base_name(v->a), COLL_REF_OFF(v->a), base_name(v->b),
                COLL_REF_OFF(v->b));
        break;
    case CV_COPY:
        fprintf(f, "  v%u [shape=ellipse,label=\"copy %zu B\\n%s+%zu -> %s+%zu\"];\n", i, v->len,
                base_name(v->a), COLL_REF_OFF(v->a), base_name(v->b), COLL_REF_OFF(v->b));
        break;
    default: fprintf(f, "  v%u [shape=point];\n", i);
    }
}

sl_status_t coll_sched_dot(const coll_sched_t *s, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return SL_ERR_SYS;
    const char *k = coll_kind_name((coll_kind_t)s->kind), *v = coll_variant_name(s->variant);
    fprintf(f, "digraph \"%s %s rank %d of %d\" {\n  label=\"%s (%s), rank %d of %d\";\n", k, v,
            s->rank, s->size, k, v, s->rank, s->size);
    for (uint32_t i = 0; i < s->nv; i++) dot_vertex(f, &s->v[i], i);
    for (uint32_t i = 0; i < s->nv; i++)
        for (uint32_t j = 0; j < s->v[i].nsucc; j++)
            fprintf(f, "  v%u -> v%u;\n", i, s->succ[s->v[i].succ0 + j]);
    fprintf(f, "}\n");
    return fclose(f) ? SL_ERR_SYS : SL_OK;
}
