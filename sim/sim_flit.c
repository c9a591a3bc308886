/* sim_flit.c - flit-level, cycle-driven reference mode (--flit).
 *
 * A BookSim-like wormhole input-queued router: per-flit credits, an output
 * VC owned by one packet from its head's VC allocation until its tail has
 * crossed the switch, and a separable input-first switch allocator run
 * 2 or 3 times per cycle (2.4 on average) with at most one flit per input
 * and per output each time.  Every output has a FIFO output queue that puts
 * one flit per cycle on its link; links deliver flits and credits after
 * their latency.
 *
 * Speed (issue 5): the engine only touches state that has work.
 *  - Links and output queues are not scanned.  A flit that crosses the
 *    switch in cycle t leaves its output queue in cycle
 *    d = max(t + 1, cycle after the previous flit of that output left),
 *    which is known at once, so it is put straight into a timing wheel
 *    at its arrival cycle d + latency.  Credits travel in a wheel of
 *    their own (sim_flwheel.h: chained chunks reused at once, so the
 *    memory it writes was touched recently; two wheels, so that the kind
 *    of a delivered event is predictable).  Deliveries within a cycle
 *    commute (one flit per link per cycle, one link per input), so their
 *    order in a bucket does not matter.
 *  - An input VC is in its port's switch-request mask only if it owns an
 *    output VC, has a flit, and that output VC has a credit; a VC blocked
 *    on credits is re-armed by the credit's arrival (the output VC knows
 *    its owner).  The allocator skipped such VCs anyway, so the decisions
 *    are the same as scanning them.
 *  - Memory: on this VM a random load beyond about 4 MB of data costs
 *    100-170 ns, and a cycle touches far more, so the state is packed by
 *    who reads it.  What every flit or credit touches is in small arrays
 *    (flits per input VC; credits and owner per output VC, 4 bytes;
 *    per-port bytes of active and credit-blocked VCs; the cycle each
 *    output link is free).  The rest of an input VC (front packet, route,
 *    VA state, ring position) is a 16-byte record; packets queued behind
 *    the front are a ring touched only when a head arrives or a tail
 *    leaves, and a node's ejection ring has one entry per packet.  The
 *    switch allocator marks the outputs it used in a sub-cycle in a local
 *    bitmask.
 *  - Prefetch: the target of each delivered event a few events ahead;
 *    four routers ahead the records of the VCs that may cross or await
 *    VA; two routers ahead the router's output VC records, the packets VA
 *    will route, and what a VC whose next flit is a tail will touch.
 *  - Counters that only the invariant checker needs (flits on wires or in
 *    output queues, credits in flight) are not kept: sim_flit_sync()
 *    recounts them from the wheels and copies the engine's own counters.
 * The decisions, their order and the random draws are those of the
 * original cycle-by-cycle scan: results are bit-identical for a seed.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_flit.h"

static void *sim_fl_calloc(size_t n, size_t sz, int *ok)
{
    void *p = sim_big_calloc(n ? n : 1, sz);
    if (!p)
        *ok = 0;
    return p;
}

static int sim_fl_alloc_ports(struct sim_net *net, struct sim_fl *f, int *ok)
{
    size_t np = (size_t)net->R * net->P, nv = np * net->V;
    int p = net->cfg.p;
    f->fr = sim_fl_calloc(nv, sizeof(*f->fr), ok);
    f->wnext = sim_fl_calloc(nv, sizeof(*f->wnext), ok);
    f->ring = sim_fl_calloc(nv * f->RB, sizeof(*f->ring), ok);
    f->oc = sim_fl_calloc(nv, sizeof(*f->oc), ok);
    f->whead = sim_fl_calloc(nv, sizeof(*f->whead), ok);
    f->port = sim_fl_calloc(np, sizeof(*f->port), ok);
    f->vq_n = sim_fl_calloc(nv, sizeof(*f->vq_n), ok);
    f->onext = sim_fl_calloc(np, sizeof(*f->onext), ok);
    f->act = sim_fl_calloc(np, 1, ok);
    f->cblk = sim_fl_calloc(np, 1, ok);
    f->sw_mask = sim_fl_calloc(np, 1, ok);
    f->va_mask = sim_fl_calloc(np, 1, ok);
    f->sw_ports = sim_fl_calloc(np / 64 + 2, sizeof(uint64_t), ok);
    f->va_ports = sim_fl_calloc(np / 64 + 2, sizeof(uint64_t), ok);
    f->rr_in = sim_fl_calloc(np, 1, ok);
    f->va_need = sim_fl_calloc((size_t)net->R, sizeof(int32_t), ok);
    if (net->cfg.sa_rr)
        f->sa_ptr = sim_fl_calloc(np, 1, ok);
    if (net->cfg.va_rr == 1) {
        f->va_rr = sim_fl_calloc(nv, sizeof(int32_t), ok);
        f->va_cand = sim_fl_calloc(nv, sizeof(int32_t), ok);
        f->va_key = sim_fl_calloc(nv, sizeof(int32_t), ok);
        f->va_touch = sim_fl_calloc((size_t)net->P * net->V, sizeof(int32_t), ok);
    }
    if (!*ok)
        return SIM_ERR_NOMEM;
    for (size_t iv = 0; f->va_cand && iv < nv; iv++)
        f->va_cand[iv] = -1;
    for (size_t iv = 0; iv < nv; iv++) {
        f->fr[iv].pkt = -1;
        f->fr[iv].ovc = FL_UNROUTED;
        f->wnext[iv] = -1;
        f->oc[iv].cred = (uint16_t)net->out_cred[iv];
        f->oc[iv].owner = -1;
        f->whead[iv] = -1;
    }
    f->pmagic = (1ull << 32) / (uint64_t)net->P + 1;
    for (size_t ip = 0; ip < np; ip++) {
        if (sim_fl_router(f, (int)ip) != (int)(ip / net->P))
            return SIM_ERR_ARG; /* not for any network that fits in memory */
        struct fl_port *pt = &f->port[ip];
        pt->lat = net->lat[ip] / SIM_TPC;
        if ((int)(ip % net->P) < p) { /* the far end is a node; terminal VCs are VC 0 */
            pt->down_ev = net->nbr_p[ip] * 4 + EVF_NFLIT;
            pt->up_ev = net->nbr_p[ip] * 4 + EVF_NCRED;
        } else { /* links are symmetric: the same neighbour port both ways */
            int far = (net->nbr_r[ip] * net->P + net->nbr_p[ip]) * 8;
            pt->down_ev = far * 4 + EVF_RFLIT;
            pt->up_ev = far * 4 + EVF_RCRED;
        }
    }
    return SIM_OK;
}

