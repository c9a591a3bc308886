/* Initiator side: Put, Get, Atomic, FetchAtomic, Swap (and their triggered
 * forms), the responses that complete them, and the wire receive dispatch.
 *
 * A request carries up to PTL_INLINE_SURE data bytes inline (puts up to
 * PTL_INLINE_MAX when the mailbox has room at once); a larger put
 * names its source address and the target pulls the data with the wire's
 * one-sided get (a single copy), a larger get names its destination and the
 * target pushes into it.  SEND of an inline put is immediate (the data was
 * copied into the packet); SEND of a bulk put waits for the target's answer
 * (the target has read the buffer by then). */
#include "ptl/ptl_int.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

/* ---- validation -------------------------------------------------------------------- */

static int md_range(const ptl_md_obj_t *m, ptl_size_t off, ptl_size_t len)
{
    return ptl_region_check(m->md.start, m->md.length, m->md.options, off, len);
}

/* Checks an operation; on success also gives its MD and target job rank,
 * so that starting it looks nothing up twice. */
static int xfer_check(const ptl_xfer_args_t *a, ptl_md_obj_t **mdp, int *rankp)
{
    ptl_md_obj_t *md = ptl_md_get(a->md);
    if (!md) return PTL_ARG_INVALID;
    ptl_ni_t *ni = md->ni;
    int rank;
    if (ptl_ni_rank_of(ni, a->target, &rank) != PTL_OK) return PTL_ARG_INVALID;
    *mdp = md;
    *rankp = rank;
    if (a->length > ni->limits.max_msg_size) return PTL_ARG_INVALID;
    if (md_range(md, a->local_offset, a->length) != PTL_OK) return PTL_ARG_INVALID;
    if (a->kind == RK_PUT || a->kind == RK_ATOMIC) {
        if (a->ack_req > PTL_OC_ACK_REQ) return PTL_ARG_INVALID;
        if (a->ack_req == PTL_ACK_REQ && !md->eq) return PTL_ARG_INVALID;
        if (a->ack_req == PTL_CT_ACK_REQ && !md->ct) return PTL_ARG_INVALID;
        if ((md->md.options & PTL_MD_VOLATILE) && a->length > ni->limits.max_volatile_size)
            return PTL_ARG_INVALID;
    }
    if (a->kind == RK_ATOMIC || a->kind == RK_FETCH || a->kind == RK_SWAP) {
        int fam = a->kind == RK_ATOMIC ? PTL_ATOM_FAMILY_ATOMIC
                  : a->kind == RK_FETCH ? PTL_ATOM_FAMILY_FETCH
                                        : PTL_ATOM_FAMILY_SWAP;
        /* §13.3: PtlAtomic up to max_atomic_size, PtlFetchAtomic and every
         * PtlSwap up to max_fetch_atomic_size; ptl_atom_check holds the
         * swaps that use the operand to exactly one element. */
        ptl_size_t lim = a->kind == RK_ATOMIC ? ni->limits.max_atomic_size
                                              : ni->limits.max_fetch_atomic_size;
        if (a->length > lim || ptl_atom_check(a->op, a->type, fam, a->length) != PTL_OK)
            return PTL_ARG_INVALID;
    }
    if (a->kind == RK_FETCH || a->kind == RK_SWAP) {
        ptl_md_obj_t *g = ptl_md_get(a->get_md);
        if (!g || g->ni != ni || md_range(g, a->local_get_offset, a->length) != PTL_OK)
            return PTL_ARG_INVALID;
    }
    return PTL_OK;
}

/* ---- initiator events --------------------------------------------------------------- */

static void md_event(ptl_md_obj_t *m, ptl_event_kind_t kind, void *user_ptr, ptl_ni_fail_t f,
                     ptl_size_t mlength, ptl_size_t remote_offset, ptl_list_t list)
{
    if (!m->eq) return;
    bool ok = f == PTL_NI_OK;
    if (ok && (m->md.options & PTL_MD_EVENT_SUCCESS_DISABLE)) return;
    if (kind == PTL_EVENT_SEND && (m->md.options & PTL_MD_EVENT_SEND_DISABLE)) return;
    ptl_event_t ev = {.type = kind, .user_ptr = user_ptr, .ni_fail_type = f, .mlength = mlength,
                      .remote_offset = remote_offset, .ptl_list = list};
    ptl_eq_post(m->eq, &ev);
}

