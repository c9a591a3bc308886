/* sim_check.c - invariants verified every cycle when cfg.check is set.
 *
 * For every link VC the flits are in exactly one place:
 *   credits held upstream + flits on the wire + flits queued downstream
 *   + credits on their way back == buffer size,
 * and credits stay within 0..buffer size.  Flits of live packets equal
 * the flits found in all those places (nothing created or lost).
 */
#include "sim_net.h"

static int sim_check_fail(const char *what, int r, int port, int vc, int got, int want)
{
    fprintf(stderr, "sim: invariant %s broken at router %d port %d vc %d: %d != %d\n", what, r,
            port, vc, got, want);
    return SIM_ERR_INVARIANT;
}

static int sim_check_output(const struct sim_net *net, int r, int o, int64_t *flits)
{
    int ip = r * net->P + o, occ = 0;
    for (int vc = 0; vc < net->V; vc++) {
        int ov = ip * net->V + vc, cap = net->out_cap[ov], down;
        if (net->out_cred[ov] < 0 || net->out_cred[ov] > cap)
            return sim_check_fail("credit range", r, o, vc, net->out_cred[ov], cap);
        if (o < net->cfg.p)
            down = vc == 0 ? net->node[net->nbr_p[ip]].ej_flits : 0;
        else
            down = net->in_flits[(net->nbr_r[ip] * net->P + net->nbr_p[ip]) * net->V + vc];
        int sum = net->out_cred[ov] + net->out_fwd[ov] + down + net->out_ret[ov];
        if (sum != cap)
            return sim_check_fail("credit conservation", r, o, vc, sum, cap);
        occ += cap - net->out_cred[ov];
        *flits += net->out_fwd[ov] + down;
    }
    if (occ != net->out_occ[ip])
        return sim_check_fail("occupancy", r, o, -1, net->out_occ[ip], occ);
    return SIM_OK;
}

static int sim_check_nodes(const struct sim_net *net, int64_t *flits)
{
    for (int n = 0; n < net->N; n++) {
        const struct sim_node *nd = &net->node[n];
        int r = n / net->cfg.p, port = n % net->cfg.p, cap = net->cfg.buf_flits;
        int q = net->in_flits[(r * net->P + port) * net->V];
        if (nd->inj_cred < 0 || nd->inj_cred > cap)
            return sim_check_fail("node credit range", r, port, 0, nd->inj_cred, cap);
        if (nd->inj_cred + nd->inj_fwd + q + nd->inj_ret != cap)
            return sim_check_fail("node credit conservation", r, port, 0,
                                  nd->inj_cred + nd->inj_fwd + q + nd->inj_ret, cap);
        *flits += nd->inj_fwd + q;
        /* Other VCs of a terminal input are never used. */
        for (int vc = 1; vc < net->V; vc++)
            if (net->in_flits[(r * net->P + port) * net->V + vc] != 0)
                return sim_check_fail("terminal vc unused", r, port, vc, 1, 0);
    }
    return SIM_OK;
}

int sim_check_invariants(const struct sim_net *net)
{
    int64_t flits = 0;
    if (net->fl)
        sim_flit_sync(net);
    for (int r = 0; r < net->R; r++)
        for (int o = 0; o < net->P; o++) {
            int st = sim_check_output(net, r, o, &flits);
            if (st != SIM_OK)
                return st;
        }
    int st = sim_check_nodes(net, &flits);
    if (st != SIM_OK)
        return st;
    int64_t live = net->live_flits - (net->fl ? sim_flit_outside(net) : 0);
    if (live != flits)
        return sim_check_fail("flit conservation", -1, -1, -1, (int)flits, (int)live);
    return SIM_OK;
}
