/* sim_node.c - network endpoints: injection, slow sinks, FECN/BECN
 * throttling and the RDRP outstanding-packet limit.
 *
 * Each node has one injection link into VC 0 of its router's terminal
 * port (credit flow controlled like any other link) and an ejection
 * buffer drained at 1/slow flits per cycle.
 */
#include <math.h>
#include <stdlib.h>

#include "sim_net.h"

static void sim_node_wake(struct sim_net *net, sim_tick_t at, int n)
{
    struct sim_node *nd = &net->node[n];
    if (nd->inj_wake == at)
        return;
    nd->inj_wake = at;
    sim_ev_push(net, at, EV_NINJ, n, 0, 0, -1);
}

/* BECN counter with its periodic auto-decrement applied lazily. */
static int sim_becn_value(struct sim_net *net, sim_tick_t t, struct sim_node *nd)
{
    sim_tick_t d = (sim_tick_t)net->cfg.becn_decay_cycles * SIM_TPC;
    int64_t dec = t / d - nd->becn_t / d;
    nd->becn_t = t;
    if (dec >= nd->becn)
        nd->becn = 0;
    else
        nd->becn -= (int32_t)dec;
    return nd->becn;
}

/* Injection is throttled linearly with the BECN counter: rate 1 at 0,
 * rate 0 at the maximum.  Returns 0 if allowed now, else the retry tick. */
static sim_tick_t sim_becn_gate(struct sim_net *net, sim_tick_t t, struct sim_node *nd)
{
    int c = sim_becn_value(net, t, nd), max = net->cfg.becn_max;
    sim_tick_t d = (sim_tick_t)net->cfg.becn_decay_cycles * SIM_TPC;
    if (c <= 0)
        return 0;
    if (c >= max)
        return (t / d + 1) * d; /* rate 0 until the next auto-decrement */
    double rate = 1.0 - (double)c / max;
    sim_tick_t gap = (sim_tick_t)ceil(net->cfg.pkt_flits * SIM_TPC / rate);
    sim_tick_t earliest = nd->last_inj + gap;
    return earliest > t ? earliest : 0;
}

/* Create the next packet of node n (data or a 1-flit RDRP credit carrier)
 * and update the node's bookkeeping; the caller puts it on the wire. */
int sim_node_new_pkt(struct sim_net *net, sim_tick_t t, int n, int len, int ctrl)
{
    struct sim_node *nd = &net->node[n];
    int id = sim_pkt_alloc(net);
    if (id < 0)
        abort(); /* out of memory in the middle of a run: nothing to save */
    struct sim_pkt *pk = &net->pkt[id];
    pk->src = n;
    pk->dst = nd->dst;
    pk->len = (int16_t)len;
    pk->t_create = t;
    if (ctrl) {
        pk->flags |= PF_CTRL;
    } else {
        if (net->cfg.offered < 1.0) {
            pk->t_create = nd->srcq[nd->sq_head];
            nd->sq_head = (nd->sq_head + 1) % nd->sq_cap;
            nd->sq_n--;
        }
        nd->last_inj = t;
        if (net->cfg.cc == SIM_CC_RDRP)
            nd->rdrp_out++;
    }
    if (nd->becn_pending > 0) {
        pk->flags |= PF_BECN;
        nd->becn_pending--;
    }
    pk->credits = nd->rdrp_pending;
    nd->rdrp_pending = 0;
    net->live_flits += len;
    return id;
}

/* What node n wants to send at t, before looking at link credits:
 * SIM_WANT_DATA and/or SIM_WANT_CTRL (RDRP credits owed).  *retry is set
 * when BECN throttling holds data back until that tick. */
