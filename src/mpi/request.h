/* MPI requests: the handle table, completion and statuses, shared by
 * pt2pt.c (starting operations) and complete.c (the wait/test family).
 * MPI calls are serialised by the program or, under MPI_THREAD_MULTIPLE, by
 * the library's lock (MPI_CHECK_STATE), so no lock of their own. */
#ifndef SLUICE_MPI_REQUEST_H
#define SLUICE_MPI_REQUEST_H

#include "mpi/datatype.h"
#include "mpi/mpi_int.h"
#include "mpi/handle.h"
#include "p2p/p2p.h"

#include <stdlib.h>

#include <stdbool.h>

typedef struct mreq {
    struct mreq *next_free; /* pool */
    p2p_req_t *p;        /* NULL once complete, or for MPI_PROC_NULL */
    bool recv;
    bool sync;           /* a synchronous send (MPI_Ssend family) */
    bool buffered;       /* a buffered send (MPI_Bsend family) */
    mcomm_t *comm;
    void *ubuf;          /* user buffer, and a packed copy for other layouts */
    void *tmp;
    int count;
    mdt_type_t *type;
    MPI_Status st;
    int err;
    bool persistent;     /* MPI_Send_init/Recv_init: survives completion */
    bool active;         /* persistent: started and not yet completed */
    int peer, tag;       /* persistent: what MPI_Start posts */
    struct mcoll *coll;  /* a collective's request (mcoll.h) */
    struct mreq *pair;   /* MPI_Isendrecv: the send half, owned, until it completes */
} mreq_t;

/* Copy a status that was just written field by field (mreq_finish), one
 * field at a time: a struct copy reads it back as a 16-byte vector, which
 * cannot be forwarded from the pending 4-byte stores and waits for them to
 * commit (most of mreq_done's time at the 8-byte message rate). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-slp-vectorize")))
#endif
static inline void mreq_status_copy(MPI_Status *d, const MPI_Status *s)
{
    d->count_lo = s->count_lo;
    d->count_hi_and_cancelled = s->count_hi_and_cancelled;
    d->MPI_SOURCE = s->MPI_SOURCE;
    d->MPI_TAG = s->MPI_TAG;
    d->MPI_ERROR = s->MPI_ERROR;
}

/* What a request does (pt2pt.c). */
enum { MREQ_RECV = 1, MREQ_SEND, MREQ_SSEND, MREQ_BSEND };

/* The request table, the pool of recycled requests and the requests freed
 * while active (completing unseen).  Under the MPI lock; visible here only
 * for the inline create and free below, which run once per message. */
extern mh_table_t mreq_table;
extern mreq_t *mreq_pool;
extern mreq_t *mreq_detached;
mreq_t *mreq_create_slow(MPI_Request *out);
/* MPI_Finalize: free the recycled requests. */
void mreq_fini(void);
void mreq_release_coll(mreq_t *r);

/* The handle of every MPI_Isend that completed as it started (it went into
 * the receiver's short-message ring): it has no table entry and nothing to
 * free; a predefined request object answers for it, complete with a send's
 * status (MPICH returns shared completed requests the same way).  A
 * predefined handle (kind 1), so it equals no run-time handle and no
 * MPI_*_NULL. */
#define MREQ_SEND_DONE ((MPI_Request)(MH_KIND_BUILTIN << 30 | MH_CLASS_REQUEST << 26 | 1u))
extern mreq_t mreq_send_done;

/* A new request registered under *out, its fields for the caller to set
 * (all of them); NULL if out of memory or handles. */
/* Can mreq_create_fast make one now (a recycled request, a free handle,
 * nothing detached to reap first)? */
