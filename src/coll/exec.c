/* The host executor: a vertex starts the moment its last dependency has
 * completed (an eager cascade, not rounds).  Copies, reductions and nops
 * run at once; sends and receives become p2p operations, and p2p tells us
 * when they complete (p2p_watch): the completion goes on a list, and
 * coll_progress takes it off, collects the p2p request and starts the
 * successors that were waiting for it.  (The watch cannot start them
 * itself: it runs inside p2p's event handling.) */
#include "coll/coll_int.h"

#include "p2p/p2p.h"
#include "util/log.h"
#include "util/trace.h"

#include <stdlib.h>
#include <string.h>

coll_state_t coll_state;
#define C coll_state

sl_status_t coll_run_new(coll_sched_t *s, unsigned ctx, coll_run_t **out)
{
    coll_run_t *r = calloc(1, sizeof *r);
    uint32_t n = s->nv ? s->nv : 1;
    if (r) {
        r->rem = malloc(n * sizeof *r->rem);
        r->ready = malloc(n * sizeof *r->ready);
        r->req = calloc(n, sizeof *r->req);
        r->pend = calloc(n, sizeof *r->pend);
        r->base[COLL_TMP] = s->tmp_bytes ? aligned_alloc(64, s->tmp_bytes) : NULL;
    }
    if (!r || !r->rem || !r->ready || !r->req || !r->pend ||
        (s->tmp_bytes && !r->base[COLL_TMP])) {
        if (r) {
            r->s = NULL;
            coll_run_free(r);
        }
        return SL_ERR_NOMEM;
    }
    coll_sched_retain(s);
    r->s = s;
    r->ctx = ctx;
    r->done = true; /* not started */
    for (uint32_t i = 0; i < s->nv; i++) r->pend[i] = (coll_pend_t){.run = r, .v = i};
    *out = r;
    return SL_OK;
}

void coll_run_free(coll_run_t *r)
{
    if (!r) return;
    coll_off_release(r);
    free(r->rem);
    free(r->ready);
    free(r->req);
    free(r->pend);
    free(r->base[COLL_TMP]);
    coll_sched_release(r->s);
    free(r);
}

void coll_run_bind(coll_run_t *r, const void *sbuf, void *rbuf)
{
    r->base[COLL_SBUF] = (char *)(uintptr_t)sbuf;
    r->base[COLL_RBUF] = rbuf;
}

void coll_run_on_done(coll_run_t *r, coll_done_fn fn, void *arg)
{
    r->on_done = fn;
    r->on_done_arg = arg;
}

bool coll_run_done(const coll_run_t *r)
{
    return r->done;
}

sl_status_t coll_run_error(const coll_run_t *r)
{
    return r->err;
}

int coll_run_op_error(const coll_run_t *r)
{
    return r->op_err;
}

/* (integer arithmetic: hand-built schedules name absolute addresses as
 * offsets from a NULL base) */
static inline void *addr(const coll_run_t *r, coll_ref_t ref)
{
    return (void *)((uintptr_t)r->base[COLL_REF_BASE(ref)] + COLL_REF_OFF(ref));
}

/* ---- the cascade ---------------------------------------------------------------------------- */

void coll_run_finish(coll_run_t *r)
{
    r->done = true;
    C.ticks++; /* wakes a waiter that another thread's progress finished */
    C.active--;
    if (r->async) C.async_active--;
    if (r->on_done) r->on_done(r, r->on_done_arg);
}

/* a vertex's trace span: the run and the vertex */
#define VSPAN(r, v) ((uint64_t)(uintptr_t)(r) ^ (uint64_t)(v) << 48)
static const char *const vname[] = {"send", "recv", "reduce", "copy", "nop"};

static inline bool is_xfer(const coll_vertex_t *x)
{
    return x->kind == CV_SEND || x->kind == CV_RECV;
}

/* (each vertex is ready once per run, so the two stacks never meet) */
static void make_ready(coll_run_t *r, uint32_t v)
{
    if (is_xfer(&r->s->v[v])) r->ready[r->nready_xfer++] = v;
    else r->ready[r->s->nv - ++r->nready_local] = v;
}

