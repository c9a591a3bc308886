/* MPI_Barrier, Bcast, the reductions (Reduce, Allreduce, Reduce_scatter,
 * Reduce_scatter_block, Scan, Exscan, Reduce_local), each blocking,
 * non-blocking (MPI_I...) and persistent (MPI-4 ..._init), over the
 * schedules of src/coll (mcoll.h). */
#include "mpi/mcoll.h"

#include <stdlib.h>
#include <string.h>

/* ---- Barrier ---------------------------------------------------------------------------------- */

static int barrier_any(MPI_Comm comm, mcoll_mode_t mode, MPI_Request *req, const char *fname)
{
    mcomm_t *c;
    int err = mcoll_check_comm(comm, &c, fname);
    if (err) return err;
    if (mode != MCOLL_BLOCKING && !req) return mpi_err(c, MPI_ERR_REQUEST, fname, "request is NULL");
    if (mode == MCOLL_BLOCKING && mcoll_direct_ok(c, COLL_BARRIER, 0, NULL))
        return mcoll_direct(c, &(coll_direct_t){.kind = COLL_BARRIER}, NULL, NULL, fname);
    mcoll_t *m = mcoll_new(c);
    if (!m) return mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
    m->args = (coll_args_t){.kind = COLL_BARRIER};
    return mcoll_launch(m, mode, req, fname);
}

int MPI_Barrier(MPI_Comm comm)
{
    MPI_CHECK_STATE("MPI_Barrier");
    return barrier_any(comm, MCOLL_BLOCKING, NULL, "MPI_Barrier");
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    mcoll_async_prepare();
    MPI_CHECK_STATE("MPI_Ibarrier");
    return barrier_any(comm, MCOLL_NB, request, "MPI_Ibarrier");
}

int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    mcoll_async_prepare();
    MPI_CHECK_STATE("MPI_Barrier_init");
    return barrier_any(comm, MCOLL_PERSISTENT, request, "MPI_Barrier_init");
}

/* ---- Bcast ------------------------------------------------------------------------------------ */

typedef struct bcast_call {
    void *buf;
    int count;
    MPI_Datatype dt;
    int root;
} bcast_call_t;

static int bcast_any(const bcast_call_t *k, MPI_Comm comm, mcoll_mode_t mode, MPI_Request *req,
                     const char *fname)
{
    mcomm_t *c;
    mdt_type_t *t;
    int err = mcoll_check_comm(comm, &c, fname);
    if (!err) err = mcoll_check_root(c, k->root, fname);
    /* an intercommunicator's MPI_PROC_NULL ranks take part with no data */
    bool idle = !err && c->inter && k->root == MPI_PROC_NULL;
    if (!err && !idle) err = mcoll_check_buf(c, k->buf, k->count, k->dt, &t, false, fname);
    if (err) return err;
    if (mode != MCOLL_BLOCKING && !req) return mpi_err(c, MPI_ERR_REQUEST, fname, "request is NULL");
    bool is_root = mcoll_is_root(c, k->root);
    size_t bytes = idle ? 0 : (size_t)k->count * (size_t)t->size;
    if (mode == MCOLL_BLOCKING && mcoll_direct_ok(c, COLL_BCAST, bytes, NULL))
        return mcoll_direct(c, &(coll_direct_t){.kind = COLL_BCAST, .root = k->root, .bytes = bytes},
                            NULL, &(mcoll_dbuf_t){k->buf, k->count, t, is_root, !is_root}, fname);
    mcoll_t *m = mcoll_new(c);
    if (!m) return mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
    if (!idle && mcoll_side(m, COLL_RBUF, k->buf, k->count, t, is_root, !is_root)) {
        mcoll_free(m);
        return mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
    }
    m->args = (coll_args_t){.kind = COLL_BCAST, .root = mcoll_root_arg(c, k->root),
                            .count = idle ? 0 : (size_t)k->count * (size_t)t->size};
    return mcoll_launch(m, mode, req, fname);
}

MCOLL_FORMS(Bcast, Ibcast,
            (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm),
            bcast_call_t, (.buf = buffer, .count = count, .dt = datatype, .root = root), bcast_any)

/* ---- the reductions --------------------------------------------------------------------------- */


