/* The sender side: protocol choice (paper 003 Table 1, DESIGN.md §4) and
 * each protocol's first steps.
 *
 *   EAGER      one put of the whole message (kind EAGER), no ack; done when
 *              PtlPut returns (up to the volatile size) or at SEND.
 *   SEND_RNDV  the buffer is exposed to gets (PT 10, match bits = nonce,
 *              match id = receiver); the first rdrp_first bytes go with a
 *              put of kind RNDV, hdr_data = nonce << 40 | length; the
 *              receiver pulls the rest and sends FIN, which completes us.
 *   HYBRID     paper 003's hybrid: the message is copied to a library
 *              buffer, exposed, and announced by a header-only put of kind
 *              HYBRID (SENDER_READY); the send completes at once and the
 *              receiver pulls everything (nothing lands in its bounce
 *              buffers).  The notice that releases the copy rides on the
 *              receiver's gets themselves: the exposed entry counts the
 *              bytes read, and the copy goes when the count reaches the
 *              length (p2p_hybrid_reap, run as housekeeping); no FIN, only
 *              a receive that truncates sends one.  Without a counter to
 *              spare the put is of kind RNDV and FIN releases the copy.
 *              At most P2P_HYBRID_BUDGET bytes of copies at a time; beyond
 *              that, SEND_RNDV.
 *   RECV_RNDV  a RECEIVER_READY for exactly this send is stored: the whole
 *              message goes in one put of kind RDATA with a full ack.  It
 *              lands in the posted receive (ack from the priority list:
 *              done, no FIN).  Should that receive be gone, the zero-byte
 *              catcher takes the header, and the receive that matches it
 *              later pulls the message like a SEND_RNDV (the buffer is
 *              exposed beforehand for that case), then FIN.
 *   TRADITIONAL the sender-initiated rendezvous: RTS (zero bytes, kind RTS),
 *              the receiver answers CTS with a buffer it exposed, and the
 *              sender writes the data when it next makes progress. */
#include "p2p/p2p_int.h"
#include "util/trace.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

/* Forced protocols (SLUICE_PROTOCOL) apply over the eager limit, as the
 * automatic choice does; eager forces EAGER for every size.  A test that
 * wants every message on one rendezvous protocol sets the limit to 0. */
static p2p_proto_t choose(size_t len, bool sync, bool rr_stored, int dst)
{
    if (P.proto == P2P_PROTO_EAGER || len <= P.eager_limit) return P2P_PROTO_EAGER;
    switch (P.proto) {
    case P2P_PROTO_AUTO:
        if (rr_stored) return P2P_PROTO_RECV_RNDV;
        /* HYBRID completes before any match: not a synchronous send */
        if (len <= P.hybrid_limit && !sync) return P2P_PROTO_HYBRID;
        /* both at once: the receive will be there (seq.c) */
        return p2p_seq_together(dst) ? P2P_PROTO_RECV_RNDV : P2P_PROTO_SEND_RNDV;
    case P2P_PROTO_HYBRID: return sync ? P2P_PROTO_SEND_RNDV : P2P_PROTO_HYBRID;
    default: return P.proto;
    }
}

static int put_md(ptl_handle_md_t md, p2p_req_t *r, const void *from, size_t len,
                  ptl_ack_req_t ack, int dst, ptl_match_bits_t mb, ptl_hdr_data_t hdr)
{
    ptl_process_t to = {.rank = (ptl_rank_t)dst};
    int rc = PtlPut(md, (ptl_size_t)(uintptr_t)from, len, ack, to, P2P_PT, mb, 0, r, hdr);
    if (rc == PTL_OK && ack == PTL_CT_ACK_REQ) P.sends++;
    return rc;
}

static int put(p2p_req_t *r, const void *from, size_t len, ptl_ack_req_t ack, int dst,
               ptl_match_bits_t mb, ptl_hdr_data_t hdr)
{
    return put_md(P.md, r, from, len, ack, dst, mb, hdr);
}

/* Expose r's buffer to dst's gets under a fresh nonce; with a counter ct,
 * it counts the bytes read. */
