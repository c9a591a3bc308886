/* Target-side processing of an incoming request, following §9.1: PT lookup
 * and state, priority then overflow list walk, permission and operation
 * checks, unexpected-header slot, offset/length, local offset advance,
 * auto-unlink, data movement, events and counts, and the response. */
#include "ptl/ptl_int.h"
#include "util/log.h"
#include "util/param.h"

#include <stdlib.h>
#include <string.h>

enum { TGT_FETCH_MAX = 512 }; /* old values a fetching atomic returns inline */

typedef struct tgt {
    int src;
    const ptl_req_hdr_t *h;
    const void *data;
    size_t len;
    ptl_ni_t *ni;
    ptl_pt_t *pt;
    ptl_process_t initiator;
    ptl_entry_t *e;
    ptl_size_t offset, mlength;
    ptl_ni_fail_t fail;
    bool wait;              /* PTL_PT_SLUICE_WAIT: no entry yet, try again later */
    void *reply;            /* inline reply data (get, fetch, swap) */
    ptl_size_t reply_len;
    uint8_t *fetch;         /* TGT_FETCH_MAX bytes for a fetching atomic's old values */
} tgt_t;

static ptl_event_kind_t comm_kind(int kind)
{
    switch (kind) {
    case RK_GET: return PTL_EVENT_GET;
    case RK_ATOMIC: return PTL_EVENT_ATOMIC;
    case RK_FETCH:
    case RK_SWAP: return PTL_EVENT_FETCH_ATOMIC;
    default: return PTL_EVENT_PUT;
    }
}

static void respond(tgt_t *t)
{
    const ptl_req_hdr_t *h = t->h;
    bool reply = h->kind == RK_GET || h->kind == RK_FETCH || h->kind == RK_SWAP;
    bool ack = !reply && h->ack_req != PTL_NO_ACK_REQ &&
               !(t->e && (t->e->me.options & PTL_ME_ACK_DISABLE) && t->fail == PTL_NI_OK);
    bool bulk = (h->flags & RF_BULK) != 0;
    if (!reply && !ack && !bulk && h->ack_req == PTL_NO_ACK_REQ) return; /* nobody waits */
    ptl_resp_hdr_t r = {.ni_fail = t->fail, .list = t->e ? t->e->list : PTL_PRIORITY_LIST,
                        .xfer_id = h->xfer_id, .mlength = t->mlength,
                        .remote_offset = t->offset};
    r.flags = (reply ? PF_RESP_REPLY : 0) | (ack ? PF_RESP_ACK : 0);
    struct iovec iov[2] = {{&r, sizeof r}, {t->reply, 0}};
    int n = 1;
    if (reply && t->reply && t->reply_len) {
        r.flags |= PF_RESP_DATA;
        iov[1].iov_len = t->reply_len;
        n = 2;
    }
    sl_status_t st = wire_send(ptl_g.wire, t->src, PTL_PKT_RESP, iov, n);
    if (st != SL_OK && st != SL_ERR_PEER_DEAD) /* a gone initiator waits for nothing */
        sl_log_error("ptl: cannot answer rank %d: %s", t->src, sl_status_string(st));
}

static void fail(tgt_t *t, ptl_ni_fail_t why, ptl_sr_index_t reg)
{
    t->fail = why;
    t->mlength = 0;
    if (t->ni) t->ni->sr[reg]++;
}

/* Flow control (§10): disable the PT and tell its EQ once. */
static void flowctl_disable(tgt_t *t, const ptl_entry_t *e)
{
    ptl_pt_t *pt = t->pt;
    if (pt->enabled) {
        pt->enabled = false;
        pt->disabled_by_fc = true;
        bool quiet = e && (e->me.options & PTL_ME_EVENT_FLOWCTRL_DISABLE);
        if (pt->eq && !quiet) {
            ptl_event_t ev = {.type = PTL_EVENT_PT_DISABLED, .pt_index = t->h->pt_index,
                              .ni_fail_type = PTL_NI_PT_DISABLED};
            ptl_eq_post(pt->eq, &ev);
        }
    }
    fail(t, PTL_NI_PT_DISABLED, PTL_SR_DROP_COUNT);
}

static bool op_allowed(const ptl_entry_t *e, int kind)
{
    unsigned int o = e->me.options;
    switch (kind) {
    case RK_GET: return (o & PTL_ME_OP_GET) != 0;
    case RK_FETCH:
    case RK_SWAP: return (o & PTL_ME_OP_GET) && (o & PTL_ME_OP_PUT);
    default: return (o & PTL_ME_OP_PUT) != 0;
    }
}

static ptl_entry_t *match_list(tgt_t *t, sl_list_t *list)
{
    sl_list_t *pos;
    for (pos = list->next; pos != list; pos = pos->next) {
        ptl_entry_t *e = sl_list_entry(pos, ptl_entry_t, link);
        if (ptl_entry_matches(e, t->ni, t->initiator, t->h->match_bits, t->h->length,
                              t->h->remote_offset))
            return e;
    }
    return NULL;
}

