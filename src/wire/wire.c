/* Wire front end: set-up, message fragmentation, credit parking, progress
 * and waiting.  The ring itself is in shm.c, bulk copies in bulk.c. */
#include "util/log.h"
#include "util/trace.h"
#include "util/wait.h"
#include "util/param.h"
#include "wire/wire_int.h"

#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* A message queued to ourselves. */
typedef struct self_msg {
    sl_list_t link;
    uint8_t type;
    size_t len;
    char data[];
} self_msg_t;

/* The automatic mailbox has at least this many slots (2 MiB, one per rank,
 * shared by all its senders).  With 16 KiB per sender, windowed 1-4 KiB
 * messages stalled for credits (0.27-0.30 of MPICH's bandwidth, 0.42-0.65
 * with 256 KiB); with 256 KiB, windows of 16-32 KiB eager puts found no
 * room to go inline after a few messages and went by cross-memory attach,
 * a system call and page pinning each (windowed 16 KiB 4.5-6.1 GB/s, 32 KiB
 * 5.0-7.2, against 9.9-10.7 and 10.6-11.0 with 2 MiB: docs/WIRE.md).  Jobs
 * of up to 128 ranks per host are affected; the memory is small next to
 * the heap. */
#define WIRE_AUTO_MIN_SLOTS 32768

/* Fastbox cells per sender in a job of `size` ranks: SLUICE_FASTBOX, but
 * at most WIRE_FB_BUDGET bytes of cells per rank in all (at least one cell
 * per sender if any), so they stop growing with the job past 256 ranks. */
#define WIRE_FB_BUDGET (256u * 1024u)
static uint32_t wire_fb_cells(int size, long fb)
{
    if (fb <= 0 || size < 2) return (uint32_t)(fb > 0 ? fb : 0);
    uint32_t most = WIRE_FB_BUDGET / FB_CELL / (uint32_t)(size - 1);
    if (most < 1) most = 1;
    return (uint32_t)fb < most ? (uint32_t)fb : most;
}

/* SLUICE_FLOWCTL: 0 static, 1 dynamic, -1 not a valid name. */
static int wire_flowctl(void)
{
    const char *v = sl_param_str(SL_PARAM_FLOWCTL);
    if (!strcmp(v, "static")) return 0;
    if (!strcmp(v, "dynamic")) return 1;
    sl_log_error("wire: SLUICE_FLOWCTL=%s: use static or dynamic", v);
    return -1;
}

/* The automatic mailbox.  Static: a share of 256 slots per sender.
 * Dynamic: the credit and static regions (credit slots per sender each)
 * plus a dynamic region of 16,384 slots that active senders share, so the
 * mailbox stays at 2 MiB up to about 4,000 ranks. */
static long wire_auto_slots(uint32_t senders, long cslots, bool dynamic)
{
    if (!senders) return 64;
    long slots = dynamic ? 2 * (long)senders * cslots + WIRE_AUTO_MIN_SLOTS / 2
                         : (long)senders * (256 + cslots);
    return slots < WIRE_AUTO_MIN_SLOTS ? WIRE_AUTO_MIN_SLOTS : slots;
}

/* The receiver's private flow-control structures for a job of `size` ranks:
 * dynfc's state, or the static scheme's one counter per sender. */
static size_t fc_struct_bytes(const wire_layout_t *l, int size)
{
    return l->dynamic ? dfc_struct_bytes(size, l->credit_slots)
                      : (size_t)size * sizeof(_Atomic uint32_t);
}

/* The mailbox geometry for a job of `size` ranks under the current
 * settings, with the flow-control scheme `scheme` (WIRE_FC_SETTING: the
 * one SLUICE_FLOWCTL names). */
static sl_status_t wire_layout_for(int size, int scheme, wire_layout_t *out)
{
    long slots, cslots, pkt;
    if (sl_param_int(SL_PARAM_MAILBOX_SLOTS, &slots) ||
        sl_param_int(SL_PARAM_CREDIT_SLOTS, &cslots) || sl_param_int(SL_PARAM_PKT_SLOTS, &pkt))
        return SL_ERR_CONFIG;
    int dynamic = scheme == WIRE_FC_SETTING ? wire_flowctl() : scheme == WIRE_FC_DYNAMIC;
    if (dynamic < 0) return SL_ERR_CONFIG;
    uint32_t senders = (uint32_t)size - 1;
    if (slots == 0) slots = wire_auto_slots(senders, cslots, dynamic);
    fc_layout_t fl;
    char why[256];
    if (fc_layout_make((uint32_t)slots, senders, (uint32_t)cslots, &fl, why, sizeof why)) {
        sl_log_error("wire: %s", why);
        return SL_ERR_CONFIG;
    }
    /* Static: Eq. 3 bounds a packet.  Dynamic: packets are cut to the
     * credits a sender holds (wire_send_frags), so any size is safe. */
    uint32_t max_slots = dynamic ? WIRE_PKT_SLOTS_MAX : fc_max_pkt_slots(fl.quota, fl.threshold);
    if (max_slots > WIRE_PKT_SLOTS_MAX) max_slots = WIRE_PKT_SLOTS_MAX;
    uint32_t pkt_slots = (uint32_t)pkt < max_slots ? (uint32_t)pkt : max_slots;
    *out = (wire_layout_t){
        .slots = fl.slots, .data_slots = fl.data_slots, .credit_slots = fl.credit_slots,
        .quota = dynamic ? fl.credit_slots : fl.quota, .threshold = fl.threshold,
        .pkt_slots = pkt_slots, .dynamic = dynamic,
        .pkt_payload = (size_t)pkt_slots * SHM_SLOT - SHM_PKT_HDR, .pkt_slots_fc = max_slots};
    return SL_OK;
}