static void xfer_send_done(ptl_xfer_t *x, ptl_ni_fail_t f)
{
    ptl_md_obj_t *m = x->md;
    if (m->md.options & PTL_MD_EVENT_CT_SEND)
        ptl_count(m->ct, m->md.options, PTL_MD_EVENT_CT_BYTES, f == PTL_NI_OK, x->length);
    md_event(m, PTL_EVENT_SEND, x->user_ptr, f, 0, 0, 0);
}

/* A fire-and-forget inline put (no ack, no reply) lives on the stack of
 * the call that sends it, without a handle: nothing answers it. */
static void xfer_free(ptl_xfer_t *x)
{
    x->md->pending--;
    if (x->get_md) x->get_md->pending--;
    if (x->id == PTL_INVALID_HANDLE) return;
    free(x->bounce);
    ptl_handle_free(x->id);
    free(x);
}

/* ---- issuing ------------------------------------------------------------------------- */

/* Contiguous address of the MD bytes [off, off+len), or NULL for iovec MDs
 * whose range spans pieces. */
static void *md_addr(ptl_md_obj_t *m, ptl_size_t off, ptl_size_t len)
{
    return ptl_region_addr(m->md.start, m->md.length, m->md.options, off, len);
}

/* SL_ERR_PEER_DEAD (the target is gone) is the caller's to handle; other
 * failures are logged. */
static sl_status_t xfer_send_req(int rank, ptl_req_hdr_t *h, const void *data, ptl_size_t dlen,
                                 bool lazy)
{
    unsigned char wire_hdr[PTL_REQ_WIRE_MAX];
    struct iovec iov[2] = {{wire_hdr, ptl_req_encode(h, wire_hdr)}, {(void *)data, dlen}};
    sl_status_t st = lazy ? wire_send_lazy(ptl_g.wire, rank, PTL_PKT_REQ, iov, dlen ? 2 : 1)
                          : wire_send(ptl_g.wire, rank, PTL_PKT_REQ, iov, dlen ? 2 : 1);
    if (st != SL_OK && st != SL_ERR_PEER_DEAD)
        sl_log_error("ptl: sending to rank %d failed: %s", rank, sl_status_string(st));
    return st;
}

/* Does a put or get move its data by the wire's one-sided copy rather than
 * inline?  A get's data comes back in the target's reply, whose room in our
 * mailbox the target cannot promise, so only puts go inline opportunistically
 * (twice copied: into the mailbox by us, out of it by the target as the
 * fragments come), unless the MD asks for one copy (PTL_MD_SLUICE_ONE_COPY)
 * and the target makes it with cross-memory attach. */
static bool xfer_bulk(const ptl_xfer_args_t *a, const ptl_md_obj_t *md, int rank)
{
    if ((a->kind != RK_PUT && a->kind != RK_GET) || a->length <= PTL_INLINE_SURE) return false;
    if (a->kind == RK_GET || a->length > PTL_INLINE_MAX) return true;
    if ((md->md.options & PTL_MD_SLUICE_ONE_COPY) && rank != ptl_g.rank &&
        wire_peer_uses_cma(ptl_g.wire, rank))
        return true;
    return !wire_tx_room(ptl_g.wire, rank, a->length + PTL_REQ_WIRE_MAX);
}

/* The ack a put or atomic asks for, if the MD can see it: one the MD
 * neither counts (PTL_MD_EVENT_CT_ACK) nor logs (PTL_ACK_REQ into its EQ)
 * is not asked for, so the MD is not kept busy waiting for an answer that
 * can deliver nothing to it (PtlMDRelease right after the SEND count). */
static ptl_ack_req_t xfer_ack_seen(const ptl_md_obj_t *md, ptl_ack_req_t ack)
{
    if (ack == PTL_NO_ACK_REQ) return ack;
    if ((md->md.options & PTL_MD_EVENT_CT_ACK) && md->ct) return ack;
    return ack == PTL_ACK_REQ && md->eq ? ack : PTL_NO_ACK_REQ;
}

