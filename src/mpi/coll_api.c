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

static int bcast_any(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                     mcoll_mode_t mode, MPI_Request *req, const char *fname)
{
    mcomm_t *c;
    mdt_type_t *t;
    int err = mcoll_check_comm(comm, &c, fname);
    if (!err) err = mcoll_check_buf(c, buf, count, dt, &t, false, fname);
    if (!err) err = mcoll_check_root(c, root, fname);
    if (err) return err;
    if (mode != MCOLL_BLOCKING && !req) return mpi_err(c, MPI_ERR_REQUEST, fname, "request is NULL");
    mcoll_t *m = mcoll_new(c);
    if (!m) return mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
    bool is_root = c->rank == root;
    if (mcoll_side(m, COLL_RBUF, buf, count, t, is_root, !is_root)) {
        mcoll_free(m);
        return mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
    }
    m->args = (coll_args_t){.kind = COLL_BCAST, .root = root,
                            .count = (size_t)count * (size_t)t->size};
    return mcoll_launch(m, mode, req, fname);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    MPI_CHECK_STATE("MPI_Bcast");
    return bcast_any(buffer, count, datatype, root, comm, MCOLL_BLOCKING, NULL, "MPI_Bcast");
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request)
{
    mcoll_async_prepare();
    MPI_CHECK_STATE("MPI_Ibcast");
    return bcast_any(buffer, count, datatype, root, comm, MCOLL_NB, request, "MPI_Ibcast");
}

int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Info info, MPI_Request *request)
{
    (void)info;
    mcoll_async_prepare();
    MPI_CHECK_STATE("MPI_Bcast_init");
    return bcast_any(buffer, count, datatype, root, comm, MCOLL_PERSISTENT, request,
                     "MPI_Bcast_init");
}

/* ---- the reductions --------------------------------------------------------------------------- */

/* What a reduction call passes: its kind, and root for MPI_Reduce. */
typedef struct red_call {
    coll_kind_t kind;
    bool exclusive;
    int root;
    const int *counts; /* reduce_scatter: recvcounts; NULL for the block form */
    int bcount;        /* reduce_scatter_block: recvcount */
} red_call_t;

static int red_check(mcomm_t *c, const red_call_t *k, const void *sbuf, const void *rbuf,
                     int count, MPI_Datatype dt, MPI_Op op, mdt_type_t **t, mop_plan_t *p,
                     const char *fname)
{
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
    if (mop_plan(op, *t, dt, p) != MPI_SUCCESS)
        return mpi_err(c, MPI_ERR_OP, fname,
                       "invalid op, or an op that does not apply to the datatype");
    if (is_root && count && (*t)->size && sbuf == rbuf && k->kind != COLL_REDUCE_SCATTER)
        return mpi_err(c, MPI_ERR_BUFFER, fname, "send and receive buffers alias (use MPI_IN_PLACE)");
    return MPI_SUCCESS;
}