static inline bool mreq_fast_ok(void)
{
    return mreq_pool && !mreq_detached && mreq_table.serial && mreq_table.free_head != UINT32_MAX;
}
/* mreq_create when mreq_fast_ok() said so: cannot fail. */
static inline mreq_t *mreq_create_fast(MPI_Request *out)
{
    mreq_t *r = mreq_pool;
    mreq_pool = r->next_free;
    *out = (MPI_Request)mh_new_fast(&mreq_table, r);
    return r;
}
static inline mreq_t *mreq_create(MPI_Request *out)
{
    return __builtin_expect(mreq_fast_ok(), 1) ? mreq_create_fast(out) : mreq_create_slow(out);
}

/* Release r's communicator, type, buffers and collective, and recycle it
 * (its handle is the caller's). */
static inline void mreq_release(mreq_t *r)
{
    if (__builtin_expect(r->coll != NULL, 0)) mreq_release_coll(r);
    mcomm_release(r->comm);
    if (r->type) mdt_release(r->type);
    if (r->tmp) free(r->tmp); /* mostly absent: no call per message */
    r->next_free = mreq_pool;
    mreq_pool = r;
}

/* Release r's type and buffers, recycle it, set *h (live) to
 * MPI_REQUEST_NULL. */
static inline void mreq_free(mreq_t *r, MPI_Request *h)
{
    if (__builtin_expect(r == &mreq_send_done, 0)) {
        *h = MPI_REQUEST_NULL;
        return;
    }
    mreq_release(r);
    mh_free_live(&mreq_table, *h);
    *h = MPI_REQUEST_NULL;
}
/* MPI_Request_free of an active request: the handle goes now, the request
 * completes unseen (a receive still unpacks) and is recycled then. */
void mreq_detach(mreq_t *r, MPI_Request *h);
/* Recycle the detached requests that have completed (all of them, waiting,
 * if block: MPI_Finalize). */
void mreq_reap_detached(bool block);
/* A request on c that is complete already (empty status), for operations
 * done at once (MPI_Comm_idup); MPI_ERR_NO_MEM when out of handles. */
int mreq_create_done(mcomm_t *c, MPI_Request *out);
/* MPI_Isendrecv: the send request *send (taken out of the handle table,
 * *send set to MPI_REQUEST_NULL) becomes part of the receive r, which
 * completes when both have (the send's error if the receive has none). */
void mreq_pair(mreq_t *r, MPI_Request *send);
/* The request behind a live handle, or NULL. */
static inline mreq_t *mreq_get(MPI_Request h)
{
    if (h == MREQ_SEND_DONE) return &mreq_send_done;
    return (mreq_t *)mh_get(&mreq_table, (uint32_t)h);
}
/* The empty status of MPI 3.1 §3.7.3 (PROC_NULL, ANY_TAG, count 0). */
void mreq_status_empty(MPI_Status *s);      /* null or inactive request (§3.7.3) */
void mreq_status_proc_null(MPI_Status *s);  /* an operation with MPI_PROC_NULL */
/* r finished in p2p: fill its MPI status and unpack a packed receive. */
void mreq_finish(mreq_t *r, const p2p_status_t *ps);
/* The MPI error class of a p2p status (starting or finishing an operation). */
int mreq_class_of(sl_status_t st);
static inline int mreq_class(sl_status_t st)
{
    return st == SL_OK ? MPI_SUCCESS : mreq_class_of(st);
}
/* Has r finished?  Collects its p2p completion once (never blocks). */
bool mreq_poll(mreq_t *r);
/* MPI_REQUEST_NULL, or a persistent request not started (checked handle). */
bool mreq_inactive(MPI_Request h);
/* Complete *h (waiting if block) and copy its status; a persistent request
 * becomes inactive, any other is freed.  *flag = 0 when !block and not
 * done.  Returns the request's error through the communicator's handler. */
int mreq_done(MPI_Request *h, MPI_Status *status, bool block, int *flag, const char *fname);
/* Every entry MPI_REQUEST_NULL or live: MPI_ERR_ARG / MPI_ERR_REQUEST. */
int mreq_array_check(int count, const MPI_Request reqs[], const char *fname);

#endif