int sim_flit_init(struct sim_net *net)
{
    int ok = 1;
    struct sim_fl *f = calloc(1, sizeof(*f));
    if (!f)
        return SIM_ERR_NOMEM;
    net->fl = f;
    f->net = net;
    f->B = net->cfg.buf_flits > net->cfg.eject_buf ? net->cfg.buf_flits : net->cfg.eject_buf;
    if (net->cfg.lat_term < 1 || net->cfg.lat_local < 1 || net->cfg.lat_global < 1 ||
        net->cfg.lat_term > 63 || net->cfg.lat_local > 63 || net->cfg.lat_global > 63 ||
        net->cfg.pkt_flits > 32 || net->V > 8 || f->B > 65535 || net->P > 64)
        return SIM_ERR_ARG;
    /* Packets queued behind the front: every packet has pkt_flits flits
     * except RDRP's 1-flit credit packets. */
    f->RB = net->cfg.cc == SIM_CC_RDRP ? f->B : f->B / net->cfg.pkt_flits + 2;
    for (int m = 0; m < 256; m++)
        for (int rr = 0; rr < 8; rr++) {
            uint32_t sq = 0;
            int k = 0;
            for (int i = 0; i < net->V; i++) {
                int vc = (rr + i) % net->V;
                if (m & (1 << vc))
                    sq |= (uint32_t)(vc + 1) << (4 * k++);
            }
            f->rrseq[m * 8 + rr] = sq;
        }
    /* Longest delay of a wheel event: a full output queue (all VCs'
     * credits) plus the link. */
    f->horizon = (int64_t)net->V * f->B + 64 + 2;
    if (flw_init(&f->wheel, f->horizon) != 0 || flw_init(&f->cwheel, 64 + 2) != 0 ||
        sim_fl_alloc_ports(net, f, &ok) != SIM_OK)
        return SIM_ERR_NOMEM;
    int N = net->N;
    f->nd = sim_fl_calloc((size_t)N, sizeof(*f->nd), &ok);
    f->ej = sim_fl_calloc((size_t)N * net->cfg.eject_buf, sizeof(int32_t), &ok);
    if (!ok)
        return SIM_ERR_NOMEM;
    for (int n = 0; n < N; n++) {
        struct fl_node *fn = &f->nd[n];
        fn->inj_pkt = -1;
        fn->inj_cred = net->node[n].inj_cred;
        fn->slow = net->node[n].slow;
        fn->term = (n / net->cfg.p * net->P + n % net->cfg.p) * 8;
    }
    return SIM_OK;
}