/* A message waits for an entry (PTL_PT_SLUICE_WAIT): locally managed
 * overflow entries that would take it but for their room left (more than
 * min_free, less than the message) are unlinked now, as if full. Else the
 * host, which links a fresh entry when one is unlinked, would never do so,
 * and the message (and all behind it) would wait forever: a forced-eager
 * message of several MiB against bounce buffers with 64 KiB min_free, found
 * by the soak test (tests/hardening/soak_test.c). Entries never used are
 * kept: a fresh one that is too small would not help. */
static void retire_too_full(tgt_t *t)
{
    sl_list_t *pos, *tmp;
    sl_list_for_each_safe(pos, tmp, &t->pt->over) {
        ptl_entry_t *e = sl_list_entry(pos, ptl_entry_t, link);
        if (!(e->me.options & PTL_ME_MANAGE_LOCAL) || e->local_offset == 0 ||
            !ptl_entry_matches(e, t->ni, t->initiator, t->h->match_bits, 0, t->h->remote_offset))
            continue;
        ptl_entry_auto_unlink(t->pt, e);
    }
}

/* Steps 1-7: find the entry or fail.  Returns false when the message fails. */
static bool tgt_select(tgt_t *t)
{
    const ptl_req_hdr_t *h = t->h;
    t->ni = h->ni_kind < PTL_NI_KINDS ? ptl_g.nis[h->ni_kind] : NULL;
    if (!t->ni) {
        t->fail = PTL_NI_DROPPED;
        return false;
    }
    t->initiator = ptl_ni_initiator_id(t->ni, t->src);
    t->pt = ptl_pt_get(t->ni, h->pt_index);
    if (!t->pt) {
        fail(t, PTL_NI_DROPPED, PTL_SR_DROP_COUNT);
        return false;
    }
    if (!t->pt->enabled) {
        fail(t, PTL_NI_PT_DISABLED, PTL_SR_DROP_COUNT);
        return false;
    }
    bool fc = (t->pt->options & PTL_PT_FLOWCTRL) != 0;
    if (fc && t->pt->eq && t->pt->eq->n >= t->pt->eq->limit) {
        flowctl_disable(t, NULL);
        return false;
    }
    ptl_entry_t *e = match_list(t, &t->pt->prio);
    if (!e) e = match_list(t, &t->pt->over);
    if (!e && (t->pt->options & PTL_PT_SLUICE_WAIT)) {
        retire_too_full(t);
        t->wait = true;
        return false;
    }
    if (!e) {
        if (fc) flowctl_disable(t, NULL);
        else fail(t, PTL_NI_DROPPED, PTL_SR_DROP_COUNT);
        return false;
    }
    t->e = e;
    if (e->me.uid != PTL_UID_ANY && e->me.uid != h->uid) {
        fail(t, PTL_NI_PERM_VIOLATION, PTL_SR_PERMISSION_VIOLATIONS);
        return false;
    }
    if (!op_allowed(e, h->kind)) {
        fail(t, PTL_NI_OP_VIOLATION, PTL_SR_OPERATION_VIOLATIONS);
        return false;
    }
    if (e->list == PTL_OVERFLOW_LIST && !(e->me.options & PTL_ME_UNEXPECTED_HDR_DISABLE) &&
        t->pt->n_unexpected >= t->ni->limits.max_unexpected_headers) {
        if (fc) flowctl_disable(t, e);
        else fail(t, PTL_NI_DROPPED, PTL_SR_DROP_COUNT);
        return false;
    }
    return true;
}

/* Copies whose peer died before the wire gave them back: the target goes
 * on (they count as failed), but the wire may still finish them, so the
 * memory holding each op (mem) lives until then or until the wire is gone
 * (ptl_target_free_lost).  Without memory for the record, mem is never
 * freed. */
typedef struct tgt_lost {
    struct tgt_lost *next;
    const wire_bulk_t *op;
    void *mem;
} tgt_lost_t;
static tgt_lost_t *lost;

static void tgt_keep_lost(const wire_bulk_t *op, void *mem)
{
    tgt_lost_t *l = malloc(sizeof *l);
    if (!l) return;
    *l = (tgt_lost_t){.next = lost, .op = op, .mem = mem};
    lost = l;
}

/* Free what the wire has given back (all of it: the wire is gone). */
static void tgt_free_lost(bool all)
{
    for (tgt_lost_t **pp = &lost, *l; (l = *pp);) {
        if (all || atomic_load_explicit(&l->op->done, memory_order_acquire)) {
            *pp = l->next;
            free(l->mem);
            free(l);
        } else {
            pp = &l->next;
        }
    }
}

void ptl_target_free_lost(void)
{
    tgt_free_lost(true);
}

