/* MPI-4 large counts: the _c forms (MPI 4.0 §3.2.4, §6, §5.1) of
 * point-to-point, the collectives, the status queries and the datatype
 * constructors, over the int forms.
 *
 * A scalar count that fits an int is passed on as it is.  A larger one
 * travels as one element of a type made for it (lc_make: 2^30-element
 * chunks and the rest, resized to the extent of count elements), which
 * has the same type signature, so the peer may use either form and any
 * count; the engine below works in 64-bit bytes throughout (p2p messages
 * up to 1 TiB, statuses with 64-bit byte counts).  Reductions over such a
 * type work for the predefined ops (op.c reduces derived types of one
 * basic type); a user op would see one element of the made type instead
 * of the user's, so that case is MPI_ERR_COUNT.  Count and displacement
 * arrays (the v and w forms, the indexed and struct constructors) and the
 * positions of Pack/Unpack are converted to int and give MPI_ERR_COUNT
 * beyond it: never a silent truncation.  A negative count is handed on as
 * -1, so that the int form raises MPI_ERR_COUNT where the count matters
 * (MPI leaves it unread elsewhere, e.g. a gather's recvcount off the root). */
#include "mpi/datatype.h"
#include "mpi/handle.h"
#include "mpi/mpi_int.h"

#include <limits.h>
#include <stdlib.h>

#define CHUNK (1 << 30)

static int lc_err(MPI_Comm comm, int cls, const char *fname, const char *why)
{
    return mpi_err(mcomm_get(comm), cls, fname, why);
}

/* A committed type of count (> INT_MAX) elements of dt. */
static int lc_make(MPI_Count count, MPI_Datatype dt, MPI_Datatype *out)
{
    MPI_Aint lb, ext;
    MPI_Count q = count / CHUNK, r = count % CHUNK;
    int err = MPI_Type_get_extent(dt, &lb, &ext);
    if (err) return err;
    if (q > INT_MAX) return MPI_ERR_COUNT;
    MPI_Datatype c, s;
    if ((err = MPI_Type_contiguous(CHUNK, dt, &c))) return err;
    if (r == 0) {
        err = MPI_Type_contiguous((int)q, c, &s);
    } else {
        int bl[2] = {(int)q, (int)r};
        MPI_Aint d[2] = {0, (MPI_Aint)(q * CHUNK) * ext};
        MPI_Datatype ts[2] = {c, dt};
        err = MPI_Type_create_struct(2, bl, d, ts, &s);
    }
    MPI_Type_free(&c);
    if (err) return err;
    /* the extent of count elements whatever the struct's alignment padding
     * (a gather places block i at i * extent) */
    err = MPI_Type_create_resized(s, lb, (MPI_Aint)count * ext, out);
    MPI_Type_free(&s);
    if (!err && (err = MPI_Type_commit(out))) MPI_Type_free(out);
    return err;
}

/* count elements of dt as n elements of t (made: t is ours to free). */
typedef struct lc {
    int n;
    MPI_Datatype t;
    bool made;
} lc_t;

static int lc_of(MPI_Count count, MPI_Datatype dt, lc_t *x, MPI_Comm comm, const char *fname)
{
    *x = (lc_t){.n = count < 0 ? -1 : (int)count, .t = dt};
    if (count <= INT_MAX) return MPI_SUCCESS;
    int err = lc_make(count, dt, &x->t);
    if (err) return lc_err(comm, err, fname, "cannot describe that many elements");
    x->n = 1;
    x->made = true;
    return MPI_SUCCESS;
}

static int lc_done(lc_t *x, int err)
{
    if (x->made) MPI_Type_free(&x->t);
    return err;
}

/* Arrays of n counts or displacements as ints (NULL stays NULL: an
 * argument MPI does not read on this rank); *out malloc'd. */
