/* include/sluice.h: collectives of the program's own, as schedules.
 *
 * A handle wraps a schedule of src/coll being built (vertices name
 * absolute addresses: offsets from a NULL base) and, from commit on, the
 * persistent request that runs it: an mcoll of its own with no packing,
 * whose run is the schedule, started by MPI_Start like MPI_Bcast_init's. */
#include "coll/coll.h"
#include "mpi/mcoll.h"
#include "mpi/request.h"

#include <sluice.h>

#include <stdint.h>
#include <stdlib.h>

/* A reduce vertex's op and datatype, as src/coll applies it. */
typedef struct uop {
    mcoll_op_t op;
    mdt_type_t *t; /* retained */
    MPI_Op mop;
} uop_t;

/* The schedule's ops (s->keep): each distinct (op, datatype) once. */
typedef struct uops {
    uop_t **v;
    int n;
} uops_t;

struct sluice_sched {
    mcomm_t *comm;
    coll_sched_t *s;
    bool committed;
};

#define REF(p) COLL_REF(COLL_SBUF, (uintptr_t)(p))

static int bad(SLUICE_Sched h, int cls, const char *fname, const char *why)
{
    return mpi_err(h ? h->comm : NULL, cls, fname, why);
}

/* A live handle still being built (fname's checks). */
static int building(SLUICE_Sched h, const char *fname)
{
    if (!h || !h->s) return bad(NULL, MPI_ERR_ARG, fname, "null schedule");
    if (h->committed) return bad(h, MPI_ERR_ARG, fname, "the schedule is committed");
    return MPI_SUCCESS;
}

static int added(SLUICE_Sched h, int v, int *vertex, const char *fname)
{
    if (v < 0) return bad(h, MPI_ERR_NO_MEM, fname, NULL);
    if (vertex) *vertex = v;
    return MPI_SUCCESS;
}

int SLUICE_Sched_create(MPI_Comm comm, SLUICE_Sched *sched)
{
    MPI_CHECK_STATE("SLUICE_Sched_create");
    mcomm_t *c = mcomm_get(comm);
    if (!c || c->inter) return mpi_err(c, MPI_ERR_COMM, "SLUICE_Sched_create", "not an intracommunicator");
    if (!sched) return mpi_err(c, MPI_ERR_ARG, "SLUICE_Sched_create", "null output");
    SLUICE_Sched h = calloc(1, sizeof *h);
    if (h) h->s = coll_sched_new(c->rank, c->size, mcomm_world_map(c));
    if (!h || !h->s) {
        free(h);
        return mpi_err(c, MPI_ERR_NO_MEM, "SLUICE_Sched_create", NULL);
    }
    h->s->kind = COLL_NKIND; /* (names it "user schedule" in traces and warnings) */
    h->comm = c;
    mcomm_retain(c);
    *sched = h;
    return MPI_SUCCESS;
}

static int xfer(SLUICE_Sched h, const void *buf, MPI_Count bytes, int peer, int tag, bool send,
                int *vertex, const char *fname)
{
    int err = building(h, fname);
    if (err) return err;
    if (peer < 0 || peer >= h->comm->size) return bad(h, MPI_ERR_RANK, fname, NULL);
    if (tag < 0 || tag > (int)COLL_TAG_MASK) return bad(h, MPI_ERR_TAG, fname, "tags are 0..131071");
    if (bytes < 0) return bad(h, MPI_ERR_COUNT, fname, NULL);
    if (bytes > 0 && !buf) return bad(h, MPI_ERR_BUFFER, fname, NULL);
    int v = send ? cs_send(h->s, REF(buf), (size_t)bytes, peer, (uint32_t)tag)
                 : cs_recv(h->s, REF(buf), (size_t)bytes, peer, (uint32_t)tag);
    return added(h, v, vertex, fname);
}

int SLUICE_Sched_send(SLUICE_Sched sched, const void *buf, MPI_Count bytes, int dest, int tag,
                      int *vertex)
{
    MPI_CHECK_STATE("SLUICE_Sched_send");
    return xfer(sched, buf, bytes, dest, tag, true, vertex, "SLUICE_Sched_send");
}