void sim_flit_free(struct sim_net *net)
{
    struct sim_fl *f = net->fl;
    if (!f)
        return;
    flw_free(&f->wheel);
    flw_free(&f->cwheel);
    void *bufs[] = { f->wnext, f->ring, f->oc, f->whead, f->port, f->vq_n, f->fr, f->onext,
                     f->act, f->cblk, f->sw_mask, f->va_mask, f->rr_in,
                     f->sw_ports, f->va_ports,
                     f->va_need, f->nd, f->ej, f->va_rr, f->va_cand, f->va_key, f->va_touch,
                     f->sa_ptr };
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        free(bufs[i]);
    free(f);
    net->fl = NULL;
}

/* ---- the timing wheel of flits and credits on links ---- */

/* Checker bookkeeping: the wheel event word a is a flit on a wire or in
 * an output queue (counted at the sending output VC, or the node's
 * injection link) or a credit in flight. */
static void sim_fl_count_ev(const struct sim_net *net, int32_t a, int delta)
{
    const struct sim_fl *f = net->fl;
    int target = a >> 2, V = net->V, p = net->cfg.p;
    switch (a & 3) {
    case EVF_RFLIT: {
        int ipi = target >> 3, far = f->port[ipi].up_ev >> 2; /* the sender */
        if (ipi % net->P < p) /* injected by the node, not yet at the router */
            net->node[far].inj_fwd += delta;
        else
            net->out_fwd[(far >> 3) * V + (target & 7)] += delta;
        break;
    }
    case EVF_NFLIT: net->out_fwd[((target / p) * net->P + target % p) * V] += delta; break;
    case EVF_RCRED: net->out_ret[(target >> 3) * V + (target & 7)] += delta; break;
    default: net->node[target].inj_ret += delta; break;
    }
}

/* ---- input VC rings ---- */

static void sim_fl_vq_push(struct sim_net *net, int ipi, int vc, int code, int32_t cyc)
{
    struct sim_fl *f = net->fl;
    int iv = ipi * net->V + vc;
    struct fl_front *q = &f->fr[iv];
    uint8_t bit = (uint8_t)(1u << vc);
    if (f->act[ipi] & bit) {
        if (!(f->cblk[ipi] & bit))
            sim_fl_set(f->sw_mask, f->sw_ports, ipi, bit);
    } else if (f->vq_n[iv] == 0) { /* then this is a head */
        sim_fl_set(f->va_mask, f->va_ports, ipi, bit);
        f->va_need[sim_fl_router(f, ipi)]++;
        q->va_ready = cyc + net->cfg.router_delay;
    }
    if (FL_HEAD(code)) {
        int pkt = FL_PKT(code), len = FL_HLEN(code);
        if (q->pkt < 0) {
            q->pkt = pkt;
            q->len = (uint8_t)len;
            q->sent = 0;
        } else {
            int k = q->ve_head + q->ve_n;
            if (k >= f->RB)
                k -= f->RB;
            struct fl_ent *e = &f->ring[(size_t)iv * f->RB + k];
            e->pklen = pkt * 64 + len;
            e->arr = cyc;
            q->ve_n++;
        }
    }
    f->vq_n[iv]++;
}

/* ---- links: deliver what arrives in cycle t ---- */

