/* Events, requests, nonces and completion.  One EQ takes every event of the
 * layer but the RECEIVER_READY hints (their own EQ, drained by
 * p2p_rr_drain); user_ptr is the request, or the address of the sync
 * notice entry, which says what a PUT was. */
#include "p2p/p2p_int.h"
#include "util/log.h"
#include "util/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sl_status_t p2p_ptl_status(int rc)
{
    return rc == PTL_OK ? SL_OK : rc == PTL_NO_SPACE ? SL_ERR_NOMEM : SL_ERR_PROTO;
}

ptl_match_bits_t p2p_mbits(unsigned kind, unsigned ctx, int tag)
{
    return (ptl_match_bits_t)kind << MB_KIND_SHIFT |
           (ptl_match_bits_t)(ctx & P2P_CTX_MAX) << MB_CTX_SHIFT |
           ((ptl_match_bits_t)(uint32_t)tag & MB_TAG_MASK);
}

unsigned p2p_kind(ptl_match_bits_t mb)
{
    return (unsigned)((mb & MB_KIND_MASK) >> MB_KIND_SHIFT);
}

/* A zero-byte put to a peer's sync PT: a match notice, FIN or CTS. */
void p2p_notify(ptl_process_t to, ptl_hdr_data_t what)
{
    SL_TRACE('i', "p2p", (what & NT_FIN) ? "FIN" : (what & NT_CTS) ? "CTS" : "match notice", 0,
             "\"peer\":%u", to.rank);
    int rc = PtlPut(P.md, 0, 0, PTL_NO_ACK_REQ, to, P2P_SYNC_PT, 0, 0, NULL, what);
    if (rc != PTL_OK) sl_log_error("p2p: notice to rank %u failed (%d)", to.rank, rc);
}

/* ---- requests and nonces ---------------------------------------------------------------- */

p2p_req_t *p2p_req_new(int kind, void *buf, size_t len)
{
    p2p_req_t *r = P.free_reqs;
    if (r) P.free_reqs = r->next_free;
    else if (!(r = malloc(sizeof *r))) return NULL;
    *r = (p2p_req_t){.kind = kind, .buf = buf, .len = len, .me = PTL_INVALID_HANDLE,
                     .rv_me = PTL_INVALID_HANDLE};
    return r;
}

void p2p_req_put(p2p_req_t *r)
{
    if (r->mid) P.mid_recvs--;
    r->next_free = P.free_reqs;
    P.free_reqs = r;
}

void p2p_req_event(p2p_req_t *r)
{
    if (!r || --r->waits > 0) return;
    if (r->kind == RQ_HYBRID) { /* the library copy has been read: release it */
        p2p_copy_put(r->buf, r->len);
        P.hybrid_pending--;
        p2p_req_put(r);
        return;
    }
    p2p_req_done(r);
}

/* A free nonce naming r in nonce-addressed traffic, or -1 if all 2^24 are
 * taken.  The table doubles when half full, so the rotating scan finds a
 * free slot in a few probes; a nonce is reused only after the peer's last
 * reference to it (FIN, CTS, or the data) has come. */
int p2p_nonce_get(p2p_req_t *r)
{
    if (2 * (P.used_nonces + 1) > P.n_nonces && P.n_nonces <= RV_NONCE_MASK) {
        unsigned cap = P.n_nonces ? 2 * P.n_nonces : 1024;
        p2p_req_t **t = realloc(P.nonces, cap * sizeof *t);
        if (t) {
            memset(t + P.n_nonces, 0, (cap - P.n_nonces) * sizeof *t);
            P.next_nonce = P.n_nonces; /* the new half is all free */
            P.nonces = t;
            P.n_nonces = cap;
        }
    }
    for (unsigned i = 0; i < P.n_nonces; i++) {
        unsigned n = (P.next_nonce + i) % P.n_nonces;
        if (!P.nonces[n]) {
            P.next_nonce = n + 1;
            P.nonces[n] = r;
            P.used_nonces++;
            r->rv_nonce = n;
            return (int)n;
        }
    }
    return -1;
}

p2p_req_t *p2p_nonce_take(unsigned nonce)
{
    p2p_req_t *r = nonce < P.n_nonces ? P.nonces[nonce] : NULL;
    if (r) {
        P.nonces[nonce] = NULL;
        P.used_nonces--;
    } else {
        sl_log_error("p2p: notice for unknown nonce %u", nonce);
    }
    return r;
}

