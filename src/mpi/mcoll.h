/* MPI collectives over src/coll (prefix mcoll_): one object per call (or
 * per persistent request) that holds the schedule's run, the op, and how
 * the user's buffers map onto the byte streams the schedule moves.
 *
 * A buffer whose datatype is dense (one piece per element, extent = size)
 * is used in place: the stream is the user's memory.  Any other layout is
 * packed into a library stream when the run starts and unpacked when it
 * completes (in whichever thread completes it). */
#ifndef SL_MPI_MCOLL_H
#define SL_MPI_MCOLL_H

#include "coll/coll.h"
#include "mpi/datatype.h"
#include "mpi/mpi_int.h"
#include "mpi/op.h"

/* One block of user data in a stream: count elements of t at ubuf, at
 * byte off of the stream. */
typedef struct mcoll_blk {
    char *ubuf;
    MPI_Count count;
    mdt_type_t *t;
    size_t off;
} mcoll_blk_t;

/* A side (the send or the receive buffer of the schedule). */
typedef struct mcoll_side {
    char *stream;      /* what the schedule's SBUF/RBUF points at */
    char *tmp;         /* the library stream, when packing */
    int nblk;
    mcoll_blk_t *blk;  /* packed blocks */
    bool pack_in;      /* pack when the run starts (input data) */
    bool unpack_out;   /* unpack when it completes (output data) */
} mcoll_side_t;

typedef enum { MCOLL_BLOCKING, MCOLL_NB, MCOLL_PERSISTENT } mcoll_mode_t;

/* What makes two calls on one communicator the same schedule (the blocking
 * collectives' cache): everything the generator reads, with the datatypes
 * (retained by the cached object, so their addresses cannot be reused)
 * and the op's plan. */
typedef struct mcoll_key {
    int kind, root, flags;
    size_t count, mylen;
    const mdt_type_t *t[2];
    int pre, ctype;
    MPI_User_function *fn;
    MPI_User_function_c *fn_c;
} mcoll_key_t;

/* A reduction's op as src/coll applies it: the plan behind the interface
 * (base first: apply finds the plan from it). */
typedef struct mcoll_op {
    coll_op_t base;
    mop_plan_t plan;
} mcoll_op_t;

typedef struct mcoll {
    mcomm_t *comm;
    mcoll_key_t key;
    bool cacheable; /* no per-call layout: the schedule can be reused */
    bool persistent_req; /* owned by a persistent request (never cached) */
    bool uniform;   /* its per-rank arrays follow from count and mylen (no v form) */
    coll_run_t *run;
    unsigned seq;
    mcoll_op_t op;
    mcoll_side_t side[2]; /* COLL_SBUF, COLL_RBUF */
    mdt_type_t *types[2]; /* retained for the request's life */
    mdt_type_t **wtypes, **wstypes; /* Alltoallw: every block's, retained */
    int nw;
    mdt_type_t **nbr_rtypes, **nbr_stypes; /* Neighbor_alltoallw: every block's, retained */
    int nbr_nin, nbr_nout;
    void *nbr_keep; /* the neighbour collectives' neighbourhood (coll_nbr.c) */
    /* layouts the generators read while building */
    size_t *off, *len, *soff, *slen, *counts;
    coll_layout_t lay, slay;
    coll_args_t args;
    int err;
} mcoll_t;

/* A new call on c (NULL + MPI_ERR_NO_MEM reported through fname). */
mcoll_t *mcoll_new(mcomm_t *c);
void mcoll_free(mcoll_t *m);
/* Describe side (COLL_SBUF or COLL_RBUF) as count elements of t at buf. */
int mcoll_side(mcoll_t *m, int side, void *buf, MPI_Count count, mdt_type_t *t, bool in, bool out);
/* Describe side as n blocks (the v forms): block i is counts[i] elements
 * of types[i] (or of t when types is NULL) at buf + displs[i] (in extents
 * of the type when bytes_displ is false, in bytes otherwise).  Fills the
 * block layout: *off, *len (allocated, the caller's mcoll keeps them). */
