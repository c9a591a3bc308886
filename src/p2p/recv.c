/* The receiver side.  A receive is a use-once ME on the priority list over
 * the user buffer: Portals does MPI matching (in order, oldest unexpected
 * header first, ANY_SOURCE as PTL_RANK_ANY, ANY_TAG as ignore bits on the
 * tag) and truncation (an ME never takes more than its length; the header
 * says what was sent).  What happens on a match depends on the kind of the
 * message (see send.c).
 *
 * A specific receive larger than the eager limit announces itself with a
 * RECEIVER_READY (zero-byte put to the sender's PT 11, match bits = context
 * and tag, hdr_data = the receive's number among receives for that source,
 * context and tag), unless a wildcard receive is still unresolved: its
 * eventual source and tag would shift the numbers (paper 003 §4.1). */
#include "p2p/p2p_int.h"
#include "util/trace.h"
#include "util/log.h"

#include <string.h>

static size_t sent_size(const ptl_event_t *ev)
{
    return p2p_kind(ev->match_bits) == KIND_EAGER ? (size_t)ev->rlength
                                                  : (size_t)(ev->hdr_data & RV_LEN_MASK);
}

static void receiver_ready(p2p_req_t *r)
{
    ptl_process_t to = {.rank = (ptl_rank_t)r->src};
    int rc = PtlPut(P.md, 0, 0, PTL_NO_ACK_REQ, to, P2P_RR_PT, p2p_mbits(0, r->ctx, r->tag), 0,
                    NULL, (ptl_hdr_data_t)r->seq);
    if (rc == PTL_OK) P.stats.rr_sent++;
    SL_TRACE('i', "p2p", "RECEIVER_READY", 0, "\"peer\":%u,\"tag\":%d", to.rank, r->tag);
}

static ptl_me_t recv_me(void *buf, size_t len, int src, int tag, unsigned ctx, unsigned opts)
{
    ptl_me_t me = {.start = buf, .length = len, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                   .options = opts,
                   .match_id = {.rank = src == P2P_ANY_SOURCE ? PTL_RANK_ANY : (ptl_rank_t)src},
                   .match_bits = p2p_mbits(0, ctx, tag == P2P_ANY_TAG ? 0 : tag),
                   .ignore_bits = MB_KIND_MASK | MB_RESERVED_MASK |
                                  (tag == P2P_ANY_TAG ? MB_TAG_MASK : 0)};
    return me;
}

static bool recv_args_ok(int src, int tag, unsigned ctx)
{
    return P.up && (src == P2P_ANY_SOURCE || (src >= 0 && src < P.size)) &&
           (tag == P2P_ANY_TAG || tag >= 0) && ctx <= P2P_CTX_MAX;
}

sl_status_t p2p_recv_append(p2p_req_t *r)
{
    ptl_me_t me = recv_me(r->buf, r->len, r->src, r->tag, r->ctx,
                          PTL_ME_OP_PUT | PTL_ME_USE_ONCE | PTL_ME_EVENT_LINK_DISABLE |
                              PTL_ME_EVENT_UNLINK_DISABLE);
    return p2p_ptl_status(PtlMEAppend(P.ni, P2P_PT, &me, PTL_PRIORITY_LIST, r, &r->me));
}

sl_status_t p2p_irecv(void *buf, size_t len, int src, int tag, unsigned ctx, p2p_req_t **out)
{
    if (!out || (len && !buf) || !recv_args_ok(src, tag, ctx)) return SL_ERR_INVALID;
    p2p_mt_gate_wait(); /* another thread's matched probe claims its message first */
    p2p_req_t *r = p2p_req_new(RQ_RECV, buf, len);
    if (!r) return SL_ERR_NOMEM;
    r->src = src;
    r->tag = tag;
    r->ctx = ctx;
    r->wild = src == P2P_ANY_SOURCE || tag == P2P_ANY_TAG;
    if (r->wild) P.wild_pending++;
    else r->seq = p2p_seq_recv(src, ctx, tag, len);
    /* a short message waiting here is older than any the engine holds
     * from its sender (short.c) */
    if (p2p_short_recv(r) || p2p_short_defer(r)) {
        *out = r;
        return SL_OK;
    }
    /* receives held back by the short path that r must not overtake go first */
    p2p_short_flush_for(r);
    sl_status_t st = p2p_recv_append(r);
    if (st != SL_OK) {
        if (r->wild) P.wild_pending--;
        else p2p_seq_unrecv(src, ctx, tag, len, r->seq);
        p2p_req_put(r);
        return st;
    }
    p2p_short_post(r);
    if (len > P2P_ONE_COPY_MIN) { /* traffic may come both ways: send.c's send_eager */
        r->mid = true;
        P.mid_recvs++;
    }
    if (len > P.eager_limit) {
        /* a rendezvous message already here starts its pull now, so that
         * the engine moves it while the application computes after
         * MPI_Irecv; one that matched needs no RECEIVER_READY */
        p2p_progress_posting();
        if (!r->wild && !r->matched && P.wild_pending == 0 && p2p_announcing()) receiver_ready(r);
    }
    *out = r;
    return SL_OK;
}

