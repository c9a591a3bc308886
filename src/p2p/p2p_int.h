/* Internals of the point-to-point layer, shared by its files:
 *   init.c      set-up and tear-down, bounce buffers
 *   send.c      protocol choice and the sender side of every protocol
 *   recv.c      receives, RECEIVER_READY, the receiver side, probe, cancel
 *   pull.c      the receiver-driven chunked pull (SEND_RNDV, HYBRID, fallback)
 *   seq.c       per-peer, per-tag sequence counters and stored RECEIVER_READYs
 *   short.c     short messages between processes of one host, matched here
 *   progress.c  events, requests, nonces, completion
 *   mt.c        MPI_THREAD_MULTIPLE: the layer's lock, who sleeps in the engine
 * Design notes and the wire formats: docs/P2P.md. */
#ifndef SL_P2P_INT_H
#define SL_P2P_INT_H

#include "boot/boot.h"
#include "util/list.h"
#include "p2p/p2p.h"
#include "util/wait.h"
#include "portals4.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Match bits: [63..60 kind][59..48 reserved][47..32 context][31..0 tag]. */
#define MB_TAG_MASK 0xffffffffull
#define MB_CTX_SHIFT 32
#define MB_KIND_SHIFT 60
#define MB_KIND_MASK (0xfull << MB_KIND_SHIFT)
#define MB_RESERVED_MASK (0xfffull << 48)
/* RDATA has the top bit alone: bounce buffers take every other kind, the
 * zero-length catcher only RDATA (a direct put whose receive has gone) */
/* KIND_HYBRID is a header-only RNDV whose copy the sender releases when its
 * counter shows every byte read (no FIN unless the receive truncates) */
enum { KIND_EAGER = 1, KIND_RNDV = 2, KIND_RTS = 3, KIND_HYBRID = 4, KIND_RDATA = 8 };
#define MB_RDATA_BIT (1ull << 63)

/* hdr_data of RNDV, RTS and RDATA: sender nonce << 40 | message length
 * (messages up to 1 TiB; 16 M nonces, so that many rendezvous sends can be
 * outstanding per process). */
#define RV_LEN_BITS 40
#define RV_LEN_MASK ((1ull << RV_LEN_BITS) - 1)
#define RV_NONCE_BITS 24
#define RV_NONCE_MASK ((1u << RV_NONCE_BITS) - 1)
#define RV_HDR_NONCE(h) ((unsigned)((h) >> RV_LEN_BITS) & RV_NONCE_MASK)
/* hdr_data of notices on the sync PT: a synchronous send's match notice is
 * the request address (bits 63, 62 clear); FIN = bit 63 | sender nonce;
 * CTS = bit 62 | receiver nonce << 24 | sender nonce. */
#define NT_FIN (1ull << 63)
#define NT_CTS (1ull << 62)

#define P2P_PT 8      /* messages: receives (priority), bounces and catcher (overflow) */
#define P2P_SYNC_PT 9 /* match notices, FIN, CTS */
#define P2P_RNDV_PT 10 /* senders' buffers, read by the receiver's gets */
#define P2P_RR_PT 11  /* RECEIVER_READY notices */
#define P2P_RECV_PT 12 /* receivers' buffers, written by the traditional rendezvous */
#define P2P_BOUNCES 8
#define P2P_RR_EQ_SIZE 4096 /* RECEIVER_READY hints: overflow loses hints only */
/* HYBRID copies a process may hold; beyond, sends use SEND_RNDV */
#define P2P_HYBRID_BUDGET ((size_t)64 << 20)
#define P2P_TRIG_MAX 4096 /* triggered gets one pull may register */
/* Eager sends over this go by the target's one copy (P.md_1c) while
 * receives over it are posted (send.c: send_eager) */
#define P2P_ONE_COPY_MIN 32768

typedef enum {
    P2P_PROTO_AUTO,
    P2P_PROTO_EAGER,
    P2P_PROTO_HYBRID,
    P2P_PROTO_SEND_RNDV,
    P2P_PROTO_RECV_RNDV,
    P2P_PROTO_TRADITIONAL
} p2p_proto_t;

enum { RQ_SEND = 1, RQ_RECV, RQ_PROBE, RQ_HYBRID /* library copy of a HYBRID send */ };