static int red_check(mcomm_t *c, const red_call_t *k, int count, mdt_type_t **t, mop_plan_t *p,
                     const char *fname)
{
    const void *sbuf = k->sbuf, *rbuf = k->rbuf;
    MPI_Datatype dt = k->dt;
    bool root_only = k->kind == COLL_REDUCE, is_root = !root_only || c->rank == k->root;
    if (root_only) {
        int err = mcoll_check_root(c, k->root, fname);
        if (err) return err;
    }
    if (sbuf == MPI_IN_PLACE && !is_root)
        return mpi_err(c, MPI_ERR_BUFFER, fname, "MPI_IN_PLACE on a rank that is not root");
    int err = mcoll_check_buf(c, sbuf, count, dt, t, true, fname);
    if (err) return err;
    if (is_root && rbuf == MPI_IN_PLACE)
        return mpi_err(c, MPI_ERR_BUFFER, fname, "the receive buffer cannot be MPI_IN_PLACE");
    if (is_root && !rbuf && count && (*t)->size && MDT_IS_BUILTIN(dt))
        return mpi_err(c, MPI_ERR_BUFFER, fname, "NULL receive buffer");
    if (mop_plan(k->op, *t, dt, p) != MPI_SUCCESS)
        return mpi_err(c, MPI_ERR_OP, fname,
                       "invalid op, or an op that does not apply to the datatype");
    if (is_root && count && (*t)->size && sbuf == rbuf && k->kind != COLL_REDUCE_SCATTER)
        return mpi_err(c, MPI_ERR_BUFFER, fname, "send and receive buffers alias (use MPI_IN_PLACE)");
    return MPI_SUCCESS;
}

/* A blocking Reduce or Allreduce by the direct path when it serves the
 * call (small, commutative): its MPI error; -1 when not. */
static int red_direct(mcomm_t *c, const red_call_t *k, mdt_type_t *t, const mop_plan_t *p,
                      const char *fname)
{
    mcoll_op_t op;
    size_t bytes = (size_t)k->count * (size_t)t->size;
    bool is_root = k->kind == COLL_ALLREDUCE || c->rank == k->root;
    bool inplace = k->sbuf == MPI_IN_PLACE;
    mcoll_op_init(&op, p);
    if (!mcoll_direct_ok(c, k->kind, bytes, &op.base)) return -1;
    mcoll_dbuf_t s = {k->sbuf, k->count, inplace ? NULL : t, true, false};
    mcoll_dbuf_t r = {k->rbuf, k->count, is_root ? t : NULL, inplace, true};
    return mcoll_direct(c, &(coll_direct_t){.kind = k->kind, .root = k->root, .bytes = bytes,
                                            .op = &op.base},
                        &s, &r, fname);
}

static int red_any(const red_call_t *k, MPI_Comm comm, mcoll_mode_t mode, MPI_Request *req,
                   const char *fname)
{
    mcomm_t *c;
    mdt_type_t *t;
    mop_plan_t p;
    int count = k->count;
    if (k->kind == COLL_REDUCE_SCATTER && !k->block && !k->counts)
        return mpi_err(NULL, MPI_ERR_ARG, fname, "recvcounts is NULL");
    int err = mcoll_check_comm(comm, &c, fname);
    if (err) return err;
    if (k->kind == COLL_REDUCE_SCATTER) { /* count: the whole vector */
        if (!k->block) {
            count = 0;
            for (int i = 0; i < c->size; i++) {
                if (k->counts[i] < 0) return mpi_err(c, MPI_ERR_COUNT, fname, "negative count");
                count += k->counts[i];
            }
        } else {
            if (k->bcount < 0) return mpi_err(c, MPI_ERR_COUNT, fname, "negative count");
            count = k->bcount * c->size;
        }
    }
    if (c->inter) return minter_red(k, c, count, mode, req, fname);
    if ((err = red_check(c, k, count, &t, &p, fname))) return err;
    if (mode != MCOLL_BLOCKING && !req) return mpi_err(c, MPI_ERR_REQUEST, fname, "request is NULL");
    if (mode == MCOLL_BLOCKING && (k->kind == COLL_ALLREDUCE || k->kind == COLL_REDUCE)) {
        int e = red_direct(c, k, t, &p, fname);
        if (e >= 0) return e;
    }
    mcoll_t *m = mcoll_new(c);
    if (!m) return mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
    bool inplace = k->sbuf == MPI_IN_PLACE;
    bool is_root = k->kind != COLL_REDUCE || c->rank == k->root;
    bool out = is_root && !(k->exclusive && c->rank == 0);
    int mine = count;
    m->args = (coll_args_t){.kind = k->kind, .root = k->root, .inplace = inplace,
                            .exclusive = k->exclusive, .count = (size_t)count};
    if (k->kind == COLL_REDUCE_SCATTER) {
        if (!(m->counts = malloc(sizeof(size_t) * (size_t)c->size))) err = MPI_ERR_NO_MEM;
        for (int i = 0; !err && i < c->size; i++)
            m->counts[i] = (size_t)(k->block ? k->bcount : k->counts[i]);
        m->args.counts = m->counts;
        m->uniform = k->block; /* the block form: counts follow from count */
        mine = inplace ? count : (k->block ? k->bcount : k->counts[c->rank]);
    }
    mcoll_set_op(m, &p);
    if (!err && !inplace)
        err = mcoll_side(m, COLL_SBUF, (void *)(uintptr_t)k->sbuf, count, t, true, false);
    if (!err && (is_root || inplace)) err = mcoll_side(m, COLL_RBUF, k->rbuf, mine, t, inplace, out);
    if (err) {
        mcoll_free(m);
        return mpi_err(c, err, fname, NULL);
    }
    return mcoll_launch(m, mode, req, fname);
}