sl_status_t wire_memory_plan(int size, int scheme, wire_mem_t *out)
{
    if (size < 1 || !out ||
        (scheme != WIRE_FC_SETTING && scheme != WIRE_FC_STATIC && scheme != WIRE_FC_DYNAMIC))
        return SL_ERR_INVALID;
    wire_layout_t l;
    long fb, chans, chunk, heap;
    if (wire_layout_for(size, scheme, &l) || sl_param_int(SL_PARAM_FASTBOX, &fb) ||
        sl_param_int(SL_PARAM_STAGE_CHANNELS, &chans) ||
        sl_param_int(SL_PARAM_STAGE_CHUNK, &chunk) || sl_param_int(SL_PARAM_SHM_HEAP, &heap))
        return SL_ERR_CONFIG;
    shm_plan_t pl;
    shm_plan(size, l.slots, wire_fb_cells(size, fb), (uint32_t)chans, (uint32_t)chunk, &pl);
    uint64_t senders = (uint64_t)size - 1, cr = senders * l.credit_slots;
    *out = (wire_mem_t){
        .dynamic = l.dynamic, .slots = l.slots,
        .ring = (uint64_t)l.slots * SHM_SLOT, .credit_region = cr * SHM_SLOT,
        .static_region = (l.dynamic ? cr : l.data_slots) * SHM_SLOT,
        .dynamic_region = l.dynamic ? ((uint64_t)l.data_slots - cr) * SHM_SLOT : 0,
        .fastbox = pl.stage_off - pl.fb_off, .staging = pl.heap_off - pl.stage_off,
        .header = pl.ring_off, .segment = pl.heap_off, .heap = heap > 0 ? (uint64_t)heap : 0,
        .fc_private = fc_struct_bytes(&l, size)};
    return SL_OK;
}

/* Every waiter of this process spins, yields and sleeps by one policy,
 * made of the wire's settings (the budget capped when oversubscribed). */
static void wire_policy_apply(wire_t *w)
{
    sl_wait_policy_set(w->spin_ns, w->oversubscribed, w->yield);
    w->spin_ns = sl_wait_policy().spin_ns;
}

static sl_status_t wire_config(wire_t *w)
{
    long spin, piggy, check, yield, fb;
    if (sl_param_int(SL_PARAM_FASTBOX, &fb) || sl_param_int(SL_PARAM_SPIN_US, &spin) ||
        sl_param_int(SL_PARAM_PIGGYBACK, &piggy) || sl_param_int(SL_PARAM_WIRE_CHECK, &check) ||
        sl_param_int(SL_PARAM_YIELD, &yield))
        return SL_ERR_CONFIG;
    sl_status_t st = wire_layout_for(w->size, WIRE_FC_SETTING, &w->layout);
    if (st == SL_OK) st = tp_host_name(w);
    if (st != SL_OK) return st;
    w->fb_cells = wire_fb_cells(w->size, fb);
    w->spin_ns = spin * 1000;
    w->piggyback = piggy != 0;
    w->check = check != 0;
    if (yield < 0) { /* automatic: a process bound to one CPU does not yield */
        cpu_set_t set;
        yield = sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) > 1;
    }
    w->yield = yield != 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    w->oversubscribed = cpus > 0 && w->size > cpus; /* every rank counted: a safe bound */
    wire_policy_apply(w);
    return SL_OK;
}

static wire_t *wire_alloc(boot_t *boot, wire_recv_fn cb, void *cb_arg)
{
    const boot_info_t *bi = boot_get_info(boot);
    wire_t *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->peers = calloc((size_t)bi->size, sizeof *w->peers);
    if (!w->peers) {
        free(w);
        return NULL;
    }
    w->boot = boot;
    w->rank = bi->rank;
    w->size = bi->size;
    w->cb = cb;
    w->cb_arg = cb_arg;
    for (int r = 0; r < w->size; r++) {
        pthread_mutex_init(&w->peers[r].lock, NULL);
        sl_list_init(&w->peers[r].pending);
        w->peers[r].pidfd = -1;
    }
    pthread_mutex_init(&w->self_lock, NULL);
    sl_list_init(&w->self_q);
    pthread_mutex_init(&w->stage_lock, NULL);
    return w;
}

