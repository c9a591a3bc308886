/* Private to src/mpi: the state the environment, communicator and
 * point-to-point files share. */
#ifndef SL_MPI_INT_H
#define SL_MPI_INT_H

#include "coll/coll.h"
#include "mpi.h"
#include "p2p/p2p.h"

#include <stdbool.h>
#include <stddef.h>

/* A communicator.  On an intercommunicator (inter true) rank and size are
 * the local group's, while the ranks that point-to-point calls name are the
 * remote group's: world_of maps those (remote_size of them), local_of the
 * local group's.  So mcomm_world and mcomm_rank_of, which translate the
 * peers of messages, need no intercommunicator case. */
typedef struct mcomm {
    int rank, size;
    unsigned ctx;               /* context id in the match bits */
    MPI_Errhandler errh;
    int world_of_self;          /* SELF: our world rank */
    int *world_of;              /* created communicators: world rank of each peer rank */
    int *rank_of;               /* ... and its inverse, built at first use (mcomm_rank_of) */
    bool inter;                 /* an intercommunicator (intercomm.c) */
    int remote_size;            /* inter: the remote group's size */
    int *local_of;              /* inter: world rank of each local rank; owned */
    int *coll_map;              /* inter: local_of then world_of, for src/coll; owned */
    MPI_Comm handle;
    int refs;                   /* its handle and every request on it (created ones) */
    bool freed;                 /* MPI_Comm_free'd, requests still pending */
    unsigned coll_seq;          /* the last call's collective sequence, 0 before the first (src/coll tags) */
    unsigned coll_pseq;         /* persistent collectives initialised on it so far */
    struct mcoll *coll_cache[8]; /* idle schedules of blocking collectives (mcoll.h) */
    coll_direct_cfg_t coll_direct; /* src/coll's direct path: settings read at first use */
    struct mtopo *topo;                   /* virtual topology or NULL (topo.c); owned */
    char name[MPI_MAX_OBJECT_NAME];       /* MPI_Comm_set_name's, "" when none */
    struct mattr *attrs;                  /* cached attributes (attr.c), newest first */
    struct mcomm *live_next;              /* the list of live communicators (comm.c) */
} mcomm_t;

/* Collective traffic of a communicator runs on ctx | MCOMM_COLL_CTX, apart
 * from its user messages; context ids are below it.  Its receives are
 * posted at the lengths the senders send (P2P_CTX_EXACT). */
#define MCOMM_COLL_CTX P2P_CTX_EXACT
#define MCOMM_MAX_CTX 0x7fffu

extern int mpi_state;           /* 0 before MPI_Init, 1 running, 2 finalized */
extern int mpi_world_rank, mpi_world_size;

/* The communicator behind a handle, or NULL. */
mcomm_t *mcomm_get(MPI_Comm c);
/* MPI_Init: WORLD's and SELF's ranks and sizes, once the job's are known. */
void mcomm_init_world(void);
/* World rank of rank r of c (r valid). */
int mcomm_world(const mcomm_t *c, int r);
/* A request on c holds a reference: MPI_Comm_free with operations pending
 * (MPI allows it) frees c when the last of them has gone.  Inline: two of
 * them per message.  WORLD and SELF are counted too, and never reach 0
 * (MPI_Comm_free refuses them). */
void mcomm_destroy(mcomm_t *c);
static inline void mcomm_retain(mcomm_t *c)
{
    c->refs++;
}
static inline void mcomm_release(mcomm_t *c)
{
    if (__builtin_expect(--c->refs == 0, 0)) mcomm_destroy(c);
}
/* The rank -> world rank map of c for src/coll (NULL: the identity). */
const int *mcomm_world_map(const mcomm_t *c);
/* Rank in c of world rank w (MPI_UNDEFINED if not a member); on an
 * intercommunicator the rank in the remote group. */
int mcomm_rank_of(const mcomm_t *c, int w);
/* How many ranks point-to-point calls on c can name (the remote group's
 * size on an intercommunicator). */
static inline int mcomm_peers(const mcomm_t *c)
{
    return c->inter ? c->remote_size : c->size;
}
/* World rank of rank r of c's own (local) group. */
int mcomm_local_world(const mcomm_t *c, int r);

/* ---- intercommunicators (intercomm.c) ---- */

/* comm.c's agreement steps, for intercomm.c: a blocking exchange on c's
 * collective context (sequence 0), the lowest context id free at every
 * member of c (after their arrival; -1 when it fails), and a new
 * communicator of ctx taking world_of over (errh from parent). */
sl_status_t mcomm_csend(const mcomm_t *c, int r, int tag, const void *buf, size_t len);
sl_status_t mcomm_crecv(const mcomm_t *c, int r, int tag, void *buf, size_t len);
sl_status_t mcomm_callgather(const mcomm_t *c, int tag, const void *mine, void *all, size_t len);
int mcomm_agree_ctx(const mcomm_t *c);
int mcomm_make(const mcomm_t *parent, int ctx, int size, int rank, int *world_of,
               MPI_Comm *out);
/* MPI_Comm_dup and MPI_Comm_split of an intercommunicator (collective over
 * both groups); raise nothing. */