static void sim_fl_credit_arrive(struct sim_net *net, int oip, int vc)
{
    struct sim_fl *f = net->fl;
    int ov = oip * net->V + vc;
    net->out_occ[oip]--;
    struct fl_oc *o = &f->oc[ov];
    if (++o->cred == 1 && o->owner >= 0) { /* the owner was blocked on credits */
        int w = o->owner, wp = sim_fl_router(f, oip) * net->P + (w >> 3);
        unsigned bit = 1u << (w & 7);
        f->cblk[wp] &= (uint8_t)~bit;
        if (f->vq_n[wp * net->V + (w & 7)] > 0)
            sim_fl_set(f->sw_mask, f->sw_ports, wp, bit);
    }
}

static void sim_fl_node_receive(struct sim_net *net, int64_t t, int n, int code)
{
    struct sim_fl *f = net->fl;
    struct fl_node *fn = &f->nd[n];
    fn->ej_n++;
    if (!FL_HEAD(code))
        return;
    int cap = net->cfg.eject_buf, k = fn->ej_head + fn->ej_pk, pkt = FL_PKT(code);
    if (k >= cap)
        k -= cap;
    struct sim_pkt *pk = &net->pkt[pkt];
    f->ej[(size_t)n * cap + k] = FL_EJ(pkt, (pk->flags & PF_CTRL) != 0, FL_HLEN(code));
    fn->ej_pk++;
    sim_node_header(net, t * SIM_TPC, n, pk);
}

/* Deliveries go to random places in the network: prefetch the record an
 * event will touch a few events ahead. */
#define FL_PREFETCH_AHEAD 12
FL_PREFETCHER void sim_fl_prefetch_flit(const struct sim_net *net, const struct flw_ev *e)
{
    const struct sim_fl *f = net->fl;
    int32_t target = e->a >> 2;
    if ((e->a & 3) == EVF_RFLIT) {
        int iv = (target >> 3) * net->V + (target & 7);
        __builtin_prefetch(&f->vq_n[iv], 1);
        if (FL_HEAD(e->b))
            __builtin_prefetch(&f->fr[iv], 1);
    } else {
        __builtin_prefetch(&f->nd[target], 1);
        if (FL_HEAD(e->b))
            __builtin_prefetch(&net->pkt[FL_PKT(e->b)], 0);
    }
}

FL_PREFETCHER void sim_fl_prefetch_cred(const struct sim_net *net, const struct flw_ev *e)
{
    const struct sim_fl *f = net->fl;
    int32_t target = e->a >> 2;
    if ((e->a & 3) == EVF_RCRED) {
        __builtin_prefetch(&f->oc[(target >> 3) * net->V + (target & 7)], 1);
        __builtin_prefetch(&net->out_occ[target >> 3], 1);
    } else {
        __builtin_prefetch(&f->nd[target], 1);
    }
}

static inline void sim_fl_deliver_flit(struct sim_net *net, int64_t t, int32_t a, int32_t code)
{
    int32_t target = a >> 2;
    if ((a & 3) == EVF_RFLIT)
        sim_fl_vq_push(net, target >> 3, target & 7, code, (int32_t)t);
    else
        sim_fl_node_receive(net, t, target, code);
}

static inline void sim_fl_deliver_cred(struct sim_net *net, int32_t a)
{
    int32_t target = a >> 2;
    if ((a & 3) == EVF_RCRED)
        sim_fl_credit_arrive(net, target >> 3, target & 7);
    else
        net->fl->nd[target].inj_cred++;
}

FL_PREFETCHER void sim_fl_prefetch_ev(const struct sim_net *net, const struct flw_ev *e,
                                      int cred)
{
    if (cred)
        sim_fl_prefetch_cred(net, e);
    else
        sim_fl_prefetch_flit(net, e);
}

/* Deliver everything of wheel w (flits, or credits if cred) that arrives
 * in cycle t, chunk by chunk, each chunk going back to the free list as
 * soon as it is done; the target of the event FL_PREFETCH_AHEAD places on
 * is prefetched.  Flits and credits have wheels of their own so that the
 * kind of an event is nearly always the predicted one. */
