/* sim_flalloc.c - the routers of the flit-level mode (--flit): routing,
 * VC allocation, switch allocation and the crossing of the switch, with
 * the prefetches that let them find their records in cache (sim_flit.c
 * says how the engine works). */
#include "sim_flit.h"

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

/* Every router in turn: VC allocation, then subs switch sub-cycles; the
 * records the allocators of later routers will read are prefetched on
 * the way. */
void sim_fl_routers(struct sim_net *net, int64_t t, int subs)
{
    struct sim_fl *f = net->fl;
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