static int lc_ints(const MPI_Count *a, int n, int **out, MPI_Comm comm, const char *fname)
{
    *out = NULL;
    if (!a) return MPI_SUCCESS;
    int *b = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!b) return lc_err(comm, MPI_ERR_NO_MEM, fname, NULL);
    for (int i = 0; i < n; i++) {
        if (a[i] > INT_MAX || a[i] < INT_MIN) {
            free(b);
            return lc_err(comm, MPI_ERR_COUNT, fname,
                          "a count or displacement array entry beyond int (not supported)");
        }
        b[i] = (int)a[i];
    }
    *out = b;
    return MPI_SUCCESS;
}

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

/* ---- point-to-point ------------------------------------------------------------------------ */

#define LC_ONE(Name, PARAMS, ARGS, COMM)                                                      \
    int MPI_##Name##_c PARAMS                                                                 \
    {                                                                                         \
        lc_t x;                                                                               \
        int err = lc_of(count, datatype, &x, COMM, "MPI_" #Name "_c");                        \
        return err ? err : lc_done(&x, MPI_##Name ARGS);                                      \
    }

#define LC_SENDP (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
#define LC_SENDA (buf, x.n, x.t, dest, tag, comm)
#define LC_ISENDP                                                                             \
    (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, \
     MPI_Request *request)
#define LC_ISENDA (buf, x.n, x.t, dest, tag, comm, request)
#define LC_IRECVP                                                                             \
    (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,    \
     MPI_Request *request)
#define LC_IRECVA (buf, x.n, x.t, source, tag, comm, request)

LC_ONE(Send, LC_SENDP, LC_SENDA, comm)
LC_ONE(Ssend, LC_SENDP, LC_SENDA, comm)
LC_ONE(Rsend, LC_SENDP, LC_SENDA, comm)
LC_ONE(Bsend, LC_SENDP, LC_SENDA, comm)
LC_ONE(Isend, LC_ISENDP, LC_ISENDA, comm)
LC_ONE(Issend, LC_ISENDP, LC_ISENDA, comm)
LC_ONE(Irsend, LC_ISENDP, LC_ISENDA, comm)
LC_ONE(Ibsend, LC_ISENDP, LC_ISENDA, comm)
LC_ONE(Send_init, LC_ISENDP, LC_ISENDA, comm)
LC_ONE(Ssend_init, LC_ISENDP, LC_ISENDA, comm)
LC_ONE(Rsend_init, LC_ISENDP, LC_ISENDA, comm)
LC_ONE(Bsend_init, LC_ISENDP, LC_ISENDA, comm)
LC_ONE(Irecv, LC_IRECVP, LC_IRECVA, comm)
LC_ONE(Recv_init, LC_IRECVP, LC_IRECVA, comm)
LC_ONE(Recv,
       (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
        MPI_Status *status),
       (buf, x.n, x.t, source, tag, comm, status), comm)
LC_ONE(Sendrecv_replace,
       (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
        int recvtag, MPI_Comm comm, MPI_Status *status),
       (buf, x.n, x.t, dest, sendtag, source, recvtag, comm, status), comm)
LC_ONE(Isendrecv_replace,
       (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
        int recvtag, MPI_Comm comm, MPI_Request *request),
       (buf, x.n, x.t, dest, sendtag, source, recvtag, comm, request), comm)
LC_ONE(Mrecv,
       (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status),
       (buf, x.n, x.t, message, status), MPI_COMM_WORLD)
LC_ONE(Imrecv,
       (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
        MPI_Request *request),
       (buf, x.n, x.t, message, request), MPI_COMM_WORLD)

/* Two buffers (send and receive side). */
#define LC_TWO(fname, COMM, CALL)                                                             \
    lc_t s, r;                                                                                \
    int err = lc_of(sendcount, sendtype, &s, COMM, fname);                                    \
    if (err) return err;                                                                      \
    if ((err = lc_of(recvcount, recvtype, &r, COMM, fname))) return lc_done(&s, err);         \
    err = CALL;                                                                               \
    lc_done(&r, 0);                                                                           \
    return lc_done(&s, err)

int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    LC_TWO("MPI_Sendrecv_c", comm,
           MPI_Sendrecv(sendbuf, s.n, s.t, dest, sendtag, recvbuf, r.n, r.t, source, recvtag, comm,
                        status));
}

int MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    LC_TWO("MPI_Isendrecv_c", comm,
           MPI_Isendrecv(sendbuf, s.n, s.t, dest, sendtag, recvbuf, r.n, r.t, source, recvtag,
                         comm, request));
}