static sl_status_t expose_counted(p2p_req_t *r, int dst, ptl_handle_ct_t ct)
{
    if (p2p_nonce_get(r) < 0) return SL_ERR_NOMEM;
    unsigned opt = PTL_ME_OP_GET | PTL_ME_EVENT_COMM_DISABLE | PTL_ME_EVENT_LINK_DISABLE;
    if (!PtlHandleIsEqual(ct, PTL_CT_NONE)) opt |= PTL_ME_EVENT_CT_COMM | PTL_ME_EVENT_CT_BYTES;
    ptl_me_t me = {.start = r->buf, .length = r->len, .ct_handle = ct,
                   .uid = PTL_UID_ANY,
                   .options = opt,
                   .match_id = {.rank = (ptl_rank_t)dst},
                   .match_bits = (ptl_match_bits_t)r->rv_nonce};
    int rc = PtlMEAppend(P.ni, P2P_RNDV_PT, &me, PTL_PRIORITY_LIST, r, &r->me);
    if (rc != PTL_OK) p2p_nonce_drop(r);
    return p2p_ptl_status(rc);
}

static sl_status_t expose(p2p_req_t *r, int dst)
{
    return expose_counted(r, dst, PTL_CT_NONE);
}

static void unexpose(p2p_req_t *r)
{
    p2p_nonce_drop(r);
    if (PtlMEUnlink(r->me) != PTL_OK) sl_log_error("p2p: exposed buffer would not unlink");
}

static ptl_hdr_data_t rv_hdr(const p2p_req_t *r)
{
    return (ptl_hdr_data_t)r->rv_nonce << RV_LEN_BITS | (ptl_hdr_data_t)r->len;
}

/* SEND_RNDV: expose, put the first `first` bytes. */
static sl_status_t send_rndv(p2p_req_t *r, int dst, unsigned ctx, int tag, size_t first)
{
    sl_status_t st = expose(r, dst);
    if (st != SL_OK) return st;
    r->waits = 2; /* SEND, FIN */
    if (first > r->len) first = r->len;
    int rc = put(r, r->buf, first, PTL_NO_ACK_REQ, dst, p2p_mbits(KIND_RNDV, ctx, tag), rv_hdr(r));
    if (rc != PTL_OK) unexpose(r);
    return p2p_ptl_status(rc);
}

/* The library side of HYBRID: the copy h, exposed with a byte counter when
 * the engine has one to spare (kind HYBRID), else as a header-only RNDV
 * that FIN releases. */
static sl_status_t send_copy(p2p_req_t *h, int dst, unsigned ctx, int tag)
{
    if (PtlCTAlloc(P.ni, &h->rv_ct) != PTL_OK) h->rv_ct = PTL_CT_NONE;
    bool counted = !PtlHandleIsEqual(h->rv_ct, PTL_CT_NONE);
    sl_status_t st = expose_counted(h, dst, h->rv_ct);
    int rc = PTL_OK;
    if (st == SL_OK) {
        h->waits = 2; /* SEND, and the counter or FIN */
        rc = put(h, h->buf, 0, PTL_NO_ACK_REQ, dst,
                 p2p_mbits(counted ? KIND_HYBRID : KIND_RNDV, ctx, tag), rv_hdr(h));
        if (rc != PTL_OK) unexpose(h);
        st = p2p_ptl_status(rc);
    }
    if (st != SL_OK && counted) PtlCTFree(h->rv_ct);
    if (st == SL_OK && counted) sl_list_push_tail(&P.hybrids, &h->hlink);
    return st;
}

/* HYBRID copies are reused.  Their sizes (64-128 KiB by default) are ones
 * malloc serves with mmap: each fresh copy cost a mapping, 32 page faults
 * with zeroing, and an unmap, and windowed 128 KiB sends ran at 0.6-2 GB/s
 * against 7.5 with HYBRID off.  Capacities are len rounded up to 64 KiB,
 * so a released copy fits every later message of its class; the cache
 * keeps at most P2P_COPY_CACHE copies and P2P_COPY_CACHE_BYTES bytes. */
static size_t copy_cap(size_t len)
{
    return len ? (len + 0xffff) & ~(size_t)0xffff : 0x10000;
}

void *p2p_copy_get(size_t len)
{
    size_t cap = copy_cap(len);
    for (unsigned i = 0; i < P.n_copies; i++)
        if (P.copies[i].cap == cap) {
            void *buf = P.copies[i].buf;
            P.copies[i] = P.copies[--P.n_copies];
            P.copy_bytes -= cap;
            return buf;
        }
    return malloc(cap);
}

