/* sim_topo.c - Dragonfly wiring and routing (minimal, UGAL, PAR).
 *
 * Router r belongs to group r / a and has ports
 *   [0, p)               terminals (node r*p + port)
 *   [p, p+a-1)           local links to the other a-1 routers of the group
 *   [p+a-1, p+a-1+h)     global links
 * Global channel c = (r % a) * h + k of group G leads to group c (c < G)
 * or c + 1 (c >= G): the usual "absolute" arrangement with exactly one
 * link between every pair of the g = a*h + 1 groups.
 */
#include <stdlib.h>

#include "sim_net.h"

int sim_local_port(const struct sim_net *net, int r, int to_r)
{
    int a = net->cfg.a;
    int me = r % a, to = to_r % a;
    return net->cfg.p + (to < me ? to : to - 1);
}

static int sim_global_chan_group(int G, int c)
{
    return c < G ? c : c + 1;
}

/* Router (index within group) and global port owning G's link to grp. */
static void sim_gateway(const struct sim_net *net, int G, int grp, int *ri, int *port)
{
    int c = grp < G ? grp : grp - 1;
    *ri = c / net->cfg.h;
    *port = net->cfg.p + net->cfg.a - 1 + c % net->cfg.h;
}

/* First output port from router r towards group grp (grp != group of r). */
int sim_port_to_group(const struct sim_net *net, int r, int grp)
{
    int a = net->cfg.a, G = r / a, ri, port;
    sim_gateway(net, G, grp, &ri, &port);
    if (ri == r % a)
        return port;
    return sim_local_port(net, r, G * a + ri);
}

static int sim_topo_alloc(struct sim_net *net)
{
    size_t np = (size_t)net->R * net->P;
    net->nbr_r = calloc(np, sizeof(int32_t));
    net->nbr_p = calloc(np, sizeof(int32_t));
    net->lat = calloc(np, sizeof(int32_t));
    if (!net->nbr_r || !net->nbr_p || !net->lat)
        return SIM_ERR_NOMEM;
    return SIM_OK;
}

int sim_topo_build(struct sim_net *net)
{
    const struct sim_config *c = &net->cfg;
    int st = sim_topo_alloc(net);
    if (st != SIM_OK)
        return st;
    for (int r = 0; r < net->R; r++) {
        int G = r / c->a, me = r % c->a;
        for (int port = 0; port < net->P; port++) {
            int ip = r * net->P + port;
            if (port < c->p) {
                net->nbr_r[ip] = -1;
                net->nbr_p[ip] = r * c->p + port;
                net->lat[ip] = c->lat_term * SIM_TPC;
            } else if (port < c->p + c->a - 1) {
                int k = port - c->p, to = k < me ? k : k + 1;
                net->nbr_r[ip] = G * c->a + to;
                net->nbr_p[ip] = sim_local_port(net, G * c->a + to, r);
                net->lat[ip] = c->lat_local * SIM_TPC;
            } else {
                int k = port - c->p - (c->a - 1), ch = me * c->h + k;
                int dg = sim_global_chan_group(G, ch), ri, dport;
                sim_gateway(net, dg, G, &ri, &dport);
                net->nbr_r[ip] = dg * c->a + ri;
                net->nbr_p[ip] = dport;
                net->lat[ip] = c->lat_global * SIM_TPC;
            }
        }
    }
    return SIM_OK;
}

/* Minimal output from r towards the packet's current target. */
static int sim_min_port(const struct sim_net *net, int r, const struct sim_pkt *pk)
{
    int a = net->cfg.a, p = net->cfg.p, G = r / a;
    int dr = pk->dst / p, tg = pk->inter >= 0 ? pk->inter : dr / a;
    if (tg != G)
        return sim_port_to_group(net, r, tg);
    if (dr == r)
        return pk->dst % p;
    return sim_local_port(net, r, dr);
}

/* UGAL comparison with the configured minimal bias and threshold; on a
 * non-minimal verdict the packet gets a random intermediate group. */
static void sim_ugal_decide(struct sim_net *net, int r, struct sim_pkt *pk)
{
    int G = r / net->cfg.a, dg = pk->dst / net->cfg.p / net->cfg.a;
    if (net->g < 3 || dg == G)
        return;
    int I = (int)(sim_rand(net) % (uint64_t)(net->g - 2));
    int lo = G < dg ? G : dg, hi = G < dg ? dg : G;
    if (I >= lo)
        I++;
    if (I >= hi)
        I++;
    int qmin = net->out_occ[r * net->P + sim_min_port(net, r, pk)];
    int qnon = net->out_occ[r * net->P + sim_port_to_group(net, r, I)];
    if (qmin > net->cfg.bias * qnon + net->cfg.threshold) {
        pk->inter = (int16_t)I;
        pk->flags |= PF_NONMIN;
    }
}

static int sim_pick_vc(const struct sim_net *net, int r, int out, const struct sim_pkt *pk)
{
    if (out < net->cfg.p)
        return 0;
    if (net->cfg.vcmode == SIM_VC_GLOBAL)
        return pk->ghops;
    (void)r;
    return pk->rhops;
}

/* Route the head packet of an input VC: fills the output port and VC. */
void sim_route(struct sim_net *net, int r, int in_port, struct sim_pkt *pk, int *out, int *ovc)
{
    const struct sim_config *c = &net->cfg;
    int G = r / c->a, sg = pk->src / c->p / c->a;
    if (pk->inter >= 0 && pk->inter == G)
        pk->inter = -1; /* reached the intermediate group */
    if (c->routing != SIM_ROUTE_MIN && !(pk->flags & PF_CTRL)) {
        if (pk->hops == 0) {
            sim_ugal_decide(net, r, pk);
        } else if (c->routing == SIM_ROUTE_PAR && G == sg && pk->inter < 0 &&
                   !(pk->flags & (PF_REEVAL | PF_NONMIN)) && in_port >= c->p &&
                   in_port < c->p + c->a - 1) {
            /* Progressive adaptive routing: the first router reached over
             * a local link of the source group may still divert. */
            pk->flags |= PF_REEVAL;
            sim_ugal_decide(net, r, pk);
        }
    }
    *out = sim_min_port(net, r, pk);
    *ovc = sim_pick_vc(net, r, *out, pk);
}
