/* The receiver-driven chunked pull (paper 000 §3, RDRP): after the match,
 * the receiver fetches the rest of the message from the sender's exposed
 * buffer with gets of rdrp_chunk bytes, at most rdrp_inflight outstanding;
 * each reply starts the next get, so the transfer runs at the pace of the
 * slowest of sender, path and receiver, with at most inflight x chunk
 * bytes in flight.  FIN tells the sender its buffer has been read; not
 * after reading a whole HYBRID copy (rv_quiet), whose counter tells it,
 * unless a get failed: the counter then stays short for good (a get that
 * fails, at the target or before it left, is never counted as read there),
 * so FIN, sent once every get has completed, releases the copy instead;
 * the two ways still never both fire.
 *
 * Two ways to chain the gets:
 *  - triggered (default, SLUICE_RDRP_TRIGGERED=1; DESIGN.md §4): the pull
 *    gets its own MD over the receive buffer with a counter of replies.
 *    The first `inflight` gets are issued at once, get c+i is a triggered
 *    get at threshold i on that counter, and FIN is a triggered put at
 *    threshold n (all chunks replied; for a whole HYBRID copy an empty
 *    notice to ourselves instead).  The engine then runs the whole pull
 *    with no host involvement (its progress thread while the application
 *    computes); that put's SEND event completes the receive.  Success events
 *    are off; a failed get still counts (triggers fire on success +
 *    failure) and its failure event marks the receive in error.
 *  - host-chained (SLUICE_RDRP_TRIGGERED=0, or when the engine is out of
 *    MDs/counters/triggered slots): each REPLY event issues the next get.
 *
 * SLUICE_SINK_SLOWDOWN=k emulates a receiver that drains data k times
 * slower than it arrives: after each chunk it stays busy k-1 times as long
 * as the first chunk of the pull took to come (measured before any
 * draining, so the pace does not feed back on itself), then asks for more
 * (an experiment knob, bench/rdrp_sweep.sh; host-chained pulls only). */
#include "p2p/p2p_int.h"
#include "util/log.h"

#include "util/sys.h"
#include "util/trace.h"

#include <string.h>

static void pump(p2p_req_t *r)
{
    while (r->rv_inflight < P.rdrp_inflight && r->rv_next < r->rv_end) {
        size_t n = r->rv_end - r->rv_next < P.rdrp_chunk ? r->rv_end - r->rv_next : P.rdrp_chunk;
        int rc = PtlGet(P.md, (ptl_size_t)(uintptr_t)r->buf + r->rv_next, n, r->rv_peer,
                        P2P_RNDV_PT, r->rv_nonce, r->rv_next, r);
        if (rc != PTL_OK) {
            sl_log_error("p2p: rendezvous get from rank %u failed (%d)", r->rv_peer.rank, rc);
            r->st.error = SL_ERR_PROTO;
            r->rv_failed = true;
            r->rv_end = r->rv_next; /* stop; the FIN still releases the sender */
            break;
        }
        r->rv_next += n;
        r->rv_inflight++;
        if (r->rv_inflight > P.stats.pull_max_inflight) P.stats.pull_max_inflight = r->rv_inflight;
    }
    if (r->rv_inflight == 0 && r->rv_next >= r->rv_end) {
        /* never both FIN and a full count: the sender would release the
         * copy twice, the second time under a nonce maybe reused (a failed
         * get keeps the count short, see the top) */
        if (!r->rv_quiet || r->rv_failed) p2p_notify(r->rv_peer, NT_FIN | r->rv_nonce);
        SL_TRACE('e', "p2p", "pull", r->rv_nonce, NULL);
        p2p_req_done(r);
    }
}

/* Chunk i of a pull: its offset and length. */
static size_t chunk_at(const p2p_req_t *r, size_t i, size_t *len)
{
    size_t off = r->rv_next + i * P.rdrp_chunk;
    *len = r->rv_end - off < P.rdrp_chunk ? r->rv_end - off : P.rdrp_chunk;
    return off;
}

static void trig_release(p2p_req_t *r)
{
    PtlMDRelease(r->rv_md);
    PtlCTFree(r->rv_ct);
    r->rv_trig = false;
}

/* Set the whole pull up as triggered operations; false (nothing started)
 * when the engine has no room for it. */
