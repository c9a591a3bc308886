/* sim_run.c - configuration, set-up, the event loop and measurement. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_net.h"

/* Measurement builds (-DSIM_CALLGRIND) count instructions only after the
 * warm-up: run under valgrind --tool=callgrind --instr-atstart=no. */
#ifdef SIM_CALLGRIND
#include <valgrind/callgrind.h>
#define SIM_MEASURE_START() CALLGRIND_START_INSTRUMENTATION
#else
#define SIM_MEASURE_START() ((void)0)
#endif

void sim_config_default(struct sim_config *c)
{
    memset(c, 0, sizeof(*c));
    c->a = 12;
    c->p = 6;
    c->h = 6;
    c->routing = SIM_ROUTE_PAR;
    c->vcmode = SIM_VC_HOP;
    c->buf_flits = 256;
    c->eject_buf = 256;
    c->speedup = 2.4;
    c->lat_local = 2;
    c->lat_global = 10;
    c->lat_term = 1;
    c->router_delay = 1;
    c->pkt_flits = 16;
    c->traffic = SIM_TRAFFIC_PAIR;
    c->offered = 1.0;
    c->slow_factor = 1;
    c->cc = SIM_CC_NONE;
    c->fecn_mult = 1.0;
    c->becn_decay_cycles = 4;
    c->becn_inc = 8;
    c->becn_max = 20;
    c->rdrp_limit = 30;
    c->bias = 2;
    c->threshold = 30;
    c->seed = 1;
    c->warmup = 5000;
    c->iter = 5000;
    c->max_cycles = 50000;
    c->conv_tol = 0.05;
    c->min_iters = 2;
#ifndef NDEBUG
    c->check = 1; /* debug builds verify the invariants every cycle */
#endif
}

int sim_config_finish(struct sim_config *c)
{
    if (c->a < 1 || c->p < 1 || c->h < 0 || c->pkt_flits < 1 || c->speedup <= 0)
        return SIM_ERR_ARG;
    if (c->pkt_flits > c->buf_flits || c->pkt_flits > c->eject_buf || c->pkt_flits > 32767)
        return SIM_ERR_ARG;
    if (c->becn_decay_cycles < 1 || c->becn_max < 1 || c->rdrp_limit < 1 || c->iter < 1)
        return SIM_ERR_ARG;
    if (c->offered <= 0 || c->slow_factor < 1 || c->slow_frac < 0 || c->slow_frac > 1)
        return SIM_ERR_ARG;
    if (c->nvc == 0) {
        /* Enough VCs that the hop (or global-hop) index never runs out:
         * PAR takes at most 2+1+1+1+1 router-to-router hops. */
        if (c->vcmode == SIM_VC_GLOBAL)
            c->nvc = 3;
        else
            c->nvc = c->routing == SIM_ROUTE_PAR ? 6 : (c->routing == SIM_ROUTE_UGAL ? 5 : 3);
    }
    return SIM_OK;
}

static void *sim_zalloc(size_t n, size_t sz, int *ok)
{
    void *p = calloc(n ? n : 1, sz);
    if (!p)
        *ok = 0;
    return p;
}