/* Start an operation xfer_check accepted (md and rank are its results). */
static int xfer_start_checked(const ptl_xfer_args_t *a, ptl_md_obj_t *md, int rank)
{
    ptl_ni_t *ni = md->ni;
    bool carries_data = a->kind != RK_GET;
    bool bulk = xfer_bulk(a, md, rank);
    ptl_ack_req_t ack = xfer_ack_seen(md, a->ack_req);
    bool wait = a->kind == RK_FETCH || a->kind == RK_SWAP || ack != PTL_NO_ACK_REQ;
    ptl_xfer_t on_stack, *x = carries_data && !bulk && !wait ? &on_stack : calloc(1, sizeof *x);
    if (!x) return PTL_NO_SPACE;
    *x = (ptl_xfer_t){.kind = a->kind, .rank = rank, .md = md, .local_offset = a->local_offset,
                      .local_get_offset = a->local_get_offset, .length = a->length,
                      .ack_req = ack, .user_ptr = a->user_ptr, .id = PTL_INVALID_HANDLE};
    if (a->kind == RK_FETCH || a->kind == RK_SWAP) x->get_md = ptl_md_get(a->get_md);
    if (x != &on_stack && (x->id = ptl_handle_new(HT_XFER, x)) == PTL_INVALID_HANDLE) {
        free(x);
        return PTL_NO_SPACE;
    }
    md->pending++;
    if (x->get_md) x->get_md->pending++;

    ptl_req_hdr_t h = {.kind = (uint8_t)a->kind, .ni_kind = (uint8_t)ni->kind,
                       .ack_req = ack, .atom_op = a->op, .atom_type = a->type,
                       .pt_index = (uint16_t)a->pt_index, .xfer_id = x->id, .uid = ptl_g.uid,
                       .match_bits = a->match_bits, .remote_offset = a->remote_offset,
                       .hdr_data = a->hdr_data, .length = a->length};
    memcpy(h.operand, a->operand, sizeof h.operand);
    void *bounce = NULL;
    const void *data = NULL;
    ptl_size_t dlen = 0;
    if (bulk) {
        void *addr = md_addr(md, a->local_offset, a->length);
        if (!addr) { /* iovec MD over several pieces: the target needs one address */
            if (!(x->bounce = malloc(a->length))) {
                xfer_free(x);
                return PTL_NO_SPACE;
            }
            if (a->kind == RK_PUT)
                ptl_region_read(md->md.start, md->md.length, md->md.options, a->local_offset,
                                x->bounce, a->length);
            addr = x->bounce;
        }
        x->send_pending = a->kind == RK_PUT; /* the target's answer means it has read */
        h.flags = RF_BULK;
        h.addr = (uint64_t)(uintptr_t)addr;
    } else if (carries_data && a->length) {
        h.flags = RF_INLINE;
        data = md_addr(md, a->local_offset, a->length);
        if (!data) {
            bounce = malloc(a->length);
            if (!bounce) {
                xfer_free(x);
                return PTL_NO_SPACE;
            }
            ptl_region_read(md->md.start, md->md.length, md->md.options, a->local_offset,
                            bounce, a->length);
            data = bounce;
        }
        dlen = a->length;
    } else {
        h.flags = RF_INLINE;
    }
    /* PTL_MD_SLUICE_LAZY: an inline put that needs no prompt target action */
    bool lazy = a->kind == RK_PUT && !bulk && (md->md.options & PTL_MD_SLUICE_LAZY);
    sl_status_t st = xfer_send_req(rank, &h, data, dlen, lazy);
    free(bounce);
    if (st != SL_OK) {
        xfer_free(x);
        if (st != SL_ERR_PEER_DEAD) return PTL_FAIL;
        ptl_xfer_start_failed(a); /* like one in flight when its target went */
        return PTL_OK;
    }
    if (carries_data && !bulk) {
        xfer_send_done(x, PTL_NI_OK); /* the bytes are in the packet: buffer reusable */
        if (!wait) xfer_free(x);
    }
    return PTL_OK;
}