/* One bulk copy between the entry and the initiator's buffer.  The engine
 * lock is released for the copy itself (cross-memory attach or heap memcpy:
 * tens of microseconds per MiB), so other threads keep using the library:
 * the entry is marked busy (PtlMEUnlink answers PTL_IN_USE, PtlNIFini waits)
 * and this thread still owns the wire's drain, so later requests cannot
 * overtake this one.  A copy that turns out to need staging is waited for
 * with the lock held again: its progress may run receive callbacks. */
static sl_status_t tgt_copy(tgt_t *t, bool pull, char *local, uint64_t raddr, size_t n)
{
    /* on the heap: a wait that ends because the peer died can leave the
     * copy with the wire, which would finish it in memory long reused */
    wire_bulk_t *op = malloc(sizeof *op);
    if (!op) return SL_ERR_NOMEM;
    t->e->busy++;
    ptl_g.bulk_busy++;
    PTL_UNLOCK();
    sl_status_t st = pull ? wire_get(ptl_g.wire, t->src, raddr, local, n, op)
                          : wire_put(ptl_g.wire, t->src, raddr, local, n, op);
    PTL_LOCK();
    bool waited = st == SL_INPROGRESS;
    if (waited) st = wire_bulk_wait(ptl_g.wire, op);
    ptl_g.bulk_busy--;
    t->e->busy--;
    if (waited && !atomic_load_explicit(&op->done, memory_order_acquire)) tgt_keep_lost(op, op);
    else free(op);
    return st;
}

/* Bulk put (pull) or get (push): between the entry and the initiator's
 * buffer, piece by piece for iovec entries. */
static bool tgt_bulk(tgt_t *t, bool pull, void *start, unsigned int options, ptl_size_t length)
{
    ptl_size_t done = 0;
    while (done < t->mlength) {
        ptl_size_t piece = t->mlength - done;
        char *local = ptl_region_addr(start, length, options, t->offset + done, 1);
        if (!local) return false;
        if (options & PTL_IOVEC) /* bounded by the current iovec element */
            while (piece > 1 && !ptl_region_addr(start, length, options, t->offset + done, piece))
                piece /= 2;
        if (tgt_copy(t, pull, local, t->h->addr + done, piece) != SL_OK) return false;
        done += piece;
    }
    return true;
}

/* Step 11: move the data. */
/* An entry over memory the program did not describe piece by piece (all
 * of memory, as OpenSHMEM binds it): offsets from the initiator are
 * addresses, so copy without trusting them (PTL_NI_SEGV, not a crash). */
static bool tgt_wide(const ptl_entry_t *e)
{
    return !(e->me.options & PTL_IOVEC) && (!e->me.start || e->me.length == PTL_SIZE_MAX);
}

static bool tgt_move_wide(tgt_t *t)
{
    char *at = ptl_at(t->e->me.start, t->offset);
    const ptl_req_hdr_t *h = t->h;
    if (h->kind == RK_PUT) return ptl_safe_copy(at, t->data, t->mlength, true);
    if (h->kind == RK_GET) {
        t->reply = malloc(t->mlength ? t->mlength : 1);
        t->reply_len = t->mlength;
        return t->reply && ptl_safe_copy(t->reply, at, t->mlength, false);
    }
    /* atomics: read, apply on a copy, write back (under the engine lock) */
    size_t esz = ptl_atom_size(h->atom_type);
    ptl_size_t n = esz ? t->mlength - t->mlength % esz : 0;
    uint8_t cur[512];
    t->mlength = n;
    if (n > sizeof cur || !ptl_safe_copy(cur, at, n, false)) return false;
    bool fetch = h->kind != RK_ATOMIC;
    ptl_atom_apply(h->atom_op, h->atom_type, cur, t->data, h->operand, n,
                   fetch ? t->fetch : NULL);
    if (fetch) {
        t->reply = t->fetch;
        t->reply_len = n;
    }
    return ptl_safe_copy(at, cur, n, true);
}

static void tgt_move(tgt_t *t)
{
    ptl_entry_t *e = t->e;
    const ptl_req_hdr_t *h = t->h;
    void *start = e->me.start;
    unsigned int opt = e->me.options;
    ptl_size_t length = e->me.length;
    bool ok = true;
    if (tgt_wide(e) && !(h->flags & RF_BULK)) {
        if (!tgt_move_wide(t)) fail(t, PTL_NI_SEGV, PTL_SR_DROP_COUNT);
        return;
    }
    switch (h->kind) {
    case RK_PUT:
        if (h->flags & RF_BULK) ok = tgt_bulk(t, true, start, opt, length);
        else if (t->mlength) ptl_region_write(start, length, opt, t->offset, t->data, t->mlength);
        break;
    case RK_GET:
        if (h->flags & RF_BULK) {
            ok = tgt_bulk(t, false, start, opt, length);
        } else if (t->mlength) {
            t->reply = malloc(t->mlength);
            if (!t->reply) ok = false;
            else ptl_region_read(start, length, opt, t->offset, t->reply, t->mlength);
            t->reply_len = t->mlength;
        }
        break;
    default: { /* atomics: elements must lie in one piece of the entry */
        void *dst = ptl_region_addr(start, length, opt, t->offset, t->mlength);
        size_t esz = ptl_atom_size(h->atom_type);
        ptl_size_t n = esz ? t->mlength - t->mlength % esz : 0;
        t->mlength = n;
        if (!dst && n) {
            ok = false;
            break;
        }
        bool fetch = h->kind != RK_ATOMIC;
        ptl_atom_apply(h->atom_op, h->atom_type, dst, t->data, h->operand, n,
                       fetch ? t->fetch : NULL);
        if (fetch) {
            t->reply = t->fetch;
            t->reply_len = n;
        }
        break;
    }
    }
    if (!ok) fail(t, PTL_NI_SEGV, PTL_SR_DROP_COUNT);
}

