/* Operations towards a peer that ends while they are in flight (issue 21
 * §4.3, §4.4).  2 ranks; rank 1 ends, rank 0 survives.  Rank 1 holds every
 * request on a PTL_PT_SLUICE_WAIT portal with no entry, so none is answered
 * before it ends.
 *   mode "crash": rank 1 is killed (SIGKILL).  Everything rank 0 had in
 *     flight towards it (put with ack, bulk put, small and bulk get, atomic,
 *     fetch-atomic, swap, a triggered fetch-atomic already fired) completes
 *     as failed: PTL_NI_UNDELIVERABLE on its events, a failure on its CT.
 *     Triggered and plain operations issued after the death fail the same
 *     way.  Rank 0 ignores the launcher's SIGTERM to live through its
 *     checks; peer_end_test.sh checks the log (the death reported once).
 *   mode "leave": rank 1 finalizes and exits normally while a get of rank 0
 *     waits for it: the get fails, and nothing is logged as an error.
 * usage: peer_end_test crash|leave */
#include "ptest.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BULK = 1 << 20, SMALL = 8 };

typedef struct env {
    pt_ctx_t c;
    ptl_pt_index_t pt;
    ptl_handle_eq_t eq;
    ptl_handle_ct_t ct, trig;
    ptl_handle_md_t md;
    ptl_process_t victim;
    char *buf;
    int failed; /* operations whose failure rank 0 expects */
} env_t;

static void setup(env_t *v)
{
    pt_init(&v->c, PTL_NI_MATCHING | PTL_NI_LOGICAL);
    CHECK(v->c.size == 2);
    v->victim = pt_id(&v->c, 1);
    PT_OK(PtlPTAlloc(v->c.ni, PTL_PT_SLUICE_WAIT, PTL_EQ_NONE, 5, &v->pt));
    PT_OK(PtlEQAlloc(v->c.ni, 256, &v->eq));
    PT_OK(PtlCTAlloc(v->c.ni, &v->ct));
    PT_OK(PtlCTAlloc(v->c.ni, &v->trig));
    v->buf = calloc(2, BULK);
    CHECK(v->buf != NULL);
    ptl_md_t d = {.start = v->buf, .length = 2 * BULK, .eq_handle = v->eq, .ct_handle = v->ct,
                  .options = PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_REPLY};
    PT_OK(PtlMDBind(v->c.ni, &d, &v->md));
}

/* ---- issuing: user_ptr names the operation ------------------------------------------------ */

static void *tag(int i)
{
    return (void *)(uintptr_t)(0x100 + i);
}

static void put(env_t *v, int i, ptl_size_t len, ptl_ack_req_t ack)
{
    PT_OK(PtlPut(v->md, 0, len, ack, v->victim, v->pt, 0, 0, tag(i), 0));
    v->failed++;
}

static void get(env_t *v, int i, ptl_size_t len)
{
    PT_OK(PtlGet(v->md, BULK, len, v->victim, v->pt, 0, 0, tag(i)));
    v->failed++;
}

static void atomic(env_t *v, int i)
{
    PT_OK(PtlAtomic(v->md, 0, SMALL, PTL_CT_ACK_REQ, v->victim, v->pt, 0, 0, tag(i), 0, PTL_SUM,
                    PTL_UINT64_T));
    v->failed++;
}

static void fetch(env_t *v, int i)
{
    PT_OK(PtlFetchAtomic(v->md, BULK, v->md, 0, SMALL, v->victim, v->pt, 0, 0, tag(i), 0,
                         PTL_SUM, PTL_UINT64_T));
    v->failed++;
}

static void swap(env_t *v, int i)
{
    uint64_t cmp = 0;
    PT_OK(PtlSwap(v->md, BULK, v->md, 0, SMALL, v->victim, v->pt, 0, 0, tag(i), 0, &cmp,
                  PTL_CSWAP, PTL_UINT64_T));
    v->failed++;
}

