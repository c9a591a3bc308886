/* MPI point-to-point over src/p2p: argument checks in MPI's error classes,
 * datatypes (contiguous buffers go straight to p2p, others through a packed
 * copy), starting requests (immediate and persistent), probe and cancel.
 * Completion is in complete.c, the request table in request.c. */
#include "mpi/mcoll.h"
#include "mpi/request.h"

#include "mpi/bsend.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The message-rate path of req_check: a predefined dense type (contiguous
 * for any count), a valid rank (or ANY_SOURCE, PROC_NULL), a valid tag, a
 * buffer.  False sends the call through every check of req_check_full,
 * which reports what is wrong. */
static inline bool req_check_fast(bool recv, const void *buf, int count, MPI_Datatype dt,
                                  int peer, int tag, MPI_Comm comm, mcomm_t **c,
                                  mdt_type_t **t)
{
    if (!(*t = mdt_get_dense_builtin(dt)) || count < 0 || !(*c = mcomm_get(comm))) return false;
    bool peer_ok = (unsigned)peer < (unsigned)mcomm_peers(*c) || peer == MPI_PROC_NULL ||
                   (recv && peer == MPI_ANY_SOURCE);
    bool tag_ok = (unsigned)tag <= (unsigned)P2P_TAG_MAX || (recv && tag == MPI_ANY_TAG);
    return peer_ok && tag_ok && (buf || count == 0);
}

/* Checks common to sends and receives; fills *c, *t and the bytes. */
static int req_check_full(bool recv, const void *buf, int count, MPI_Datatype dt, int peer, int tag,
                     MPI_Comm comm, mcomm_t **c, mdt_type_t **t, const char *fname)
{
    int err;
    if (!(*c = mcomm_get(comm))) return mpi_err(NULL, MPI_ERR_COMM, fname, NULL);
    if (count < 0) return mpi_err(*c, MPI_ERR_COUNT, fname, "negative count");
    if (!(*t = mdt_get_committed(dt, &err))) return mpi_err(*c, err, fname, NULL);
    bool any_tag = recv && tag == MPI_ANY_TAG;
    if (!any_tag && (tag < 0 || tag > P2P_TAG_MAX)) return mpi_err(*c, MPI_ERR_TAG, fname, NULL);
    bool any_src = recv && peer == MPI_ANY_SOURCE;
    if (!any_src && peer != MPI_PROC_NULL && (peer < 0 || peer >= mcomm_peers(*c)))
        return mpi_err(*c, MPI_ERR_RANK, fname, NULL);
    /* MPI_BOTTOM (NULL) is a valid base only for datatypes of absolute
     * addresses; with a predefined type it would mean address 0 (as MPICH) */
    if (!buf && count > 0 && (*t)->size > 0 && MDT_IS_BUILTIN(dt))
        return mpi_err(*c, MPI_ERR_BUFFER, fname, "NULL buffer with a predefined datatype");
    return MPI_SUCCESS;
}

static inline int req_check(bool recv, const void *buf, int count, MPI_Datatype dt, int peer,
                            int tag, MPI_Comm comm, mcomm_t **c, mdt_type_t **t, const char *fname)
{
    if (__builtin_expect(req_check_fast(recv, buf, count, dt, peer, tag, comm, c, t), 1))
        return MPI_SUCCESS;
    return req_check_full(recv, buf, count, dt, peer, tag, comm, c, t, fname);
}

/* Buffered mode: pack into the attached buffer, send from there; the
 * request is complete at once (no p2p request of its own). */
static int bsend_issue(mreq_t *r, int peer, int tag, size_t bytes, sl_status_t *pst)
{
    void *seg = mbsend_reserve(bytes);
    if (!seg) return MPI_ERR_BUFFER;
    if (bytes) mdt_pack(r->type, r->ubuf, r->count, seg);
    p2p_req_t *p;
    *pst = p2p_isend(seg, bytes, mcomm_world(r->comm, peer), tag, r->comm->ctx, &p);
    if (*pst != SL_OK) {
        mbsend_release(seg);
        return mreq_class(*pst);
    }
    mbsend_started(seg, p);
    mreq_status_empty(&r->st);
    return MPI_SUCCESS;
}

