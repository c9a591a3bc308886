/* sim_main.c - command line of sluice-sim. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static void sim_usage(void)
{
    puts("usage: sluice-sim [options]            run one simulation, print one CSV row\n"
         "       sluice-sim --figure 1|4|5|summary [--out DIR] [--seeds K] [--quick] [--small] [--flit]\n"
         "                  [--max-cycles C] [--pcts 0,0.1,1] [--limits 4,30,128]\n"
         "       sluice-sim --validate [--big] [--out DIR] [--max-cycles C]\n"
         "options (defaults = paper 000 section 4.1):\n"
         "  --a N --p N --h N        Dragonfly shape (12 6 6: 73 groups, 5256 nodes)\n"
         "  --routing min|ugal|par   (par)      --vcmode hop|global  --nvc N\n"
         "  --traffic pair|perm      (pair)     --offered X (flits/cycle/node, >=1 full)\n"
         "  --slow-frac F --slow-factor K       fraction of nodes sinking K times slower\n"
         "  --cc none|fecn|fecn-aggr|rdrp       --limit L (RDRP outstanding packets)\n"
         "  --seed S --warmup C --iter C --max-cycles C --tol X --min-iters N\n"
         "  --booksim                BookSim validation preset (ugal, 3 global VCs, perm)\n"
         "  --flit                   flit-level reference mode (slow; validates the default)\n"
         "  --va rotate|rr|fixed     flit mode VC allocation: priority rotating by cycle (default),\n"
         "                           BookSim's round robin per output VC, or fixed port order\n"
         "  --sa rotate|rr           flit mode switch allocation: greedy in rotating port order\n"
         "                           (default) or BookSim's separable input-first round robin\n"
         "  --check / --no-check     verify invariants every cycle (default on in debug builds)\n"
         "  --verbose                per-iteration throughput and a buffer census on stderr\n"
         "  --pairs-out FILE         write the pairing and slow nodes (\"node partner slow\" lines)");
}

static int sim_parse_enum(const char *v, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0)
            return i;
    return -1;
}

static void sim_preset_booksim(struct sim_config *c)
{
    c->routing = SIM_ROUTE_UGAL;
    c->vcmode = SIM_VC_GLOBAL;
    c->nvc = 3;
    c->traffic = SIM_TRAFFIC_PERM;
}

static int sim_set_cc(struct sim_config *c, const char *v)
{
    static const char *const names[] = { "none", "fecn", "rdrp", "fecn-aggr" };
    int k = sim_parse_enum(v, names, 4);
    if (k < 0)
        return SIM_ERR_ARG;
    c->cc = k == 3 ? SIM_CC_FECN : k;
    if (k == 3) {
        c->fecn_mult = 2.0;
        c->becn_decay_cycles = 50;
    }
    return SIM_OK;
}

/* Comma-separated list of up to 16 numbers, as doubles or as ints. */
static int sim_parse_list(const char *v, double *d, int *iv, int *n)
{
    char *end;
    for (*n = 0; *v && *n < 16; (*n)++) {
        double x = strtod(v, &end);
        if (end == v)
            return SIM_ERR_ARG;
        if (d)
            d[*n] = x;
        else
            iv[*n] = (int)x;
        v = *end == ',' ? end + 1 : end;
    }
    return *n > 0 ? SIM_OK : SIM_ERR_ARG;
}

struct sim_cli {
    struct sim_config cfg;
    struct sim_fig_opts fo;
    int figure, validate, big, seeds, quick, small, max_set;
    const char *out;
};

