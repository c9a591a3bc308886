/* sim_figure.c - the sweeps behind paper 000's Figs. 1, 4 and 5, the
 * RDRP-vs-FECN/BECN summary and the BookSim validation table.
 *
 * Every single run is appended to <outdir>/runs.csv keyed by its full
 * configuration, and looked up there before running, so an interrupted
 * sweep resumes where it stopped and figures share runs (the baseline
 * points of Fig. 4 are those of Fig. 1).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define SIM_KEY 160

struct sim_cached {
    char key[SIM_KEY];
    double thr, lat, hops;
};

struct sim_cache {
    struct sim_cached *v;
    int n, cap;
    FILE *log;
};

static const char *const sim_cc_names[] = { "none", "fecn", "rdrp" };

static void sim_key(const struct sim_config *c, char *key)
{
    const char *cc = sim_cc_names[c->cc];
    if (c->cc == SIM_CC_FECN && c->fecn_mult > 1.0)
        cc = "fecn-aggr";
    snprintf(key, SIM_KEY, "%sa%dp%dh%d/r%d/v%d/t%d/o%.3f/x%d/f%.5f/%s/L%d/s%llu/w%lld/i%lld/m%lld",
             c->flit ? "flit/" : "", c->a, c->p, c->h, c->routing, c->vcmode, c->traffic, c->offered, c->slow_factor,
             c->slow_frac, cc, c->cc == SIM_CC_RDRP ? c->rdrp_limit : 0,
             (unsigned long long)c->seed, (long long)c->warmup, (long long)c->iter,
             (long long)c->max_cycles);
}

static int sim_cache_add(struct sim_cache *ca, const char *key, double thr, double lat, double hops)
{
    if (ca->n == ca->cap) {
        int cap = ca->cap ? 2 * ca->cap : 256;
        struct sim_cached *nv = realloc(ca->v, (size_t)cap * sizeof(*nv));
        if (!nv)
            return SIM_ERR_NOMEM;
        ca->v = nv;
        ca->cap = cap;
    }
    struct sim_cached *e = &ca->v[ca->n++];
    snprintf(e->key, SIM_KEY, "%s", key);
    e->thr = thr;
    e->lat = lat;
    e->hops = hops;
    return SIM_OK;
}

static int sim_cache_open(struct sim_cache *ca, const char *outdir)
{
    char path[512], line[512], key[SIM_KEY];
    memset(ca, 0, sizeof(*ca));
    snprintf(path, sizeof(path), "%s/runs.csv", outdir);
    FILE *f = fopen(path, "r");
    if (f) {
        while (fgets(line, sizeof(line), f)) {
            double thr, lat, hops;
            if (sscanf(line, "%159[^,],%lf,%lf,%lf", key, &thr, &lat, &hops) == 4)
                sim_cache_add(ca, key, thr, lat, hops);
        }
        fclose(f);
    }
    ca->log = fopen(path, "a");
    if (!ca->log)
        return SIM_ERR_IO;
    if (!f)
        fprintf(ca->log, "key,throughput,latency,hops,cycles,converged,wall_s\n");
    return SIM_OK;
}

static void sim_cache_close(struct sim_cache *ca)
{
    if (ca->log)
        fclose(ca->log);
    free(ca->v);
}

/* Run (or look up) one configuration. */
static int sim_point(struct sim_cache *ca, const struct sim_config *c, double *thr)
{
    char key[SIM_KEY];
    sim_key(c, key);
    for (int i = 0; i < ca->n; i++)
        if (strcmp(ca->v[i].key, key) == 0) {
            *thr = ca->v[i].thr;
            return SIM_OK;
        }
    struct sim_result r;
    int st = sim_run(c, &r);
    if (st != SIM_OK)
        return st;
    fprintf(ca->log, "%s,%.5f,%.2f,%.3f,%lld,%d,%.1f\n", key, r.throughput, r.latency, r.hops,
            (long long)r.cycles, r.converged, r.wall_s);
    fflush(ca->log);
    fprintf(stderr, "%s -> %.4f (%lld cycles, %.1f s)\n", key, r.throughput,
            (long long)r.cycles, r.wall_s);
    *thr = r.throughput;
    return sim_cache_add(ca, key, r.throughput, r.latency, r.hops);
}

