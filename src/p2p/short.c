/* The short-message path between processes of one host: a message of at
 * most SLUICE_SHORT_MAX bytes goes into a ring that its receiver's p2p
 * polls, and is matched here, not by the Portals engine.  Why and how it
 * keeps MPI order with the messages that go through Portals: docs/P2P.md,
 * "The short path".
 *
 * Memory.  Each rank takes one area from its shared heap (PtlSluiceMemAlloc)
 * and publishes its address with its Portals identity; a sender maps the
 * receiver's area with PtlSluiceMemAttach.  The area is a header line (the
 * receiver's `sleeping` word, the geometry) and one channel per sender: a
 * line the receiver writes (`matched`: Portals messages of that sender it
 * has matched; `consumed`: how far it has read the ring), a line the
 * sender writes once at set-up (`attached`), then a ring of
 * SLUICE_SHORT_RING bytes (rounded down to a power of two) in cache lines.  A message takes as many
 * consecutive lines as its 16-byte head and payload need (an 8-byte
 * message is one line, 8 KiB are 129) and never wraps: where it would,
 * the sender writes a skip head over the ring's tail.  It also goes back
 * early, with a skip head, where a message would pass the ring's first
 * SLUICE_SHORT_HOT bytes and the receiver has read everything: a
 * conversation then reuses lines still in the caches (docs/P2P.md).  A head is its state
 * word (0 free, SH_BUSY while the receiver handles it, else the sequence
 * number of its line, stored last), length, tag and context.  The first
 * word of every line that is not an unread head is 0: the receiver clears
 * the lines it has read, the sender those it takes back, so a stale
 * payload word is never read as a head.
 *
 * Order.  A sender sends to a receiver either by its ring or by Portals, and
 * switches only at points where no message can overtake another:
 *   ring -> Portals: the sender takes back the messages the receiver has not
 *     started on (the receiver claims a head by compare-and-swap, so each
 *     is either claimed or taken back), sends them by Portals, then a
 *     marker, then the message that switches.  Each message the receiver claimed is then
 *     matched or in our unexpected queue, which a receive searches before
 *     the engine's.  This happens for a message the ring does not take, or
 *     when the ring is full and its receiver does not read it (wait_room).
 *   Portals -> ring once the receiver has matched every Portals message of
 *     the sender (its `matched` equals our count): none waits in the engine
 *     where an older message could be passed by a newer one of the ring.
 * Neither waits for the receiver.
 *
 * Leases (SLUICE_FAST_PEERS=N > 0).  The area holds N channels instead of
 * one per sender, and a `matched` word per sender before them; a channel's
 * `owner` word (sender line) says who holds it.  A sender claims a free
 * one by compare-and-swap and starts by Portals (the rule above brings it
 * to the ring); a receiver whose senders wait for one (`want`) asks an
 * owner to give its channel back (a bit in `reclaim`, header line, and an
 * empty notice); the owner answers at its next message or full pass with
 * the ring -> Portals switch, its marker tagged SH_GIVE; the receiver frees
 * the channel when it reads that marker.  docs/P2P.md, "Channels leased to
 * active peers".
 *
 * Receives.  A small receive from one sender that sends by its ring is
 * deferred: on our list only, no engine entry, since only a ring message can match
 * it.  That sender's marker, or a receive that could overtake it, puts it
 * on the engine's list (in posting order).  Any other posted receive is on
 * the engine's list and on ours; a ring message claims it by unlinking its entry,
 * and a failed unlink means the engine matched it first. */
#include "p2p/p2p_int.h"
#include "util/log.h"
#include "util/param.h"
#include "util/sys.h"
#include "util/wait.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SH_HDR 16u
#define SH_LINE SL_CACHE_LINE
#define SH_SEQ(n) ((uint32_t)(n) | 0x80000000u) /* never 0 (free) or SH_BUSY */
#define SH_BUSY 1u
#define SH_MARK 0xffffffffu /* ctx of a head saying: Portals messages follow */
#define SH_SKIP 0xfffffffeu /* ctx of a head over the ring's tail (len: its lines) */
#define SH_GIVE 1u          /* tag of a marker that gives a leased channel back */
#define SH_MIN_RING 2048 /* smallest ring (32 lines; messages up to 1,008 bytes) */

typedef struct sh_head {
    _Atomic uint32_t seq;
    uint32_t len, tag, ctx;
    unsigned char data[];
} sh_head_t;

typedef struct sh_chan {
    _Atomic uint64_t matched SL_ALIGNED_LINE; /* written by the receiver (a ring per sender) */
    _Atomic uint64_t consumed;                /* by the receiver: ring lines read */
    _Atomic uint32_t attached SL_ALIGNED_LINE; /* by the sender, at set-up: it uses the ring */
    /* leased: 0 free, else its owner's rank + 1; a sender claims a free
     * channel by compare-and-swap, its receiver frees it ("Leases" below) */
    _Atomic uint32_t owner;
    unsigned char ring[] SL_ALIGNED_LINE;
} sh_chan_t;

typedef struct sh_area {
    _Atomic uint32_t sleeping SL_ALIGNED_LINE; /* the receiver announces a sleep */
    uint32_t lines, max, size;                 /* geometry, fixed at init */
    uint32_t nchan;                            /* leased channels (0: one per sender) */
    _Atomic uint32_t want;    /* leased: a sender found no channel free */
    _Atomic uint64_t reclaim; /* leased: bit i asks channel i's owner to give it back */
    /* one per sender: its channel (a ring per sender), or (leased) the
     * `matched` words of every sender, then the channels */
    unsigned char chans[] SL_ALIGNED_LINE;
} sh_area_t;

/* A short message no receive has claimed yet. */
typedef struct sh_msg {
    sl_list_t link;
    int src;
    uint32_t tag, ctx, len;
    unsigned char data[];
} sh_msg_t;