/* Options that take a value.  Returns SIM_ERR_ARG for unknown ones. */
static int sim_parse_value(struct sim_cli *cli, const char *k, const char *v)
{
    static const char *const routes[] = { "min", "ugal", "par" };
    static const char *const traffics[] = { "pair", "perm" };
    static const char *const vcmodes[] = { "hop", "global" };
    struct sim_config *c = &cli->cfg;
    if (!strcmp(k, "--a")) c->a = atoi(v);
    else if (!strcmp(k, "--p")) c->p = atoi(v);
    else if (!strcmp(k, "--h")) c->h = atoi(v);
    else if (!strcmp(k, "--routing")) c->routing = sim_parse_enum(v, routes, 3);
    else if (!strcmp(k, "--traffic")) c->traffic = sim_parse_enum(v, traffics, 2);
    else if (!strcmp(k, "--vcmode")) c->vcmode = sim_parse_enum(v, vcmodes, 2);
    else if (!strcmp(k, "--nvc")) c->nvc = atoi(v);
    else if (!strcmp(k, "--offered")) c->offered = atof(v);
    else if (!strcmp(k, "--speedup")) c->speedup = atof(v);
    else if (!strcmp(k, "--router-delay")) c->router_delay = atoi(v);
    else if (!strcmp(k, "--sa")) {
        static const char *const sas[] = { "rotate", "rr" };
        if ((c->sa_rr = sim_parse_enum(v, sas, 2)) < 0)
            return SIM_ERR_ARG;
    }
    else if (!strcmp(k, "--va")) {
        static const char *const vas[] = { "rotate", "rr", "fixed" };
        if ((c->va_rr = sim_parse_enum(v, vas, 3)) < 0)
            return SIM_ERR_ARG;
    }
    else if (!strcmp(k, "--buf")) c->buf_flits = atoi(v);
    else if (!strcmp(k, "--slow-frac")) c->slow_frac = atof(v);
    else if (!strcmp(k, "--slow-factor")) c->slow_factor = atoi(v);
    else if (!strcmp(k, "--cc")) return sim_set_cc(c, v);
    else if (!strcmp(k, "--limit")) c->rdrp_limit = atoi(v);
    else if (!strcmp(k, "--seed")) c->seed = strtoull(v, NULL, 10);
    else if (!strcmp(k, "--warmup")) c->warmup = atoll(v);
    else if (!strcmp(k, "--iter")) c->iter = atoll(v);
    else if (!strcmp(k, "--max-cycles")) c->max_cycles = atoll(v), cli->max_set = 1;
    else if (!strcmp(k, "--tol")) c->conv_tol = atof(v);
    else if (!strcmp(k, "--min-iters")) c->min_iters = atoi(v);
    else if (!strcmp(k, "--figure")) cli->figure = !strcmp(v, "summary") ? 6 : atoi(v);
    else if (!strcmp(k, "--pcts")) return sim_parse_list(v, cli->fo.pcts, NULL, &cli->fo.npcts);
    else if (!strcmp(k, "--limits")) return sim_parse_list(v, NULL, cli->fo.limits, &cli->fo.nlimits);
    else if (!strcmp(k, "--seeds")) cli->seeds = atoi(v);
    else if (!strcmp(k, "--out")) cli->out = v;
    else if (!strcmp(k, "--pairs-out")) c->pairs_out = v;
    else return SIM_ERR_ARG;
    if (c->routing < 0 || c->traffic < 0 || c->vcmode < 0)
        return SIM_ERR_ARG;
    return SIM_OK;
}

static int sim_parse(struct sim_cli *cli, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i];
        if (!strcmp(k, "--check")) cli->cfg.check = 1;
        else if (!strcmp(k, "--no-check")) cli->cfg.check = 0;
        else if (!strcmp(k, "--flit")) cli->cfg.flit = 1;
        else if (!strcmp(k, "--verbose")) cli->cfg.verbose = 1;
        else if (!strcmp(k, "--booksim")) sim_preset_booksim(&cli->cfg);
        else if (!strcmp(k, "--validate")) cli->validate = 1;
        else if (!strcmp(k, "--big")) cli->big = 1;
        else if (!strcmp(k, "--quick")) cli->quick = 1;
        else if (!strcmp(k, "--small")) cli->small = 1;
        else if (!strcmp(k, "--help") || !strcmp(k, "-h")) return SIM_ERR_ARG;
        else if (i + 1 >= argc || sim_parse_value(cli, k, argv[++i]) != SIM_OK) {
            fprintf(stderr, "sluice-sim: bad option %s\n", k);
            return SIM_ERR_ARG;
        }
    }
    return SIM_OK;
}

static void sim_print_row(const struct sim_config *c, const struct sim_result *r)
{
    printf("nodes,routing,traffic,offered,slow_frac,slow_factor,nslow,cc,limit,seed,"
           "throughput,latency,hops,nonmin,cycles,iters,converged,wall_s,node_cycles_per_s\n");
    int N = (c->a * c->h + 1) * c->a * c->p;
    double ncps = r->wall_s > 0 ? (double)N * r->cycles / r->wall_s : 0;
    printf("%d,%d,%d,%.3f,%.5f,%d,%d,%d,%d,%llu,%.4f,%.2f,%.3f,%.3f,%lld,%d,%d,%.2f,%.3e\n", N,
           c->routing, c->traffic, c->offered, c->slow_frac, c->slow_factor, r->nslow, c->cc,
           c->rdrp_limit, (unsigned long long)c->seed, r->throughput, r->latency, r->hops,
           r->nonmin_frac, (long long)r->cycles, r->iters, r->converged, r->wall_s, ncps);
    if (c->verbose)
        for (int i = 0; i < r->iters && i < 64; i++)
            fprintf(stderr, "iter %d throughput %.4f\n", i, r->iter_thr[i]);
}

int main(int argc, char **argv)
{
    struct sim_cli cli;
    memset(&cli, 0, sizeof(cli));
    sim_config_default(&cli.cfg);
    cli.seeds = 3;
    cli.out = "sim/results";
    if (sim_parse(&cli, argc, argv) != SIM_OK) {
        sim_usage();
        return 2;
    }
    int st;
    if (cli.figure)
        {
        cli.fo.flit = cli.cfg.flit;
        cli.fo.check = cli.cfg.check;
        cli.fo.max_cycles = cli.max_set ? cli.cfg.max_cycles : 0;
        st = sim_figure(cli.figure, cli.out, cli.seeds, cli.quick, cli.small, &cli.fo);
    }
    else if (cli.validate)
        st = sim_validate(cli.out, cli.big, cli.cfg.max_cycles, cli.cfg.flit);
    else {
        struct sim_result res;
        st = sim_run(&cli.cfg, &res);
        if (st == SIM_OK)
            sim_print_row(&cli.cfg, &res);
    }
    if (st != SIM_OK) {
        fprintf(stderr, "sluice-sim: %s\n", sim_status_str(st));
        return 1;
    }
    return 0;
}
