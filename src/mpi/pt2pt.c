/* MPI point-to-point over src/p2p: argument checks in MPI's error classes,
 * datatypes (contiguous buffers go straight to p2p, others through a packed
 * copy), requests as generation-checked handles, statuses. */
#include "mpi/datatype.h"
#include "mpi/handle.h"
#include "mpi/mpi_int.h"
#include "p2p/p2p.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct mreq {
    struct mreq *next_free; /* pool */
    p2p_req_t *p;        /* NULL once complete, or for MPI_PROC_NULL */
    bool recv;
    mcomm_t *comm;
    void *ubuf;          /* user buffer, and a packed copy for other layouts */
    void *tmp;
    int count;
    mdt_type_t *type;
    MPI_Status st;
    int err;
} mreq_t;

static mh_table_t req_table = MH_TABLE_INIT(MH_CLASS_REQUEST);
static mreq_t *req_pool; /* freed requests; MPI calls are serialised (no lock) */

static mreq_t *req_alloc(void)
{
    mreq_t *r = req_pool;
    if (r) req_pool = r->next_free;
    else r = malloc(sizeof *r);
    return r;
}

static int p2p_class(sl_status_t st)
{
    switch (st) {
    case SL_OK: return MPI_SUCCESS;
    case SL_ERR_NOMEM: return MPI_ERR_NO_MEM;
    case SL_ERR_INVALID: return MPI_ERR_ARG;
    case SL_ERR_TRUNCATE: return MPI_ERR_TRUNCATE;
    default: return MPI_ERR_OTHER;
    }
}

static void status_empty(MPI_Status *s)
{
    if (s == MPI_STATUS_IGNORE) return;
    s->MPI_SOURCE = MPI_PROC_NULL;
    s->MPI_TAG = MPI_ANY_TAG;
    s->MPI_ERROR = MPI_SUCCESS;
    mdt_status_set_bytes(s, 0);
    mdt_status_set_cancelled(s, false);
}

static void req_free(mreq_t *r, MPI_Request *h)
{
    if (r->type) mdt_release(r->type);
    free(r->tmp);
    r->next_free = req_pool;
    req_pool = r;
    mh_free(&req_table, *h);
    *h = MPI_REQUEST_NULL;
}

/* Checks common to sends and receives; fills *c, *t and the bytes. */
static int req_check(bool recv, const void *buf, int count, MPI_Datatype dt, int peer, int tag,
                     MPI_Comm comm, mcomm_t **c, mdt_type_t **t, const char *fname)
{
    int err;
    if (!(*c = mcomm_get(comm))) return mpi_err(NULL, MPI_ERR_COMM, fname, NULL);
    if (count < 0) return mpi_err(*c, MPI_ERR_COUNT, fname, "negative count");
    if (!(*t = mdt_get_committed(dt, &err))) return mpi_err(*c, err, fname, NULL);
    bool any_tag = recv && tag == MPI_ANY_TAG;
    if (!any_tag && (tag < 0 || tag > P2P_TAG_MAX)) return mpi_err(*c, MPI_ERR_TAG, fname, NULL);
    bool any_src = recv && peer == MPI_ANY_SOURCE;
    if (!any_src && peer != MPI_PROC_NULL && (peer < 0 || peer >= (*c)->size))
        return mpi_err(*c, MPI_ERR_RANK, fname, NULL);
    /* MPI_BOTTOM (NULL) is a valid base only for datatypes of absolute
     * addresses; with a predefined type it would mean address 0 (as MPICH) */
    if (!buf && count > 0 && (*t)->size > 0 && MDT_IS_BUILTIN(dt))
        return mpi_err(*c, MPI_ERR_BUFFER, fname, "NULL buffer with a predefined datatype");
    return MPI_SUCCESS;
}