int sim_node_wants(struct sim_net *net, sim_tick_t t, int n, sim_tick_t *retry)
{
    struct sim_node *nd = &net->node[n];
    const struct sim_config *c = &net->cfg;
    int have = c->offered >= 1.0 || nd->sq_n > 0, want = 0;
    *retry = 0;
    if (c->cc == SIM_CC_RDRP && nd->rdrp_out >= c->rdrp_limit)
        have = 0; /* woken again when credits come back */
    if (have && c->cc == SIM_CC_FECN)
        *retry = sim_becn_gate(net, t, nd);
    if (have && *retry == 0)
        want |= SIM_WANT_DATA;
    /* RDRP credits must flow even when no data can go, or two partners
     * at their limits would wait on each other forever. */
    if (nd->rdrp_pending > 0)
        want |= SIM_WANT_CTRL;
    return want;
}

static void sim_node_send(struct sim_net *net, sim_tick_t t, int n, int len, int ctrl)
{
    struct sim_node *nd = &net->node[n];
    int id = sim_node_new_pkt(net, t, n, len, ctrl);
    net->pkt[id].t_tail = t + (sim_tick_t)(len - 1 + net->cfg.lat_term) * SIM_TPC;
    nd->inj_cred -= len;
    nd->inj_fwd += len;
    nd->inj_free = t + (sim_tick_t)len * SIM_TPC;
    int r = n / net->cfg.p, port = n % net->cfg.p;
    sim_tick_t at = t + (sim_tick_t)(net->cfg.lat_term + net->cfg.router_delay) * SIM_TPC;
    sim_ev_push(net, at, EV_RARRIVE, r, port * net->V, 0, id);
    sim_node_wake(net, nd->inj_free, n);
}

void sim_node_try_inject(struct sim_net *net, sim_tick_t t, int n)
{
    struct sim_node *nd = &net->node[n];
    sim_tick_t retry;
    if (nd->inj_free > t) {
        sim_node_wake(net, nd->inj_free, n);
        return;
    }
    int want = sim_node_wants(net, t, n, &retry);
    if ((want & SIM_WANT_DATA) && nd->inj_cred >= net->cfg.pkt_flits) {
        sim_node_send(net, t, n, net->cfg.pkt_flits, 0);
        return;
    }
    if ((want & SIM_WANT_CTRL) && nd->inj_cred >= 1) {
        sim_node_send(net, t, n, 1, 1);
        return;
    }
    if (retry > 0)
        sim_node_wake(net, retry, n);
}

void sim_node_credit(struct sim_net *net, sim_tick_t t, int n, int flits)
{
    struct sim_node *nd = &net->node[n];
    nd->inj_ret -= flits;
    nd->inj_cred += flits;
    sim_node_try_inject(net, t, n);
}

/* Give ejection-buffer space back to the router's terminal output. */
static void sim_eject_credit(struct sim_net *net, sim_tick_t t, int n, int len)
{
    int r = n / net->cfg.p, o = n % net->cfg.p, ip = r * net->P + o;
    net->out_ret[ip * net->V] += len;
    sim_ev_push(net, t + net->lat[ip], EV_RCREDIT, r, o * net->V, len, -1);
}

/* The NIC reads the header as soon as it arrives: BECN and RDRP credits
 * take effect before the payload is sunk. */
void sim_node_header(struct sim_net *net, sim_tick_t t, int n, struct sim_pkt *pk)
{
    struct sim_node *nd = &net->node[n];
    const struct sim_config *c = &net->cfg;
    if (c->cc == SIM_CC_FECN && !(pk->flags & PF_CTRL)) {
        int v = sim_becn_value(net, t, nd);
        v += (pk->flags & PF_BECN) ? c->becn_inc : -1;
        nd->becn = v < 0 ? 0 : (v > c->becn_max ? c->becn_max : v);
    }
    if (pk->credits > 0) {
        nd->rdrp_out -= pk->credits;
        if (!net->fl) /* the flit mode polls every cycle instead */
            sim_node_try_inject(net, t, n);
    }
}

