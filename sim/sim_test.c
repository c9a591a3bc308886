/* sim_test.c - ctest cases for sluice-sim on tiny, hand-checkable
 * Dragonflies.  Usage: sluice-sim-test <case>; exit 0 on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static int sim_t_fail;

#define SIM_EXPECT(cond, ...)                                                                  \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                    \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            sim_t_fail = 1;                                                                    \
        }                                                                                      \
    } while (0)

static void sim_t_config(struct sim_config *c, int a, int p, int h)
{
    sim_config_default(c);
    c->a = a;
    c->p = p;
    c->h = h;
    c->warmup = 2000;
    c->iter = 2000;
    c->max_cycles = 12000;
    c->check = 1;
}

static int sim_t_run(const struct sim_config *c, struct sim_result *r)
{
    int st = sim_run(c, r);
    SIM_EXPECT(st == SIM_OK, "sim_run: %s", sim_status_str(st));
    printf("  thr %.4f lat %.2f hops %.3f nonmin %.3f cycles %lld nslow %d\n", r->throughput,
           r->latency, r->hops, r->nonmin_frac, (long long)r->cycles, r->nslow);
    return st;
}

/* One router, two nodes paired with each other: each gets the full link. */
static void sim_t_one_router(void)
{
    struct sim_config c;
    struct sim_result r;
    sim_t_config(&c, 1, 2, 0);
    sim_t_run(&c, &r);
    SIM_EXPECT(fabs(r.throughput - 1.0) < 0.01, "throughput %.4f", r.throughput);
    SIM_EXPECT(fabs(r.hops - 1.0) < 1e-9, "hops %.3f", r.hops);
}

/* Zero-load latency through one router is exactly: terminal link (1) +
 * router pipeline + crossbar (1) + terminal link (1) + 16 flits. */
static void sim_t_zero_load_latency(void)
{
    struct sim_config c;
    struct sim_result r;
    sim_t_config(&c, 1, 2, 0);
    c.offered = 0.002;
    c.max_cycles = 200000;
    c.min_iters = 1000; /* average over the whole run */
    c.iter = 20000;
    sim_t_run(&c, &r);
    double want = c.lat_term + c.router_delay + 1 + c.lat_term + c.pkt_flits;
    SIM_EXPECT(fabs(r.latency - want) < 0.3, "latency %.3f want %.1f", r.latency, want);
}

/* One group of four routers: every packet crosses at most one local link. */
static void sim_t_one_group(void)
{
    struct sim_config c;
    struct sim_result r;
    sim_t_config(&c, 4, 2, 0);
    c.routing = SIM_ROUTE_MIN;
    sim_t_run(&c, &r);
    SIM_EXPECT(r.hops >= 1.0 && r.hops <= 2.0, "hops %.3f", r.hops);
    /* Pairs share no link in the same direction except via one router. */
    SIM_EXPECT(r.throughput > 0.95, "throughput %.4f", r.throughput);
}

/* Two groups of one router joined by one global link, two nodes each:
 * pairs inside a router get 1.0, pairs across share the global link (0.5). */
static void sim_t_two_groups(void)
{
    for (int seed = 1; seed <= 6; seed++) {
        struct sim_config c;
        struct sim_result r;
        sim_t_config(&c, 1, 2, 1);
        c.routing = SIM_ROUTE_MIN;
        c.seed = (uint64_t)seed;
        sim_t_run(&c, &r);
        int local = fabs(r.hops - 1.0) < 1e-9, across = fabs(r.hops - 2.0) < 1e-9;
        SIM_EXPECT(local || across, "hops %.3f", r.hops);
        double want = local ? 1.0 : 0.5;
        SIM_EXPECT(fabs(r.throughput - want) < 0.01, "throughput %.4f want %.2f",
                   r.throughput, want);
    }
}

/* A pair with one node sinking k times slower: (1 + 1/k) / 2. */
static void sim_t_slow_sink(void)
{
    int factors[] = { 2, 4, 8 };
    for (int i = 0; i < 3; i++) {
        struct sim_config c;
        struct sim_result r;
        sim_t_config(&c, 1, 2, 0);
        c.slow_frac = 0.5;
        c.slow_factor = factors[i];
        sim_t_run(&c, &r);
        double want = (1.0 + 1.0 / factors[i]) / 2.0;
        SIM_EXPECT(r.nslow == 1, "nslow %d", r.nslow);
        SIM_EXPECT(fabs(r.throughput - want) < 0.01, "x%d: throughput %.4f want %.4f",
                   factors[i], r.throughput, want);
    }
}