static void wire_free(wire_t *w)
{
    for (int r = 0; r < w->size; r++) {
        wire_peer_t *p = &w->peers[r];
        sl_list_t *pos, *tmp;
        sl_list_for_each_safe(pos, tmp, &p->pending) free(sl_list_entry(pos, wire_pend_t, link));
        pthread_mutex_destroy(&p->lock);
    }
    sl_list_t *pos, *tmp;
    sl_list_for_each_safe(pos, tmp, &w->self_q) free(sl_list_entry(pos, self_msg_t, link));
    pthread_mutex_destroy(&w->self_lock);
    pthread_mutex_destroy(&w->stage_lock);
    fc_wire_fini(w);
    free(w->scratch);
    free(w->peers);
    free(w);
}

sl_status_t wire_init(boot_t *boot, wire_recv_fn cb, void *cb_arg, wire_t **out)
{
    if (!boot || !cb || !out) return SL_ERR_INVALID;
    wire_t *w = wire_alloc(boot, cb, cb_arg);
    if (!w) return SL_ERR_NOMEM;
    sl_status_t st = wire_config(w);
    if (st != SL_OK) goto free_wire;
    w->scratch = malloc(w->layout.pkt_payload);
    if (!w->scratch || (st = fc_wire_init(w)) != SL_OK) {
        st = SL_ERR_NOMEM;
        goto free_wire;
    }
    /* Let peers attach to us with process_vm_readv even under Yama's
     * ptrace_scope=1 (fails harmlessly where Yama is absent). */
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    st = shm_create(w);
    if (st != SL_OK) goto free_wire;
    /* Every segment exists after this fence; after the next one every rank
     * has mapped every segment, so the names can go: from then on nothing of
     * the job is left in /dev/shm, however a rank ends. */
    if ((st = boot_fence(boot)) != SL_OK) goto detach;
    if ((st = tp_setup(w)) != SL_OK) goto detach;
    fb_bind(w);
    bulk_init(w);
    heap_init(w);
    shm_test_mid_read(w);
    if ((st = boot_fence(boot)) != SL_OK) goto heap;
    shm_unlink_own(w);
    *out = w;
    return SL_OK;
heap:
    heap_fini(w);
detach:
    if (w->ofi) wire_tp_ofi.fini(w);
    shm_detach(w);
free_wire:
    wire_free(w);
    return st;
}

