/* MPI-4 large counts (lcount.h): the _c forms of the collectives. */
#include "mpi/datatype.h"
#include "mpi/handle.h"
#include "mpi/lcount.h"
#include "mpi/mpi_int.h"

#include <limits.h>
#include <stdlib.h>

static bool user_op(MPI_Op op)
{
    return MH_KIND(op) == MH_KIND_DYNAMIC;
}

/* How many ranks the per-rank arrays of a collective on comm have. */
static int peers(MPI_Comm comm)
{
    mcomm_t *c = mcomm_get(comm);
    return c ? mcomm_peers(c) : 0;
}

/* Does this rank read a rooted collective's per-rank arrays (the root's
 * only: elsewhere they may be anything, even shorter). */
static bool reads_arrays(MPI_Comm comm, int root)
{
    mcomm_t *c = mcomm_get(comm);
    if (!c) return false;
    return c->inter ? root == MPI_ROOT : c->rank == root;
}

/* ---- collectives --------------------------------------------------------------------------- */

/* The three forms of a collective: blocking, MPI_I..., ..._init. */
enum { LC_B, LC_I, LC_P };
#define LC_CALL(Name, IName, ...)                                                             \
    (mode == LC_B   ? MPI_##Name(__VA_ARGS__)                                                 \
     : mode == LC_I ? MPI_##IName(__VA_ARGS__, req)                                           \
                    : MPI_##Name##_init(__VA_ARGS__, info, req))
#define LC_UNPAREN(...) __VA_ARGS__
#define LC_FORMS(Name, IName, fn, PARAMS, ARGS)                                               \
    int MPI_##Name##_c PARAMS                                                                 \
    {                                                                                         \
        return fn(LC_UNPAREN ARGS, LC_B, MPI_INFO_NULL, NULL, "MPI_" #Name "_c");             \
    }                                                                                         \
    int MPI_##IName##_c(LC_UNPAREN PARAMS, MPI_Request *request)                              \
    {                                                                                         \
        return fn(LC_UNPAREN ARGS, LC_I, MPI_INFO_NULL, request, "MPI_" #IName "_c");         \
    }                                                                                         \
    int MPI_##Name##_init_c(LC_UNPAREN PARAMS, MPI_Info info, MPI_Request *request)           \
    {                                                                                         \
        return fn(LC_UNPAREN ARGS, LC_P, info, request, "MPI_" #Name "_init_c");              \
    }

static int bcast(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm, int mode,
                 MPI_Info info, MPI_Request *req, const char *fn)
{
    mlc_t x;
    int err = mlc_of(count, dt, &x, comm, fn);
    return err ? err : mlc_done(&x, LC_CALL(Bcast, Ibcast, buf, x.n, x.t, root, comm));
}
LC_FORMS(Bcast, Ibcast, bcast,
         (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm),
         (buffer, count, datatype, root, comm))

/* Gather, Scatter, Allgather, Alltoall (root -1 for the last two). */
typedef enum { LC_GATHER, LC_SCATTER, LC_ALLGATHER, LC_ALLTOALL } lc_move_t;

static int move(lc_move_t kind, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm, int mode, MPI_Info info, MPI_Request *req, const char *fn)
{
    mlc_t s, r;
    int err = mlc_of(sendcount, sendtype, &s, comm, fn);
    if (err) return err;
    if ((err = mlc_of(recvcount, recvtype, &r, comm, fn))) return mlc_done(&s, err);
    switch (kind) {
    case LC_GATHER:
        err = LC_CALL(Gather, Igather, sendbuf, s.n, s.t, recvbuf, r.n, r.t, root, comm);
        break;
    case LC_SCATTER:
        err = LC_CALL(Scatter, Iscatter, sendbuf, s.n, s.t, recvbuf, r.n, r.t, root, comm);
        break;
    case LC_ALLGATHER:
        err = LC_CALL(Allgather, Iallgather, sendbuf, s.n, s.t, recvbuf, r.n, r.t, comm);
        break;
    default: err = LC_CALL(Alltoall, Ialltoall, sendbuf, s.n, s.t, recvbuf, r.n, r.t, comm);
    }
    mlc_done(&r, 0);
    return mlc_done(&s, err);
}

#define LC_MOVEP                                                                              \
    (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,           \
     MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
#define LC_MOVE0P                                                                             \
    (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,           \
     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
LC_FORMS(Gather, Igather, move, LC_MOVEP,
         (LC_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))
LC_FORMS(Scatter, Iscatter, move, LC_MOVEP,
         (LC_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))
LC_FORMS(Allgather, Iallgather, move, LC_MOVE0P,
         (LC_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, -1, comm))
LC_FORMS(Alltoall, Ialltoall, move, LC_MOVE0P,
         (LC_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, -1, comm))

/* Reduce, Allreduce, Scan, Exscan, Reduce_scatter_block (root -1 but for
 * Reduce; count: recvcount for the last). */
typedef enum { LC_REDUCE, LC_ALLREDUCE, LC_SCAN, LC_EXSCAN, LC_RSB } lc_red_t;

static int reduce(lc_red_t kind, const void *sendbuf, void *recvbuf, MPI_Count count,
                  MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm, int mode, MPI_Info info,
                  MPI_Request *req, const char *fn)
{
    if (count > INT_MAX && user_op(op))
        return mlc_err(comm, MPI_ERR_COUNT, fn,
                      "a user op over more than INT_MAX elements is not supported");
    mlc_t x;
    int err = mlc_of(count, dt, &x, comm, fn);
    if (err) return err;
    switch (kind) {
    case LC_REDUCE:
        err = LC_CALL(Reduce, Ireduce, sendbuf, recvbuf, x.n, x.t, op, root, comm);
        break;
    case LC_ALLREDUCE:
        err = LC_CALL(Allreduce, Iallreduce, sendbuf, recvbuf, x.n, x.t, op, comm);
        break;
    case LC_SCAN: err = LC_CALL(Scan, Iscan, sendbuf, recvbuf, x.n, x.t, op, comm); break;
    case LC_EXSCAN: err = LC_CALL(Exscan, Iexscan, sendbuf, recvbuf, x.n, x.t, op, comm); break;
    default:
        err = LC_CALL(Reduce_scatter_block, Ireduce_scatter_block, sendbuf, recvbuf, x.n, x.t, op,
                      comm);
    }
    return mlc_done(&x, err);
}

#define LC_REDP                                                                               \
    (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,    \
     MPI_Comm comm)
LC_FORMS(Reduce, Ireduce, reduce,
         (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
          int root, MPI_Comm comm),
         (LC_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm))
LC_FORMS(Allreduce, Iallreduce, reduce, LC_REDP,
         (LC_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, -1, comm))
LC_FORMS(Scan, Iscan, reduce, LC_REDP, (LC_SCAN, sendbuf, recvbuf, count, datatype, op, -1, comm))
LC_FORMS(Exscan, Iexscan, reduce, LC_REDP,
         (LC_EXSCAN, sendbuf, recvbuf, count, datatype, op, -1, comm))
LC_FORMS(Reduce_scatter_block, Ireduce_scatter_block, reduce,
         (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
          MPI_Op op, MPI_Comm comm),
         (LC_RSB, sendbuf, recvbuf, recvcount, datatype, op, -1, comm))

int MPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op)
{
    if (count > INT_MAX && user_op(op))
        return mlc_err(MPI_COMM_WORLD, MPI_ERR_COUNT, "MPI_Reduce_local_c",
                      "a user op over more than INT_MAX elements is not supported");
    mlc_t x;
    int err = mlc_of(count, datatype, &x, MPI_COMM_WORLD, "MPI_Reduce_local_c");
    return err ? err : mlc_done(&x, MPI_Reduce_local(inbuf, inoutbuf, x.n, x.t, op));
}

/* ---- the v and w forms: their arrays as ints --------------------------------------------- */

/* Up to four arrays converted, array i of n[i] entries (v[i] NULL when
 * a[i] is). */
typedef struct lc_arrays {
    int *v[4];
} lc_arrays_t;

static int lc_arrays_n(lc_arrays_t *A, const int n[4], MPI_Comm comm, const char *fn,
                       const MPI_Count *a0, const MPI_Aint *a1, const MPI_Count *a2,
                       const MPI_Aint *a3)
{
    const MPI_Count *src[4] = {a0, a1, a2, a3}; /* MPI_Aint and MPI_Count are both long here */
    *A = (lc_arrays_t){{NULL}};
    for (int i = 0; i < 4; i++) {
        int err = mlc_ints(src[i], n[i], &A->v[i], comm, fn);
        if (err) {
            for (int j = 0; j < i; j++) free(A->v[j]);
            return err;
        }
    }
    return MPI_SUCCESS;
}

static int lc_arrays(lc_arrays_t *A, int n, MPI_Comm comm, const char *fn, const MPI_Count *a0,
                     const MPI_Aint *a1, const MPI_Count *a2, const MPI_Aint *a3)
{
    const int ns[4] = {n, n, n, n};
    return lc_arrays_n(A, ns, comm, fn, a0, a1, a2, a3);
}

static int lc_arrays_done(lc_arrays_t *A, int err)
{
    for (int i = 0; i < 4; i++) free(A->v[i]);
    return err;
}

static int gatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm, int mode, MPI_Info info, MPI_Request *req,
                   const char *fn)
{
    lc_arrays_t A;
    mlc_t s;
    int err = mlc_of(sendcount, sendtype, &s, comm, fn);
    if (err) return err;
    bool mine = reads_arrays(comm, root);
    if ((err = lc_arrays(&A, peers(comm), comm, fn, mine ? recvcounts : NULL,
                         mine ? displs : NULL, NULL, NULL)))
        return mlc_done(&s, err);
    err = LC_CALL(Gatherv, Igatherv, sendbuf, s.n, s.t, recvbuf, A.v[0], A.v[1], recvtype, root,
                  comm);
    return mlc_done(&s, lc_arrays_done(&A, err));
}
LC_FORMS(Gatherv, Igatherv, gatherv,
         (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
          const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
          MPI_Comm comm),
         (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm))

static int scatterv(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, int mode, MPI_Info info,
                    MPI_Request *req, const char *fn)
{
    lc_arrays_t A;
    mlc_t r;
    int err = mlc_of(recvcount, recvtype, &r, comm, fn);
    if (err) return err;
    bool mine = reads_arrays(comm, root);
    if ((err = lc_arrays(&A, peers(comm), comm, fn, mine ? sendcounts : NULL,
                         mine ? displs : NULL, NULL, NULL)))
        return mlc_done(&r, err);
    err = LC_CALL(Scatterv, Iscatterv, sendbuf, A.v[0], A.v[1], sendtype, recvbuf, r.n, r.t, root,
                  comm);
    return mlc_done(&r, lc_arrays_done(&A, err));
}
LC_FORMS(Scatterv, Iscatterv, scatterv,
         (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
          MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
          int root, MPI_Comm comm),
         (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm))

static int allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm, int mode, MPI_Info info,
                      MPI_Request *req, const char *fn)
{
    lc_arrays_t A;
    mlc_t s;
    int err = mlc_of(sendcount, sendtype, &s, comm, fn);
    if (err) return err;
    if ((err = lc_arrays(&A, peers(comm), comm, fn, recvcounts, displs, NULL, NULL)))
        return mlc_done(&s, err);
    err = LC_CALL(Allgatherv, Iallgatherv, sendbuf, s.n, s.t, recvbuf, A.v[0], A.v[1], recvtype,
                  comm);
    return mlc_done(&s, lc_arrays_done(&A, err));
}
LC_FORMS(Allgatherv, Iallgatherv, allgatherv,
         (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
          const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
          MPI_Comm comm),
         (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))

static int alltoallv(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, int mode,
                     MPI_Info info, MPI_Request *req, const char *fn)
{
    lc_arrays_t A;
    int err = lc_arrays(&A, peers(comm), comm, fn, sendcounts, sdispls, recvcounts, rdispls);
    if (err) return err;
    err = LC_CALL(Alltoallv, Ialltoallv, sendbuf, A.v[0], A.v[1], sendtype, recvbuf, A.v[2],
                  A.v[3], recvtype, comm);
    return lc_arrays_done(&A, err);
}
LC_FORMS(Alltoallv, Ialltoallv, alltoallv,
         (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
          MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
          const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm),
         (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm))

static int alltoallw(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                     int mode, MPI_Info info, MPI_Request *req, const char *fn)
{
    lc_arrays_t A;
    int err = lc_arrays(&A, peers(comm), comm, fn, sendcounts, sdispls, recvcounts, rdispls);
    if (err) return err;
    err = LC_CALL(Alltoallw, Ialltoallw, sendbuf, A.v[0], A.v[1], sendtypes, recvbuf, A.v[2],
                  A.v[3], recvtypes, comm);
    return lc_arrays_done(&A, err);
}
LC_FORMS(Alltoallw, Ialltoallw, alltoallw,
         (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
          const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),
         (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm))

static int reduce_scatter(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int mode, MPI_Info info,
                          MPI_Request *req, const char *fn)
{
    lc_arrays_t A;
    int size = 0;
    if (MPI_Comm_size(comm, &size) != MPI_SUCCESS) size = 0; /* the int form reports it */
    int err = lc_arrays(&A, size, comm, fn, recvcounts, NULL, NULL, NULL);
    if (err) return err;
    err = LC_CALL(Reduce_scatter, Ireduce_scatter, sendbuf, recvbuf, A.v[0], dt, op, comm);
    return lc_arrays_done(&A, err);
}
LC_FORMS(Reduce_scatter, Ireduce_scatter, reduce_scatter,
         (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
          MPI_Op op, MPI_Comm comm),
         (sendbuf, recvbuf, recvcounts, datatype, op, comm))

/* ---- neighbour collectives ---------------------------------------------------------------- */

/* The in- and out-degree of comm's topology (0 without one: the int form
 * then reports MPI_ERR_TOPOLOGY). */
static void degrees(MPI_Comm comm, int *nin, int *nout)
{
    mcomm_t *c = mcomm_get(comm);
    mtopo_nbrs_t nb;
    *nin = *nout = 0;
    if (!c || !c->topo || mtopo_neighbors(c, &nb) != MPI_SUCCESS) return;
    *nin = nb.nin;
    *nout = nb.nout;
    free(nb.in);
}

typedef enum { LC_NALLGATHER, LC_NALLTOALL } lc_nbr_t;

static int nbr(lc_nbr_t kind, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, int mode,
               MPI_Info info, MPI_Request *req, const char *fn)
{
    mlc_t s, r;
    int err = mlc_of(sendcount, sendtype, &s, comm, fn);
    if (err) return err;
    if ((err = mlc_of(recvcount, recvtype, &r, comm, fn))) return mlc_done(&s, err);
    if (kind == LC_NALLGATHER)
        err = LC_CALL(Neighbor_allgather, Ineighbor_allgather, sendbuf, s.n, s.t, recvbuf, r.n,
                      r.t, comm);
    else
        err = LC_CALL(Neighbor_alltoall, Ineighbor_alltoall, sendbuf, s.n, s.t, recvbuf, r.n, r.t,
                      comm);
    mlc_done(&r, 0);
    return mlc_done(&s, err);
}
LC_FORMS(Neighbor_allgather, Ineighbor_allgather, nbr, LC_MOVE0P,
         (LC_NALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
LC_FORMS(Neighbor_alltoall, Ineighbor_alltoall, nbr, LC_MOVE0P,
         (LC_NALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))

static int nbr_allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                          MPI_Datatype recvtype, MPI_Comm comm, int mode, MPI_Info info,
                          MPI_Request *req, const char *fn)
{
    lc_arrays_t A;
    mlc_t s;
    int nin, nout;
    degrees(comm, &nin, &nout);
    int err = mlc_of(sendcount, sendtype, &s, comm, fn);
    if (err) return err;
    if ((err = lc_arrays(&A, nin, comm, fn, recvcounts, displs, NULL, NULL)))
        return mlc_done(&s, err);
    err = LC_CALL(Neighbor_allgatherv, Ineighbor_allgatherv, sendbuf, s.n, s.t, recvbuf, A.v[0],
                  A.v[1], recvtype, comm);
    return mlc_done(&s, lc_arrays_done(&A, err));
}
LC_FORMS(Neighbor_allgatherv, Ineighbor_allgatherv, nbr_allgatherv,
         (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
          const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
          MPI_Comm comm),
         (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))

static int nbr_alltoallv(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         MPI_Datatype recvtype, MPI_Comm comm, int mode, MPI_Info info,
                         MPI_Request *req, const char *fn)
{
    lc_arrays_t A;
    int nin, nout;
    degrees(comm, &nin, &nout);
    const int n[4] = {nout, nout, nin, nin};
    int err = lc_arrays_n(&A, n, comm, fn, sendcounts, sdispls, recvcounts, rdispls);
    if (err) return err;
    err = LC_CALL(Neighbor_alltoallv, Ineighbor_alltoallv, sendbuf, A.v[0], A.v[1], sendtype,
                  recvbuf, A.v[2], A.v[3], recvtype, comm);
    return lc_arrays_done(&A, err);
}
LC_FORMS(Neighbor_alltoallv, Ineighbor_alltoallv, nbr_alltoallv,
         (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
          MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
          const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm),
         (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm))

/* The int form takes MPI_Aint displacements already: only the counts change. */
static int nbr_alltoallw(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm, int mode, MPI_Info info,
                         MPI_Request *req, const char *fn)
{
    lc_arrays_t A;
    int nin, nout;
    degrees(comm, &nin, &nout);
    const int n[4] = {nout, 0, nin, 0};
    int err = lc_arrays_n(&A, n, comm, fn, sendcounts, NULL, recvcounts, NULL);
    if (err) return err;
    err = LC_CALL(Neighbor_alltoallw, Ineighbor_alltoallw, sendbuf, A.v[0], sdispls, sendtypes,
                  recvbuf, A.v[2], rdispls, recvtypes, comm);
    return lc_arrays_done(&A, err);
}
LC_FORMS(Neighbor_alltoallw, Ineighbor_alltoallw, nbr_alltoallw,
         (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
          const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),
         (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm))
