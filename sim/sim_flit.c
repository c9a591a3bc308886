/* sim_flit.c - flit-level, cycle-driven reference mode (--flit).
 *
 * A BookSim-like wormhole input-queued router: per-flit credits, an output
 * VC owned by one packet from its head's VC allocation until its tail has
 * crossed the switch, and a separable input-first switch allocator run
 * 2 or 3 times per cycle (2.4 on average) with at most one flit per input
 * and per output each time.  Links are delay lines of one flit per cycle.
 * It shares topology, routing, traffic and the endpoint logic with the
 * packet-granular mode and exists to validate it (slow: use <= 1,056 nodes).
 */
#include <stdlib.h>
#include <string.h>

#include "sim_net.h"

/* A flit is coded as packet id * 64 + index within its packet * 2 + tail
 * bit, so that only head flits need to touch the packet record.  On the
 * output side the code is packed with the output VC: code * 8 + vc. */
#define FL_CODE(pkt, i, tail) ((pkt) * 64 + (i) * 2 + (tail))
#define FL_PKT(code) ((code) >> 6)
#define FL_IDX(code) (((code) >> 1) & 31)
#define FL_TAIL(code) ((code) & 1)
#define FL_MAX_PKT (1 << 22)

/* Flits of one packet are contiguous in a VC (the upstream output VC is
 * owned by one packet at a time), so a VC buffer is kept as a ring of
 * packet entries: one cache line serves all the packet's flits. */
struct sim_fl_ent {
    int32_t pkt, arr;               /* packet, arrival cycle of its head */
    uint8_t len, present, sent, pad; /* flits in packet, received, forwarded */
};

struct sim_fl {
    int B, Q;                       /* VC buffer depth, output queue depth */
    struct sim_fl_ent *ve;              /* per input VC ring of B packet entries */
    int32_t *ve_head, *ve_n;        /* ring position and entries in use */
    int32_t *vq_n, *vq_state;       /* flits present, VC state */
    int32_t *va_ready;              /* per input VC: cycle its front head may allocate */
    int32_t *owner;                 /* per output VC: owning input pv, -1 free */
    int32_t *oq, *oq_head, *oq_n;         /* per output port ring of Q packed flits */
    int32_t *pipe, *pipe_off;             /* per output port: lat slots of packed flits */
    int32_t *cpipe, *cpipe_off;           /* per input port: lat * V credit slots */
    int32_t *used_out;                    /* switch sub-cycle tag per output */
    int32_t *rr_in;                       /* per input port: next VC to try */
    int32_t *inj_pkt, *inj_idx;           /* per node: packet being injected */
    int32_t *ipipe, *ipipe_off;           /* per node injection delay line */
    int32_t *ej, *ej_head, *ej_sink_at;   /* per node ejection ring of flits */
    int32_t *ej_part;                     /* flits sunk of a partly sunk packet */
    int32_t *ecpipe, *ecpipe_off;         /* per node ejection credit delay line */
    uint8_t *sw_mask;                     /* per input port: VCs that may cross */
    uint8_t *va_mask;                     /* per input port: VCs awaiting VA */
    int32_t *va_need;                     /* per router: VCs awaiting VA */
    int32_t *lat_c;                       /* per port: link latency in cycles */
    int32_t tmod[64];                     /* t % L for this cycle */
    double sacc;                          /* speedup accumulator */
};

enum { VQ_IDLE, VQ_ACTIVE };

