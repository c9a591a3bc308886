/* Dynamic credit flow control (paper 001 §6) on the wire's own code
 * (wire/dynfc.c), without processes:
 *  1. Eq. 7-8 against Table 3;
 *  2. a scripted trace in the manner of §6.7: the first credit returns, a
 *     return cut to the available slots (blocks 1-2 of Fig. 14), senders climbing the activity
 *     lists, steals by Eq. 6 from the oldest low sender, a shift of the
 *     lists, a victim reduced to its static slots that is asked for its
 *     excess (compulsory return) and answers;
 *  3. random floods: senders turning active and idle in phases, packets of
 *     1-8 slots cut to the credits held, senders that read their mailbox
 *     only when stalled (the adversary of Eq. 1).  After every step: credit
 *     conservation and the FIFO invariant (dfc_check), the data in the
 *     ring never above the data region, never more than credit_slots
 *     unread credit packets at a sender; and every message arrives (a
 *     state where nothing can move is reported as a deadlock). */
#include "test.h"
#include "wire/dynfc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. Table 3 -------------------------------------------------------- */

static void table3(void)
{
    static const struct { uint64_t n; double st, dy; } row[] = {
        {1024, 4, 1.14}, {4096, 16, 4.6}, {16384, 64, 18.3}, {65536, 256, 73.3},
        {262144, 1024, 293.5}};
    printf("Table 3 (MB per receiver): n, static Eq. 8 / table, dynamic Eq. 8 / table\n");
    for (size_t i = 0; i < sizeof row / sizeof row[0]; i++) {
        double mb = 1024.0 * 1024.0;
        double st = (double)dfc_eq8_static(row[i].n) / mb, dy = (double)dfc_eq8_dynamic(row[i].n) / mb;
        printf("%7llu %9.3f %7.1f %9.3f %7.2f\n", (unsigned long long)row[i].n, st, row[i].st, dy,
               row[i].dy);
        /* The static row is the buffers alone (4096 n bytes): with Eq. 7's
         * 4n + 2 it would read 1025 at 256K.  The dynamic row is Eq. 8 cut
         * to the printed digits, rounded or truncated (1.1465 -> 1.14,
         * 4.586 -> 4.6, 73.375 -> 73.3): within one unit of the last digit. */
        CHECK_EQ((uint64_t)(4096 * row[i].n) / (1024 * 1024), (uint64_t)row[i].st);
        CHECK(fabs(st - row[i].st) / row[i].st < 0.0011);
        double unit = row[i].dy < 2 ? 0.01 : 0.1;
        CHECK_MSG(fabs(dy - row[i].dy) < unit, "dynamic %.4f vs %.2f", dy, row[i].dy);
    }
    /* the ratio the issue asks for: static / dynamic at 1K processes */
    CHECK((double)dfc_eq8_static(1024) / (double)dfc_eq8_dynamic(1024) > 3.49);
}

/* ---- a recording sink for the state machine's outputs ------------------ */

enum { MAXN = 256, MAXQ = 64 };
typedef struct sink {
    uint32_t grants[MAXN][MAXQ]; /* unread credit packets per sender */
    int ngr[MAXN];
    bool req[MAXN];               /* unread compulsory request */
    uint32_t cs;
    uint32_t last_grant;
    int last_sender, requests;
    const dfc_t *d; /* for messages */
    const uint32_t *held;
} sink_t;

static void on_grant(void *arg, int s, uint32_t c)
{
    sink_t *k = arg;
    CHECK_MSG(c > 0, "grant of 0 credits to %d", s);
    if (k->ngr[s] >= (int)k->cs && k->d) {
        const dfc_sender_t *e = &k->d->s[s];
        const uint32_t *t = k->d->thr + (size_t)s * (k->cs + 1);
        fprintf(stderr, "sender %d: cc %u rp %u fifo %u %u %u head %u blocked %d deferred %d "
                "held %u unread %u %u, grant %u, avail %u\n", s, e->cc, e->rp, t[0], t[1], t[2],
                e->thr_head, e->blocked, e->deferred, k->held ? k->held[s] : 0, k->grants[s][0],
                k->grants[s][1], c, k->d->avail);
    }
    CHECK_MSG(k->ngr[s] < (int)k->cs, "sender %d would hold %d unread credit packets (cs %u)", s,
              k->ngr[s] + 1, k->cs);
    k->grants[s][k->ngr[s]++] = c;
    k->last_grant = c;
    k->last_sender = s;
}