typedef struct sh_peer {
    /* sending to it: our channel in its area (leased: NULL while we hold none) */
    sh_area_t *area;
    sh_chan_t *out;
    _Atomic uint64_t *matched; /* its count of our Portals messages it matched */
    int chan;                  /* leased: the channel we hold (-1: none) */
    uint32_t claim_wait, claim_backoff; /* leased: sends before the next claim attempt */
    uint32_t lines;
    uint64_t tx, cons;    /* next line we write; the receiver has read up to cons (or more) */
    uint32_t hot;         /* lines of the ring's start we reuse when it is empty */
    bool asked;           /* `consumed` was read for that in this pass over the ring */
    size_t max;           /* largest message its ring takes */
    bool portals;         /* sending through Portals now */
    uint64_t psent;       /* Portals messages to it that a receive must match */
    /* receiving from it */
    _Atomic uint64_t *in_matched; /* our count of its Portals messages matched */
    uint64_t pmatched;
    bool deferring; /* it sends by our ring: its receives may stay off the engine */
} sh_peer_t;

/* A channel of our area as its receiver sees it: a sender's ring, or a
 * leased channel. */
typedef struct sh_rx {
    sh_chan_t *in;
    uint64_t rx;   /* next line to read */
    int src;       /* its sender (leased: -1 while free or not yet seen) */
    uint64_t seen; /* leased: rx at the last reclaim decision */
    uint64_t since; /* leased: when (in leases) its owner was first seen */
} sh_rx_t;

static struct {
    size_t max; /* SLUICE_SHORT_MAX (0: off) */
    size_t hot; /* SLUICE_SHORT_HOT */
    uint32_t lines; /* of each sender's ring */
    size_t chan_bytes;
    sh_area_t *area; /* ours */
    sh_peer_t *peers;
    sh_rx_t *rxs; /* our channels: one per rank (ours unused), or the leased ones */
    int nrx;
    uint32_t nchan; /* SLUICE_FAST_PEERS (0: a ring per sender) */
    int *held;      /* leased: the receivers whose channels we hold */
    int nheld;
    bool routing;   /* in wait_room: a lease of ours is not given back meanwhile */
    uint64_t leases;    /* owners seen on our channels (their order) */
    uint64_t reclaim_at; /* the last reclaim decision (ns) */
    int64_t idle_ns;     /* SLUICE_FAST_IDLE_US */
    sl_list_t posted, unexp;
    unsigned deferred; /* posted receives not on the engine's list */
    int64_t spin_ns; /* p2p_wait's ring poll */
    int64_t room_ns; /* wait_room: a receiver that reads nothing this long is busy */
    bool any_in;     /* some sender has a ring into ours (p2p_short_ready) */
} S;

/* Bytes of the `matched` words of a leased area with `size` senders. */
static size_t matched_bytes(size_t size)
{
    return (size * sizeof(uint64_t) + SH_LINE - 1) / SH_LINE * SH_LINE;
}

/* Channel i: rank i's ring (nchan 0), or leased channel i. */
static sh_chan_t *chan_at(const sh_area_t *a, size_t chan_bytes, uint32_t nchan, int i)
{
    size_t skip = nchan ? matched_bytes(a->size) : 0;
    return (sh_chan_t *)(a->chans + skip + (size_t)i * chan_bytes);
}

/* Leased: the `matched` word of sender src. */
static _Atomic uint64_t *matched_at(sh_area_t *a, int src)
{
    return (_Atomic uint64_t *)(void *)a->chans + src;
}

/* The line at ring position n (positions only grow). */
static sh_head_t *line_at(sh_chan_t *c, uint32_t lines, uint64_t n)
{
    return (sh_head_t *)(c->ring + (size_t)(n & (lines - 1)) * SH_LINE);
}

/* Lines a message of len bytes takes. */
static uint32_t span_of(size_t len)
{
    return (uint32_t)((SH_HDR + len + SH_LINE - 1) / SH_LINE);
}

/* Lines the head at c covers (its writer's view: len and ctx as written). */
static uint32_t head_span(const sh_head_t *c)
{
    return c->ctx == SH_SKIP ? c->len : span_of(c->len);
}

/* ---- set-up --------------------------------------------------------------------------- */

/* Lines of each sender's ring in a job of `size` ranks.  Rings for every
 * sender come out of one budget, so that the memory a rank receives into
 * does not grow with the job (64 KiB per sender was 16 MiB per rank, 4 GiB
 * per host, at 256 ranks).  A power of two: positions map to lines by a
 * mask, not a division. */
static uint32_t short_lines(int size, long ring, long budget)
{
    if (budget && size > 1 && ring > budget / (size - 1)) ring = budget / (size - 1);
    if (ring < SH_MIN_RING) ring = SH_MIN_RING;
    return 1u << (63 - __builtin_clzl((unsigned long)(ring / SH_LINE)));
}

/* Bytes of a channel (its receiver's and sender's lines and its ring), and
 * of an area of `size` of them behind the header. */
static size_t chan_bytes_of(uint32_t lines)
{
    return sizeof(sh_chan_t) + (size_t)lines * SH_LINE;
}

static size_t area_bytes(size_t size, uint32_t lines, uint32_t nchan)
{
    if (nchan) return sizeof(sh_area_t) + matched_bytes(size) + nchan * chan_bytes_of(lines);
    return sizeof(sh_area_t) + size * chan_bytes_of(lines);
}

/* Leased channels in a job of `size` ranks (0: a ring per sender): no more
 * than there are senders. */
static uint32_t lease_chans(int size, long fast)
{
    return fast <= 0 ? 0 : fast < size - 1 ? (uint32_t)fast : (uint32_t)(size - 1);
}

size_t p2p_short_plan(int size, size_t *ring_bytes)
{
    long max, ring, budget, fast;
    *ring_bytes = 0;
    if (size < 2 || sl_param_int(SL_PARAM_SHORT_MAX, &max) ||
        sl_param_int(SL_PARAM_SHORT_RING, &ring) || sl_param_int(SL_PARAM_SHORT_BUDGET, &budget) ||
        sl_param_int(SL_PARAM_FAST_PEERS, &fast) || max == 0)
        return 0;
    uint32_t nchan = lease_chans(size, fast);
    uint32_t lines = short_lines(nchan ? (int)nchan + 1 : size, ring, budget);
    *ring_bytes = (size_t)lines * SH_LINE;
    return area_bytes((size_t)size, lines, nchan);
}