int minter_dup(mcomm_t *c, MPI_Comm *out);
int minter_split(mcomm_t *c, int color, int key, MPI_Comm *out);
/* A new group of the n world ranks in w (malloc'd, taken over; n 0:
 * MPI_GROUP_EMPTY), or 0 out of memory (group.c). */
MPI_Group mgroup_of(int *w, int n);
/* The context that Intercomm_create's members agree over (reserved). */
#define MCOMM_BOOT_CTX MCOMM_MAX_CTX

/* ---- osu-compat: communicator creation for topologies and groups ---- */

/* Makes a communicator out of parent p; collective over every member of p,
 * which agree on a context id as MPI_Comm_dup does.  A member of the new
 * communicator passes its members' world ranks in rank order (world_of,
 * malloc'd, n of them), its rank in it and its topology (or NULL); both
 * are taken over on success.  Others pass world_of NULL and get
 * MPI_COMM_NULL.  Several new communicators made by one call must have
 * disjoint members (they share the context id).  Returns MPI_SUCCESS or
 * an error class; raises nothing. */
int mcomm_create(const mcomm_t *p, int *world_of, int n, int rank, struct mtopo *topo,
                 MPI_Comm *out);
/* MPI_Comm_split without raising errors, the result taking topo (owned,
 * taken over on success; NULL for none).  Collective over p. */
int mcomm_split(const mcomm_t *p, int color, int key, struct mtopo *topo, MPI_Comm *out);

/* Topologies (topo.c): a copy for MPI_Comm_dup (NULL for none or out of
 * memory: *ok false then) and the release with the communicator. */
struct mtopo *mtopo_dup(const struct mtopo *t, bool *ok);
void mtopo_free(struct mtopo *t);
/* The neighbourhood of a rank for the neighbour collectives (topo.c):
 * in[nin] and out[nout] ranks (MPI_PROC_NULL where a Cartesian edge has
 * none) and the tag of each message; one malloc'd block at in. */
typedef struct mtopo_nbrs {
    int nin, nout;
    int *in, *out, *intag, *outtag;
} mtopo_nbrs_t;
int mtopo_neighbors(const mcomm_t *c, mtopo_nbrs_t *nb);

/* Attributes (attr.c) of the object with handle h (a communicator or a
 * datatype).  delete_all runs the delete callbacks newest first and takes
 * each attribute off; it stops at the first callback that fails
 * (MPI_ERR_OTHER, the rest stay).  copy_all runs oldh's copy callbacks
 * into *dst (empty) for newh, in the order set; on a failing callback it
 * deletes what it copied and returns MPI_ERR_OTHER.  finalize deletes
 * MPI_COMM_SELF's, then MPI_COMM_WORLD's (MPI_Finalize).  They raise
 * nothing. */
struct mattr;
int mattr_delete_all(int h, struct mattr **list);
int mattr_copy_all(int oldh, struct mattr *src, int newh, struct mattr **dst);
int mattr_finalize(void);

/* Every member of c has arrived (barrier.c: dissemination on c's
 * collective context). */
sl_status_t mcomm_barrier(const mcomm_t *c);

/* Report error class cls raised by fname on comm c (NULL: MPI_COMM_WORLD's
 * handler): with MPI_ERRORS_ARE_FATAL print and abort the job, with
 * MPI_ERRORS_RETURN return cls, with a user handler call it, then return
 * cls. */
int mpi_err(const mcomm_t *c, int cls, const char *fname, const char *detail);

/* Error codes and classes added by the program (errcode.c): the class of
 * an added code (false: not one), its string ("" when none was given;
 * NULL: not an added code), and the MPI_LASTUSEDCODE attribute's value. */
bool merr_user_class(int code, int *cls);
const char *merr_user_string(int code);
int *merr_lastused_attr(void);

/* Error handlers (errhandler.c).  valid: predefined or a live user
 * handler.  A communicator holds a reference on its user handler (retain
 * when set or inherited, release when replaced or freed; no-ops on
 * predefined ones).  invoke: runs c's user handler with code and returns
 * true, or returns false when c's handler is predefined. */
bool merrh_valid(MPI_Errhandler e);
void merrh_retain(MPI_Errhandler e);
void merrh_release(MPI_Errhandler e);
bool merrh_invoke(const mcomm_t *c, int code);

/* Every MPI call between init and finalize checks this first.  It also
 * takes the library's lock under MPI_THREAD_MULTIPLE (src/p2p/mt.c), held
 * until the calling function returns: declare it first, at the top level
 * of the function body. */
#define MPI_ENTER()                                                                         \
    const bool mpi_held_ __attribute__((cleanup(p2p_mt_exit), unused)) = p2p_mt_enter()
#define MPI_CHECK_STATE(fname)                                                              \
    MPI_ENTER();                                                                            \
    do {                                                                                    \
        if (mpi_state != 1) return mpi_err(NULL, MPI_ERR_OTHER, fname,                      \
                                           mpi_state ? "after MPI_Finalize" : "before MPI_Init"); \
    } while (0)

#endif