static void tgt_events(tgt_t *t, void *where)
{
    ptl_entry_t *e = t->e;
    unsigned int o = e->me.options;
    bool ok = t->fail == PTL_NI_OK;
    if (o & PTL_ME_EVENT_CT_COMM)
        ptl_count(ptl_ct_get(e->me.ct_handle), o, PTL_ME_EVENT_CT_BYTES, ok, t->mlength);
    if (!t->pt->eq || (o & PTL_ME_EVENT_COMM_DISABLE) || (ok && (o & PTL_ME_EVENT_SUCCESS_DISABLE)))
        return;
    const ptl_req_hdr_t *h = t->h;
    ptl_event_t ev = {.type = comm_kind(h->kind), .start = where, .user_ptr = e->user_ptr,
                      .hdr_data = h->hdr_data, .match_bits = h->match_bits,
                      .rlength = h->length, .mlength = t->mlength,
                      .remote_offset = h->remote_offset, .initiator = t->initiator,
                      .uid = h->uid, .pt_index = h->pt_index, .ptl_list = e->list,
                      .ni_fail_type = t->fail, .atomic_operation = h->atom_op,
                      .atomic_type = h->atom_type};
    ptl_eq_post(t->pt->eq, &ev);
}

static void tgt_queue_header(tgt_t *t, void *where)
{
    ptl_uh_t *uh = calloc(1, sizeof *uh);
    if (!uh) {
        sl_log_error("ptl: out of memory for an unexpected header; message dropped");
        return;
    }
    const ptl_req_hdr_t *h = t->h;
    *uh = (ptl_uh_t){.kind = comm_kind(h->kind), .initiator = t->initiator, .uid = h->uid,
                     .match_bits = h->match_bits, .hdr_data = h->hdr_data,
                     .rlength = h->length, .mlength = t->mlength,
                     .remote_offset = h->remote_offset, .start = where,
                     .atomic_op = h->atom_op, .atomic_type = h->atom_type, .owner = t->e};
    sl_list_push_tail(&t->pt->unexpected, &uh->link);
    t->pt->n_unexpected++;
    t->e->uh_refs++;
}

/* One bulk copy per pass.  A pass that served every copy waiting (64
 * packets' worth, each tens of microseconds or more) kept the thread from
 * what it was waiting for, although that had come first: a rank in a
 * barrier copied all of its peer's window before it left the barrier to
 * send its own, then the peer copied while it idled (bidirectional
 * windows ran at half the copy rate of the two CPUs).  So the drain stops
 * after a bulk copy, and the queue below serves one per pass. */
static unsigned tgt_bulk_moves;

static void tgt_moved_bulk(void)
{
    tgt_bulk_moves++;
    wire_drain_stop(ptl_g.wire);
}

/* Steps 8-10: offset, length, local offset, auto-unlink decision, for the
 * entry tgt_select chose; whether the entry goes after this message. */
static bool tgt_place(tgt_t *t)
{
    ptl_entry_t *e = t->e;
    const ptl_req_hdr_t *h = t->h;
    bool local = (e->me.options & PTL_ME_MANAGE_LOCAL) != 0;
    t->offset = local ? e->local_offset : h->remote_offset;
    ptl_size_t room = t->offset > e->bytes ? 0 : e->bytes - t->offset;
    t->mlength = h->length < room ? h->length : room;
    if (t->mlength > t->ni->limits.max_msg_size) t->mlength = t->ni->limits.max_msg_size;
    if ((h->flags & RF_INLINE) && h->kind != RK_GET && t->mlength > t->len) t->mlength = t->len;
    if (local) e->local_offset += t->mlength;
    return (e->me.options & PTL_ME_USE_ONCE) ||
           (local && e->me.min_free &&
            (e->local_offset > e->bytes || e->bytes - e->local_offset < e->me.min_free));
}

/* After the data moved: the unexpected header, events and counts, the
 * answer, the auto-unlink.  ovf: the copy was counted in ovf_copies. */
static void tgt_end(tgt_t *t, bool unlink, bool ovf)
{
    ptl_entry_t *e = t->e;
    void *where = ptl_region_addr(e->me.start, e->me.length, e->me.options, t->offset, 0);
    if (ovf && !(e->me.options & PTL_ME_UNEXPECTED_HDR_DISABLE)) tgt_queue_header(t, where);
    if (ovf) t->pt->ovf_copies--;
    tgt_events(t, where);
    respond(t);
    if (t->reply != t->fetch) free(t->reply);
    if (unlink) ptl_entry_auto_unlink(t->pt, e);
}

