/* Dynamic credit flow control, receiver side (paper 001 §6; see dynfc.h). */
#include "wire/dynfc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t *fifo(const dfc_t *d, int s)
{
    return d->thr + (size_t)s * (d->cs + 1);
}

static uint32_t phys_of(const dfc_t *d, int level)
{
    return level == DFC_NULL ? DFC_NULL : (d->base + (uint32_t)level) % 3;
}

int dfc_level(const dfc_t *d, int s)
{
    uint8_t l = d->s[s].list;
    return l == DFC_NULL ? DFC_NULL : (int)((l + 3 - d->base) % 3);
}

uint32_t dfc_threshold(const dfc_t *d, int s)
{
    return fifo(d, s)[d->s[s].thr_head];
}

/* ---- activity lists ---------------------------------------------------- */

static void list_unlink(dfc_t *d, int s)
{
    dfc_sender_t *e = &d->s[s];
    if (e->prev >= 0) d->s[e->prev].next = e->next;
    else d->head[e->list] = e->next;
    if (e->next >= 0) d->s[e->next].prev = e->prev;
    else d->tail[e->list] = e->prev;
    e->prev = e->next = -1;
}

static void list_push(dfc_t *d, int s, uint32_t phys, bool first)
{
    dfc_sender_t *e = &d->s[s];
    e->list = (uint8_t)phys;
    if (first) {
        e->prev = -1;
        e->next = d->head[phys];
        if (e->next >= 0) d->s[e->next].prev = s;
        else d->tail[phys] = s;
        d->head[phys] = s;
    } else {
        e->next = -1;
        e->prev = d->tail[phys];
        if (e->prev >= 0) d->s[e->prev].next = s;
        else d->head[phys] = s;
        d->tail[phys] = s;
    }
}

/* Move s to the first position of a level's list. */
static void move_first(dfc_t *d, int s, int level)
{
    list_unlink(d, s);
    list_push(d, s, phys_of(d, level), true);
}

int dfc_list(const dfc_t *d, int level, int *out, int max)
{
    int n = 0;
    for (int s = d->head[phys_of(d, level)]; s >= 0 && n < max; s = d->s[s].next) out[n++] = s;
    return n;
}

/* ---- set-up ------------------------------------------------------------ */

int dfc_init(dfc_t *d, int n, int self, uint32_t cs, uint32_t data_slots, const dfc_ops_t *ops)
{
    memset(d, 0, sizeof *d);
    d->n = n;
    d->self = self;
    d->cs = cs;
    d->total = data_slots;
    d->ops = *ops;
    d->s = calloc((size_t)n, sizeof *d->s);
    d->thr = calloc((size_t)n * (cs + 1), sizeof *d->thr);
    d->defer_q = calloc((size_t)n, sizeof *d->defer_q);
    if (!d->s || !d->thr || !d->defer_q) {
        dfc_fini(d);
        return -1;
    }
    for (int l = 0; l < 4; l++) d->head[l] = d->tail[l] = -1;
    uint32_t senders = n > 1 ? (uint32_t)n - 1 : 1;
    d->avail = data_slots - cs * (uint32_t)(n - 1);
    for (int s = 0; s < n; s++) {
        dfc_sender_t *e = &d->s[s];
        e->prev = e->next = -1;
        e->list = DFC_NULL;
        if (s == self) continue;
        e->iq = data_slots / senders;
        e->cc = cs;
        for (uint32_t i = 0; i <= cs; i++) fifo(d, s)[i] = 1;
        list_push(d, s, phys_of(d, DFC_LOW), false);
    }
    return 0;
}

void dfc_fini(dfc_t *d)
{
    free(d->s);
    free(d->thr);
    free(d->defer_q);
    d->s = NULL;
    d->thr = NULL;
    d->defer_q = NULL;
}

size_t dfc_struct_bytes(int n, uint32_t cs)
{
    return sizeof(dfc_t) + (size_t)n * (sizeof(dfc_sender_t) + (cs + 1) * sizeof(uint32_t) +
                                        sizeof(int));
}

/* ---- credit stealing (§6.5.2, Fig. 13) -------------------------------- */

static void ask_back(dfc_t *d, int v)
{
    d->s[v].blocked = true;
    d->blocked++;
    d->stats.requests++;
    d->ops.request(d->ops.arg, v);
}

/* Eq. 6: move intended quota from the last sender of the low list to s,
 * never below the victim's static slots. */
