/* The collectives that move data without combining it: Gather(v),
 * Scatter(v), Allgather(v), Alltoall(v, w), each blocking, non-blocking
 * and persistent, over the schedules of src/coll (mcoll.h). */
#include "mpi/mcoll.h"

#include <stdlib.h>

/* One call's arguments, whichever of the nine it is. */
typedef struct mv_call {
    coll_kind_t kind;
    bool vform;
    const void *sbuf;
    int scount;
    const int *scounts, *sdispls;
    MPI_Datatype stype;
    const MPI_Datatype *stypes;
    void *rbuf;
    int rcount;
    const int *rcounts, *rdispls;
    MPI_Datatype rtype;
    const MPI_Datatype *rtypes;
    int root;
} mv_call_t;

static int check_counts(mcomm_t *c, const int *counts, const int *displs, const char *fname)
{
    if (!counts || !displs) return mpi_err(c, MPI_ERR_ARG, fname, "counts or displacements are NULL");
    for (int i = 0; i < mcomm_peers(c); i++)
        if (counts[i] < 0) return mpi_err(c, MPI_ERR_COUNT, fname, "negative count");
    return MPI_SUCCESS;
}

/* A w-form side: every type committed; fills ts. */
static int check_types(mcomm_t *c, const MPI_Datatype *types, mdt_type_t **ts, const char *fname)
{
    int err;
    if (!types) return mpi_err(c, MPI_ERR_ARG, fname, "datatypes are NULL");
    for (int i = 0; i < mcomm_peers(c); i++)
        if (!(ts[i] = mdt_get_committed(types[i], &err))) return mpi_err(c, err, fname, NULL);
    return MPI_SUCCESS;
}

/* A regular layout of n blocks of blen bytes. */
static int regular(int n, size_t blen, size_t **off, size_t **len)
{
    *off = malloc(sizeof(size_t) * (size_t)n);
    *len = malloc(sizeof(size_t) * (size_t)n);
    if (!*off || !*len) return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) {
        (*off)[i] = (size_t)i * blen;
        (*len)[i] = blen;
    }
    return MPI_SUCCESS;
}

/* Gather, Gatherv, Scatter, Scatterv: the root's side is the v side. */
static int rooted(mcoll_t *m, const mv_call_t *k, mdt_type_t *st, mdt_type_t *rt, const char *fname)
{
    mcomm_t *c = m->comm;
    bool gather = k->kind == COLL_GATHER, is_root = mcoll_is_root(c, k->root);
    bool inplace = !c->inter && is_root && (gather ? k->sbuf == MPI_IN_PLACE : k->rbuf == MPI_IN_PLACE);
    int n = mcomm_peers(c), err = MPI_SUCCESS;
    /* the many-block side at the root, the one-block side elsewhere */
    int vside = gather ? COLL_RBUF : COLL_SBUF, oside = gather ? COLL_SBUF : COLL_RBUF;
    mdt_type_t *vt = gather ? rt : st, *ot = gather ? st : rt;
    void *vbuf = gather ? k->rbuf : (void *)(uintptr_t)k->sbuf;
    void *obuf = gather ? (void *)(uintptr_t)k->sbuf : k->rbuf;
    int vcount = gather ? k->rcount : k->scount, ocount = gather ? k->scount : k->rcount;
    const int *vcounts = gather ? k->rcounts : k->scounts, *vdispls = gather ? k->rdispls : k->sdispls;
    m->args = (coll_args_t){.kind = k->kind, .root = mcoll_root_arg(c, k->root), .inplace = inplace,
                            .vform = k->vform};
    if (is_root) {
        if (k->vform) {
            if ((err = check_counts(c, vcounts, vdispls, fname))) return err;
            err = mcoll_side_v(m, vside, vbuf, n, vcounts, vdispls, vt, NULL, false,
                               !gather || inplace, gather, &m->off, &m->len);
            m->lay = (coll_layout_t){m->off, m->len};
            m->args.lay = &m->lay;
        } else {
            err = mcoll_side(m, vside, vbuf, (MPI_Count)vcount * n, vt, !gather || inplace, gather);
            m->args.count = (size_t)vcount * (size_t)vt->size;
        }
    }
    if (!err && !inplace && ot) {
        err = mcoll_side(m, oside, obuf, ocount, ot, gather, !gather);
        m->args.mylen = (size_t)ocount * (size_t)ot->size;
        if (!is_root) m->args.count = m->args.mylen;
    }
    return err;
}