static void wire_print_stats(const wire_t *w)
{
    wire_stats_t s;
    wire_get_stats(w, &s);
    char line[2048];
    int n = snprintf(line, sizeof line, "sluice[%d] wire stats:", w->rank);
#define WIRE_STAT_FIELD_(f)                                                                 \
    if (n > 0 && (size_t)n < sizeof line)                                                   \
        n += snprintf(line + n, sizeof line - (size_t)n, " " #f "=%" PRIu64, s.f);
#include "wire/stats_fields.h"
#undef WIRE_STAT_FIELD_
    fprintf(stderr, "%s\n", line);
    const wire_layout_t *l = &w->layout;
    uint64_t cr = (uint64_t)(w->size - 1) * l->credit_slots * SHM_SLOT;
    fprintf(stderr,
            "sluice[%d] wire memory (%s flow control): segment %zu B shared (mailbox %llu B: "
            "credit region %llu, data %llu; the rest fastbox cells, staging, header), shared "
            "heap %llu B mapped; flow-control structures %zu B private\n",
            w->rank, l->dynamic ? "dynamic" : "static", w->seg_len - (size_t)w->hdr->heap_len,
            (unsigned long long)l->slots * SHM_SLOT, (unsigned long long)cr,
            (unsigned long long)l->data_slots * SHM_SLOT, (unsigned long long)w->hdr->heap_len,
            fc_struct_bytes(l, w->size));
}

sl_status_t wire_fini(wire_t *w)
{
    if (!w) return SL_ERR_INVALID;
    /* from here on, the end of this process is a normal one for the peers */
    atomic_store_explicit(&w->hdr->leaving, 1, memory_order_release);
    if (sl_param_flag(SL_PARAM_STATS)) wire_print_stats(w);
    for (int r = 0; r < w->size; r++)
        if (!sl_list_empty(&w->peers[r].pending))
            sl_log_warn("wire: finalizing with messages to rank %d still waiting for credits "
                        "(call wire_flush first): they are dropped", r);
    bulk_fini(w);
    if (w->ofi) wire_tp_ofi.fini(w);
    heap_fini(w);
    shm_detach(w);
    wire_free(w);
    return SL_OK;
}

int wire_rank(const wire_t *w)
{
    return w->rank;
}

int wire_size(const wire_t *w)
{
    return w->size;
}

const wire_layout_t *wire_get_layout(const wire_t *w)
{
    return &w->layout;
}

void wire_get_stats(const wire_t *w, wire_stats_t *out)
{
#define WIRE_STAT_FIELD_(f) out->f = atomic_load_explicit(&w->stats.f, memory_order_relaxed);
#include "wire/stats_fields.h"
#undef WIRE_STAT_FIELD_
    for (int r = 0; r < w->size; r++) {
        const wire_stats_atomic_t *tx = &w->peers[r].tx;
#define WIRE_STAT_FIELD_(f) out->f += atomic_load_explicit(&tx->f, memory_order_relaxed);
#include "wire/stats_fields.h"
#undef WIRE_STAT_FIELD_
    }
}

/* Number of packets a message of len bytes to p is cut into. */
static size_t wire_frag_count(const wire_peer_t *p, size_t len)
{
    return len == 0 ? 1 : (len + p->pkt_payload - 1) / p->pkt_payload;
}

/* Send fragments from byte `*off` while credits last; returns true when the
 * whole message is out.  Caller holds the peer's lock. */
static bool wire_send_frags(wire_t *w, int dst, uint8_t type, uint16_t msg,
                            const struct iovec *iov, int iovcnt, size_t len, size_t *off,
                            bool parked, bool lazy)
{
    wire_peer_t *p = &w->peers[dst];
    while (*off < len || (len == 0 && *off == 0)) {
        size_t n = len - *off < p->pkt_payload ? len - *off : p->pkt_payload;
        uint32_t k = shm_pkt_slots(n);
        if (p->credits < k && w->layout.dynamic && p->credits > 0 && n > 0) {
            /* dynamic: a sender may hold only its static slots; it sends
             * what they carry, so the receiver sees it active (§6.4) */
            k = p->credits;
            n = (size_t)k * SHM_SLOT - SHM_PKT_HDR;
        }
        if (p->credits < k) return false;
        p->credits -= k;
        uint8_t flags = (*off == 0 ? PF_FIRST : 0) | (*off + n == len ? PF_LAST : 0);
        p->tp->put_pkt(w, dst, type, flags, msg, lazy && !parked, iov, iovcnt, *off, n);
        if (flags == PF_FIRST && atomic_load_explicit(&w->test_mid, memory_order_relaxed))
            shm_test_mid(w);
        WIRE_STAT_OWN(&p->tx, pkts_tx, 1);
        WIRE_STAT_OWN(&p->tx, bytes_tx, n);
        if (parked) WIRE_STAT_OWN(&p->tx, stalled_pkts, 1);
        if (len == 0) {
            *off = 1; /* the one empty packet is out */
            return true;
        }
        *off += n;
    }
    return true;
}

/* Send parked messages in order while credits last.  Caller holds the lock. */
static void wire_drain_pending(wire_t *w, int dst)
{
    wire_peer_t *p = &w->peers[dst];
    sl_list_t *link;
    while ((link = sl_list_head(&p->pending)) != NULL) {
        wire_pend_t *pm = sl_list_entry(link, wire_pend_t, link);
        struct iovec iov = {pm->data, pm->len};
        if (!wire_send_frags(w, dst, pm->type, pm->msg, &iov, 1, pm->len, &pm->off, true, false))
            return;
        sl_list_remove(link);
        free(pm);
        atomic_fetch_sub(&w->parked, 1);
    }
}

void wire_drop_parked(wire_t *w, int peer)
{
    wire_peer_t *p = &w->peers[peer];
    pthread_mutex_lock(&p->lock);
    sl_list_t *pos, *tmp;
    sl_list_for_each_safe(pos, tmp, &p->pending) {
        sl_list_remove(pos);
        free(sl_list_entry(pos, wire_pend_t, link));
        atomic_fetch_sub(&w->parked, 1);
    }
    pthread_mutex_unlock(&p->lock);
}

void wire_credits_arrived(wire_t *w, int peer, uint32_t credits)
{
    wire_peer_t *p = &w->peers[peer];
    pthread_mutex_lock(&p->lock);
    /* Cannot happen with a correct peer: it returns only slots we filled.
     * More would let us overrun its ring, so the job ends (in 64 bits: a
     * hostile count must not wrap round to a plausible one). */
    uint32_t most = w->layout.dynamic ? w->layout.data_slots : w->layout.quota;
    if ((uint64_t)p->credits + credits > most)
        wire_die(w, 70, "wire: rank %d returned %u credits, %u more than its %s of %u allows",
                 peer, credits, (unsigned)((uint64_t)p->credits + credits - most),
                 w->layout.dynamic ? "data region" : "quota", most);
    p->credits += credits;
    wire_drain_pending(w, peer);
    pthread_mutex_unlock(&p->lock);
}

/* A copy of a message to park (the caller's buffer is free after the
 * send); NULL when out of memory. */
static wire_pend_t *pend_copy(uint8_t type, uint16_t msg, bool control, const struct iovec *iov,
                              int iovcnt, size_t len)
{
    wire_pend_t *pm = malloc(sizeof *pm + len);
    if (!pm) return NULL;
    *pm = (wire_pend_t){.type = type, .control = control, .msg = msg, .len = len};
    iov_gather(pm->data, iov, iovcnt, 0, len);
    return pm;
}

/* Park a compulsory request or response ahead of the data waiting for the
 * same peer (paper 001 §6.1), behind only a message already partly sent,
 * whose fragments must stay together, and older control packets. */
static void park_control(wire_t *w, wire_peer_t *p, wire_pend_t *pm)
{
    sl_list_t *pos = p->pending.next;
    while (pos != &p->pending) {
        wire_pend_t *q = sl_list_entry(pos, wire_pend_t, link);
        if (!q->control && q->off == 0) break;
        pos = pos->next;
    }
    sl_list_insert_between_(&pm->link, pos->prev, pos);
    atomic_fetch_add(&w->parked, 1);
}

void wire_send_control(wire_t *w, int dst, uint8_t type, uint32_t value)
{
    wire_peer_t *p = &w->peers[dst];
    pthread_mutex_lock(&p->lock);
    if (atomic_load(&p->dead)) {
        pthread_mutex_unlock(&p->lock);
        return;
    }
    struct iovec iov = {&value, sizeof value};
    if (sl_list_empty(&p->pending) && p->credits >= 1) {
        size_t off = 0;
        wire_send_frags(w, dst, type, 0, &iov, 1, sizeof value, &off, false, false);
    } else {
        wire_pend_t *pm = pend_copy(type, 0, true, &iov, 1, sizeof value);
        /* the peer waits for this answer: losing it would stall the pair */
        if (!pm) wire_die(w, 71, "wire: out of memory parking a flow-control packet");
        park_control(w, p, pm);
        wire_drain_pending(w, dst);
        p->tp->wake(w, dst); /* its drain returns the credits this waits for */
    }
    pthread_mutex_unlock(&p->lock);
}

static sl_status_t wire_send_self(wire_t *w, uint8_t type, const struct iovec *iov, int iovcnt,
                                  size_t len)
{
    self_msg_t *m = malloc(sizeof *m + len);
    if (!m) return SL_ERR_NOMEM;
    m->type = type;
    m->len = len;
    size_t off = 0;
    for (int i = 0; i < iovcnt; i++) {
        if (iov[i].iov_len) memcpy(m->data + off, iov[i].iov_base, iov[i].iov_len);
        off += iov[i].iov_len;
    }
    pthread_mutex_lock(&w->self_lock);
    sl_list_push_tail(&w->self_q, &m->link);
    atomic_fetch_add(&w->self_count, 1);
    pthread_mutex_unlock(&w->self_lock);
    shm_wake(w, w->hdr);
    return SL_OK;
}

/* Ring slots (credits) a message of len bytes to p takes (its packets with
 * their headers). */
static size_t wire_msg_slots(const wire_peer_t *p, size_t len)
{
    size_t need = 0, frags = wire_frag_count(p, len);
    for (size_t i = 0; i < frags; i++) {
        size_t n = i + 1 < frags ? p->pkt_payload : len - i * p->pkt_payload;
        need += shm_pkt_slots(n);
    }
    return need;
}

/* Can a message of need slots go into p's mailbox now?  Caller holds p->lock. */
static bool peer_room(const wire_peer_t *p, size_t need)
{
    return sl_list_empty(&p->pending) && p->credits >= need;
}

bool wire_tx_room(wire_t *w, int dst, size_t len)
{
    if (dst == w->rank) return true;
    if (dst < 0 || dst >= w->size || len > WIRE_MSG_MAX) return false;
    wire_peer_t *p = &w->peers[dst];
    size_t need = wire_msg_slots(p, len);
    pthread_mutex_lock(&p->lock);
    bool room = peer_room(p, need);
    pthread_mutex_unlock(&p->lock);
    return room;
}

static sl_status_t wire_send_x(wire_t *w, int dst, uint8_t type, const struct iovec *iov,
                               int iovcnt, bool lazy)
{
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++) len += iov[i].iov_len;
    if (len > WIRE_MSG_MAX) return SL_ERR_INVALID;
    if (dst == w->rank) return wire_send_self(w, type, iov, iovcnt, len);
    wire_peer_t *p = &w->peers[dst];
    pthread_mutex_lock(&p->lock);
    /* under the lock: a message parked now would miss wire_drop_parked */
    if (atomic_load(&p->dead)) {
        pthread_mutex_unlock(&p->lock);
        return SL_ERR_PEER_DEAD;
    }
    WIRE_STAT_OWN(&p->tx, msgs_tx, 1);
    if (!p->populated && p->hdr) shm_populate_peer(w, p);
    if (fb_try_send(w, dst, type, iov, iovcnt, len, lazy)) {
        pthread_mutex_unlock(&p->lock);
        return SL_OK;
    }
    /* user messages are numbered in send order, whichever way they go */
    uint16_t msg = 0;
    if (type <= WIRE_TYPE_USER_MAX) msg = (uint16_t)p->tx_msgs++;
    size_t need = wire_msg_slots(p, len);
    sl_status_t st = SL_OK;
    if (peer_room(p, need)) {
        size_t off = 0;
        wire_send_frags(w, dst, type, msg, iov, iovcnt, len, &off, false, lazy);
    } else {
        /* Park a copy first, so that NOMEM leaves nothing half sent. */
        wire_pend_t *pm = pend_copy(type, msg, false, iov, iovcnt, len);
        if (!pm) {
            st = SL_ERR_NOMEM;
        } else {
            sl_list_push_tail(&p->pending, &pm->link);
            atomic_fetch_add(&w->parked, 1);
            WIRE_STAT_OWN(&p->tx, stalled_msgs, 1);
            SL_TRACE('i', "wire", "credit stall", 0, "\"peer\":%d,\"bytes\":%zu", dst, len);
            wire_drain_pending(w, dst);
            /* out of credits: the receiver must drain, even if lazy
             * packets have left its progress thread asleep */
            p->tp->wake(w, dst);
        }
    }
    pthread_mutex_unlock(&p->lock);
    return st;
}