static void complete(coll_run_t *r, uint32_t v)
{
    const coll_sched_t *s = r->s;
    const coll_vertex_t *x = &s->v[v];
    SL_TRACE('e', "coll", vname[x->kind], VSPAN(r, v), NULL);
    for (uint32_t j = 0; j < x->nsucc; j++) {
        uint32_t w = s->succ[x->succ0 + j];
        if (--r->rem[w] == 0) make_ready(r, w);
    }
    if (--r->left == 0) coll_run_finish(r);
}

static void on_p2p_done(void *arg)
{
    coll_pend_t *p = arg;
    p->next = C.done_list;
    C.done_list = p;
    C.ticks++;
}

static void fail(coll_run_t *r, sl_status_t st)
{
    if (r->err == SL_OK) r->err = st;
}

/* A send or receive becomes a p2p operation.  One that cannot start
 * completes at once with the error (the rest of the schedule still runs,
 * so that the peers are not left waiting for this rank's other messages). */
static void start_xfer(coll_run_t *r, uint32_t v)
{
    const coll_vertex_t *x = &r->s->v[v];
    p2p_req_t *q;
    int tag = (int)(r->tagbase | x->tag);
    sl_status_t st = x->kind == CV_SEND
                         ? p2p_isend(addr(r, x->a), x->len, x->peer, tag, r->ctx, &q)
                         : p2p_irecv(addr(r, x->a), x->len, x->peer, tag, r->ctx, &q);
    if (st != SL_OK) {
        fail(r, st);
        complete(r, v);
        return;
    }
    r->req[v] = q;
    r->xfers++;
    if (x->kind == CV_RECV) r->hint = q;
    if (!p2p_watch(q, on_p2p_done, &r->pend[v])) on_p2p_done(&r->pend[v]);
}

static void start(coll_run_t *r, uint32_t v)
{
    const coll_vertex_t *x = &r->s->v[v];
    SL_TRACE('b', "coll", vname[x->kind], VSPAN(r, v),
             "\"vertex\":%u,\"peer\":%d,\"len\":%zu,\"exec\":\"host\",\"coll\":\"%s\"", v,
             x->peer, x->len, coll_kind_name((coll_kind_t)r->s->kind));
    switch (x->kind) {
    case CV_SEND:
    case CV_RECV: start_xfer(r, v); return;
    case CV_COPY:
        if (x->len) memmove(addr(r, x->b), addr(r, x->a), x->len);
        break;
    case CV_REDUCE:
        if (x->len) {
            const coll_op_t *op = coll_vop(r->s, x);
            int e = op->apply(op, addr(r, x->a), addr(r, x->b), x->len);
            if (e && !r->op_err) r->op_err = e;
        }
        break;
    default: break;
    }
    complete(r, v);
}

/* Sends and receives start before the copies and reductions that are ready
 * with them: a receive posted first announces itself to its sender, and a
 * send's data can move while this rank copies (a 2-rank 256 KiB alltoall
 * copied its own block before it posted anything). */
static void run_ready(coll_run_t *r)
{
    for (;;) {
        if (r->nready_xfer) start(r, r->ready[--r->nready_xfer]);
        else if (r->nready_local) start(r, r->ready[r->s->nv - r->nready_local--]);
        else return;
    }
}

/* Collect one completed p2p operation: its status, then its successors. */
static void collect(coll_pend_t *p)
{
    coll_run_t *r = p->run;
    const coll_vertex_t *x = &r->s->v[p->v];
    p2p_req_t *q = r->req[p->v];
    p2p_status_t st;
    r->req[p->v] = NULL;
    if (r->hint == q) r->hint = NULL;
    if (!p2p_test(q, &st)) { /* cannot happen: it reported completion */
        fail(r, SL_ERR_PROTO);
    } else if (st.error != SL_OK) {
        fail(r, st.error);
    } else if (x->kind == CV_RECV && st.sent != x->len) {
        fail(r, coll_len_status(st.sent, x->len));
    }
    complete(r, p->v);
    run_ready(r);
}

int coll_progress(void)
{
    int n = 0;
    if (C.active == 0) return 0;
    p2p_progress();
    if (C.off_done) n += coll_off_collect();
    while (C.done_list) {
        coll_pend_t *list = C.done_list;
        C.done_list = NULL;
        /* oldest first: the list is pushed at its head */
        coll_pend_t *rev = NULL;
        while (list) {
            coll_pend_t *nx = list->next;
            list->next = rev;
            rev = list;
            list = nx;
        }
        for (; rev; rev = rev->next, n++) collect(rev);
    }
    return n;
}