static int sim_net_alloc(struct sim_net *net)
{
    int ok = 1;
    size_t np = (size_t)net->R * net->P, nv = np * net->V;
    net->in_xfree = sim_zalloc(np, sizeof(sim_tick_t), &ok);
    net->out_xfree = sim_zalloc(np, sizeof(sim_tick_t), &ok);
    net->out_lfree = sim_zalloc(np, sizeof(sim_tick_t), &ok);
    net->out_wake = sim_zalloc(np, sizeof(sim_tick_t), &ok);
    net->out_occ = sim_zalloc(np, sizeof(int32_t), &ok);
    net->req = sim_zalloc(np * net->V, sizeof(int32_t), &ok);
    net->req_n = sim_zalloc(np, sizeof(int32_t), &ok);
    net->req_rr = sim_zalloc(np, sizeof(int32_t), &ok);
    net->in_head = sim_zalloc(nv, sizeof(int32_t), &ok);
    net->in_tail = sim_zalloc(nv, sizeof(int32_t), &ok);
    net->in_flits = sim_zalloc(nv, sizeof(int32_t), &ok);
    net->in_out = sim_zalloc(nv, sizeof(int32_t), &ok);
    net->in_ovc = sim_zalloc(nv, sizeof(int32_t), &ok);
    net->out_cred = sim_zalloc(nv, sizeof(int32_t), &ok);
    net->out_fwd = sim_zalloc(nv, sizeof(int32_t), &ok);
    net->out_ret = sim_zalloc(nv, sizeof(int32_t), &ok);
    net->out_cap = sim_zalloc(nv, sizeof(int32_t), &ok);
    net->out_owner = sim_zalloc(nv, sizeof(int32_t), &ok);
    net->wait_head = sim_zalloc(nv, sizeof(int32_t), &ok);
    net->wait_tail = sim_zalloc(nv, sizeof(int32_t), &ok);
    net->wait_next = sim_zalloc(nv, sizeof(int32_t), &ok);
    net->pv_port = sim_zalloc((size_t)net->P * net->V, sizeof(int32_t), &ok);
    net->node = sim_zalloc((size_t)net->N, sizeof(struct sim_node), &ok);
    net->wheel = sim_zalloc(1, sizeof(struct sim_wheel), &ok);
    return ok ? SIM_OK : SIM_ERR_NOMEM;
}

static void sim_net_free(struct sim_net *net)
{
    if (net->node)
        for (int n = 0; n < net->N; n++)
            free(net->node[n].srcq);
    if (net->wheel)
        sim_wheel_free(net->wheel);
    sim_flit_free(net);
    void *bufs[] = { net->in_xfree, net->out_xfree, net->out_lfree, net->out_wake, net->out_occ,
                     net->req, net->req_n, net->req_rr, net->in_head, net->in_tail,
                     net->in_flits, net->in_out, net->in_ovc, net->out_cred, net->out_fwd,
                     net->out_ret, net->out_cap, net->out_owner, net->wait_head,
                     net->wait_tail, net->wait_next, net->pv_port, net->node, net->wheel, net->pkt,
                     net->nbr_r, net->nbr_p, net->lat };
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        free(bufs[i]);
}

static void sim_net_reset_state(struct sim_net *net)
{
    size_t np = (size_t)net->R * net->P;
    for (size_t ip = 0; ip < np; ip++) {
        net->out_wake[ip] = -1;
        int port = (int)(ip % net->P);
        int cap = port < net->cfg.p ? net->cfg.eject_buf : net->cfg.buf_flits;
        for (int vc = 0; vc < net->V; vc++) {
            size_t iv = ip * net->V + vc;
            net->in_head[iv] = net->in_tail[iv] = net->in_out[iv] = -1;
            net->out_owner[iv] = net->wait_head[iv] = net->wait_tail[iv] = -1;
            /* Ejection ports feed one node buffer: only VC 0 exists. */
            net->out_cap[iv] = (port < net->cfg.p && vc > 0) ? 0 : cap;
            net->out_cred[iv] = net->out_cap[iv];
        }
    }
    for (int pv = 0; pv < net->P * net->V; pv++)
        net->pv_port[pv] = pv / net->V;
    net->pkt_free = -1;
}

static void sim_shuffle(struct sim_net *net, int *v, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(sim_rand(net) % (uint64_t)(i + 1));
        int tmp = v[i];
        v[i] = v[j];
        v[j] = tmp;
    }
}