void p2p_copy_put(void *buf, size_t len)
{
    size_t cap = copy_cap(len);
    if (!buf) return;
    if (P.n_copies == P2P_COPY_CACHE || P.copy_bytes + cap > P2P_COPY_CACHE_BYTES) {
        free(buf);
        return;
    }
    P.copies[P.n_copies++] = (p2p_copy_t){.buf = buf, .cap = cap};
    P.copy_bytes += cap;
}

void p2p_copy_fini(void)
{
    while (P.n_copies) free(P.copies[--P.n_copies].buf);
    P.copy_bytes = 0;
}

static sl_status_t send_hybrid(p2p_req_t *r, int dst, unsigned ctx, int tag)
{
    void *copy = p2p_copy_get(r->len);
    p2p_req_t *h = copy ? p2p_req_new(RQ_HYBRID, copy, r->len) : NULL;
    if (!h) {
        p2p_copy_put(copy, r->len);
        return SL_ERR_NOMEM;
    }
    memcpy(copy, r->buf, r->len);
    sl_status_t st = send_copy(h, dst, ctx, tag);
    if (st != SL_OK) {
        p2p_copy_put(copy, r->len);
        p2p_req_put(h);
        return st;
    }
    P.hybrid_pending++;
    P.hybrid_bytes += r->len;
    p2p_req_done(r); /* the user's buffer is free already */
    return SL_OK;
}

static sl_status_t send_rdata(p2p_req_t *r, int dst, unsigned ctx, int tag)
{
    sl_status_t st = expose(r, dst); /* only read if the receive has gone */
    if (st != SL_OK) return st;
    r->waits = 2; /* SEND, and the ack from the receive (or FIN after a pull) */
    int rc = put(r, r->buf, r->len, PTL_ACK_REQ, dst, p2p_mbits(KIND_RDATA, ctx, tag), rv_hdr(r));
    if (rc != PTL_OK) unexpose(r);
    return p2p_ptl_status(rc);
}

static sl_status_t send_rts(p2p_req_t *r, int dst, unsigned ctx, int tag)
{
    if (p2p_nonce_get(r) < 0) return SL_ERR_NOMEM;
    r->waits = 3; /* SEND of the RTS, CTS, SEND of the data */
    int rc = put(r, r->buf, 0, PTL_NO_ACK_REQ, dst, p2p_mbits(KIND_RTS, ctx, tag), rv_hdr(r));
    if (rc != PTL_OK) p2p_nonce_drop(r);
    return p2p_ptl_status(rc);
}

/* A message of at most volatile_max bytes goes from the volatile MD: its
 * data is in the packet when PtlPut returns and no SEND event comes, so
 * the send is done at once (a synchronous one waits for its notice). */
static sl_status_t send_eager(p2p_req_t *r, int dst, unsigned ctx, int tag, bool sync)
{
    ptl_hdr_data_t hdr = sync ? (ptl_hdr_data_t)(uintptr_t)r : 0;
    ptl_match_bits_t mb = p2p_mbits(KIND_EAGER, ctx, tag);
    if (r->len <= P.volatile_max) {
        ptl_process_t to = {.rank = (ptl_rank_t)dst};
        r->waits = 1;   /* the match notice, if synchronous */
        r->done = !sync;
        return p2p_ptl_status(PtlPut(P.md_v, (ptl_size_t)(uintptr_t)r->buf, r->len,
                                     PTL_NO_ACK_REQ, to, P2P_PT, mb, 0, r, hdr));
    }
    r->waits = sync ? 2 : 1; /* SEND, and the match notice */
    /* Over 8 KiB, the engine streams a put through the target's mailbox
     * when it has room: two copies (ours in, the target's out), cheaper
     * than the target's one cross-memory-attach copy while the target has
     * a CPU free for its part.  With receives of such sizes posted here,
     * traffic comes the other way as well (an exchange, a bidirectional
     * window, all-to-all), every CPU would copy each message twice, and
     * from 32 KiB the target's one copy costs less: a 64 KiB exchange of
     * two ranks took 11.1-19.8 us streamed, 8.2-9.7 by attach (MPICH
     * 7.1-8.1; three alternated rounds); at 16 KiB attach was slower
     * (4.5-5.0 us against 3.4-3.6 in two of them). */
    ptl_handle_md_t md = r->len > P2P_ONE_COPY_MIN && P.mid_recvs ? P.md_1c : P.md;
    return p2p_ptl_status(put_md(md, r, r->buf, r->len, PTL_NO_ACK_REQ, dst, mb, hdr));
}