static void on_request(void *arg, int v)
{
    sink_t *k = arg;
    CHECK(!k->req[v]);
    k->req[v] = true;
    k->requests++;
}

static void check_state(const dfc_t *d)
{
    char why[256];
    CHECK_MSG(dfc_check(d, why, sizeof why) == 0, "%s", why);
}

static uint32_t read_grants(sink_t *k, int s)
{
    uint32_t sum = 0;
    for (int i = 0; i < k->ngr[s]; i++) sum += k->grants[s][i];
    k->ngr[s] = 0;
    return sum;
}

/* ---- 2. the scripted trace ---------------------------------------------- */

/* Sender s sends one slot and the receiver retrieves it. */
static void one(dfc_t *d, int s)
{
    CHECK_EQ(dfc_retrieved(d, s, 1, false, 0), 0);
    check_state(d);
}

/* Sender s spends everything it holds, one slot at a time, and reads its
 * credit packets when it runs out, until `points` monitoring points passed. */
static void busy(dfc_t *d, sink_t *k, int s, uint32_t *held, uint64_t points)
{
    uint64_t until = d->stats.monitor_points + points;
    while (d->stats.monitor_points < until) {
        if (held[s] == 0) held[s] = read_grants(k, s);
        CHECK(held[s] > 0);
        held[s]--;
        one(d, s);
    }
}