/* Static random pairing (A<->B) or a random permutation, then slow nodes. */
static int sim_traffic_setup(struct sim_net *net)
{
    int N = net->N, *perm = malloc((size_t)N * sizeof(int));
    if (!perm)
        return SIM_ERR_NOMEM;
    sim_shuffle(net, perm, N);
    for (int i = 0; i < N; i++) {
        struct sim_node *nd = &net->node[i];
        nd->inj_cred = net->cfg.buf_flits;
        nd->inj_wake = -1;
        nd->ej_head = nd->ej_tail = -1;
        nd->slow = 1;
        nd->last_inj = -((sim_tick_t)1 << 40);
        if (net->cfg.traffic == SIM_TRAFFIC_PERM)
            nd->dst = perm[i];
    }
    if (net->cfg.traffic == SIM_TRAFFIC_PAIR) {
        for (int i = 0; i + 1 < N; i += 2) {
            net->node[perm[i]].dst = perm[i + 1];
            net->node[perm[i + 1]].dst = perm[i];
        }
        if (N % 2)
            net->node[perm[N - 1]].dst = perm[0]; /* odd count: one one-way sender */
        if (N == 1)
            net->node[0].dst = 0;
    }
    net->nslow = (int)floor(net->cfg.slow_frac * N + 0.5);
    sim_shuffle(net, perm, N);
    for (int i = 0; i < net->nslow; i++)
        net->node[perm[i]].slow = net->cfg.slow_factor;
    free(perm);
    return SIM_OK;
}

/* The pairing and slow nodes as text, one "node partner slow_factor" line
 * per node, for running the same configuration in BookSim (sim/booksim/). */
static int sim_traffic_write(const struct sim_net *net, const char *path)
{
    FILE *fp = fopen(path, "w");
    if (!fp)
        return SIM_ERR_IO;
    for (int n = 0; n < net->N; n++)
        fprintf(fp, "%d %d %d\n", n, net->node[n].dst, net->node[n].slow);
    return fclose(fp) == 0 ? SIM_OK : SIM_ERR_IO;
}

static int sim_net_init(struct sim_net *net, const struct sim_config *cfg)
{
    memset(net, 0, sizeof(*net));
    net->cfg = *cfg;
    net->g = cfg->a * cfg->h + 1;
    net->R = net->g * cfg->a;
    net->P = cfg->p + cfg->a - 1 + cfg->h;
    net->V = cfg->nvc;
    net->N = net->R * cfg->p;
    net->rng = cfg->seed * 0x2545f4914f6cdd1dULL + 12345;
    int st = sim_net_alloc(net);
    if (st == SIM_OK)
        st = sim_topo_build(net);
    if (st != SIM_OK)
        return st;
    sim_net_reset_state(net);
    st = sim_traffic_setup(net);
    if (st == SIM_OK && cfg->pairs_out)
        st = sim_traffic_write(net, cfg->pairs_out);
    if (st != SIM_OK)
        return st;
    if (cfg->flit)
        return sim_flit_init(net);
    for (int n = 0; n < net->N; n++) {
        if (cfg->offered >= 1.0)
            sim_ev_push(net, 0, EV_NINJ, n, 0, 0, -1);
        else
            sim_ev_push(net, 0, EV_NGEN, n, 0, 0, -1);
    }
    return SIM_OK;
}

static void sim_dispatch(struct sim_net *net, sim_tick_t t, const struct sim_ev *ev)
{
    switch (ev->kind) {
    case EV_RARRIVE: sim_router_arrive(net, t, ev->a, ev->b, ev->pkt); break;
    case EV_RCREDIT: sim_router_credit(net, t, ev->a, ev->b, ev->c); break;
    case EV_OWAKE:
        net->out_wake[ev->a * net->P + ev->b] = -1;
        sim_router_try_output(net, t, ev->a, ev->b);
        break;
    case EV_IWAKE: sim_router_iwake(net, t, ev->a, ev->b); break;
    case EV_NARRIVE: sim_node_arrive(net, t, ev->a, ev->pkt); break;
    case EV_NSINK: sim_node_sink_done(net, t, ev->a); break;
    case EV_NCREDIT: sim_node_credit(net, t, ev->a, ev->c); break;
    case EV_NINJ:
        net->node[ev->a].inj_wake = -1;
        sim_node_try_inject(net, t, ev->a);
        break;
    case EV_NGEN: sim_node_generate(net, t, ev->a); break;
    case EV_VCFREE: sim_router_vc_free(net, t, ev->a, ev->b); break;
    default: break;
    }
}

