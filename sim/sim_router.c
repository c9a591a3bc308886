/* sim_router.c - input-queued router with VCs, credits and a sped-up
 * crossbar, modelled at packet granularity with virtual cut-through.
 *
 * A packet whose head reaches the front of an input VC is routed once and
 * asks for its output VC.  An output grants one requester per crossbar
 * slot (len/speedup cycles), round robin, when the input side of the
 * crossbar is free and the downstream VC has room for the whole packet.
 * Credits are taken at grant time (as BookSim does at switch allocation);
 * the output link then serialises packets at one flit per cycle, so the
 * flits between grant and link form the output queue.
 *
 * Resources are held as long as the flit engine (sim_flit.c) holds them:
 *  - the output VC from its allocation until the packet's tail has crossed
 *    the switch (not merely until the grant), and
 *  - the input buffer slots until the tail has crossed, which is not
 *    before the tail has arrived at this router;
 * and a freed output VC goes to the waiting input VC that comes first in
 * the rotating input-port order of the next cycle (lowest VC first within
 * a port), as the flit engine's VC allocator re-arbitrates all waiters,
 * instead of first-come first-served.  (Branch sim-packet3: with a FIFO of
 * waiters, credits returned only when the tail reached the next router
 * and the VC freed at grant, this engine did not reproduce the flit
 * engine's congestion collapse behind slow receivers; see README.)
 */
#include <assert.h>

#include "sim_net.h"

static int sim_xbar_ticks(const struct sim_net *net, int len)
{
    double t = (double)len * SIM_TPC / net->cfg.speedup;
    int it = (int)t;
    return (double)it + 1e-9 < t ? it + 1 : it;
}

/* Requesters of output port ip: only the holder of one of its V output
 * VCs requests the switch, so V slots per output suffice (and keep the
 * array small enough to stay in cache). */
static void sim_req_add(struct sim_net *net, int ip, int pv)
{
    assert(net->req_n[ip] < net->V);
    net->req[(int64_t)ip * net->V + net->req_n[ip]++] = pv;
}

static void sim_req_del(struct sim_net *net, int ip, int k)
{
    int n = --net->req_n[ip];
    int32_t *q = &net->req[(int64_t)ip * net->V];
    for (int i = k; i < n; i++)
        q[i] = q[i + 1];
    if (net->req_rr[ip] > k)
        net->req_rr[ip]--;
    if (net->req_rr[ip] >= n)
        net->req_rr[ip] = 0;
}

/* The packet at the front of input VC (r, pv) is routed and asks for its
 * output VC.  As in a wormhole router (and BookSim), the output VC is
 * allocated to one packet at a time regardless of credits: a packet that
 * holds it while waiting for room downstream keeps others off that VC.
 * Only the holder requests the switch; the others queue FIFO for the VC. */
static void sim_head_setup(struct sim_net *net, sim_tick_t t, int r, int pv)
{
    int ivx = r * net->P * net->V + pv, port = pv / net->V, out, ovc;
    struct sim_pkt *pk = &net->pkt[net->in_head[ivx]];
    sim_route(net, r, port, pk, &out, &ovc);
    net->in_out[ivx] = out;
    net->in_ovc[ivx] = ovc;
    int ov = (r * net->P + out) * net->V + ovc;
    if (net->out_owner[ov] != -1) { /* held, or its holder's tail still crossing */
        net->wait_next[ivx] = -1;
        if (net->wait_tail[ov] >= 0)
            net->wait_next[r * net->P * net->V + net->wait_tail[ov]] = pv;
        else
            net->wait_head[ov] = pv;
        net->wait_tail[ov] = pv;
        return;
    }
    net->out_owner[ov] = pv;
    sim_req_add(net, r * net->P + out, pv);
    sim_router_try_output(net, t, r, out);
}

/* The holder of output VC ov has crossed: the VC goes to the waiter that
 * the flit engine's VC allocator would pick in the next cycle: the first
 * in input-port order rotated to start at (cycle + 1) mod P, lowest VC
 * first within a port.  Waiters are a short list; scanning it is cheap. */
static void sim_vc_release(struct sim_net *net, sim_tick_t t, int r, int ov)
{
    int P = net->P, V = net->V, base = r * P * V;
    int start = (int)((t / SIM_TPC + 1) % P);
    int best = -1, bprev = -1, bkey = 1 << 30;
    for (int w = net->wait_head[ov], prev = -1; w >= 0; prev = w, w = net->wait_next[base + w]) {
        int port = w / V, key = (port >= start ? port - start : port + P - start) * V + w % V;
        if (key < bkey) {
            bkey = key;
            best = w;
            bprev = prev;
        }
    }
    net->out_owner[ov] = best;
    if (best < 0)
        return;
    int nx = net->wait_next[base + best];
    if (bprev < 0)
        net->wait_head[ov] = nx;
    else
        net->wait_next[base + bprev] = nx;
    if (net->wait_tail[ov] == best)
        net->wait_tail[ov] = bprev;
    sim_req_add(net, ov / V, best);
}