static void trace(void)
{
    /* Receiver 0, senders 1..4, two credit slots, a data region of 40
     * slots: intended quota 10 each (block 1 of Fig. 14), static region 8,
     * dynamic region 32. */
    sink_t k = {.cs = 2};
    dfc_ops_t ops = {on_grant, on_request, &k};
    dfc_t d;
    CHECK_EQ(dfc_init(&d, 5, 0, 2, 40, &ops), 0);
    check_state(&d);
    int l[8];
    CHECK_EQ(dfc_list(&d, DFC_LOW, l, 8), 4);
    CHECK(l[0] == 1 && l[3] == 4);
    CHECK_EQ(d.avail, 32);
    CHECK_EQ(dfc_threshold(&d, 1), 1);

    /* Block 1: one slot retrieved reaches threshold 1; Eq. 1 on the
     * intended quota, 10 div 3 + 1 = 4, goes back. */
    uint32_t held[5] = {0, 2, 2, 2, 2};
    held[1]--;
    one(&d, 1);
    CHECK_EQ(k.last_grant, 4);
    CHECK_EQ(d.s[1].cc, 1 + 4);
    CHECK_EQ(d.avail, 32 + 1 - 4);

    /* Sender 4 is busy first: it climbs low -> medium -> high at its
     * monitoring points (every cs + 1 = 3 crossings) and takes dynamic slots. */
    busy(&d, &k, 4, held, 1);
    CHECK_EQ(dfc_level(&d, 4), DFC_MED);
    busy(&d, &k, 4, held, 1);
    CHECK_EQ(dfc_level(&d, 4), DFC_HIGH);
    /* At the top, its next monitoring point steals from the low list's
     * last sender: 3 (Eq. 6: max(cs + 1, |10 - 10| div 2) = 3). */
    busy(&d, &k, 4, held, 1);
    CHECK_EQ(d.s[4].iq, 13);
    CHECK_EQ(d.s[3].iq, 7);
    CHECK_EQ(dfc_level(&d, 3), DFC_MED); /* a victim goes to the medium list */
    CHECK_EQ(d.stats.steals, 1);
    uint32_t cc4 = d.s[4].cc;
    CHECK(cc4 > 10); /* it holds more than a static share */

    /* Sender 4 goes idle holding its credits; sender 1 becomes the busy one.
     * Every steal takes from the oldest low sender; when the low list is
     * empty the lists shift.  Sender 4, idle, ends up a victim: once its
     * intended quota is down to its static slots it moves to the null list
     * and, holding more, is asked for the excess. */
    uint64_t shifts = d.stats.shifts;
    for (int i = 0; i < 200 && !k.req[4]; i++) busy(&d, &k, 1, held, 1);
    CHECK(d.stats.shifts > shifts);
    CHECK(k.req[4]);
    CHECK_EQ(d.s[4].iq, 2);
    CHECK_EQ(dfc_level(&d, 4), DFC_NULL);
    CHECK(d.s[4].blocked);
    CHECK(d.s[1].iq > 10);
    printf("trace: sender 1 intended quota %u after %llu steals (%llu slots), sender 4 asked "
           "back holding %u\n", d.s[1].iq, (unsigned long long)d.stats.steals,
           (unsigned long long)d.stats.stolen, d.s[4].cc);

    /* Sender 4 reads the request: returns its excess over the static slots
     * and pays one credit for the response, keeping cs - 1. */
    held[4] += read_grants(&k, 4);
    uint32_t x = dfc_excess(held[4], 2);
    CHECK(x > 0);
    held[4] -= x + 1;
    k.req[4] = false;
    uint32_t avail = d.avail;
    CHECK_EQ(dfc_retrieved(&d, 4, 1, true, x), 0);
    check_state(&d);
    CHECK(!d.s[4].blocked);
    CHECK_EQ(held[4], 1);
    CHECK(d.avail >= avail + x + 1 - k.last_grant);
    CHECK_EQ(d.stats.responses, 1);
    CHECK_EQ(d.stats.returned_by_resp, x);

    /* Sender 4 comes back from the null list: treated as high, it steals. */
    uint64_t steals = d.stats.steals;
    busy(&d, &k, 4, held, 1);
    CHECK_EQ(dfc_level(&d, 4), DFC_HIGH);
    CHECK(d.stats.steals > steals || d.head[(d.base + DFC_LOW) % 3] < 0);
    dfc_fini(&d);

    /* Block 2: a return cut to the available slots.  Two senders, a data
     * region of 12 (static 4, dynamic 8): sender 1 takes the dynamic slots,
     * then a crossing finds fewer than Eq. 1 asks for and returns those. */
    sink_t k2 = {.cs = 2};
    dfc_ops_t ops2 = {on_grant, on_request, &k2};
    CHECK_EQ(dfc_init(&d, 3, 0, 2, 12, &ops2), 0);
    one(&d, 1); /* 12/2 = 6 intended: 6 div 3 + 1 = 3 */
    CHECK_EQ(k2.last_grant, 3);
    one(&d, 1);
    CHECK_EQ(k2.last_grant, 3);
    CHECK_EQ(d.avail, 8 + 2 - 6);
    one(&d, 2);
    CHECK_EQ(k2.last_grant, 3);
    CHECK_EQ(d.avail, 2);
    one(&d, 2);
    CHECK_EQ(k2.last_grant, 3);
    CHECK_EQ(d.avail, 0);
    read_grants(&k2, 2); /* sender 2 spent its 2 static credits: it reads */
    one(&d, 2); /* crosses again: Eq. 1 asks 3, the one slot just freed is all there is */
    CHECK_EQ(k2.last_grant, 1);
    CHECK_EQ(d.avail, 0);
    dfc_fini(&d);
}

/* ---- 3. random floods ----------------------------------------------------- */

typedef struct pkt { int src; uint32_t k; bool resp; uint32_t x; } pkt_t;