struct sim_stat {
    double mean, min, max;
    int n;
};

/* Mean, min and max over seeds 1..seeds of one configuration. */
static int sim_seeds(struct sim_cache *ca, struct sim_config c, int seeds, struct sim_stat *s)
{
    memset(s, 0, sizeof(*s));
    s->min = 1e9;
    for (int k = 1; k <= seeds; k++) {
        double thr;
        c.seed = (uint64_t)k;
        int st = sim_point(ca, &c, &thr);
        if (st != SIM_OK)
            return st;
        s->mean += thr;
        s->min = thr < s->min ? thr : s->min;
        s->max = thr > s->max ? thr : s->max;
        s->n++;
    }
    s->mean /= s->n;
    return SIM_OK;
}

/* Options of the command line that apply to every run of a sweep. */
static struct sim_fig_opts sim_fo;

static void sim_fig_base(struct sim_config *c, int small)
{
    sim_config_default(c);
    c->flit = sim_fo.flit;
    c->check = sim_fo.check;
    if (sim_fo.max_cycles > 0)
        c->max_cycles = sim_fo.max_cycles;
    if (small) {
        c->a = 8;
        c->p = 4;
        c->h = 4;
    }
}

static FILE *sim_csv_open(const char *outdir, const char *name, int small, const char *hdr)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s%s.csv", outdir, name, small ? "_1056" : "");
    FILE *f = fopen(path, "w");
    if (f)
        fprintf(f, "%s\n", hdr);
    return f;
}

static const double sim_pcts_full[] = { 0, 0.02, 0.04, 0.1, 0.2, 0.5, 1.0, 2.0 };
static const double sim_pcts_quick[] = { 0, 0.1, 1.0 };

/* The x axis of Figs. 1 and 4 (percent of slow nodes). */
static const double *sim_fig_pcts(int quick, int *n)
{
    if (sim_fo.npcts > 0) {
        *n = sim_fo.npcts;
        return sim_fo.pcts;
    }
    *n = quick ? 3 : 8;
    return quick ? sim_pcts_quick : sim_pcts_full;
}

static int sim_fig1(struct sim_cache *ca, const char *outdir, int seeds, int quick, int small)
{
    int np, factors[] = { 2, 8 }, st = SIM_OK;
    const double *pcts = sim_fig_pcts(quick, &np);
    FILE *f = sim_csv_open(outdir, "fig1", small, "slow_factor,slow_pct,mean,min,max,seeds");
    if (!f)
        return SIM_ERR_IO;
    for (int fi = 0; fi < 2 && st == SIM_OK; fi++)
        for (int i = 0; i < np && st == SIM_OK; i++) {
            struct sim_config c;
            struct sim_stat s;
            sim_fig_base(&c, small);
            c.slow_factor = pcts[i] > 0 ? factors[fi] : 1;
            c.slow_frac = pcts[i] / 100.0;
            if ((st = sim_seeds(ca, c, seeds, &s)) == SIM_OK)
                fprintf(f, "%d,%g,%.4f,%.4f,%.4f,%d\n", factors[fi], pcts[i], s.mean, s.min,
                        s.max, s.n);
            fflush(f);
        }
    fclose(f);
    return st;
}

/* cc variant v: 0 none, 1 FECN/BECN default, 2 FECN/BECN aggressive. */
static void sim_set_variant(struct sim_config *c, int v)
{
    c->cc = v == 0 ? SIM_CC_NONE : SIM_CC_FECN;
    if (v == 2) {
        c->fecn_mult = 2.0;
        c->becn_decay_cycles = 50;
    }
}

static const char *const sim_variant_names[] = { "baseline", "fecn_default", "fecn_aggressive" };