static int everyone(mcoll_t *m, const mv_call_t *k, mdt_type_t *st, mdt_type_t *rt,
                    mdt_type_t **sts, mdt_type_t **rts, const char *fname)
{
    mcomm_t *c = m->comm;
    int n = mcomm_peers(c), err;
    bool inplace = k->sbuf == MPI_IN_PLACE, w = k->rtypes != NULL;
    /* vform: on an intercommunicator the v forms take the direct plan */
    m->args = (coll_args_t){.kind = k->kind, .inplace = inplace, .vform = c->inter && k->vform};
    /* receive side: every rank's block */
    if (k->vform) {
        if ((err = check_counts(c, k->rcounts, k->rdispls, fname))) return err;
        err = mcoll_side_v(m, COLL_RBUF, k->rbuf, n, k->rcounts, k->rdispls, rt, w ? rts : NULL, w,
                           inplace, true, &m->off, &m->len);
    } else {
        size_t blen = (size_t)k->rcount * (size_t)rt->size;
        err = mcoll_side(m, COLL_RBUF, k->rbuf, (MPI_Count)k->rcount * n, rt, inplace, true);
        if (!err) err = regular(n, blen, &m->off, &m->len);
        /* the layouts follow from the block sizes: the schedule can be cached */
        m->uniform = true;
        m->args.count = blen;
        m->args.mylen = inplace || !st ? 0 : (size_t)k->scount * (size_t)st->size;
    }
    if (err) return err;
    m->lay = (coll_layout_t){m->off, m->len};
    m->args.lay = &m->lay;
    if (inplace) return MPI_SUCCESS;
    if (k->kind == COLL_ALLGATHER && st) /* the own block's length (the inter direct plan's) */
        m->args.mylen = (size_t)k->scount * (size_t)st->size;
    if (k->kind == COLL_ALLGATHER) /* the own block */
        return mcoll_side(m, COLL_SBUF, (void *)(uintptr_t)k->sbuf, k->scount, st, true, false);
    if (k->vform) {
        if ((err = check_counts(c, k->scounts, k->sdispls, fname))) return err;
        err = mcoll_side_v(m, COLL_SBUF, (void *)(uintptr_t)k->sbuf, n, k->scounts, k->sdispls, st,
                           w ? sts : NULL, w, true, false, &m->soff, &m->slen);
    } else {
        err = mcoll_side(m, COLL_SBUF, (void *)(uintptr_t)k->sbuf, (MPI_Count)k->scount * n, st,
                         true, false);
        if (!err) err = regular(n, (size_t)k->scount * (size_t)st->size, &m->soff, &m->slen);
    }
    m->slay = (coll_layout_t){m->soff, m->slen};
    m->args.slay = &m->slay;
    return err;
}

/* A blocking Allgather or Alltoall by the direct path when it serves the
 * call (equal blocks, small, few ranks): its MPI error; -1 when not. */
static int move_direct(mcomm_t *c, const mv_call_t *k, mdt_type_t *st, mdt_type_t *rt,
                       const char *fname)
{
    int n = c->size;
    size_t blen = (size_t)k->rcount * (size_t)rt->size;
    bool inplace = k->sbuf == MPI_IN_PLACE;
    MPI_Count scount = k->kind == COLL_ALLTOALL ? (MPI_Count)k->scount * n : k->scount;
    if (!mcoll_direct_ok(c, k->kind, blen * (size_t)n, NULL)) return -1;
    /* a send block of another length (an erroneous call) is reported by
     * the receives, on the same path on every rank */
    size_t sblen = inplace ? blen : (size_t)k->scount * (size_t)st->size;
    mcoll_dbuf_t s = {k->sbuf, scount, inplace ? NULL : st, true, false};
    mcoll_dbuf_t r = {k->rbuf, (MPI_Count)k->rcount * n, rt, inplace, true};
    return mcoll_direct(c, &(coll_direct_t){.kind = k->kind, .bytes = blen, .sbytes = sblen},
                        &s, &r, fname);
}

/* The same for a blocking Gather or Scatter: the root's many-block side
 * and every rank's one block. */