int ptl_xfer_start(const ptl_xfer_args_t *a)
{
    ptl_md_obj_t *md;
    int rank;
    if (xfer_check(a, &md, &rank) != PTL_OK) return PTL_ARG_INVALID; /* freed since posted */
    return xfer_start_checked(a, md, rank);
}

/* An operation that could not start (its target gone; a triggered one also
 * for lack of memory): it completes as failed (PTL_NI_UNDELIVERABLE), with
 * the events and counts its MDs ask for, so that nothing waits for it
 * forever and chains on the same counters (which fire on success +
 * failure) still run. */
void ptl_xfer_start_failed(const ptl_xfer_args_t *a)
{
    ptl_md_obj_t *md = ptl_md_get(a->md);
    if (!md) return; /* released since posted: nobody to tell */
    const ptl_ni_fail_t f = PTL_NI_UNDELIVERABLE;
    if (a->kind == RK_GET || a->kind == RK_FETCH || a->kind == RK_SWAP) {
        ptl_md_obj_t *m = a->kind != RK_GET ? ptl_md_get(a->get_md) : md;
        if (m && (m->md.options & PTL_MD_EVENT_CT_REPLY))
            ptl_count(m->ct, m->md.options, PTL_MD_EVENT_CT_BYTES, false, 0);
        if (m) md_event(m, PTL_EVENT_REPLY, a->user_ptr, f, 0, a->remote_offset, 0);
        if (a->kind == RK_GET) return;
    }
    if (md->md.options & PTL_MD_EVENT_CT_SEND)
        ptl_count(md->ct, md->md.options, PTL_MD_EVENT_CT_BYTES, false, 0);
    md_event(md, PTL_EVENT_SEND, a->user_ptr, f, 0, 0, 0);
    if (a->ack_req != PTL_NO_ACK_REQ && (md->md.options & PTL_MD_EVENT_CT_ACK))
        ptl_count(md->ct, md->md.options, PTL_MD_EVENT_CT_BYTES, false, 0);
    if (a->ack_req == PTL_ACK_REQ) md_event(md, PTL_EVENT_ACK, a->user_ptr, f, 0, 0, 0);
}

/* ---- responses ------------------------------------------------------------------------ */

static void xfer_ack(ptl_xfer_t *x, const ptl_resp_hdr_t *r)
{
    ptl_md_obj_t *m = x->md;
    bool ok = r->ni_fail == PTL_NI_OK;
    if (!(r->flags & PF_RESP_ACK) && ok) return; /* ACK_DISABLE at the target */
    if (m->md.options & PTL_MD_EVENT_CT_ACK) {
        ptl_size_t n = x->ack_req == PTL_OC_ACK_REQ ? 1 : r->mlength;
        ptl_count(m->ct, m->md.options, PTL_MD_EVENT_CT_BYTES, ok,
                  x->ack_req == PTL_OC_ACK_REQ ? 1 : n);
    }
    if (x->ack_req == PTL_ACK_REQ)
        md_event(m, PTL_EVENT_ACK, x->user_ptr, r->ni_fail, r->mlength, r->remote_offset,
                 r->list);
}

static void xfer_reply(ptl_xfer_t *x, const ptl_resp_hdr_t *r, const void *data, size_t len)
{
    ptl_md_obj_t *m = x->get_md ? x->get_md : x->md;
    ptl_size_t off = x->get_md ? x->local_get_offset : x->local_offset;
    if ((r->flags & PF_RESP_DATA) && len) {
        ptl_size_t n = len < x->length ? len : x->length;
        ptl_region_write(m->md.start, m->md.length, m->md.options, off, data, n);
    } else if (x->bounce && r->ni_fail == PTL_NI_OK) { /* bulk get pushed into the bounce */
        ptl_size_t n = r->mlength < x->length ? r->mlength : x->length;
        ptl_region_write(m->md.start, m->md.length, m->md.options, off, x->bounce, n);
    }
    bool ok = r->ni_fail == PTL_NI_OK;
    if (m->md.options & PTL_MD_EVENT_CT_REPLY)
        ptl_count(m->ct, m->md.options, PTL_MD_EVENT_CT_BYTES, ok, r->mlength);
    md_event(m, PTL_EVENT_REPLY, x->user_ptr, r->ni_fail, r->mlength, r->remote_offset, r->list);
}