static int req_start(bool recv, void *buf, int count, MPI_Datatype dt, int peer, int tag,
                     MPI_Comm comm, MPI_Request *out, const char *fname)
{
    mcomm_t *c = NULL;
    mdt_type_t *t = NULL;
    int err = req_check(recv, buf, count, dt, peer, tag, comm, &c, &t, fname);
    if (err != MPI_SUCCESS) return err;
    if (!out) return mpi_err(c, MPI_ERR_REQUEST, fname, "request is NULL");
    mreq_t *r = req_alloc();
    if (!r) return mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
    *r = (mreq_t){.recv = recv, .comm = c, .ubuf = buf, .count = count, .type = t};
    mdt_retain(t);
    MPI_Request h = (MPI_Request)mh_new(&req_table, r);
    if (!h) {
        mdt_release(t);
        r->next_free = req_pool;
        req_pool = r;
        return mpi_err(c, MPI_ERR_NO_MEM, fname, "too many requests");
    }
    *out = h;
    if (peer == MPI_PROC_NULL) {
        status_empty(&r->st);
        return MPI_SUCCESS;
    }
    size_t bytes = (size_t)count * (size_t)t->size;
    void *addr = NULL;
    if (!mdt_is_contig(t, count, buf, &addr)) {
        if (!(r->tmp = malloc(bytes ? bytes : 1))) err = MPI_ERR_NO_MEM;
        else if (!recv) mdt_pack(t, buf, count, r->tmp);
        addr = r->tmp;
    }
    sl_status_t st = SL_OK;
    if (err == MPI_SUCCESS && recv) {
        int src = peer == MPI_ANY_SOURCE ? P2P_ANY_SOURCE : mcomm_world(c, peer);
        st = p2p_irecv(addr, bytes, src, tag == MPI_ANY_TAG ? P2P_ANY_TAG : tag, c->ctx, &r->p);
    } else if (err == MPI_SUCCESS) {
        st = p2p_isend(addr, bytes, mcomm_world(c, peer), tag, c->ctx, &r->p);
    }
    if (err == MPI_SUCCESS && st != SL_OK) err = p2p_class(st);
    if (err != MPI_SUCCESS) {
        req_free(r, out);
        return mpi_err(c, err, fname,
                       st == SL_ERR_UNSUPPORTED
                           ? "messages over SLUICE_EAGER_LIMIT need a rendezvous protocol, "
                             "not built yet"
                           : NULL);
    }
    return MPI_SUCCESS;
}

/* The request finished in p2p: its MPI status, and unpacking. */
static void req_finish(mreq_t *r, const p2p_status_t *ps)
{
    r->p = NULL;
    r->st.MPI_SOURCE = r->recv ? mcomm_rank_of(r->comm, ps->source) : MPI_PROC_NULL;
    r->st.MPI_TAG = r->recv ? ps->tag : MPI_ANY_TAG;
    r->err = ps->error == SL_ERR_TRUNCATE ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    r->st.MPI_ERROR = r->err;
    mdt_status_set_bytes(&r->st, r->recv ? (MPI_Count)ps->bytes : 0);
    mdt_status_set_cancelled(&r->st, ps->cancelled);
    if (r->recv && r->tmp && ps->bytes)
        mdt_unpack_range(r->type, r->ubuf, 0, (MPI_Count)ps->bytes, r->tmp);
}

/* Has r finished?  Collects its p2p completion once (never blocks). */
static bool req_poll(mreq_t *r)
{
    p2p_status_t ps;
    if (!r->p) return true;
    if (!p2p_test(r->p, &ps)) return false;
    req_finish(r, &ps);
    return true;
}

