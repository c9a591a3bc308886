/* The Portals engine's cost over the wire, measured in one run on pairs of
 * ranks: first the raw wire (packet ping-pong, one-sided put), then the same
 * sizes through Portals (PtlPut ping-pong counted by an ME's CT; PtlGet into
 * an MD counted by CT_REPLY).  A large PtlGet is served by the target with
 * the wire's one-sided put into the initiator's buffer, so that is the wire
 * column for bandwidth.
 * usage: sluicerun -n 2 ptl_bench [--quick] */
#include "bench_common.h"
#include "portals4.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRIALS 5
#define MAXBW (16u << 20)
#define PTI 7

static const size_t lat_sizes[] = {8, 64, 256, 1024, 4096};
static const size_t bw_sizes[] = {4096, 65536, 1u << 20, 4u << 20, 16u << 20};
#define NLAT (sizeof lat_sizes / sizeof lat_sizes[0])
#define NBW (sizeof bw_sizes / sizeof bw_sizes[0])

static double wire_lat[NLAT], wire_bw[NBW];

static void die_ptl(const char *what, int rc)
{
    fprintf(stderr, "ptl_bench: %s returned %d\n", what, rc);
    exit(1);
}
#define P(call)                                                                            \
    do {                                                                                   \
        int rc_ = (call);                                                                  \
        if (rc_ != PTL_OK) die_ptl(#call, rc_);                                            \
    } while (0)

/* ---- phase 1: the wire alone --------------------------------------------------------- */

static double wire_pp(bench_t *b, char *buf, size_t len, int iters)
{
    double t0 = bench_now();
    for (int i = 0; i < iters; i++) {
        if (b->leader) wire_send_buf(b->wire, b->peer, 1, buf, len);
        bench_wait_next(b);
        if (!b->leader) wire_send_buf(b->wire, b->peer, 1, buf, len);
    }
    double t = (bench_now() - t0) / iters;
    wire_flush(b->wire, -1);
    return t;
}

static void phase_wire(bench_t *b, char *src, char *dst)
{
    /* message 0: where the peer's receive buffer is (for the one-sided put) */
    wire_send_buf(b->wire, b->peer, 2, &dst, sizeof dst);
    bench_wait_next(b);
    uint64_t raddr = b->first8[0];
    double v[TRIALS];
    for (size_t s = 0; s < NLAT; s++) {
        int iters = b->quick ? 50 : 20000;
        wire_pp(b, src, lat_sizes[s], iters / 10);
        for (int t = 0; t < TRIALS; t++) v[t] = wire_pp(b, src, lat_sizes[s], iters);
        wire_lat[s] = bench_median(v, TRIALS) / 2;
    }
    for (size_t s = 0; s < NBW && b->leader; s++) {
        size_t len = bw_sizes[s];
        int reps = (int)((b->quick ? (8u << 20) : (256u << 20)) / len);
        if (reps < 3) reps = 3;
        for (int t = 0; t < TRIALS; t++) {
            double t0 = bench_now();
            for (int i = 0; i < reps; i++) {
                wire_bulk_t op;
                sl_status_t st = wire_put(b->wire, b->peer, raddr, src, len, &op);
                if (st == SL_INPROGRESS) st = wire_bulk_wait(b->wire, &op);
                if (st != SL_OK) bench_die("wire_put", st);
            }
            v[t] = (bench_now() - t0) / reps;
        }
        wire_bw[s] = (double)len / bench_median(v, TRIALS) / 1e9;
    }
    if (b->leader) wire_send_buf(b->wire, b->peer, 3, NULL, 0);
    else bench_wait_next(b); /* serve a staged path until the leader is done */
}

/* ---- phase 2: Portals ---------------------------------------------------------------- */

typedef struct pb {
    ptl_handle_ni_t ni;
    ptl_handle_ct_t rct, gct;
    ptl_handle_md_t md, gmd;
    ptl_handle_me_t me;
    ptl_process_t peer;
    ptl_size_t recvd, replies;
} pb_t;

static void pb_setup(pb_t *p, bench_t *b, char *src, char *dst)
{
    P(PtlInit());
    P(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL,
                &p->ni));
    ptl_process_t me_id;
    P(PtlGetPhysId(p->ni, &me_id));
    p->peer = me_id;
    p->peer.phys.pid = (ptl_pid_t)b->peer; /* same host: pid = job rank (docs/PORTALS.md) */
    P(PtlCTAlloc(p->ni, &p->rct));
    P(PtlCTAlloc(p->ni, &p->gct));
    ptl_pt_index_t pti;
    P(PtlPTAlloc(p->ni, 0, PTL_EQ_NONE, PTI, &pti));
    ptl_me_t me = {.start = dst, .length = MAXBW, .ct_handle = p->rct, .uid = PTL_UID_ANY,
                   .options = PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_CT_COMM |
                              PTL_ME_EVENT_SUCCESS_DISABLE | PTL_ME_EVENT_LINK_DISABLE,
                   .match_id = {.phys = {.nid = PTL_NID_ANY, .pid = PTL_PID_ANY}}};
    P(PtlMEAppend(p->ni, PTI, &me, PTL_PRIORITY_LIST, NULL, &p->me));
    ptl_md_t md = {.start = src, .length = MAXBW, .eq_handle = PTL_EQ_NONE,
                   .ct_handle = PTL_CT_NONE};
    P(PtlMDBind(p->ni, &md, &p->md));
    ptl_md_t gmd = {.start = src, .length = MAXBW, .eq_handle = PTL_EQ_NONE,
                    .ct_handle = p->gct, .options = PTL_MD_EVENT_CT_REPLY};
    P(PtlMDBind(p->ni, &gmd, &p->gmd));
    boot_fence(b->boot);
}