/* Serve one request; false when it must wait for an entry (nothing done). */
static bool tgt_serve(int src, const ptl_req_hdr_t *h, const void *data, size_t len)
{
    /* the fetch buffer stays out of the initializer: zeroing 512 bytes per
     * message was the largest single cost of serving a small put */
    uint8_t fetch[TGT_FETCH_MAX];
    tgt_t t = {.src = src, .h = h, .data = data, .len = len, .fail = PTL_NI_OK, .fetch = fetch};
    if (!tgt_select(&t)) {
        if (t.wait) return false;
        respond(&t);
        return true;
    }
    bool unlink = tgt_place(&t);
    /* A bulk copy drops the lock: until this message's header is on the
     * unexpected list, appends and searches on this PT wait for it
     * (ptl_pt_settle), or a receive posted meanwhile would miss it. */
    bool ovf = t.e->list == PTL_OVERFLOW_LIST;
    if (ovf) t.pt->ovf_copies++;
    tgt_move(&t);
    if ((h->flags & RF_BULK) && t.mlength) tgt_moved_bulk();
    tgt_end(&t, unlink, ovf);
    return true;
}

/* ---- requests served outside the wire's receive callback ----------------------

 * A request waiting for an entry (PTL_PT_SLUICE_WAIT) queues here, and so
 * does every request after it; the head is tried again whenever progress
 * runs (an append kicks the progress thread).
 *
 * A bulk request whose data must be staged through the peer or moved by
 * libfabric cannot be served inside the receive callback: waiting there
 * keeps this process from draining the peer's staging requests, and two
 * ranks pulling from each other (or a ring of them) would wait forever.
 * Such requests, and every request after them (arrival order is matching
 * order), queue here and are served from ptl_progress_locked.
 *
 * Copies in flight.  Served one at a time, each such copy cost its whole
 * hand-shake (over TCP: request, ready, read, data, release, with a
 * wake-up at each end) with nothing else moving, and the bulk bandwidth
 * was a third of what the connection carries.  So the queue starts up to
 * SLUICE_TGT_INFLIGHT copies without waiting for them (tgt_fly) and
 * finishes them in arrival order (tgt_land: events, counts, answers,
 * auto-unlink), so everything the program and the initiators see keeps
 * the order of the one-at-a-time queue.  Only copies that really wait
 * (peers without cross-memory attach) and whose start has no effect that a
 * later request could see fly: matched in the priority list (no unexpected
 * header to queue), one contiguous piece, a PT whose event queue has room
 * for two events per copy in flight when it uses flow control.  An
 * entry that the copy uses up leaves its list when the copy starts (no
 * later request may match it) and is unlinked, with its event, when it
 * lands.  Anything else waits until the copies ahead have landed and is
 * served as before; the head stays queued while it is served, so requests
 * delivered meanwhile queue behind it instead of overtaking it. */
typedef struct tgt_deferred {
    struct tgt_deferred *next;
    int src;
    ptl_req_hdr_t h;
    size_t len;
    /* in flight (tgt_fly) */
    tgt_t t;
    bool unlink;
    sl_status_t st; /* SL_INPROGRESS until op is done */
    wire_bulk_t op;
    char data[];
} tgt_deferred_t;

/* q_head .. before q_next: in flight, in arrival order; q_next ..: waiting */
static tgt_deferred_t *q_head, *q_tail, *q_next;
static int q_flying;

static bool tgt_needs_staging(int src, const ptl_req_hdr_t *h)
{
    return (h->flags & RF_BULK) && src != ptl_g.rank && !wire_peer_uses_cma(ptl_g.wire, src);
}

static bool tgt_defer(int src, const ptl_req_hdr_t *h, const void *data, size_t len)
{
    tgt_deferred_t *d = malloc(sizeof *d + len);
    if (!d) return false;
    *d = (tgt_deferred_t){.src = src, .h = *h, .len = len};
    if (len) memcpy(d->data, data, len);
    bool first = !q_head;
    if (q_tail) q_tail->next = d;
    else q_head = d;
    q_tail = d;
    if (!q_next) q_next = d;
    /* A new head: whoever progresses next (a waiter, or the sleeping
     * progress thread) must come round to serve it.  Behind a head, nothing
     * to do: serving the head goes on down the queue, and a head waiting
     * for an entry is retried by the append that links one. */
    if (first) wire_kick(ptl_g.wire);
    return true;
}

static int tgt_max_flying(void)
{
    static int max;
    if (!max) {
        long v = 8;
        sl_param_int(SL_PARAM_TGT_INFLIGHT, &v);
        max = (int)v;
    }
    return max;
}

/* Messages matched whose events are still to come (copies in flight,
 * streams): each may post two (PUT or GET, AUTO_UNLINK). */