int mcoll_side_v(mcoll_t *m, int side, void *buf, int n, const int *counts, const int *displs,
                 mdt_type_t *t, mdt_type_t *const *types, bool bytes_displ, bool in, bool out,
                 size_t **off, size_t **len);
/* The same with MPI_Aint byte displacements when adispls is given (the
 * neighbour alltoallw), else as mcoll_side_v. */
int mcoll_side_va(mcoll_t *m, int side, void *buf, int n, const int *counts, const int *displs,
                  const MPI_Aint *adispls, mdt_type_t *t, mdt_type_t *const *types,
                  bool bytes_displ, bool in, bool out, size_t **off, size_t **len);
/* The op of a reduction (after mop_plan checked it). */
void mcoll_set_op(mcoll_t *m, const mop_plan_t *p);
/* o applies plan p (no Portals atomic looked up: the host's op). */
void mcoll_op_init(mcoll_op_t *o, const mop_plan_t *p);
/* The same, with the Portals atomic that applies it when there is one
 * (what the offload executor needs). */
void mcoll_op_init_atomic(mcoll_op_t *o, const mop_plan_t *p);
/* A user buffer of the direct path: count elements of t at buf, read as
 * input and/or written as output.  t NULL: none (in place, or a side this
 * rank does not use). */
typedef struct mcoll_dbuf {
    const void *buf;
    MPI_Count count;
    mdt_type_t *t;
    bool in, out;
} mcoll_dbuf_t;
/* A blocking call on an intracommunicator by src/coll's direct path
 * (coll_direct_ok said yes) with its send and receive sides s and r:
 * rank, size, context, sequence and the streams are filled in here (a
 * side that is not dense is packed into a stream and unpacked after, so
 * the choice of path never depends on a rank's own layout: MPI lets ranks
 * describe the same data with different datatypes).  Returns the MPI
 * error (reported). */
int mcoll_direct(mcomm_t *c, coll_direct_t *d, const mcoll_dbuf_t *s, const mcoll_dbuf_t *r,
                 const char *fname);
/* Does a blocking call on c take the direct path (coll_direct_ok, with c's
 * settings)? */
static inline bool mcoll_direct_ok(mcomm_t *c, coll_kind_t kind, size_t bytes,
                                   const coll_op_t *op)
{
    if (c->inter) return false;
    if (!c->coll_direct.read) coll_direct_cfg_read(&c->coll_direct);
    return coll_direct_ok(&c->coll_direct, kind, bytes, c->size, op);
}
/* Build the schedule of m->args and run it as mode says: blocking (wait
 * here), non-blocking (*req), persistent (*req, inactive).  Frees m on
 * every path except a request made.  Returns the MPI error (reported). */
int mcoll_launch(mcoll_t *m, mcoll_mode_t mode, MPI_Request *req, const char *fname);
/* A request's collective goes (its request is freed): back to the
 * communicator's cache when it can serve a later call. */
void mcoll_release(mcoll_t *m);
/* Persistent: start it again (MPI_Start). */
int mcoll_start(mcoll_t *m);
/* Completion: has it completed (test), or wait until it has; both return
 * its MPI error class. */
bool mcoll_test(mcoll_t *m);
int mcoll_wait(mcoll_t *m);
int mcoll_error(const mcoll_t *m);

/* coll_nbr.c: what a neighbour collective kept for building. */
void mcoll_nbr_free(void *keep);

/* The communicator's cached schedules go (MPI_Comm_free, MPI_Finalize). */
void mcoll_cache_drop(mcomm_t *c);
/* MPI_Finalize: the world's and self's caches, the object pool. */
void mcoll_fini(void);

/* Before MPI_CHECK_STATE in every non-blocking and persistent collective:
 * starts the progress thread the first time (outside the lock). */