/* Post r's operation to p2p (packing a send of another layout). */
static int req_issue(mreq_t *r, int peer, int tag, sl_status_t *pst)
{
    *pst = SL_OK;
    r->err = MPI_SUCCESS;
    if (peer == MPI_PROC_NULL) {
        mreq_status_proc_null(&r->st);
        return MPI_SUCCESS;
    }
    size_t bytes = (size_t)r->count * (size_t)r->type->size;
    if (r->buffered) return bsend_issue(r, peer, tag, bytes, pst);
    void *addr = r->ubuf; /* predefined dense types: the buffer as it is */
    if (!(r->type->predefined && r->type->dense) &&
        !mdt_is_contig(r->type, r->count, r->ubuf, &addr)) {
        if (!r->tmp && !(r->tmp = malloc(bytes ? bytes : 1))) return MPI_ERR_NO_MEM;
        if (!r->recv) mdt_pack(r->type, r->ubuf, r->count, r->tmp);
        addr = r->tmp;
    }
    mcomm_t *c = r->comm;
    if (r->recv) {
        int src = peer == MPI_ANY_SOURCE ? P2P_ANY_SOURCE : mcomm_world(c, peer);
        *pst = p2p_irecv(addr, bytes, src, tag == MPI_ANY_TAG ? P2P_ANY_TAG : tag, c->ctx, &r->p);
    } else {
        *pst = (r->sync ? p2p_issend : p2p_isend)(addr, bytes, mcomm_world(c, peer), tag, c->ctx,
                                                  &r->p);
    }
    return mreq_class(*pst);
}

static int issue_error(mcomm_t *c, int err, sl_status_t st, const char *fname)
{
    return mpi_err(c, err, fname, st == SL_ERR_NOMEM ? "out of memory or rendezvous slots" : NULL);
}

/* Describe a checked operation in *r, written in place: built on the stack
 * and copied into the registered request, its fields were read back as
 * 16-byte vectors right after being stored one by one, a store-forwarding
 * stall that was most of mreq_create's time at the 8-byte message rate. */
static void req_describe(mreq_t *r, int kind, mcomm_t *c, mdt_type_t *t, void *buf, int count,
                         int peer, int tag)
{
    *r = (mreq_t){.recv = kind == MREQ_RECV, .sync = kind == MREQ_SSEND,
                  .buffered = kind == MREQ_BSEND, .comm = c, .ubuf = buf, .count = count,
                  .type = t, .peer = peer, .tag = tag};
}

/* Check the arguments and describe the operation in *r (not registered,
 * no reference on the datatype). */
static int req_fill(int kind, void *buf, int count, MPI_Datatype dt, int peer, int tag,
                    MPI_Comm comm, mreq_t *r, const char *fname)
{
    mcomm_t *c = NULL;
    mdt_type_t *t = NULL;
    int err = req_check(kind == MREQ_RECV, buf, count, dt, peer, tag, comm, &c, &t, fname);
    if (err != MPI_SUCCESS) return err;
    req_describe(r, kind, c, t, buf, count, peer, tag);
    return MPI_SUCCESS;
}

/* A checked, registered request, not yet posted. */
static int req_new(int kind, void *buf, int count, MPI_Datatype dt, int peer, int tag,
                   MPI_Comm comm, MPI_Request *out, mreq_t **rp, const char *fname)
{
    mcomm_t *c = NULL;
    mdt_type_t *t = NULL;
    int err = req_check(kind == MREQ_RECV, buf, count, dt, peer, tag, comm, &c, &t, fname);
    if (err != MPI_SUCCESS) return err;
    if (!out) return mpi_err(c, MPI_ERR_REQUEST, fname, "request is NULL");
    mreq_t *r = mreq_create(out);
    if (!r) return mpi_err(c, MPI_ERR_NO_MEM, fname, "out of memory or request handles");
    req_describe(r, kind, c, t, buf, count, peer, tag);
    mdt_retain(t);
    mcomm_retain(c);
    *rp = r;
    return MPI_SUCCESS;
}