static void ct_reach(ptl_handle_ct_t ct, ptl_size_t n)
{
    ptl_ct_event_t v;
    P(PtlCTWait(ct, n, &v));
    if (v.failure) die_ptl("a counted operation failed", (int)v.failure);
}

static double ptl_pp(pb_t *p, bench_t *b, size_t len, int iters)
{
    double t0 = bench_now();
    for (int i = 0; i < iters; i++) {
        if (b->leader) P(PtlPut(p->md, 0, len, PTL_NO_ACK_REQ, p->peer, PTI, 0, 0, NULL, 0));
        ct_reach(p->rct, ++p->recvd);
        if (!b->leader) P(PtlPut(p->md, 0, len, PTL_NO_ACK_REQ, p->peer, PTI, 0, 0, NULL, 0));
    }
    return (bench_now() - t0) / iters;
}

/* Windowed, as bandwidth benchmarks measure it (osu_bw): GET_WINDOW gets
 * in flight, then wait for all replies, so the request/reply latency
 * overlaps the copies.  All gets of a window land in the same buffer (as
 * osu_bw reuses one): the memory footprint stays that of the wire column,
 * which copies one buffer over and over. */
#define GET_WINDOW 16

static double ptl_getbw(pb_t *p, bench_t *b, size_t len)
{
    size_t window = GET_WINDOW;
    int reps = (int)((b->quick ? (8u << 20) : (256u << 20)) / (len * window));
    if (reps < 3) reps = 3;
    double t0 = bench_now();
    for (int i = 0; i < reps; i++) {
        for (size_t w = 0; w < window; w++)
            P(PtlGet(p->gmd, 0, len, p->peer, PTI, 0, 0, NULL));
        p->replies += window;
        ct_reach(p->gct, p->replies);
    }
    return (double)len * (double)window * reps / (bench_now() - t0) / 1e9;
}

static void phase_ptl(bench_t *b, char *src, char *dst)
{
    pb_t p = {0};
    pb_setup(&p, b, src, dst);
    double v[TRIALS];
    if (b->leader) {
        printf("# Portals over the wire, %d ranks (%d pairs at once); same run, wire first\n",
               b->size, b->size / 2);
        printf("%8s %14s %14s %12s\n", "bytes", "wire 1-way us", "PtlPut 1-way us", "added us");
    }
    for (size_t s = 0; s < NLAT; s++) {
        int iters = b->quick ? 50 : 20000;
        ptl_pp(&p, b, lat_sizes[s], iters / 10);
        for (int t = 0; t < TRIALS; t++) v[t] = ptl_pp(&p, b, lat_sizes[s], iters);
        double one = bench_median(v, TRIALS) / 2;
        if (b->leader)
            printf("%8zu %14.3f %14.3f %12.3f\n", lat_sizes[s], wire_lat[s] * 1e6, one * 1e6,
                   (one - wire_lat[s]) * 1e6);
    }
    /* Get bandwidth twice: the target waiting inside Portals (PtlCTWait, as
     * an MPI rank in MPI_Wait: it progresses inline), then idle outside the
     * library (in a PMI barrier: its progress thread must be woken). */
    double bw[2][NBW];
    for (int mode = 0; mode < 2; mode++) {
        boot_fence(b->boot);
        if (b->leader) {
            for (size_t s = 0; s < NBW; s++) {
                for (int t = 0; t < TRIALS; t++) v[t] = ptl_getbw(&p, b, bw_sizes[s]);
                bw[mode][s] = bench_median(v, TRIALS);
            }
            if (mode == 0) P(PtlPut(p.md, 0, 0, PTL_NO_ACK_REQ, p.peer, PTI, 0, 0, NULL, 0));
        } else if (mode == 0) {
            ct_reach(p.rct, ++p.recvd); /* the leader's "done" put */
        }
    }
    if (b->leader) {
        printf("# PtlGet: up to %d gets in flight (windowed); wire put: one copy after another\n",
               GET_WINDOW);
        printf("%8s %14s %16s %10s %16s %10s\n", "bytes", "wire put GB/s", "PtlGet GB/s",
               "get/wire", "PtlGet GB/s", "get/wire");
        printf("%8s %14s %16s %10s %16s %10s\n", "", "", "(target waits)", "",
               "(target idle)", "");
        for (size_t s = 0; s < NBW; s++)
            printf("%8zu %14.2f %16.2f %9.0f%% %16.2f %9.0f%%\n", bw_sizes[s], wire_bw[s],
                   bw[0][s], 100 * bw[0][s] / wire_bw[s], bw[1][s], 100 * bw[1][s] / wire_bw[s]);
        fflush(stdout);
    }
    boot_fence(b->boot);
    P(PtlMEUnlink(p.me));
    P(PtlNIFini(p.ni));
    PtlFini();
}

int main(int argc, char **argv)
{
    bench_t b;
    bench_init(&b, argc, argv);
    char *src = malloc(MAXBW), *dst = malloc(MAXBW);
    if (!src || !dst) bench_die("malloc", SL_ERR_NOMEM);
    memset(src, 1, MAXBW);
    memset(dst, 2, MAXBW);
    phase_wire(&b, src, dst);
    sl_status_t st = wire_flush(b.wire, -1);
    if (st) bench_die("wire_flush", st);
    boot_fence(b.boot);
    wire_fini(b.wire); /* Portals brings up its own wire */
    phase_ptl(&b, src, dst);
    boot_fini(b.boot);
    free(src);
    free(dst);
    return 0;
}
