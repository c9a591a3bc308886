/* Point-to-point messaging with MPI semantics over Portals 4 (paper 000
 * §1.1, §3.3): matching on (context, source, tag) with wildcards, non-
 * overtaking, size not part of matching, truncation reported and never a
 * write past the receive buffer.  The MPI layer calls this; it never sees
 * Portals.
 *
 * Protocols (DESIGN.md §4, paper 003 Table 1): EAGER up to
 * SLUICE_EAGER_LIMIT; above it HYBRID (sender first, up to
 * SLUICE_HYBRID_LIMIT), RECV_RNDV (receiver first) or SEND_RNDV (the
 * receiver-driven chunked rendezvous of paper 000); SLUICE_PROTOCOL forces
 * one of them, or the traditional sender-initiated rendezvous.
 *
 * Threads: the caller serialises calls (MPI_THREAD_SERIALIZED), or, after
 * p2p_threads(true), holds p2p_mt_lock around each one (MPI_THREAD_MULTIPLE,
 * mt.c): waits then give the lock up while they sleep.  The Portals engine
 * underneath makes progress on its own. */
#ifndef SL_P2P_H
#define SL_P2P_H

#include "util/status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <portals4.h>

#define P2P_ANY_SOURCE (-2)
#define P2P_ANY_TAG (-1)
#define P2P_TAG_MAX 0x7fffffff
#define P2P_CTX_MAX 0xffff
/* Contexts with this bit promise that every receive is posted with the
 * length of the message it gets (the MPI layer's collective traffic).
 * Their messages up to the eager limit are then not numbered for
 * RECEIVER_READYs (seq.c), which only longer receives send, on either
 * side: both sides skip the same messages.  (A receive of another length
 * there only loses hints: the numbers are never a correctness condition.) */
#define P2P_CTX_EXACT 0x8000u

typedef struct p2p_status {
    int source, tag;
    size_t bytes;          /* received (after truncation) */
    size_t sent;           /* the message's full size */
    sl_status_t error;     /* SL_OK, or SL_ERR_TRUNCATE */
    bool cancelled;
} p2p_status_t;

typedef struct p2p_req p2p_req_t;

/* Bring up Portals, the receive lists and the bounce buffers; collective
 * over the job.  rank and size of the job come back. */
sl_status_t p2p_init(int *rank, int *size);
sl_status_t p2p_fini(void);

/* Bytes of the short-message area a rank takes from its shared heap in a
 * job of `size` ranks of one host under the current settings (0: path off),
 * and in *ring_bytes each sender's ring, or each leased channel's ring under
 * SLUICE_FAST_PEERS (sluice_info --memory). */
size_t p2p_short_plan(int size, size_t *ring_bytes);

/* Start a send of len contiguous bytes to rank dst with tag (0..P2P_TAG_MAX)
 * on context ctx.  The buffer may be reused when the request completes. */
sl_status_t p2p_isend(const void *buf, size_t len, int dst, int tag, unsigned ctx,
                      p2p_req_t **out);
/* As p2p_isend, but a send that completes at once (it went into the
 * receiver's short-message ring) makes no request: *out is NULL then.  The
 * message-rate path of MPI_Isend. */
sl_status_t p2p_isend_lite(const void *buf, size_t len, int dst, int tag, unsigned ctx,
                           p2p_req_t **out);
/* The same as a synchronous send: completes only once a receive has
 * matched the message (MPI_Ssend). */
sl_status_t p2p_issend(const void *buf, size_t len, int dst, int tag, unsigned ctx,
                       p2p_req_t **out);
/* Post a receive of at most len bytes from src (or P2P_ANY_SOURCE) with tag
 * (or P2P_ANY_TAG) on ctx. */
sl_status_t p2p_irecv(void *buf, size_t len, int src, int tag, unsigned ctx, p2p_req_t **out);

/* Completion: test never blocks; wait sleeps (no busy loop) until done.
 * Both fill *st (may be NULL) and release the request once complete. */
bool p2p_test(p2p_req_t *r, p2p_status_t *st);
sl_status_t p2p_wait(p2p_req_t *r, p2p_status_t *st);

