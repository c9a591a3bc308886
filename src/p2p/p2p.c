/* EAGER point-to-point over Portals 4 (paper 000 §3.3, DESIGN.md §4).
 *
 * Match bits: [63..60 protocol kind][59..48 reserved][47..32 context][31..0
 * tag]; the source is the Portals initiator (logical NI: rank = job rank).
 * A receive is a use-once ME on the priority list over the user buffer:
 * Portals itself does MPI matching (in order, oldest unexpected header
 * first, ANY_SOURCE as PTL_RANK_ANY, ANY_TAG as ignore bits on the tag) and
 * truncation (an ME never takes more than its length; rlength says what
 * was sent).  An unexpected message lands in one of the bounce buffers on
 * the overflow list (locally managed, retired when less than one eager
 * message fits, re-posted on AUTO_FREE) and the later receive copies it out
 * on PTL_EVENT_PUT_OVERFLOW.  One EQ takes every event; user_ptr is the
 * request.  Sends ask for counting acks: a message the peer had to drop (no
 * bounce space) shows as a failure on the ack counter and is reported, never
 * lost silently.
 *
 * Synchronous sends (MPI_Ssend) carry their request's address in hdr_data
 * (0 for the other sends, so matching is unchanged).  The receive that
 * matches such a message (PUT, or PUT_OVERFLOW for one that waited
 * unexpected) echoes the value in a zero-byte put to the sender's sync PT,
 * where one persistent ME takes it; the send completes once both that
 * notice and its own SEND event have come.
 *
 * SEND_RNDV (paper 000 §3, RDRP) for messages over the eager limit: the
 * sender exposes its buffer in a get-only ME on PT 10 (match bits: a 16-bit
 * nonce naming the send, match id: the receiver) and puts the first
 * eager_limit bytes like an eager message, kind RNDV, hdr_data = nonce <<
 * 48 | total length.  The receive that matches it pulls the rest (up to its
 * buffer size) with gets of rdrp_chunk bytes, at most rdrp_inflight
 * outstanding, each reply starting the next; then it sends FIN (a zero-byte
 * put to the sender's sync PT, hdr_data = 1 << 63 | nonce), on which the
 * sender unlinks the ME and completes.  A rendezvous send is therefore
 * synchronous as well.  The gets are issued by the host on each reply;
 * chaining them as triggered gets on the MD counter is the next step. */
#include "p2p/p2p.h"
#include "boot/boot.h"
#include "portals4.h"
#include "util/log.h"
#include "util/param.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MB_TAG_MASK 0xffffffffull
#define MB_CTX_SHIFT 32
#define MB_KIND_SHIFT 60
#define MB_KIND_EAGER 1ull
#define MB_KIND_RNDV 2ull
#define MB_KIND_MASK (0xfull << MB_KIND_SHIFT)
#define MB_RESERVED_MASK (0xfffull << 48)
#define RV_LEN_MASK ((1ull << 48) - 1)
#define RV_FIN (1ull << 63)
#define RV_NONCES 65536
#define P2P_PT 8
#define P2P_SYNC_PT 9 /* matched notices of synchronous sends, FIN of rendezvous */
#define P2P_RNDV_PT 10 /* rendezvous senders' buffers, fetched by gets */
#define P2P_BOUNCES 8 /* linked at start; more are added as they fill */
#define P2P_EQ_SIZE 16384

enum { RQ_SEND = 1, RQ_RECV, RQ_PROBE };

struct p2p_req {
    struct p2p_req *next_free; /* request pool */
    int kind;
    int waits; /* sends: events still due (SEND, and the match notice) */
    bool done;
    p2p_status_t st;
    ptl_handle_me_t me;
    void *buf;
    size_t len;
    /* rendezvous receive: the sender, its nonce, the next offset to get,
     * where to stop, gets in flight; rendezvous send: nonce */
    ptl_process_t rv_peer;
    unsigned rv_nonce, rv_inflight;
    size_t rv_next, rv_end;
};

typedef struct bounce {
    struct bounce *next; /* on the spare list */
    char *mem;
    ptl_handle_me_t me;
} bounce_t;

