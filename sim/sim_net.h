/* sim_net.h - internal state of one simulated network (not public). */
#ifndef SIM_NET_H
#define SIM_NET_H

#include "sim.h"

/* Event kinds.  Each is handled by one small function in sim_router.c or
 * sim_node.c. */
enum sim_ev_kind {
    EV_RARRIVE,  /* packet head reaches a router input VC      a=r b=port*V+vc */
    EV_RCREDIT,  /* credits reach a router output VC           a=r b=port*V+vc c=flits */
    EV_OWAKE,    /* router output crossbar slot freed          a=r b=port */
    EV_IWAKE,    /* router input crossbar slot freed           a=r b=port */
    EV_NARRIVE,  /* packet head reaches a node                 a=node */
    EV_NSINK,    /* node finished sinking its oldest packet    a=node */
    EV_NCREDIT,  /* credits reach a node's injection link      a=node c=flits */
    EV_NINJ,     /* node may try to inject                     a=node */
    EV_NGEN,     /* Bernoulli source generates a packet        a=node */
    EV_VCFREE,   /* a packet's tail has crossed: output VC free a=r b=ov (global) */
};

struct sim_ev {
    int32_t kind, a, b, c;
    int32_t pkt;
};

struct sim_evvec {
    struct sim_ev *v;
    int n, cap;
};

/* Timing wheel: one bucket per tick within the horizon, the rest in a
 * far list that is redistributed once per wheel turn.  Events within a
 * tick run in insertion order, which keeps runs deterministic. */
#define SIM_WHEEL 4096
struct sim_wheel {
    struct sim_evvec bucket[SIM_WHEEL];
    struct sim_evvec far;
    sim_tick_t now;
};

enum sim_pkt_flag {
    PF_FECN = 1,
    PF_BECN = 2,
    PF_CTRL = 4,     /* credit-only RDRP control packet */
    PF_REEVAL = 8,   /* PAR re-evaluation already done */
    PF_NONMIN = 16,
};

struct sim_pkt {
    int32_t src, dst;
    int32_t next;        /* FIFO link */
    int16_t len;
    int16_t inter;       /* intermediate group, -1 when routing minimally */
    uint8_t flags;
    uint8_t hops;        /* routers traversed */
    uint8_t rhops;       /* router-to-router channels taken */
    uint8_t ghops;       /* global channels taken */
    int32_t credits;     /* RDRP credits piggybacked */
    sim_tick_t t_create;
    sim_tick_t t_tail;   /* packet mode: tail reaches the current input buffer */
};

struct sim_node {
    int32_t dst;
    int32_t slow;
    int32_t inj_cred, inj_fwd, inj_ret;    /* credits for router input VC 0 */
    sim_tick_t inj_free;                   /* injection link free at */
    sim_tick_t inj_wake;                   /* pending EV_NINJ tick, -1 none */
    sim_tick_t last_inj;                   /* start of last data injection */
    int32_t ej_head, ej_tail, ej_flits;    /* ejection FIFO */
    int32_t becn;                          /* BECN counter */
    sim_tick_t becn_t;
    int32_t becn_pending;                  /* BECNs to piggyback */
    int32_t rdrp_out;                      /* outstanding packets */
    int32_t rdrp_pending;                  /* credits owed to the partner */
    /* Bernoulli source queue of creation ticks (ring). */
    sim_tick_t *srcq;
    int32_t sq_head, sq_n, sq_cap;
};