static inline __attribute__((always_inline)) void
sim_fl_bucket_run(struct sim_net *net, struct flw *w, int64_t t, int cred)
{
    struct flw_chunk *c = flw_take(w, t);
    for (int i = 0; c && i < c->n && i < FL_PREFETCH_AHEAD; i++)
        sim_fl_prefetch_ev(net, &c->ev[i], cred);
    while (c) {
        struct flw_chunk *next = c->next;
        int n = c->n, i = 0;
        /* The next chunk was written long ago: fetch it while this one runs. */
        for (size_t b = 0; next && b < sizeof(*next); b += 64)
            __builtin_prefetch((const char *)next + b, 0);
        for (; i < n; i++) {
            if (i + FL_PREFETCH_AHEAD < n)
                sim_fl_prefetch_ev(net, &c->ev[i + FL_PREFETCH_AHEAD], cred);
            else if (next && i + FL_PREFETCH_AHEAD - n < next->n)
                sim_fl_prefetch_ev(net, &next->ev[i + FL_PREFETCH_AHEAD - n], cred);
            if (cred)
                sim_fl_deliver_cred(net, c->ev[i].a);
            else
                sim_fl_deliver_flit(net, t, c->ev[i].a, c->ev[i].b);
        }
        flw_chunk_put(w, c);
        c = next;
    }
}

/* ---- nodes inject one flit and sink at their rate ---- */

static void sim_fl_node_inject(struct sim_net *net, int64_t t, int n)
{
    struct sim_fl *f = net->fl;
    struct fl_node *fn = &f->nd[n];
    if (fn->inj_pkt < 0) {
        sim_tick_t retry;
        int want = sim_node_wants(net, t * SIM_TPC, n, &retry);
        if (want & SIM_WANT_DATA) {
            fn->inj_pkt = sim_node_new_pkt(net, t * SIM_TPC, n, net->cfg.pkt_flits, 0);
            fn->inj_len = net->cfg.pkt_flits;
        } else if (want & SIM_WANT_CTRL) {
            fn->inj_pkt = sim_node_new_pkt(net, t * SIM_TPC, n, 1, 1);
            fn->inj_len = 1;
        }
        fn->inj_idx = 0;
        if (fn->inj_pkt >= FL_MAX_PKT)
            abort(); /* flit codes would overflow: far beyond any sane run */
    }
    if (fn->inj_pkt >= 0 && fn->inj_cred > 0) {
        int pkt = fn->inj_pkt, len = fn->inj_len, i = fn->inj_idx;
        sim_fl_push_flit(f, t, t + net->cfg.lat_term, fn->term * 4 + EVF_RFLIT,
                    FL_CODE(pkt, i, i == len - 1, len));
        fn->inj_cred--;
        if (++fn->inj_idx == len)
            fn->inj_pkt = -1;
    }
}

static void sim_fl_node_sink(struct sim_net *net, int64_t t, int n)
{
    struct sim_fl *f = net->fl;
    struct fl_node *fn = &f->nd[n];
    if (fn->ej_n == 0 || t < fn->ej_sink_at)
        return;
    int cap = net->cfg.eject_buf;
    if (fn->ej_part == 0) /* a new packet: its entry is kept in fn until its tail */
        fn->ej_front = f->ej[(size_t)n * cap + fn->ej_head];
    int e = fn->ej_front, pkt = e >> 7, ctrl = (e >> 6) & 1;
    /* Control flits are consumed by the NIC; data drains at 1/slow. */
    fn->ej_sink_at = ctrl ? (int32_t)t : (int32_t)(t + fn->slow);
    fn->ej_n--;
    /* The ejection credit goes back to the router's terminal output,
     * whose index equals that of the terminal input (fn->term). */
    sim_fl_push_cred(f, t, t + net->cfg.lat_term, fn->term * 4 + EVF_RCRED);
    if (++fn->ej_part == (e & 63)) { /* the tail */
        fn->ej_part = 0;
        if (++fn->ej_head == cap)
            fn->ej_head = 0;
        fn->ej_pk--;
        if (ctrl)
            sim_pkt_free(net, pkt);
        else
            sim_node_account(net, (t + 1) * SIM_TPC, n, pkt);
    }
}