static struct {
    bool up;
    boot_t *boot;
    int rank, size;
    size_t eager_limit, bounce_size;
    ptl_handle_ni_t ni;
    ptl_handle_eq_t eq;
    ptl_handle_ct_t acks;
    ptl_handle_md_t md;
    ptl_handle_me_t sync_me; /* takes match notices; user_ptr &P.sync_me */
    bounce_t *spare;       /* retired bounce buffers no header points into */
    p2p_req_t *free_reqs;  /* request pool (calls are serialised: no lock) */
    ptl_size_t sends;      /* puts issued: their acks are counted on `acks` */
    size_t rdrp_chunk, rdrp_inflight;
    p2p_req_t **rv_sends;  /* rendezvous sends by nonce (RV_NONCES slots) */
    unsigned rv_next_nonce;
    unsigned progress_calls;
    bounce_t **all;        /* every bounce buffer, to free at the end */
    size_t n_all;
} P;

static void p2p_check_drops(void);

static ptl_match_bits_t mbits(unsigned ctx, int tag)
{
    return MB_KIND_EAGER << MB_KIND_SHIFT | (ptl_match_bits_t)(ctx & P2P_CTX_MAX) << MB_CTX_SHIFT |
           ((ptl_match_bits_t)(uint32_t)tag & MB_TAG_MASK);
}

static sl_status_t ptl_status(int rc)
{
    return rc == PTL_OK ? SL_OK : rc == PTL_NO_SPACE ? SL_ERR_NOMEM : SL_ERR_PROTO;
}

/* ---- bounce buffers for unexpected messages -------------------------------------------- */

static sl_status_t bounce_post(bounce_t *b)
{
    ptl_me_t me = {.start = b->mem, .length = P.bounce_size, .ct_handle = PTL_CT_NONE,
                   .uid = PTL_UID_ANY,
                   .options = PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL | PTL_ME_EVENT_LINK_DISABLE |
                              PTL_ME_EVENT_COMM_DISABLE,
                   .match_id = {.rank = PTL_RANK_ANY}, .match_bits = 0,
                   .ignore_bits = ~(ptl_match_bits_t)0, .min_free = P.eager_limit};
    return ptl_status(PtlMEAppend(P.ni, P2P_PT, &me, PTL_OVERFLOW_LIST, b, &b->me));
}

/* A bounce buffer to link: a spare one, or a new one.  The pool grows with
 * the backlog of unexpected messages, as MPI's unexpected queue does. */
static sl_status_t bounce_add(void)
{
    bounce_t *b = P.spare;
    if (b) {
        P.spare = b->next;
    } else {
        bounce_t **all = realloc(P.all, (P.n_all + 1) * sizeof *all);
        if (!all) return SL_ERR_NOMEM;
        P.all = all;
        if (!(b = calloc(1, sizeof *b)) || !(b->mem = malloc(P.bounce_size))) {
            free(b);
            return SL_ERR_NOMEM;
        }
        P.all[P.n_all++] = b;
    }
    return bounce_post(b);
}

/* ---- set-up ------------------------------------------------------------------------------- */

static sl_status_t p2p_map(void)
{
    ptl_process_t me, *map = calloc((size_t)P.size, sizeof *map);
    char key[32], val[48];
    sl_status_t st = map ? SL_OK : SL_ERR_NOMEM;
    if (st == SL_OK) st = ptl_status(PtlGetPhysId(P.ni, &me));
    if (st == SL_OK) {
        snprintf(key, sizeof key, "p2p-id-%d", P.rank);
        snprintf(val, sizeof val, "%u.%u", me.phys.nid, me.phys.pid);
        st = boot_put(P.boot, key, val);
    }
    if (st == SL_OK) st = boot_fence(P.boot);
    for (int r = 0; st == SL_OK && r < P.size; r++) {
        snprintf(key, sizeof key, "p2p-id-%d", r);
        st = boot_get(P.boot, key, val, sizeof val);
        if (st == SL_OK && sscanf(val, "%u.%u", &map[r].phys.nid, &map[r].phys.pid) != 2)
            st = SL_ERR_PROTO;
    }
    if (st == SL_OK) st = ptl_status(PtlSetMap(P.ni, (ptl_size_t)P.size, map));
    free(map);
    return st;
}

