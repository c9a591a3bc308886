/* Matched probe (MPI_Mprobe/Improbe/Mrecv/Imrecv, MPI 3.1 §3.8.2).
 *
 * A probe finds the first message that matches (source, tag) in the
 * unexpected queue.  A receive posted at once for that message's own source
 * and tag matches the same message: any earlier message with that source
 * and tag would have matched the probe first, and nothing else can take it
 * in between (under MPI_THREAD_MULTIPLE, other threads' receives wait at
 * p2p's gate during the attempt; a blocking Mprobe is a loop of such
 * attempts, so that it never holds the gate while it waits for a message).
 * That receive goes into a library buffer of the message's size, and the message handle owns it; Mrecv
 * copies (unpacks) from there into the user's buffer.  Every eager message
 * is already in a bounce buffer here, so the receive completes at once;
 * the extra copy is the price of not having a dequeue in Portals' search. */
#include "mpi/handle.h"
#include "mpi/request.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    p2p_req_t *p;  /* the receive that took the message */
    void *buf;
    mcomm_t *comm;
} mmsg_t;

static mh_table_t msg_table = MH_TABLE_INIT(MH_CLASS_MESSAGE);

/* Post the receive that takes the probed message (status s) into a library
 * buffer owned by a new message handle. */
static int mprobe_claim(int source, MPI_Comm comm, MPI_Message *message, const MPI_Status *s,
                        const char *fname)
{
    if (source == MPI_PROC_NULL) {
        *message = MPI_MESSAGE_NO_PROC;
        return MPI_SUCCESS;
    }
    mcomm_t *c = mcomm_get(comm);
    size_t bytes = (size_t)mdt_status_bytes(s);
    mmsg_t *m = calloc(1, sizeof *m);
    if (m) m->buf = malloc(bytes ? bytes : 1);
    int h = m && m->buf ? mh_new(&msg_table, m) : 0;
    if (!h) {
        if (m) free(m->buf);
        free(m);
        return mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
    }
    m->comm = c;
    sl_status_t st = p2p_irecv(m->buf, bytes, mcomm_world(c, s->MPI_SOURCE), s->MPI_TAG, c->ctx,
                               &m->p);
    if (st != SL_OK) {
        mh_free(&msg_table, h);
        free(m->buf);
        free(m);
        return mpi_err(c, MPI_ERR_INTERN, fname, "could not take the probed message");
    }
    *message = (MPI_Message)h;
    return MPI_SUCCESS;
}

static int mprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                  MPI_Status *status, const char *fname)
{
    MPI_CHECK_STATE(fname);
    if (!message) return mpi_err(mcomm_get(comm), MPI_ERR_ARG, fname, "message is NULL");
    MPI_Status s;
    int found = 0, err;
    for (;;) {
        p2p_mt_gate_enter(); /* left after the claiming receive is posted */
        err = MPI_Iprobe(source, tag, comm, &found, &s);
        if (err != MPI_SUCCESS || found || flag) break;
        p2p_mt_gate_exit();
        if (p2p_wait_progress(10) != SL_OK)
            return mpi_err(mcomm_get(comm), MPI_ERR_INTERN, fname, NULL);
    }
    err = err != MPI_SUCCESS || !found ? err : mprobe_claim(source, comm, message, &s, fname);
    p2p_mt_gate_exit();
    if (err != MPI_SUCCESS) return err;
    if (flag) *flag = found;
    if (found && status != MPI_STATUS_IGNORE) *status = s;
    return MPI_SUCCESS;
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    return mprobe(source, tag, comm, NULL, message, status, "MPI_Mprobe");
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                MPI_Status *status)
{
    MPI_CHECK_STATE("MPI_Improbe");
    if (!flag) return mpi_err(mcomm_get(comm), MPI_ERR_ARG, "MPI_Improbe", "flag is NULL");
    return mprobe(source, tag, comm, flag, message, status, "MPI_Improbe");
}

/* Receive the message into buf (truncating to count elements); fills *st
 * and returns MPI_SUCCESS or MPI_ERR_TRUNCATE (not yet through a handler). */
static int mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *st,
                 mcomm_t **cp, const char *fname)
{
    int err;
    *cp = NULL;
    if (!message) return mpi_err(NULL, MPI_ERR_ARG, fname, "message is NULL");
    if (count < 0) return mpi_err(NULL, MPI_ERR_COUNT, fname, "negative count");
    mdt_type_t *t = mdt_get_committed(dt, &err);
    if (!t) return mpi_err(NULL, err, fname, NULL);
    if (*message == MPI_MESSAGE_NO_PROC) {
        mreq_status_proc_null(st);
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    mmsg_t *m = *message == MPI_MESSAGE_NULL ? NULL : mh_get(&msg_table, *message);
    if (!m) return mpi_err(NULL, MPI_ERR_REQUEST, fname, "invalid or used message handle");
    p2p_status_t ps;
    p2p_wait(m->p, &ps);
    size_t cap = (size_t)count * (size_t)t->size, n = ps.bytes < cap ? ps.bytes : cap;
    void *addr;
    if (n && mdt_is_contig(t, count, buf, &addr)) memcpy(addr, m->buf, n);
    else if (n) mdt_unpack_range(t, buf, 0, (MPI_Count)n, m->buf);
    st->MPI_SOURCE = mcomm_rank_of(m->comm, ps.source);
    st->MPI_TAG = ps.tag;
    st->MPI_ERROR = ps.bytes > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    mdt_status_set_bytes(st, (MPI_Count)n);
    mdt_status_set_cancelled(st, false);
    *cp = m->comm;
    mh_free(&msg_table, *message);
    free(m->buf);
    free(m);
    *message = MPI_MESSAGE_NULL;
    return st->MPI_ERROR;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
              MPI_Status *status)
{
    MPI_CHECK_STATE("MPI_Mrecv");
    MPI_Status s;
    mcomm_t *c;
    int err = mrecv(buf, count, datatype, message, &s, &c, "MPI_Mrecv");
    if (c && status != MPI_STATUS_IGNORE) *status = s;
    return err && c ? mpi_err(c, err, "MPI_Mrecv", NULL) : err;
}

/* The message is here already, so the receive is done at once; the
 * request carries its status and error to the wait. */
int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Request *request)
{
    MPI_CHECK_STATE("MPI_Imrecv");
    if (!request) return mpi_err(NULL, MPI_ERR_REQUEST, "MPI_Imrecv", "request is NULL");
    MPI_Status s;
    mcomm_t *c;
    bool no_proc = message && *message == MPI_MESSAGE_NO_PROC;
    int err = mrecv(buf, count, datatype, message, &s, &c, "MPI_Imrecv");
    if (!c && (!no_proc || err != MPI_SUCCESS)) return err; /* bad arguments: s is not set */
    mreq_t *r = mreq_create(request);
    if (!r) return mpi_err(c, MPI_ERR_NO_MEM, "MPI_Imrecv", NULL);
    *r = (mreq_t){.recv = true, .comm = c ? c : mcomm_get(MPI_COMM_SELF), .st = s, .err = err};
    mcomm_retain(r->comm);
    return MPI_SUCCESS;
}