static int rooted_direct(mcomm_t *c, const mv_call_t *k, mdt_type_t *st, mdt_type_t *rt,
                         const char *fname)
{
    bool gather = k->kind == COLL_GATHER, is_root = c->rank == k->root;
    int n = c->size;
    mdt_type_t *vt = gather ? rt : st, *ot = gather ? st : rt;
    const void *vbuf = gather ? k->rbuf : k->sbuf, *obuf = gather ? k->sbuf : k->rbuf;
    int vcount = gather ? k->rcount : k->scount, ocount = gather ? k->scount : k->rcount;
    bool inplace = is_root && obuf == MPI_IN_PLACE;
    size_t olen = inplace ? 0 : (size_t)ocount * (size_t)ot->size;
    size_t vlen = is_root ? (size_t)vcount * (size_t)vt->size : olen;
    if (inplace) olen = vlen;
    if (!mcoll_direct_ok(c, k->kind, vlen * (size_t)n, NULL)) return -1;
    /* the root's blocks (output of a gather, input of a scatter), and the
     * rank's own block (input of a gather, output of a scatter) */
    mcoll_dbuf_t v = {vbuf, (MPI_Count)vcount * n, is_root ? vt : NULL, !gather || inplace, gather};
    mcoll_dbuf_t o = {obuf, ocount, inplace ? NULL : ot, gather, !gather};
    coll_direct_t d = {.kind = k->kind, .root = k->root};
    if (gather) d.bytes = vlen, d.sbytes = olen;
    else d.bytes = olen, d.sbytes = vlen;
    return gather ? mcoll_direct(c, &d, &o, &v, fname) : mcoll_direct(c, &d, &v, &o, fname);
}

static int move_any(const mv_call_t *k, MPI_Comm comm, mcoll_mode_t mode, MPI_Request *req,
                    const char *fname)
{
    mcomm_t *c;
    mdt_type_t *st = NULL, *rt = NULL, **sts = NULL, **rts = NULL;
    int err = mcoll_check_comm(comm, &c, fname);
    if (err) return err;
    bool is_root = mcoll_is_root(c, k->root), rooted_kind = k->kind == COLL_GATHER || k->kind == COLL_SCATTER;
    if (rooted_kind && (err = mcoll_check_root(c, k->root, fname))) return err;
    bool w = k->rtypes != NULL;
    int n = mcomm_peers(c);
    /* which buffers this rank uses, and where MPI_IN_PLACE may stand */
    bool use_s = !rooted_kind || k->kind == COLL_GATHER || is_root;
    bool use_r = !rooted_kind || k->kind == COLL_SCATTER || is_root;
    bool s_inplace_ok = !rooted_kind || (k->kind == COLL_GATHER && is_root);
    bool r_inplace_ok = k->kind == COLL_SCATTER && is_root;
    if (c->inter) { /* MPI 4.0 §6.2.2: the root's group sends or receives, never both; no in place */
        bool idle = rooted_kind && k->root == MPI_PROC_NULL;
        use_s = !rooted_kind || (!idle && (k->kind == COLL_GATHER) != is_root);
        use_r = !rooted_kind || (!idle && (k->kind == COLL_SCATTER) != is_root);
        s_inplace_ok = r_inplace_ok = false;
        if (!rooted_kind && (k->sbuf == MPI_IN_PLACE || k->rbuf == MPI_IN_PLACE))
            return mpi_err(c, MPI_ERR_BUFFER, fname, "MPI_IN_PLACE on an intercommunicator");
    }
    if (w) {
        sts = malloc(sizeof *sts * (size_t)n);
        rts = malloc(sizeof *rts * (size_t)n);
        if (!sts || !rts) err = mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
        if (!err && k->sbuf != MPI_IN_PLACE) err = check_types(c, k->stypes, sts, fname);
        if (!err) err = check_types(c, k->rtypes, rts, fname);
        if (!err && (k->rbuf == MPI_IN_PLACE))
            err = mpi_err(c, MPI_ERR_BUFFER, fname, "MPI_IN_PLACE is not allowed here");
        st = sts ? sts[0] : NULL;
        rt = rts ? rts[0] : NULL;
    } else {
        int scount = k->vform && (k->kind == COLL_SCATTER || k->kind == COLL_ALLTOALL) ? 0 : k->scount;
        int rcount = k->vform && k->kind != COLL_SCATTER ? 0 : k->rcount;
        if (use_s && !(k->sbuf == MPI_IN_PLACE && s_inplace_ok))
            err = mcoll_check_buf(c, k->sbuf, scount, k->stype, &st, false, fname);
        if (!err && use_r && !(k->rbuf == MPI_IN_PLACE && r_inplace_ok))
            err = mcoll_check_buf(c, k->rbuf, rcount, k->rtype, &rt, false, fname);
        /* in place, the other side's type describes the blocks */
        if (!err && !rt && use_r) err = mcoll_check_buf(c, NULL, 0, k->rtype, &rt, true, fname);
    }
    if (!err && mode != MCOLL_BLOCKING && !req)
        err = mpi_err(c, MPI_ERR_REQUEST, fname, "request is NULL");
    if (!err && mode == MCOLL_BLOCKING && !w && !k->vform && !c->inter) {
        int e = rooted_kind ? rooted_direct(c, k, st, rt, fname) : move_direct(c, k, st, rt, fname);
        if (e >= 0) return e;
    }
    mcoll_t *m = err ? NULL : mcoll_new(c);
    if (!err && !m) err = mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
    if (!err) {
        int e = rooted_kind ? rooted(m, k, st, rt, fname) : everyone(m, k, st, rt, sts, rts, fname);
        if (e) {
            mcoll_free(m);
            m = NULL;
            err = e == MPI_ERR_NO_MEM ? mpi_err(c, e, fname, NULL) : e;
        }
    }
    if (w && m) /* every block's type lives as long as the request */
        for (int i = 0; i < n; i++) {
            mdt_retain(rts[i]);
            if (k->sbuf != MPI_IN_PLACE) mdt_retain(sts[i]);
        }
    if (w && m) {
        m->nw = n;
        m->wtypes = rts;
        m->wstypes = k->sbuf != MPI_IN_PLACE ? sts : NULL;
        if (!m->wstypes) free(sts);
    } else {
        free(sts);
        free(rts);
    }
    return err ? err : mcoll_launch(m, mode, req, fname);
}

