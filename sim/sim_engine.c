/* sim_engine.c - event wheel, packet pool and random numbers. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim_net.h"

static int sim_evvec_push(struct sim_evvec *vec, const struct sim_ev *ev)
{
    if (vec->n == vec->cap) {
        int cap = vec->cap ? vec->cap * 2 : 16;
        struct sim_ev *nv = realloc(vec->v, (size_t)cap * sizeof(*nv));
        if (!nv)
            return SIM_ERR_NOMEM;
        vec->v = nv;
        vec->cap = cap;
    }
    vec->v[vec->n++] = *ev;
    return SIM_OK;
}

int sim_wheel_init(struct sim_wheel *w)
{
    memset(w, 0, sizeof(*w));
    return SIM_OK;
}

void sim_wheel_free(struct sim_wheel *w)
{
    for (int i = 0; i < SIM_WHEEL; i++)
        free(w->bucket[i].v);
    free(w->far.v);
}

/* Events are never scheduled in the past; an event for "now" lands in the
 * bucket being drained and runs later in the same tick. */
int sim_ev_push(struct sim_net *net, sim_tick_t t, int kind, int a, int b, int c, int pkt)
{
    struct sim_wheel *w = net->wheel;
    struct sim_ev ev = { kind, a, b, c, pkt };
    if (t < w->now)
        t = w->now; /* programming error guard: never run in the past */
    if (t - w->now < SIM_WHEEL)
        return sim_evvec_push(&w->bucket[t % SIM_WHEEL], &ev);
    /* Far events are rare (long throttle delays, sparse Bernoulli
     * sources); store the tick in two extra event slots. */
    struct sim_ev hi = { -1, (int32_t)(t >> 31), (int32_t)(t & 0x7fffffff), 0, 0 };
    int st = sim_evvec_push(&w->far, &hi);
    if (st == SIM_OK)
        st = sim_evvec_push(&w->far, &ev);
    return st;
}

/* Large arrays that are read at random places get transparent huge pages
 * (where the kernel gives them on request): with 4 KiB pages nearly every
 * access to them also missed the TLB. */
#define SIM_HUGE (2u << 20)
void sim_huge_advise(void *p, size_t n)
{
    uintptr_t lo = ((uintptr_t)p + SIM_HUGE - 1) & ~(uintptr_t)(SIM_HUGE - 1);
    uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)(SIM_HUGE - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

void *sim_big_calloc(size_t n, size_t sz)
{
    size_t b = n * sz;
    if (b < SIM_HUGE)
        return calloc(n, sz);
    b = (b + SIM_HUGE - 1) & ~(size_t)(SIM_HUGE - 1);
    void *p = aligned_alloc(SIM_HUGE, b);
    if (p) {
        sim_huge_advise(p, b);
        memset(p, 0, b);
    }
    return p;
}

int sim_pkt_alloc(struct sim_net *net)
{
    if (net->pkt_free < 0) {
        int old = net->npkt_cap;
        int cap = old ? old * 2 : 1024;
        struct sim_pkt *np = realloc(net->pkt, (size_t)cap * sizeof(*np));
        if (!np)
            return -1;
        net->pkt = np;
        sim_huge_advise(np + old, (size_t)(cap - old) * sizeof(*np));
        for (int i = cap - 1; i >= old; i--) {
            np[i].next = net->pkt_free;
            net->pkt_free = i;
        }
        net->npkt_cap = cap;
    }
    int id = net->pkt_free;
    net->pkt_free = net->pkt[id].next;
    memset(&net->pkt[id], 0, sizeof(net->pkt[id]));
    net->pkt[id].next = -1;
    net->pkt[id].inter = -1;
    net->live_pkts++;
    return id;
}

void sim_pkt_free(struct sim_net *net, int id)
{
    net->live_flits -= net->pkt[id].len;
    net->pkt[id].next = net->pkt_free;
    net->pkt_free = id;
    net->live_pkts--;
}

/* splitmix64: tiny, fast, and fully determined by the seed. */
uint64_t sim_rand(struct sim_net *net)
{
    uint64_t z = (net->rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double sim_rand01(struct sim_net *net)
{
    return (double)(sim_rand(net) >> 11) * (1.0 / 9007199254740992.0);
}

const char *sim_status_str(int status)
{
    switch (status) {
    case SIM_OK: return "ok";
    case SIM_ERR_ARG: return "invalid argument";
    case SIM_ERR_NOMEM: return "out of memory";
    case SIM_ERR_INVARIANT: return "invariant violated";
    case SIM_ERR_DEADLOCK: return "deadlock (no progress)";
    case SIM_ERR_IO: return "i/o error";
    default: return "unknown status";
    }
}