/* Move far events that now fall inside the wheel's horizon. */
static void sim_wheel_refill(struct sim_net *net)
{
    struct sim_wheel *w = net->wheel;
    struct sim_evvec old = w->far;
    memset(&w->far, 0, sizeof(w->far));
    for (int i = 0; i + 1 < old.n; i += 2) {
        sim_tick_t t = ((sim_tick_t)old.v[i].a << 31) | old.v[i].b;
        const struct sim_ev *e = &old.v[i + 1];
        sim_ev_push(net, t, e->kind, e->a, e->b, e->c, e->pkt);
    }
    free(old.v);
}

/* Run every event of the current tick, then advance time by one tick. */
static void sim_step(struct sim_net *net)
{
    struct sim_wheel *w = net->wheel;
    if (w->now % SIM_WHEEL == 0 && w->far.n > 0)
        sim_wheel_refill(net);
    struct sim_evvec *b = &w->bucket[w->now % SIM_WHEEL];
    for (int i = 0; i < b->n; i++) {
        struct sim_ev ev = b->v[i]; /* copy: handlers may grow the bucket */
        sim_dispatch(net, w->now, &ev);
    }
    b->n = 0;
    w->now++;
}

struct sim_meter {
    int64_t flits, pkts, lat, hops, nonmin, t0_pkts, t0_lat, t0_hops, t0_nonmin;
    int64_t last_sunk, last_progress;
};

/* Simulate one more tick (packet mode) or cycle (flit mode); returns the
 * number of whole cycles simulated so far, or -1 mid-cycle. */
static int64_t sim_tick_once(struct sim_net *net)
{
    if (net->fl) {
        sim_flit_cycle(net, net->fcycle++);
        return net->fcycle;
    }
    sim_step(net);
    return net->wheel->now % SIM_TPC ? -1 : net->wheel->now / SIM_TPC;
}

/* Advance to the end of cycle 'cycle', checking invariants and progress. */
static int sim_advance(struct sim_net *net, int64_t cycle, struct sim_meter *m)
{
    for (;;) {
        int64_t done = net->fl ? net->fcycle : net->wheel->now / SIM_TPC;
        if (done >= cycle && (net->fl || net->wheel->now % SIM_TPC == 0))
            break;
        int64_t cyc = sim_tick_once(net);
        if (cyc < 0)
            continue;
        if (net->cfg.check && sim_check_invariants(net) != SIM_OK)
            return SIM_ERR_INVARIANT;
        if (cyc % 1000 == 0) {
            if (net->total_sunk != m->last_sunk || net->live_pkts == 0)
                m->last_progress = cyc;
            m->last_sunk = net->total_sunk;
            if (cyc - m->last_progress > 20000)
                return SIM_ERR_DEADLOCK;
        }
    }
    return SIM_OK;
}

/* Diagnostic: flits queued in router input VCs, split by whether they are
 * bound for a slow node, and VCs whose front packet is bound for one. */