/* ---- statuses ------------------------------------------------------------------------------ */

int MPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    if (!status || status == MPI_STATUS_IGNORE || !count)
        return mpi_err(NULL, MPI_ERR_ARG, "MPI_Get_count_c", NULL);
    mdt_type_t *t = mdt_get(datatype);
    if (!t) return mpi_err(NULL, MPI_ERR_TYPE, "MPI_Get_count_c", NULL);
    MPI_Count bytes = mdt_status_bytes(status);
    if (t->size == 0) *count = bytes == 0 ? 0 : MPI_UNDEFINED;
    else *count = bytes % t->size ? MPI_UNDEFINED : bytes / t->size;
    return MPI_SUCCESS;
}

int MPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return MPI_Get_elements_x(status, datatype, count);
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
    lc_t x;
    int err = lc_of(count, dt, &x, comm, fn);
    return err ? err : lc_done(&x, LC_CALL(Bcast, Ibcast, buf, x.n, x.t, root, comm));
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
    lc_t s, r;
    int err = lc_of(sendcount, sendtype, &s, comm, fn);
    if (err) return err;
    if ((err = lc_of(recvcount, recvtype, &r, comm, fn))) return lc_done(&s, err);
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
    lc_done(&r, 0);
    return lc_done(&s, err);
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
        return lc_err(comm, MPI_ERR_COUNT, fn,
                      "a user op over more than INT_MAX elements is not supported");
    lc_t x;
    int err = lc_of(count, dt, &x, comm, fn);
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
    return lc_done(&x, err);
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
        return lc_err(MPI_COMM_WORLD, MPI_ERR_COUNT, "MPI_Reduce_local_c",
                      "a user op over more than INT_MAX elements is not supported");
    lc_t x;
    int err = lc_of(count, datatype, &x, MPI_COMM_WORLD, "MPI_Reduce_local_c");
    return err ? err : lc_done(&x, MPI_Reduce_local(inbuf, inoutbuf, x.n, x.t, op));
}

/* ---- the v and w forms: their arrays as ints --------------------------------------------- */

/* Up to four arrays of n entries converted (v[i] NULL when a[i] is). */
typedef struct lc_arrays {
    int *v[4];
} lc_arrays_t;