sl_status_t p2p_short_init(void)
{
    long max, ring, hot, spin, budget, fast, idle;
    if (sl_param_int(SL_PARAM_SHORT_MAX, &max) || sl_param_int(SL_PARAM_SHORT_RING, &ring) ||
        sl_param_int(SL_PARAM_SHORT_HOT, &hot) || sl_param_int(SL_PARAM_SPIN_US, &spin) ||
        sl_param_int(SL_PARAM_SHORT_BUDGET, &budget) ||
        sl_param_int(SL_PARAM_FAST_PEERS, &fast) || sl_param_int(SL_PARAM_FAST_IDLE_US, &idle))
        return SL_ERR_CONFIG;
    S = (typeof(S)){0};
    sl_list_init(&S.posted);
    sl_list_init(&S.unexp);
    /* forced protocols mean those protocols; the eager limit bounds it too */
    if (P.proto != P2P_PROTO_AUTO || P.size < 2) max = 0;
    /* a message taken back from the ring is resent from the volatile MD */
    if ((size_t)max > P.eager_limit) max = (long)P.eager_limit;
    if ((size_t)max > P.volatile_max) max = (long)P.volatile_max;
    if (!(S.peers = calloc((size_t)P.size, sizeof *S.peers))) return SL_ERR_NOMEM;
    for (int i = 0; i < P.size; i++) S.peers[i].chan = -1;
    S.nchan = lease_chans(P.size, fast);
    S.idle_ns = idle * 1000;
    S.nrx = S.nchan ? (int)S.nchan : P.size;
    if (!(S.rxs = calloc((size_t)S.nrx, sizeof *S.rxs)) ||
        (S.nchan && !(S.held = calloc((size_t)P.size, sizeof *S.held)))) {
        free(S.rxs);
        free(S.peers);
        S = (typeof(S)){0};
        return SL_ERR_NOMEM;
    }
    /* the rings are polled briefly: an engine wait follows (util/wait.h) */
    int64_t pol = sl_wait_policy().spin_ns;
    S.spin_ns = pol < SL_WAIT_POLL_NS ? pol : SL_WAIT_POLL_NS;
    S.room_ns = spin * 1000;
    /* leased: the budget is shared by the channels, not the senders */
    S.lines = short_lines(S.nchan ? (int)S.nchan + 1 : P.size, ring, budget);
    /* an empty ring takes the largest message wherever it starts: at most
     * half the ring, so that its wrap (skip) and it fit together */
    size_t fit = (size_t)(S.lines / 2) * SH_LINE - SH_HDR;
    if ((size_t)max > fit) max = (long)fit;
    if (max == 0) return SL_OK;
    S.max = (size_t)max;
    S.hot = (size_t)hot;
    S.chan_bytes = chan_bytes_of(S.lines);
    size_t len = area_bytes((size_t)P.size, S.lines, S.nchan);
    void *mem;
    if (PtlSluiceMemAlloc(P.ni, len, &mem) != PTL_OK) {
        sl_log_debug("p2p: no shared heap for %zu bytes of short-message rings: path off", len);
        return SL_OK;
    }
    /* Zero without touching: a ring's pages become resident only when its
     * sender writes there, so a rank pays for the senders that talk to it
     * (an 8-byte conversation stays in the ring's first page). */
    sl_mem_zero_lazy(mem, len);
    S.area = mem;
    S.area->lines = S.lines;
    S.area->max = (uint32_t)S.max;
    S.area->size = (uint32_t)P.size;
    S.area->nchan = S.nchan;
    for (int i = 0; i < S.nrx; i++)
        S.rxs[i] = (sh_rx_t){.in = chan_at(S.area, S.chan_bytes, S.nchan, i),
                             .src = S.nchan ? -1 : i};
    for (int i = 0; i < P.size; i++)
        S.peers[i].in_matched = S.nchan ? matched_at(S.area, i) : &S.rxs[i].in->matched;
    return SL_OK;
}

uint64_t p2p_short_addr(void)
{
    return (uint64_t)(uintptr_t)S.area;
}

void p2p_short_attach(int peer, uint64_t addr)
{
    ptl_process_t id = {.rank = (ptl_rank_t)peer};
    sh_area_t *a;
    if (!S.max || !addr || peer == P.rank ||
        PtlSluiceMemAttach(P.ni, id, addr, sizeof *a, (void **)&a) != PTL_OK)
        return;
    uint32_t lines = a->lines, amax = a->max, nchan = a->nchan;
    size_t chan_bytes = chan_bytes_of(lines);
    size_t len = area_bytes(a->size, lines, nchan);
    /* every rank must agree on leasing (the SLUICE_FAST_PEERS setting) */
    if (a->size != (uint32_t)P.size || !amax || (lines & (lines - 1)) ||
        span_of(amax) > lines / 2 || nchan != S.nchan ||
        PtlSluiceMemAttach(P.ni, id, addr, len, (void **)&a) != PTL_OK)
        return;
    sh_peer_t *p = &S.peers[peer];
    p->area = a;
    p->lines = lines;
    p->hot = S.hot && S.hot / SH_LINE < lines ? (uint32_t)(S.hot / SH_LINE) : lines;
    p->max = amax < S.max ? amax : S.max;
    if (nchan) { /* no channel until we claim one: Portals meanwhile */
        p->matched = matched_at(a, P.rank);
        p->portals = true;
        return;
    }
    p->out = chan_at(a, chan_bytes, 0, P.rank);
    p->matched = &p->out->matched;
    atomic_store_explicit(&p->out->attached, 1, memory_order_relaxed); /* the fence publishes */
}

void p2p_short_ready(void)
{
    /* leased: every sender starts by Portals */
    for (int i = 0; S.area && !S.nchan && i < P.size; i++) {
        S.peers[i].deferring =
            i != P.rank && atomic_load_explicit(&S.rxs[i].in->attached, memory_order_relaxed);
        S.any_in |= S.peers[i].deferring;
    }
}