static sl_status_t p2p_objects(void)
{
    ptl_pt_index_t pt;
    if (PtlEQAlloc(P.ni, P2P_EQ_SIZE, &P.eq) != PTL_OK || PtlCTAlloc(P.ni, &P.acks) != PTL_OK ||
        PtlPTAlloc(P.ni, 0, P.eq, P2P_PT, &pt) != PTL_OK)
        return SL_ERR_PROTO;
    /* one MD over all memory: a send's local offset is its buffer address */
    ptl_md_t md = {.start = NULL, .length = PTL_SIZE_MAX, .options = PTL_MD_EVENT_CT_ACK,
                   .eq_handle = P.eq, .ct_handle = P.acks};
    if (PtlMDBind(P.ni, &md, &P.md) != PTL_OK) return SL_ERR_PROTO;
    ptl_me_t sync = {.ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                     .options = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE,
                     .match_id = {.rank = PTL_RANK_ANY}, .ignore_bits = ~(ptl_match_bits_t)0};
    if (PtlPTAlloc(P.ni, 0, P.eq, P2P_RNDV_PT, &pt) != PTL_OK ||
        PtlPTAlloc(P.ni, 0, P.eq, P2P_SYNC_PT, &pt) != PTL_OK ||
        PtlMEAppend(P.ni, P2P_SYNC_PT, &sync, PTL_PRIORITY_LIST, &P.sync_me, &P.sync_me) != PTL_OK)
        return SL_ERR_PROTO;
    for (int i = 0; i < P2P_BOUNCES; i++) {
        sl_status_t st = bounce_add();
        if (st != SL_OK) return st;
    }
    return SL_OK;
}

sl_status_t p2p_init(int *rank, int *size)
{
    long eager, bounce;
    if (P.up) return SL_ERR_BUSY;
    if (sl_param_int(SL_PARAM_EAGER_LIMIT, &eager) || sl_param_int(SL_PARAM_BOUNCE_SIZE, &bounce))
        return SL_ERR_CONFIG;
    if (bounce < 2 * eager) {
        sl_log_error("p2p: SLUICE_BOUNCE_SIZE=%ld must hold at least two eager messages "
                     "(SLUICE_EAGER_LIMIT=%ld)", bounce, eager);
        return SL_ERR_CONFIG;
    }
    long chunk, inflight;
    if (sl_param_int(SL_PARAM_RDRP_CHUNK, &chunk) || sl_param_int(SL_PARAM_RDRP_INFLIGHT, &inflight))
        return SL_ERR_CONFIG;
    P.rdrp_chunk = (size_t)chunk;
    P.rdrp_inflight = (size_t)inflight;
    P.eager_limit = (size_t)eager;
    P.bounce_size = (size_t)bounce;
    if (PtlInit() != PTL_OK) return SL_ERR_SYS;
    sl_status_t st = boot_init(&P.boot);
    if (st != SL_OK) goto err_ptl;
    P.rank = boot_get_info(P.boot)->rank;
    P.size = boot_get_info(P.boot)->size;
    /* MPI programs may post many receives and leave many messages
     * unexpected: ask for the engine's largest lists */
    ptl_ni_limits_t want = {.max_entries = INT32_MAX, .max_unexpected_headers = INT32_MAX,
                            .max_mds = 64, .max_cts = 1024, .max_eqs = 64, .max_pt_index = 63,
                            .max_iovecs = 1024, .max_list_size = INT32_MAX,
                            .max_triggered_ops = INT32_MAX, .max_msg_size = PTL_SIZE_MAX,
                            .max_atomic_size = 512, .max_fetch_atomic_size = 512,
                            .max_volatile_size = 512};
    st = ptl_status(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY,
                              &want, NULL, &P.ni));
    if (st == SL_OK) st = p2p_map();
    if (st == SL_OK) st = p2p_objects();
    /* every rank's receive structures exist before anyone sends */
    if (st == SL_OK) st = boot_fence(P.boot);
    if (st != SL_OK) goto err_boot;
    P.up = true;
    *rank = P.rank;
    *size = P.size;
    return SL_OK;
err_boot:
    boot_fini(P.boot);
err_ptl:
    PtlFini();
    return st;
}

