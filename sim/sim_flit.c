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
 *    at its arrival cycle d + latency.  Credits travel in the same wheel
 *    (sim_flwheel.h: chained chunks reused at once, so the memory it
 *    writes was touched recently).  Deliveries within a cycle commute (one flit per link per
 *    cycle, one link per input), so their order in a bucket does not
 *    matter.
 *  - An input VC is in its port's switch-request mask only if it owns an
 *    output VC, has a flit, and that output VC has a credit; a VC blocked
 *    on credits is re-armed by the credit's arrival (the output VC knows
 *    its owner).  The allocator skipped such VCs anyway, so the decisions
 *    are the same as scanning them.
 *  - What every flit or credit touches is in small arrays (flits per
 *    input VC, credits per output VC, routed output per input VC,
 *    per-port bytes of active and credit-blocked VCs, cycle each output
 *    link is free), about 1.5 MB for 5,256 nodes instead of 7 MB of
 *    per-VC records, so that more of it stays in cache; the rest
 *    of an input VC (front packet, route, VA state) is a 32-byte record
 *    read when a flit crosses (prefetched four routers ahead), and the
 *    packets queued behind the front are a small ring touched only when a
 *    head arrives or a tail leaves.  The switch allocator marks the
 *    outputs it used in a sub-cycle in a local bitmask.  (On this VM a
 *    random load beyond about 4 MB of data costs 100-170 ns.)
 *  - Counters that only the invariant checker needs (flits on wires or in
 *    output queues, credits in flight) are not kept: sim_flit_sync()
 *    recounts them from the wheel and copies the engine's own counters.
 * The decisions, their order and the random draws are those of the
 * original cycle-by-cycle scan: results are bit-identical for a seed.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "sim_flwheel.h"
#include "sim_net.h"

/* A flit is coded as packet id * 128 + tail bit, plus for the head flit
 * 2 + (packet length - 1) * 4, so that only head flits need the packet
 * record and even they do not need it to be queued. */
#define FL_CODE(pkt, i, tail, len) ((pkt) * 128 + ((i) == 0 ? 2 + ((len) - 1) * 4 : 0) + (tail))
#define FL_PKT(code) ((code) >> 7)
#define FL_HEAD(code) (((code) >> 1) & 1)
#define FL_HLEN(code) ((((code) >> 2) & 31) + 1)
#define FL_TAIL(code) ((code) & 1)
#define FL_MAX_PKT (1 << 24)

/* Wheel events (sim_flwheel.h): a = target << 2 | kind, b = flit code.
 * Router targets are port * 8 + VC (so that no event needs a division
 * by V). */
enum { EVF_RFLIT, EVF_NFLIT, EVF_RCRED, EVF_NCRED };

/* Input VC: the front packet, its route and VA state, and the ring of
 * packets behind it (entries pkt * 64 + len, head arrival cycle).  16
 * bytes, read when a flit crosses (prefetched four routers ahead), at VC
 * allocation and when a head arrives or a tail leaves; what every flit
 * and credit touches lives in small per-VC and per-port arrays of struct
 * sim_fl instead, which stay in cache (see "Speed" above). */
struct fl_front {
    int32_t pkt;            /* front packet, -1 none */
    int32_t va_ready;       /* cycle the front head may allocate */
    uint8_t sent, len;      /* flits of it forwarded, its length */
    uint8_t oport;          /* routed output port (router-local) */
    uint8_t ovc;            /* routed output VC, FL_UNROUTED none */
    uint16_t ve_head, ve_n; /* ring of packets behind the front */
};
#define FL_UNROUTED 0xff

/* Functions that only prefetch must be inlined: GCC finds them pure (a
 * prefetch is not a side effect to it) and drops calls to them. */
#define FL_PREFETCHER static inline __attribute__((always_inline))

/* Input VCs in owner and waiter lists are named by global port * 8 + VC:
 * port and VC then come out without a division by V. */
#define FL_ID(ipi, vc) ((ipi) * 8 + (vc))

struct fl_ent {
    int32_t pklen, arr;
};

/* Output VC: its credits for the downstream VC and its owner, the input
 * VC of this router (port * 8 + VC, router-local; -1 free) that holds it.
 * Together in 4 bytes: a crossing, a credit and VC allocation all read
 * them, and a router's records fit in a few cache lines. */
struct fl_oc {
    uint16_t cred;
    int16_t owner;
};