static void steal(dfc_t *d, int s)
{
    int v = d->tail[phys_of(d, DFC_LOW)];
    if (v < 0 || v == s) return;
    dfc_sender_t *m = &d->s[s], *vic = &d->s[v];
    uint32_t diff = m->iq > vic->iq ? m->iq - vic->iq : vic->iq - m->iq;
    uint32_t cred = diff / 2 > d->cs + 1 ? diff / 2 : d->cs + 1;
    uint32_t room = vic->iq - d->cs; /* its static slots cannot be stolen */
    if (cred > room) cred = room;
    m->iq += cred;
    vic->iq -= cred;
    if (cred) {
        d->stats.steals++;
        d->stats.stolen += cred;
    }
    if (vic->iq > d->cs) {
        move_first(d, v, DFC_MED); /* let the other low senders give next */
        return;
    }
    list_unlink(d, v);
    list_push(d, v, DFC_NULL, true);
    if (vic->cc > vic->iq && !vic->blocked) ask_back(d, v);
}

/* §6.5.2, Fig. 12: s has consumed what it got since its last monitoring
 * point.  It climbs one level; at the top, it may take from the low list. */
static void monitoring_point(dfc_t *d, int s)
{
    d->stats.monitor_points++;
    int lvl = dfc_level(d, s);
    if (lvl == DFC_LOW || lvl == DFC_MED) {
        move_first(d, s, lvl - 1);
        return;
    }
    /* high, or null (a sender back from idleness must recover quickly) */
    if (d->head[phys_of(d, DFC_LOW)] < 0) {
        d->base = (d->base + 2) % 3; /* high -> medium -> low; the empty low is the new high */
        d->stats.shifts++;
    }
    move_first(d, s, DFC_HIGH);
    steal(d, s);
}

/* ---- the static reserve ---------------------------------------------------- */

/* Slots kept back so that every sender can always be brought back up to
 * its static slots (deficit = cs - cc when positive).  A grant beyond a
 * sender's own deficit may use only the free slots, those not reserved.
 * So a sender never depends on a third party to get credits again: with
 * the paper's single available-slots counter, a sender whose credits were
 * all retrieved could find every slot granted to idle senders and wait
 * until one of them answered a compulsory request, which a rank busy
 * elsewhere does not do (32 ranks hung that way; docs/WIRE.md). */
static uint32_t deficit(const dfc_t *d, uint32_t cc)
{
    return cc < d->cs ? d->cs - cc : 0;
}

static void set_cc(dfc_t *d, int s, uint32_t cc)
{
    d->reserve = d->reserve - deficit(d, d->s[s].cc) + deficit(d, cc);
    d->s[s].cc = cc;
}

/* Most that may be granted to s now. */
static uint32_t room(const dfc_t *d, int s)
{
    return deficit(d, d->s[s].cc) + (d->avail - d->reserve);
}

/* ---- threshold crossings (§6.5.2) -------------------------------------- */

static void defer(dfc_t *d, int s)
{
    if (d->s[s].deferred) return;
    d->s[s].deferred = true;
    d->defer_q[d->defer_len++] = s;
    d->stats.deferrals++;
}

/* Every slot of the data region is granted.  Someone holding more than its
 * static slots must give some back, or a sender whose credits are all
 * retrieved could wait for ever; the paper's "at least 1" credit would
 * overcommit the mailbox.  One such request at a time. */
static void force_return(dfc_t *d, int s)
{
    if (d->blocked) return;
    static const int order[] = {DFC_LOW, DFC_MED, DFC_NULL, DFC_HIGH};
    for (int i = 0; i < 4; i++)
        for (int v = d->tail[phys_of(d, order[i])]; v >= 0; v = d->s[v].prev)
            if (v != s && d->s[v].cc > d->cs) {
                ask_back(d, v);
                return;
            }
}

/* Pop the current threshold, push the credits returned (the invariant
 * cc + rp == sum(FIFO) - 1 holds across), and grant them. */
static void pop_push(dfc_t *d, int s, uint32_t c)
{
    dfc_sender_t *e = &d->s[s];
    uint32_t *f = fifo(d, s);
    e->rp -= f[e->thr_head];
    f[e->thr_head] = c;
    e->thr_head = (e->thr_head + 1) % (d->cs + 1);
    set_cc(d, s, e->cc + c);
    d->avail -= c;
    d->stats.crossings++;
    d->ops.grant(d->ops.arg, s, c);
}

/* Cross every threshold s has reached.  Returns false when one must wait
 * (no slot available, or blocked with its static slots still out). */
static bool cross(dfc_t *d, int s)
{
    dfc_sender_t *e = &d->s[s];
    while (e->rp >= fifo(d, s)[e->thr_head]) {
        if (e->blocked) {
            /* blocked flow: one credit, only to a sender left below its
             * static slots (it may need it to send its response); the
             * reserve always has it */
            if (e->cc >= d->cs) return true;
            pop_push(d, s, 1);
            continue;
        }
        uint32_t r = room(d, s);
        if (r == 0) {
            force_return(d, s);
            return false;
        }
        if (++e->crossings == d->cs + 1) {
            e->crossings = 0;
            monitoring_point(d, s);
        }
        uint32_t t = e->iq / (d->cs + 1) + 1; /* Eq. 1 on the intended quota */
        pop_push(d, s, t < r ? t : r);
    }
    return true;
}