/* Have fn(arg) called the moment r completes, from inside this layer
 * (while it handles an event or takes a ring message, in whichever thread
 * does so, under the layer's lock).  fn must not call into this layer: it
 * notes the completion, and the watcher collects r later with p2p_test.
 * Returns false, and never calls fn, when r has completed already. */
typedef void (*p2p_done_fn)(void *arg);
bool p2p_watch(p2p_req_t *r, p2p_done_fn fn, void *arg);
/* Wait until *word != seen (a watcher changes it), handling events and
 * ring messages meanwhile and sleeping in the engine when there are none,
 * as p2p_wait does.  hint: a receive that may change it, or NULL; while it
 * has not matched, the wait polls the short-message rings before
 * sleeping. */
sl_status_t p2p_wait_change(p2p_req_t *hint, const volatile unsigned *word, unsigned seen);

/* Cancel a receive that has not matched: true if it was cancelled (the
 * request then completes with cancelled set), false if it already matched. */
bool p2p_cancel(p2p_req_t *r);

/* Is a message from src/tag on ctx waiting to be received?  Makes progress
 * first, then looks; fills *st (source, tag, sent size) when true.  Never
 * receives it.  A message still in flight may not be seen yet (as
 * MPI_Iprobe). */
bool p2p_iprobe(int src, int tag, unsigned ctx, p2p_status_t *st);
/* Wait until such a message is there (as MPI_Probe); SL_ERR_INVALID for bad
 * arguments. */
sl_status_t p2p_probe(int src, int tag, unsigned ctx, p2p_status_t *st);

/* How many sends used each protocol, and what became of RECEIVER_READYs
 * (this process, since p2p_init). */
typedef struct p2p_stats {
    unsigned long short_msgs;   /* sent through short-message rings (same host) */
    unsigned long short_resent; /* of those, taken back and sent by Portals (an eager put) */
    unsigned long short_back;   /* went back to the start of an emptied ring early (hot start) */
    unsigned long eager, hybrid, send_rndv, recv_rndv, rdata_fallback, traditional, rr_sent,
        rr_used, rr_stale, rr_lost;
    /* of recv_rndv, direct puts made with no RECEIVER_READY (both at once) */
    unsigned long rdata_direct;
    unsigned long pulls_triggered, pulls_host; /* receiver side: how pulls were chained */
    unsigned long pull_max_inflight;           /* most gets a host-chained pull had out */
    /* sender side: HYBRID copies released because their counter showed every
     * byte read, and by a FIN (truncating receive, or no counter to spare) */
    unsigned long hybrid_by_counter, hybrid_by_fin;
    unsigned long hybrid_held; /* copies not released yet (now) */
    unsigned long mem_shared; /* p2p_mem_alloc blocks from the shared heap */
    unsigned long seq_keys;   /* sequence buckets in use (auto, recv_rndv; <= SLUICE_SEQ_BUCKETS) */
    /* leased short-message channels (SLUICE_FAST_PEERS): as a sender, channels
     * claimed, given back when their receiver asked, messages taken back from
     * a channel as it was given back (sent again by Portals); as a receiver,
     * owners asked to give a channel back, channels freed */
    unsigned long lease_claims, lease_given, lease_taken, lease_asked, lease_freed;
} p2p_stats_t;
void p2p_get_stats(p2p_stats_t *out);
/* Tests: ask the owner of every leased short-message channel of ours
 * (SLUICE_FAST_PEERS) to give it back now, as a receiver does while a sender
 * waits for one; how many were asked. */
int p2p_lease_ask_all(void);

/* Memory that peers on this host move with one memcpy (the engine's shared
 * heap): *out = NULL and SL_ERR_NOMEM when there is none left, the caller
 * falls back to ordinary memory.  p2p_mem_free: SL_ERR_INVALID for a
 * pointer that is not such a block. */
sl_status_t p2p_mem_alloc(size_t len, void **out);
sl_status_t p2p_mem_free(void *ptr);