sl_status_t p2p_fini(void)
{
    if (!P.up) return SL_ERR_INVALID;
    /* every ack we are owed has come back (a late one would find its
     * operation gone with the NI), then nobody still sends to us */
    ptl_ct_event_t acks;
    while (PtlCTGet(P.acks, &acks) == PTL_OK && acks.success + acks.failure < P.sends) {
        p2p_progress();
        PtlCTWait(P.acks, P.sends, &acks);
    }
    p2p_check_drops();
    boot_fence(P.boot);
    PtlNIFini(P.ni);    /* releases MEs, MD, EQ, CT with the NI */
    for (size_t i = 0; i < P.n_all; i++) {
        free(P.all[i]->mem);
        free(P.all[i]);
    }
    free(P.all);
    free(P.rv_sends);
    while (P.free_reqs) {
        p2p_req_t *r = P.free_reqs;
        P.free_reqs = r->next_free;
        free(r);
    }
    boot_fini(P.boot);
    PtlFini();
    memset(&P, 0, sizeof P);
    return SL_OK;
}

/* ---- events -------------------------------------------------------------------------------- */

static bool is_rndv(const ptl_event_t *ev)
{
    return (ev->match_bits & MB_KIND_MASK) >> MB_KIND_SHIFT == MB_KIND_RNDV;
}

/* A zero-byte put to a peer's sync PT: a match notice or a FIN. */
static void notify(ptl_process_t to, ptl_hdr_data_t what)
{
    int rc = PtlPut(P.md, 0, 0, PTL_NO_ACK_REQ, to, P2P_SYNC_PT, 0, 0, NULL, what);
    if (rc != PTL_OK) sl_log_error("p2p: notice to rank %u failed (%d)", to.rank, rc);
}

/* Keep up to rdrp_inflight gets of the rest of a rendezvous message going;
 * FIN and completion once everything wanted has arrived. */
static void rndv_pump(p2p_req_t *r)
{
    while (r->rv_inflight < P.rdrp_inflight && r->rv_next < r->rv_end) {
        size_t n = r->rv_end - r->rv_next < P.rdrp_chunk ? r->rv_end - r->rv_next : P.rdrp_chunk;
        int rc = PtlGet(P.md, (ptl_size_t)(uintptr_t)r->buf + r->rv_next, n, r->rv_peer,
                        P2P_RNDV_PT, r->rv_nonce, r->rv_next, r);
        if (rc != PTL_OK) {
            sl_log_error("p2p: rendezvous get from rank %u failed (%d)", r->rv_peer.rank, rc);
            r->st.error = SL_ERR_PROTO;
            r->rv_end = r->rv_next; /* stop; the FIN still releases the sender */
            break;
        }
        r->rv_next += n;
        r->rv_inflight++;
    }
    if (r->rv_inflight == 0 && r->rv_next >= r->rv_end) {
        notify(r->rv_peer, RV_FIN | r->rv_nonce);
        r->done = true;
    }
}

static void recv_done(p2p_req_t *r, const ptl_event_t *ev, bool from_bounce)
{
    size_t n = ev->mlength < r->len ? (size_t)ev->mlength : r->len;
    size_t sent = is_rndv(ev) ? (size_t)(ev->hdr_data & RV_LEN_MASK) : (size_t)ev->rlength;
    if (from_bounce && n) memcpy(r->buf, ev->start, n);
    r->st.source = (int)ev->initiator.rank;
    r->st.tag = (int)(uint32_t)(ev->match_bits & MB_TAG_MASK);
    r->st.sent = sent;
    r->st.bytes = sent < r->len ? sent : r->len;
    r->st.error = sent > r->len ? SL_ERR_TRUNCATE : SL_OK;
    if (is_rndv(ev)) { /* pull the rest (as much as fits), then FIN */
        r->rv_peer = ev->initiator;
        r->rv_nonce = (unsigned)(ev->hdr_data >> 48);
        r->rv_next = n;
        r->rv_end = r->st.bytes;
        r->rv_inflight = 0;
        rndv_pump(r);
        return;
    }
    r->done = true;
    if (ev->hdr_data) notify(ev->initiator, ev->hdr_data); /* synchronous: it matched */
}