/* Every kind of triggered operation on v->trig at `threshold`. */
static void triggered_all(env_t *v, int i, ptl_size_t threshold)
{
    uint64_t cmp = 0;
    PT_OK(PtlTriggeredPut(v->md, 0, SMALL, PTL_CT_ACK_REQ, v->victim, v->pt, 0, 0, tag(i), 0,
                          v->trig, threshold));
    PT_OK(PtlTriggeredGet(v->md, BULK, SMALL, v->victim, v->pt, 0, 0, tag(i + 1), v->trig,
                          threshold));
    PT_OK(PtlTriggeredAtomic(v->md, 0, SMALL, PTL_CT_ACK_REQ, v->victim, v->pt, 0, 0, tag(i + 2),
                             0, PTL_SUM, PTL_UINT64_T, v->trig, threshold));
    PT_OK(PtlTriggeredFetchAtomic(v->md, BULK, v->md, 0, SMALL, v->victim, v->pt, 0, 0,
                                  tag(i + 3), 0, PTL_SUM, PTL_UINT64_T, v->trig, threshold));
    PT_OK(PtlTriggeredSwap(v->md, BULK, v->md, 0, SMALL, v->victim, v->pt, 0, 0, tag(i + 4), 0,
                           &cmp, PTL_CSWAP, PTL_UINT64_T, v->trig, threshold));
    v->failed += 5;
}

/* ---- completion --------------------------------------------------------------------------- */

/* PtlCTWait on the CT of the failing operations returns (on their first
 * failure) before the deadline. */
static void wait_returns(env_t *v, double deadline)
{
    ptl_ct_event_t cv;
    PT_OK(PtlCTWait(v->ct, (ptl_size_t)1 << 30, &cv));
    CHECK(cv.failure > 0);
    CHECK_MSG(pt_now_s() < deadline, "PtlCTWait returned late");
}

/* Once their events are in: v->failed operations failed on the CT and
 * none succeeded.  Resets the CT for the next phase. */
static void check_failures(env_t *v)
{
    ptl_ct_event_t cv;
    PT_OK(PtlCTGet(v->ct, &cv));
    CHECK_EQ(cv.failure, v->failed);
    CHECK_EQ(cv.success, 0);
    PT_OK(PtlCTSet(v->ct, (ptl_ct_event_t){0, 0}));
    v->failed = 0;
}

/* Read the EQ: every event of operations [first, last) that reports a
 * failure says PTL_NI_UNDELIVERABLE, and `want` such events arrive. */
static void expect_events(env_t *v, int first, int last, int want)
{
    int got = 0;
    while (got < want) {
        ptl_event_t e;
        unsigned int which;
        int rc = PtlEQPoll(&v->eq, 1, 10000, &e, &which);
        CHECK_MSG(rc == PTL_OK, "PtlEQPoll returned %d with %d of %d failures seen", rc, got,
                  want);
        uintptr_t t = (uintptr_t)e.user_ptr;
        CHECK_MSG(t >= 0x100 + (uintptr_t)first && t < 0x100 + (uintptr_t)last,
                  "event %d for operation %#lx", e.type, (unsigned long)t);
        if (e.ni_fail_type == PTL_NI_OK) {
            CHECK_EQ(e.type, PTL_EVENT_SEND); /* an inline request left */
            continue;
        }
        CHECK_EQ(e.ni_fail_type, PTL_NI_UNDELIVERABLE);
        CHECK(e.type == PTL_EVENT_SEND || e.type == PTL_EVENT_ACK || e.type == PTL_EVENT_REPLY);
        got++;
    }
}

/* Operations [first, last), v->failed of which count on the CT, fail:
 * PtlCTWait returns, `events` failure events arrive, the CT counts them. */
static void all_failed(env_t *v, int first, int last, int events)
{
    wait_returns(v, pt_now_s() + 10);
    expect_events(v, first, last, events);
    check_failures(v);
}

/* Rank 0: what it had in flight when rank 1 died fails, and so does what
 * it issues afterwards. */