/* Give r's nonce back (a send that could not start, a finished exchange). */
void p2p_nonce_drop(p2p_req_t *r)
{
    if (r->rv_nonce < P.n_nonces && P.nonces[r->rv_nonce] == r) {
        P.nonces[r->rv_nonce] = NULL;
        P.used_nonces--;
    }
}

/* ---- events -------------------------------------------------------------------------------- */

static void sync_notice(const ptl_event_t *ev)
{
    if (ev->hdr_data & NT_FIN) p2p_send_fin((unsigned)(ev->hdr_data & RV_NONCE_MASK));
    else if (ev->hdr_data & NT_CTS) p2p_send_cts(ev);
    else if (ev->hdr_data) p2p_req_event((p2p_req_t *)(uintptr_t)ev->hdr_data); /* it matched */
    /* 0: the empty notice that ends a triggered pull of a HYBRID copy */
}

static void put_event(const ptl_event_t *ev)
{
    if (ev->user_ptr == &P.sync_me) sync_notice(ev);
    else if (ev->pt_index == P2P_RECV_PT) p2p_recv_data(ev->user_ptr, ev);
    else p2p_recv_matched(ev->user_ptr, ev);
}

/* Flow control disabled PT 8 and dropped a message: its event queue was
 * full (SLUICE_P2P_EQ_SIZE events unread) or its unexpected headers at the
 * engine's limit.  (A message that finds no bounce buffer waits for one,
 * PTL_PT_SLUICE_WAIT.)  Or the queue overflowed with events no flow control
 * stops: receives appended at once against as many unexpected messages
 * (the short path's deferred receives, short.c), whose completions are
 * then lost.  Nothing can bring them back: say why and stop. */
static void p2p_dropped(void)
{
    p2p_die(75,
            "p2p: rank %d dropped incoming message(s): its event queue (%zu events, "
            "SLUICE_P2P_EQ_SIZE) or its unexpected-message headers were full",
            P.rank, P.eq_size);
}

void p2p_set_nic_hook(void (*fn)(const ptl_event_t *ev))
{
    P.nic_hook = fn;
}

static void p2p_dispatch(const ptl_event_t *ev)
{
    if (ev->pt_index == P2P_COLL_PT && ev->type == PTL_EVENT_PUT) {
        if (P.nic_hook) P.nic_hook(ev);
        return;
    }
    switch (ev->type) {
    case PTL_EVENT_SEND: /* NULL: a notice; a receive: its triggered FIN */
        if (ev->user_ptr && ((p2p_req_t *)ev->user_ptr)->kind == RQ_RECV)
            p2p_pull_fin_sent(ev->user_ptr);
        else
            p2p_req_event(ev->user_ptr);
        break;
    case PTL_EVENT_ACK: p2p_send_ack(ev->user_ptr, ev); break;
    case PTL_EVENT_PUT: put_event(ev); break;
    case PTL_EVENT_PUT_OVERFLOW: p2p_recv_matched(ev->user_ptr, ev); break;
    case PTL_EVENT_REPLY: p2p_pull_reply(ev->user_ptr, ev); break;
    case PTL_EVENT_SEARCH: p2p_probe_done(ev->user_ptr, ev); break;
    case PTL_EVENT_AUTO_UNLINK: /* a bounce buffer is full: link another at once */
        if (p2p_bounce_add() != SL_OK) sl_log_error("p2p: no memory for a bounce buffer");
        break;
    case PTL_EVENT_AUTO_FREE: { /* no header points into it any more: a spare */
        bounce_t *b = ev->user_ptr;
        b->next = P.spare;
        P.spare = b;
        break;
    }
    case PTL_EVENT_PT_DISABLED: p2p_dropped(); break;
    default: break;
    }
}

/* Acks count only the traditional rendezvous's data puts into exposed
 * receive buffers: a failure there is a lost message. */
void p2p_check_drops(void)
{
    ptl_ct_event_t acks;
    if (PtlCTGet(P.acks, &acks) == PTL_OK && acks.failure)
        p2p_die(75, "p2p: %llu rendezvous transfer(s) from rank %d failed at the receiver",
                (unsigned long long)acks.failure, P.rank);
}

/* RECEIVER_READY hints matter only to sends over the eager limit, which
 * drain them first (send.c); otherwise they are read every 64 passes, so
 * that the common path costs no second EQ (an overflow only loses hints). */
void p2p_rr_drain(void)
{
    ptl_event_t ev;
    int rc;
    while ((rc = PtlEQGet(P.rr_eq, &ev)) == PTL_OK || rc == PTL_EQ_DROPPED) {
        if (rc == PTL_EQ_DROPPED) P.stats.rr_lost++; /* some hints before this one */
        p2p_seq_rr_arrived(&ev);
    }
}