int SLUICE_Sched_recv(SLUICE_Sched sched, void *buf, MPI_Count bytes, int source, int tag,
                      int *vertex)
{
    MPI_CHECK_STATE("SLUICE_Sched_recv");
    return xfer(sched, buf, bytes, source, tag, false, vertex, "SLUICE_Sched_recv");
}

int SLUICE_Sched_copy(SLUICE_Sched sched, const void *src, void *dst, MPI_Count bytes,
                      int *vertex)
{
    MPI_CHECK_STATE("SLUICE_Sched_copy");
    const char *fn = "SLUICE_Sched_copy";
    int err = building(sched, fn);
    if (err) return err;
    if (bytes < 0) return bad(sched, MPI_ERR_COUNT, fn, NULL);
    if (bytes > 0 && (!src || !dst)) return bad(sched, MPI_ERR_BUFFER, fn, NULL);
    return added(sched, cs_copy(sched->s, REF(src), REF(dst), (size_t)bytes), vertex, fn);
}

static void uops_free(void *keep)
{
    uops_t *u = keep;
    for (int i = 0; i < u->n; i++) {
        mdt_release(u->v[i]->t);
        free(u->v[i]);
    }
    free(u->v);
    free(u);
}

/* The op of a reduce vertex on dt: the one an earlier vertex made for the
 * same pair, else a new one the schedule keeps (NULL: the error, reported). */
static const coll_op_t *vertex_op(SLUICE_Sched h, MPI_Datatype dt, MPI_Op op, const char *fn,
                                  int *err)
{
    mdt_type_t *t = mdt_get_committed(dt, err);
    if (!t) return bad(h, *err, fn, NULL), NULL;
    uops_t *all = h->s->keep; /* (from the first reduce vertex on) */
    for (int i = 0; all && i < all->n; i++)
        if (all->v[i]->t == t && all->v[i]->mop == op) return &all->v[i]->op.base;
    if (t->size != mdt_extent(t) || t->true_lb != 0)
        return *err = bad(h, MPI_ERR_TYPE, fn, "reductions need a datatype without gaps"), NULL;
    mop_plan_t plan;
    if ((*err = mop_plan(op, t, dt, &plan)) != MPI_SUCCESS) return bad(h, *err, fn, NULL), NULL;
    if (!all) {
        if (!(all = calloc(1, sizeof *all))) goto nomem;
        h->s->keep = all;
        h->s->keep_free = uops_free;
    }
    uop_t **nv = realloc(all->v, (size_t)(all->n + 1) * sizeof *nv);
    if (!nv) goto nomem;
    all->v = nv;
    uop_t *u = calloc(1, sizeof *u);
    if (!u) goto nomem;
    mcoll_op_init_atomic(&u->op, &plan);
    mdt_retain(t);
    u->t = t;
    u->mop = op;
    all->v[all->n++] = u;
    return &u->op.base;
nomem:
    *err = bad(h, MPI_ERR_NO_MEM, fn, NULL);
    return NULL;
}

int SLUICE_Sched_reduce(SLUICE_Sched sched, const void *in, void *inout, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op, int *vertex)
{
    MPI_CHECK_STATE("SLUICE_Sched_reduce");
    const char *fn = "SLUICE_Sched_reduce";
    int err = building(sched, fn);
    if (err) return err;
    if (count < 0) return bad(sched, MPI_ERR_COUNT, fn, NULL);
    const coll_op_t *o = vertex_op(sched, datatype, op, fn, &err);
    if (!o) return err;
    if (count > 0 && (!in || !inout)) return bad(sched, MPI_ERR_BUFFER, fn, NULL);
    return added(sched, cs_reduce_op(sched->s, REF(in), REF(inout), (size_t)count, o), vertex, fn);
}

int SLUICE_Sched_nop(SLUICE_Sched sched, int *vertex)
{
    MPI_CHECK_STATE("SLUICE_Sched_nop");
    int err = building(sched, "SLUICE_Sched_nop");
    if (err) return err;
    return added(sched, cs_nop(sched->s), vertex, "SLUICE_Sched_nop");
}