/* Bernoulli sources of the flit mode: one draw per node per cycle. */
static void sim_fl_generate(struct sim_net *net, int64_t t, int n)
{
    double q = net->cfg.offered / net->cfg.pkt_flits;
    if (sim_rand01(net) >= q)
        return;
    struct sim_node *nd = &net->node[n];
    if (nd->sq_n == nd->sq_cap) {
        int cap = nd->sq_cap ? nd->sq_cap * 2 : 16;
        sim_tick_t *nq = malloc((size_t)cap * sizeof(*nq));
        if (!nq)
            abort();
        for (int i = 0; i < nd->sq_n; i++)
            nq[i] = nd->srcq[(nd->sq_head + i) % nd->sq_cap];
        free(nd->srcq);
        nd->srcq = nq;
        nd->sq_head = 0;
        nd->sq_cap = cap;
    }
    nd->srcq[(nd->sq_head + nd->sq_n) % nd->sq_cap] = t * SIM_TPC;
    nd->sq_n++;
}

void sim_flit_cycle(struct sim_net *net, int64_t t)
{
    struct sim_fl *f = net->fl;
    sim_fl_bucket_run(net, &f->wheel, t, 0);
    sim_fl_bucket_run(net, &f->cwheel, t, 1);
    for (int n = 0; n < net->N; n++) {
        if (net->cfg.offered < 1.0)
            sim_fl_generate(net, t, n);
        sim_fl_node_sink(net, t, n);
        sim_fl_node_inject(net, t, n);
    }
    f->sacc += net->cfg.speedup;
    int subs = (int)f->sacc;
    f->sacc -= subs;
    sim_fl_routers(net, t, subs);
}

/* Flits of live packets that sit outside buffers and wires: not yet
 * injected, or already sunk from a partly sunk packet. */
int64_t sim_flit_outside(const struct sim_net *net)
{
    const struct sim_fl *f = net->fl;
    int64_t x = 0;
    for (int n = 0; n < net->N; n++) {
        if (f->nd[n].inj_pkt >= 0)
            x += net->pkt[f->nd[n].inj_pkt].len - f->nd[n].inj_idx;
        x += f->nd[n].ej_part;
    }
    return x;
}

static void sim_fl_count_one(void *arg, const struct flw_ev *e)
{
    sim_fl_count_ev(arg, e->a, 1);
}

/* Copy the flit engine's own counters into the shared arrays that the
 * invariant checker and the census read (credits, flits buffered, node
 * credits and ejection buffers), and recount from the wheel the flits on
 * wires or in output queues and the credits in flight (the engine keeps
 * no such counters: that would cost every flit a check). */
void sim_flit_sync(const struct sim_net *net)
{
    const struct sim_fl *f = net->fl;
    size_t nv = (size_t)net->R * net->P * net->V;
    for (size_t iv = 0; iv < nv; iv++) {
        net->in_flits[iv] = f->vq_n[iv];
        net->out_cred[iv] = f->oc[iv].cred;
        net->out_fwd[iv] = net->out_ret[iv] = 0;
    }
    for (int n = 0; n < net->N; n++) {
        net->node[n].inj_cred = f->nd[n].inj_cred;
        net->node[n].ej_flits = f->nd[n].ej_n;
        net->node[n].inj_fwd = net->node[n].inj_ret = 0;
    }
    flw_each(&f->wheel, sim_fl_count_one, (void *)net);
    flw_each(&f->cwheel, sim_fl_count_one, (void *)net);
}

/* Diagnostics: packet ids of up to max flits of input VC iv, front first. */
int sim_flit_vc_pkts(const struct sim_net *net, int iv, int32_t *out, int max)
{
    const struct sim_fl *f = net->fl;
    const struct fl_front *q = &f->fr[iv], *fr = q;
    int n = 0, left = f->vq_n[iv];
    if (fr->pkt >= 0)
        for (int i = fr->sent; i < fr->len && n < max && left > 0; i++, left--)
            out[n++] = fr->pkt;
    for (int k = 0; k < q->ve_n; k++) {
        const struct fl_ent *e = &f->ring[(size_t)iv * f->RB + (q->ve_head + k) % f->RB];
        for (int i = 0; i < (e->pklen & 63) && n < max && left > 0; i++, left--)
            out[n++] = e->pklen >> 6;
    }
    return n;
}