sl_status_t wire_send_internal(wire_t *w, int dst, uint8_t type, const struct iovec *iov,
                               int iovcnt)
{
    return wire_send_x(w, dst, type, iov, iovcnt, false);
}

sl_status_t wire_send_internal_lazy(wire_t *w, int dst, uint8_t type, const struct iovec *iov,
                                    int iovcnt)
{
    return wire_send_x(w, dst, type, iov, iovcnt, true);
}

static sl_status_t send_args(const wire_t *w, int dst, uint8_t type, const struct iovec *iov,
                             int iovcnt)
{
    if (!w || dst < 0 || dst >= w->size || type > WIRE_TYPE_USER_MAX || iovcnt < 0 ||
        (iovcnt > 0 && !iov))
        return SL_ERR_INVALID;
    for (int i = 0; i < iovcnt; i++)
        if (iov[i].iov_len && !iov[i].iov_base) return SL_ERR_INVALID;
    return SL_OK;
}

sl_status_t wire_send_lazy(wire_t *w, int dst, uint8_t type, const struct iovec *iov, int iovcnt)
{
    sl_status_t st = send_args(w, dst, type, iov, iovcnt);
    return st != SL_OK ? st : wire_send_x(w, dst, type, iov, iovcnt, true);
}

sl_status_t wire_send(wire_t *w, int dst, uint8_t type, const struct iovec *iov, int iovcnt)
{
    sl_status_t st = send_args(w, dst, type, iov, iovcnt);
    return st != SL_OK ? st : wire_send_internal(w, dst, type, iov, iovcnt);
}