/* Housekeeping: hints, and failed transfers (fatal anyway). */
static void p2p_housekeeping(void)
{
    p2p_rr_drain();
    p2p_check_drops();
    p2p_hybrid_reap();
}

/* Receives from peers that have ended fail.  Checked when a wait has been
 * idle (no event for its timeout, a second), after a full pass: what they
 * sent before they ended has been taken by then.  Once a peer has ended,
 * every idle wait looks again: receives from it may be posted later. */
static void p2p_check_gone(void)
{
    unsigned n;
    int g;
    if (PtlSluicePeerGone(P.ni, PTL_RANK_ANY, &n, &g) != PTL_OK || n == 0) return;
    bool more = n != P.gone_seen; /* (and receives posted since the last look) */
    P.gone_seen = n;
    p2p_progress();
    p2p_short_fail_gone();
    if (more && P.gone_hook) P.gone_hook();
}

unsigned p2p_gone_count(void)
{
    return P.gone_seen;
}

bool p2p_peer_gone(int rank)
{
    unsigned n;
    int gone = 0;
    return PtlSluicePeerGone(P.ni, (ptl_rank_t)rank, &n, &gone) == PTL_OK && gone;
}

void p2p_set_gone_hook(void (*fn)(void))
{
    P.gone_hook = fn;
}

void p2p_set_any_gone_fn(bool (*fn)(unsigned ctx))
{
    P.any_gone = fn;
}

/* ... every 64 passes. */
static void p2p_tick(void)
{
    if ((++P.progress_calls & 63) == 0) p2p_housekeeping();
}

/* Handle pending events until none is left.  With flag or word given
 * (a wait's), once what the caller waits for has happened the rest of
 * the pass serves no bulk copy (PtlSluiceDeferBulk): every engine pass
 * may serve a peer's copy, and the caller's next step (a send the peer
 * waits for) should not wait for all of them; the events and notices
 * already here are still handled. */
static int progress_until(const bool *flag, const volatile unsigned *word, unsigned seen)
{
    int n = 0;
    ptl_event_t ev;
    int rc;
    if (p2p_mt_engine_busy()) return 0; /* the thread asleep there handles everything */
    bool light = false;
    for (;;) {
        if (!light && ((flag && *flag) || (word && *word != seen))) {
            PtlSluiceDeferBulk(1);
            light = true;
        }
        rc = PtlEQGet(P.eq, &ev);
        if (rc != PTL_OK && rc != PTL_EQ_DROPPED) break;
        if (rc == PTL_EQ_DROPPED) p2p_dropped(); /* completions lost: messages lost */
        p2p_dispatch(&ev);
        n++;
    }
    if (light) PtlSluiceDeferBulk(0);
    /* after the events: a receive the engine matched is known as such
     * before a ring message tries to claim it (short.c) */
    n += p2p_short_poll();
    p2p_tick();
    return n;
}

int p2p_progress(void)
{
    return progress_until(NULL, NULL, 0);
}

void p2p_posting_begin(void)
{
    PtlSluiceHostActive();
    PtlSluiceDeferBulk(1);
}

void p2p_posting_end(void)
{
    PtlSluiceDeferBulk(0);
}

int p2p_progress_posting(void)
{
    p2p_posting_begin();
    int n = p2p_progress();
    p2p_posting_end();
    return n;
}

/* Sleep in the engine until an event comes (at most timeout_ms), then
 * handle it.  With threads, the lock is given up meanwhile (mt.c). */
static sl_status_t wait_engine(int timeout_ms)
{
    ptl_event_t ev;
    unsigned int which;
    /* a ring message waiting: take it in a full pass (events first, see p2p_progress) */
    if (p2p_short_pending() && p2p_progress()) return SL_OK;
    /* rings wake nobody: announce the sleep, so that their senders do */
    if (!p2p_short_sleep_begin()) return SL_OK;
    unsigned held = p2p_mt_sleep_begin();
    int rc = PtlEQPoll(&P.eq, 1, timeout_ms, &ev, &which);
    p2p_mt_sleep_end(held);
    p2p_short_sleep_end();
    if (rc == PTL_OK || rc == PTL_EQ_DROPPED) {
        if (rc == PTL_EQ_DROPPED) p2p_dropped(); /* completions lost: messages lost */
        p2p_dispatch(&ev);
        p2p_tick();
        return SL_OK;
    }
    if (rc != PTL_EQ_EMPTY) return SL_ERR_PROTO;
    p2p_housekeeping(); /* idle: a good moment for it */
    p2p_check_gone();
    return SL_OK;
}