void sim_node_arrive(struct sim_net *net, sim_tick_t t, int n, int pkt)
{
    struct sim_node *nd = &net->node[n];
    struct sim_pkt *pk = &net->pkt[pkt];
    int r = n / net->cfg.p, o = n % net->cfg.p;
    net->out_fwd[(r * net->P + o) * net->V] -= pk->len;
    sim_node_header(net, t, n, pk);
    pk = &net->pkt[pkt]; /* the header may have injected: pool can move */
    if (pk->flags & PF_CTRL) {
        sim_eject_credit(net, t, n, pk->len);
        sim_pkt_free(net, pkt);
        return;
    }
    pk->next = -1;
    nd->ej_flits += pk->len;
    if (nd->ej_head < 0) {
        nd->ej_head = nd->ej_tail = pkt;
        sim_tick_t done = t + (sim_tick_t)pk->len * nd->slow * SIM_TPC;
        sim_ev_push(net, done, EV_NSINK, n, 0, 0, -1);
    } else {
        net->pkt[nd->ej_tail].next = pkt;
        nd->ej_tail = pkt;
    }
}

/* A data packet has been completely sunk at node n: statistics, the BECN
 * owed for a FECN mark and the RDRP credit owed to the sender. */
void sim_node_account(struct sim_net *net, sim_tick_t t, int n, int pkt)
{
    struct sim_node *nd = &net->node[n];
    struct sim_pkt *pk = &net->pkt[pkt];
    net->acc_flits += pk->len;
    net->acc_pkts++;
    net->total_sunk++;
    net->lat_sum += t - pk->t_create;
    net->hop_sum += pk->hops;
    if (pk->flags & PF_NONMIN)
        net->nonmin_pkts++;
    if (pk->flags & PF_FECN)
        nd->becn_pending++;
    if (net->cfg.cc == SIM_CC_RDRP)
        nd->rdrp_pending++;
    sim_pkt_free(net, pkt);
}

void sim_node_sink_done(struct sim_net *net, sim_tick_t t, int n)
{
    struct sim_node *nd = &net->node[n];
    int pkt = nd->ej_head;
    struct sim_pkt *pk = &net->pkt[pkt];
    nd->ej_head = pk->next;
    if (nd->ej_head < 0)
        nd->ej_tail = -1;
    nd->ej_flits -= pk->len;
    sim_eject_credit(net, t, n, pk->len);
    sim_node_account(net, t, n, pkt);
    if (net->cfg.cc == SIM_CC_RDRP)
        sim_node_try_inject(net, t, n);
    if (nd->ej_head >= 0) {
        sim_tick_t done = t + (sim_tick_t)net->pkt[nd->ej_head].len * nd->slow * SIM_TPC;
        sim_ev_push(net, done, EV_NSINK, n, 0, 0, -1);
    }
}

/* Bernoulli source: geometric gaps with mean pkt_flits / offered cycles. */
void sim_node_generate(struct sim_net *net, sim_tick_t t, int n)
{
    struct sim_node *nd = &net->node[n];
    if (nd->sq_n == nd->sq_cap) {
        int cap = nd->sq_cap ? nd->sq_cap * 2 : 16;
        sim_tick_t *q = malloc((size_t)cap * sizeof(*q));
        if (!q)
            abort();
        for (int i = 0; i < nd->sq_n; i++)
            q[i] = nd->srcq[(nd->sq_head + i) % nd->sq_cap];
        free(nd->srcq);
        nd->srcq = q;
        nd->sq_head = 0;
        nd->sq_cap = cap;
    }
    nd->srcq[(nd->sq_head + nd->sq_n) % nd->sq_cap] = t;
    nd->sq_n++;
    double q = net->cfg.offered / net->cfg.pkt_flits;
    double u = 1.0 - sim_rand01(net); /* (0, 1] */
    int64_t gap = 1 + (int64_t)floor(log(u) / log(1.0 - q));
    sim_ev_push(net, t + gap * SIM_TPC, EV_NGEN, n, 0, 0, -1);
    sim_node_try_inject(net, t, n);
}