struct p2p_req {
    struct p2p_req *next_free;
    int kind;
    int waits; /* sends: events still due before completion */
    bool done;
    bool matched; /* receives: the message has matched (maybe still arriving) */
    /* p2p_watch: called once when the request completes (beside done: the
     * completion touches one line) */
    p2p_done_fn on_done;
    void *on_done_arg;
    p2p_status_t st;
    ptl_handle_me_t me;
    void *buf;
    size_t len;
    /* receives: the (source, tag, ctx) posted, and whether they are specific */
    int src, tag;
    unsigned ctx;
    bool wild;
    uint32_t seq; /* specific receives: their place among receives for (src, ctx, tag) */
    /* nonce-addressed traffic: the peer, our nonce (sends, traditional
     * receives), and the pull's progress (next offset, end, gets in flight) */
    ptl_process_t rv_peer;
    unsigned rv_nonce, rv_inflight;
    size_t rv_next, rv_end;
    ptl_handle_me_t rv_me; /* traditional receive: the exposed buffer */
    bool rv_trig;          /* a triggered pull: its own MD and reply counter */
    bool rv_quiet;         /* a pull of a whole HYBRID copy: no FIN (the copy's counter) */
    bool rv_failed;        /* a get of the pull failed: FIN even if rv_quiet */
    sl_list_t hlink;       /* HYBRID copies released by counter: in P.hybrids */
    uint64_t rv_t0, rv_tau; /* slow-sink emulation: pull start, first chunk's time */
    ptl_handle_md_t rv_md;
    ptl_handle_ct_t rv_ct; /* pulls: replies; HYBRID copies: bytes read by the receiver */
    /* sends: the destination, and whether synchronous */
    int dst;
    bool sync;
    /* short path (short.c): a receive short messages may claim; deferred:
     * not on the engine's list (only a short message can match it now) */
    bool linked, deferred;
    bool mid; /* a receive counted in P.mid_recvs */
    sl_list_t plink;
};

/* The request has completed: mark it, and tell its watcher. */
static inline void p2p_req_done(p2p_req_t *r)
{
    r->done = true;
    if (r->on_done) r->on_done(r->on_done_arg);
}

typedef struct bounce {
    struct bounce *next;
    char *mem;
    ptl_handle_me_t me;
} bounce_t;

/* A released HYBRID copy kept for reuse (send.c) */
typedef struct p2p_copy {
    void *buf;
    size_t cap;
} p2p_copy_t;

#define P2P_COPY_CACHE 64
#define P2P_COPY_CACHE_BYTES ((size_t)16 << 20)

typedef struct p2p_state {
    bool up;
    boot_t *boot;
    int rank, size;
    p2p_proto_t proto;
    size_t eager_limit, hybrid_limit, bounce_size, rdrp_chunk, rdrp_first, rdrp_inflight, eq_size;
    unsigned sink_slowdown;
    bool rdrp_triggered;
    ptl_handle_ni_t ni;
    unsigned gone_seen; /* ended peers handled (p2p_check_gone) */
    void (*gone_hook)(void);
    bool (*any_gone)(unsigned ctx); /* p2p_set_any_gone_fn */
    ptl_handle_eq_t eq, rr_eq;
    ptl_handle_ct_t acks;
    ptl_handle_md_t md;
    /* small eager messages: PTL_MD_VOLATILE (data copied when PtlPut
     * returns, up to volatile_max bytes) and no SEND event: done at once */
    ptl_handle_md_t md_v;
    /* eager messages over P2P_ONE_COPY_MIN while receives of that size are
     * posted: PTL_MD_SLUICE_ONE_COPY (send.c) */
    ptl_handle_md_t md_1c;
    unsigned mid_recvs; /* receives over P2P_ONE_COPY_MIN posted and not yet freed */
    size_t volatile_max;
    ptl_size_t max_atomic;
    ptl_ni_limits_t limits; /* what PtlNIInit granted */
    void (*nic_hook)(const ptl_event_t *ev); /* PUT events on P2P_COLL_PT */
    ptl_handle_me_t sync_me, rr_me, catch_me; /* user_ptr: their own address */
    bounce_t *spare;
    bounce_t **all;
    size_t n_all;
    p2p_req_t *free_reqs;
    ptl_size_t sends;       /* puts with counting acks on `acks` */
    p2p_req_t **nonces;     /* requests addressed by nonce (grows to 2^24 slots) */
    unsigned n_nonces, used_nonces, next_nonce;
    size_t hybrid_bytes;     /* bytes in library copies of HYBRID sends */
    unsigned hybrid_pending; /* library copies not yet read by their receiver */
    sl_list_t hybrids;       /* of those, the ones with a byte counter */
    p2p_copy_t copies[P2P_COPY_CACHE]; /* released copies, for the next ones */
    unsigned n_copies;
    size_t copy_bytes;
    unsigned wild_pending;   /* wildcard receives whose source/tag is unresolved */
    unsigned progress_calls;
    unsigned spin_polls;     /* ring polls of p2p_wait: every 16th is a full pass */
    p2p_stats_t stats;
} p2p_state_t;

