/* The neighbour collectives (MPI 3.1 §7.6): MPI_Neighbor_allgather(v) and
 * MPI_Neighbor_alltoall(v, w) on Cartesian, graph and distributed-graph
 * communicators, blocking, non-blocking and persistent, as schedules of
 * src/coll (cg_neighbor: every message at once).  The neighbourhood and
 * the tags that keep several edges between one pair apart come from
 * topo.c (mtopo_neighbors). */
#include "mpi/mcoll.h"

#include <stdlib.h>

typedef struct nb_call {
    bool alltoall;
    const void *sbuf;
    int scount;
    const int *scounts, *sdispls;
    const MPI_Aint *sadispls;
    MPI_Datatype stype;
    const MPI_Datatype *stypes;
    void *rbuf;
    int rcount;
    const int *rcounts, *rdispls;
    const MPI_Aint *radispls;
    MPI_Datatype rtype;
    const MPI_Datatype *rtypes;
} nb_call_t;

/* What the schedule reads while it is built, freed with the call. */
typedef struct nb_keep {
    mtopo_nbrs_t nb;
    coll_nbr_t desc;
    int *ones, *idx; /* counts of 1 and index displacements for the plain forms */
} nb_keep_t;

static int types_of(mcomm_t *c, int n, const MPI_Datatype *h, mdt_type_t ***out, const char *fname)
{
    int err;
    if (n && !h) return mpi_err(c, MPI_ERR_ARG, fname, "datatypes are NULL");
    *out = malloc(sizeof **out * (size_t)(n ? n : 1));
    if (!*out) return mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
    for (int i = 0; i < n; i++)
        if (!((*out)[i] = mdt_get_committed(h[i], &err))) return mpi_err(c, err, fname, NULL);
    return MPI_SUCCESS;
}

/* One side of n blocks: plain (count elements of t at index i), v (counts,
 * displs in extents) or w (counts, byte displacements, types). */
static int nb_side(mcoll_t *m, int side, void *buf, int n, int count, const int *counts,
                   const int *displs, const MPI_Aint *adispls, mdt_type_t *t, mdt_type_t **ts,
                   bool in, size_t **off, size_t **len, nb_keep_t *k, const char *fname)
{
    mcomm_t *c = m->comm;
    if (!counts) { /* plain: block i is count elements at i * count extents */
        int *cs = malloc(sizeof(int) * (size_t)(2 * n + 1));
        if (!cs) return MPI_ERR_NO_MEM;
        for (int i = 0; i < n; i++) {
            cs[i] = count;
            cs[n + i] = i * count;
        }
        free(side == COLL_SBUF ? k->ones : k->idx);
        if (side == COLL_SBUF) k->ones = cs;
        else k->idx = cs;
        counts = cs;
        displs = cs + n;
    } else {
        if (n && (!displs && !adispls)) return mpi_err(c, MPI_ERR_ARG, fname, "displacements are NULL");
        for (int i = 0; i < n; i++)
            if (counts[i] < 0) return mpi_err(c, MPI_ERR_COUNT, fname, "negative count");
    }
    return mcoll_side_va(m, side, buf, n, counts, displs, adispls, t, ts, false, in, !in, off, len);
}