static int tgt_pending_events(void);
static void streams_end(const ptl_ni_t *ni, const ptl_pt_t *pt, bool gone, ptl_ni_fail_t why);

/* Would t match a priority entry into which a later step may move the
 * data (a copy in flight, a stream): one contiguous piece, the PT's event
 * queue with room for the events of every message pending and this one
 * when it uses flow control?  No side effects: tgt_select then chooses
 * the same entry. */
static bool tgt_peek_prio(tgt_t *t)
{
    const ptl_req_hdr_t *h = t->h;
    ptl_ni_t *ni = h->ni_kind < PTL_NI_KINDS ? ptl_g.nis[h->ni_kind] : NULL;
    ptl_pt_t *pt = ni ? ptl_pt_get(ni, h->pt_index) : NULL;
    if (!pt || !pt->enabled) return false;
    if ((pt->options & PTL_PT_FLOWCTRL) && pt->eq &&
        pt->eq->n + 2 * (size_t)(tgt_pending_events() + 1) >= pt->eq->limit)
        return false;
    t->ni = ni;
    t->pt = pt;
    t->initiator = ptl_ni_initiator_id(ni, t->src);
    ptl_entry_t *e = match_list(t, &pt->prio);
    return e && (e->me.uid == PTL_UID_ANY || e->me.uid == h->uid) && op_allowed(e, h->kind) &&
           !(e->me.options & PTL_IOVEC) && !tgt_wide(e);
}

/* Steps 1-10 for a message whose data a later step moves (a copy in
 * flight, a stream), once tgt_peek_prio has said yes: the entry is chosen
 * (the one it saw), placed and kept busy (PtlMEUnlink answers PTL_IN_USE);
 * one the message uses up leaves its list now, so that no later request
 * matches it, and goes when the message ends (*unlink, for tgt_release). */
static bool tgt_claim(tgt_t *t, bool *unlink)
{
    if (!tgt_select(t)) return false;
    *unlink = tgt_place(t);
    if (*unlink) ptl_entry_delist(t->pt, t->e);
    t->e->busy++;
    return true;
}

/* The message tgt_claim matched has ended: its events, answer, unlink. */
static void tgt_release(tgt_t *t, bool unlink)
{
    t->e->busy--;
    tgt_end(t, unlink, false);
}

/* May t's copy fly?  Only copies that really wait: with cross-memory
 * attach (a peer on this host, or ourselves, queued by
 * PtlSluiceDeferBulk) the copy is done inside wire_get, and must not be
 * made with the lock held. */
static bool tgt_can_fly(tgt_t *t)
{
    const ptl_req_hdr_t *h = t->h;
    return (h->flags & RF_BULK) && (h->kind == RK_PUT || h->kind == RK_GET) &&
           tgt_needs_staging(t->src, h) && tgt_peek_prio(t);
}

/* Start q_next's copy without waiting for it; false when it may not fly. */
static bool tgt_fly(void)
{
    tgt_deferred_t *d = q_next;
    tgt_t *t = &d->t;
    *t = (tgt_t){.src = d->src, .h = &d->h, .data = d->data, .len = d->len, .fail = PTL_NI_OK};
    if (!tgt_can_fly(t) || !tgt_claim(t, &d->unlink)) return false;
    ptl_g.bulk_busy++;
    d->st = SL_OK;
    if (t->mlength) {
        char *local = ptl_at(t->e->me.start, t->offset);
        d->st = d->h.kind == RK_PUT
                    ? wire_get(ptl_g.wire, t->src, d->h.addr, local, t->mlength, &d->op)
                    : wire_put(ptl_g.wire, t->src, d->h.addr, local, t->mlength, &d->op);
    }
    q_next = d->next;
    q_flying++;
    return true;
}

/* Finish the copies in flight at the head of the queue that are done (all
 * of them, waiting for each, when wait); how many. */
static int tgt_land_some(bool wait)
{
    int n = 0;
    if (lost) tgt_free_lost(false);
    while (q_head && q_head != q_next) {
        tgt_deferred_t *d = q_head;
        bool gone = false;
        if (d->st == SL_INPROGRESS) {
            if (wait) wire_bulk_wait(ptl_g.wire, &d->op);
            else if (!atomic_load_explicit(&d->op.done, memory_order_acquire) &&
                     !wire_peer_gone(ptl_g.wire, d->src))
                break;
            gone = !atomic_load_explicit(&d->op.done, memory_order_acquire);
            d->st = gone ? SL_ERR_PEER_DEAD : d->op.status;
        }
        tgt_t *t = &d->t;
        ptl_g.bulk_busy--;
        if (d->st != SL_OK) fail(t, PTL_NI_SEGV, PTL_SR_DROP_COUNT);
        if (t->mlength || d->st != SL_OK) tgt_bulk_moves++;
        tgt_release(t, d->unlink);
        q_head = d->next;
        if (!q_head) q_tail = NULL;
        q_flying--;
        if (gone) tgt_keep_lost(&d->op, d); /* a dead peer must not stop the queue */
        else free(d);
        n++;
    }
    return n;
}