sl_status_t wire_send_buf(wire_t *w, int dst, uint8_t type, const void *buf, size_t len)
{
    struct iovec iov = {(void *)buf, len};
    return wire_send(w, dst, type, &iov, 1);
}

void wire_deliver(wire_t *w, int src, uint8_t type, uint8_t flags, const void *data, size_t len)
{
    if (type > WIRE_TYPE_USER_MAX) {
        bool ofi = type >= WIRE_T_OFI_GET && type <= WIRE_T_OFI_RELEASE;
        if (ofi && w->peers[src].tp == &wire_tp_ofi) ofi_bulk_packet(w, src, type, data, len);
        else if (type == WIRE_T_STAGE && w->peers[src].tp == &wire_tp_shm)
            bulk_stage_request(w, src, data, len);
        else wire_die(w, 70, "wire: packet of unknown type %#x from rank %d", type, src);
        return;
    }
    wire_frag_t f = {.src = src, .type = type, .first = (flags & PF_FIRST) != 0,
                     .last = (flags & PF_LAST) != 0, .data = data, .len = len};
    w->cb(w->cb_arg, &f);
}

bool wire_rx_packet(wire_t *w, wire_rx_t *rx, uint32_t *value)
{
    uint8_t type = rx->type;
    bool own = type == WIRE_T_CREDIT || type == WIRE_T_CREQ || type == WIRE_T_CRESP;
    if (own) {
        if (rx->len != sizeof *value || (type != WIRE_T_CREDIT && !w->layout.dynamic))
            return false;
        memcpy(value, rx->data, sizeof *value);
    }
    if (type == WIRE_T_CREDIT) {
        WIRE_STAT_OWN(&w->stats, credit_pkts_rx, 1);
        rx->credits += *value;
    } else if (!own) {
        WIRE_STAT_OWN(&w->stats, pkts_rx, 1);
        WIRE_STAT_OWN(&w->stats, bytes_rx, rx->len);
        bool user = type <= WIRE_TYPE_USER_MAX;
        wire_peer_t *p = &w->peers[rx->src];
        /* in the sender's order: its fastbox messages numbered before this one first */
        if (user && (rx->flags & PF_FIRST) && (uint16_t)p->rx_msgs != rx->msg)
            fb_catch_up(w, rx->src, rx->msg);
        wire_deliver(w, rx->src, type, rx->flags, rx->data, rx->len);
        if (user && (rx->flags & PF_LAST)) p->rx_msgs++;
    }
    return true;
}

void wire_rx_settle(wire_t *w, const wire_rx_t *rx, uint32_t k, uint32_t value)
{
    if (rx->credits) wire_credits_arrived(w, rx->src, rx->credits);
    fc_wire_retrieved(w, rx->src, rx->type, k, value);
}

static int wire_drain_self(wire_t *w)
{
    if (atomic_load_explicit(&w->self_count, memory_order_acquire) == 0) return 0;
    sl_list_t q;
    sl_list_init(&q);
    pthread_mutex_lock(&w->self_lock);
    while (!sl_list_empty(&w->self_q)) {
        sl_list_t *l = sl_list_head(&w->self_q);
        sl_list_remove(l);
        sl_list_push_tail(&q, l);
    }
    atomic_store(&w->self_count, 0);
    pthread_mutex_unlock(&w->self_lock);
    int n = 0;
    sl_list_t *pos, *tmp;
    sl_list_for_each_safe(pos, tmp, &q) {
        self_msg_t *m = sl_list_entry(pos, self_msg_t, link);
        wire_deliver(w, w->rank, m->type, PF_FIRST | PF_LAST, m->data, m->len);
        free(m);
        n++;
    }
    return n;
}