/* RDRP: one outstanding packet per node bounds throughput by one packet
 * per round trip; a generous limit restores the full rate. */
static void sim_t_rdrp_limit(void)
{
    struct sim_config c;
    struct sim_result r;
    sim_t_config(&c, 1, 2, 0);
    c.cc = SIM_CC_RDRP;
    c.rdrp_limit = 1;
    sim_t_run(&c, &r);
    /* Round trip >= 2 * (1 + delay + 1 + 1) + 16 cycles of serialisation. */
    double rtt = 2.0 * (c.lat_term + c.router_delay + 1 + c.lat_term) + c.pkt_flits;
    SIM_EXPECT(r.throughput > 0.05 && r.throughput <= c.pkt_flits / rtt + 0.01,
               "limit 1 throughput %.4f bound %.4f", r.throughput, c.pkt_flits / rtt);
    c.rdrp_limit = 64;
    sim_t_run(&c, &r);
    SIM_EXPECT(r.throughput > 0.95, "limit 64 throughput %.4f", r.throughput);
}

/* Small full Dragonfly (9 groups, 72 nodes) under PAR at full load with
 * slow sinks and every congestion control: invariants are checked every
 * cycle and the run must keep delivering (no deadlock). */
static void sim_t_par_invariants(void)
{
    int ccs[] = { SIM_CC_NONE, SIM_CC_FECN, SIM_CC_RDRP };
    for (int i = 0; i < 3; i++) {
        struct sim_config c;
        struct sim_result r;
        sim_t_config(&c, 4, 2, 2);
        c.cc = ccs[i];
        c.slow_frac = 0.05;
        c.slow_factor = 8;
        sim_t_run(&c, &r);
        SIM_EXPECT(r.throughput > 0.05, "cc %d throughput %.4f", ccs[i], r.throughput);
    }
}

/* Same seed, same numbers; different seed, different pairing. */
static void sim_t_determinism(void)
{
    struct sim_config c;
    struct sim_result r1, r2, r3;
    sim_t_config(&c, 4, 2, 2);
    c.check = 0;
    c.slow_frac = 0.05;
    c.slow_factor = 4;
    sim_t_run(&c, &r1);
    sim_t_run(&c, &r2);
    SIM_EXPECT(memcmp(r1.iter_thr, r2.iter_thr, sizeof(r1.iter_thr)) == 0 &&
                   r1.latency == r2.latency && r1.hops == r2.hops,
               "%.6f vs %.6f", r1.throughput, r2.throughput);
    c.seed = 2;
    sim_t_run(&c, &r3);
    SIM_EXPECT(r1.latency != r3.latency, "seeds 1 and 2 gave identical runs");
}

/* Stored fingerprints: both engines must reproduce, bit for bit, the runs
 * recorded from the engines of the sim-fidelity branch (before any speed
 * work).  Each case is a fixed-length run (no convergence stop) with slow
 * nodes under PAR; a mismatch means an engine change altered results.
 * SIM_FP_PRINT=1 in the environment prints the table rows of the current
 * engines instead of checking (to record them after an intended change). */
struct sim_t_fp {
    int flit, a, p, h, cc, limit, fecn_aggr;
    double slow_frac;
    int slow_factor;
    int64_t cycles;
    struct sim_fingerprint fp;
};

static const struct sim_t_fp sim_t_fps[] = {
#include "sim_test_fp.h"
};