void ptl_target_land(const ptl_ni_t *ni, const ptl_pt_t *pt)
{
    tgt_land_some(true);
    streams_end(ni, pt, false, PTL_NI_PT_DISABLED);
}

/* ---- puts streamed into their entry as their fragments arrive ----------------------

 * An inline put longer than one packet (up to PTL_INLINE_MAX) reaches the
 * target in fragments.  Reassembled first, its data crossed the caches
 * three times (the sender's copy into the mailbox, the copy into the
 * reassembly buffer, the copy into the entry): a 64 KiB exchange of two
 * ranks took 16.3 us, 8.7 without the middle copy.  So when the first
 * fragment's header matches a priority entry outright (tgt_peek_prio: no
 * request queued before it, one contiguous piece), the put is matched
 * then and every fragment is copied into the entry as it arrives; the last
 * one ends it (events, counts, the answer, auto-unlink), as the whole
 * message would have.  Matching at the first fragment keeps arrival
 * order: the wire keeps one sender's fragments together, and a message
 * from another sender that arrives meanwhile matches after this one.  An
 * entry the put uses up leaves its list at the match and stays busy
 * (PtlMEUnlink answers PTL_IN_USE) until the end.  A stream ends failed
 * when its sender is gone before its last fragment (PTL_NI_UNDELIVERABLE)
 * or its PT is disabled or freed meanwhile (PTL_NI_PT_DISABLED); the rest
 * of its fragments, if any come, are dropped. */
typedef struct tgt_stream {
    ptl_req_hdr_t h;
    tgt_t t;
    char *dst;       /* where the entry takes the message's first byte */
    ptl_size_t got;  /* message bytes arrived so far */
    bool active;
    bool drop;       /* ended early: drop fragments up to the last */
    bool unlink;
} tgt_stream_t;

static tgt_stream_t *streams; /* per source, from the first stream on */
static int n_streams;
static _Atomic unsigned long n_streamed; /* (read by tests from any thread) */

static int tgt_pending_events(void)
{
    return q_flying + n_streams;
}

static void stream_malformed(int src, const tgt_stream_t *s, size_t more)
{
    boot_abortf(ptl_g.boot, 70, "ptl: rank %d sent %llu bytes of a put of %llu", src,
                (unsigned long long)(s->got + more), (unsigned long long)s->h.length);
}

static void stream_copy(tgt_stream_t *s, const void *data, size_t n)
{
    if (s->got + n > s->h.length) stream_malformed(s->t.src, s, n);
    if (!s->drop && s->got < s->t.mlength) {
        ptl_size_t k = s->t.mlength - s->got;
        memcpy(s->dst + s->got, data, n < k ? n : k);
    }
    s->got += n;
}

static void stream_end(tgt_stream_t *s, ptl_ni_fail_t why)
{
    if (why != PTL_NI_OK) fail(&s->t, why, PTL_SR_DROP_COUNT);
    s->active = false;
    n_streams--;
    tgt_release(&s->t, s->unlink);
}

/* Fragments of s's sender go to the stream (a put in progress, or the rest
 * of one ended early). */
static bool stream_busy(const tgt_stream_t *s)
{
    return s->active || s->drop;
}

/* The first fragment of a put: does it start a stream? */
static bool stream_start(int src, const void *frag, size_t flen)
{
    /* (messages to ourselves are whole, but a fuzzer sends fragments as
     * rank 0 to rank 0: fuzz_ptl_target) */
    if (q_head) return false;
    tgt_stream_t *s = &streams[src];
    size_t hl = ptl_req_decode(frag, flen, &s->h);
    const ptl_req_hdr_t *h = &s->h;
    if (!hl || h->kind != RK_PUT || (h->flags & (RF_INLINE | RF_BULK)) != RF_INLINE ||
        h->length > WIRE_MSG_MAX)
        return false; /* (the whole message is checked as before) */
    tgt_t *t = &s->t;
    *t = (tgt_t){.src = src, .h = h, .len = h->length, .fail = PTL_NI_OK};
    if (!tgt_peek_prio(t) || !tgt_claim(t, &s->unlink)) return false;
    s->dst = ptl_at(t->e->me.start, t->offset);
    s->got = 0;
    s->active = true;
    s->drop = false;
    n_streams++;
    atomic_fetch_add_explicit(&n_streamed, 1, memory_order_relaxed);
    stream_copy(s, (const char *)frag + hl, flen - hl);
    return true;
}

bool ptl_target_stream(const wire_frag_t *f)
{
    if (!streams) {
        if (!f->first || f->type != PTL_PKT_REQ) return false;
        if (!(streams = calloc((size_t)ptl_g.size, sizeof *streams))) return false;
    }
    tgt_stream_t *s = &streams[f->src];
    if (!stream_busy(s))
        return f->first && !f->last && f->type == PTL_PKT_REQ &&
               stream_start(f->src, f->data, f->len);
    if (f->first) /* the wire keeps a message's fragments together */
        boot_abortf(ptl_g.boot, 70, "ptl: rank %d began a message inside a put", f->src);
    stream_copy(s, f->data, f->len);
    if (!f->last) return true;
    if (s->got != s->h.length) stream_malformed(f->src, s, 0);
    if (s->active) stream_end(s, PTL_NI_OK);
    s->drop = false;
    return true;
}