/* MPI_THREAD_MULTIPLE (mt.c).  p2p_threads(true), once, before a second
 * thread calls in; then every call into this layer is made between
 * p2p_mt_enter() and p2p_mt_exit() (nested pairs are fine).  Both are a
 * load and a branch when threads are off. */
sl_status_t p2p_threads(bool multiple);
extern bool p2p_mt_on;
bool p2p_mt_lock(void);
void p2p_mt_unlock(void);
static inline bool p2p_mt_enter(void)
{
    return p2p_mt_on && p2p_mt_lock();
}
/* A matched probe's attempt (a non-blocking probe and the receive that
 * claims what it found) between enter and exit: meanwhile other threads'
 * receives wait (p2p_irecv does).  No-ops without threads. */
void p2p_mt_gate_enter(void);
void p2p_mt_gate_exit(void);
void p2p_mt_gate_wait(void);
/* fn is called each time a thread lets the lock go (after it has): for
 * waking another thread without waking it into a held lock. */
void p2p_mt_set_release_hook(void (*fn)(void));
/* Sleep us microseconds, without the lock if this thread holds it. */
void p2p_mt_sleep_us(unsigned us);
/* For __attribute__((cleanup)): *held is what p2p_mt_enter returned. */
static inline void p2p_mt_exit(const bool *held)
{
    if (*held) p2p_mt_unlock();
}

/* With threads: if another thread sleeps in the engine, wake it (an empty
 * notice to ourselves), so that it looks again at what it waits for. */
void p2p_wake_sleeper(void);

/* The calling thread's waits in this layer sleep at once, without
 * polling first (a background progress thread: its polling would take the
 * CPU its application computes on). */
void p2p_thread_background(void);

/* Handle pending events; returns how many. */
int p2p_progress(void);

/* ---- the offload executor's share of the NI (src/coll/offload.c) ---- */

/* Portals objects of the collective offload executor live on this NI, on
 * portal P2P_COLL_PT: no flow control, events into p2p's queue (only what
 * the executor asks for: one PUT per completed schedule, one per message
 * its receive refused), and an overflow
 * catcher of zero bytes that keeps the headers of early notices (match
 * bit P2P_COLL_NOTICE set) until the entry waiting for them is appended. */
#define P2P_COLL_PT 13
#define P2P_COLL_NOTICE (1ull << 63)
typedef struct p2p_nic {
    ptl_handle_ni_t ni;
    ptl_pt_index_t pt;
    int rank;
    ptl_size_t max_atomic; /* bytes of one PtlAtomic */
    int max_cts, max_entries, max_mds; /* the NI's limits (shared with p2p's own objects) */
    int max_trig;          /* triggered operations waiting on one counter */
} p2p_nic_t;
void p2p_nic(p2p_nic_t *out);
/* fn(event) for each PUT event on P2P_COLL_PT, from the event handling of
 * whichever thread progresses (under p2p's lock); the event is valid for
 * the call only. */
void p2p_set_nic_hook(void (*fn)(const ptl_event_t *ev));
/* Peers that have ended: how many so far (0 in a healthy job), whether
 * world rank r is one, and fn() called (under p2p's lock, from whichever
 * thread waits) each time more are found, after the receives from them
 * have failed: for layers whose waits p2p cannot fail (offloaded runs). */
unsigned p2p_gone_count(void);
bool p2p_peer_gone(int rank);
void p2p_set_gone_hook(void (*fn)(void));
/* fn(ctx): may a sender of a receive from MPI_ANY_SOURCE on context ctx
 * have ended (is a member of its group gone)?  Asked under p2p's lock
 * when peers have ended; such a receive then fails (SL_ERR_PEER_DEAD),
 * ULFM's rule.  Without fn (p2p alone), any ended peer of the job fails
 * them. */
void p2p_set_any_gone_fn(bool (*fn)(unsigned ctx));
/* Handle pending events, or sleep until one comes (at most timeout_ms) and
 * handle it: the blocking step of loops that wait for any of several
 * requests (MPI_Waitany/Waitsome). */
sl_status_t p2p_wait_progress(int timeout_ms);

#endif