void p2p_short_fini(void)
{
    sl_list_t *pos, *tmp;
    sl_list_for_each_safe(pos, tmp, &S.unexp) {
        sl_list_remove(pos);
        free(sl_list_entry(pos, sh_msg_t, link));
    }
    if (S.area) PtlSluiceMemFree(P.ni, S.area);
    free(S.peers);
    free(S.rxs);
    free(S.held);
    S = (typeof(S)){0};
}

/* ---- sending ------------------------------------------------------------------------------ */

/* Where tx is in the ring. */
static uint32_t ring_off(const sh_peer_t *p)
{
    return (uint32_t)(p->tx & (p->lines - 1));
}

/* Would a message of k lines at offset off pass the ring's hot start (and
 * so go back to the start if the ring were empty)? */
static bool past_hot(const sh_peer_t *p, uint32_t off, uint32_t k)
{
    return off && off + k > p->hot;
}

/* Lines to leave (a skip head) before a message of k lines at tx: up to
 * the ring's end where the message would pass it; also where it would
 * pass the ring's hot start and the receiver has read everything (as far
 * as we know).  A conversation then reuses the same lines, still in both
 * caches (a 1-KiB ping-pong walking a 64-KiB ring ran 1.4x slower), and a
 * stream, whose ring is never empty, uses all of it. */
static uint32_t gap(const sh_peer_t *p, uint32_t k)
{
    uint32_t off = ring_off(p);
    if (off + k > p->lines || (past_hot(p, off, k) && p->cons == p->tx)) return p->lines - off;
    return 0;
}

/* Do a message of k lines and the skip it needs fit, by what we know of
 * the receiver's reading? */
static bool fits(const sh_peer_t *p, uint32_t k)
{
    return p->tx + gap(p, k) + k - p->cons <= p->lines;
}

/* Room at tx for a message of k lines and the skip it may need.  The
 * receiver's `consumed` is read only when what we last saw of it says the
 * ring is full, and once per pass where a message would pass the hot
 * start (is the ring empty?). */
static bool room(sh_peer_t *p, uint32_t k)
{
    uint32_t off = ring_off(p);
    bool ask = !p->asked && p->cons != p->tx && off + k <= p->lines && past_hot(p, off, k);
    if (!ask && fits(p, k)) return true;
    p->asked |= ask;
    p->cons = atomic_load_explicit(&p->out->consumed, memory_order_acquire);
    return fits(p, k);
}

/* The ring is full.  While its receiver keeps reading, wait for room,
 * making progress (two ranks sending to each other drain each other's
 * rings): a stream then runs at the receiver's pace instead of switching
 * to Portals at every full ring.  A receiver that reads nothing for the
 * wait's spin budget (SLUICE_SPIN_US) is busy outside the library: false,
 * the caller switches.  (With the ring poll's 10 us, bidirectional 4 KiB
 * windows switched every ~170 sends, at half the bandwidth: a receiver in
 * the library pauses that long now and then.) */
static bool wait_room(sh_peer_t *p, uint32_t k)
{
    uint64_t seen = p->cons, until = sl_now_ns() + (uint64_t)S.room_ns;
    for (unsigned i = 1;; i++) {
        if (room(p, k)) return true;
        if (p->cons != seen) { /* it reads: keep waiting */
            seen = p->cons;
            until = sl_now_ns() + (uint64_t)S.room_ns;
        } else if ((i & 15) == 0 && sl_now_ns() >= until) {
            return false;
        }
        if ((i & 15) == 0) {
            /* p's lease must outlive the wait: none is given back meanwhile */
            bool was = S.routing;
            S.routing = true;
            p2p_progress();
            S.routing = was;
        }
        sl_wait_pause();
    }
}

/* Write a head at tx and publish it (the payload is in place). */
static void post(sh_peer_t *p, uint32_t len, uint32_t tag, uint32_t ctx, uint32_t k)
{
    sh_head_t *c = line_at(p->out, p->lines, p->tx);
    c->len = len;
    c->tag = tag;
    c->ctx = ctx;
    /* publishes the message, and is the full fence the sleeper check needs */
    atomic_exchange_explicit(&c->seq, SH_SEQ(p->tx), memory_order_seq_cst);
    p->tx += k;
    if (!ring_off(p)) p->asked = false; /* a new pass */
}

/* Put a message at tx (room() said it fits) and wake the receiver if it
 * sleeps. */
static void publish(sh_peer_t *p, int dst, const void *data, uint32_t len, uint32_t tag,
                    uint32_t ctx)
{
    uint32_t k = span_of(len), skip = gap(p, k);
    if (skip) {
        P.stats.short_back += skip >= k; /* the message would have fitted before the end */
        post(p, skip, 0, SH_SKIP, skip);
    }
    if (len) memcpy(line_at(p->out, p->lines, p->tx)->data, data, len);
    post(p, len, tag, ctx, k);
    if (atomic_load_explicit(&p->area->sleeping, memory_order_relaxed) &&
        atomic_exchange_explicit(&p->area->sleeping, 0, memory_order_relaxed))
        p2p_notify((ptl_process_t){.rank = (ptl_rank_t)dst}, 0); /* wakes its EQ wait */
}

/* Send the message at c again, by Portals (it was taken back). */
static void resend(sh_peer_t *p, int dst, const sh_head_t *c)
{
    ptl_process_t to = {.rank = (ptl_rank_t)dst};
    int rc = PtlPut(P.md_v, (ptl_size_t)(uintptr_t)c->data, c->len, PTL_NO_ACK_REQ, to, P2P_PT,
                    p2p_mbits(KIND_EAGER, c->ctx, (int)c->tag), 0, NULL, 0);
    if (rc != PTL_OK) /* (a dead peer) the send had completed: say it is lost */
        sl_log_error("p2p: a %u-byte message to rank %d was lost (%d)", c->len, dst, rc);
    p->psent++;
    P.stats.short_resent++;
}

/* Take back the head at n if the receiver has not claimed it: true then.
 * A head the receiver is handling (SH_BUSY) is waited for, since its
 * message must match before any later one can reach the engine. */