/* Link of a port (fixed). */
struct fl_port {
    int32_t lat;            /* link latency, cycles */
    int32_t down_ev;        /* wheel event word of a flit to the far end's VC 0 (+ 4 * vc) */
    int32_t up_ev;          /* wheel event word of a credit to the far end's VC 0 (+ 4 * vc) */
    int32_t pad;
};

/* Per node; inj_cred and ej_n stand for sim_node's inj_cred and ej_flits
 * (copied there by sim_flit_sync) so that the node loop touches only this. */
struct fl_node {
    int32_t inj_pkt, inj_idx, inj_len; /* packet being injected, next flit */
    int32_t inj_cred;           /* credits of the injection link */
    int32_t ej_head, ej_pk;     /* ejection ring of packets: first entry, entries */
    int32_t ej_n;               /* flits in the ejection buffer */
    int32_t ej_sink_at;         /* next cycle a flit may be sunk */
    int32_t ej_part;            /* flits sunk of the first packet */
    int32_t slow;               /* sink one flit every slow cycles */
    int32_t term;               /* terminal input VC of the router: port * 8 */
    int32_t pad;
};

/* Ejection ring entries: a node receives on one VC, so the flits of a
 * packet arrive back to back and the ring holds one entry per packet
 * (packet id, control bit, length), touched once per packet. */
#define FL_EJ(pkt, ctrl, len) ((pkt) * 128 + (ctrl) * 64 + (len))

struct sim_fl {
    int B, RB;                  /* VC buffer depth, ring entries per VC */
    struct fl_front *fr;        /* per input VC */
    int32_t *wnext;             /* per input VC: next VC waiting for the same output VC (FL_ID) */
    struct fl_ent *ring;        /* per input VC, RB entries */
    struct fl_oc *oc;           /* per output VC */
    int32_t *whead;             /* per output VC: first input VC waiting for it (FL_ID), -1 none */
    uint64_t pmagic;            /* router of global port ip: ip * pmagic >> 32 */
    /* --va rr only (NULL otherwise), per output VC: the router-local input
     * VC (port * V + vc) that has priority next, this cycle's best
     * candidate (-1 none) and its distance from that priority; and the
     * output VCs with a candidate this cycle. */
    int32_t *va_rr, *va_cand, *va_key, *va_touch;
    uint8_t *sa_ptr;            /* --sa rr only, per output port: input port with priority */
    struct fl_port *port;       /* per (router, port) */
    uint16_t *vq_n;             /* per input VC: flits present */
    int32_t *onext;             /* per output port: first cycle its link is free */
    uint8_t *act;               /* per input port: VCs whose front packet owns its output VC */
    uint8_t *cblk;              /* per input port: active VCs whose output VC has no credit */
    uint8_t *sw_mask;           /* per input port: VCs that may cross */
    uint8_t *va_mask;           /* per input port: VCs awaiting VA */
    uint64_t *sw_ports;         /* bit per input port: sw_mask != 0 */
    uint64_t *va_ports;         /* bit per input port: va_mask != 0 */
    uint8_t *rr_in;             /* per input port: next VC to try */
    /* For a VC mask m and a round-robin start rr: the VCs of m in the
     * order rr, rr+1, ..., V-1, 0, ..., as 4-bit nibbles of vc + 1. */
    uint32_t rrseq[256 * 8];
    int32_t *va_need;           /* per router: VCs awaiting VA */
    struct fl_node *nd;         /* per node */
    int32_t *ej;                /* per node ejection ring of flit codes */
    struct flw wheel;           /* flits on links and in output queues */
    struct flw cwheel;          /* credits on links */
    int64_t horizon;            /* longest delay of a wheel event */
    double sacc;                /* speedup accumulator */
    struct sim_net *net;
};

/* The router of global port ip, without a division (pmagic is checked
 * at set-up to be exact for every port). */
static inline int sim_fl_router(const struct sim_fl *f, int ip)
{
    return (int)(((uint64_t)ip * f->pmagic) >> 32);
}

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

/* Put a flit on a link: it arrives in cycle at. */
static inline void sim_fl_push_flit(struct sim_fl *f, int64_t now, int64_t at, int32_t a,
                                    int32_t code)
{
    assert(at > now && at - now <= f->horizon);
    (void)now;
    flw_put(&f->wheel, at, a, code);
}

