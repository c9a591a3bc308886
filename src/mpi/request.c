/* MPI requests: generation-checked handles over a recycled pool,
 * completion from p2p into MPI statuses (see request.h). */
#include "mpi/request.h"

#include "mpi/handle.h"
#include "mpi/mcoll.h"

#include <stdlib.h>

mh_table_t mreq_table = MH_TABLE_INIT_SERIAL(MH_CLASS_REQUEST);
mreq_t *mreq_pool;
mreq_t *mreq_detached;
mreq_t mreq_send_done = {
    .st = {.MPI_SOURCE = MPI_PROC_NULL, .MPI_TAG = MPI_ANY_TAG, .MPI_ERROR = MPI_SUCCESS}};

/* The status of an operation with MPI_PROC_NULL (MPI 3.1 §3.11): source
 * MPI_PROC_NULL, tag MPI_ANY_TAG, count 0. */
void mreq_status_proc_null(MPI_Status *s)
{
    mreq_status_empty(s);
    if (s != MPI_STATUS_IGNORE) s->MPI_SOURCE = MPI_PROC_NULL;
}

/* The empty status (§3.7.3) of a null or inactive request: source
 * MPI_ANY_SOURCE, tag MPI_ANY_TAG, no error, count 0. */
void mreq_status_empty(MPI_Status *s)
{
    if (s == MPI_STATUS_IGNORE) return;
    s->MPI_SOURCE = MPI_ANY_SOURCE;
    s->MPI_TAG = MPI_ANY_TAG;
    s->MPI_ERROR = MPI_SUCCESS;
    mdt_status_set_bytes(s, 0);
    mdt_status_set_cancelled(s, false);
}

void mreq_pair(mreq_t *r, MPI_Request *send)
{
    r->pair = mh_get(&mreq_table, (uint32_t)*send);
    mh_free(&mreq_table, *send);
    *send = MPI_REQUEST_NULL;
}

/* Has r's send half finished (waiting for it if block)?  It is released
 * then, its error kept for r. */
static bool mreq_pair_done(mreq_t *r, bool block)
{
    mreq_t *s = r->pair;
    bool done = true;
    if (s->p && block) {
        p2p_status_t ps;
        p2p_wait(s->p, &ps);
        mreq_finish(s, &ps);
    } else if (s->p) {
        done = mreq_poll(s);
    }
    if (!done) return false;
    r->pair = NULL;
    if (s->err && !r->err) r->err = s->err, r->st.MPI_ERROR = s->err;
    mreq_release(s);
    return true;
}

void mreq_release_coll(mreq_t *r)
{
    mcoll_release(r->coll);
    r->coll = NULL;
}

void mreq_detach(mreq_t *r, MPI_Request *h)
{
    if (r == &mreq_send_done) { /* complete: nothing to detach */
        *h = MPI_REQUEST_NULL;
        return;
    }
    mh_free(&mreq_table, *h);
    *h = MPI_REQUEST_NULL;
    r->next_free = mreq_detached;
    mreq_detached = r;
}

/* Has r finished?  With block, wait until it has (true then). */
static bool mreq_complete(mreq_t *r, bool block)
{
    if (__builtin_expect(r->pair != NULL, 0) && !mreq_pair_done(r, block)) return false;
    if (r->coll && block) {
        r->err = mcoll_wait(r->coll);
        r->st.MPI_ERROR = r->err;
        return true;
    }
    if (!block || !r->p) return mreq_poll(r);
    p2p_status_t ps;
    p2p_wait(r->p, &ps);
    mreq_finish(r, &ps);
    return true;
}

void mreq_reap_detached(bool block)
{
    for (mreq_t **pp = &mreq_detached; *pp;) {
        mreq_t *r = *pp;
        if (mreq_complete(r, block)) {
            *pp = r->next_free;
            mreq_release(r);
        } else {
            pp = &r->next_free;
        }
    }
}

void mreq_fini(void)
{
    while (mreq_pool) {
        mreq_t *r = mreq_pool;
        mreq_pool = r->next_free;
        free(r);
    }
}

mreq_t *mreq_create_slow(MPI_Request *out)
{
    if (mreq_detached) mreq_reap_detached(false);
    mreq_t *r = mreq_pool;
    if (r) mreq_pool = r->next_free;
    else if (!(r = malloc(sizeof *r))) return NULL;
    MPI_Request h = (MPI_Request)mh_new(&mreq_table, r);
    if (!h) {
        r->next_free = mreq_pool;
        mreq_pool = r;
        return NULL;
    }
    *out = h;
    return r;
}