static int req_start(int kind, void *buf, int count, MPI_Datatype dt, int peer, int tag,
                     MPI_Comm comm, MPI_Request *out, const char *fname)
{
    mreq_t *r = NULL;
    int err = req_new(kind, buf, count, dt, peer, tag, comm, out, &r, fname);
    if (err != MPI_SUCCESS) return err;
    sl_status_t st;
    if ((err = req_issue(r, peer, tag, &st)) != MPI_SUCCESS) {
        mcomm_t *c = r->comm;
        mreq_free(r, out);
        return issue_error(c, err, st, fname);
    }
    return MPI_SUCCESS;
}

/* A blocking call: start the operation and wait for it.  The request
 * lives on this stack, without a handle (nobody else can name it), and
 * without a reference on the datatype unless threads are on (then another
 * thread may free it while this one waits without the lock): the
 * small-message latency path. */
static int req_run(int kind, void *buf, int count, MPI_Datatype dt, int peer, int tag,
                   MPI_Comm comm, MPI_Status *status, const char *fname)
{
    mreq_t r;
    int err = req_fill(kind, buf, count, dt, peer, tag, comm, &r, fname);
    if (err != MPI_SUCCESS) return err;
    mcomm_t *c = r.comm;
    sl_status_t st;
    if (p2p_mt_on) mdt_retain(r.type);
    err = req_issue(&r, peer, tag, &st);
    if (err == MPI_SUCCESS && r.p) {
        p2p_status_t ps;
        p2p_wait(r.p, &ps);
        mreq_finish(&r, &ps);
    }
    if (p2p_mt_on) mdt_release(r.type);
    free(r.tmp);
    if (err != MPI_SUCCESS) return issue_error(c, err, st, fname);
    if (status != MPI_STATUS_IGNORE) mreq_status_copy(status, &r.st);
    /* as mreq_done: freed receives finished before this one are unpacked */
    mreq_reap_detached(false);
    return r.err ? mpi_err(c, r.err, fname, NULL) : MPI_SUCCESS;
}

/* req_start for the message-rate path (MPI_Isend, MPI_Irecv), in one
 * function: a predefined dense type, a rank (or ANY_SOURCE), a valid tag,
 * a request pointer, a request ready to be taken.  Anything else, or
 * anything wrong, takes req_start, which checks and reports it.  Worth its
 * repetition: req_start's chain of calls and re-checks was ~100 of the
 * ~1,000 instructions per message.  A send that completes as it starts
 * (into the receiver's short ring) returns MREQ_SEND_DONE: no request. */
static inline __attribute__((always_inline)) int
req_start_fast(int kind, void *buf, int count, MPI_Datatype dt, int peer, int tag, MPI_Comm comm,
               MPI_Request *out, const char *fname)
{
    bool recv = kind == MREQ_RECV;
    mcomm_t *c;
    mdt_type_t *t;
    if (__builtin_expect(!req_check_fast(recv, buf, count, dt, peer, tag, comm, &c, &t) ||
                             peer == MPI_PROC_NULL || !out || !mreq_fast_ok(),
                         0))
        return req_start(kind, buf, count, dt, peer, tag, comm, out, fname);
    size_t bytes = (size_t)count * (size_t)t->size;
    sl_status_t st;
    p2p_req_t *p;
    if (recv)
        st = p2p_irecv(buf, bytes, peer == MPI_ANY_SOURCE ? P2P_ANY_SOURCE : mcomm_world(c, peer),
                       tag == MPI_ANY_TAG ? P2P_ANY_TAG : tag, c->ctx, &p);
    else
        st = p2p_isend_lite(buf, bytes, mcomm_world(c, peer), tag, c->ctx, &p);
    if (__builtin_expect(st != SL_OK, 0)) return issue_error(c, mreq_class(st), st, fname);
    if (!p) {
        *out = MREQ_SEND_DONE;
        return MPI_SUCCESS;
    }
    mreq_t *r = mreq_create_fast(out);
    req_describe(r, kind, c, t, buf, count, peer, tag);
    r->p = p;
    mcomm_retain(c);
    return MPI_SUCCESS;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    MPI_CHECK_STATE("MPI_Isend");
    return req_start_fast(MREQ_SEND, (void *)buf, count, datatype, dest, tag, comm, request,
                          "MPI_Isend");
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    MPI_CHECK_STATE("MPI_Irecv");
    return req_start_fast(MREQ_RECV, buf, count, datatype, source, tag, comm, request,
                          "MPI_Irecv");
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MPI_CHECK_STATE("MPI_Send");
    return req_run(MREQ_SEND, (void *)buf, count, datatype, dest, tag, comm, MPI_STATUS_IGNORE,
                   "MPI_Send");
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    MPI_CHECK_STATE("MPI_Recv");
    return req_run(MREQ_RECV, buf, count, datatype, source, tag, comm, status, "MPI_Recv");
}