static bool trig_start(p2p_req_t *r)
{
    size_t n = (r->rv_end - r->rv_next + P.rdrp_chunk - 1) / P.rdrp_chunk;
    size_t c = n < P.rdrp_inflight ? n : P.rdrp_inflight;
    /* each triggered get is an engine record set up under its lock: a huge
     * message in tiny chunks goes host-chained instead */
    if (n - c > P2P_TRIG_MAX) return false;
    ptl_md_t md = {.start = r->buf, .length = r->rv_end,
                   .options = PTL_MD_EVENT_CT_REPLY | PTL_MD_EVENT_SUCCESS_DISABLE,
                   .eq_handle = P.eq};
    if (PtlCTAlloc(P.ni, &r->rv_ct) != PTL_OK) return false;
    md.ct_handle = r->rv_ct;
    if (PtlMDBind(P.ni, &md, &r->rv_md) != PTL_OK) {
        PtlCTFree(r->rv_ct);
        return false;
    }
    r->rv_trig = true;
    /* the triggered part first: nothing fires before the direct gets reply */
    bool ok = true;
    for (size_t i = c; ok && i < n; i++) {
        size_t len, off = chunk_at(r, i, &len);
        ok = PtlTriggeredGet(r->rv_md, off, len, r->rv_peer, P2P_RNDV_PT, r->rv_nonce, off, r,
                             r->rv_ct, i - c + 1) == PTL_OK;
    }
    /* the last step's SEND completes us: FIN to the sender, or (a whole
     * HYBRID copy, whose counter releases it) an empty notice to ourselves */
    ptl_process_t to = r->rv_quiet ? (ptl_process_t){.rank = (ptl_rank_t)P.rank} : r->rv_peer;
    ok = ok && PtlTriggeredPut(P.md, 0, 0, PTL_NO_ACK_REQ, to, P2P_SYNC_PT, 0, 0, r,
                               r->rv_quiet ? 0 : NT_FIN | r->rv_nonce, r->rv_ct, n) == PTL_OK;
    if (!ok) {
        PtlCTCancelTriggered(r->rv_ct);
        trig_release(r);
        return false;
    }
    r->waits = 1; /* the FIN's SEND */
    for (size_t i = 0; i < c; i++) {
        size_t len, off = chunk_at(r, i, &len);
        if (PtlGet(r->rv_md, off, len, r->rv_peer, P2P_RNDV_PT, r->rv_nonce, off, r) != PTL_OK) {
            /* count it as failed, so that the chain and the FIN still run */
            r->st.error = SL_ERR_PROTO;
            PtlCTInc(r->rv_ct, (ptl_ct_event_t){.success = 0, .failure = 1});
        }
    }
    return true;
}

void p2p_pull_start(p2p_req_t *r, ptl_process_t from, unsigned nonce, size_t have, size_t end)
{
    r->rv_peer = from;
    r->rv_nonce = nonce;
    r->rv_next = have;
    r->rv_end = end;
    r->rv_inflight = 0;
    r->rv_tau = 0;
    r->rv_t0 = P.sink_slowdown > 1 ? sl_now_ns() : 0;
    SL_TRACE('b', "p2p", "pull", nonce, "\"peer\":%u,\"bytes\":%zu,\"triggered\":%d",
             from.rank, end - have, P.rdrp_triggered && P.sink_slowdown <= 1);
    if (P.rdrp_triggered && P.sink_slowdown <= 1 && end > have && trig_start(r)) {
        P.stats.pulls_triggered++;
        return;
    }
    P.stats.pulls_host += end > have;
    pump(r);
}

/* The last step of a triggered pull went out: every get has completed.
 * Failures are read from the counter, not from their events, which the
 * engine may post after this one's.  A whole HYBRID copy with a failed get
 * gets its FIN now (see the top). */
void p2p_pull_fin_sent(p2p_req_t *r)
{
    ptl_ct_event_t ct;
    if (PtlCTGet(r->rv_ct, &ct) == PTL_OK && ct.failure > 0) {
        r->st.error = SL_ERR_PROTO;
        r->rv_failed = true;
        if (r->rv_quiet) p2p_notify(r->rv_peer, NT_FIN | r->rv_nonce);
    }
    trig_release(r);
    SL_TRACE('e', "p2p", "pull", r->rv_nonce, NULL);
    p2p_req_done(r);
}

/* The emulated slow sink: busy (k-1) x the first chunk's time. */
static void drain(p2p_req_t *r)
{
    uint64_t now = sl_now_ns();
    if (!r->rv_tau) r->rv_tau = now - r->rv_t0;
    uint64_t until = now + (P.sink_slowdown - 1) * r->rv_tau;
    while (sl_now_ns() < until) sl_cpu_relax();
}

void p2p_pull_reply(p2p_req_t *r, const ptl_event_t *ev)
{
    if (r->rv_trig) { /* only failures report: the chain goes on by itself */
        r->st.error = SL_ERR_PROTO;
        return;
    }
    r->rv_inflight--;
    if (ev->ni_fail_type != PTL_NI_OK) {
        r->st.error = SL_ERR_PROTO;
        r->rv_failed = true;
        r->rv_end = r->rv_next;
    } else if (P.sink_slowdown > 1) {
        drain(r);
    }
    pump(r);
}