static int lc_arrays(lc_arrays_t *A, int n, MPI_Comm comm, const char *fn, const MPI_Count *a0,
                     const MPI_Aint *a1, const MPI_Count *a2, const MPI_Aint *a3)
{
    const MPI_Count *src[4] = {a0, a1, a2, a3}; /* MPI_Aint and MPI_Count are both long here */
    *A = (lc_arrays_t){{NULL}};
    for (int i = 0; i < 4; i++) {
        int err = lc_ints(src[i], n, &A->v[i], comm, fn);
        if (err) {
            for (int j = 0; j < i; j++) free(A->v[j]);
            return err;
        }
    }
    return MPI_SUCCESS;
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
    lc_t s;
    int err = lc_of(sendcount, sendtype, &s, comm, fn);
    if (err) return err;
    bool mine = reads_arrays(comm, root);
    if ((err = lc_arrays(&A, peers(comm), comm, fn, mine ? recvcounts : NULL,
                         mine ? displs : NULL, NULL, NULL)))
        return lc_done(&s, err);
    err = LC_CALL(Gatherv, Igatherv, sendbuf, s.n, s.t, recvbuf, A.v[0], A.v[1], recvtype, root,
                  comm);
    return lc_done(&s, lc_arrays_done(&A, err));
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
    lc_t r;
    int err = lc_of(recvcount, recvtype, &r, comm, fn);
    if (err) return err;
    bool mine = reads_arrays(comm, root);
    if ((err = lc_arrays(&A, peers(comm), comm, fn, mine ? sendcounts : NULL,
                         mine ? displs : NULL, NULL, NULL)))
        return lc_done(&r, err);
    err = LC_CALL(Scatterv, Iscatterv, sendbuf, A.v[0], A.v[1], sendtype, recvbuf, r.n, r.t, root,
                  comm);
    return lc_done(&r, lc_arrays_done(&A, err));
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
    lc_t s;
    int err = lc_of(sendcount, sendtype, &s, comm, fn);
    if (err) return err;
    if ((err = lc_arrays(&A, peers(comm), comm, fn, recvcounts, displs, NULL, NULL)))
        return lc_done(&s, err);
    err = LC_CALL(Allgatherv, Iallgatherv, sendbuf, s.n, s.t, recvbuf, A.v[0], A.v[1], recvtype,
                  comm);
    return lc_done(&s, lc_arrays_done(&A, err));
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

/* ---- datatypes ----------------------------------------------------------------------------- */

int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    return MPI_Type_size_x(datatype, size);
}

int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return MPI_Type_get_extent_x(datatype, lb, extent);
}

int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return MPI_Type_get_true_extent_x(datatype, true_lb, true_extent);
}

int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (count <= INT_MAX) return MPI_Type_contiguous(count < 0 ? -1 : (int)count, oldtype, newtype);
    if (!newtype) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Type_contiguous_c", "newtype is NULL");
    int err = lc_make(count, oldtype, newtype); /* committed already: harmless */
    return err ? mpi_err(NULL, err, "MPI_Type_contiguous_c", NULL) : MPI_SUCCESS;
}

/* A scalar that must fit an int (negative ones go on as -1, for the int
 * form to refuse). */
static bool lc_int(MPI_Count v, int *out)
{
    if (v > INT_MAX) return false;
    *out = v < 0 ? (v < INT_MIN ? -1 : (int)v) : (int)v;
    return true;
}

#define LC_INTS_OR_FAIL(fname, ...)                                                           \
    do {                                                                                      \
        if (!(__VA_ARGS__))                                                                   \
            return mpi_err(NULL, MPI_ERR_COUNT, fname, "a count beyond int (not supported)"); \
    } while (0)

int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int c, b, s;
    LC_INTS_OR_FAIL("MPI_Type_vector_c", lc_int(count, &c) && lc_int(blocklength, &b) &&
                                             stride >= INT_MIN && lc_int(stride, &s));
    return MPI_Type_vector(c, b, s, oldtype, newtype);
}

int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int c, b;
    LC_INTS_OR_FAIL("MPI_Type_create_hvector_c", lc_int(count, &c) && lc_int(blocklength, &b));
    return MPI_Type_create_hvector(c, b, (MPI_Aint)stride, oldtype, newtype);
}

int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                              MPI_Datatype *newtype)
{
    return MPI_Type_create_resized(oldtype, (MPI_Aint)lb, (MPI_Aint)extent, newtype);
}

/* The array constructors: count and block lengths as ints, byte
 * displacements as they are (MPI_Aint), element displacements as ints. */
static int lc_count_arrays(MPI_Count count, const MPI_Count *bl, const MPI_Count *displs, int *n,
                           int **ibl, int **idispl, const char *fn)
{
    *ibl = *idispl = NULL;
    if (!lc_int(count, n)) return mpi_err(NULL, MPI_ERR_COUNT, fn, "count beyond int (not supported)");
    int m = *n > 0 ? *n : 0, err = bl ? lc_ints(bl, m, ibl, MPI_COMM_WORLD, fn) : MPI_SUCCESS;
    if (!err && displs) err = lc_ints(displs, m, idispl, MPI_COMM_WORLD, fn);
    if (err) free(*ibl);
    return err;
}