void mcoll_async_prepare(void);

/* The three forms of one collective call: MPI_<Name> (blocking),
 * MPI_<IName> (non-blocking) and MPI_<Name>_init (persistent).  PARAMS is
 * the blocking call's parameter list in parentheses, ending with
 * MPI_Comm comm; each form describes its call as CALLT k = {INIT} and
 * hands it to FN(&k, comm, mode, request, "MPI_..."). */
#define MCOLL_UNPAREN(...) __VA_ARGS__
#define MCOLL_FORMS(Name, IName, PARAMS, CALLT, INIT, FN)                                        \
    int MPI_##Name(MCOLL_UNPAREN PARAMS)                                                        \
    {                                                                                           \
        MPI_CHECK_STATE("MPI_" #Name);                                                          \
        CALLT k = {MCOLL_UNPAREN INIT};                                                         \
        return FN(&k, comm, MCOLL_BLOCKING, NULL, "MPI_" #Name);                                \
    }                                                                                           \
    int MPI_##IName(MCOLL_UNPAREN PARAMS, MPI_Request *request)                                 \
    {                                                                                           \
        mcoll_async_prepare();                                                                  \
        MPI_CHECK_STATE("MPI_" #IName);                                                         \
        CALLT k = {MCOLL_UNPAREN INIT};                                                         \
        return FN(&k, comm, MCOLL_NB, request, "MPI_" #IName);                                  \
    }                                                                                           \
    int MPI_##Name##_init(MCOLL_UNPAREN PARAMS, MPI_Info info, MPI_Request *request)            \
    {                                                                                           \
        (void)info;                                                                             \
        mcoll_async_prepare();                                                                  \
        MPI_CHECK_STATE("MPI_" #Name "_init");                                                  \
        CALLT k = {MCOLL_UNPAREN INIT};                                                         \
        return FN(&k, comm, MCOLL_PERSISTENT, request, "MPI_" #Name "_init");                   \
    }

/* Argument checks shared by the collectives. */
int mcoll_check_comm(MPI_Comm comm, mcomm_t **c, const char *fname);
int mcoll_check_buf(mcomm_t *c, const void *buf, int count, MPI_Datatype dt, mdt_type_t **t,
                    bool may_be_in_place, const char *fname);
int mcoll_check_root(mcomm_t *c, int root, const char *fname);
/* Is this rank the root of a rooted call (on an intercommunicator: root
 * is MPI_ROOT), and root as src/coll names it (COLL_ROOT_HERE/IDLE on an
 * intercommunicator). */
static inline bool mcoll_is_root(const mcomm_t *c, int root)
{
    return c->inter ? root == MPI_ROOT : c->rank == root;
}
static inline int mcoll_root_arg(const mcomm_t *c, int root)
{
    if (!c->inter || root >= 0) return root;
    return root == MPI_ROOT ? COLL_ROOT_HERE : COLL_ROOT_IDLE;
}

/* A reduction call: its kind and arguments (root for MPI_Reduce; the
 * receive counts for Reduce_scatter, one count for the block form). */
typedef struct red_call {
    coll_kind_t kind;
    bool exclusive;
    const void *sbuf;
    void *rbuf;
    int count;
    MPI_Datatype dt;
    MPI_Op op;
    int root;
    bool block;        /* reduce_scatter_block */
    const int *counts; /* reduce_scatter: recvcounts */
    int bcount;        /* reduce_scatter_block: recvcount */
} red_call_t;
/* inter_coll.c: the reductions on an intercommunicator (count: the whole
 * vector, checked) */
int minter_red(const red_call_t *k, mcomm_t *c, int count, mcoll_mode_t mode, MPI_Request *req,
               const char *fname);
/* The next collective sequence number of c (1..COLL_SEQ_MASK): for a
 * call, or for a persistent request's lifetime. */
unsigned mcoll_next_seq(mcomm_t *c, bool persistent);

#endif