sl_status_t coll_run_start(coll_run_t *r, unsigned seq, bool async, bool nb)
{
    coll_sched_t *s = r->s;
    if (!r->done) return SL_ERR_BUSY;
    if (s->nv > 0 && coll_off_wanted(s, nb, async)) return coll_off_start(r, seq);
    r->tagbase = (seq & COLL_SEQ_MASK) << COLL_TAG_BITS;
    r->err = SL_OK;
    r->op_err = 0;
    r->nready_xfer = r->nready_local = 0;
    r->hint = NULL;
    r->left = s->nv;
    r->xfers = 0;
    r->async = async;
    r->done = false;
    C.active++;
    if (async) C.async_active++;
    if (s->nv == 0) {
        coll_run_finish(r);
        return SL_OK;
    }
    for (uint32_t i = 0; i < s->nv; i++)
        if ((r->rem[i] = s->v[i].ndeps) == 0) make_ready(r, i);
    run_ready(r);
    /* the thread is needed by a run with messages not started yet (they
     * wait for completions), or whose messages need the receiver's host to
     * land (beyond the short-message rings, which senders fill themselves:
     * 8 KiB); the rest (local steps, taking short messages out of the
     * rings) is finished by whoever next looks at the run, which costs the
     * application no wake-up of a thread on its CPU */
    if (async && !r->done && (r->xfers < s->nxfer || s->max_msg > COLL_ASYNC_MSG))
        coll_async_kick();
    return SL_OK;
}

bool coll_run_test(coll_run_t *r)
{
    if (!r->done) coll_progress();
    return r->done;
}

/* The waiting thread drives every run itself meanwhile (and the progress
 * thread steps aside: two threads taking turns in the engine cost a wake-up
 * each time, about 10 us here); the progress thread takes over again when
 * the wait ends. */
/* Has a peer of r's sends and receives ended?  Its offloaded receives
 * would wait for ever (p2p fails the host executor's own). */
static bool run_lost_peer(const coll_run_t *r)
{
    if (p2p_gone_count() == 0) return false;
    for (uint32_t v = 0; v < r->s->nv; v++) {
        const coll_vertex_t *x = &r->s->v[v];
        if ((x->kind == CV_SEND || x->kind == CV_RECV) && p2p_peer_gone(x->peer)) return true;
    }
    return false;
}

/* p2p found more ended peers: wake the waiters, which check their runs. */
static void on_peer_gone(void)
{
    C.ticks++;
}

/* An offloaded run with an ended peer completes as failed: its objects go
 * the way of a run the engine completed (coll_off_collect). */
static void fail_lost(coll_run_t *r)
{
    sl_log_error("coll: a %s fails: a rank it exchanges with has ended",
                 coll_kind_name((coll_kind_t)r->s->kind));
    fail(r, SL_ERR_PEER_DEAD);
    if (r->off) {
        r->off_next = C.off_done;
        C.off_done = r;
        coll_off_collect();
    }
}

sl_status_t coll_run_wait(coll_run_t *r)
{
    sl_status_t st = SL_OK;
    static bool hooked;
    if (!hooked) {
        p2p_set_gone_hook(on_peer_gone);
        hooked = true;
    }
    if (C.app_waiting++ == 0 && C.async_active > 0) {
        /* the progress thread may be asleep in the engine, where only an
         * event would wake it: wake it now, so that it steps aside at once
         * (on oversubscribed cores this thread waited for it a scheduler
         * slice per round: 300-670 us per 4-rank Iallreduce) */
        C.ticks++;
        p2p_wake_sleeper();
    }
    while (!r->done) {
        unsigned seen = C.ticks;
        if (coll_progress() > 0 || r->done) continue;
        if (r->off && run_lost_peer(r)) {
            fail_lost(r);
            continue;
        }
        st = p2p_wait_change(r->hint, &C.ticks, seen);
        if (st != SL_OK) {
            /* the engine failed: nothing more will complete */
            sl_log_error("coll: waiting for a %s failed: %s", coll_kind_name((coll_kind_t)r->s->kind),
                         sl_status_string(st));
            fail(r, st);
            break;
        }
    }
    if (--C.app_waiting == 0 && C.async_active > 0) coll_async_kick();
    return st != SL_OK ? st : r->err;
}