static void sim_t_fingerprint(void)
{
    int print = getenv("SIM_FP_PRINT") != NULL;
    int n = (int)(sizeof(sim_t_fps) / sizeof(sim_t_fps[0]));
    for (int i = 0; i < n; i++) {
        const struct sim_t_fp *e = &sim_t_fps[i];
        struct sim_config c;
        struct sim_result r;
        sim_t_config(&c, e->a, e->p, e->h);
        c.check = 0;
        c.flit = e->flit;
        c.warmup = 1000;
        c.iter = 1000;
        c.max_cycles = e->cycles;
        c.conv_tol = -1; /* never converged: run exactly e->cycles */
        c.slow_frac = e->slow_frac;
        c.slow_factor = e->slow_factor;
        c.cc = e->cc;
        c.rdrp_limit = e->limit;
        if (e->fecn_aggr) {
            c.fecn_mult = 2.0;
            c.becn_decay_cycles = 50;
        }
        if (sim_t_run(&c, &r) != SIM_OK)
            continue;
        const struct sim_fingerprint *f = &r.fp, *w = &e->fp;
        if (print) {
            printf("    { %d, %d, %d, %d, %d, %d, %d, %g, %d, %lld,\n"
                   "      { %lld, %lld, %lld, %lld, %lld, 0x%016llxULL } },\n",
                   e->flit, e->a, e->p, e->h, e->cc, e->limit, e->fecn_aggr, e->slow_frac,
                   e->slow_factor, (long long)e->cycles, (long long)f->sunk,
                   (long long)f->flits, (long long)f->lat, (long long)f->hops,
                   (long long)f->nonmin, (unsigned long long)f->rng);
            continue;
        }
        SIM_EXPECT(r.cycles == e->cycles, "case %d ran %lld cycles", i, (long long)r.cycles);
        SIM_EXPECT(f->sunk == w->sunk && f->flits == w->flits && f->lat == w->lat &&
                       f->hops == w->hops && f->nonmin == w->nonmin && f->rng == w->rng,
                   "case %d (%s): sunk %lld flits %lld lat %lld hops %lld nonmin %lld rng %016llx,"
                   " stored %lld %lld %lld %lld %lld %016llx",
                   i, e->flit ? "flit" : "packet", (long long)f->sunk, (long long)f->flits,
                   (long long)f->lat, (long long)f->hops, (long long)f->nonmin,
                   (unsigned long long)f->rng, (long long)w->sunk, (long long)w->flits,
                   (long long)w->lat, (long long)w->hops, (long long)w->nonmin,
                   (unsigned long long)w->rng);
    }
}

/* BookSim validation preset below saturation delivers what is offered. */
static void sim_t_booksim_low_load(void)
{
    struct sim_config c;
    struct sim_result r;
    sim_t_config(&c, 4, 2, 2);
    c.routing = SIM_ROUTE_UGAL;
    c.vcmode = SIM_VC_GLOBAL;
    c.traffic = SIM_TRAFFIC_PERM;
    c.offered = 0.1;
    c.max_cycles = 30000;
    c.iter = 5000;
    sim_t_run(&c, &r);
    SIM_EXPECT(fabs(r.throughput - 0.1) < 0.005, "throughput %.4f", r.throughput);
    SIM_EXPECT(r.hops > 1.0 && r.hops < 4.5, "hops %.3f", r.hops);
}

/* Flit-level mode: the one-router pair and zero-load latency by hand. */
static void sim_t_flit_one_router(void)
{
    struct sim_config c;
    struct sim_result r;
    sim_t_config(&c, 1, 2, 0);
    c.flit = 1;
    sim_t_run(&c, &r);
    SIM_EXPECT(fabs(r.throughput - 1.0) < 0.01, "throughput %.4f", r.throughput);
    c.offered = 0.002;
    c.max_cycles = 100000;
    c.min_iters = 1000;
    c.iter = 20000;
    sim_t_run(&c, &r);
    double want = c.lat_term + c.router_delay + 1 + c.lat_term + c.pkt_flits;
    SIM_EXPECT(fabs(r.latency - want) < 0.3, "latency %.3f want %.1f", r.latency, want);
    sim_t_config(&c, 1, 2, 0);
    c.flit = 1;
    c.slow_frac = 0.5;
    c.slow_factor = 4;
    sim_t_run(&c, &r);
    SIM_EXPECT(fabs(r.throughput - 0.625) < 0.01, "x4 throughput %.4f", r.throughput);
}

/* Flit-level mode on the two-group network: the same hand-checked values. */
static void sim_t_flit_two_groups(void)
{
    for (int seed = 1; seed <= 4; seed++) {
        struct sim_config c;
        struct sim_result r;
        sim_t_config(&c, 1, 2, 1);
        c.flit = 1;
        c.routing = SIM_ROUTE_MIN;
        c.seed = (uint64_t)seed;
        sim_t_run(&c, &r);
        int local = fabs(r.hops - 1.0) < 1e-9;
        double want = local ? 1.0 : 0.5;
        SIM_EXPECT(fabs(r.throughput - want) < 0.02, "throughput %.4f want %.2f",
                   r.throughput, want);
    }
}

/* Flit-level mode, PAR, slow sinks, every congestion control: invariants
 * every cycle, no deadlock. */