int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                       const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                       MPI_Datatype *newtype)
{
    int n, *b, *d;
    int err = lc_count_arrays(count, array_of_blocklengths, array_of_displacements, &n, &b, &d,
                              "MPI_Type_indexed_c");
    if (err) return err;
    err = MPI_Type_indexed(n, b, d, oldtype, newtype);
    free(b);
    free(d);
    return err;
}

int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                               const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                               MPI_Datatype *newtype)
{
    int n, *b, *d;
    int err = lc_count_arrays(count, array_of_blocklengths, NULL, &n, &b, &d,
                              "MPI_Type_create_hindexed_c");
    if (err) return err;
    err = MPI_Type_create_hindexed(n, b, (const MPI_Aint *)array_of_displacements, oldtype, newtype);
    free(b);
    return err;
}

int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                    const MPI_Count array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int n, bl, *b, *d;
    if (!lc_int(blocklength, &bl))
        return mpi_err(NULL, MPI_ERR_COUNT, "MPI_Type_create_indexed_block_c", "blocklength beyond int");
    int err = lc_count_arrays(count, NULL, array_of_displacements, &n, &b, &d,
                              "MPI_Type_create_indexed_block_c");
    if (err) return err;
    err = MPI_Type_create_indexed_block(n, bl, d, oldtype, newtype);
    free(d);
    return err;
}

int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[],
                                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int n, bl;
    if (!lc_int(count, &n) || !lc_int(blocklength, &bl))
        return mpi_err(NULL, MPI_ERR_COUNT, "MPI_Type_create_hindexed_block_c", "a count beyond int");
    return MPI_Type_create_hindexed_block(n, bl, (const MPI_Aint *)array_of_displacements, oldtype,
                                          newtype);
}

int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                             const MPI_Count array_of_displacements[],
                             const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    int n, *b, *d;
    int err = lc_count_arrays(count, array_of_blocklengths, NULL, &n, &b, &d,
                              "MPI_Type_create_struct_c");
    if (err) return err;
    err = MPI_Type_create_struct(n, b, (const MPI_Aint *)array_of_displacements, array_of_types,
                                 newtype);
    free(b);
    return err;
}

/* ---- pack ---------------------------------------------------------------------------------- */

int MPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
               MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    int n, size, pos;
    if (!position) return lc_err(comm, MPI_ERR_ARG, "MPI_Pack_c", "position is NULL");
    if (!lc_int(incount, &n) || !lc_int(outsize, &size) || !lc_int(*position, &pos))
        return lc_err(comm, MPI_ERR_COUNT, "MPI_Pack_c", "a count or position beyond int (not supported)");
    int err = MPI_Pack(inbuf, n, datatype, outbuf, size, &pos, comm);
    if (!err) *position = pos;
    return err;
}

int MPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                 MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    int n, size, pos;
    if (!position) return lc_err(comm, MPI_ERR_ARG, "MPI_Unpack_c", "position is NULL");
    if (!lc_int(outcount, &n) || !lc_int(insize, &size) || !lc_int(*position, &pos))
        return lc_err(comm, MPI_ERR_COUNT, "MPI_Unpack_c", "a count or position beyond int (not supported)");
    int err = MPI_Unpack(inbuf, size, &pos, outbuf, n, datatype, comm);
    if (!err) *position = pos;
    return err;
}

int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    if (incount < 0) return lc_err(comm, MPI_ERR_COUNT, "MPI_Pack_size_c", "negative count");
    if (!size) return lc_err(comm, MPI_ERR_ARG, "MPI_Pack_size_c", "size is NULL");
    MPI_Count one;
    int err = MPI_Type_size_x(datatype, &one); /* MPI_Pack_size is count * size here */
    if (!err) *size = incount * one;
    return err;
}