static void sim_debug_census(const struct sim_net *net)
{
    int64_t slow_f = 0, fast_f = 0, blocked_vcs = 0, nonempty = 0;
    size_t nv = (size_t)net->R * net->P * net->V;
    if (net->fl)
        sim_flit_sync(net);
    for (size_t iv = 0; iv < nv; iv++) {
        if (!net->in_flits[iv])
            continue;
        nonempty++;
        if (!net->fl) {
            for (int id = net->in_head[iv]; id >= 0; id = net->pkt[id].next) {
                int s = net->node[net->pkt[id].dst].slow > 1;
                *(s ? &slow_f : &fast_f) += net->pkt[id].len;
            }
            blocked_vcs += net->node[net->pkt[net->in_head[iv]].dst].slow > 1;
        } else {
            int32_t codes[512];
            int n = sim_flit_vc_pkts(net, (int)iv, codes, 512);
            for (int k = 0; k < n; k++) {
                int s = net->node[net->pkt[codes[k]].dst].slow > 1;
                *(s ? &slow_f : &fast_f) += 1;
            }
            blocked_vcs += n > 0 && net->node[net->pkt[codes[0]].dst].slow > 1;
        }
    }
    fprintf(stderr, "census: nonempty VCs %lld, flits slow-bound %lld other %lld, VCs fronted by slow-bound %lld\n",
            (long long)nonempty, (long long)slow_f, (long long)fast_f, (long long)blocked_vcs);
}

static int sim_measure(struct sim_net *net, struct sim_result *res)
{
    const struct sim_config *c = &net->cfg;
    struct sim_meter m = { 0 };
    int st = sim_advance(net, c->warmup, &m);
    if (st != SIM_OK)
        return st;
    SIM_MEASURE_START();
    int64_t f0 = net->acc_flits, p0 = net->acc_pkts, l0 = net->lat_sum, h0 = net->hop_sum;
    int64_t n0 = net->nonmin_pkts, cyc = c->warmup;
    double prev = -1.0;
    while (cyc + c->iter <= c->max_cycles || res->iters == 0) {
        int64_t fa = net->acc_flits;
        cyc += c->iter;
        if ((st = sim_advance(net, cyc, &m)) != SIM_OK)
            return st;
        double thr = (double)(net->acc_flits - fa) / ((double)c->iter * net->N);
        if (c->verbose) {
            sim_debug_census(net);
            /* Exact state fingerprint: equal lines mean identical runs. */
            fprintf(stderr, "fingerprint: sunk %lld flits %lld lat %lld hops %lld nonmin %lld rng %016llx\n",
                    (long long)net->total_sunk, (long long)net->acc_flits,
                    (long long)net->lat_sum, (long long)net->hop_sum,
                    (long long)net->nonmin_pkts, (unsigned long long)net->rng);
        }
        if (res->iters < 64)
            res->iter_thr[res->iters] = thr;
        res->iters++;
        res->throughput = prev >= 0 ? 0.5 * (thr + prev) : thr;
        if (res->iters >= c->min_iters && prev >= 0 && fabs(thr - prev) <= c->conv_tol * prev) {
            res->converged = 1;
            break;
        }
        prev = thr;
    }
    int64_t np = net->acc_pkts - p0;
    (void)f0;
    res->fp.sunk = net->total_sunk;
    res->fp.flits = net->acc_flits;
    res->fp.lat = net->lat_sum;
    res->fp.hops = net->hop_sum;
    res->fp.nonmin = net->nonmin_pkts;
    res->fp.rng = net->rng;
    res->cycles = cyc;
    res->latency = np ? (double)(net->lat_sum - l0) / SIM_TPC / np : 0;
    res->hops = np ? (double)(net->hop_sum - h0) / np : 0;
    res->nonmin_frac = np ? (double)(net->nonmin_pkts - n0) / np : 0;
    return SIM_OK;
}

int sim_run(const struct sim_config *cfg_in, struct sim_result *res)
{
    struct sim_config cfg = *cfg_in;
    struct sim_net net;
    int st = sim_config_finish(&cfg);
    memset(res, 0, sizeof(*res));
    if (st != SIM_OK)
        return st;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = sim_net_init(&net, &cfg);
    if (st == SIM_OK)
        st = sim_measure(&net, res);
    res->nslow = net.nslow;
    sim_net_free(&net);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    res->wall_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return st;
}