/* EV_VCFREE: the tail of the packet that held output VC ov has crossed. */
void sim_router_vc_free(struct sim_net *net, sim_tick_t t, int r, int ov)
{
    sim_vc_release(net, t, r, ov);
    sim_router_try_output(net, t, r, ov / net->V - r * net->P);
}

void sim_router_arrive(struct sim_net *net, sim_tick_t t, int r, int pv, int pkt)
{
    int ivx = r * net->P * net->V + pv;
    struct sim_pkt *pk = &net->pkt[pkt];
    int port = pv / net->V, vc = pv % net->V, ip = r * net->P + port;
    /* Leaving the upstream link: flits move from "in flight" to "queued". */
    if (port < net->cfg.p)
        net->node[net->nbr_p[ip]].inj_fwd -= pk->len;
    else
        net->out_fwd[(net->nbr_r[ip] * net->P + net->nbr_p[ip]) * net->V + vc] -= pk->len;
    net->in_flits[ivx] += pk->len;
    pk->next = -1;
    if (net->in_head[ivx] < 0) {
        net->in_head[ivx] = net->in_tail[ivx] = pkt;
        sim_head_setup(net, t, r, pv);
    } else {
        net->pkt[net->in_tail[ivx]].next = pkt;
        net->in_tail[ivx] = pkt;
    }
}

void sim_router_credit(struct sim_net *net, sim_tick_t t, int r, int pv, int flits)
{
    int ov = r * net->P * net->V + pv, o = pv / net->V;
    net->out_ret[ov] -= flits;
    net->out_cred[ov] += flits;
    net->out_occ[r * net->P + o] -= flits;
    sim_router_try_output(net, t, r, o);
}

/* FECN: mark with probability rising linearly from 0 at 50% to 1 at 100%
 * occupancy of the downstream (remote) queue, times the multiplier. */
static void sim_fecn_mark(struct sim_net *net, int ov, struct sim_pkt *pk)
{
    double cap = net->out_cap[ov];
    double f = (cap - net->out_cred[ov]) / cap;
    if (f <= 0.5)
        return;
    double prob = (f - 0.5) * 2.0 * net->cfg.fecn_mult;
    if (prob >= 1.0 || sim_rand01(net) < prob)
        pk->flags |= PF_FECN;
}

/* Return credits for an input VC's packet to whoever feeds that input. */
static void sim_return_credit(struct sim_net *net, sim_tick_t t, int r, int port, int vc, int len)
{
    int ip = r * net->P + port;
    if (port < net->cfg.p) {
        int n = net->nbr_p[ip];
        net->node[n].inj_ret += len;
        sim_ev_push(net, t + net->lat[ip], EV_NCREDIT, n, 0, len, -1);
    } else {
        int ur = net->nbr_r[ip], up = net->nbr_p[ip];
        net->out_ret[(ur * net->P + up) * net->V + vc] += len;
        sim_ev_push(net, t + net->lat[ip], EV_RCREDIT, ur, up * net->V + vc, len, -1);
    }
}

/* Send the packet onto the output link and schedule its arrival. */
static void sim_link_send(struct sim_net *net, sim_tick_t t, int r, int o, int ovc, int pkt)
{
    int ip = r * net->P + o;
    struct sim_pkt *pk = &net->pkt[pkt];
    sim_tick_t start = sim_tmax(net->out_lfree[ip], t + SIM_TPC);
    net->out_lfree[ip] = start + (sim_tick_t)pk->len * SIM_TPC;
    net->out_fwd[ip * net->V + ovc] += pk->len;
    pk->t_tail = start + (sim_tick_t)(pk->len - 1) * SIM_TPC + net->lat[ip];
    pk->hops++;
    if (o < net->cfg.p) {
        sim_ev_push(net, start + net->lat[ip], EV_NARRIVE, net->nbr_p[ip], 0, 0, pkt);
        return;
    }
    pk->rhops++;
    if (o >= net->cfg.p + net->cfg.a - 1)
        pk->ghops++;
    sim_tick_t at = start + net->lat[ip] + (sim_tick_t)net->cfg.router_delay * SIM_TPC;
    sim_ev_push(net, at, EV_RARRIVE, net->nbr_r[ip], net->nbr_p[ip] * net->V + ovc, 0, pkt);
}