extern p2p_state_t P;

/* Do receives announce themselves (RECEIVER_READY) and the two sides number
 * their messages (seq.c)?  Only under the protocols that use the notices:
 * auto and forced recv_rndv. */
static inline bool p2p_announcing(void)
{
    return P.proto == P2P_PROTO_AUTO || P.proto == P2P_PROTO_RECV_RNDV;
}

/* mt.c: MPI_THREAD_MULTIPLE (all no-ops when threads are off).  Is a
 * thread asleep in the engine (then nobody else handles events or rings)?
 * The owner's sleep: give the lock up (returns this thread's depth in it)
 * and take it back.  Sleep on the waiters' turn until woken or timeout_ms
 * (lock held once, given up meanwhile).  Give the lock up for a moment. */
extern bool p2p_mt_asleep; /* written and read under the lock */
static inline bool p2p_mt_engine_busy(void)
{
    return p2p_mt_on && p2p_mt_asleep;
}
unsigned p2p_mt_sleep_begin(void);
void p2p_mt_sleep_end(unsigned depth);
void p2p_mt_wait_turn(int timeout_ms);
void p2p_mt_yield(void);

/* init.c */
sl_status_t p2p_bounce_add(void);
const char *p2p_proto_name(int proto);

/* progress.c */
sl_status_t p2p_ptl_status(int rc);
/* End the job with exit status code and the formatted reason (a loss or a
 * corruption this rank cannot recover from). */
#define p2p_die(code, ...) boot_abortf(P.boot, (code), __VA_ARGS__)
p2p_req_t *p2p_req_new(int kind, void *buf, size_t len);
void p2p_req_put(p2p_req_t *r);
/* One of the events a request waits for has come; completes it at zero. */
void p2p_req_event(p2p_req_t *r);
int p2p_nonce_get(p2p_req_t *r);
p2p_req_t *p2p_nonce_take(unsigned nonce);
void p2p_nonce_drop(p2p_req_t *r);
void p2p_check_drops(void);
void p2p_rr_drain(void);
/* p2p_progress from a call that is about to start an operation of its own:
 * bulk transfers peers want from this process wait for the next full pass
 * (PtlSluiceDeferBulk), so that this one goes out first. */
int p2p_progress_posting(void);
/* Around the progress such a call makes (p2p_progress_posting is one):
 * bulk transfers wait, and the engine's progress thread learns that the
 * application is driving progress (PtlSluiceHostActive). */
void p2p_posting_begin(void);
void p2p_posting_end(void);
bool p2p_wait_search(p2p_req_t *probe);
void p2p_notify(ptl_process_t to, ptl_hdr_data_t what);
ptl_match_bits_t p2p_mbits(unsigned kind, unsigned ctx, int tag);
unsigned p2p_kind(ptl_match_bits_t mb);

/* send.c */
void p2p_send_cts(const ptl_event_t *ev); /* a CTS reached a traditional sender */
void p2p_send_ack(p2p_req_t *r, const ptl_event_t *ev); /* ACK of an RDATA put */
void p2p_send_fin(unsigned nonce);
/* Release the HYBRID copies whose receiver has read every byte. */
void p2p_hybrid_reap(void);
/* HYBRID copy buffers: from the cache of released ones, or malloc */
void *p2p_copy_get(size_t len);
void p2p_copy_put(void *buf, size_t len);
void p2p_copy_fini(void);

/* recv.c */
/* Put receive r on the engine's priority list (the caller has flushed the
 * deferred receives r must not overtake: p2p_short_flush_for). */
sl_status_t p2p_recv_append(p2p_req_t *r);
/* Receive r has matched a message from src with tag, sent bytes long:
 * status, truncation, and the counts of a wildcard receive. */
void p2p_recv_resolve(p2p_req_t *r, int src, int tag, size_t sent);
void p2p_recv_matched(p2p_req_t *r, const ptl_event_t *ev);
void p2p_recv_data(p2p_req_t *r, const ptl_event_t *ev); /* traditional data landed */
void p2p_probe_done(p2p_req_t *r, const ptl_event_t *ev);

/* pull.c */
void p2p_pull_start(p2p_req_t *r, ptl_process_t from, unsigned nonce, size_t have, size_t end);
void p2p_pull_reply(p2p_req_t *r, const ptl_event_t *ev);
void p2p_pull_fin_sent(p2p_req_t *r);