/* Complete *h (waiting if block), copy its status, free it. */
static int req_done(MPI_Request *h, MPI_Status *status, bool block, int *flag, const char *fname)
{
    if (!h) return mpi_err(NULL, MPI_ERR_REQUEST, fname, "request pointer is NULL");
    if (*h == MPI_REQUEST_NULL) {
        status_empty(status);
        if (flag) *flag = 1;
        return MPI_SUCCESS;
    }
    mreq_t *r = mh_get(&req_table, (uint32_t)*h);
    if (!r) return mpi_err(NULL, MPI_ERR_REQUEST, fname, "invalid or freed request");
    if (block && r->p) {
        p2p_status_t ps;
        p2p_wait(r->p, &ps);
        req_finish(r, &ps);
    } else if (!req_poll(r)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    if (flag) *flag = 1;
    if (status != MPI_STATUS_IGNORE) *status = r->st;
    int err = r->err;
    mcomm_t *c = r->comm;
    req_free(r, h);
    return err ? mpi_err(c, err, fname, NULL) : MPI_SUCCESS;
}

/* Validate an array of requests: every entry null or live. */
static int req_array_check(int count, const MPI_Request reqs[], const char *fname)
{
    if (count < 0 || (count && !reqs)) return mpi_err(NULL, MPI_ERR_ARG, fname, NULL);
    for (int i = 0; i < count; i++)
        if (reqs[i] != MPI_REQUEST_NULL && !mh_get(&req_table, (uint32_t)reqs[i]))
            return mpi_err(NULL, MPI_ERR_REQUEST, fname, "invalid or freed request in the array");
    return MPI_SUCCESS;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    MPI_CHECK_STATE("MPI_Isend");
    return req_start(false, (void *)buf, count, datatype, dest, tag, comm, request, "MPI_Isend");
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    MPI_CHECK_STATE("MPI_Irecv");
    return req_start(true, buf, count, datatype, source, tag, comm, request, "MPI_Irecv");
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MPI_CHECK_STATE("MPI_Send");
    MPI_Request r;
    int err = req_start(false, (void *)buf, count, datatype, dest, tag, comm, &r, "MPI_Send");
    return err ? err : req_done(&r, MPI_STATUS_IGNORE, true, NULL, "MPI_Send");
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    MPI_CHECK_STATE("MPI_Recv");
    MPI_Request r;
    int err = req_start(true, buf, count, datatype, source, tag, comm, &r, "MPI_Recv");
    return err ? err : req_done(&r, status, true, NULL, "MPI_Recv");
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status)
{
    MPI_CHECK_STATE("MPI_Sendrecv");
    MPI_Request s, r;
    int err = req_start(true, recvbuf, recvcount, recvtype, source, recvtag, comm, &r,
                        "MPI_Sendrecv");
    if (err) return err;
    err = req_start(false, (void *)sendbuf, sendcount, sendtype, dest, sendtag, comm, &s,
                    "MPI_Sendrecv");
    if (err) {
        req_done(&r, MPI_STATUS_IGNORE, true, NULL, "MPI_Sendrecv");
        return err;
    }
    int e1 = req_done(&s, MPI_STATUS_IGNORE, true, NULL, "MPI_Sendrecv");
    int e2 = req_done(&r, status, true, NULL, "MPI_Sendrecv");
    return e1 ? e1 : e2;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    MPI_CHECK_STATE("MPI_Wait");
    return req_done(request, status, true, NULL, "MPI_Wait");
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPI_CHECK_STATE("MPI_Test");
    if (!flag) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Test", "flag is NULL");
    return req_done(request, status, false, flag, "MPI_Test");
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status *statuses)
{
    MPI_CHECK_STATE("MPI_Waitall");
    if (count < 0 || (count && !requests)) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Waitall", NULL);
    int any = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status s;
        int e = req_done(&requests[i], &s, true, NULL, "MPI_Waitall");
        s.MPI_ERROR = e;
        if (statuses != MPI_STATUSES_IGNORE) statuses[i] = s;
        if (e) any = 1;
    }
    return any ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status *statuses)
{
    MPI_CHECK_STATE("MPI_Testall");
    if (!flag) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Testall", "flag is NULL");
    int err = req_array_check(count, requests, "MPI_Testall");
    if (err) return err;
    /* all or nothing: complete only when every request is done */
    for (int i = 0; i < count; i++) {
        mreq_t *r = requests[i] == MPI_REQUEST_NULL ? NULL : mh_get(&req_table, (uint32_t)requests[i]);
        if (r && !req_poll(r)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return MPI_Waitall(count, requests, statuses);
}

/* One pass of Testany: *indx is the completed request, or MPI_UNDEFINED
 * with *flag = 1 when no request is active. */
static int test_any(int count, MPI_Request reqs[], int *indx, int *flag, MPI_Status *status,
                    const char *fname)
{
    bool active = false;
    *indx = MPI_UNDEFINED;
    *flag = 0;
    for (int i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL) continue;
        active = true;
        if (!req_poll(mh_get(&req_table, (uint32_t)reqs[i]))) continue;
        *indx = i;
        return req_done(&reqs[i], status, false, flag, fname);
    }
    if (!active) {
        *flag = 1;
        status_empty(status);
    }
    return MPI_SUCCESS;
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag,
                MPI_Status *status)
{
    MPI_CHECK_STATE("MPI_Testany");
    if (!indx || !flag) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Testany", "indx or flag is NULL");
    int err = req_array_check(count, array_of_requests, "MPI_Testany");
    return err ? err : test_any(count, array_of_requests, indx, flag, status, "MPI_Testany");
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status)
{
    MPI_CHECK_STATE("MPI_Waitany");
    if (!indx) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Waitany", "indx is NULL");
    int err = req_array_check(count, array_of_requests, "MPI_Waitany");
    int flag = 0;
    while (!err && !(err = test_any(count, array_of_requests, indx, &flag, status, "MPI_Waitany")) &&
           !flag)
        if (p2p_wait_progress(1000) != SL_OK) err = mpi_err(NULL, MPI_ERR_INTERN, "MPI_Waitany", NULL);
    return err;
}

/* One pass of Testsome: completes every finished request; *outcount is
 * MPI_UNDEFINED when none is active. */
static int test_some(int incount, MPI_Request reqs[], int *outcount, int indices[],
                     MPI_Status statuses[], const char *fname)
{
    bool active = false, failed = false;
    *outcount = 0;
    for (int i = 0; i < incount; i++) {
        if (reqs[i] == MPI_REQUEST_NULL) continue;
        active = true;
        if (!req_poll(mh_get(&req_table, (uint32_t)reqs[i]))) continue;
        MPI_Status s;
        int flag, e = req_done(&reqs[i], &s, false, &flag, fname);
        s.MPI_ERROR = e;
        if (statuses != MPI_STATUSES_IGNORE) statuses[*outcount] = s;
        indices[(*outcount)++] = i;
        failed |= e != MPI_SUCCESS;
    }
    if (!active) *outcount = MPI_UNDEFINED;
    return failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    MPI_CHECK_STATE("MPI_Testsome");
    if (!outcount || (incount > 0 && !array_of_indices))
        return mpi_err(NULL, MPI_ERR_ARG, "MPI_Testsome", "outcount or indices is NULL");
    int err = req_array_check(incount, array_of_requests, "MPI_Testsome");
    return err ? err
               : test_some(incount, array_of_requests, outcount, array_of_indices,
                           array_of_statuses, "MPI_Testsome");
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    MPI_CHECK_STATE("MPI_Waitsome");
    if (!outcount || (incount > 0 && !array_of_indices))
        return mpi_err(NULL, MPI_ERR_ARG, "MPI_Waitsome", "outcount or indices is NULL");
    int err = req_array_check(incount, array_of_requests, "MPI_Waitsome");
    while (!err &&
           !(err = test_some(incount, array_of_requests, outcount, array_of_indices,
                             array_of_statuses, "MPI_Waitsome")) &&
           *outcount == 0)
        if (p2p_wait_progress(1000) != SL_OK) err = mpi_err(NULL, MPI_ERR_INTERN, "MPI_Waitsome", NULL);
    return err;
}

/* The send goes from a packed copy, so the receive may overwrite buf. */
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_CHECK_STATE("MPI_Sendrecv_replace");
    mcomm_t *c;
    mdt_type_t *t;
    int err = req_check(false, buf, count, datatype, dest, sendtag, comm, &c, &t,
                        "MPI_Sendrecv_replace");
    if (err) return err;
    size_t bytes = (size_t)count * (size_t)t->size;
    if (bytes > INT_MAX)
        return mpi_err(c, MPI_ERR_COUNT, "MPI_Sendrecv_replace", "over INT_MAX bytes");
    void *tmp = malloc(bytes ? bytes : 1);
    if (!tmp) return mpi_err(c, MPI_ERR_NO_MEM, "MPI_Sendrecv_replace", NULL);
    if (bytes) mdt_pack(t, buf, count, tmp);
    err = MPI_Sendrecv(tmp, (int)bytes, MPI_BYTE, dest, sendtag, buf, count, datatype, source,
                       recvtag, comm, status);
    free(tmp);
    return err;
}