/* r by a Portals protocol. */
static sl_status_t send_portals(p2p_req_t *r)
{
    int dst = r->dst, tag = r->tag;
    unsigned ctx = r->ctx;
    size_t len = r->len;
    /* absorb RECEIVER_READYs that have come in before looking for one
     * (without serving peers' bulk transfers first: p2p_progress_posting) */
    if (len > P.eager_limit && p2p_announcing()) {
        p2p_posting_begin();
        p2p_progress();
        p2p_rr_drain();
        p2p_posting_end();
    }
    uint32_t seq;
    bool rr = p2p_seq_send(dst, ctx, tag, len, &seq);
    sl_status_t st;
    p2p_proto_t proto = choose(len, r->sync, rr, dst);
    if (proto == P2P_PROTO_HYBRID && P.hybrid_bytes + len > P2P_HYBRID_BUDGET) {
        p2p_hybrid_reap(); /* copies already read make room */
        if (P.hybrid_bytes + len > P2P_HYBRID_BUDGET)
            proto = P2P_PROTO_SEND_RNDV; /* enough copies held: this one waits */
    }
    SL_TRACE('i', "p2p", p2p_proto_name(proto), 0, "\"peer\":%d,\"bytes\":%zu,\"tag\":%d", dst,
             len, tag);
    switch (proto) {
    case P2P_PROTO_EAGER: st = send_eager(r, dst, ctx, tag, r->sync), P.stats.eager++; break;
    case P2P_PROTO_HYBRID: st = send_hybrid(r, dst, ctx, tag), P.stats.hybrid++; break;
    case P2P_PROTO_RECV_RNDV:
        st = send_rdata(r, dst, ctx, tag), P.stats.recv_rndv++;
        P.stats.rr_used += rr;
        P.stats.rdata_direct += !rr;
        break;
    case P2P_PROTO_TRADITIONAL: st = send_rts(r, dst, ctx, tag), P.stats.traditional++; break;
    default: st = send_rndv(r, dst, ctx, tag, P.rdrp_first), P.stats.send_rndv++; break;
    }
    if (st != SL_OK) p2p_seq_unsend(dst, ctx, tag, len); /* it never started: keep the numbers aligned */
    return st;
}

/* Start a send; with lite, a message that goes into the short ring at
 * once gets no request (*out NULL: it is complete). */
static sl_status_t send_start(const void *buf, size_t len, int dst, int tag, unsigned ctx,
                              bool sync, bool lite, p2p_req_t **out)
{
    if (!P.up || !out || (len && !buf) || dst < 0 || dst >= P.size || tag < 0 ||
        ctx > P2P_CTX_MAX || len > RV_LEN_MASK)
        return SL_ERR_INVALID;
    if (P.proto == P2P_PROTO_EAGER && len > P.bounce_size) {
        /* (only forced eager: the eager limit is at most half a bounce
         * buffer) unexpected, it would wait for its receive in the
         * receiver's engine and hold back everything behind it */
        sl_log_error("p2p: a %zu-byte message cannot be sent eagerly (SLUICE_PROTOCOL=eager): "
                     "a bounce buffer holds %zu bytes (SLUICE_BOUNCE_SIZE)",
                     len, P.bounce_size);
        return SL_ERR_CONFIG;
    }
    p2p_req_t *r = NULL;
    if (p2p_short_route(dst, len, sync) == SH_SHORT) {
        if (!lite && !(r = p2p_req_new(RQ_SEND, (void *)buf, len))) return SL_ERR_NOMEM;
        uint32_t seq; /* counted as every send is, for the RECEIVER_READY numbers */
        (void)p2p_seq_send(dst, ctx, tag, len, &seq);
        p2p_short_put(buf, len, dst, tag, ctx);
        P.stats.short_msgs++;
        SL_TRACE('i', "p2p", "short", 0, "\"peer\":%d,\"bytes\":%zu,\"tag\":%d", dst, len,
                 tag);
        if (r) {
            r->dst = dst;
            r->tag = tag;
            r->ctx = ctx;
            p2p_req_done(r);
        }
        *out = r;
        return SL_OK;
    }
    if (!(r = p2p_req_new(RQ_SEND, (void *)buf, len))) return SL_ERR_NOMEM;
    r->dst = dst;
    r->tag = tag;
    r->ctx = ctx;
    r->sync = sync;
    sl_status_t st;
    if ((st = send_portals(r)) == SL_OK) {
        p2p_short_portals_sent(dst);
    } else {
        p2p_req_put(r);
        return st;
    }
    *out = r;
    return SL_OK;
}

