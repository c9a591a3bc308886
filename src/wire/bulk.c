/* One-sided bulk copies.  Cross-memory attach (process_vm_readv/writev)
 * copies once, in the caller's context, large copies split with the peer
 * (below).  Where the kernel refuses it (or
 * SLUICE_CMA=0), the copy is pipelined through two staging buffers of a
 * channel in the initiator's segment: the initiator and the target each copy
 * one chunk while the other copies the previous one. */
#include "util/log.h"
#include "util/param.h"
#include "util/wait.h"
#include "wire/wire_int.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>


static char *stage_buf(const wire_peer_t *owner, int chan, size_t b)
{
    return owner->stage_bufs + ((size_t)chan * 2 + b) * owner->stage_chunk;
}

/* Bytes of a copy of len bytes from off on, at most max. */
static size_t span_len(size_t len, size_t off, size_t max)
{
    return len - off < max ? len - off : max;
}

static size_t chunk_len(size_t len, size_t chunk, size_t i)
{
    return span_len(len, i * chunk, chunk);
}

static size_t chunk_count(size_t len, size_t chunk)
{
    return (len + chunk - 1) / chunk;
}

void bulk_init(wire_t *w)
{
    uint32_t chans = w->hdr->stage_chans;
    w->chan_free = chans >= 64 ? ~0ull : ((1ull << chans) - 1);
    long cma = 1, split = 0;
    sl_param_int(SL_PARAM_CMA, &cma);
    sl_param_int(SL_PARAM_BULK_SPLIT, &split);
    w->split_min = (size_t)split;
    for (int r = 0; r < w->size; r++)
        if (r != w->rank && w->peers[r].tp == &wire_tp_shm)
            w->peers[r].cma = cma && bulk_cma_probe(w, r);
}

/* Read the peer's magic through CMA: proves the kernel lets us in. */
bool bulk_cma_probe(wire_t *w, int peer)
{
    wire_peer_t *p = &w->peers[peer];
    uint64_t magic = 0;
    struct iovec l = {&magic, sizeof magic};
    struct iovec r = {(void *)(uintptr_t)p->hdr->self_addr, sizeof magic};
    ssize_t n = process_vm_readv(p->pid, &l, 1, &r, 1, 0);
    if (n != (ssize_t)sizeof magic || magic != SHM_MAGIC) {
        sl_log_debug("wire: cross-memory attach to rank %d refused (%s); using staged copies",
                     peer, n < 0 ? strerror(errno) : "short read");
        return false;
    }
    return true;
}

bool wire_peer_uses_cma(const wire_t *w, int peer)
{
    return peer >= 0 && peer < w->size && peer != w->rank && w->peers[peer].cma;
}

/* One cross-memory-attach copy between laddr here and raddr in pid. */
static sl_status_t cma_copy(pid_t pid, int kind, char *laddr, uint64_t raddr, size_t len)
{
    size_t done = 0;
    while (done < len) {
        struct iovec l = {laddr + done, len - done};
        struct iovec r = {(void *)(uintptr_t)(raddr + done), len - done};
        ssize_t n = kind == BULK_GET ? process_vm_readv(pid, &l, 1, &r, 1, 0)
                                     : process_vm_writev(pid, &l, 1, &r, 1, 0);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == ESRCH) return SL_ERR_PEER_DEAD;
        if (n < 0 && (errno == EPERM || errno == ENOSYS) && done == 0) return SL_ERR_PERM;
        return SL_ERR_SYS;
    }
    return SL_OK;
}

/* ---- split copies ----------------------------------------------------------------------------
 * One process copying a large message runs at one CPU's copy rate while the
 * peer, often waiting for that very message, idles.  A copy of at least
 * SLUICE_BULK_SPLIT bytes is cut into 32 KiB units; we take units from the
 * front, and invite the peer to take units from the back with the
 * mirror-image copy (it reads what we would write, writes what we would
 * read).  The invitation is a doorbell word in the peer's segment (its
 * split_bell, our rank + 1) and the copy's description in ours; ringing it
 * wakes an application thread of the peer waiting in the library, not a
 * progress thread (as a lazy packet would).  It was a packet: behind a
 * stall for ring credits it came too late to help.  Both claim through one
 * word in our segment, so a peer that comes late finds nothing left and we
 * have copied everything; we only ever wait for units the peer has
 * claimed.  The generation in the word keeps a stale invitation from
 * touching a later copy.
 *
 * Claims are guided (half of what is left, at least one unit): each system
 * call pins and copies a large contiguous range while the peer is absent
 * (a 512 KiB copy done alone is 4 calls, not the 8 of fixed 64 KiB pieces,
 * which cost 35-40% of a lone copy: 9 GB/s per 64 KiB call against 11-13
 * for one call here), and the claims shrink to one unit at the end, so
 * whoever finishes first waits at most for one unit of the other. */