static int red_any(const red_call_t *k, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                   MPI_Op op, MPI_Comm comm, mcoll_mode_t mode, MPI_Request *req, const char *fname)
{
    mcomm_t *c;
    mdt_type_t *t;
    mop_plan_t p;
    int err = mcoll_check_comm(comm, &c, fname);
    if (err) return err;
    if (k->kind == COLL_REDUCE_SCATTER) { /* count: the whole vector */
        if (k->counts) {
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
    if ((err = red_check(c, k, sbuf, rbuf, count, dt, op, &t, &p, fname))) return err;
    if (mode != MCOLL_BLOCKING && !req) return mpi_err(c, MPI_ERR_REQUEST, fname, "request is NULL");
    mcoll_t *m = mcoll_new(c);
    if (!m) return mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
    bool inplace = sbuf == MPI_IN_PLACE;
    bool is_root = k->kind != COLL_REDUCE || c->rank == k->root;
    bool out = is_root && !(k->exclusive && c->rank == 0);
    int mine = count;
    m->args = (coll_args_t){.kind = k->kind, .root = k->root, .inplace = inplace,
                            .exclusive = k->exclusive, .count = (size_t)count};
    if (k->kind == COLL_REDUCE_SCATTER) {
        if (!(m->counts = malloc(sizeof(size_t) * (size_t)c->size))) err = MPI_ERR_NO_MEM;
        for (int i = 0; !err && i < c->size; i++)
            m->counts[i] = (size_t)(k->counts ? k->counts[i] : k->bcount);
        m->args.counts = m->counts;
        m->uniform = !k->counts; /* the block form: counts follow from count */
        mine = inplace ? count : (k->counts ? k->counts[c->rank] : k->bcount);
    }
    mcoll_set_op(m, &p);
    if (!err && !inplace) err = mcoll_side(m, COLL_SBUF, (void *)(uintptr_t)sbuf, count, t, true, false);
    if (!err && (is_root || inplace)) err = mcoll_side(m, COLL_RBUF, rbuf, mine, t, inplace, out);
    if (err) {
        mcoll_free(m);
        return mpi_err(c, err, fname, NULL);
    }
    return mcoll_launch(m, mode, req, fname);
}

#define RED_FORMS(Name, IName, kindv, excl) \
    int MPI_##Name(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,        \
                   MPI_Op op, MPI_Comm comm)                                                    \
    {                                                                                           \
        MPI_CHECK_STATE("MPI_" #Name);                                                          \
        red_call_t k = {.kind = kindv, .exclusive = excl};                                      \
        return red_any(&k, sendbuf, recvbuf, count, datatype, op, comm, MCOLL_BLOCKING, NULL,   \
                       "MPI_" #Name);                                                           \
    }                                                                                           \
    int MPI_##IName(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,       \
                    MPI_Op op, MPI_Comm comm, MPI_Request *request)                             \
    {                                                                                           \
        mcoll_async_prepare();                                                                  \
        MPI_CHECK_STATE("MPI_" #IName);                                                         \
        red_call_t k = {.kind = kindv, .exclusive = excl};                                      \
        return red_any(&k, sendbuf, recvbuf, count, datatype, op, comm, MCOLL_NB, request,      \
                       "MPI_" #IName);                                                          \
    }                                                                                           \
    int MPI_##Name##_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, \
                          MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)        \
    {                                                                                           \
        (void)info;                                                                             \
        mcoll_async_prepare();                                                                  \
        MPI_CHECK_STATE("MPI_" #Name "_init");                                                  \
        red_call_t k = {.kind = kindv, .exclusive = excl};                                      \
        return red_any(&k, sendbuf, recvbuf, count, datatype, op, comm, MCOLL_PERSISTENT,       \
                       request, "MPI_" #Name "_init");                                          \
    }

RED_FORMS(Allreduce, Iallreduce, COLL_ALLREDUCE, false)
RED_FORMS(Scan, Iscan, COLL_SCAN, false)
RED_FORMS(Exscan, Iexscan, COLL_SCAN, true)

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    MPI_CHECK_STATE("MPI_Reduce");
    red_call_t k = {.kind = COLL_REDUCE, .root = root};
    return red_any(&k, sendbuf, recvbuf, count, datatype, op, comm, MCOLL_BLOCKING, NULL,
                   "MPI_Reduce");
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request)
{
    mcoll_async_prepare();
    MPI_CHECK_STATE("MPI_Ireduce");
    red_call_t k = {.kind = COLL_REDUCE, .root = root};
    return red_any(&k, sendbuf, recvbuf, count, datatype, op, comm, MCOLL_NB, request,
                   "MPI_Ireduce");
}

int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    mcoll_async_prepare();
    MPI_CHECK_STATE("MPI_Reduce_init");
    red_call_t k = {.kind = COLL_REDUCE, .root = root};
    return red_any(&k, sendbuf, recvbuf, count, datatype, op, comm, MCOLL_PERSISTENT, request,
                   "MPI_Reduce_init");
}

#define RS_FORMS(Name, IName, cparam, setk)                                                              \
    int MPI_##Name(const void *sendbuf, void *recvbuf, cparam, MPI_Datatype datatype, MPI_Op op, \
                   MPI_Comm comm)                                                               \
    {                                                                                           \
        MPI_CHECK_STATE("MPI_" #Name);                                                          \
        red_call_t k = {.kind = COLL_REDUCE_SCATTER};                                           \
        setk;                                                                                   \
        return red_any(&k, sendbuf, recvbuf, 0, datatype, op, comm, MCOLL_BLOCKING, NULL,       \
                       "MPI_" #Name);                                                           \
    }                                                                                           \
    int MPI_##IName(const void *sendbuf, void *recvbuf, cparam, MPI_Datatype datatype,          \
                    MPI_Op op, MPI_Comm comm, MPI_Request *request)                             \
    {                                                                                           \
        mcoll_async_prepare();                                                                  \
        MPI_CHECK_STATE("MPI_" #IName);                                                         \
        red_call_t k = {.kind = COLL_REDUCE_SCATTER};                                           \
        setk;                                                                                   \
        return red_any(&k, sendbuf, recvbuf, 0, datatype, op, comm, MCOLL_NB, request,          \
                       "MPI_" #IName);                                                          \
    }                                                                                           \
    int MPI_##Name##_init(const void *sendbuf, void *recvbuf, cparam, MPI_Datatype datatype,    \
                          MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)        \
    {                                                                                           \
        (void)info;                                                                             \
        mcoll_async_prepare();                                                                  \
        MPI_CHECK_STATE("MPI_" #Name "_init");                                                  \
        red_call_t k = {.kind = COLL_REDUCE_SCATTER};                                           \
        setk;                                                                                   \
        return red_any(&k, sendbuf, recvbuf, 0, datatype, op, comm, MCOLL_PERSISTENT, request,  \
                       "MPI_" #Name "_init");                                                   \
    }

RS_FORMS(Reduce_scatter, Ireduce_scatter, const int recvcounts[],
         if (!recvcounts) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Reduce_scatter", "recvcounts is NULL");
         k.counts = recvcounts)
RS_FORMS(Reduce_scatter_block, Ireduce_scatter_block, int recvcount, k.bcount = recvcount)

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