#define RED_PARAMS                                                                              \
    (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
#define RED_INIT(kindv, excl)                                                                   \
    (.kind = kindv, .exclusive = excl, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,       \
     .dt = datatype, .op = op)
MCOLL_FORMS(Allreduce, Iallreduce, RED_PARAMS, red_call_t, RED_INIT(COLL_ALLREDUCE, false), red_any)
MCOLL_FORMS(Scan, Iscan, RED_PARAMS, red_call_t, RED_INIT(COLL_SCAN, false), red_any)
MCOLL_FORMS(Exscan, Iexscan, RED_PARAMS, red_call_t, RED_INIT(COLL_SCAN, true), red_any)
MCOLL_FORMS(Reduce, Ireduce,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Comm comm),
            red_call_t,
            (.kind = COLL_REDUCE, .sbuf = sendbuf, .rbuf = recvbuf, .count = count,
             .dt = datatype, .op = op, .root = root),
            red_any)
MCOLL_FORMS(Reduce_scatter, Ireduce_scatter,
            (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm),
            red_call_t,
            (.kind = COLL_REDUCE_SCATTER, .sbuf = sendbuf, .rbuf = recvbuf, .dt = datatype,
             .op = op, .counts = recvcounts),
            red_any)
MCOLL_FORMS(Reduce_scatter_block, Ireduce_scatter_block,
            (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm),
            red_call_t,
            (.kind = COLL_REDUCE_SCATTER, .sbuf = sendbuf, .rbuf = recvbuf, .dt = datatype,
             .op = op, .block = true, .bcount = recvcount),
            red_any)

/* inoutbuf = inbuf op inoutbuf, locally (MPI 3.1 §5.9.7). */
int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op)
{
    MPI_CHECK_STATE("MPI_Reduce_local");
    mdt_type_t *t;
    mop_plan_t p;
    int err;
    if (count < 0) return mpi_err(NULL, MPI_ERR_COUNT, "MPI_Reduce_local", "negative count");
    if (!(t = mdt_get_committed(datatype, &err))) return mpi_err(NULL, err, "MPI_Reduce_local", NULL);
    if (mop_plan(op, t, datatype, &p) != MPI_SUCCESS)
        return mpi_err(NULL, MPI_ERR_OP, "MPI_Reduce_local", "invalid op for this datatype");
    if (count == 0 || t->size == 0) return MPI_SUCCESS;
    if ((!inbuf || !inoutbuf) && MDT_IS_BUILTIN(datatype))
        return mpi_err(NULL, MPI_ERR_BUFFER, "MPI_Reduce_local", "NULL buffer");
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        return mpi_err(NULL, MPI_ERR_BUFFER, "MPI_Reduce_local", "MPI_IN_PLACE is not allowed");
    void *a, *b;
    if (mdt_is_contig(t, count, inbuf, &a) && mdt_is_contig(t, count, inoutbuf, &b))
        return mop_apply(&p, a, b, count) ? mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Reduce_local", NULL)
                                          : MPI_SUCCESS;
    size_t len = (size_t)(count * t->size);
    char *x = malloc(len), *y = malloc(len);
    if (!x || !y) err = MPI_ERR_NO_MEM;
    if (!err) {
        mdt_pack(t, inbuf, count, x);
        mdt_pack(t, inoutbuf, count, y);
        err = mop_apply(&p, x, y, count);
        if (!err) mdt_unpack(t, inoutbuf, count, y);
    }
    free(x);
    free(y);
    return err ? mpi_err(NULL, err, "MPI_Reduce_local", NULL) : MPI_SUCCESS;
}