#define SPLIT_UNIT ((size_t)32 << 10)
#define SPLIT_BITS 20
#define SPLIT_MASK ((1ull << SPLIT_BITS) - 1)
#define SPLIT_GEN(c) ((uint32_t)((c) >> (2 * SPLIT_BITS)))
#define SPLIT_LO(c) ((size_t)((c) >> SPLIT_BITS & SPLIT_MASK))
#define SPLIT_HI(c) ((size_t)((c)&SPLIT_MASK))

/* Claim units from the front (front) or the back: [*first, *first + *n);
 * false when none is left or the generation moved on. */
static bool split_claim(_Atomic uint64_t *cursor, uint32_t gen, bool front, size_t *first,
                        size_t *n)
{
    uint64_t c = atomic_load_explicit(cursor, memory_order_acquire);
    for (;;) {
        size_t lo = SPLIT_LO(c), hi = SPLIT_HI(c);
        if (SPLIT_GEN(c) != gen || lo >= hi) return false;
        size_t take = (hi - lo + 1) / 2;
        uint64_t next = front ? c + ((uint64_t)take << SPLIT_BITS) : c - take;
        if (atomic_compare_exchange_weak_explicit(cursor, &c, next, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            *first = front ? lo : hi - take;
            *n = take;
            return true;
        }
    }
}

/* Bytes of units [first, first + n) of a copy of len bytes. */
static size_t split_span(size_t len, size_t first, size_t n)
{
    return span_len(len, first * SPLIT_UNIT, n * SPLIT_UNIT);
}

/* Wait until the peer has finished the `claimed` units it took.  It is
 * copying them right now (claims are made just before the copy), so this
 * is short unless it was descheduled (or stopped), or has died: the wait
 * policy's spin and yield, then 50 us naps (no futex: the peer only stores
 * a count), checking for its death every 16. */
static sl_status_t split_wait_peer(wire_t *w, int peer, uint32_t claimed)
{
    shm_hdr_t *h = w->hdr;
    sl_backoff_t bo;
    sl_backoff_init(&bo, -1);
    for (unsigned naps = 0; atomic_load_explicit(&h->split_done, memory_order_acquire) < claimed;) {
        if (sl_backoff(&bo)) continue;
        nanosleep(&(struct timespec){.tv_nsec = 50000}, NULL);
        if (++naps % 16 != 0) continue;
        wire_check_dead(w);
        if (atomic_load(&w->peers[peer].dead)) return SL_ERR_PEER_DEAD;
    }
    return atomic_load_explicit(&h->split_failed, memory_order_relaxed) ? SL_ERR_SYS : SL_OK;
}

/* Publish the copy generation gen describes (the writer of a seqlock). */
static void split_describe(shm_hdr_t *h, uint32_t gen, const wire_bulk_t *op)
{
    atomic_store_explicit(&h->split_gen, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&h->split_kind, (uint32_t)op->kind, memory_order_relaxed);
    atomic_store_explicit(&h->split_laddr, (uint64_t)(uintptr_t)op->laddr, memory_order_relaxed);
    atomic_store_explicit(&h->split_raddr, op->raddr, memory_order_relaxed);
    atomic_store_explicit(&h->split_len, (uint64_t)op->len, memory_order_relaxed);
    atomic_store_explicit(&h->split_peer, (uint32_t)op->peer, memory_order_relaxed);
    atomic_store_explicit(&h->split_gen, gen, memory_order_release);
}

/* Invite the peer.  Help is optional: if another rank's invitation is
 * still unanswered, this copy goes alone.  The seq_cst compare-and-swap is
 * the full fence the sleeper check needs; the bell wakes like a lazy packet. */
static void split_ring(wire_t *w, wire_peer_t *p)
{
    uint32_t none = 0;
    if (atomic_compare_exchange_strong_explicit(&p->hdr->split_bell, &none,
                                                (uint32_t)w->rank + 1, memory_order_seq_cst,
                                                memory_order_relaxed))
        shm_wake_after_fence(w, p->hdr, true);
}

static sl_status_t bulk_split(wire_t *w, wire_bulk_t *op, size_t units)
{
    wire_peer_t *p = &w->peers[op->peer];
    shm_hdr_t *h = w->hdr;
    uint32_t gen = w->split_gen = w->split_gen % 0xffffff + 1; /* 24 bits, never 0 */
    split_describe(h, gen, op);
    atomic_store_explicit(&h->split_done, 0, memory_order_relaxed);
    atomic_store_explicit(&h->split_failed, 0, memory_order_relaxed);
    atomic_store_explicit(&h->split_cursor, (uint64_t)gen << (2 * SPLIT_BITS) | units,
                          memory_order_release);
    split_ring(w, p);
    sl_status_t st = SL_OK;
    size_t mine = 0, i, n;
    while (st == SL_OK && split_claim(&h->split_cursor, gen, true, &i, &n)) {
        st = cma_copy(p->pid, op->kind, op->laddr + i * SPLIT_UNIT, op->raddr + i * SPLIT_UNIT,
                      split_span(op->len, i, n));
        mine += n;
    }
    /* close the cursor (after a failure units may be left), then count
     * what the peer took */
    uint64_t c = atomic_exchange_explicit(&h->split_cursor, (uint64_t)gen << (2 * SPLIT_BITS),
                                          memory_order_acq_rel);
    size_t left = SPLIT_GEN(c) == gen && SPLIT_LO(c) < SPLIT_HI(c) ? SPLIT_HI(c) - SPLIT_LO(c) : 0;
    uint32_t theirs = (uint32_t)(units - mine - left);
    if (theirs) WIRE_STAT_INC(w, split_pieces_peer, theirs);
    sl_status_t pst = split_wait_peer(w, op->peer, theirs);
    return st != SL_OK ? st : pst;
}

/* Is the peer busy: not waiting in the wire, copying, or with packets to
 * take (in its ring, from anyone, or in our fastbox cells)?  Then it has
 * work of its own, often copies (both ranks sending at once), and would
 * help only after it: a split copy would cost us its extra system calls
 * (3 instead of 1 for 128 KiB) and the wait for the units it claims late.
 * (An exchange of 256 KiB messages took 28.5-31 us with such splits, 23.4
 * without.) */
static bool peer_busy(const wire_t *w, const wire_peer_t *p)
{
    if (!atomic_load_explicit(&p->hdr->waiting, memory_order_relaxed) ||
        atomic_load_explicit(&p->hdr->copying, memory_order_relaxed))
        return true;
    if (atomic_load_explicit(&p->hdr->tail, memory_order_relaxed) !=
        atomic_load_explicit(&p->hdr->head, memory_order_relaxed))
        return true;
    for (uint32_t i = 0; p->fb_out && i < w->fb_cells; i++)
        if (atomic_load_explicit(&p->fb_out[i].seq, memory_order_relaxed)) return true;
    return false;
}

static sl_status_t bulk_cma_copy(wire_t *w, wire_bulk_t *op)
{
    size_t units = chunk_count(op->len, SPLIT_UNIT);
    /* one split copy at a time (there is one claim word): another thread's
     * concurrent copy goes alone */
    if (w->split_min && op->len >= w->split_min && units >= 2 && units <= SPLIT_MASK &&
        !peer_busy(w, &w->peers[op->peer]) &&
        !atomic_exchange_explicit(&w->split_busy, true, memory_order_acquire)) {
        WIRE_STAT_INC(w, split_copies, 1);
        sl_status_t st = bulk_split(w, op, units);
        atomic_store_explicit(&w->split_busy, false, memory_order_release);
        return st;
    }
    return cma_copy(w->peers[op->peer].pid, op->kind, op->laddr, op->raddr, op->len);
}

static sl_status_t bulk_cma(wire_t *w, wire_bulk_t *op)
{
    atomic_fetch_add_explicit(&w->hdr->copying, 1, memory_order_relaxed);
    sl_status_t st = bulk_cma_copy(w, op);
    atomic_fetch_sub_explicit(&w->hdr->copying, 1, memory_order_relaxed);
    return st;
}

/* Read the copy a peer's segment describes (the reader of the seqlock):
 * false if it changed meanwhile (a new copy; its own bell will follow). */
static bool split_read(const shm_hdr_t *h, uint32_t *gen, int *kind, uint64_t *laddr,
                       uint64_t *raddr, size_t *len, int *peer)
{
    uint32_t g = atomic_load_explicit(&h->split_gen, memory_order_acquire);
    *peer = (int)atomic_load_explicit(&h->split_peer, memory_order_relaxed);
    *kind = (int)atomic_load_explicit(&h->split_kind, memory_order_relaxed);
    *laddr = atomic_load_explicit(&h->split_laddr, memory_order_relaxed);
    *raddr = atomic_load_explicit(&h->split_raddr, memory_order_relaxed);
    *len = (size_t)atomic_load_explicit(&h->split_len, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    *gen = g;
    return g != 0 && atomic_load_explicit(&h->split_gen, memory_order_relaxed) == g;
}

/* A peer rang our bell: take units from the back of its split copy while
 * any are left.  Our side of the copy is the mirror image of the peer's:
 * where it reads from us (BULK_GET) we write to it, and the reverse. */
void bulk_split_answer(wire_t *w)
{
    uint32_t bell = atomic_exchange_explicit(&w->hdr->split_bell, 0, memory_order_acquire);
    int src = (int)bell - 1;
    if (src < 0 || src >= w->size || src == w->rank || !w->peers[src].cma) return;
    wire_peer_t *p = &w->peers[src];
    shm_hdr_t *h = p->hdr;
    uint32_t gen;
    int kind;
    uint64_t laddr, raddr;
    size_t len, i, n;
    int peer;
    /* the copy described now may be a later one with another peer (our
     * bell was rung for an earlier copy): its raddr would name memory of
     * that peer, not ours; only a copy with us may be helped */
    if (!split_read(h, &gen, &kind, &laddr, &raddr, &len, &peer) || peer != w->rank) return;
    kind = kind == BULK_GET ? BULK_PUT : BULK_GET;
    for (bool first = true; split_claim(&h->split_cursor, gen, false, &i, &n); first = false) {
        if (first) shm_test_crash(w, "split-help"); /* dies holding a claimed range */
        size_t off = i * SPLIT_UNIT;
        sl_status_t st = cma_copy(p->pid, kind, (char *)(uintptr_t)(raddr + off), laddr + off,
                                  split_span(len, i, n));
        if (st != SL_OK) atomic_store_explicit(&h->split_failed, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&h->split_done, (uint32_t)n, memory_order_release);
        WIRE_STAT_INC(w, split_pieces_helped, n);
    }
}

void bulk_finish(wire_bulk_t *op, sl_status_t st)
{
    op->status = st;
    atomic_store_explicit(&op->done, 1, memory_order_release);
}

/* Start a queued staged op on a free channel, if any: tell the target. */
static void stage_start(wire_t *w, wire_bulk_t *op)
{
    op->chan = __builtin_ctzll(w->chan_free);
    w->chan_free &= ~(1ull << op->chan);
    stage_req_t req = {.kind = (uint16_t)op->kind, .chan = (uint16_t)op->chan,
                       .raddr = op->raddr, .len = op->len};
    struct iovec iov = {&req, sizeof req};
    sl_status_t st = wire_send_internal(w, op->peer, WIRE_T_STAGE, &iov, 1);
    if (st != SL_OK) op->chan = -1 - (int)st; /* remembered, failed by progress */
}

static sl_status_t bulk_stage(wire_t *w, wire_bulk_t *op)
{
    WIRE_STAT_INC(w, staged_ops, 1);
    op->chan = -1;
    op->chunks_moved = op->chunks_filled = 0;
    op->next = NULL;
    pthread_mutex_lock(&w->stage_lock);
    if (w->ops_tail) w->ops_tail->next = op;
    else w->ops_head = op;
    w->ops_tail = op;
    atomic_fetch_add(&w->stage_active, 1);
    pthread_mutex_unlock(&w->stage_lock);
    wire_progress(w);
    return SL_INPROGRESS;
}

/* A copy this process can do itself: to itself, or through a peer's heap
 * mapped here.  memmove: a rank may copy between overlapping ranges of its
 * own memory. */
static void bulk_local_copy(int kind, void *laddr, char *remote, size_t len)
{
    if (kind == BULK_GET) memmove(laddr, remote, len);
    else memmove(remote, laddr, len);
}

sl_status_t bulk_shm(wire_t *w, wire_bulk_t *op)
{
    int peer = op->peer;
    sl_status_t st = SL_OK;
    char *remote;
    if ((remote = heap_translate(w, peer, op->raddr, op->len)) != NULL) {
        WIRE_STAT_INC(w, heap_copies, 1);
        bulk_local_copy(op->kind, op->laddr, remote, op->len);
    } else if (w->peers[peer].cma) {
        st = bulk_cma(w, op);
        if (st == SL_ERR_PERM) {
            sl_log_debug("wire: cross-memory attach to rank %d refused; staging", peer);
            w->peers[peer].cma = false;
            return bulk_stage(w, op);
        }
    } else {
        return bulk_stage(w, op);
    }
    bulk_finish(op, st);
    return st;
}

static sl_status_t bulk_start(wire_t *w, int kind, int peer, uint64_t raddr, void *laddr,
                              size_t len, wire_bulk_t *op)
{
    if (!w || !op || peer < 0 || peer >= w->size || (len && (!laddr || !raddr)))
        return SL_ERR_INVALID;
    *op = (wire_bulk_t){.peer = peer, .kind = kind, .raddr = raddr, .laddr = laddr,
                        .len = len, .chan = -1};
    if (kind == BULK_GET) WIRE_STAT_INC(w, gets, 1);
    else WIRE_STAT_INC(w, puts, 1);
    WIRE_STAT_INC(w, bulk_bytes, len);
    sl_status_t st = SL_OK;
    if (len == 0) {
        /* nothing to move */
    } else if (peer == w->rank) {
        bulk_local_copy(kind, laddr, (char *)(uintptr_t)raddr, len);
    } else if (atomic_load(&w->peers[peer].dead)) {
        st = SL_ERR_PEER_DEAD;
    } else {
        return w->peers[peer].tp->bulk(w, op); /* finishes op unless in progress */
    }
    bulk_finish(op, st);
    return st;
}

sl_status_t wire_get(wire_t *w, int peer, uint64_t raddr, void *laddr, size_t len,
                     wire_bulk_t *op)
{
    return bulk_start(w, BULK_GET, peer, raddr, laddr, len, op);
}

sl_status_t wire_put(wire_t *w, int peer, uint64_t raddr, const void *laddr, size_t len,
                     wire_bulk_t *op)
{
    return bulk_start(w, BULK_PUT, peer, raddr, (void *)laddr, len, op);
}

/* Target side: a peer asks us to feed (GET) or drain (PUT) its channel. */
void bulk_stage_request(wire_t *w, int src, const void *data, size_t len)
{
    stage_req_t req;
    /* A correct peer never sends a malformed request, and one ignored would leave the
     * peer's copy waiting for ever: the job ends. */
    if (len != sizeof req)
        wire_die(w, 70, "wire: staging request of %zu bytes from rank %d", len, src);
    memcpy(&req, data, sizeof req);
    if (req.chan >= w->peers[src].stage_chans || (req.kind != STAGE_GET && req.kind != STAGE_PUT) ||
        !req.raddr || req.raddr + req.len < req.raddr)
        wire_die(w, 70, "wire: malformed staging request from rank %d (kind %u, channel %u of %u, "
                 "%llu bytes at %#llx)", src, req.kind, req.chan, w->peers[src].stage_chans,
                 (unsigned long long)req.len, (unsigned long long)req.raddr);
    stage_job_t *j = calloc(1, sizeof *j);
    if (!j) {
        /* Without the job the peer's op can never finish: fail loudly. */
        boot_abort(w->boot, 71, "wire: out of memory for a staged copy");
    }
    *j = (stage_job_t){.peer = src, .kind = req.kind, .chan = req.chan,
                       .addr = (char *)(uintptr_t)req.raddr, .len = req.len};
    pthread_mutex_lock(&w->stage_lock);
    j->next = w->jobs;
    w->jobs = j;
    atomic_fetch_add(&w->stage_active, 1);
    pthread_mutex_unlock(&w->stage_lock);
}

/* One chunk of a target job between the peer's staging buffer and our own
 * memory at an address the peer named.  The peer's request is input: the
 * copy goes through the kernel (cross-memory attach to ourselves, always
 * allowed, unlike to another process), so an address that is not mapped
 * here ends the job with a message naming the peer instead of a SIGSEGV.
 * Where even that is refused (a seccomp filter), a plain copy. */
static void stage_self_copy(wire_t *w, const stage_job_t *j, char *buf, char *ours, size_t n)
{
    struct iovec l = {buf, n}, r = {ours, n};
    ssize_t got = j->kind == STAGE_GET ? process_vm_readv(getpid(), &l, 1, &r, 1, 0)
                                       : process_vm_writev(getpid(), &l, 1, &r, 1, 0);
    if (got == (ssize_t)n) return;
    if (got < 0 && (errno == ENOSYS || errno == EPERM)) {
        if (j->kind == STAGE_GET) memcpy(buf, ours, n);
        else memcpy(ours, buf, n);
        return;
    }
    wire_die(w, 70, "wire: rank %d asked for a staged %s of %zu bytes at %p, not %s here",
             j->peer, j->kind == STAGE_GET ? "read" : "write", n, (void *)ours,
             j->kind == STAGE_GET ? "readable" : "writable");
}

/* Move chunks of one target job; returns chunks moved.  A GET job fills the
 * initiator's EMPTY buffers, a PUT job drains its FULL ones. */
static int stage_job_step(wire_t *w, stage_job_t *j)
{
    wire_peer_t *owner = &w->peers[j->peer];
    size_t chunk = owner->stage_chunk, total = chunk_count(j->len, chunk);
    int n = 0;
    while (j->chunks_done < total) {
        size_t i = j->chunks_done, b = i % 2, cl = chunk_len(j->len, chunk, i);
        _Atomic uint32_t *state = &owner->chans[j->chan].state[b];
        uint32_t want = j->kind == STAGE_GET ? STAGE_EMPTY : STAGE_FULL;
        if (atomic_load_explicit(state, memory_order_acquire) != want) break;
        stage_self_copy(w, j, stage_buf(owner, j->chan, b),
                        (char *)((uintptr_t)j->addr + i * chunk), cl);
        atomic_store_explicit(state, j->kind == STAGE_GET ? STAGE_FULL : STAGE_EMPTY,
                              memory_order_release);
        j->chunks_done++;
        n++;
    }
    if (n) shm_wake(w, owner->hdr);
    return n;
}

/* Initiator side of one op: drain FULL buffers (GET) or fill EMPTY ones
 * (PUT).  Returns chunks moved; finishes the op when all are through. */
static int stage_op_step(wire_t *w, wire_bulk_t *op)
{
    wire_peer_t *me = &w->peers[w->rank];
    size_t chunk = me->stage_chunk, total = chunk_count(op->len, chunk);
    shm_stage_chan_t *c = &me->chans[op->chan];
    int n = 0;
    if (op->kind == BULK_GET) {
        while (op->chunks_moved < total) {
            size_t i = op->chunks_moved, b = i % 2;
            if (atomic_load_explicit(&c->state[b], memory_order_acquire) != STAGE_FULL) break;
            memcpy(op->laddr + i * chunk, stage_buf(me, op->chan, b), chunk_len(op->len, chunk, i));
            atomic_store_explicit(&c->state[b], STAGE_EMPTY, memory_order_release);
            op->chunks_moved++;
            n++;
        }
    } else {
        while (op->chunks_filled < total) {
            size_t i = op->chunks_filled, b = i % 2;
            if (atomic_load_explicit(&c->state[b], memory_order_acquire) != STAGE_EMPTY) break;
            memcpy(stage_buf(me, op->chan, b), op->laddr + i * chunk, chunk_len(op->len, chunk, i));
            atomic_store_explicit(&c->state[b], STAGE_FULL, memory_order_release);
            op->chunks_filled++;
            n++;
        }
        if (op->chunks_filled == total &&
            atomic_load_explicit(&c->state[0], memory_order_acquire) == STAGE_EMPTY &&
            atomic_load_explicit(&c->state[1], memory_order_acquire) == STAGE_EMPTY)
            op->chunks_moved = total;
    }
    if (n) shm_wake(w, w->peers[op->peer].hdr);
    return n;
}

/* Unlink finished ops and jobs; caller holds stage_lock. */
static int stage_reap(wire_t *w)
{
    int n = 0;
    wire_bulk_t **pp = &w->ops_head, *prev = NULL;
    while (*pp) {
        wire_bulk_t *op = *pp;
        size_t total = chunk_count(op->len, w->peers[w->rank].stage_chunk);
        sl_status_t fail = SL_OK;
        if (op->chan < -1) fail = (sl_status_t)(-1 - op->chan);
        else if (atomic_load(&w->peers[op->peer].dead)) fail = SL_ERR_PEER_DEAD;
        if (fail == SL_OK && (op->chan < 0 || op->chunks_moved < total)) {
            prev = op;
            pp = &op->next;
            continue;
        }
        *pp = op->next;
        if (w->ops_tail == op) w->ops_tail = prev;
        if (op->chan >= 0) w->chan_free |= 1ull << op->chan;
        atomic_fetch_sub(&w->stage_active, 1);
        bulk_finish(op, fail);
        n++;
    }
    stage_job_t **jp = &w->jobs;
    while (*jp) {
        stage_job_t *j = *jp;
        if (j->chunks_done < chunk_count(j->len, w->peers[j->peer].stage_chunk)) {
            jp = &j->next;
            continue;
        }
        *jp = j->next;
        free(j);
        atomic_fetch_sub(&w->stage_active, 1);
    }
    return n;
}

int bulk_progress(wire_t *w)
{
    if (atomic_load_explicit(&w->stage_active, memory_order_acquire) == 0) return 0;
    int n = 0;
    pthread_mutex_lock(&w->stage_lock);
    for (wire_bulk_t *op = w->ops_head; op; op = op->next) {
        if (op->chan == -1 && w->chan_free) stage_start(w, op);
        if (op->chan >= 0) n += stage_op_step(w, op);
    }
    for (stage_job_t *j = w->jobs; j; j = j->next) n += stage_job_step(w, j);
    n += stage_reap(w);
    pthread_mutex_unlock(&w->stage_lock);
    return n;
}

/* Could a step move anything now?  (Checked before sleeping.) */
bool bulk_has_work(wire_t *w)
{
    if (atomic_load_explicit(&w->stage_active, memory_order_acquire) == 0) return false;
    bool work = false;
    pthread_mutex_lock(&w->stage_lock);
    wire_peer_t *me = &w->peers[w->rank];
    for (wire_bulk_t *op = w->ops_head; op && !work; op = op->next) {
        if (op->chan < 0) {
            work = w->chan_free != 0 || op->chan < -1;
            continue;
        }
        size_t i = op->kind == BULK_GET ? op->chunks_moved : op->chunks_filled;
        uint32_t s = atomic_load(&me->chans[op->chan].state[i % 2]);
        work = (op->kind == BULK_GET) ? s == STAGE_FULL : (s == STAGE_EMPTY);
        if (op->kind == BULK_PUT && op->chunks_filled == chunk_count(op->len, me->stage_chunk))
            work = atomic_load(&me->chans[op->chan].state[0]) == STAGE_EMPTY &&
                   atomic_load(&me->chans[op->chan].state[1]) == STAGE_EMPTY;
        if (atomic_load(&w->peers[op->peer].dead)) work = true;
    }
    for (stage_job_t *j = w->jobs; j && !work; j = j->next) {
        wire_peer_t *owner = &w->peers[j->peer];
        uint32_t s = atomic_load(&owner->chans[j->chan].state[j->chunks_done % 2]);
        work = j->kind == STAGE_GET ? s == STAGE_EMPTY : s == STAGE_FULL;
    }
    pthread_mutex_unlock(&w->stage_lock);
    return work;
}

sl_status_t wire_bulk_wait(wire_t *w, wire_bulk_t *op)
{
    if (!w || !op) return SL_ERR_INVALID;
    while (!atomic_load_explicit(&op->done, memory_order_acquire)) {
        if (wire_progress(w) > 0) continue;
        /* a death elsewhere in the job is not this op's: it waits on */
        if (wire_wait(w, -1) == SL_ERR_PEER_DEAD && atomic_load(&w->peers[op->peer].dead)) {
            wire_progress(w); /* reaps ops of the dead peer */
            if (!atomic_load(&op->done)) return SL_ERR_PEER_DEAD;
        }
    }
    return op->status;
}

void bulk_fini(wire_t *w)
{
    pthread_mutex_lock(&w->stage_lock);
    while (w->jobs) {
        stage_job_t *j = w->jobs;
        w->jobs = j->next;
        free(j);
    }
    pthread_mutex_unlock(&w->stage_lock);
}