static void survive_crash(env_t *v)
{
    put(v, 0, SMALL, PTL_ACK_REQ);      /* ACK fails */
    put(v, 1, 2 * 65536, PTL_CT_ACK_REQ); /* bulk: SEND and the counted ack fail */
    get(v, 2, SMALL);
    get(v, 3, BULK);
    atomic(v, 4);
    fetch(v, 5);
    swap(v, 6);
    PT_OK(PtlTriggeredFetchAtomic(v->md, BULK, v->md, 0, SMALL, v->victim, v->pt, 0, 0, tag(7),
                                  0, PTL_SUM, PTL_UINT64_T, v->trig, 1));
    v->failed++;
    PT_OK(PtlCTInc(v->trig, (ptl_ct_event_t){1, 0})); /* fires now: outstanding */
    pt_barrier(&v->c); /* rank 1 dies after this */
    double t0 = pt_now_s();
    all_failed(v, 0, 8, 7); /* failed events: ACK 0, SEND 1, REPLY 2 3 5 6 7 */
    printf("rank 0: 8 operations in flight failed %.2f s after the death\n", pt_now_s() - t0);

    /* Triggered operations firing after the death, then plain ones. */
    triggered_all(v, 8, 2);
    PT_OK(PtlCTInc(v->trig, (ptl_ct_event_t){1, 0}));
    put(v, 13, SMALL, PTL_CT_ACK_REQ);
    get(v, 14, SMALL);
    atomic(v, 15);
    fetch(v, 16);
    swap(v, 17);
    /* SEND of the 8 puts, atomics, fetches and swaps, REPLY of the 6 gets, fetches, swaps */
    all_failed(v, 8, 18, 14);
    printf("rank 0: 10 operations issued after the death failed\n");
    PT_OK(PtlMDRelease(v->md)); /* nothing is left in flight on it */
    fflush(stdout);
}

/* Rank 0: a get waits on rank 1, which finalizes and leaves. */
static void survive_leave(env_t *v)
{
    get(v, 0, SMALL);
    pt_barrier(&v->c); /* rank 1 leaves after this */
    double t0 = pt_now_s();
    all_failed(v, 0, 1, 1);
    printf("rank 0: the get failed %.2f s after rank 1 left\n", pt_now_s() - t0);
    PT_OK(PtlMDRelease(v->md));
    fflush(stdout);
}

/* Rank 1, leaving: takes rank 0's get in (it waits on the portal), then
 * finalizes with PtlFini alone, which drops it unanswered (PtlNIFini first
 * would let the progress thread retry it on the finalized NI and answer
 * PTL_NI_DROPPED: a failure too, but not the one this test is about). */
static void leave_unanswered(env_t *v)
{
    ptl_handle_ct_t h = v->ct;
    ptl_size_t test = 1;
    ptl_ct_event_t cv;
    unsigned int which;
    CHECK_EQ(PtlCTPoll(&h, &test, 1, 100, &cv, &which), PTL_CT_NONE_REACHED);
}

int main(int argc, char **argv)
{
    CHECK(argc == 2);
    bool crash = strcmp(argv[1], "crash") == 0;
    CHECK(crash || strcmp(argv[1], "leave") == 0);
    env_t v = {0};
    setup(&v);
    pt_barrier(&v.c); /* every portal exists */
    if (v.c.rank == 1) {
        pt_barrier(&v.c); /* rank 0's operations are on their way */
        if (crash) raise(SIGKILL);
        leave_unanswered(&v);
    } else if (crash) {
        signal(SIGTERM, SIG_IGN); /* the launcher tears the job down: finish first */
        survive_crash(&v);
    } else {
        survive_leave(&v);
    }
    if (v.c.rank == 0) PT_OK(PtlNIFini(v.c.ni));
    CHECK_OK(boot_fini(v.c.boot));
    PtlFini();
    if (v.c.rank == 0) printf("rank 0: finalized\n"); /* a gone peer holds nothing up */
    free(v.buf);
    free(v.c.phys);
    return 0;
}