static void rndv_reply(p2p_req_t *r, const ptl_event_t *ev)
{
    r->rv_inflight--;
    if (ev->ni_fail_type != PTL_NI_OK) {
        r->st.error = SL_ERR_PROTO;
        r->rv_end = r->rv_next;
    }
    rndv_pump(r);
}

/* FIN of a rendezvous send: its buffer has been read. */
static void rndv_fin(unsigned nonce)
{
    p2p_req_t *r = P.rv_sends ? P.rv_sends[nonce] : NULL;
    if (!r) {
        sl_log_error("p2p: FIN for unknown rendezvous %u", nonce);
        return;
    }
    P.rv_sends[nonce] = NULL;
    PtlMEUnlink(r->me);
    if (--r->waits == 0) r->done = true;
}

/* One of a send's completion events (SEND, or a synchronous send's match
 * notice); a match notice's request is in hdr_data. */
static void send_event(p2p_req_t *r)
{
    if (r && --r->waits == 0) r->done = true;
}

static void probe_done(p2p_req_t *r, const ptl_event_t *ev)
{
    r->st.error = ev->ni_fail_type == PTL_NI_OK ? SL_OK : SL_ERR_NOTFOUND;
    if (r->st.error == SL_OK) {
        r->st.source = (int)ev->initiator.rank;
        r->st.tag = (int)(uint32_t)(ev->match_bits & MB_TAG_MASK);
        r->st.sent = is_rndv(ev) ? (size_t)(ev->hdr_data & RV_LEN_MASK) : (size_t)ev->rlength;
    }
    r->done = true;
}

static void p2p_dispatch(const ptl_event_t *ev)
{
    switch (ev->type) {
    case PTL_EVENT_SEND: send_event(ev->user_ptr); break; /* NULL: a match notice */
    case PTL_EVENT_PUT:
        if (ev->user_ptr != &P.sync_me) recv_done(ev->user_ptr, ev, false);
        else if (ev->hdr_data & RV_FIN) rndv_fin((unsigned)(ev->hdr_data & (RV_NONCES - 1)));
        else send_event((p2p_req_t *)(uintptr_t)ev->hdr_data);
        break;
    case PTL_EVENT_REPLY: rndv_reply(ev->user_ptr, ev); break;
    case PTL_EVENT_PUT_OVERFLOW: recv_done(ev->user_ptr, ev, true); break;
    case PTL_EVENT_SEARCH: probe_done(ev->user_ptr, ev); break;
    case PTL_EVENT_AUTO_UNLINK: /* a bounce buffer is full: link another at once */
        if (bounce_add() != SL_OK) sl_log_error("p2p: no memory for a bounce buffer");
        break;
    case PTL_EVENT_AUTO_FREE: { /* no header points into it any more: a spare */
        bounce_t *b = ev->user_ptr;
        b->next = P.spare;
        P.spare = b;
        break;
    }
    default: break;
    }
}

static void p2p_check_drops(void)
{
    ptl_ct_event_t acks;
    if (PtlCTGet(P.acks, &acks) == PTL_OK && acks.failure) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "p2p: %llu message(s) from rank %d were dropped by their receiver (out of "
                 "unexpected-message buffers: SLUICE_BOUNCE_SIZE)",
                 (unsigned long long)acks.failure, P.rank);
        boot_abort(P.boot, 75, msg);
    }
}

int p2p_progress(void)
{
    int n = 0;
    ptl_event_t ev;
    int rc;
    while ((rc = PtlEQGet(P.eq, &ev)) == PTL_OK || rc == PTL_EQ_DROPPED) {
        if (rc == PTL_EQ_DROPPED) sl_log_error("p2p: event queue overflowed: events lost");
        p2p_dispatch(&ev);
        n++;
    }
    /* a drop is fatal anyway: look every 64 passes (and whenever a wait
     * sleeps), not on every message */
    if ((++P.progress_calls & 63) == 0) p2p_check_drops();
    return n;
}

/* ---- requests -------------------------------------------------------------------------------- */

static p2p_req_t *req_new(int kind, void *buf, size_t len)
{
    p2p_req_t *r = P.free_reqs;
    if (r) P.free_reqs = r->next_free;
    else if (!(r = malloc(sizeof *r))) return NULL;
    *r = (p2p_req_t){.kind = kind, .buf = buf, .len = len, .me = PTL_INVALID_HANDLE};
    return r;
}