int SLUICE_Sched_dep(SLUICE_Sched sched, int before, int after)
{
    MPI_CHECK_STATE("SLUICE_Sched_dep");
    const char *fn = "SLUICE_Sched_dep";
    int err = building(sched, fn);
    if (err) return err;
    int n = (int)sched->s->nv;
    if (before < 0 || before >= n || after < 0 || after >= n || before == after)
        return bad(sched, MPI_ERR_ARG, fn, "no such pair of vertices");
    cs_dep(sched->s, before, after);
    return sched->s->failed ? bad(sched, MPI_ERR_NO_MEM, fn, NULL) : MPI_SUCCESS;
}

int SLUICE_Sched_commit(SLUICE_Sched sched, int executor, MPI_Request *request)
{
    MPI_CHECK_STATE("SLUICE_Sched_commit");
    const char *fn = "SLUICE_Sched_commit";
    int err = building(sched, fn);
    if (err) return err;
    if (!request) return bad(sched, MPI_ERR_ARG, fn, "null request");
    if (executor < SLUICE_EXEC_AUTO || executor > SLUICE_EXEC_OFFLOAD)
        return bad(sched, MPI_ERR_ARG, fn, "no such executor");
    coll_sched_t *s = sched->s;
    /* resolved here, the same on every rank: auto is what the setting
     * forces, else host (the ranks' schedules differ, so nothing else in
     * them is common ground) */
    if (executor == SLUICE_EXEC_AUTO)
        executor = coll_exec_setting() == COLL_EXEC_OFFLOAD ? SLUICE_EXEC_OFFLOAD : SLUICE_EXEC_HOST;
    if (executor == SLUICE_EXEC_OFFLOAD && !coll_sched_atomic(s))
        return bad(sched, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                   "an op has no Portals atomic: it cannot be offloaded");
    sl_status_t st = coll_sched_commit(s);
    sched->committed = true; /* even when it failed: the graph is frozen */
    if (st != SL_OK)
        return bad(sched, st == SL_ERR_INVALID ? MPI_ERR_ARG : MPI_ERR_NO_MEM, fn,
                   st == SL_ERR_INVALID ? "the dependencies make a cycle" : NULL);
    s->exec = executor == SLUICE_EXEC_OFFLOAD ? COLL_EXEC_OFFLOAD : COLL_EXEC_HOST;
    mcoll_t *m = mcoll_new(sched->comm);
    mreq_t *r = m ? mreq_create(request) : NULL;
    if (m && coll_run_new(s, sched->comm->ctx | MCOMM_COLL_CTX, &m->run) != SL_OK) m->run = NULL;
    if (!r || !m->run) {
        mcoll_free(m);
        return bad(sched, MPI_ERR_NO_MEM, fn, NULL);
    }
    m->seq = mcoll_next_seq(sched->comm, true);
    m->persistent_req = true;
    coll_run_bind(m->run, NULL, NULL);
    *r = (mreq_t){.comm = sched->comm, .coll = m, .persistent = true};
    mcomm_retain(sched->comm);
    mreq_status_empty(&r->st);
    return MPI_SUCCESS;
}

int SLUICE_Sched_dot(SLUICE_Sched sched, const char *path)
{
    MPI_CHECK_STATE("SLUICE_Sched_dot");
    if (!sched || !sched->s) return bad(NULL, MPI_ERR_ARG, "SLUICE_Sched_dot", "null schedule");
    if (!path) return bad(sched, MPI_ERR_ARG, "SLUICE_Sched_dot", "null path");
    if (!sched->committed) return bad(sched, MPI_ERR_ARG, "SLUICE_Sched_dot", "not committed yet");
    if (coll_sched_dot(sched->s, path) != SL_OK)
        return bad(sched, MPI_ERR_FILE, "SLUICE_Sched_dot", path);
    return MPI_SUCCESS;
}

int SLUICE_Sched_free(SLUICE_Sched *sched)
{
    MPI_CHECK_STATE("SLUICE_Sched_free");
    if (!sched || !*sched) return bad(NULL, MPI_ERR_ARG, "SLUICE_Sched_free", "null schedule");
    SLUICE_Sched h = *sched;
    coll_sched_release(h->s); /* (its ops with it, unless a request still runs it) */
    mcomm_release(h->comm);
    free(h);
    *sched = SLUICE_SCHED_NULL;
    return MPI_SUCCESS;
}