static bool take_back(sh_head_t *c, uint64_t n)
{
    _Atomic uint32_t *w = &c->seq;
    uint32_t v = atomic_load_explicit(w, memory_order_acquire);
    for (;;) {
        if (v == SH_BUSY) {
            sched_yield();
            v = atomic_load_explicit(w, memory_order_acquire);
        } else if (v != SH_SEQ(n) ||
                   atomic_compare_exchange_strong_explicit(w, &v, 0, memory_order_acquire,
                                                           memory_order_acquire)) {
            return v == SH_SEQ(n); /* else 0: the receiver had it */
        }
    }
}

/* Switch dst to Portals: take back the messages its receiver has not
 * claimed and send them by Portals, in order, then a marker.  The receiver
 * stops at the first head taken back, so every later one is taken back
 * too. */
static void to_portals(sh_peer_t *p, int dst, uint32_t mark)
{
    uint64_t back = p->tx;
    for (uint64_t n = p->cons; n < p->tx;) {
        sh_head_t *c = line_at(p->out, p->lines, n);
        if (take_back(c, n)) {
            if (back == p->tx) back = n;
            if (c->ctx != SH_MARK && c->ctx != SH_SKIP) {
                resend(p, dst, c);
                P.stats.lease_taken += mark == SH_GIVE;
            }
        }
        n += head_span(c);
    }
    /* the lines are ours again: no payload word of them may pass for a head */
    for (uint64_t n = back; n < p->tx; n++)
        atomic_store_explicit(&line_at(p->out, p->lines, n)->seq, 0, memory_order_relaxed);
    p->cons = back; /* everything before back was read */
    p->tx = back;
    p->portals = true;
    /* the receiver's deferred receives must reach its engine before our
     * Portals messages can be matched there (the ring is empty now) */
    publish(p, dst, NULL, 0, mark, SH_MARK);
}

/* ---- leases (SLUICE_FAST_PEERS): the sender's side ------------------------------------------- */

/* Claim a free channel of dst's area; false (Portals, and the receiver is
 * told a sender waits) when none is.  Attempts back off while none is
 * free (up to 16 sends): each scans the owner words, a line each, and
 * costs less than the Portals send it goes with. */