static int wire_drain(wire_t *w)
{
    int n = 0;
    int expected = 0;
    if (atomic_compare_exchange_strong(&w->draining, &expected, 1)) {
        atomic_store_explicit(&w->drain_stop, false, memory_order_relaxed);
        n += shm_drain(w, 64);
        if (w->fb_cells && !wire_drain_stopped(w)) n += fb_drain(w, 64);
        if (w->ofi && !wire_drain_stopped(w)) n += wire_tp_ofi.drain(w, 64);
        if (!wire_drain_stopped(w)) n += wire_drain_self(w);
        atomic_store_explicit(&w->draining, 0, memory_order_release);
    }
    return n;
}

void wire_drain_stop(wire_t *w)
{
    atomic_store_explicit(&w->drain_stop, true, memory_order_relaxed);
}

/* Work of our own waiting: packets left in the ring or the fastboxes, or
 * a drain cut short after a bulk copy (more may follow). */
static bool wire_own_work(wire_t *w)
{
    return wire_drain_stopped(w) || shm_ring_ready(w) || (w->fb_cells && fb_ready(w));
}

int wire_progress(wire_t *w)
{
    int n = wire_drain(w);
    /* Help with a peer's split copy only when we have nothing of our own
     * to do: a peer that also copies (both ranks sending at once) would
     * only trade pieces with us, paying each piece's pinning and the
     * hand-over waits (bidirectional 128 KiB windows: 15 GB/s helping, 21
     * not) */
    if (atomic_load_explicit(&w->hdr->split_bell, memory_order_relaxed) && !wire_own_work(w))
        bulk_split_answer(w);
    n += bulk_progress(w);
    return n;
}

int wire_progress_light(wire_t *w)
{
    return wire_drain(w);
}

/* Packets waiting in the ring, the fastboxes or the self queue are the
 * work of whichever thread holds the drain.  While another thread holds it
 * (the drain includes the bulk copies the engine serves, tens of
 * microseconds each) they are not ours: a waiting thread that took them for
 * work returned at once, found the drain taken, and came back, spinning at
 * full speed through every copy (a windowed 128 KiB run: a quarter of the
 * sender's CPU, which on 2 cores the receiver needed).  Such a thread
 * sleeps at most WIRE_OWNED_SLICE_NS at a time, so what the owner leaves
 * behind when it lets go is picked up soon even without a wake-up. */
enum { WORK_NONE, WORK_OWNED, WORK_MINE };
#define WIRE_OWNED_SLICE_NS 50000

static int wire_work(wire_t *w)
{
    bool queued = shm_ring_ready(w) || (w->fb_cells && fb_ready(w)) ||
                  atomic_load(&w->self_count) > 0 || (w->ofi && wire_tp_ofi.ready(w));
    if (queued && !atomic_load_explicit(&w->draining, memory_order_relaxed)) return WORK_MINE;
    if (atomic_load(&w->kicked) ||
        atomic_load_explicit(&w->hdr->split_bell, memory_order_relaxed) || bulk_has_work(w))
        return WORK_MINE;
    return queued ? WORK_OWNED : WORK_NONE;
}

/* Sleep on our futex unless work shows up after we announced ourselves. */
/* app: an application thread waiting in the library (lazy packets wake it)
 * rather than the progress thread (they do not). */
static sl_status_t wire_sleep(wire_t *w, int64_t max_ns, bool app)
{
    shm_hdr_t *h = w->hdr;
    uint32_t v = atomic_load_explicit(&h->wake_seq, memory_order_acquire);
    atomic_fetch_add_explicit(&h->sleepers, 1, memory_order_seq_cst);
    if (app) atomic_fetch_add_explicit(&h->app_sleepers, 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst);
    if (w->ofi) wire_tp_ofi.arm(w);
    sl_status_t st = SL_OK;
    int work = wire_work(w);
    if (work != WORK_MINE) {
        WIRE_STAT_INC(w, sleeps, 1);
        bool owned_slice = work == WORK_OWNED && max_ns > WIRE_OWNED_SLICE_NS;
        st = sl_futex_wait(&h->wake_seq, v, owned_slice ? WIRE_OWNED_SLICE_NS : max_ns);
        if (owned_slice && st == SL_ERR_TIMEOUT) st = SL_OK; /* not the caller's slice */
    }
    if (app) atomic_fetch_sub_explicit(&h->app_sleepers, 1, memory_order_relaxed);
    atomic_fetch_sub_explicit(&h->sleepers, 1, memory_order_relaxed);
    return st;
}

/* A sleeping wait re-checks for dead peers after 100 ms, then after twice
 * as long each time up to 1 s: a rank blocked for seconds wakes about once
 * a second instead of ten times, and a death is still seen within ~1 s
 * (a dead process wakes nobody; the launcher's tear-down comes later).
 * Per thread and kept across calls, since callers wait in pieces of 1 s
 * or less; back to 100 ms whenever a wake-up brings work. */
#define WIRE_SLEEP_SLICE_NS 100000000
#define WIRE_SLEEP_SLICE_MAX_NS 1000000000
static __thread int64_t slice_ns = WIRE_SLEEP_SLICE_NS;