/* Synchronous mode: complete once a receive has matched (p2p_issend). */
int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request)
{
    MPI_CHECK_STATE("MPI_Issend");
    return req_start(MREQ_SSEND, (void *)buf, count, datatype, dest, tag, comm, request,
                     "MPI_Issend");
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MPI_CHECK_STATE("MPI_Ssend");
    return req_run(MREQ_SSEND, (void *)buf, count, datatype, dest, tag, comm, MPI_STATUS_IGNORE,
                   "MPI_Ssend");
}

/* Buffered mode (bsend.c): complete at once, the data waits in the
 * attached buffer; MPI_ERR_BUFFER when it does not fit. */
int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request)
{
    MPI_CHECK_STATE("MPI_Ibsend");
    return req_start(MREQ_BSEND, (void *)buf, count, datatype, dest, tag, comm, request,
                     "MPI_Ibsend");
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MPI_CHECK_STATE("MPI_Bsend");
    return req_run(MREQ_BSEND, (void *)buf, count, datatype, dest, tag, comm, MPI_STATUS_IGNORE,
                   "MPI_Bsend");
}

/* Ready mode: the user promises the receive is posted; a standard send is
 * a correct implementation of that (MPI 3.1 §3.4), and costs nothing more. */
int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request)
{
    MPI_CHECK_STATE("MPI_Irsend");
    return req_start(MREQ_SEND, (void *)buf, count, datatype, dest, tag, comm, request,
                     "MPI_Irsend");
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MPI_CHECK_STATE("MPI_Rsend");
    return req_run(MREQ_SEND, (void *)buf, count, datatype, dest, tag, comm, MPI_STATUS_IGNORE,
                   "MPI_Rsend");
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status)
{
    MPI_CHECK_STATE("MPI_Sendrecv");
    /* the send's arguments first: a receive already posted could not be
     * taken back (it was waited for, for ever) */
    mcomm_t *c = NULL;
    mdt_type_t *t = NULL;
    int err = req_check(false, sendbuf, sendcount, sendtype, dest, sendtag, comm, &c, &t,
                        "MPI_Sendrecv");
    if (err) return err;
    MPI_Request s, r;
    err = req_start(MREQ_RECV, recvbuf, recvcount, recvtype, source, recvtag, comm, &r,
                        "MPI_Sendrecv");
    if (err) return err;
    err = req_start(MREQ_SEND, (void *)sendbuf, sendcount, sendtype, dest, sendtag, comm, &s,
                    "MPI_Sendrecv");
    if (err) { /* the receive may never be matched now (to itself: never): withdraw it */
        MPI_Cancel(&r);
        mreq_done(&r, MPI_STATUS_IGNORE, true, NULL, "MPI_Sendrecv");
        return err;
    }
    int e1 = mreq_done(&s, MPI_STATUS_IGNORE, true, NULL, "MPI_Sendrecv");
    int e2 = mreq_done(&r, status, true, NULL, "MPI_Sendrecv");
    return e1 ? e1 : e2;
}