static void sim_t_flit_invariants(void)
{
    int ccs[] = { SIM_CC_NONE, SIM_CC_FECN, SIM_CC_RDRP };
    for (int i = 0; i < 3; i++) {
        struct sim_config c;
        struct sim_result r;
        sim_t_config(&c, 4, 2, 2);
        c.flit = 1;
        c.cc = ccs[i];
        c.slow_frac = 0.05;
        c.slow_factor = 8;
        c.max_cycles = 8000;
        sim_t_run(&c, &r);
        SIM_EXPECT(r.throughput > 0.05, "cc %d throughput %.4f", ccs[i], r.throughput);
    }
}

/* The flit engine's optional allocators (--va rr|fixed, --sa rr): the
 * hand-checked slow-pair answer (1 + 1/4) / 2, and a 72-node PAR network
 * with slow nodes under every congestion control with all invariants
 * checked every cycle. */
static void sim_t_flit_allocators(void)
{
    int vas[] = { 1, 2, 1 }, sas[] = { 1, 0, 0 };
    int ccs[] = { SIM_CC_NONE, SIM_CC_FECN, SIM_CC_RDRP };
    for (int a = 0; a < 3; a++) {
        struct sim_config c;
        struct sim_result r;
        sim_t_config(&c, 1, 2, 0);
        c.flit = 1;
        c.va_rr = vas[a];
        c.sa_rr = sas[a];
        c.slow_frac = 0.5;
        c.slow_factor = 4;
        sim_t_run(&c, &r);
        SIM_EXPECT(fabs(r.throughput - 0.625) < 0.01, "va %d sa %d: throughput %.4f want 0.625",
                   vas[a], sas[a], r.throughput);
        for (int i = 0; i < 3; i++) {
            sim_t_config(&c, 4, 2, 2);
            c.flit = 1;
            c.va_rr = vas[a];
            c.sa_rr = sas[a];
            c.cc = ccs[i];
            c.slow_frac = 0.05;
            c.slow_factor = 8;
            c.max_cycles = 8000;
            sim_t_run(&c, &r);
            SIM_EXPECT(r.throughput > 0.05, "va %d sa %d cc %d: throughput %.4f", vas[a], sas[a],
                       ccs[i], r.throughput);
        }
    }
}

/* Packet and flit modes agree without slow nodes (72 nodes, PAR). */
static void sim_t_modes_agree(void)
{
    struct sim_config c;
    struct sim_result rp, rf;
    sim_t_config(&c, 4, 2, 2);
    c.check = 0;
    c.max_cycles = 20000;
    sim_t_run(&c, &rp);
    c.flit = 1;
    sim_t_run(&c, &rf);
    SIM_EXPECT(fabs(rp.throughput - rf.throughput) < 0.05 * rf.throughput,
               "packet %.4f flit %.4f", rp.throughput, rf.throughput);
}

struct sim_t_case {
    const char *name;
    void (*fn)(void);
};

static const struct sim_t_case sim_t_cases[] = {
    { "one_router", sim_t_one_router },
    { "zero_load_latency", sim_t_zero_load_latency },
    { "one_group", sim_t_one_group },
    { "two_groups", sim_t_two_groups },
    { "slow_sink", sim_t_slow_sink },
    { "rdrp_limit", sim_t_rdrp_limit },
    { "par_invariants", sim_t_par_invariants },
    { "determinism", sim_t_determinism },
    { "booksim_low_load", sim_t_booksim_low_load },
    { "flit_one_router", sim_t_flit_one_router },
    { "flit_two_groups", sim_t_flit_two_groups },
    { "flit_invariants", sim_t_flit_invariants },
    { "modes_agree", sim_t_modes_agree },
    { "fingerprint", sim_t_fingerprint },
    { "flit_allocators", sim_t_flit_allocators },
};

int main(int argc, char **argv)
{
    int n = (int)(sizeof(sim_t_cases) / sizeof(sim_t_cases[0])), ran = 0;
    for (int i = 0; i < n; i++) {
        if (argc > 1 && strcmp(argv[1], sim_t_cases[i].name) != 0)
            continue;
        printf("%s\n", sim_t_cases[i].name);
        sim_t_cases[i].fn();
        ran++;
    }
    if (!ran) {
        fprintf(stderr, "unknown test case %s\n", argc > 1 ? argv[1] : "");
        return 2;
    }
    return sim_t_fail ? 1 : 0;
}