typedef struct flood {
    dfc_t d;
    sink_t k;
    int n;
    uint32_t held[MAXN], left[MAXN]; /* credits held, slots still to send */
    bool active[MAXN], resp_due[MAXN];
    uint32_t resp_x[MAXN];
    uint64_t inflight[MAXN], out_x[MAXN]; /* slots in the ring; credits given back, not yet seen */
    pkt_t *ring;
    size_t ring_len, ring_cap, ring_head;
    uint64_t ring_slots, max_ring_slots;
    uint64_t seed;
} flood_t;

static uint32_t rnd(flood_t *f, uint32_t n)
{
    f->seed = f->seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((f->seed >> 33) % n);
}

static void ring_push(flood_t *f, pkt_t p)
{
    CHECK(f->ring_len < f->ring_cap);
    f->ring[(f->ring_head + f->ring_len++) % f->ring_cap] = p;
    f->ring_slots += p.k;
    f->inflight[p.src] += p.k;
    if (f->ring_slots > f->max_ring_slots) f->max_ring_slots = f->ring_slots;
    CHECK_MSG(f->ring_slots <= f->d.total, "ring holds %llu data slots, region %u",
              (unsigned long long)f->ring_slots, f->d.total);
}

/* Sender s reads its mailbox: credit packets, then a request (answered). */
static bool sender_read(flood_t *f, int s)
{
    bool moved = f->k.ngr[s] > 0 || f->k.req[s];
    f->held[s] += read_grants(&f->k, s);
    if (f->k.req[s]) {
        f->k.req[s] = false;
        f->resp_x[s] = dfc_excess(f->held[s], f->k.cs);
        f->held[s] -= f->resp_x[s];
        f->out_x[s] += f->resp_x[s];
        f->resp_due[s] = true;
    }
    return moved;
}

/* Sender s sends one packet if it can: a due response first. */
static bool sender_send(flood_t *f, int s)
{
    if (f->held[s] == 0) return false;
    if (f->resp_due[s]) {
        f->held[s]--;
        f->resp_due[s] = false;
        ring_push(f, (pkt_t){s, 1, true, f->resp_x[s]});
        return true;
    }
    if (!f->active[s] || f->left[s] == 0) return false;
    uint32_t k = 1 + rnd(f, 8);
    if (k > f->left[s]) k = f->left[s];
    if (k > f->held[s]) k = f->held[s]; /* cut to the credits held */
    f->held[s] -= k;
    f->left[s] -= k;
    ring_push(f, (pkt_t){s, k, false, 0});
    return true;
}

/* The receiver's current credits of each sender are what the sender holds,
 * has in flight, has not read yet, and has given back in a response the
 * receiver has not retrieved yet. */
static void check_senders(flood_t *f)
{
    for (int s = 1; s < f->n; s++) {
        uint64_t unread = 0;
        for (int i = 0; i < f->k.ngr[s]; i++) unread += f->k.grants[s][i];
        uint64_t sum = f->held[s] + f->inflight[s] + unread + f->out_x[s];
        CHECK_MSG(f->d.s[s].cc == sum, "sender %d: receiver counts %u credits, sender side %llu "
                  "(held %u, in flight %llu, unread %llu, given back %llu)", s, f->d.s[s].cc,
                  (unsigned long long)sum, f->held[s], (unsigned long long)f->inflight[s],
                  (unsigned long long)unread, (unsigned long long)f->out_x[s]);
    }
}

static bool receiver_take(flood_t *f)
{
    if (f->ring_len == 0) return false;
    pkt_t p = f->ring[f->ring_head];
    f->ring_head = (f->ring_head + 1) % f->ring_cap;
    f->ring_len--;
    f->ring_slots -= p.k;
    f->inflight[p.src] -= p.k;
    if (p.resp) f->out_x[p.src] -= p.x;
    uint32_t cc = f->d.s[p.src].cc;
    CHECK_MSG(dfc_retrieved(&f->d, p.src, p.k, p.resp, p.x) == 0,
              "n %d seed %llu: sender %d, %u slots, resp %d x %u, cc was %u", f->n,
              (unsigned long long)f->seed, p.src, p.k, p.resp, p.x, cc);
    check_state(&f->d);
    check_senders(f);
    return true;
}