static void sim_grant(struct sim_net *net, sim_tick_t t, int r, int pv, int o)
{
    int ivx = r * net->P * net->V + pv, port = pv / net->V, vc = pv % net->V;
    int pkt = net->in_head[ivx], ovc = net->in_ovc[ivx];
    int ov = (r * net->P + o) * net->V + ovc;
    struct sim_pkt *pk = &net->pkt[pkt];
    int xt = sim_xbar_ticks(net, pk->len);

    net->in_head[ivx] = pk->next;
    if (pk->next < 0)
        net->in_tail[ivx] = -1;
    net->in_flits[ivx] -= pk->len;
    net->in_out[ivx] = -1;
    net->in_xfree[r * net->P + port] = t + xt;
    net->out_xfree[r * net->P + o] = t + xt;
    if (net->cfg.cc == SIM_CC_FECN && !(pk->flags & PF_CTRL))
        sim_fecn_mark(net, ov, pk);
    net->out_cred[ov] -= pk->len;
    net->out_occ[r * net->P + o] += pk->len;
    /* The tail has crossed once the crossbar slot is over and the tail
     * has arrived here (pk->t_tail, before sim_link_send moves it on to
     * the next router): cut-through does not free unreceived flits' space
     * early.  Until then the packet keeps its output VC, as a wormhole
     * packet does until its tail crosses, and its input buffer slots. */
    sim_tick_t freed = sim_tmax(t + xt, pk->t_tail + SIM_TPC);
    sim_link_send(net, t, r, o, ovc, pkt);
    net->out_owner[ov] = -2;
    sim_ev_push(net, freed, EV_VCFREE, r, ov, 0, -1);
    sim_return_credit(net, freed, r, port, vc, pk->len);
    sim_ev_push(net, t + xt, EV_IWAKE, r, port, 0, -1);
    if (net->in_head[ivx] >= 0)
        sim_head_setup(net, t, r, pv);
}

static void sim_schedule_owake(struct sim_net *net, sim_tick_t at, int r, int o)
{
    int ip = r * net->P + o;
    if (net->out_wake[ip] == at)
        return;
    net->out_wake[ip] = at;
    sim_ev_push(net, at, EV_OWAKE, r, o, 0, -1);
}

/* Grant at most one requester of output o (one crossbar slot). */
void sim_router_try_output(struct sim_net *net, sim_tick_t t, int r, int o)
{
    int ip = r * net->P + o, n = net->req_n[ip];
    if (n == 0)
        return;
    if (net->out_xfree[ip] > t) {
        sim_schedule_owake(net, net->out_xfree[ip], r, o);
        return;
    }
    const int32_t *q = &net->req[(int64_t)ip * net->V];
    int base = r * net->P * net->V, k = net->req_rr[ip];
    const sim_tick_t *ixf = &net->in_xfree[r * net->P];
    /* Requesters from the round-robin one on (k wraps without a division:
     * this loop runs on every credit, wake-up and release). */
    for (int i = 0; i < n; i++, k = k + 1 < n ? k + 1 : 0) {
        int pv = q[k];
        int ivx = base + pv;
        if (ixf[net->pv_port[pv]] > t)
            continue; /* input busy: its EV_IWAKE retries us */
        /* Room downstream for the whole packet?  (The packet record is
         * read only when the answer depends on its length.)  If not,
         * EV_RCREDIT retries us. */
        int cred = net->out_cred[ip * net->V + net->in_ovc[ivx]];
        if (cred < net->cfg.pkt_flits && (cred < 1 || cred < net->pkt[net->in_head[ivx]].len))
            continue;
        sim_req_del(net, ip, k);
        net->req_rr[ip] = net->req_n[ip] ? (k % net->req_n[ip]) : 0;
        sim_grant(net, t, r, pv, o);
        if (net->req_n[ip] > 0)
            sim_schedule_owake(net, net->out_xfree[ip], r, o);
        return;
    }
}

/* An input's crossbar slot is free: retry the outputs its VCs want. */
void sim_router_iwake(struct sim_net *net, sim_tick_t t, int r, int port)
{
    int base = (r * net->P + port) * net->V;
    int first = (int)((t / SIM_TPC) % net->V); /* rotate so no VC starves */
    for (int i = 0; i < net->V; i++) {
        int vc = (first + i) % net->V;
        if (net->in_xfree[r * net->P + port] > t)
            return;
        if (net->in_head[base + vc] >= 0 && net->in_out[base + vc] >= 0)
            sim_router_try_output(net, t, r, net->in_out[base + vc]);
    }
}