/* The send goes from a packed copy, so the receive may overwrite buf. */
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_CHECK_STATE("MPI_Sendrecv_replace");
    mcomm_t *c = NULL;
    mdt_type_t *t = NULL;
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
        mreq_status_proc_null(status);
        if (flag) *flag = 1;
        return MPI_SUCCESS;
    }
    if (source != MPI_ANY_SOURCE && (source < 0 || source >= mcomm_peers(c)))
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
    MPI_CHECK_STATE("MPI_Iprobe");
    if (!flag) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Iprobe", "flag is NULL");
    return probe(source, tag, comm, flag, status, false, "MPI_Iprobe");
}

int MPI_Cancel(MPI_Request *request)
{
    MPI_CHECK_STATE("MPI_Cancel");
    mreq_t *r = request ? mreq_get(*request) : NULL;
    if (!r) return mpi_err(NULL, MPI_ERR_REQUEST, "MPI_Cancel", NULL);
    if (r->coll) /* MPI 3.1 §5.12: erroneous for a collective */
        return mpi_err(r->comm, MPI_ERR_REQUEST, "MPI_Cancel", "a collective cannot be cancelled");
    if (r->persistent && !r->active)
        return mpi_err(NULL, MPI_ERR_REQUEST, "MPI_Cancel", "persistent request not started");
    /* receives that have not matched are cancelled; sends run to completion
     * (MPI lets a cancel fail: MPI_Test_cancelled then says false).  The
     * cancelled request is complete; the Wait or Test that the program
     * still owes collects it (collecting it here too returned it to the
     * pool twice when another thread was waiting on it). */
    if (r->recv && r->p) (void)p2p_cancel(r->p);
    return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request *request)
{
    MPI_CHECK_STATE("MPI_Request_free");
    mreq_t *r = request && *request != MPI_REQUEST_NULL ? mreq_get(*request) : NULL;
    if (!r) return mpi_err(NULL, MPI_ERR_REQUEST, "MPI_Request_free", "invalid or null request");
    if (r->coll && (!r->persistent || r->active) && !mreq_poll(r)) /* MPI 3.1 §5.12 */
        return mpi_err(r->comm, MPI_ERR_REQUEST, "MPI_Request_free",
                       "an active collective's request cannot be freed");
    /* an operation still running finishes unseen (MPI 3.1 §3.7.3) */
    if ((r->p || r->pair) && !mreq_poll(r)) mreq_detach(r, request);
    else mreq_free(r, request);
    return MPI_SUCCESS;
}

/* MPI_Isendrecv (MPI 4.0 §3.10): the receive and the send start as in
 * MPI_Sendrecv, and the receive's request carries the send (mreq_pair). */
int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Request *request)
{
    MPI_CHECK_STATE("MPI_Isendrecv");
    if (!request)
        return mpi_err(mcomm_get(comm), MPI_ERR_REQUEST, "MPI_Isendrecv", "request is NULL");
    /* the send's arguments first: a receive already posted could not be
     * taken back */
    mcomm_t *c = NULL;
    mdt_type_t *t = NULL;
    int err = req_check(false, sendbuf, sendcount, sendtype, dest, sendtag, comm, &c, &t,
                        "MPI_Isendrecv");
    if (err) return err;
    MPI_Request s, r;
    err = req_start(MREQ_RECV, recvbuf, recvcount, recvtype, source, recvtag, comm, &r,
                    "MPI_Isendrecv");
    if (err) return err;
    err = req_start(MREQ_SEND, (void *)sendbuf, sendcount, sendtype, dest, sendtag, comm, &s,
                    "MPI_Isendrecv");
    if (err) {
        mreq_done(&r, MPI_STATUS_IGNORE, true, NULL, "MPI_Isendrecv");
        return err;
    }
    mreq_pair(mreq_get(r), &s);
    *request = r;
    return MPI_SUCCESS;
}

/* The send goes from a packed copy that the send request owns (its tmp,
 * freed with it), so the receive may overwrite buf at once. */