static int sim_fig4(struct sim_cache *ca, const char *outdir, int seeds, int quick, int small)
{
    int np, factors[] = { 2, 4, 8 }, st = SIM_OK;
    const double *pcts = sim_fig_pcts(quick, &np);
    FILE *f = sim_csv_open(outdir, "fig4", small, "slow_factor,variant,slow_pct,mean,min,max,seeds");
    if (!f)
        return SIM_ERR_IO;
    for (int fi = 0; fi < 3 && st == SIM_OK; fi++)
        for (int v = 0; v < 3 && st == SIM_OK; v++)
            for (int i = 0; i < np && st == SIM_OK; i++) {
                struct sim_config c;
                struct sim_stat s;
                sim_fig_base(&c, small);
                sim_set_variant(&c, v);
                c.slow_factor = pcts[i] > 0 ? factors[fi] : 1;
                c.slow_frac = pcts[i] / 100.0;
                if ((st = sim_seeds(ca, c, seeds, &s)) == SIM_OK)
                    fprintf(f, "%d,%s,%g,%.4f,%.4f,%.4f,%d\n", factors[fi], sim_variant_names[v],
                            pcts[i], s.mean, s.min, s.max, s.n);
                fflush(f);
            }
    fclose(f);
    return st;
}

static const int sim_limits_full[] = { 1, 2, 4, 8, 16, 30, 64, 128, 256 };
static const int sim_limits_quick[] = { 4, 30, 128 };

/* RDRP-30 over the best of baseline / FECN default / FECN aggressive, all
 * at 1% slow nodes; plus the no-slow-node baseline (paper: 0.59). */
static int sim_summary(struct sim_cache *ca, const char *outdir, int seeds, int small)
{
    static const double paper[] = { 1.7, 3.3, 4.3 };
    int factors[] = { 2, 4, 8 }, st;
    struct sim_config c;
    struct sim_stat s, best, b0;
    FILE *f = sim_csv_open(outdir, "summary", small,
                           "slow_factor,rdrp30,best_fecn_variant,best_fecn,ratio,paper_ratio");
    if (!f)
        return SIM_ERR_IO;
    sim_fig_base(&c, small);
    if ((st = sim_seeds(ca, c, seeds, &b0)) != SIM_OK)
        goto out;
    fprintf(f, "1,%s,baseline_no_slow,%.4f,,0.59\n", "", b0.mean);
    for (int fi = 0; fi < 3; fi++) {
        int bv = 0;
        best.mean = -1;
        for (int v = 0; v < 3; v++) {
            sim_fig_base(&c, small);
            sim_set_variant(&c, v);
            c.slow_factor = factors[fi];
            c.slow_frac = 0.01;
            if ((st = sim_seeds(ca, c, seeds, &s)) != SIM_OK)
                goto out;
            if (s.mean > best.mean) {
                best = s;
                bv = v;
            }
        }
        sim_fig_base(&c, small);
        c.cc = SIM_CC_RDRP;
        c.rdrp_limit = 30;
        c.slow_factor = factors[fi];
        c.slow_frac = 0.01;
        if ((st = sim_seeds(ca, c, seeds, &s)) != SIM_OK)
            goto out;
        fprintf(f, "%d,%.4f,%s,%.4f,%.2f,%.1f\n", factors[fi], s.mean, sim_variant_names[bv],
                best.mean, s.mean / best.mean, paper[fi]);
        fflush(f);
    }
out:
    fclose(f);
    return st;
}