int mreq_create_done(mcomm_t *c, MPI_Request *out)
{
    mreq_t *r = mreq_create(out);
    if (!r) return MPI_ERR_NO_MEM;
    *r = (mreq_t){.comm = c};
    mreq_status_empty(&r->st);
    mcomm_retain(c);
    return MPI_SUCCESS;
}


int mreq_class_of(sl_status_t st)
{
    switch (st) {
    case SL_OK: return MPI_SUCCESS;
    case SL_ERR_NOMEM: return MPI_ERR_NO_MEM;
    case SL_ERR_INVALID: return MPI_ERR_ARG;
    case SL_ERR_TRUNCATE: return MPI_ERR_TRUNCATE;
    default: return MPI_ERR_OTHER;
    }
}

/* The request finished in p2p: its MPI status, and unpacking.  An operation
 * that failed in the protocol (a failed transfer, no memory) reports it:
 * its data cannot be trusted. */
void mreq_finish(mreq_t *r, const p2p_status_t *ps)
{
    r->p = NULL;
    r->st.MPI_SOURCE = r->recv ? mcomm_rank_of(r->comm, ps->source) : MPI_PROC_NULL;
    r->st.MPI_TAG = r->recv ? ps->tag : MPI_ANY_TAG;
    r->err = mreq_class(ps->error);
    r->st.MPI_ERROR = r->err;
    mdt_status_set_bytes(&r->st, r->recv ? (MPI_Count)ps->bytes : 0);
    mdt_status_set_cancelled(&r->st, ps->cancelled);
    if (r->recv && r->tmp && ps->bytes)
        mdt_unpack_range(r->type, r->ubuf, 0, (MPI_Count)ps->bytes, r->tmp);
}

/* Has r finished?  Collects its p2p completion once (never blocks). */
bool mreq_poll(mreq_t *r)
{
    p2p_status_t ps;
    if (__builtin_expect(r->pair != NULL, 0) && !mreq_pair_done(r, false)) return false;
    if (__builtin_expect(r->coll != NULL, 0)) {
        if (!mcoll_test(r->coll)) return false;
        r->err = mcoll_error(r->coll);
        r->st.MPI_ERROR = r->err;
        return true;
    }
    if (!r->p) return true;
    if (!p2p_test(r->p, &ps)) return false;
    mreq_finish(r, &ps);
    return true;
}

/* MPI_REQUEST_NULL, or a persistent request not started (checked handle). */
bool mreq_inactive(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL) return true;
    mreq_t *r = mreq_get(h);
    return r->persistent && !r->active;
}

/* Complete *h (waiting if block) and copy its status; a persistent request
 * becomes inactive, any other is freed. */
int mreq_done(MPI_Request *h, MPI_Status *status, bool block, int *flag, const char *fname)
{
    if (!h) return mpi_err(NULL, MPI_ERR_REQUEST, fname, "request pointer is NULL");
    mreq_t *r = *h == MPI_REQUEST_NULL ? NULL : mreq_get(*h);
    if (*h != MPI_REQUEST_NULL && !r)
        return mpi_err(NULL, MPI_ERR_REQUEST, fname, "invalid or freed request");
    if (!r || (r->persistent && !r->active)) {
        mreq_status_empty(status);
        if (flag) *flag = 1;
        return MPI_SUCCESS;
    }
    if (!mreq_complete(r, block)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    if (flag) *flag = 1;
    if (status != MPI_STATUS_IGNORE) mreq_status_copy(status, &r->st);
    int err = r->err;
    mcomm_t *c = r->comm;
    if (r->persistent) r->active = false;
    else mreq_free(r, h);
    /* a freed receive that finished before this one has its data in place
     * (unpacked) by the time this one is seen complete */
    if (mreq_detached) mreq_reap_detached(false);
    return err ? mpi_err(c, err, fname, NULL) : MPI_SUCCESS;
}

/* Validate an array of requests: every entry null or live. */
int mreq_array_check(int count, const MPI_Request reqs[], const char *fname)
{
    if (count < 0) return mpi_err(NULL, MPI_ERR_COUNT, fname, "negative count");
    if (count && !reqs) return mpi_err(NULL, MPI_ERR_ARG, fname, "requests is NULL");
    for (int i = 0; i < count; i++)
        if (reqs[i] != MPI_REQUEST_NULL && !mreq_get(reqs[i]))
            return mpi_err(NULL, MPI_ERR_REQUEST, fname, "invalid or freed request in the array");
    return MPI_SUCCESS;
}