static void new_phase(flood_t *f)
{
    uint32_t mode = rnd(f, 4); /* one hot sender, a few, half, all */
    for (int s = 1; s < f->n; s++) {
        uint32_t p = mode == 0 ? (s == 1 + (int)rnd(f, (uint32_t)f->n - 1)) * 100
                     : mode == 1 ? 15 : mode == 2 ? 50 : 100;
        f->active[s] = rnd(f, 100) < p;
    }
}

static void flood(int n, uint32_t cs, uint32_t data_slots, uint32_t per_sender, uint64_t seed)
{
    flood_t *f = calloc(1, sizeof *f);
    CHECK(f != NULL);
    f->n = n;
    f->seed = seed;
    f->k.cs = cs;
    f->k.d = &f->d;
    f->k.held = f->held;
    f->ring_cap = data_slots + 1;
    f->ring = calloc(f->ring_cap, sizeof *f->ring);
    dfc_ops_t ops = {on_grant, on_request, &f->k};
    CHECK_EQ(dfc_init(&f->d, n, 0, cs, data_slots, &ops), 0);
    for (int s = 1; s < n; s++) {
        f->held[s] = cs;
        f->left[s] = per_sender;
    }
    uint64_t steps = 0, idle_rounds = 0;
    for (;;) {
        if (steps++ % 500 == 0) new_phase(f);
        bool moved = false, work = false;
        for (int i = 0; i < 4; i++) moved |= sender_send(f, 1 + (int)rnd(f, (uint32_t)n - 1));
        for (uint32_t i = rnd(f, 4); i > 0; i--) moved |= receiver_take(f);
        for (int s = 1; s < n; s++) {
            /* Eq. 1's adversary reads only when stalled; idle ones seldom */
            bool stalled = f->held[s] == 0 && (f->left[s] || f->resp_due[s]);
            if (stalled || rnd(f, 50) == 0) moved |= sender_read(f, s);
            work |= f->left[s] > 0 || f->resp_due[s];
        }
        if (!work && f->ring_len == 0) break;
        if (!moved) {
            /* phases leave senders idle; once all are active, something
             * must move within a few rounds or nothing ever will */
            for (int s = 1; s < n; s++) f->active[s] = true;
            CHECK_MSG(++idle_rounds < 1000, "deadlock: n %d cs %u data %u seed %llu", n, cs,
                      data_slots, (unsigned long long)seed);
        } else {
            idle_rounds = 0;
        }
    }
    printf("flood n %3d cs %u data %5u: %llu steps, crossings %llu, monitoring points %llu, "
           "steals %llu, requests %llu, deferrals %llu, ring peak %llu\n",
           n, cs, data_slots, (unsigned long long)steps, (unsigned long long)f->d.stats.crossings,
           (unsigned long long)f->d.stats.monitor_points, (unsigned long long)f->d.stats.steals,
           (unsigned long long)f->d.stats.requests, (unsigned long long)f->d.stats.deferrals,
           (unsigned long long)f->max_ring_slots);
    CHECK(f->d.stats.crossings > 0);
    dfc_fini(&f->d);
    free(f->ring);
    free(f);
}

int main(void)
{
    table3();
    trace();
    /* small and large dynamic regions, no dynamic region, 1-3 credit slots */
    static const struct { int n; uint32_t cs, data; } cfg[] = {
        {2, 1, 1}, {2, 2, 2},   {2, 2, 64},  {3, 1, 2},   {4, 2, 6},   {8, 1, 7},
        {8, 2, 14}, {8, 2, 40}, {8, 3, 200}, {17, 2, 32}, {33, 2, 64}, {33, 2, 2000},
        {64, 2, 126}, {64, 2, 4096}, {16, 2, 120}, {32, 1, 300}, {128, 2, 1024}};
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++)
        for (uint64_t seed = 1; seed <= 3; seed++)
            flood(cfg[i].n, cfg[i].cs, cfg[i].data, 3000, seed * 7919 + i);
    t_done("unit_dynfc_model");
    return 0;
}