static int sim_fig5(struct sim_cache *ca, const char *outdir, int seeds, int quick, int small)
{
    const int *lims = quick ? sim_limits_quick : sim_limits_full;
    int nl = quick ? 3 : 9, factors[] = { 2, 4, 8 }, st = SIM_OK;
    if (sim_fo.nlimits > 0) {
        lims = sim_fo.limits;
        nl = sim_fo.nlimits;
    }
    FILE *f = sim_csv_open(outdir, "fig5", small, "slow_factor,limit,mean,min,max,seeds");
    if (!f)
        return SIM_ERR_IO;
    for (int fi = 0; fi < 3 && st == SIM_OK; fi++)
        for (int i = 0; i < nl && st == SIM_OK; i++) {
            struct sim_config c;
            struct sim_stat s;
            sim_fig_base(&c, small);
            c.cc = SIM_CC_RDRP;
            c.rdrp_limit = lims[i];
            c.slow_factor = factors[fi];
            c.slow_frac = 0.01;
            if ((st = sim_seeds(ca, c, seeds, &s)) == SIM_OK)
                fprintf(f, "%d,%d,%.4f,%.4f,%.4f,%d\n", factors[fi], lims[i], s.mean, s.min,
                        s.max, s.n);
            fflush(f);
        }
    fclose(f);
    return st;
}

int sim_figure(int fig, const char *outdir, int seeds, int quick, int small,
               const struct sim_fig_opts *fo)
{
    struct sim_cache ca;
    sim_fo = *fo;
    int st = sim_cache_open(&ca, outdir);
    if (st != SIM_OK)
        return st;
    if (seeds < 1)
        st = SIM_ERR_ARG;
    else if (fig == 1)
        st = sim_fig1(&ca, outdir, seeds, quick, small);
    else if (fig == 4)
        st = sim_fig4(&ca, outdir, seeds, quick, small);
    else if (fig == 5)
        st = sim_fig5(&ca, outdir, seeds, quick, small);
    else if (fig == 6) /* --figure summary */
        st = sim_summary(&ca, outdir, seeds, small);
    else
        st = SIM_ERR_ARG;
    sim_cache_close(&ca);
    return st;
}

/* BookSim-settings mode: UGAL, 3 VCs x 256 flits, random permutation,
 * Bernoulli injection; 1,056 nodes at 0.05 and 0.6 (and 5,256 at 0.6). */
int sim_validate(const char *outdir, int big, int64_t cycles, int flit)
{
    struct sim_cache ca;
    int st = sim_cache_open(&ca, outdir);
    if (st != SIM_OK)
        return st;
    FILE *f = sim_csv_open(outdir, flit ? "validation_flit" : "validation", 0,
                           "nodes,offered,seed,throughput,latency,hops,booksim_thr,booksim_lat,"
                           "booksim_hops");
    if (!f) {
        sim_cache_close(&ca);
        return SIM_ERR_IO;
    }
    struct { int a, p, h; double off; const char *bs; } pts[] = {
        { 8, 4, 4, 0.05, "0.0498,38.2,3.66" },
        { 8, 4, 4, 0.6, "0.513-0.517,,4.90" },
        { 12, 6, 6, 0.6, "~0.49,," },
    };
    for (int i = 0; i < (big ? 3 : 2) && st == SIM_OK; i++)
        for (int seed = 1; seed <= 3 && st == SIM_OK; seed++) {
            struct sim_config c;
            double thr;
            sim_config_default(&c);
            c.flit = flit;
            c.check = 0;
            c.a = pts[i].a, c.p = pts[i].p, c.h = pts[i].h;
            c.routing = SIM_ROUTE_UGAL;
            c.vcmode = SIM_VC_GLOBAL;
            c.nvc = 3;
            c.traffic = SIM_TRAFFIC_PERM;
            c.offered = pts[i].off;
            c.max_cycles = cycles;
            c.seed = (uint64_t)seed;
            if ((st = sim_point(&ca, &c, &thr)) != SIM_OK)
                break;
            const struct sim_cached *e = &ca.v[ca.n - 1];
            char key[SIM_KEY];
            sim_key(&c, key);
            for (int k = 0; k < ca.n; k++)
                if (!strcmp(ca.v[k].key, key))
                    e = &ca.v[k];
            fprintf(f, "%d,%.2f,%d,%.4f,%.2f,%.3f,%s\n", (pts[i].a * pts[i].h + 1) * pts[i].a * pts[i].p,
                    pts[i].off, seed, e->thr, e->lat, e->hops, pts[i].bs);
            fflush(f);
        }
    fclose(f);
    sim_cache_close(&ca);
    return st;
}