/* Handle the next event, waiting for it up to timeout_ms (the engine
 * sleeps; no busy loop).  One engine call per event: the wait loops call
 * this until their request is done.  With threads, while another thread
 * sleeps in the engine this one waits for its turn instead: the other
 * handles the events and wakes it. */
sl_status_t p2p_wait_progress(int timeout_ms)
{
    if (p2p_mt_engine_busy()) {
        p2p_mt_wait_turn(timeout_ms);
        return SL_OK;
    }
    return wait_engine(timeout_ms);
}

/* Wait for the SEARCH event of a probe.  PtlMESearch has queued it, after
 * the events before it, which are handled on the way; with threads, a
 * thread asleep in the engine may take it and handle it for us. */
bool p2p_wait_search(p2p_req_t *probe)
{
    while (!probe->done)
        if (p2p_wait_progress(1000) != SL_OK) return false;
    return true;
}

bool p2p_test(p2p_req_t *r, p2p_status_t *st)
{
    if (!r->done) p2p_progress();
    if (!r->done) return false;
    if (st) *st = r->st;
    p2p_req_put(r);
    return true;
}

bool p2p_watch(p2p_req_t *r, p2p_done_fn fn, void *arg)
{
    if (r->done) return false;
    r->on_done = fn;
    r->on_done_arg = arg;
    return true;
}

/* Wait until *flag (flag non-NULL), or until *word != seen; r (may be
 * NULL) is the receive whose arrival by a ring is worth polling for.  Its
 * passes tell the engine that this thread is driving progress
 * (PtlSluiceHostActive), so that the progress thread leaves the work to
 * it between two engine waits too, while it handles events and serves
 * copies. */
static inline sl_status_t wait_until(p2p_req_t *r, const bool *flag, const volatile unsigned *word,
                                     unsigned seen)
{
    sl_status_t st = SL_OK;
    sl_backoff_t poll;
    p2p_short_spin_init(&poll);
    while (flag ? !*flag : *word == seen) {
        /* while a ring message could complete r, poll the rings for a while
         * (an engine wait would not see a message arrive there).  A message
         * there is taken without entering the engine (short.c stops at one
         * that needs the events handled first: then a full pass); every
         * 16th poll is a full pass, events then rings, so a conversation on
         * the rings still handles the events of the others.  Only a receive
         * that has not matched can be completed so: a send, or a receive
         * whose data the engine is moving, waits in the engine at once,
         * where it serves the peer's gets and helps with its copies
         * (a ring spin did neither: 1 MiB windowed bandwidth was 0.8-0.9
         * of the forced SEND_RNDV's, which has no rings) */
        if (r && r->kind == RQ_RECV && !r->matched && !r->done && p2p_short_from(r->src) &&
            !p2p_mt_engine_busy()) {
            int n = 0;
            if ((++P.spin_polls & 15) == 0) {
                PtlSluiceHostActive();
                n = progress_until(flag, word, seen);
            } else if (p2p_short_pending() && (n = p2p_short_poll_quick()) < 0) {
                n = progress_until(flag, word, seen);
            }
            if (n > 0) {
                p2p_short_spin_init(&poll);
                continue;
            }
            if (sl_backoff(&poll)) {
                /* with threads: not the whole spin under the lock, but a
                 * yield (a system call) only with each full pass: one per
                 * poll put 16 of them between passes, and a 16 KiB
                 * message, which comes by the engine, waited 3x longer */
                if ((P.spin_polls & 15) == 0) p2p_mt_yield();
                continue;
            }
        }
        PtlSluiceHostActive();
        st = p2p_wait_progress(1000);
        if (st != SL_OK) break;
        p2p_short_spin_init(&poll); /* a new poll after each engine wait */
    }
    return st;
}

void p2p_wake_sleeper(void)
{
    if (p2p_mt_engine_busy()) p2p_notify((ptl_process_t){.rank = (ptl_rank_t)P.rank}, 0);
}

void p2p_thread_background(void)
{
    PtlSluiceWaitSpin(0);
}

sl_status_t p2p_wait_change(p2p_req_t *hint, const volatile unsigned *word, unsigned seen)
{
    return wait_until(hint, NULL, word, seen);
}

sl_status_t p2p_wait(p2p_req_t *r, p2p_status_t *st)
{
    /* done already (most receives of a window): no wait set up */
    sl_status_t s = r->done ? SL_OK : wait_until(r, &r->done, NULL, 0);
    if (s != SL_OK) return s;
    if (st) *st = r->st;
    p2p_req_put(r);
    return SL_OK;
}