static void req_put(p2p_req_t *r)
{
    r->next_free = P.free_reqs;
    P.free_reqs = r;
}

/* A free nonce for a rendezvous send, or -1 when all are in use. */
static int rndv_nonce(void)
{
    if (!P.rv_sends && !(P.rv_sends = calloc(RV_NONCES, sizeof *P.rv_sends))) return -1;
    for (unsigned i = 0; i < RV_NONCES; i++) {
        unsigned n = (P.rv_next_nonce + i) & (RV_NONCES - 1);
        if (!P.rv_sends[n]) {
            P.rv_next_nonce = n + 1;
            return (int)n;
        }
    }
    return -1;
}

/* Expose the whole buffer to the receiver's gets under a fresh nonce. */
static sl_status_t rndv_expose(p2p_req_t *r, int dst, ptl_hdr_data_t *hdr)
{
    int nonce = rndv_nonce();
    if (nonce < 0) return SL_ERR_NOMEM;
    ptl_me_t me = {.start = r->buf, .length = r->len, .ct_handle = PTL_CT_NONE,
                   .uid = PTL_UID_ANY,
                   .options = PTL_ME_OP_GET | PTL_ME_EVENT_COMM_DISABLE | PTL_ME_EVENT_LINK_DISABLE,
                   .match_id = {.rank = (ptl_rank_t)dst}, .match_bits = (ptl_match_bits_t)nonce};
    int rc = PtlMEAppend(P.ni, P2P_RNDV_PT, &me, PTL_PRIORITY_LIST, r, &r->me);
    if (rc != PTL_OK) return ptl_status(rc);
    P.rv_sends[nonce] = r;
    r->rv_nonce = (unsigned)nonce;
    *hdr = (ptl_hdr_data_t)nonce << 48 | (ptl_hdr_data_t)r->len;
    return SL_OK;
}

static sl_status_t send_start(const void *buf, size_t len, int dst, int tag, unsigned ctx,
                              bool sync, p2p_req_t **out)
{
    if (!P.up || !out || (len && !buf) || dst < 0 || dst >= P.size || tag < 0 || ctx > P2P_CTX_MAX)
        return SL_ERR_INVALID;
    if (len > RV_LEN_MASK) return SL_ERR_INVALID;
    p2p_req_t *r = req_new(RQ_SEND, (void *)buf, len);
    if (!r) return SL_ERR_NOMEM;
    bool rndv = len > P.eager_limit;
    r->waits = sync || rndv ? 2 : 1; /* SEND, and the match notice or the FIN */
    ptl_hdr_data_t hdr = sync ? (ptl_hdr_data_t)(uintptr_t)r : 0;
    ptl_match_bits_t mb = mbits(ctx, tag);
    if (rndv) {
        sl_status_t st = rndv_expose(r, dst, &hdr);
        if (st != SL_OK) {
            req_put(r);
            return st;
        }
        mb = (mb & ~MB_KIND_MASK) | MB_KIND_RNDV << MB_KIND_SHIFT;
    }
    ptl_process_t to = {.rank = (ptl_rank_t)dst};
    int rc = PtlPut(P.md, (ptl_size_t)(uintptr_t)buf, rndv ? P.eager_limit : len, PTL_CT_ACK_REQ,
                    to, P2P_PT, mb, 0, r, hdr);
    if (rc != PTL_OK) {
        if (rndv) {
            P.rv_sends[r->rv_nonce] = NULL;
            PtlMEUnlink(r->me);
        }
        req_put(r);
        return ptl_status(rc);
    }
    P.sends++;
    *out = r;
    return SL_OK;
}

sl_status_t p2p_isend(const void *buf, size_t len, int dst, int tag, unsigned ctx,
                      p2p_req_t **out)
{
    return send_start(buf, len, dst, tag, ctx, false, out);
}

sl_status_t p2p_issend(const void *buf, size_t len, int dst, int tag, unsigned ctx,
                       p2p_req_t **out)
{
    return send_start(buf, len, dst, tag, ctx, true, out);
}