/* End the streams of gone senders (gone), or the streams into pt, or into
 * any PT of ni (pt NULL). */
static void streams_end(const ptl_ni_t *ni, const ptl_pt_t *pt, bool gone, ptl_ni_fail_t why)
{
    for (int i = 0; n_streams && i < ptl_g.size; i++) {
        tgt_stream_t *s = &streams[i];
        if (!s->active) continue;
        if (gone ? !wire_peer_gone(ptl_g.wire, i) : pt ? s->t.pt != pt : s->t.ni != ni) continue;
        stream_end(s, why);
        s->drop = !gone;
    }
}

void ptl_target_streams_gone(void)
{
    streams_end(NULL, NULL, true, PTL_NI_UNDELIVERABLE);
}

unsigned long ptl_target_streamed(void)
{
    return atomic_load_explicit(&n_streamed, memory_order_relaxed);
}

bool ptl_target_stream_busy(int src)
{
    return streams && stream_busy(&streams[src]);
}

void ptl_target_streams_free(void)
{
    free(streams);
    streams = NULL;
    n_streams = 0;
}

/* What xfer.c sends: a put's or atomic's data inline (all of it, RF_INLINE)
 * or by address (RF_BULK, puts and gets only), a get inline with no data
 * or by address, atomics no longer than the largest max_(fetch_)atomic_size
 * (TGT_FETCH_MAX, which also sizes the buffer of the old values).  Anything
 * else comes from a corrupt or hostile peer: serving it would read past the
 * packet or overrun the fetch buffer, so the job ends. */
static void tgt_check_header(int src, const ptl_req_hdr_t *h, size_t len)
{
    unsigned how = h->flags & (RF_INLINE | RF_BULK);
    bool atomic = h->kind >= RK_ATOMIC && h->kind <= RK_SWAP;
    bool ok = h->kind >= RK_PUT && h->kind <= RK_SWAP && (how == RF_INLINE || how == RF_BULK);
    if (ok && how == RF_INLINE) ok = h->kind == RK_GET ? len == 0 : h->length == len;
    if (ok && atomic) ok = how == RF_INLINE && h->length <= TGT_FETCH_MAX;
    if (!ok)
        boot_abortf(ptl_g.boot, 70,
                    "ptl: malformed request from rank %d (kind %u, flags %#x, length %llu, "
                    "%zu bytes of data)", src, h->kind, h->flags, (unsigned long long)h->length,
                    len);
}

void ptl_target_request(int src, const ptl_req_hdr_t *h, const void *data, size_t len)
{
    tgt_check_header(src, h, len);
    bool defer = ptl_t_defer_bulk && (h->flags & RF_BULK);
    if ((q_head || defer || tgt_needs_staging(src, h)) && tgt_defer(src, h, data, len)) {
        /* a thread that defers takes no more packets now: they could only
         * queue behind this one, at the price of a copy each */
        if (ptl_t_defer_bulk) wire_drain_stop(ptl_g.wire);
        return;
    }
    if (tgt_serve(src, h, data, len)) return;
    if (!tgt_defer(src, h, data, len))
        sl_log_error("ptl: out of memory holding a message from rank %d; dropped", src);
}

bool ptl_target_queued(void)
{
    return q_head != NULL;
}

unsigned ptl_target_bulk_moves(void)
{
    return tgt_bulk_moves;
}

void ptl_target_kick(void)
{
    if (q_head) wire_kick(ptl_g.wire);
}

int ptl_target_run_deferred(void)
{
    static bool running;
    if (running) return 0;
    running = true;
    int n = tgt_land_some(false);
    unsigned moves = tgt_bulk_moves;
    while (q_next && tgt_bulk_moves == moves) {
        if (q_flying) { /* behind copies in flight only another copy may start */
            if (q_flying >= tgt_max_flying() || !tgt_fly()) break;
            n++;
            continue;
        }
        if (tgt_max_flying() > 1 && tgt_fly()) {
            n++;
            continue;
        }
        tgt_deferred_t *d = q_head; /* == q_next: nothing in flight */
        if (!tgt_serve(d->src, &d->h, d->data, d->len)) break; /* still no entry */
        q_head = q_next = d->next;
        if (!q_head) q_tail = NULL;
        free(d);
        n++;
    }
    n += tgt_land_some(false);
    running = false;
    return n;
}

void ptl_target_drop_deferred(void)
{
    tgt_land_some(true);
    while (q_head) {
        tgt_deferred_t *d = q_head;
        q_head = d->next;
        free(d);
    }
    q_tail = q_next = NULL;
}