/* Traditional rendezvous: expose the buffer and answer CTS. */
static void clear_to_send(p2p_req_t *r, const ptl_event_t *ev)
{
    unsigned snonce = RV_HDR_NONCE(ev->hdr_data);
    if (p2p_nonce_get(r) >= 0) {
        ptl_me_t me = {.start = r->buf, .length = r->len, .ct_handle = PTL_CT_NONE,
                       .uid = PTL_UID_ANY,
                       .options = PTL_ME_OP_PUT | PTL_ME_USE_ONCE | PTL_ME_EVENT_LINK_DISABLE |
                                  PTL_ME_EVENT_UNLINK_DISABLE,
                       .match_id = ev->initiator, .match_bits = r->rv_nonce};
        if (PtlMEAppend(P.ni, P2P_RECV_PT, &me, PTL_PRIORITY_LIST, r, &r->rv_me) == PTL_OK) {
            p2p_notify(ev->initiator,
                       NT_CTS | (ptl_hdr_data_t)r->rv_nonce << RV_NONCE_BITS | snonce);
            return;
        }
        p2p_nonce_drop(r);
    }
    /* out of nonces or entries: the sender waits for a CTS that never comes */
    sl_log_error("p2p: cannot expose a receive buffer for rank %u's rendezvous",
                 ev->initiator.rank);
    r->st.error = SL_ERR_NOMEM;
    p2p_req_done(r);
}

void p2p_recv_resolve(p2p_req_t *r, int src, int tag, size_t sent)
{
    r->matched = true;
    r->st.source = src;
    r->st.tag = tag;
    r->st.sent = sent;
    r->st.bytes = sent < r->len ? sent : r->len;
    r->st.error = sent > r->len ? SL_ERR_TRUNCATE : SL_OK;
    if (r->wild) { /* resolved: count it for its actual source and tag */
        P.wild_pending--;
        (void)p2p_seq_recv(src, r->ctx, tag, r->len);
    }
}

/* The message for receive r has matched (PUT into its buffer, or
 * PUT_OVERFLOW when it had arrived first). */
void p2p_recv_matched(p2p_req_t *r, const ptl_event_t *ev)
{
    unsigned kind = p2p_kind(ev->match_bits);
    size_t sent = sent_size(ev);
    size_t have = ev->mlength < r->len ? (size_t)ev->mlength : r->len;
    int src = (int)ev->initiator.rank;
    p2p_short_unpost(r);
    p2p_short_matched(src);
    p2p_recv_resolve(r, src, (int)(uint32_t)(ev->match_bits & MB_TAG_MASK), sent);
    if (ev->type == PTL_EVENT_PUT_OVERFLOW && have) memcpy(r->buf, ev->start, have);
    unsigned nonce = RV_HDR_NONCE(ev->hdr_data);
    if (ev->ni_fail_type != PTL_NI_OK) { /* the delivery failed (e.g. a bad copy) */
        sl_log_error("p2p: message from rank %d failed to arrive (%d)", r->st.source,
                     (int)ev->ni_fail_type);
        r->st.error = SL_ERR_PROTO;
    }
    switch (kind) {
    case KIND_RNDV: p2p_pull_start(r, ev->initiator, nonce, have, r->st.bytes); return;
    case KIND_HYBRID: /* the copy's counter releases it: FIN only if we read less */
        r->rv_quiet = r->st.bytes == sent;
        p2p_pull_start(r, ev->initiator, nonce, 0, r->st.bytes);
        return;
    case KIND_RDATA:
        if (ev->type == PTL_EVENT_PUT_OVERFLOW) /* its receive had gone: pull it */
            p2p_pull_start(r, ev->initiator, nonce, 0, r->st.bytes);
        else
            p2p_req_done(r); /* the data is in place; the sender has its ack */
        return;
    case KIND_RTS: clear_to_send(r, ev); return;
    default:
        if (have < r->st.bytes) { /* never: bounces do not truncate */
            sl_log_error("p2p: message from rank %d arrived with %zu of %zu bytes",
                         r->st.source, have, r->st.bytes);
            r->st.error = SL_ERR_PROTO;
        }
        p2p_req_done(r);
        if (ev->hdr_data) p2p_notify(ev->initiator, ev->hdr_data); /* synchronous: matched */
    }
}