static int32_t *sim_fl_alloc(size_t n, int fill, int *ok)
{
    int32_t *p = malloc((n ? n : 1) * sizeof(int32_t));
    if (!p) {
        *ok = 0;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        p[i] = fill;
    return p;
}

/* Prefix offsets of per-port delay lines (lengths in cycles). */
static int32_t *sim_fl_offsets(const struct sim_net *net, int mult, size_t *total, int *ok)
{
    size_t np = (size_t)net->R * net->P;
    int32_t *off = sim_fl_alloc(np + 1, 0, ok);
    if (!off)
        return NULL;
    for (size_t ip = 0; ip < np; ip++)
        off[ip + 1] = off[ip] + net->lat[ip] / SIM_TPC * mult;
    *total = (size_t)off[np];
    return off;
}

static int sim_fl_alloc_ports(struct sim_net *net, struct sim_fl *f, int *ok)
{
    size_t np = (size_t)net->R * net->P, nv = np * net->V, tot = 0;
    f->ve = calloc(nv * f->B, sizeof(struct sim_fl_ent));
    if (!f->ve)
        *ok = 0;
    f->ve_head = sim_fl_alloc(nv, 0, ok);
    f->ve_n = sim_fl_alloc(nv, 0, ok);
    f->vq_n = sim_fl_alloc(nv, 0, ok);
    f->vq_state = sim_fl_alloc(nv, VQ_IDLE, ok);
    f->va_ready = sim_fl_alloc(nv, 0, ok);
    f->owner = sim_fl_alloc(nv, -1, ok);
    f->oq = sim_fl_alloc(np * f->Q, -1, ok);
    f->oq_head = sim_fl_alloc(np, 0, ok);
    f->oq_n = sim_fl_alloc(np, 0, ok);
    f->pipe_off = sim_fl_offsets(net, 1, &tot, ok);
    f->pipe = sim_fl_alloc(tot, -1, ok);
    f->cpipe_off = sim_fl_offsets(net, net->V, &tot, ok);
    f->cpipe = sim_fl_alloc(tot, 0, ok);
    f->used_out = sim_fl_alloc(np, -1, ok);
    f->rr_in = sim_fl_alloc(np, 0, ok);
    f->sw_mask = calloc(np, 1);
    f->va_mask = calloc(np, 1);
    f->va_need = sim_fl_alloc((size_t)net->R, 0, ok);
    f->lat_c = sim_fl_alloc(np, 0, ok);
    if (!f->sw_mask || !f->va_mask)
        *ok = 0;
    for (size_t ip = 0; *ok && ip < np; ip++)
        f->lat_c[ip] = net->lat[ip] / SIM_TPC;
    return *ok ? SIM_OK : SIM_ERR_NOMEM;
}

static int sim_fl_alloc_nodes(struct sim_net *net, struct sim_fl *f, int *ok)
{
    int N = net->N, lt = net->cfg.lat_term;
    f->inj_pkt = sim_fl_alloc((size_t)N, -1, ok);
    f->inj_idx = sim_fl_alloc((size_t)N, 0, ok);
    f->ipipe = sim_fl_alloc((size_t)N * lt, -1, ok);
    f->ej = sim_fl_alloc((size_t)N * net->cfg.eject_buf, -1, ok);
    f->ej_head = sim_fl_alloc((size_t)N, 0, ok);
    f->ej_sink_at = sim_fl_alloc((size_t)N, 0, ok);
    f->ej_part = sim_fl_alloc((size_t)N, 0, ok);
    f->ecpipe = sim_fl_alloc((size_t)N * lt, 0, ok);
    return *ok ? SIM_OK : SIM_ERR_NOMEM;
}

int sim_flit_init(struct sim_net *net)
{
    int ok = 1;
    struct sim_fl *f = calloc(1, sizeof(*f));
    if (!f)
        return SIM_ERR_NOMEM;
    net->fl = f;
    f->B = net->cfg.buf_flits > net->cfg.eject_buf ? net->cfg.buf_flits : net->cfg.eject_buf;
    f->Q = net->V * f->B + 1;
    if (net->cfg.lat_term < 1 || net->cfg.lat_local < 1 || net->cfg.lat_global < 1 ||
        net->cfg.lat_term > 63 || net->cfg.lat_local > 63 || net->cfg.lat_global > 63 ||
        net->cfg.pkt_flits > 32 || net->V > 8)
        return SIM_ERR_ARG;
    if (sim_fl_alloc_ports(net, f, &ok) != SIM_OK || sim_fl_alloc_nodes(net, f, &ok) != SIM_OK)
        return SIM_ERR_NOMEM;
    return SIM_OK;
}

void sim_flit_free(struct sim_net *net)
{
    struct sim_fl *f = net->fl;
    if (!f)
        return;
    int32_t *bufs[] = { f->ve_head, f->ve_n, f->va_ready, f->vq_n, f->vq_state,
                        f->owner, f->oq, f->oq_head, f->oq_n, f->pipe,
                        f->pipe_off, f->cpipe, f->cpipe_off, f->used_out, f->rr_in,
                        f->inj_pkt, f->inj_idx, f->ipipe, f->ej, f->ej_head, f->ej_sink_at, f->ej_part,
                        f->ecpipe, f->ecpipe_off, f->va_need, f->lat_c };
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        free(bufs[i]);
    free(f->sw_mask);
    free(f->va_mask);
    free(f->ve);
    free(f);
    net->fl = NULL;
}

/* ---- input VC rings ---- */

static void sim_fl_vq_push(struct sim_net *net, int iv, int code, int32_t cyc)
{
    struct sim_fl *f = net->fl;
    if (f->vq_state[iv] == VQ_ACTIVE) {
        f->sw_mask[iv / net->V] |= (uint8_t)(1u << (iv % net->V));
    } else if (f->vq_n[iv] == 0) {
        f->va_mask[iv / net->V] |= (uint8_t)(1u << (iv % net->V));
        f->va_need[iv / net->V / net->P]++;
        f->va_ready[iv] = cyc + net->cfg.router_delay;
    }
    if (FL_IDX(code) == 0) {
        int k = f->ve_head[iv] + f->ve_n[iv];
        if (k >= f->B)
            k -= f->B;
        struct sim_fl_ent *e = &f->ve[(size_t)iv * f->B + k];
        e->pkt = FL_PKT(code);
        e->arr = cyc;
        e->len = (uint8_t)net->pkt[e->pkt].len;
        e->present = 1;
        e->sent = 0;
        f->ve_n[iv]++;
    } else {
        int k = f->ve_head[iv] + f->ve_n[iv] - 1;
        if (k >= f->B)
            k -= f->B;
        f->ve[(size_t)iv * f->B + k].present++;
    }
    f->vq_n[iv]++;
    net->in_flits[iv]++;
}

static struct sim_fl_ent *sim_fl_vq_front_ent(const struct sim_fl *f, int iv)
{
    return &f->ve[(size_t)iv * f->B + f->ve_head[iv]];
}

static int32_t sim_fl_vq_front_arr(const struct sim_fl *f, int iv)
{
    return sim_fl_vq_front_ent(f, iv)->arr;
}

/* Code of the front flit; a non-empty VC always has one (contiguity). */
static int sim_fl_vq_front(const struct sim_fl *f, int iv)
{
    if (!f->vq_n[iv])
        return -1;
    const struct sim_fl_ent *e = sim_fl_vq_front_ent(f, iv);
    return FL_CODE(e->pkt, e->sent, e->sent == e->len - 1);
}

/* Remove the front flit (the caller has read its code). */
static void sim_fl_vq_pop(struct sim_fl *f, int iv, int tail)
{
    sim_fl_vq_front_ent(f, iv)->sent++;
    if (tail) {
        if (++f->ve_head[iv] == f->B)
            f->ve_head[iv] = 0;
        f->ve_n[iv]--;
    }
    f->vq_n[iv]--;
}

/* ---- phase 1: links deliver flits and credits sent lat cycles ago ---- */

static void sim_fl_deliver_flit(struct sim_net *net, int64_t t, int r, int o, int code, int vc)
{
    int ip = r * net->P + o;
    struct sim_fl *f = net->fl;
    int pkt = FL_PKT(code);
    net->out_fwd[ip * net->V + vc]--;
    if (o < net->cfg.p) {
        int n = net->nbr_p[ip];
        int cap = net->cfg.eject_buf, k = (f->ej_head[n] + net->node[n].ej_flits) % cap;
        f->ej[(size_t)n * cap + k] = code;
        net->node[n].ej_flits++;
        if (FL_IDX(code) == 0)
            sim_node_header(net, t * SIM_TPC, n, &net->pkt[pkt]);
        return;
    }
    int dr = net->nbr_r[ip], iv = (dr * net->P + net->nbr_p[ip]) * net->V + vc;
    sim_fl_vq_push(net, iv, code, (int32_t)t);
}

static void sim_fl_links(struct sim_net *net, int64_t t)
{
    struct sim_fl *f = net->fl;
    int np = net->R * net->P;
    for (int ip = 0; ip < np; ip++) {
        int m = f->tmod[f->lat_c[ip]], s = f->pipe_off[ip] + m;
        if (f->pipe[s] >= 0) {
            int packed = f->pipe[s];
            f->pipe[s] = -1;
            sim_fl_deliver_flit(net, t, ip / net->P, ip % net->P, packed >> 3, packed & 7);
        }
        int *cs = &f->cpipe[f->cpipe_off[ip] + m * net->V];
        for (int vc = 0; vc < net->V; vc++) {
            if (!cs[vc])
                continue;
            if (ip % net->P < net->cfg.p) {
                struct sim_node *nd = &net->node[net->nbr_p[ip]];
                nd->inj_ret -= cs[vc];
                nd->inj_cred += cs[vc];
            } else {
                int ov = (net->nbr_r[ip] * net->P + net->nbr_p[ip]) * net->V + vc;
                net->out_ret[ov] -= cs[vc];
                net->out_cred[ov] += cs[vc];
                net->out_occ[ov / net->V] -= cs[vc];
            }
            cs[vc] = 0;
        }
    }
}

/* ---- phase 2: nodes inject one flit and sink at their rate ---- */

static void sim_fl_node_inject(struct sim_net *net, int64_t t, int n)
{
    struct sim_fl *f = net->fl;
    struct sim_node *nd = &net->node[n];
    int lt = net->cfg.lat_term, s = n * lt + (int)(t % lt);
    if (f->ipipe[s] >= 0) { /* arrives at the router's terminal input */
        int r = n / net->cfg.p, port = n % net->cfg.p;
        nd->inj_fwd--;
        sim_fl_vq_push(net, (r * net->P + port) * net->V, f->ipipe[s], (int32_t)t);
        f->ipipe[s] = -1;
    }
    if (f->inj_pkt[n] < 0) {
        sim_tick_t retry;
        int want = sim_node_wants(net, t * SIM_TPC, n, &retry);
        if (want & SIM_WANT_DATA)
            f->inj_pkt[n] = sim_node_new_pkt(net, t * SIM_TPC, n, net->cfg.pkt_flits, 0);
        else if (want & SIM_WANT_CTRL)
            f->inj_pkt[n] = sim_node_new_pkt(net, t * SIM_TPC, n, 1, 1);
        f->inj_idx[n] = 0;
    }
    if (f->inj_pkt[n] >= 0 && nd->inj_cred > 0) {
        int pkt = f->inj_pkt[n], len = net->pkt[pkt].len, i = f->inj_idx[n];
        if (pkt >= FL_MAX_PKT)
            abort(); /* flit codes would overflow: far beyond any sane run */
        f->ipipe[s] = FL_CODE(pkt, i, i == len - 1);
        nd->inj_cred--;
        nd->inj_fwd++;
        if (++f->inj_idx[n] == len)
            f->inj_pkt[n] = -1;
    }
}

static void sim_fl_node_sink(struct sim_net *net, int64_t t, int n)
{
    struct sim_fl *f = net->fl;
    struct sim_node *nd = &net->node[n];
    int lt = net->cfg.lat_term, cap = net->cfg.eject_buf, s = n * lt + (int)(t % lt);
    int r = n / net->cfg.p, o = n % net->cfg.p, ov = (r * net->P + o) * net->V;
    if (f->ecpipe[s]) { /* ejection credits reach the router */
        net->out_ret[ov] -= f->ecpipe[s];
        net->out_cred[ov] += f->ecpipe[s];
        net->out_occ[ov / net->V] -= f->ecpipe[s];
        f->ecpipe[s] = 0;
    }
    if (nd->ej_flits == 0 || t < f->ej_sink_at[n])
        return;
    int code = f->ej[(size_t)n * cap + f->ej_head[n]], pkt = FL_PKT(code);
    struct sim_pkt *pk = &net->pkt[pkt];
    /* Control flits are consumed by the NIC; data drains at 1/slow. */
    f->ej_sink_at[n] = (pk->flags & PF_CTRL) ? (int32_t)t : (int32_t)(t + nd->slow);
    f->ej_head[n] = (f->ej_head[n] + 1) % cap;
    nd->ej_flits--;
    f->ecpipe[s]++;
    net->out_ret[ov]++;
    f->ej_part[n]++;
    if (FL_TAIL(code)) {
        f->ej_part[n] = 0;
        if (pk->flags & PF_CTRL)
            sim_pkt_free(net, pkt);
        else
            sim_node_account(net, (t + 1) * SIM_TPC, n, pkt);
    }
}

/* ---- phase 3: routing, VC allocation, switch allocation ---- */

static void sim_fl_route_va(struct sim_net *net, int64_t t, int r)
{
    struct sim_fl *f = net->fl;
    if (f->va_need[r] == 0)
        return;
    int P = net->P, V = net->V, base = r * P * V, start = (int)(t % P);
    for (int i = 0; i < P; i++) {
        int port = start + i < P ? start + i : start + i - P; /* rotate: no favourite */
        int ipi = r * P + port;
        for (unsigned m = f->va_mask[ipi]; m; m &= m - 1) {
            int vc = __builtin_ctz(m), pv = port * V + vc, iv = base + pv;
            if (t < f->va_ready[iv])
                continue; /* routing + allocation pipeline */
            if (net->in_out[iv] < 0) {
                int out, ovc;
                sim_route(net, r, port, &net->pkt[FL_PKT(sim_fl_vq_front(f, iv))], &out, &ovc);
                net->in_out[iv] = out;
                net->in_ovc[iv] = ovc;
            }
            int ov = (r * P + net->in_out[iv]) * V + net->in_ovc[iv];
            if (f->owner[ov] >= 0)
                continue;
            f->owner[ov] = pv;
            f->vq_state[iv] = VQ_ACTIVE;
            f->va_mask[ipi] &= (uint8_t)~(1u << vc);
            f->va_need[r]--;
            f->sw_mask[ipi] |= (uint8_t)(1u << vc);
        }
    }
}

/* The head flit of pk crosses towards output o, VC ov: FECN marking from
 * the remote queue's occupancy, and hop counters. */
static void sim_fl_head_crosses(struct sim_net *net, struct sim_pkt *pk, int o, int ov)
{
    if (net->cfg.cc == SIM_CC_FECN && !(pk->flags & PF_CTRL)) {
        double cap = net->out_cap[ov], fr = (cap - net->out_cred[ov]) / cap;
        double prob = (fr - 0.5) * 2.0 * net->cfg.fecn_mult;
        if (fr > 0.5 && (prob >= 1.0 || sim_rand01(net) < prob))
            pk->flags |= PF_FECN;
    }
    pk->hops++;
    if (o >= net->cfg.p) {
        pk->rhops++;
        if (o >= net->cfg.p + net->cfg.a - 1)
            pk->ghops++;
    }
}

/* Move the front flit of input VC (r, pv) across the switch. */
static void sim_fl_traverse(struct sim_net *net, int r, int pv)
{
    struct sim_fl *f = net->fl;
    int iv = r * net->P * net->V + pv, port = pv / net->V, vc = pv % net->V;
    int o = net->in_out[iv], ovc = net->in_ovc[iv], ip = r * net->P + o, ov = ip * net->V + ovc;
    int code = sim_fl_vq_front(f, iv);
    sim_fl_vq_pop(f, iv, FL_TAIL(code));
    net->in_flits[iv]--;
    if (f->vq_n[iv] == 0)
        f->sw_mask[iv / net->V] &= (uint8_t)~(1u << vc);
    if (FL_IDX(code) == 0)
        sim_fl_head_crosses(net, &net->pkt[FL_PKT(code)], o, ov);
    net->out_cred[ov]--;
    net->out_occ[ip]++;
    net->out_fwd[ov]++; /* output queue + wire count as "forward" */
    int k = f->oq_head[ip] + f->oq_n[ip];
    if (k >= f->Q)
        k -= f->Q;
    f->oq[(size_t)ip * f->Q + k] = code * 8 + ovc;
    f->oq_n[ip]++;
    if (FL_TAIL(code)) {
        int ipi = r * net->P + port;
        f->owner[ov] = -1;
        f->vq_state[iv] = VQ_IDLE;
        net->in_out[iv] = -1;
        f->sw_mask[ipi] &= (uint8_t)~(1u << vc);
        if (f->vq_n[iv] > 0) { /* the next packet's head is now in front */
            f->va_mask[ipi] |= (uint8_t)(1u << vc);
            f->va_need[r]++;
            f->va_ready[iv] = sim_fl_vq_front_arr(f, iv) + net->cfg.router_delay;
        }
    }
}

static void sim_fl_credit_back(struct sim_net *net, int slot, int r, int port, int vc)
{
    struct sim_fl *f = net->fl;
    int ip = r * net->P + port;
    f->cpipe[f->cpipe_off[ip] + slot * net->V + vc]++;
    if (port < net->cfg.p)
        net->node[net->nbr_p[ip]].inj_ret++;
    else
        net->out_ret[(net->nbr_r[ip] * net->P + net->nbr_p[ip]) * net->V + vc]++;
}

/* One switch sub-cycle: each input offers one flit (round robin over its
 * VCs); it goes if its output has not taken a flit in this sub-cycle. */
static void sim_fl_switch(struct sim_net *net, int64_t t, int r, int sub)
{
    struct sim_fl *f = net->fl;
    int tag = (int)(t * 4 + sub), P = net->P, V = net->V, start = (int)((t + sub) % P);
    for (int i = 0; i < P; i++) {
        int port = start + i < P ? start + i : start + i - P, ipi = r * P + port;
        unsigned m = f->sw_mask[ipi];
        if (!m)
            continue;
        /* Rotate the mask so the search starts at the round-robin VC. */
        int rr = f->rr_in[ipi];
        unsigned rot = ((m >> rr) | (m << (V - rr))) & ((1u << V) - 1);
        for (; rot; rot &= rot - 1) {
            int vc = rr + __builtin_ctz(rot);
            if (vc >= V)
                vc -= V;
            int pv = port * V + vc, iv = r * P * V + pv;
            int o = net->in_out[iv], ov = (r * P + o) * V + net->in_ovc[iv];
            if (f->used_out[r * P + o] == tag || net->out_cred[ov] <= 0)
                continue;
            f->used_out[r * P + o] = tag;
            f->rr_in[ipi] = vc + 1 < V ? vc + 1 : 0;
            sim_fl_traverse(net, r, pv);
            sim_fl_credit_back(net, f->tmod[f->lat_c[ipi]], r, port, vc);
            break;
        }
    }
}

/* ---- phase 4: output queues put one flit per cycle on the wire ---- */

static void sim_fl_outputs(struct sim_net *net)
{
    struct sim_fl *f = net->fl;
    int np = net->R * net->P;
    for (int ip = 0; ip < np; ip++) {
        if (f->oq_n[ip] == 0)
            continue;
        int s = f->pipe_off[ip] + f->tmod[f->lat_c[ip]];
        size_t k = (size_t)ip * f->Q + f->oq_head[ip];
        f->pipe[s] = f->oq[k];
        if (++f->oq_head[ip] == f->Q)
            f->oq_head[ip] = 0;
        f->oq_n[ip]--;
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
    for (int L = 1; L < 64; L++)
        f->tmod[L] = (int32_t)(t % L);
    sim_fl_links(net, t);
    for (int n = 0; n < net->N; n++) {
        if (net->cfg.offered < 1.0)
            sim_fl_generate(net, t, n);
        sim_fl_node_sink(net, t, n);
        sim_fl_node_inject(net, t, n);
    }
    /* Before the switch: a flit needs one cycle from switch to wire. */
    sim_fl_outputs(net);
    f->sacc += net->cfg.speedup;
    int subs = (int)f->sacc;
    f->sacc -= subs;
    for (int r = 0; r < net->R; r++) {
        sim_fl_route_va(net, t, r);
        for (int s = 0; s < subs; s++)
            sim_fl_switch(net, t, r, s);
    }
}

/* Flits of live packets that sit outside buffers and wires: not yet
 * injected, or already sunk from a partly sunk packet. */
int64_t sim_flit_outside(const struct sim_net *net)
{
    const struct sim_fl *f = net->fl;
    int64_t x = 0;
    for (int n = 0; n < net->N; n++) {
        if (f->inj_pkt[n] >= 0)
            x += net->pkt[f->inj_pkt[n]].len - f->inj_idx[n];
        x += f->ej_part[n];
    }
    return x;
}

/* Diagnostics: packet ids of up to max flits of input VC iv, front first. */
int sim_flit_vc_pkts(const struct sim_net *net, int iv, int32_t *out, int max)
{
    const struct sim_fl *f = net->fl;
    int n = 0;
    for (int k = 0; k < f->ve_n[iv]; k++) {
        const struct sim_fl_ent *e = &f->ve[(size_t)iv * f->B + (f->ve_head[iv] + k) % f->B];
        for (int i = e->sent; i < e->present && n < max; i++)
            out[n++] = e->pkt;
    }
    return n;
}