struct sim_net {
    struct sim_config cfg;
    int g, R, P, V, N;
    int npkt_cap, pkt_free;
    struct sim_pkt *pkt;
    struct sim_node *node;
    /* Per (router, port): index ip = r*P + port. */
    int32_t *nbr_r, *nbr_p;     /* downstream router and its input port; node id if terminal */
    int32_t *lat;               /* link latency in ticks */
    sim_tick_t *in_xfree, *out_xfree, *out_lfree, *out_wake;
    int32_t *out_occ;           /* flits reserved downstream, all VCs */
    int32_t *req, *req_n, *req_rr; /* requesters per output: P*V slots */
    /* Per (router, port, vc): index iv = ip*V + vc. */
    int32_t *in_head, *in_tail, *in_flits, *in_out, *in_ovc;
    int32_t *out_cred, *out_fwd, *out_ret, *out_cap;
    int32_t *out_owner, *wait_head, *wait_tail; /* output VC holder (-2: tail still crossing), waiters */
    int32_t *wait_next;         /* per input VC: next waiter in that FIFO */
    int32_t *pv_port;           /* port of router-local VC index pv = port*V + vc */
    struct sim_wheel *wheel;
    struct sim_fl *fl;          /* flit-level mode state, NULL otherwise */
    int64_t fcycle;             /* flit mode: next cycle to simulate */
    uint64_t rng;
    /* Statistics of the current measurement window. */
    int64_t acc_flits, acc_pkts, lat_sum, hop_sum, nonmin_pkts;
    int64_t total_sunk, live_pkts, live_flits;
    int nslow;
};

/* sim_engine.c */
int sim_ev_push(struct sim_net *net, sim_tick_t t, int kind, int a, int b, int c, int pkt);
int sim_pkt_alloc(struct sim_net *net);
void sim_huge_advise(void *p, size_t n);
void *sim_big_calloc(size_t n, size_t sz);
void sim_pkt_free(struct sim_net *net, int id);
uint64_t sim_rand(struct sim_net *net);
double sim_rand01(struct sim_net *net);
int sim_wheel_init(struct sim_wheel *w);
void sim_wheel_free(struct sim_wheel *w);

/* sim_topo.c */
int sim_topo_build(struct sim_net *net);
int sim_local_port(const struct sim_net *net, int r, int to_r);
int sim_port_to_group(const struct sim_net *net, int r, int grp);
void sim_route(struct sim_net *net, int r, int in_port, struct sim_pkt *pk, int *out, int *ovc);

/* sim_router.c */
void sim_router_arrive(struct sim_net *net, sim_tick_t t, int r, int pv, int pkt);
void sim_router_credit(struct sim_net *net, sim_tick_t t, int r, int pv, int flits);
void sim_router_try_output(struct sim_net *net, sim_tick_t t, int r, int o);
void sim_router_iwake(struct sim_net *net, sim_tick_t t, int r, int port);
void sim_router_vc_free(struct sim_net *net, sim_tick_t t, int r, int ov);

/* sim_node.c */
void sim_node_try_inject(struct sim_net *net, sim_tick_t t, int n);
void sim_node_arrive(struct sim_net *net, sim_tick_t t, int n, int pkt);
void sim_node_sink_done(struct sim_net *net, sim_tick_t t, int n);
void sim_node_credit(struct sim_net *net, sim_tick_t t, int n, int flits);
void sim_node_generate(struct sim_net *net, sim_tick_t t, int n);
enum { SIM_WANT_DATA = 1, SIM_WANT_CTRL = 2 };
int sim_node_wants(struct sim_net *net, sim_tick_t t, int n, sim_tick_t *retry);
int sim_node_new_pkt(struct sim_net *net, sim_tick_t t, int n, int len, int ctrl);
void sim_node_header(struct sim_net *net, sim_tick_t t, int n, struct sim_pkt *pk);
void sim_node_account(struct sim_net *net, sim_tick_t t, int n, int pkt);

/* sim_flit.c */
int sim_flit_init(struct sim_net *net);
void sim_flit_free(struct sim_net *net);
void sim_flit_cycle(struct sim_net *net, int64_t t);
int64_t sim_flit_outside(const struct sim_net *net);
int sim_flit_vc_pkts(const struct sim_net *net, int iv, int32_t *out, int max);
void sim_flit_sync(const struct sim_net *net);

/* sim_check.c */
int sim_check_invariants(const struct sim_net *net);

static inline sim_tick_t sim_tmax(sim_tick_t x, sim_tick_t y) { return x > y ? x : y; }

#endif