static int probe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status, bool block,
                 const char *fname)
{
    MPI_CHECK_STATE(fname);
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, fname, NULL);
    if (tag != MPI_ANY_TAG && (tag < 0 || tag > P2P_TAG_MAX)) return mpi_err(c, MPI_ERR_TAG, fname, NULL);
    if (source == MPI_PROC_NULL) {
        status_empty(status);
        if (flag) *flag = 1;
        return MPI_SUCCESS;
    }
    if (source != MPI_ANY_SOURCE && (source < 0 || source >= c->size))
        return mpi_err(c, MPI_ERR_RANK, fname, NULL);
    int src = source == MPI_ANY_SOURCE ? P2P_ANY_SOURCE : mcomm_world(c, source);
    int t = tag == MPI_ANY_TAG ? P2P_ANY_TAG : tag;
    p2p_status_t ps;
    bool found = block ? p2p_probe(src, t, c->ctx, &ps) == SL_OK : p2p_iprobe(src, t, c->ctx, &ps);
    if (flag) *flag = found;
    if (found && status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = mcomm_rank_of(c, ps.source);
        status->MPI_TAG = ps.tag;
        status->MPI_ERROR = MPI_SUCCESS;
        mdt_status_set_bytes(status, (MPI_Count)ps.sent);
        mdt_status_set_cancelled(status, false);
    }
    return MPI_SUCCESS;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return probe(source, tag, comm, NULL, status, true, "MPI_Probe");
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    if (!flag) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Iprobe", "flag is NULL");
    return probe(source, tag, comm, flag, status, false, "MPI_Iprobe");
}

int MPI_Cancel(MPI_Request *request)
{
    MPI_CHECK_STATE("MPI_Cancel");
    mreq_t *r = request ? mh_get(&req_table, (uint32_t)*request) : NULL;
    if (!r) return mpi_err(NULL, MPI_ERR_REQUEST, "MPI_Cancel", NULL);
    /* receives that have not matched are cancelled; sends run to completion
     * (MPI lets a cancel fail: MPI_Test_cancelled then says false) */
    if (r->recv && r->p && p2p_cancel(r->p)) {
        p2p_status_t ps;
        p2p_wait(r->p, &ps);
        req_finish(r, &ps);
    }
    return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request *request)
{
    MPI_CHECK_STATE("MPI_Request_free");
    /* Not yet detached: an active request is completed here (it blocks). */
    return req_done(request, MPI_STATUS_IGNORE, true, NULL, "MPI_Request_free");
}