sl_status_t p2p_isend(const void *buf, size_t len, int dst, int tag, unsigned ctx,
                      p2p_req_t **out)
{
    return send_start(buf, len, dst, tag, ctx, false, false, out);
}

sl_status_t p2p_isend_lite(const void *buf, size_t len, int dst, int tag, unsigned ctx,
                           p2p_req_t **out)
{
    return send_start(buf, len, dst, tag, ctx, false, true, out);
}

sl_status_t p2p_issend(const void *buf, size_t len, int dst, int tag, unsigned ctx,
                       p2p_req_t **out)
{
    return send_start(buf, len, dst, tag, ctx, true, false, out);
}

/* ---- later steps ---------------------------------------------------------------------------- */

/* The receiver is done with an exposed buffer (FIN, or a HYBRID copy's
 * counter): unlink it and take the step. */
static void exposed_done(p2p_req_t *r)
{
    if (PtlMEUnlink(r->me) != PTL_OK) sl_log_error("p2p: exposed buffer would not unlink");
    if (r->kind == RQ_HYBRID) {
        P.hybrid_bytes -= r->len;
        if (!PtlHandleIsEqual(r->rv_ct, PTL_CT_NONE)) {
            sl_list_remove(&r->hlink);
            PtlCTFree(r->rv_ct);
        }
    }
    p2p_req_event(r);
}

/* FIN: the receiver has read our exposed buffer (or, for a HYBRID copy
 * with a counter, truncated it: the count would never complete). */
void p2p_send_fin(unsigned nonce)
{
    p2p_req_t *r = p2p_nonce_take(nonce);
    if (!r) return;
    if (r->kind == RQ_HYBRID) P.stats.hybrid_by_fin++;
    exposed_done(r);
}

/* A copy whose counter shows every byte read cannot be read again: the
 * receiver reads each byte once and never more than the length. */
void p2p_hybrid_reap(void)
{
    sl_list_t *pos, *tmp;
    sl_list_for_each_safe(pos, tmp, &P.hybrids) {
        p2p_req_t *h = sl_list_entry(pos, p2p_req_t, hlink);
        ptl_ct_event_t ct;
        if (PtlCTGet(h->rv_ct, &ct) != PTL_OK || ct.success < h->len) continue;
        p2p_nonce_drop(h);
        P.stats.hybrid_by_counter++;
        exposed_done(h);
    }
}

/* The ack of a direct (RDATA) put: in the posted receive, or in the catcher. */
void p2p_send_ack(p2p_req_t *r, const ptl_event_t *ev)
{
    if (ev->ni_fail_type != PTL_NI_OK) {
        r->st.error = SL_ERR_PROTO;
        sl_log_error("p2p: direct put to rank %u failed (%d)", ev->initiator.rank,
                     (int)ev->ni_fail_type);
        unexpose(r);
        p2p_req_event(r);
    } else if (ev->ptl_list == PTL_PRIORITY_LIST) {
        p2p_seq_direct_landed(r->dst, true);
        unexpose(r); /* delivered; nobody will read the exposed buffer */
        p2p_req_event(r);
    } else {
        p2p_seq_direct_landed(r->dst, false);
        P.stats.rdata_fallback++; /* the receive pulls it later and sends FIN */
    }
}

/* CTS of the traditional rendezvous: write the data into the buffer the
 * receiver exposed. */
void p2p_send_cts(const ptl_event_t *ev)
{
    p2p_req_t *r = p2p_nonce_take((unsigned)(ev->hdr_data & RV_NONCE_MASK));
    if (!r) return;
    ptl_match_bits_t rnonce = (ev->hdr_data >> RV_NONCE_BITS) & RV_NONCE_MASK;
    int rc = PtlPut(P.md, (ptl_size_t)(uintptr_t)r->buf, r->len, PTL_CT_ACK_REQ, ev->initiator,
                    P2P_RECV_PT, rnonce, 0, r, 0);
    if (rc == PTL_OK) {
        P.sends++;
    } else {
        sl_log_error("p2p: rendezvous data to rank %u failed (%d)", ev->initiator.rank, rc);
        r->st.error = SL_ERR_PROTO;
        p2p_req_event(r); /* no SEND will come */
    }
    p2p_req_event(r);
}
