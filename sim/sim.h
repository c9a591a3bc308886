/* sim.h - Sluice Dragonfly network simulator (issue 5, paper 000 section 4.1).
 *
 * Input-queued Dragonfly with virtual channels, credit-based link-level
 * flow control and an internal crossbar speedup, in two engines sharing
 * topology, routing, traffic and endpoints: a flit-level cycle-driven
 * reference (sim_flit.c) and a fast packet-granular event-driven model
 * (sim_router.c).  The packet engine keeps time in ticks of 1/3 cycle so
 * that a 16-flit packet crosses a 2.4x crossbar in an integral 20 ticks.
 */
#ifndef SIM_H
#define SIM_H

#include <stdint.h>
#include <stdio.h>

typedef int64_t sim_tick_t;

/* Ticks per network cycle.  3 makes 16 flits / 2.4 speedup exact. */
#define SIM_TPC 3

enum sim_status {
    SIM_OK = 0,
    SIM_ERR_ARG,
    SIM_ERR_NOMEM,
    SIM_ERR_INVARIANT,
    SIM_ERR_DEADLOCK,
    SIM_ERR_IO,
};

const char *sim_status_str(int status);

enum sim_routing { SIM_ROUTE_MIN, SIM_ROUTE_UGAL, SIM_ROUTE_PAR };
enum sim_traffic { SIM_TRAFFIC_PAIR, SIM_TRAFFIC_PERM };
enum sim_cc { SIM_CC_NONE, SIM_CC_FECN, SIM_CC_RDRP };
/* How packets pick virtual channels.  HOP: VC = router-to-router hops
 * taken so far (strictly increasing, so deadlock-free for PAR's up to six
 * hops).  GLOBAL: VC = global hops taken so far (BookSim's 3-VC UGAL). */
enum sim_vcmode { SIM_VC_HOP, SIM_VC_GLOBAL };

struct sim_config {
    int a, p, h;            /* routers/group, nodes/router, globals/router */
    int routing;            /* enum sim_routing */
    int vcmode;             /* enum sim_vcmode */
    int nvc;                /* VCs per port; 0 = derive from routing */
    int buf_flits;          /* flits per input VC */
    int eject_buf;          /* flits of the node's ejection buffer */
    double speedup;         /* crossbar speedup */
    int lat_local, lat_global, lat_term; /* link latencies, cycles */
    int router_delay;       /* routing + allocation pipeline, cycles */
    int va_rr;              /* flit mode VC allocation: 0 rotating, 1 round robin (BookSim), 2 fixed */
    int sa_rr;              /* flit mode switch allocation: 0 greedy rotating, 1 BookSim's separable */
    int pkt_flits;          /* data packet size (MTU) in flits */
    int traffic;            /* enum sim_traffic */
    double offered;         /* flits/cycle/node; >= 1 means backlogged */
    double slow_frac;       /* fraction of nodes that sink slowly */
    int slow_factor;        /* slow nodes sink this many times slower */
    int cc;                 /* enum sim_cc */
    double fecn_mult;       /* marking probability multiplier */
    int becn_decay_cycles;  /* auto-decrement period of the BECN counter */
    int becn_inc, becn_max; /* +inc per BECN, counter bounded 0..max */
    int rdrp_limit;         /* outstanding packets per node */
    int bias, threshold;    /* UGAL/PAR: minimal if qmin <= bias*qnon+thr */
    uint64_t seed;          /* traffic pairing, slow nodes, routing */
    int64_t warmup, iter, max_cycles; /* measurement schedule, cycles */
    double conv_tol;        /* successive-iteration tolerance */
    int min_iters;          /* iterations measured before convergence test */
    int flit;               /* flit-level reference mode instead of packets */
    int check;              /* verify invariants every cycle */
    int verbose;
    const char *pairs_out;  /* if set: write "node partner slow_factor" lines here */
};

struct sim_result {
    double throughput;      /* accepted data flits/cycle/node, last iters */
    double latency;         /* mean packet latency in cycles (create..sunk) */
    double hops;            /* mean routers traversed per data packet */
    double nonmin_frac;     /* fraction of data packets routed non-minimally */
    int64_t cycles;         /* simulated cycles */
    int iters;              /* measurement iterations run */
    int converged;
    int nslow;
    double iter_thr[64];    /* per-iteration throughput history */
    /* Exact state at the end of the run (--verbose prints it per iteration):
     * equal fingerprints mean identical runs. */
    struct sim_fingerprint {
        int64_t sunk;       /* data packets sunk since cycle 0 */
        int64_t flits;      /* their flits (the throughput count) */
        int64_t lat, hops;  /* latency (1/3-cycle ticks) and hop sums over them */
        int64_t nonmin;     /* data packets routed non-minimally */
        uint64_t rng;       /* random generator state */
    } fp;
    double wall_s;          /* wall-clock seconds of the run */
};

void sim_config_default(struct sim_config *cfg);
/* Fill derived fields (nvc).  Returns SIM_ERR_ARG for an unusable config. */
int sim_config_finish(struct sim_config *cfg);

/* Run one simulation.  Deterministic for a given config (including seed). */
int sim_run(const struct sim_config *cfg, struct sim_result *res);

/* Figure drivers (sim_figure.c).  Write CSVs into outdir. */
struct sim_fig_opts {
    int flit;               /* run the sweep in the flit-level mode */
    int check;              /* verify invariants (slow) */
    int64_t max_cycles;     /* 0 = default */
    double pcts[16];        /* percent of slow nodes (Figs. 1, 4); npcts 0 = default */
    int npcts;
    int limits[16];         /* RDRP limits (Fig. 5); nlimits 0 = default */
    int nlimits;
};
int sim_figure(int fig, const char *outdir, int seeds, int quick, int nodes_small,
               const struct sim_fig_opts *fo);
int sim_validate(const char *outdir, int big, int64_t cycles, int flit);

#endif