/* Put a credit on a link (links are at most 63 cycles long). */
static inline void sim_fl_push_cred(struct sim_fl *f, int64_t now, int64_t at, int32_t a)
{
    assert(at > now && at - now <= 64);
    (void)now;
    flw_put(&f->cwheel, at, a, 0);
}

/* ---- request masks: per input port a byte of VCs, and per router a
 * bitmap of the ports whose byte is not zero ---- */

static inline void sim_fl_set(uint8_t *mask, uint64_t *ports, int ipi, unsigned bit)
{
    mask[ipi] |= (uint8_t)bit;
    ports[ipi >> 6] |= 1ull << (ipi & 63);
}

static inline void sim_fl_clr(uint8_t *mask, uint64_t *ports, int ipi, unsigned bit)
{
    if (!(mask[ipi] &= (uint8_t)~bit))
        ports[ipi >> 6] &= ~(1ull << (ipi & 63));
}

/* Bits of router r's P ports (P <= 64), rotated so that bit j is port
 * (start + j) mod P: visiting set bits in order visits the ports in the
 * allocators' rotating order. */
static inline uint64_t sim_fl_ports(const uint64_t *ports, int r, int P, int start)
{
    int base = r * P, w = base >> 6, off = base & 63;
    uint64_t all = P == 64 ? ~0ull : (1ull << P) - 1, b = ports[w] >> off;
    if (off + P > 64)
        b |= ports[w + 1] << (64 - off);
    b &= all;
    if (start)
        b = ((b >> start) | (b << (P - start))) & all;
    return b;
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
        f->va_need[ipi / net->P]++;
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
    int e = f->ej[(size_t)n * cap + fn->ej_head], pkt = e >> 7, ctrl = (e >> 6) & 1;
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

/* ---- routing, VC allocation, switch allocation ---- */

/* Hop counters of a packet routed to output o.  Counted when the route is
 * chosen rather than when the head crosses: nothing reads them in between
 * (the next route is chosen after the crossing), and the crossing then
 * needs the packet record only for FECN. */
static void sim_fl_count_hop(const struct sim_net *net, struct sim_pkt *pk, int o)
{
    pk->hops++;
    if (o >= net->cfg.p) {
        pk->rhops++;
        if (o >= net->cfg.p + net->cfg.a - 1)
            pk->ghops++;
    }
}

/* FECN: the head of pk crossing towards output VC ov is marked from the
 * remote queue's occupancy (cred credits left). */
static void sim_fl_fecn_mark(struct sim_net *net, struct sim_pkt *pk, int ov, int cred)
{
    if (pk->flags & PF_CTRL)
        return;
    double cap = net->out_cap[ov], fr = (cap - cred) / cap;
    double prob = (fr - 0.5) * 2.0 * net->cfg.fecn_mult;
    if (fr > 0.5 && (prob >= 1.0 || sim_rand01(net) < prob))
        pk->flags |= PF_FECN;
}

/* Input VC iv (port ipi, VC vc) takes its routed output VC. */
static inline void sim_fl_va_grant(struct sim_fl *f, int r, int ipi, int vc, int ov)
{
    f->oc[ov].owner = (int16_t)FL_ID(ipi - r * f->net->P, vc);
    f->act[ipi] |= (uint8_t)(1u << vc);
    sim_fl_clr(f->va_mask, f->va_ports, ipi, 1u << vc);
    f->va_need[r]--;
    if (f->oc[ov].cred > 0)
        sim_fl_set(f->sw_mask, f->sw_ports, ipi, 1u << vc);
    else
        f->cblk[ipi] |= (uint8_t)(1u << vc);
}

/* VC allocation.  Default: requesters are served in input-port order
 * rotated to start at (t mod P), lowest VC first, each taking its output
 * VC if free.  --va rr (BookSim's separable allocator with round-robin
 * arbiters): a free output VC goes to the requester of this cycle nearest
 * at or after its priority pointer in router-local input VC order, and the
 * pointer moves past the winner, so persistent waiters are served in turn.
 * --va fixed: the default's order without the rotation (port 0 first). */
static void sim_fl_route_va(struct sim_net *net, int64_t t, int r)
{
    struct sim_fl *f = net->fl;
    if (f->va_need[r] == 0)
        return;
    int P = net->P, V = net->V, ntouch = 0;
    int start = net->cfg.va_rr == 2 ? 0 : (int)(t % P);
    /* Ports in rotating order (no favourite); VA at a port changes only
     * that port's masks, so the snapshot of the bitmap stays exact. */
    for (uint64_t pb = sim_fl_ports(f->va_ports, r, P, start); pb; pb &= pb - 1) {
        int port = start + __builtin_ctzll(pb);
        if (port >= P)
            port -= P;
        int ipi = r * P + port;
        for (unsigned m = f->va_mask[ipi]; m; m &= m - 1) {
            int vc = __builtin_ctz(m), iv = ipi * V + vc;
            struct fl_front *fr = &f->fr[iv];
            if (t < fr->va_ready)
                continue; /* routing + allocation pipeline */
            if (fr->ovc == FL_UNROUTED) {
                int out, ovc;
                struct sim_pkt *pk = &net->pkt[fr->pkt];
                sim_route(net, r, port, pk, &out, &ovc);
                sim_fl_count_hop(net, pk, out);
                fr->oport = (uint8_t)out;
                fr->ovc = (uint8_t)ovc;
            }
            int ov = (r * P + fr->oport) * V + fr->ovc;
            if (f->oc[ov].owner >= 0) {
                /* Wait off the mask until the owner's tail releases it:
                 * retrying every cycle would fail the same way. */
                sim_fl_clr(f->va_mask, f->va_ports, ipi, 1u << vc);
                f->va_need[r]--;
                f->wnext[iv] = f->whead[ov];
                f->whead[ov] = FL_ID(ipi, vc);
                continue;
            }
            if (f->va_rr) {
                int key = iv - r * P * V - f->va_rr[ov];
                if (key < 0)
                    key += P * V;
                if (f->va_cand[ov] < 0) {
                    f->va_touch[ntouch++] = ov;
                } else if (key >= f->va_key[ov]) {
                    continue;
                }
                f->va_cand[ov] = iv;
                f->va_key[ov] = key;
                continue;
            }
            sim_fl_va_grant(f, r, ipi, vc, ov);
        }
    }
    for (int i = 0; i < ntouch; i++) { /* --va rr: grant the winners */
        int ov = f->va_touch[i], iv = f->va_cand[ov], loc = iv - r * P * V;
        f->va_cand[ov] = -1;
        f->va_rr[ov] = loc + 1 == P * V ? 0 : loc + 1;
        sim_fl_va_grant(f, r, iv / V, iv % V, ov);
    }
}

/* The tail of input VC iv's front packet has crossed: free output VC ov
 * (its waiters try again next cycle) and bring the next packet to the
 * front. */
static void sim_fl_tail_leaves(struct sim_net *net, int r, int ipi, int vc, int iv, int ov)
{
    struct sim_fl *f = net->fl;
    struct fl_front *fr = &f->fr[iv], *q = fr;
    uint8_t bit = (uint8_t)(1u << vc);
    f->oc[ov].owner = -1;
    for (int w = f->whead[ov]; w >= 0;) {
        int wiv = (w >> 3) * net->V + (w & 7), next = f->wnext[wiv];
        sim_fl_set(f->va_mask, f->va_ports, w >> 3, 1u << (w & 7));
        f->va_need[r]++;
        f->wnext[wiv] = -1;
        w = next;
    }
    f->whead[ov] = -1;
    f->act[ipi] &= (uint8_t)~bit;
    fr->ovc = FL_UNROUTED;
    if (q->ve_n > 0) { /* the next packet's head is now in front */
        const struct fl_ent *e = &f->ring[(size_t)iv * f->RB + q->ve_head];
        fr->pkt = e->pklen >> 6;
        fr->len = (uint8_t)(e->pklen & 63);
        fr->sent = 0;
        if (++q->ve_head == f->RB)
            q->ve_head = 0;
        q->ve_n--;
        sim_fl_set(f->va_mask, f->va_ports, ipi, bit);
        f->va_need[r]++;
        q->va_ready = e->arr + net->cfg.router_delay;
    } else {
        fr->pkt = -1;
    }
}

/* Move the front flit of input VC iv (port ipi of router r, VC vc)
 * across the switch to its output queue, and return its credit. */
static inline __attribute__((always_inline)) void
sim_fl_traverse(struct sim_net *net, int64_t t, int r, int ipi, int vc, int iv)
{
    struct sim_fl *f = net->fl;
    struct fl_front *fr = &f->fr[iv];
    int V = net->V, oip = r * net->P + fr->oport, ovc = fr->ovc, ov = oip * V + ovc;
    uint8_t bit = (uint8_t)(1u << vc);
    int pkt = fr->pkt, i = fr->sent, tail = i == fr->len - 1;
    int code = FL_CODE(pkt, i, tail, fr->len);
    assert(f->oc[ov].cred > 0 && f->vq_n[iv] > 0 && (f->act[ipi] & bit) && !(f->cblk[ipi] & bit));
    fr->sent++;
    int left = --f->vq_n[iv];
    if (i == 0 && net->cfg.cc == SIM_CC_FECN)
        sim_fl_fecn_mark(net, &net->pkt[pkt], ov, f->oc[ov].cred);
    int cr = --f->oc[ov].cred;
    net->out_occ[oip]++;
    /* Output queue: the flit leaves one cycle after the previous one. */
    const struct fl_port *op = &f->port[oip];
    int64_t d = t + 1 > f->onext[oip] ? t + 1 : f->onext[oip];
    f->onext[oip] = (int32_t)(d + 1);
    sim_fl_push_flit(f, t, d + op->lat, op->down_ev + 4 * ovc, code);
    /* The VC leaves the switch requests if it is empty, out of credits
     * (then it is re-armed by a credit), or its packet is done. */
    if (left == 0 || cr == 0 || tail)
        sim_fl_clr(f->sw_mask, f->sw_ports, ipi, bit);
    if (cr == 0 && !tail)
        f->cblk[ipi] |= bit;
    if (tail)
        sim_fl_tail_leaves(net, r, ipi, vc, iv, ov);
    /* Credit back upstream over the same link. */
    const struct fl_port *ipt = &f->port[ipi];
    sim_fl_push_cred(f, t, t + ipt->lat, ipt->up_ev + 4 * vc);
}

/* One switch sub-cycle: each input offers one flit (round robin over its
 * VCs that may cross); it goes if its output has not taken a flit in this
 * sub-cycle. */
/* --sa rr: one round of BookSim's separable input-first allocator with
 * round-robin arbiters.  Each input port offers the first VC that may
 * cross in round-robin order from its pointer (not knowing which outputs
 * are taken); each output port grants the offering input nearest at or
 * after its own pointer; both pointers move past a grant. */
static void sim_fl_switch_rr(struct sim_net *net, int64_t t, int r)
{
    struct sim_fl *f = net->fl;
    int P = net->P, V = net->V;
    int cand[64], key[64], cvc[64], outs[64], nout = 0;
    for (uint64_t pb = sim_fl_ports(f->sw_ports, r, P, 0); pb; pb &= pb - 1) {
        int port = __builtin_ctzll(pb), ipi = r * P + port;
        uint32_t sq = f->rrseq[f->sw_mask[ipi] * 8 + f->rr_in[ipi]];
        if (!sq)
            continue;
        int vc = (int)(sq & 15) - 1, o = f->fr[ipi * V + vc].oport;
        int k = port - f->sa_ptr[r * P + o];
        if (k < 0)
            k += P;
        int i;
        for (i = 0; i < nout && outs[i] != o; i++)
            ;
        if (i == nout) {
            outs[nout++] = o;
            cand[o] = -1;
        }
        if (cand[o] < 0 || k < key[o]) {
            cand[o] = port;
            key[o] = k;
            cvc[o] = vc;
        }
    }
    for (int i = 0; i < nout; i++) {
        int o = outs[i], port = cand[o], vc = cvc[o], ipi = r * P + port;
        f->sa_ptr[r * P + o] = (uint8_t)(port + 1 < P ? port + 1 : 0);
        f->rr_in[ipi] = (uint8_t)(vc + 1 < V ? vc + 1 : 0);
        sim_fl_traverse(net, t, r, ipi, vc, ipi * V + vc);
    }
}

static void sim_fl_switch(struct sim_net *net, int64_t t, int r, int start)
{
    struct sim_fl *f = net->fl;
    int P = net->P, V = net->V;
    uint64_t used = 0; /* outputs (router-local) that took a flit */
    /* Ports with requests in rotating order; a crossing changes only its
     * own port's mask, so the snapshot of the bitmap stays exact. */
    for (uint64_t pb = sim_fl_ports(f->sw_ports, r, P, start); pb; pb &= pb - 1) {
        int port = start + __builtin_ctzll(pb);
        if (port >= P)
            port -= P;
        int ipi = r * P + port;
        /* The port's VCs that may cross, from the round-robin VC on. */
        for (uint32_t sq = f->rrseq[f->sw_mask[ipi] * 8 + f->rr_in[ipi]]; sq; sq >>= 4) {
            int vc = (int)(sq & 15) - 1;
            int iv = ipi * V + vc;
            uint64_t ob = 1ull << f->fr[iv].oport;
            if (used & ob)
                continue;
            used |= ob;
            f->rr_in[ipi] = (uint8_t)(vc + 1 < V ? vc + 1 : 0);
            sim_fl_traverse(net, t, r, ipi, vc, iv);
            break;
        }
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

/* Prefetch the input VC records that the allocators of router r will
 * read first: of each port, the first VC that may cross or awaits VA. */
FL_PREFETCHER void sim_fl_prefetch_router(const struct sim_net *net, int r)
{
    const struct sim_fl *f = net->fl;
    int P = net->P, V = net->V;
    uint64_t pb = sim_fl_ports(f->sw_ports, r, P, 0) | sim_fl_ports(f->va_ports, r, P, 0);
    for (; pb; pb &= pb - 1) {
        int ipi = r * P + __builtin_ctzll(pb);
        /* Every candidate: a port sends from a different VC in each
         * sub-cycle as its round robin moves on. */
        for (unsigned m = f->sw_mask[ipi] | f->va_mask[ipi]; m; m &= m - 1)
            __builtin_prefetch(&f->fr[ipi * V + __builtin_ctz(m)], 1);
    }
}

/* Second stage, once the records are in: the router's output VC records
 * (a few lines), the packets VA will route, the waiter lists of output VCs
 * that routed requesters will ask for, and for a VC whose next flit is a
 * tail the waiter list it wakes and the ring entry of the packet it brings
 * to the front. */
FL_PREFETCHER void sim_fl_prefetch_route(const struct sim_net *net, int r)
{
    const struct sim_fl *f = net->fl;
    int P = net->P, V = net->V;
    const char *oc = (const char *)&f->oc[(size_t)r * P * V];
    for (size_t b = 0; b < (size_t)P * V * sizeof(*f->oc); b += 64)
        __builtin_prefetch(oc + b, 1);
    for (uint64_t pb = sim_fl_ports(f->va_ports, r, P, 0); pb; pb &= pb - 1) {
        int ipi = r * P + __builtin_ctzll(pb);
        for (unsigned m = f->va_mask[ipi]; m; m &= m - 1) {
            const struct fl_front *fr = &f->fr[ipi * V + __builtin_ctz(m)];
            if (fr->ovc == FL_UNROUTED)
                __builtin_prefetch(&net->pkt[fr->pkt], 1);
            else
                __builtin_prefetch(&f->whead[(r * P + fr->oport) * V + fr->ovc], 1);
        }
    }
    for (uint64_t pb = sim_fl_ports(f->sw_ports, r, P, 0); pb; pb &= pb - 1) {
        int ipi = r * P + __builtin_ctzll(pb);
        for (unsigned m = f->sw_mask[ipi]; m; m &= m - 1) {
            int iv = ipi * V + __builtin_ctz(m);
            const struct fl_front *fr = &f->fr[iv];
            if (fr->sent + 1 != fr->len)
                continue;
            __builtin_prefetch(&f->whead[(r * P + fr->oport) * V + fr->ovc], 1);
            if (fr->ve_n > 0)
                __builtin_prefetch(&f->ring[(size_t)iv * f->RB + fr->ve_head], 0);
        }
    }
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
    int P = net->P, start[4];
    for (int s = 0; s < subs && s < 4; s++)
        start[s] = (int)((t + s) % P);
    for (int r = 0; r < net->R; r++) {
        if (r + 4 < net->R)
            sim_fl_prefetch_router(net, r + 4);
        if (r + 2 < net->R)
            sim_fl_prefetch_route(net, r + 2);
        sim_fl_route_va(net, t, r);
        if (f->sa_ptr) {
            for (int s = 0; s < subs; s++)
                sim_fl_switch_rr(net, t, r);
            continue;
        }
        for (int s = 0; s < subs; s++)
            sim_fl_switch(net, t, r, s < 4 ? start[s] : (int)((t + s) % P));
    }
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