static ptl_me_t recv_me(void *buf, size_t len, int src, int tag, unsigned ctx, unsigned opts)
{
    ptl_me_t me = {.start = buf, .length = len, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                   .options = opts,
                   .match_id = {.rank = src == P2P_ANY_SOURCE ? PTL_RANK_ANY : (ptl_rank_t)src},
                   .match_bits = mbits(ctx, tag == P2P_ANY_TAG ? 0 : tag),
                   .ignore_bits = MB_KIND_MASK | MB_RESERVED_MASK |
                                  (tag == P2P_ANY_TAG ? MB_TAG_MASK : 0)};
    return me;
}

static bool recv_args_ok(int src, int tag, unsigned ctx)
{
    return P.up && (src == P2P_ANY_SOURCE || (src >= 0 && src < P.size)) &&
           (tag == P2P_ANY_TAG || tag >= 0) && ctx <= P2P_CTX_MAX;
}

sl_status_t p2p_irecv(void *buf, size_t len, int src, int tag, unsigned ctx, p2p_req_t **out)
{
    if (!out || (len && !buf) || !recv_args_ok(src, tag, ctx)) return SL_ERR_INVALID;
    p2p_req_t *r = req_new(RQ_RECV, buf, len);
    if (!r) return SL_ERR_NOMEM;
    ptl_me_t me = recv_me(buf, len, src, tag, ctx,
                          PTL_ME_OP_PUT | PTL_ME_USE_ONCE | PTL_ME_EVENT_LINK_DISABLE |
                              PTL_ME_EVENT_UNLINK_DISABLE);
    int rc = PtlMEAppend(P.ni, P2P_PT, &me, PTL_PRIORITY_LIST, r, &r->me);
    if (rc != PTL_OK) {
        req_put(r);
        return ptl_status(rc);
    }
    *out = r;
    return SL_OK;
}

bool p2p_test(p2p_req_t *r, p2p_status_t *st)
{
    if (!r->done) p2p_progress();
    if (!r->done) return false;
    if (st) *st = r->st;
    req_put(r);
    return true;
}

sl_status_t p2p_wait_progress(int timeout_ms)
{
    if (p2p_progress() > 0) return SL_OK;
    ptl_event_t ev;
    unsigned int which;
    /* sleeps in the engine until an event comes (no busy loop); the
     * timeout only bounds the time between drop checks */
    int rc = PtlEQPoll(&P.eq, 1, timeout_ms, &ev, &which);
    if (rc == PTL_OK || rc == PTL_EQ_DROPPED) p2p_dispatch(&ev);
    else if (rc != PTL_EQ_EMPTY) return SL_ERR_PROTO;
    p2p_check_drops();
    return SL_OK;
}

sl_status_t p2p_wait(p2p_req_t *r, p2p_status_t *st)
{
    while (!r->done) {
        sl_status_t s = p2p_wait_progress(1000);
        if (s != SL_OK) return s;
    }
    if (st) *st = r->st;
    req_put(r);
    return SL_OK;
}

bool p2p_cancel(p2p_req_t *r)
{
    if (r->kind != RQ_RECV || r->done || PtlMEUnlink(r->me) != PTL_OK) return false;
    r->st.cancelled = true;
    r->done = true;
    return true;
}

bool p2p_iprobe(int src, int tag, unsigned ctx, p2p_status_t *st)
{
    if (!recv_args_ok(src, tag, ctx)) return false;
    p2p_progress(); /* messages already in our mailbox become unexpected headers */
    p2p_req_t probe = {.kind = RQ_PROBE};
    ptl_me_t me = recv_me(NULL, 0, src, tag, ctx, PTL_ME_OP_PUT | PTL_ME_USE_ONCE);
    if (PtlMESearch(P.ni, P2P_PT, &me, PTL_SEARCH_ONLY, &probe) != PTL_OK) return false;
    /* the engine posts the SEARCH event inside the call; other events that
     * precede it are handled on the way */
    while (!probe.done) {
        ptl_event_t ev;
        unsigned int which;
        int rc = PtlEQPoll(&P.eq, 1, PTL_TIME_FOREVER, &ev, &which);
        if (rc != PTL_OK && rc != PTL_EQ_DROPPED) return false;
        p2p_dispatch(&ev);
    }
    if (probe.st.error != SL_OK) return false;
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