void ptl_initiator_response(int src, const ptl_resp_hdr_t *r, const void *data, size_t len)
{
    ptl_xfer_t *x = ptl_handle_get(HT_XFER, r->xfer_id);
    if (!x) {
        /* one from a gone peer may be late: its operation has failed */
        if (!wire_peer_gone(ptl_g.wire, src))
            sl_log_error("ptl: response from rank %d for an unknown operation", src);
        return;
    }
    /* the target could not read the data, or is gone */
    bool unread = r->ni_fail == PTL_NI_SEGV || r->ni_fail == PTL_NI_UNDELIVERABLE;
    if (x->send_pending) xfer_send_done(x, unread ? PTL_NI_UNDELIVERABLE : PTL_NI_OK);
    if (r->flags & PF_RESP_REPLY) xfer_reply(x, r, data, len);
    else if (x->ack_req != PTL_NO_ACK_REQ) xfer_ack(x, r);
    xfer_free(x);
}

void ptl_xfer_fail_gone(void)
{
    const ptl_table_t *t = &ptl_g.tables[HT_XFER];
    for (uint32_t i = 0; i < t->cap; i++) {
        ptl_xfer_t *x = t->obj[i];
        if (!x || !wire_peer_gone(ptl_g.wire, x->rank)) continue;
        bool reply = x->kind == RK_GET || x->kind == RK_FETCH || x->kind == RK_SWAP;
        ptl_resp_hdr_t r = {.ni_fail = PTL_NI_UNDELIVERABLE, .xfer_id = x->id,
                            .flags = reply ? PF_RESP_REPLY : PF_RESP_ACK};
        ptl_initiator_response(x->rank, &r, NULL, 0); /* frees x */
    }
}

/* ---- wire receive: whole messages, reassembled per source when cut up (but puts that
 * stream into their entry, target.c) -------------------------------------------------------- */

typedef struct ptl_rx {
    char *buf;
    size_t len, cap;
} ptl_rx_t;

static void ptl_dispatch(int src, uint8_t type, const char *p, size_t len)
{
    ptl_req_hdr_t h;
    size_t hl;
    if (type == PTL_PKT_REQ && (hl = ptl_req_decode((const unsigned char *)p, len, &h)) != 0) {
        ptl_target_request(src, &h, p + hl, len - hl);
    } else if (type == PTL_PKT_RESP && len >= sizeof(ptl_resp_hdr_t)) {
        ptl_resp_hdr_t r;
        memcpy(&r, p, sizeof r);
        ptl_initiator_response(src, &r, p + sizeof r, len - sizeof r);
    } else {
        sl_log_error("ptl: malformed packet (type %u, %zu bytes) from rank %d ignored", type, len,
                     src);
    }
}

void ptl_wire_recv(void *arg, const wire_frag_t *f)
{
    (void)arg;
    if (f->first && f->last) {
        ptl_dispatch(f->src, f->type, f->data, f->len);
        return;
    }
    if (ptl_target_stream(f)) return; /* into its entry as it comes, not reassembled */
    ptl_rx_t *rx = &((ptl_rx_t *)ptl_g.rx)[f->src];
    if (f->first) rx->len = 0;
    /* wire_send takes at most WIRE_MSG_MAX bytes: a longer train of
     * fragments is impossible (and would grow the buffer without end) */
    if (rx->len + f->len > WIRE_MSG_MAX)
        boot_abortf(ptl_g.boot, 70, "ptl: rank %d sent fragments of a message longer than %u "
                    "bytes", f->src, WIRE_MSG_MAX);
    if (f->len == 0) { /* nothing to append (and rx->buf may be NULL) */
        if (f->last) ptl_dispatch(f->src, f->type, rx->buf, rx->len);
        return;
    }
    if (rx->len + f->len > rx->cap) {
        size_t cap = (rx->len + f->len) * 2;
        char *b = realloc(rx->buf, cap);
        if (!b) {
            sl_log_error("ptl: out of memory reassembling a message from rank %d", f->src);
            return;
        }
        rx->buf = b;
        rx->cap = cap;
    }
    memcpy(rx->buf + rx->len, f->data, f->len);
    rx->len += f->len;
    if (f->last) ptl_dispatch(f->src, f->type, rx->buf, rx->len);
}