/* Traditional rendezvous: the data has been written into the buffer. */
void p2p_recv_data(p2p_req_t *r, const ptl_event_t *ev)
{
    p2p_nonce_drop(r);
    if (ev->ni_fail_type != PTL_NI_OK) r->st.error = SL_ERR_PROTO;
    p2p_req_done(r);
}

void p2p_probe_done(p2p_req_t *r, const ptl_event_t *ev)
{
    r->st.error = ev->ni_fail_type == PTL_NI_OK ? SL_OK : SL_ERR_NOTFOUND;
    if (r->st.error == SL_OK) {
        r->st.source = (int)ev->initiator.rank;
        r->st.tag = (int)(uint32_t)(ev->match_bits & MB_TAG_MASK);
        r->st.sent = sent_size(ev);
    }
    p2p_req_done(r);
}

bool p2p_cancel(p2p_req_t *r)
{
    /* A use-once receive's ME handle dies the moment it matches, before the
     * host sees the event; a stale handle could name another entry later.
     * So handle pending events first (the engine queues the match event in
     * the same locked step that frees the handle, and only this thread
     * appends entries): a receive that matched is then known as such.
     * (With threads, while another thread sleeps in the engine it may hold
     * that event unhandled; the unlink then fails on the dead handle, which
     * the engine reuses only after its whole free queue has gone by.) */
    if (r->kind != RQ_RECV || r->done) return false;
    p2p_progress();
    if (r->matched || r->done) return false;
    if (!p2p_short_unpost(r) && PtlMEUnlink(r->me) != PTL_OK) return false;
    if (r->wild) P.wild_pending--;
    else p2p_seq_unrecv(r->src, r->ctx, r->tag, r->len, r->seq);
    r->st.cancelled = true;
    p2p_req_done(r);
    /* with threads, the one asleep in the engine may be waiting for r:
     * an empty notice to ourselves wakes it (no event would) */
    p2p_wake_sleeper();
    return true;
}

bool p2p_iprobe(int src, int tag, unsigned ctx, p2p_status_t *st)
{
    if (!recv_args_ok(src, tag, ctx)) return false;
    p2p_progress(); /* messages already in our mailbox become unexpected headers */
    if (p2p_short_probe(src, tag, ctx, st)) return true; /* older than the engine's */
    p2p_req_t probe = {.kind = RQ_PROBE};
    ptl_me_t me = recv_me(NULL, 0, src, tag, ctx, PTL_ME_OP_PUT | PTL_ME_USE_ONCE);
    if (PtlMESearch(P.ni, P2P_PT, &me, PTL_SEARCH_ONLY, &probe) != PTL_OK) return false;
    if (!p2p_wait_search(&probe) || probe.st.error != SL_OK) return false;
    if (st) *st = probe.st;
    return true;
}

sl_status_t p2p_probe(int src, int tag, unsigned ctx, p2p_status_t *st)
{
    if (!recv_args_ok(src, tag, ctx)) return SL_ERR_INVALID;
    /* sleep in the engine until something happens, then look again */
    while (!p2p_iprobe(src, tag, ctx, st)) {
        sl_status_t s = p2p_wait_progress(10);
        if (s != SL_OK) return s;
    }
    return SL_OK;
}