/* seq.c: counters of messages sent to / receives posted for (peer, ctx, tag) */
sl_status_t p2p_seq_init(void);
void p2p_seq_fini(void);
/* The sequence number of the next send to (peer, ctx, tag), and whether a
 * RECEIVER_READY for exactly that send is stored (consumed if so). */
/* len: the message's (send) or the receive's length: on P2P_CTX_EXACT
 * contexts those up to the eager limit are not numbered (p2p.h). */
bool p2p_seq_send(int peer, unsigned ctx, int tag, size_t len, uint32_t *seq);
uint32_t p2p_seq_recv(int peer, unsigned ctx, int tag, size_t len);
void p2p_seq_unrecv(int peer, unsigned ctx, int tag, size_t len, uint32_t seq);
void p2p_seq_unsend(int peer, unsigned ctx, int tag, size_t len);
void p2p_seq_rr_arrived(const ptl_event_t *ev);
/* Does peer arrive together with us (stale RECEIVER_READYs, landed direct
 * puts): should a large send to it put directly without a RECEIVER_READY? */
bool p2p_seq_together(int peer);
/* The ack of a direct put: it found its receive (landed) or the catcher. */
void p2p_seq_direct_landed(int peer, bool landed);
size_t p2p_seq_keys(void); /* buckets in use */

/* short.c: the short-message path between processes of one host */
enum { SH_SHORT, SH_PORTALS };
sl_status_t p2p_short_init(void); /* our rings, before p2p_map publishes them */
uint64_t p2p_short_addr(void);    /* their address (0: none) */
void p2p_short_attach(int peer, uint64_t addr); /* map a peer's rings */
void p2p_short_fini(void);
/* How send r goes (SH_*); before SH_PORTALS, older messages in the ring the
 * receiver has not claimed are taken back and sent by Portals. */
int p2p_short_route(int dst, size_t len, bool sync);
/* into the ring (route said SH_SHORT): the send is complete */
void p2p_short_put(const void *buf, size_t len, int dst, int tag, unsigned ctx);
void p2p_short_portals_sent(int dst); /* a message a receive matches went by Portals */
/* Receives: take a waiting short message (r is then done); let later short
 * messages claim r; r is no longer claimable; a Portals message from src
 * matched. */
bool p2p_short_recv(p2p_req_t *r);
/* Fail the posted receives whose (specific) source has ended: nothing more
 * will come from it (SL_ERR_PEER_DEAD). */
void p2p_short_fail_gone(void);
/* Keep r off the engine's list when only a short message can match it now
 * (true: r is posted in short.c alone). */
bool p2p_short_defer(p2p_req_t *r);
/* Before r goes on the engine's list: the deferred receives it could
 * overtake go there first. */
void p2p_short_flush_for(const p2p_req_t *r);
void p2p_short_post(p2p_req_t *r);
/* r is not claimable any more; true if it was deferred (it has no entry in
 * the engine: its cancel is complete). */
bool p2p_short_unpost(p2p_req_t *r);
/* after the job's last set-up fence: which senders use our rings */
void p2p_short_ready(void);
void p2p_short_matched(int src);
bool p2p_short_probe(int src, int tag, unsigned ctx, p2p_status_t *st);
/* Take arrived ring messages; returns how many.  Only after the events have been
 * handled (p2p_progress): a ring message claims a receive by unlinking its entry. */
int p2p_short_poll(void);
/* The same before the events are handled, for a wait's spin: the engine is
 * not entered (that was about a quarter of an 8-byte ping-pong's latency).  -1
 * when a message would claim a receive on the engine's list: it stays for
 * p2p_progress (the messages before it were taken). */
int p2p_short_poll_quick(void);
/* Waiting: whether rings need polling; the budget of a ring poll (then
 * sl_backoff until it says sleep); announce a sleep (false: do not,
 * something came), end it. */
bool p2p_short_active(void);
/* Can a message from src (a rank, or P2P_ANY_SOURCE) come by a short ring:
 * did such a sender attach a ring into ours?  (A peer of another host, or
 * one without the shared heap, sends everything through the engine.) */
bool p2p_short_from(int src);
/* Leased channels (SLUICE_FAST_PEERS > 0) instead of a ring per sender. */
bool p2p_short_leased(void);
void p2p_short_spin_init(sl_backoff_t *b);
bool p2p_short_pending(void); /* a ring message waits to be taken */
bool p2p_short_sleep_begin(void);
void p2p_short_sleep_end(void);

#endif