void ptl_rx_free(void)
{
    ptl_rx_t *rx = (ptl_rx_t *)ptl_g.rx;
    for (int i = 0; rx && i < ptl_g.size; i++) free(rx[i].buf);
    free(rx);
    ptl_g.rx = NULL;
}

/* ---- public calls -------------------------------------------------------------------------- */

static int xfer_call(const ptl_xfer_args_t *a, ptl_handle_ct_t trig_ct, ptl_size_t threshold,
                     bool triggered)
{
    PTL_CHECK_INIT();
    PTL_LOCK();
    ptl_md_obj_t *md;
    int rank;
    int rc = xfer_check(a, &md, &rank);
    if (rc == PTL_OK && !triggered) {
        rc = xfer_start_checked(a, md, rank);
    } else if (rc == PTL_OK) {
        ptl_ct_t *trig = ptl_ct_get(trig_ct);
        if (!trig || trig->ni != md->ni) {
            rc = PTL_ARG_INVALID;
        } else {
            ptl_trig_t t = {.kind = TK_XFER, .x = *a};
            rc = ptl_trig_add(trig, threshold, &t);
        }
    }
    PTL_UNLOCK();
    return rc;
}

/* The argument blocks of put, get and atomic, shared by the immediate and
 * the triggered calls. */
static ptl_xfer_args_t put_args(int kind, ptl_handle_md_t md, ptl_size_t off, ptl_size_t len,
                                ptl_ack_req_t ack, ptl_process_t target, ptl_pt_index_t pt,
                                ptl_match_bits_t bits, ptl_size_t roff, void *user_ptr,
                                ptl_hdr_data_t hdr, ptl_op_t op, ptl_datatype_t type)
{
    ptl_xfer_args_t a = {.kind = kind, .md = md, .local_offset = off, .length = len,
                         .ack_req = ack, .target = target, .pt_index = pt, .match_bits = bits,
                         .remote_offset = roff, .user_ptr = user_ptr, .hdr_data = hdr,
                         .op = op, .type = type};
    return a;
}

static ptl_xfer_args_t get_args(ptl_handle_md_t md, ptl_size_t off, ptl_size_t len,
                                ptl_process_t target, ptl_pt_index_t pt, ptl_match_bits_t bits,
                                ptl_size_t roff, void *user_ptr)
{
    return put_args(RK_GET, md, off, len, PTL_NO_ACK_REQ, target, pt, bits, roff, user_ptr, 0, 0,
                    0);
}

int PtlPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
           ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
           ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
           ptl_hdr_data_t hdr_data)
{
    ptl_xfer_args_t a = put_args(RK_PUT, md_handle, local_offset, length, ack_req, target_id,
                                 pt_index, match_bits, remote_offset, user_ptr, hdr_data, 0, 0);
    return xfer_call(&a, PTL_CT_NONE, 0, false);
}

int PtlGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
           ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
           ptl_size_t remote_offset, void *user_ptr)
{
    ptl_xfer_args_t a = get_args(md_handle, local_offset, length, target_id, pt_index,
                                 match_bits, remote_offset, user_ptr);
    return xfer_call(&a, PTL_CT_NONE, 0, false);
}

int PtlAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
              ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
              ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
              ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype)
{
    ptl_xfer_args_t a = put_args(RK_ATOMIC, md_handle, local_offset, length, ack_req, target_id,
                                 pt_index, match_bits, remote_offset, user_ptr, hdr_data,
                                 operation, datatype);
    return xfer_call(&a, PTL_CT_NONE, 0, false);
}

static ptl_xfer_args_t fetch_args(int kind, ptl_handle_md_t get_md, ptl_size_t get_off,
                                  ptl_handle_md_t put_md, ptl_size_t put_off, ptl_size_t length,
                                  ptl_process_t target, ptl_pt_index_t pt,
                                  ptl_match_bits_t bits, ptl_size_t roff, void *user_ptr,
                                  ptl_hdr_data_t hdr, const void *operand, ptl_op_t op,
                                  ptl_datatype_t type)
{
    ptl_xfer_args_t a = {.kind = kind, .md = put_md, .get_md = get_md, .local_offset = put_off,
                         .local_get_offset = get_off, .length = length, .target = target,
                         .pt_index = pt, .match_bits = bits, .remote_offset = roff,
                         .user_ptr = user_ptr, .hdr_data = hdr, .op = op, .type = type};
    size_t esz = ptl_atom_size(type);
    if (operand && esz && esz <= sizeof a.operand) memcpy(a.operand, operand, esz);
    return a;
}

int PtlFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                   ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset, ptl_size_t length,
                   ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                   ptl_size_t remote_offset, void *user_ptr, ptl_hdr_data_t hdr_data,
                   ptl_op_t operation, ptl_datatype_t datatype)
{
    ptl_xfer_args_t a = fetch_args(RK_FETCH, get_md_handle, local_get_offset, put_md_handle,
                                   local_put_offset, length, target_id, pt_index, match_bits,
                                   remote_offset, user_ptr, hdr_data, NULL, operation, datatype);
    return xfer_call(&a, PTL_CT_NONE, 0, false);
}

int PtlSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
            ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset, ptl_size_t length,
            ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
            ptl_size_t remote_offset, void *user_ptr, ptl_hdr_data_t hdr_data,
            const void *operand, ptl_op_t operation, ptl_datatype_t datatype)
{
    ptl_xfer_args_t a = fetch_args(RK_SWAP, get_md_handle, local_get_offset, put_md_handle,
                                   local_put_offset, length, target_id, pt_index, match_bits,
                                   remote_offset, user_ptr, hdr_data, operand, operation,
                                   datatype);
    return xfer_call(&a, PTL_CT_NONE, 0, false);
}

int PtlAtomicSync(void)
{
    PTL_CHECK_INIT();
    /* atomics are applied under the engine lock: taking it orders them */
    PTL_LOCK();
    PTL_UNLOCK();
    return PTL_OK;
}

int PtlTriggeredPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                    ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
                    ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
                    ptl_hdr_data_t hdr_data, ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
    ptl_xfer_args_t a = put_args(RK_PUT, md_handle, local_offset, length, ack_req, target_id,
                                 pt_index, match_bits, remote_offset, user_ptr, hdr_data, 0, 0);
    return xfer_call(&a, trig_ct_handle, threshold, true);
}

int PtlTriggeredGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                    ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                    ptl_size_t remote_offset, void *user_ptr, ptl_handle_ct_t trig_ct_handle,
                    ptl_size_t threshold)
{
    ptl_xfer_args_t a = get_args(md_handle, local_offset, length, target_id, pt_index,
                                 match_bits, remote_offset, user_ptr);
    return xfer_call(&a, trig_ct_handle, threshold, true);
}

int PtlTriggeredAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                       ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
                       ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
                       ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype,
                       ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
    ptl_xfer_args_t a = put_args(RK_ATOMIC, md_handle, local_offset, length, ack_req, target_id,
                                 pt_index, match_bits, remote_offset, user_ptr, hdr_data,
                                 operation, datatype);
    return xfer_call(&a, trig_ct_handle, threshold, true);
}

int PtlTriggeredFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                            ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset,
                            ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
                            ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
                            ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype,
                            ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
    ptl_xfer_args_t a = fetch_args(RK_FETCH, get_md_handle, local_get_offset, put_md_handle,
                                   local_put_offset, length, target_id, pt_index, match_bits,
                                   remote_offset, user_ptr, hdr_data, NULL, operation, datatype);
    return xfer_call(&a, trig_ct_handle, threshold, true);
}

int PtlTriggeredSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                     ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset, ptl_size_t length,
                     ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                     ptl_size_t remote_offset, void *user_ptr, ptl_hdr_data_t hdr_data,
                     const void *operand, ptl_op_t operation, ptl_datatype_t datatype,
                     ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
    ptl_xfer_args_t a = fetch_args(RK_SWAP, get_md_handle, local_get_offset, put_md_handle,
                                   local_put_offset, length, target_id, pt_index, match_bits,
                                   remote_offset, user_ptr, hdr_data, operand, operation,
                                   datatype);
    return xfer_call(&a, trig_ct_handle, threshold, true);
}