/* Slots came free: let the deferred crossings go, oldest first. */
static void run_deferred(dfc_t *d)
{
    int kept = 0;
    for (int i = 0; i < d->defer_len; i++) {
        int s = d->defer_q[i];
        if (room(d, s) > 0 && cross(d, s)) d->s[s].deferred = false;
        else d->defer_q[kept++] = s;
    }
    d->defer_len = kept;
}

/* A compulsory response gives back x credits the sender held.  They leave
 * the newest thresholds of its FIFO (each kept >= 1), so the invariant
 * holds; this is done before the response's own slot is checked against
 * the threshold, which guarantees room (docs/WIRE.md). */
static void take_back(dfc_t *d, int s, uint32_t x)
{
    dfc_sender_t *e = &d->s[s];
    set_cc(d, s, e->cc - x);
    d->avail += x;
    uint32_t *f = fifo(d, s), n = d->cs + 1;
    for (uint32_t i = 0; i < n && x; i++) {
        uint32_t at = (e->thr_head + n - 1 - i) % n; /* newest first */
        uint32_t cut = f[at] - 1 < x ? f[at] - 1 : x;
        f[at] -= cut;
        x -= cut;
    }
    if (e->blocked) {
        e->blocked = false;
        d->blocked--;
    }
    d->stats.responses++;
}

int dfc_retrieved(dfc_t *d, int s, uint32_t k, bool is_resp, uint32_t resp_credits)
{
    if (s < 0 || s >= d->n || s == d->self) return -1;
    dfc_sender_t *e = &d->s[s];
    /* slot management (§6.5.1) */
    if (k > e->cc) return -1;
    set_cc(d, s, e->cc - k);
    e->rp += k;
    d->avail += k;
    if (is_resp) {
        if (resp_credits > e->cc) return -1;
        d->stats.returned_by_resp += resp_credits;
        take_back(d, s, resp_credits);
    }
    if (d->defer_len) run_deferred(d);
    if (!e->deferred && !cross(d, s)) defer(d, s);
    return 0;
}

/* ---- checking ----------------------------------------------------------- */

#define DFC_FAIL(...)                                                                       \
    do {                                                                                    \
        snprintf(why, len, __VA_ARGS__);                                                    \
        return -1;                                                                          \
    } while (0)

static int check_sender(const dfc_t *d, int s, char *why, size_t len)
{
    const dfc_sender_t *e = &d->s[s];
    uint64_t sum = 0;
    for (uint32_t i = 0; i <= d->cs; i++) {
        if (fifo(d, s)[i] == 0) DFC_FAIL("sender %d: threshold %u of its FIFO is 0", s, i);
        sum += fifo(d, s)[i];
    }
    if ((uint64_t)e->cc + e->rp + 1 != sum)
        DFC_FAIL("sender %d: cc %u + rp %u != thresholds' sum %llu - 1", s, e->cc, e->rp,
                 (unsigned long long)sum);
    if (e->iq < d->cs) DFC_FAIL("sender %d: intended quota %u below its static %u", s, e->iq, d->cs);
    return 0;
}

int dfc_check(const dfc_t *d, char *why, size_t len)
{
    uint64_t cc = 0, iq = 0;
    int members = 0;
    for (int s = 0; s < d->n; s++) {
        if (s == d->self) continue;
        if (check_sender(d, s, why, len)) return -1;
        cc += d->s[s].cc;
        iq += d->s[s].iq;
    }
    if (cc + d->avail != d->total)
        DFC_FAIL("current credits %llu + available %u != data region %u", (unsigned long long)cc,
                 d->avail, d->total);
    if (d->avail < d->reserve)
        DFC_FAIL("available %u below the reserve %u for static slots", d->avail, d->reserve);
    if (iq > d->total)
        DFC_FAIL("intended quotas sum to %llu > data region %u", (unsigned long long)iq, d->total);
    for (int l = 0; l < 4; l++)
        for (int s = d->head[l]; s >= 0; s = d->s[s].next) {
            if (d->s[s].list != l) DFC_FAIL("sender %d on list %d says %u", s, l, d->s[s].list);
            if (++members > d->n) DFC_FAIL("list %d has a cycle", l);
        }
    if (members != d->n - 1) DFC_FAIL("%d senders on the lists, %d expected", members, d->n - 1);
    return 0;
}