sl_status_t wire_wait(wire_t *w, int64_t timeout_ns)
{
    return wire_wait_spin(w, timeout_ns, w->spin_ns);
}

static sl_status_t wire_wait_x(wire_t *w, int64_t timeout_ns, int64_t spin_ns, bool app);

sl_status_t wire_wait_spin(wire_t *w, int64_t timeout_ns, int64_t spin_ns)
{
    return wire_wait_x(w, timeout_ns, spin_ns, true);
}

sl_status_t wire_wait_idle(wire_t *w, int64_t timeout_ns)
{
    return wire_wait_x(w, timeout_ns, 0, false);
}

void wire_host_waits(wire_t *w, bool on)
{
    if (on) atomic_fetch_add_explicit(&w->hdr->waiting, 1, memory_order_relaxed);
    else atomic_fetch_sub_explicit(&w->hdr->waiting, 1, memory_order_relaxed);
}

static sl_status_t wire_wait_loop(wire_t *w, int64_t timeout_ns, int64_t spin_ns, bool app);

/* An application thread's wait here counts as a blocking wait as well
 * (users of the wire without the engine: its tests, its benchmarks). */
static sl_status_t wire_wait_x(wire_t *w, int64_t timeout_ns, int64_t spin_ns, bool app)
{
    if (!app) return wire_wait_loop(w, timeout_ns, spin_ns, false);
    wire_host_waits(w, true);
    sl_status_t st = wire_wait_loop(w, timeout_ns, spin_ns, true);
    wire_host_waits(w, false);
    return st;
}

static sl_status_t wire_wait_loop(wire_t *w, int64_t timeout_ns, int64_t spin_ns, bool app)
{
    uint64_t t0 = sl_now_ns();
    sl_backoff_t bo;
    sl_backoff_init(&bo, spin_ns);
    bool spent = false; /* once asleep, a wake-up without work sleeps again */
    for (;;) {
        if (wire_work(w) == WORK_MINE) {
            atomic_store(&w->kicked, 0);
            return SL_OK;
        }
        if (!spent) {
            if (sl_backoff(&bo)) {
                if (timeout_ns >= 0 && (int64_t)(bo.now - t0) >= timeout_ns) return SL_ERR_TIMEOUT;
                continue;
            }
            spent = true;
        }
        int64_t el = (int64_t)(sl_now_ns() - t0);
        if (timeout_ns >= 0 && el >= timeout_ns) return SL_ERR_TIMEOUT;
        int64_t slice = slice_ns;
        if (timeout_ns >= 0 && timeout_ns - el < slice) slice = timeout_ns - el;
        if (wire_sleep(w, slice, app) == SL_ERR_TIMEOUT) {
            if (wire_check_dead(w)) return SL_ERR_PEER_DEAD;
            if (slice == slice_ns)
                slice_ns = 2 * slice_ns < WIRE_SLEEP_SLICE_MAX_NS ? 2 * slice_ns
                                                                  : WIRE_SLEEP_SLICE_MAX_NS;
        } else {
            slice_ns = WIRE_SLEEP_SLICE_NS; /* woken: work comes, keep watch closely */
        }
    }
}

/* A transport whose provider moves the data in a polling thread of its own
 * (the libfabric sockets provider): a waiter that spins keeps that thread
 * off the CPU, and each message waited for a scheduler slice (1 ms
 * one-way).  Every wait of the process then follows the oversubscribed
 * policy: yield from the start, a short budget. */
void wire_own_cpus_shared(wire_t *w)
{
    w->oversubscribed = true;
    w->yield = true;
    wire_policy_apply(w);
}

bool wire_oversubscribed(const wire_t *w)
{
    return w->oversubscribed;
}

int64_t wire_spin_ns(const wire_t *w)
{
    return w->spin_ns;
}

int wire_parked(const wire_t *w)
{
    return atomic_load(&w->parked);
}

uint32_t wire_peers_gone(const wire_t *w)
{
    return atomic_load_explicit(&w->gone, memory_order_acquire);
}

bool wire_peer_gone(const wire_t *w, int peer)
{
    return peer >= 0 && peer < w->size && peer != w->rank && atomic_load(&w->peers[peer].dead);
}

sl_status_t wire_flush(wire_t *w, int64_t timeout_ns)
{
    if (!w) return SL_ERR_INVALID;
    uint64_t t0 = sl_now_ns();
    while (atomic_load(&w->parked) > 0) {
        if (wire_progress(w) > 0) continue;
        int64_t left = -1;
        if (timeout_ns >= 0) {
            left = timeout_ns - (int64_t)(sl_now_ns() - t0);
            if (left <= 0) return SL_ERR_TIMEOUT;
        }
        sl_status_t st = wire_wait(w, left);
        if (st == SL_ERR_PEER_DEAD) return st;
    }
    return SL_OK;
}

void wire_set_piggyback(wire_t *w, bool on)
{
    atomic_store(&w->piggyback, on);
}

void wire_kick(wire_t *w)
{
    atomic_store(&w->kicked, 1);
    shm_wake(w, w->hdr);
}