static int nb_any(const nb_call_t *k, MPI_Comm comm, mcoll_mode_t mode, MPI_Request *req,
                  const char *fname)
{
    mcomm_t *c;
    int err = mcoll_check_comm(comm, &c, fname);
    if (err) return err;
    nb_keep_t *keep = calloc(1, sizeof *keep);
    if (!keep) return mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
    mdt_type_t *st = NULL, *rt = NULL, **sts = NULL, **rts = NULL;
    mcoll_t *m = NULL;
    if ((err = mtopo_neighbors(c, &keep->nb)))
        err = mpi_err(c, err, fname, err == MPI_ERR_TOPOLOGY ? "the communicator has no topology" : NULL);
    int nin = keep->nb.nin, nout = keep->nb.nout;
    bool w = k->rtypes != NULL;
    if (!err && (k->sbuf == MPI_IN_PLACE || k->rbuf == MPI_IN_PLACE))
        err = mpi_err(c, MPI_ERR_BUFFER, fname, "MPI_IN_PLACE is not allowed here");
    if (!err && w) {
        err = types_of(c, nout, k->stypes, &sts, fname);
        if (!err) err = types_of(c, nin, k->rtypes, &rts, fname);
        if (!err) {
            st = nout ? sts[0] : NULL;
            rt = nin ? rts[0] : NULL;
        }
    } else if (!err) {
        err = mcoll_check_buf(c, k->sbuf, k->scounts ? 0 : k->scount, k->stype, &st, false, fname);
        if (!err) err = mcoll_check_buf(c, k->rbuf, k->rcounts ? 0 : k->rcount, k->rtype, &rt, false, fname);
    }
    if (!err && mode != MCOLL_BLOCKING && !req) err = mpi_err(c, MPI_ERR_REQUEST, fname, "request is NULL");
    if (!err && !(m = mcoll_new(c))) err = mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
    if (!err) {
        /* receive side: block i from in-neighbour i */
        int e = nb_side(m, COLL_RBUF, k->rbuf, nin, k->rcount, k->rcounts, k->rdispls, k->radispls,
                        rt, rts, false, &m->off, &m->len, keep, fname);
        if (!e && k->alltoall)
            e = nb_side(m, COLL_SBUF, (void *)(uintptr_t)k->sbuf, nout, k->scount, k->scounts,
                        k->sdispls, k->sadispls, st, sts, true, &m->soff, &m->slen, keep, fname);
        else if (!e)
            e = mcoll_side(m, COLL_SBUF, (void *)(uintptr_t)k->sbuf, k->scount, st, true, false);
        if (e) err = e == MPI_ERR_NO_MEM ? mpi_err(c, e, fname, NULL) : e;
    }
    if (err) {
        mcoll_free(m);
        free(sts);
        free(rts);
        mcoll_nbr_free(keep);
        return err;
    }
    m->lay = (coll_layout_t){m->off, m->len};
    m->slay = (coll_layout_t){m->soff, m->slen};
    keep->desc = (coll_nbr_t){.nin = nin, .nout = nout, .in = keep->nb.in, .out = keep->nb.out,
                              .intag = keep->nb.intag, .outtag = keep->nb.outtag, .rlay = &m->lay,
                              .slay = k->alltoall ? &m->slay : NULL,
                              .sendlen = k->alltoall ? 0 : (size_t)k->scount * (size_t)st->size};
    m->args = (coll_args_t){.kind = COLL_NEIGHBOR, .vform = true, .root = -1, .nbr = &keep->desc};
    if (w) { /* every block's type lives as long as the request */
        for (int i = 0; i < nin; i++) mdt_retain(rts[i]);
        for (int i = 0; i < nout; i++) mdt_retain(sts[i]);
        m->nbr_rtypes = rts;
        m->nbr_stypes = sts;
        m->nbr_nin = nin;
        m->nbr_nout = nout;
    }
    m->nbr_keep = keep; /* the schedule is built in mcoll_launch; freed with m */
    return mcoll_launch(m, mode, req, fname);
}

/* Free what nb_any kept for building (mcoll_free calls this). */
void mcoll_nbr_free(void *p)
{
    nb_keep_t *keep = p;
    if (!keep) return;
    free(keep->nb.in);
    free(keep->ones);
    free(keep->idx);
    free(keep);
}

MCOLL_FORMS(Neighbor_allgather, Ineighbor_allgather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm),
            nb_call_t,
            (.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf,
             .rcount = recvcount, .rtype = recvtype),
            nb_any)
MCOLL_FORMS(Neighbor_allgatherv, Ineighbor_allgatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm),
            nb_call_t,
            (.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf,
             .rcounts = recvcounts, .rdispls = displs, .rtype = recvtype),
            nb_any)
MCOLL_FORMS(Neighbor_alltoall, Ineighbor_alltoall,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm),
            nb_call_t,
            (.alltoall = true, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
             .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype),
            nb_any)
MCOLL_FORMS(Neighbor_alltoallv, Ineighbor_alltoallv,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm),
            nb_call_t,
            (.alltoall = true, .sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls,
             .stype = sendtype, .rbuf = recvbuf, .rcounts = recvcounts, .rdispls = rdispls,
             .rtype = recvtype),
            nb_any)
MCOLL_FORMS(Neighbor_alltoallw, Ineighbor_alltoallw,
            (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),
            nb_call_t,
            (.alltoall = true, .sbuf = sendbuf, .scounts = sendcounts, .sadispls = sdispls,
             .stypes = sendtypes, .rbuf = recvbuf, .rcounts = recvcounts, .radispls = rdispls,
             .rtypes = recvtypes),
            nb_any)