int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    MPI_CHECK_STATE("MPI_Isendrecv_replace");
    mcomm_t *c = NULL;
    mdt_type_t *t = NULL;
    int err = req_check(false, buf, count, datatype, dest, sendtag, comm, &c, &t,
                        "MPI_Isendrecv_replace");
    if (err) return err;
    if (!request) return mpi_err(c, MPI_ERR_REQUEST, "MPI_Isendrecv_replace", "request is NULL");
    size_t bytes = (size_t)count * (size_t)t->size;
    if (bytes > INT_MAX)
        return mpi_err(c, MPI_ERR_COUNT, "MPI_Isendrecv_replace", "over INT_MAX bytes");
    void *tmp = malloc(bytes ? bytes : 1);
    if (!tmp) return mpi_err(c, MPI_ERR_NO_MEM, "MPI_Isendrecv_replace", NULL);
    if (bytes) mdt_pack(t, buf, count, tmp);
    MPI_Request s, r;
    err = req_start(MREQ_RECV, buf, count, datatype, source, recvtag, comm, &r,
                    "MPI_Isendrecv_replace");
    if (!err)
        err = req_start(MREQ_SEND, tmp, (int)bytes, MPI_BYTE, dest, sendtag, comm, &s,
                        "MPI_Isendrecv_replace");
    else
        r = MPI_REQUEST_NULL;
    if (err) {
        if (r != MPI_REQUEST_NULL)
            mreq_done(&r, MPI_STATUS_IGNORE, true, NULL, "MPI_Isendrecv_replace");
        free(tmp);
        return err;
    }
    mreq_get(s)->tmp = tmp; /* a dense send: nothing else uses its tmp */
    mreq_pair(mreq_get(r), &s);
    *request = r;
    return MPI_SUCCESS;
}

/* ---- persistent requests -------------------------------------------------------------- */

static int persistent_init(int kind, void *buf, int count, MPI_Datatype dt, int peer, int tag,
                           MPI_Comm comm, MPI_Request *out, const char *fname)
{
    MPI_CHECK_STATE(fname);
    mreq_t *r = NULL;
    int err = req_new(kind, buf, count, dt, peer, tag, comm, out, &r, fname);
    if (err == MPI_SUCCESS) r->persistent = true;
    return err;
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return persistent_init(MREQ_SEND, (void *)buf, count, datatype, dest, tag, comm, request,
                           "MPI_Send_init");
}

int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return persistent_init(MREQ_SSEND, (void *)buf, count, datatype, dest, tag, comm, request,
                           "MPI_Ssend_init");
}

int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return persistent_init(MREQ_SEND, (void *)buf, count, datatype, dest, tag, comm, request,
                           "MPI_Rsend_init");
}

int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return persistent_init(MREQ_BSEND, (void *)buf, count, datatype, dest, tag, comm, request,
                           "MPI_Bsend_init");
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return persistent_init(MREQ_RECV, buf, count, datatype, source, tag, comm, request,
                           "MPI_Recv_init");
}

static int start_one(MPI_Request *request, const char *fname)
{
    mreq_t *r = request && *request != MPI_REQUEST_NULL ? mreq_get(*request)
                                                        : NULL;
    if (!r || !r->persistent) return mpi_err(NULL, MPI_ERR_REQUEST, fname, "not a persistent request");
    if (r->active) return mpi_err(r->comm, MPI_ERR_REQUEST, fname, "request already active");
    if (r->coll) {
        int e = mcoll_start(r->coll);
        if (e) return mpi_err(r->comm, e, fname, "cannot start the collective");
        r->active = true;
        return MPI_SUCCESS;
    }
    sl_status_t st;
    int err = req_issue(r, r->peer, r->tag, &st);
    if (err != MPI_SUCCESS) return issue_error(r->comm, err, st, fname);
    r->active = true;
    return MPI_SUCCESS;
}

int MPI_Start(MPI_Request *request)
{
    MPI_CHECK_STATE("MPI_Start");
    return start_one(request, "MPI_Start");
}

int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    MPI_CHECK_STATE("MPI_Startall");
    if (count < 0) return mpi_err(NULL, MPI_ERR_COUNT, "MPI_Startall", "negative count");
    if (count && !array_of_requests) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Startall", NULL);
    for (int i = 0; i < count; i++) {
        int err = start_one(&array_of_requests[i], "MPI_Startall");
        if (err != MPI_SUCCESS) return err;
    }
    return MPI_SUCCESS;
}