MCOLL_FORMS(Gather, Igather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
            mv_call_t,
            (.kind = COLL_GATHER, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
             .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype, .root = root),
            move_any)
MCOLL_FORMS(Gatherv, Igatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
             MPI_Comm comm),
            mv_call_t,
            (.kind = COLL_GATHER, .vform = true, .sbuf = sendbuf, .scount = sendcount,
             .stype = sendtype, .rbuf = recvbuf, .rcounts = recvcounts, .rdispls = displs,
             .rtype = recvtype, .root = root),
            move_any)
MCOLL_FORMS(Scatter, Iscatter,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
            mv_call_t,
            (.kind = COLL_SCATTER, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
             .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype, .root = root),
            move_any)
MCOLL_FORMS(Scatterv, Iscatterv,
            (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
            mv_call_t,
            (.kind = COLL_SCATTER, .vform = true, .sbuf = sendbuf, .scounts = sendcounts,
             .sdispls = displs, .stype = sendtype, .rbuf = recvbuf, .rcount = recvcount,
             .rtype = recvtype, .root = root),
            move_any)
MCOLL_FORMS(Allgather, Iallgather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm),
            mv_call_t,
            (.kind = COLL_ALLGATHER, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
             .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype, .root = -1),
            move_any)
MCOLL_FORMS(Allgatherv, Iallgatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm),
            mv_call_t,
            (.kind = COLL_ALLGATHER, .vform = true, .sbuf = sendbuf, .scount = sendcount,
             .stype = sendtype, .rbuf = recvbuf, .rcounts = recvcounts, .rdispls = displs,
             .rtype = recvtype, .root = -1),
            move_any)
MCOLL_FORMS(Alltoall, Ialltoall,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm),
            mv_call_t,
            (.kind = COLL_ALLTOALL, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
             .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype, .root = -1),
            move_any)
MCOLL_FORMS(Alltoallv, Ialltoallv,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm),
            mv_call_t,
            (.kind = COLL_ALLTOALL, .vform = true, .sbuf = sendbuf, .scounts = sendcounts,
             .sdispls = sdispls, .stype = sendtype, .rbuf = recvbuf, .rcounts = recvcounts,
             .rdispls = rdispls, .rtype = recvtype, .root = -1),
            move_any)
MCOLL_FORMS(Alltoallw, Ialltoallw,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),
            mv_call_t,
            (.kind = COLL_ALLTOALL, .vform = true, .sbuf = sendbuf, .scounts = sendcounts,
             .sdispls = sdispls, .stypes = sendtypes, .rbuf = recvbuf, .rcounts = recvcounts,
             .rdispls = rdispls, .rtypes = recvtypes, .root = -1),
            move_any)