static bool lease_claim(sh_peer_t *p, int dst)
{
    if (p->claim_wait) {
        p->claim_wait--;
        return false;
    }
    sh_area_t *a = p->area;
    size_t chan_bytes = chan_bytes_of(p->lines);
    for (uint32_t i = 0; i < a->nchan; i++) {
        sh_chan_t *c = chan_at(a, chan_bytes, a->nchan, (int)i);
        uint32_t o = 0;
        if (atomic_load_explicit(&c->owner, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong_explicit(&c->owner, &o, (uint32_t)P.rank + 1,
                                                    memory_order_acquire, memory_order_relaxed)) {
            /* the receiver freed it after reading all of it: positions go
             * on from there, every line's first word is 0 */
            p->out = c;
            p->chan = (int)i;
            p->tx = p->cons = atomic_load_explicit(&c->consumed, memory_order_acquire);
            p->asked = false;
            p->portals = true; /* back to the ring once it matched all we sent by Portals */
            p->claim_backoff = 0;
            S.held[S.nheld++] = dst;
            P.stats.lease_claims++;
            return true;
        }
    }
    if (!atomic_load_explicit(&a->want, memory_order_relaxed))
        atomic_store_explicit(&a->want, 1, memory_order_relaxed);
    p->claim_backoff = p->claim_backoff ? (p->claim_backoff < 16 ? 2 * p->claim_backoff : 16) : 1;
    p->claim_wait = p->claim_backoff;
    return false;
}

/* Does dst's receiver ask for our channel back? */
static bool lease_asked(const sh_peer_t *p)
{
    return (atomic_load_explicit(&p->area->reclaim, memory_order_acquire) >> p->chan) & 1;
}

/* Give our channel in dst's area back: the ring -> Portals switch (take
 * back what the receiver has not claimed, send it by Portals, a marker),
 * its marker saying so; the receiver frees the channel when it reads it. */
static void lease_give_back(sh_peer_t *p, int dst)
{
    to_portals(p, dst, SH_GIVE);
    p->out = NULL;
    p->chan = -1;
    /* others wait for a channel: let them have one first */
    p->claim_backoff = 8;
    p->claim_wait = 8;
    for (int j = 0; j < S.nheld; j++)
        if (S.held[j] == dst) {
            S.held[j] = S.held[--S.nheld];
            break;
        }
    P.stats.lease_given++;
}

/* Give back the channels whose receivers ask for them (a full pass, not
 * while a send waits for room in one); how many. */
static int lease_answer(void)
{
    int n = 0;
    for (int j = 0; !S.routing && j < S.nheld;) {
        int dst = S.held[j];
        sh_peer_t *p = &S.peers[dst];
        if (lease_asked(p)) {
            lease_give_back(p, dst); /* takes it off S.held: j is the next one now */
            n++;
        } else {
            j++;
        }
    }
    return n;
}

static bool lease_any_asked(void)
{
    for (int j = 0; !S.routing && j < S.nheld; j++)
        if (lease_asked(&S.peers[S.held[j]])) return true;
    return false;
}

/* No channel (leased): claim one, or Portals. */
static __attribute__((noinline)) bool lease_route(sh_peer_t *p, int dst)
{
    return p->area && lease_claim(p, dst);
}

int p2p_short_route(int dst, size_t len, bool sync)
{
    sh_peer_t *p = &S.peers[dst];
    if (!p->out && !lease_route(p, dst)) return SH_PORTALS;
    if (p->portals) {
        if (len > p->max || sync ||
            atomic_load_explicit(p->matched, memory_order_acquire) != p->psent)
            return SH_PORTALS;
        p->portals = false; /* nothing of ours waits in its engine */
    }
    uint32_t k = span_of(len);
    if (len <= p->max && !sync && (room(p, k) || wait_room(p, k))) return SH_SHORT;
    to_portals(p, dst, 0);
    return SH_PORTALS;
}

/* p2p_short_put on a leased channel: its receiver may ask for it back (the
 * header line publish has just read): give it back now, with what it has
 * not read yet. */
static __attribute__((noinline)) void put_leased(sh_peer_t *p, const void *buf, size_t len,
                                                 int dst, int tag, unsigned ctx)
{
    publish(p, dst, buf, (uint32_t)len, (uint32_t)tag, ctx);
    if (lease_asked(p)) lease_give_back(p, dst);
}

void p2p_short_put(const void *buf, size_t len, int dst, int tag, unsigned ctx)
{
    sh_peer_t *p = &S.peers[dst];
    if (__builtin_expect(p->chan >= 0, 0)) { /* (a ring per sender: a tail call, as before) */
        put_leased(p, buf, len, dst, tag, ctx);
        return;
    }
    publish(p, dst, buf, (uint32_t)len, (uint32_t)tag, ctx);
}

void p2p_short_portals_sent(int dst)
{
    S.peers[dst].psent++;
}

/* ---- receiving ---------------------------------------------------------------------------- */

/* Does a message from src with tag on ctx match (want_src, want_tag,
 * want_ctx), wildcards included?  For receives and probes alike. */
static bool key_matches(int want_src, int want_tag, unsigned want_ctx, int src, uint32_t tag,
                        uint32_t ctx)
{
    return want_ctx == ctx && (want_src == P2P_ANY_SOURCE || want_src == src) &&
           (want_tag == P2P_ANY_TAG || (uint32_t)want_tag == tag);
}

static void deliver(p2p_req_t *r, int src, uint32_t tag, const void *data, size_t len)
{
    size_t have = len < r->len ? len : r->len;
    if (have) memcpy(r->buf, data, have);
    p2p_recv_resolve(r, src, (int)tag, len);
    p2p_req_done(r);
}

/* Every posted receive but those from ourselves is listed, with or without
 * the ring: the ring claims from the list, and p2p_short_fail_gone fails
 * the receives of ended peers from it. */
void p2p_short_post(p2p_req_t *r)
{
    if (r->src == P.rank) return;
    sl_list_push_tail(&S.posted, &r->plink);
    r->linked = true;
}

bool p2p_short_unpost(p2p_req_t *r)
{
    if (!r->linked) return false;
    sl_list_remove(&r->plink);
    r->linked = false;
    if (!r->deferred) return false;
    r->deferred = false;
    S.deferred--;
    return true;
}

/* May receive r, from a given peer or from MPI_ANY_SOURCE, wait for a
 * peer that has ended (some have: the caller checked)? */
static bool recv_sender_gone(const p2p_req_t *r)
{
    if (r->src == P2P_ANY_SOURCE) return P.any_gone ? P.any_gone(r->ctx) : true;
    return p2p_peer_gone(r->src);
}

void p2p_short_fail_gone(void)
{
    sl_list_t *pos, *tmp;
    sl_list_for_each_safe(pos, tmp, &S.posted) {
        p2p_req_t *r = sl_list_entry(pos, p2p_req_t, plink);
        if (r->done || !recv_sender_gone(r)) continue;
        /* off the engine's list first: one it matched meanwhile completes
         * by its event */
        if (!r->deferred && PtlMEUnlink(r->me) != PTL_OK) continue;
        p2p_short_unpost(r);
        if (r->wild) P.wild_pending--; /* an ANY_TAG receive: resolved, as failed */
        r->st = (p2p_status_t){.source = r->src, .tag = r->tag, .error = SL_ERR_PEER_DEAD};
        if (r->src == P2P_ANY_SOURCE)
            sl_log_error("p2p: a receive from any source fails: a rank of its group has ended");
        else
            sl_log_error("p2p: a receive from rank %d fails: that rank has ended", r->src);
        p2p_req_done(r);
    }
}

bool p2p_short_defer(p2p_req_t *r)
{
    if (!S.area || r->wild || r->src == P.rank || r->len > S.max || !S.peers[r->src].deferring)
        return false;
    r->deferred = true;
    S.deferred++;
    sl_list_push_tail(&S.posted, &r->plink);
    r->linked = true;
    return true;
}

/* Put the deferred receives for src (< 0: all) on the engine's list, in
 * the order they were posted. */
static void flush_deferred(int src)
{
    sl_list_t *pos, *tmp;
    sl_list_for_each_safe(pos, tmp, &S.posted) {
        if (!S.deferred) return;
        p2p_req_t *r = sl_list_entry(pos, p2p_req_t, plink);
        if (!r->deferred || (src >= 0 && r->src != src)) continue;
        r->deferred = false;
        S.deferred--;
        sl_status_t st = p2p_recv_append(r);
        if (st != SL_OK) { /* no entry to be had: the receive fails */
            sl_log_error("p2p: a receive from rank %d could not be posted (%s)", r->src,
                         sl_status_string(st));
            p2p_short_unpost(r);
            r->st.error = st;
            p2p_req_done(r);
        }
    }
}

void p2p_short_flush_for(const p2p_req_t *r)
{
    if (S.deferred) flush_deferred(r->src == P2P_ANY_SOURCE ? -1 : r->src);
}

/* The oldest posted receive the message matches and we can take from the
 * engine; NULL if none.  quick (the events may not have been handled): a
 * first match on the engine's list is left alone and sets *engine, since
 * its unlink is safe from stale handles only after the events. */
static p2p_req_t *claim(int src, uint32_t tag, uint32_t ctx, bool quick, bool *engine)
{
    sl_list_t *pos, *tmp;
    sl_list_for_each_safe(pos, tmp, &S.posted) {
        p2p_req_t *r = sl_list_entry(pos, p2p_req_t, plink);
        if (!key_matches(r->src, r->tag, r->ctx, src, tag, ctx)) continue;
        if (quick && !r->deferred) {
            *engine = true;
            return NULL;
        }
        if (p2p_short_unpost(r) || PtlMEUnlink(r->me) == PTL_OK) return r;
        /* the engine matched it first; its event is on the way */
    }
    return NULL;
}

/* The message at c (its head as checked: h) goes to its receive or our
 * unexpected queue; false
 * (nothing done) when quick and it would claim a receive on the engine's
 * list. */
static bool arrive(int src, const sh_head_t *c, const sh_head_t *h, bool quick)
{
    bool engine = false;
    p2p_req_t *r = claim(src, h->tag, h->ctx, quick, &engine);
    if (engine) return false;
    if (r) {
        deliver(r, src, h->tag, c->data, h->len);
        return true;
    }
    sh_msg_t *m = malloc(sizeof *m + h->len);
    if (!m)
        p2p_die(75, "p2p: rank %d is out of memory for an unexpected %u-byte message", P.rank,
                h->len);
    *m = (sh_msg_t){.src = src, .tag = h->tag, .ctx = h->ctx, .len = h->len};
    memcpy(m->data, c->data, h->len);
    sl_list_push_tail(&S.unexp, &m->link);
    return true;
}

/* Lines the head c at ring position n covers; dies on a head no sender
 * writes (its lines would run past the ring).  The head lies in memory the
 * sender can still write: it is copied to *h first, and only the copy is
 * checked and used. */
static uint32_t read_span(const sh_head_t *c, uint64_t n, int src, sh_head_t *h)
{
    h->len = *(const volatile uint32_t *)&c->len;
    h->tag = *(const volatile uint32_t *)&c->tag;
    h->ctx = *(const volatile uint32_t *)&c->ctx;
    uint32_t off = (uint32_t)(n & (S.lines - 1)), k = head_span(h);
    bool ok = h->ctx == SH_SKIP ? k == S.lines - off : h->len <= S.max && off + k <= S.lines;
    if (!ok)
        p2p_die(70, "p2p: corrupt short-message head from rank %d (%u bytes, context %u)", src,
                h->len, h->ctx);
    return k;
}

/* A leased channel's owner, first seen in its first message (its claim
 * happened before: the head's acquire shows it). */
static int lease_owner(sh_rx_t *ch)
{
    uint32_t o = atomic_load_explicit(&ch->in->owner, memory_order_relaxed);
    if (o == 0 || o > (uint32_t)P.size || o - 1 == (uint32_t)P.rank)
        p2p_die(70, "p2p: a short-message channel of rank %d has a bad owner (%u)", P.rank, o);
    ch->since = ++S.leases;
    return ch->src = (int)o - 1;
}

/* The owner of leased channel ch has given it back and we have read it
 * all: free it for the next sender (who starts where we stopped). */
static void lease_free(sh_rx_t *ch)
{
    uint32_t i = (uint32_t)(ch - S.rxs);
    atomic_fetch_and_explicit(&S.area->reclaim, ~(1ull << i), memory_order_relaxed);
    ch->src = -1;
    ch->seen = ch->rx;
    atomic_store_explicit(&ch->in->owner, 0, memory_order_release);
    P.stats.lease_freed++;
}

/* Take the messages of channel ch in order.  quick: the events may not
 * have been handled; stop (*stopped) at a message that would claim a
 * receive on the engine's list, and leave it in the ring. */
static int take(sh_rx_t *ch, bool quick, bool *stopped)
{
    int n = 0;
    for (;;) {
        sh_head_t *c = line_at(ch->in, S.lines, ch->rx);
        uint32_t v = SH_SEQ(ch->rx);
        if (atomic_load_explicit(&c->seq, memory_order_relaxed) != v ||
            !atomic_compare_exchange_strong_explicit(&c->seq, &v, SH_BUSY, memory_order_acquire,
                                                     memory_order_relaxed))
            break; /* empty, or taken back by the sender */
        int src = ch->src >= 0 ? ch->src : lease_owner(ch);
        sh_peer_t *p = &S.peers[src];
        bool given = false;
        sh_head_t h;
        uint32_t k = read_span(c, ch->rx, src, &h);
        if (h.ctx == SH_MARK) { /* Portals messages follow: engine first */
            if (p->deferring) flush_deferred(src);
            p->deferring = false;
            given = S.nchan && h.tag == SH_GIVE;
        } else if (h.ctx != SH_SKIP) {
            if (!arrive(src, c, &h, quick)) { /* unclaimed again: the sender may take it back */
                atomic_store_explicit(&c->seq, v, memory_order_release);
                *stopped = true;
                break;
            }
            /* a message after a marker: the sender is back, every Portals
             * message of it matched */
            p->deferring = true;
            for (uint32_t j = 1; j < k; j++) /* no payload word may pass for a head */
                atomic_store_explicit(&line_at(ch->in, S.lines, ch->rx + j)->seq, 0,
                                      memory_order_relaxed);
        }
        atomic_store_explicit(&c->seq, 0, memory_order_release);
        ch->rx += k;
        n++;
        /* at once, not after the batch: a sender waiting for room (wait_room)
         * refills behind us while we copy the next message (windowed 4 KiB
         * both ways: 5.5 -> 11 GB/s; a store to a line the sender reads only
         * when it finds the ring full) */
        atomic_store_explicit(&ch->in->consumed, ch->rx, memory_order_release);
        if (given) { /* the channel is empty and no longer its */
            lease_free(ch);
            break;
        }
    }
    return n;
}

static bool ring_ready(void)
{
    for (int i = 0; i < S.nrx; i++) {
        if (i == P.rank && !S.nchan) continue;
        sh_rx_t *ch = &S.rxs[i];
        if (atomic_load_explicit(&line_at(ch->in, S.lines, ch->rx)->seq, memory_order_relaxed))
            return true;
    }
    return false;
}

/* Take every channel's messages (quick: see take); how many. */
static int poll_rings(bool quick, bool *stopped)
{
    int n = 0;
    if (S.area)
        for (int i = 0; i < S.nrx && !*stopped; i++)
            if (i != P.rank || S.nchan) n += take(&S.rxs[i], quick, stopped);
    return n;
}

/* ---- leases: the receiver's side ------------------------------------------------------------ */

/* A sender waits for a channel and none is free: at most once per
 * SLUICE_FAST_IDLE_US, ask one owner to give its channel back (the bit in
 * our header line, which it reads at its next send, and a notice that wakes
 * it if it waits in the engine).  An owner that sent nothing since the last
 * decision first, else the one that holds its channel longest.  It gives it
 * back at its next library call; we free the channel when we read its
 * marker (lease_free). */
static void lease_ask(int i, uint32_t o);

static void lease_reclaim(void)
{
    uint64_t now = sl_now_ns();
    if (now - S.reclaim_at < (uint64_t)S.idle_ns) return;
    S.reclaim_at = now;
    atomic_store_explicit(&S.area->want, 0, memory_order_relaxed);
    uint64_t asked = atomic_load_explicit(&S.area->reclaim, memory_order_relaxed);
    int v = -1;
    uint32_t v_owner = 0;
    uint64_t v_since = 0;
    bool v_idle = false;
    for (int i = 0; i < S.nrx; i++) {
        sh_rx_t *ch = &S.rxs[i];
        bool idle = ch->rx == ch->seen;
        ch->seen = ch->rx;
        /* (an owner that has not written yet counts as idle, the oldest) */
        uint32_t o = atomic_load_explicit(&ch->in->owner, memory_order_relaxed);
        uint64_t since = ch->src < 0 ? 0 : ch->since;
        if (!o) return;                  /* one is free: the sender will find it */
        if ((asked >> i) & 1) continue; /* asked already */
        if (v < 0 || (idle && !v_idle) || (idle == v_idle && since < v_since)) {
            v = i;
            v_owner = o;
            v_since = since;
            v_idle = idle;
        }
    }
    if (v >= 0 && v_owner <= (uint32_t)P.size) lease_ask(v, v_owner);
}

/* Ask the owner of channel i (o: its owner word) to give it back. */
static void lease_ask(int i, uint32_t o)
{
    atomic_fetch_or_explicit(&S.area->reclaim, 1ull << i, memory_order_release);
    P.stats.lease_asked++;
    p2p_notify((ptl_process_t){.rank = (ptl_rank_t)(o - 1)}, 0); /* wakes its EQ wait */
}

int p2p_lease_ask_all(void)
{
    int n = 0;
    if (!S.area || !S.nchan || !P.up) return 0;
    uint64_t asked = atomic_load_explicit(&S.area->reclaim, memory_order_relaxed);
    for (int i = 0; i < S.nrx; i++) {
        uint32_t o = atomic_load_explicit(&S.rxs[i].in->owner, memory_order_relaxed);
        if (o && o <= (uint32_t)P.size && !((asked >> i) & 1)) {
            lease_ask(i, o);
            n++;
        }
    }
    return n;
}

int p2p_short_poll(void)
{
    bool stopped = false;
    int n = poll_rings(false, &stopped);
    if (S.nchan) {
        if (S.area && atomic_load_explicit(&S.area->want, memory_order_relaxed)) lease_reclaim();
        if (S.nheld) n += lease_answer();
    }
    return n;
}

int p2p_short_poll_quick(void)
{
    bool stopped = false;
    int n = poll_rings(true, &stopped);
    return stopped ? -1 : n;
}

void p2p_short_matched(int src)
{
    if (!S.area || src == P.rank || src < 0 || src >= P.size) return;
    sh_peer_t *p = &S.peers[src];
    atomic_store_explicit(p->in_matched, ++p->pmatched, memory_order_release);
}

static sh_msg_t *unexp_find(int src, int tag, unsigned ctx)
{
    sl_list_t *pos, *tmp;
    sl_list_for_each_safe(pos, tmp, &S.unexp) {
        sh_msg_t *m = sl_list_entry(pos, sh_msg_t, link);
        if (key_matches(src, tag, ctx, m->src, m->tag, m->ctx)) return m;
    }
    return NULL;
}

bool p2p_short_recv(p2p_req_t *r)
{
    sh_msg_t *m = S.area ? unexp_find(r->src, r->tag, r->ctx) : NULL;
    if (!m) return false;
    sl_list_remove(&m->link);
    deliver(r, m->src, m->tag, m->data, m->len);
    free(m);
    return true;
}

bool p2p_short_probe(int src, int tag, unsigned ctx, p2p_status_t *st)
{
    sh_msg_t *m = S.area ? unexp_find(src, tag, (uint32_t)ctx) : NULL;
    if (m && st)
        *st = (p2p_status_t){.source = m->src, .tag = (int)m->tag, .sent = m->len,
                             .bytes = m->len, .error = SL_OK};
    return m != NULL;
}

/* ---- waiting ------------------------------------------------------------------------------ */

/* About to sleep in the engine: ask the senders to wake us (a ring message
 * does not).  false: one came meanwhile, do not sleep. */
bool p2p_short_sleep_begin(void)
{
    if (!S.area) return true;
    atomic_store_explicit(&S.area->sleeping, 1, memory_order_seq_cst);
    if (!ring_ready()) return true;
    p2p_short_sleep_end();
    return false;
}

void p2p_short_sleep_end(void)
{
    if (S.area) atomic_store_explicit(&S.area->sleeping, 0, memory_order_relaxed);
}

bool p2p_short_active(void)
{
    return S.area != NULL;
}

bool p2p_short_from(int src)
{
    if (!S.area) return false;
    if (S.nchan) return true; /* leased: any sender may claim a channel */
    if (src == P2P_ANY_SOURCE) return S.any_in;
    return src >= 0 && src < P.size && src != P.rank &&
           atomic_load_explicit(&S.rxs[src].in->attached, memory_order_relaxed);
}

bool p2p_short_leased(void)
{
    return S.area && S.nchan;
}

/* Poll while the wait is young (a short reply comes within microseconds
 * and no engine wait would see it in the ring), then let the caller sleep. */
void p2p_short_spin_init(sl_backoff_t *b)
{
    sl_backoff_init(b, S.spin_ns);
}

bool p2p_short_pending(void)
{
    /* (a receiver asking for a channel back wakes us with a notice: the
     * next full pass gives it back) */
    return (S.area && ring_ready()) || (S.nheld && lease_any_asked());
}
