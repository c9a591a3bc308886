/* Conformance: memory descriptors, event queues and counting events
 * (PORTALS4_API.md §5.1, §7, §11.4, §12, §13.1, §13.5, §19): MDBind errors
 * and "all of memory" MDs, volatile MDs, MDRelease while busy, ack kinds and their counts,
 * event suppression, EQ overflow, EQGet/EQPoll/timeouts, CT wait/poll/set/inc,
 * and waits ended by PtlAbort (PTL_ABORTED) or by freeing the object
 * (PTL_INTERRUPTED) from another thread.  2 ranks, symmetric. */
#include "conf_util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OP_PG (PTL_ME_OP_PUT | PTL_ME_OP_GET)
#define NOLINK PTL_ME_EVENT_LINK_DISABLE
#define BIG (4u << 20)

typedef struct env {
    pt_ctx_t *c;
    int other;
    ptl_process_t to;
    ptl_handle_eq_t teq, ieq;
    ptl_handle_md_t md;
    ptl_pt_index_t pt;
    ptl_handle_me_t me_big, me_small;
    char *sbuf, *gbuf, *rbuf, small[40];
} env_t;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

static ptl_handle_md_t bind(env_t *v, void *start, ptl_size_t len, unsigned int options,
                            ptl_handle_eq_t eq, ptl_handle_ct_t ct)
{
    ptl_md_t d = cu_md(start, len, options, eq, ct);
    ptl_handle_md_t h;
    PT_OK(PtlMDBind(v->c->ni, &d, &h));
    return h;
}

/* ---- MDs ------------------------------------------------------------------------------------ */

static void md_bind_errors(env_t *v)
{
    ptl_handle_ni_t ni2;
    ptl_handle_eq_t eq2, dead_eq;
    ptl_handle_ct_t ct2, dead_ct;
    ptl_handle_md_t h;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL,
                    NULL, &ni2));
    PT_OK(PtlEQAlloc(ni2, 4, &eq2));
    PT_OK(PtlCTAlloc(ni2, &ct2));
    PT_OK(PtlEQAlloc(v->c->ni, 4, &dead_eq));
    PT_OK(PtlEQFree(dead_eq));
    PT_OK(PtlCTAlloc(v->c->ni, &dead_ct));
    PT_OK(PtlCTFree(dead_ct));
    const ptl_md_t bad[] = {
        cu_md(v->sbuf, 8, 0, dead_eq, PTL_CT_NONE), cu_md(v->sbuf, 8, 0, PTL_EQ_NONE, dead_ct),
        cu_md(v->sbuf, 8, 0, eq2, PTL_CT_NONE), cu_md(v->sbuf, 8, 0, PTL_EQ_NONE, ct2),
        cu_md(v->sbuf, 8, ~(unsigned)PTL_MD_OPTIONS_MASK, PTL_EQ_NONE, PTL_CT_NONE),
        cu_md(NULL, 1025, PTL_IOVEC, PTL_EQ_NONE, PTL_CT_NONE)};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ(PtlMDBind(v->c->ni, &bad[i], &h), PTL_ARG_INVALID);
    CHECK_EQ(PtlMDBind(v->c->ni, NULL, &h), PTL_ARG_INVALID);
    CHECK_EQ(PtlMDBind(v->c->ni, &bad[0], NULL), PTL_ARG_INVALID);
    ptl_iovec_t *iov = calloc(1025, sizeof *iov);
    CHECK(iov != NULL);
    for (int i = 0; i < 1025; i++) iov[i] = (ptl_iovec_t){v->sbuf + i, 1};
    ptl_md_t d = cu_md(iov, 1025, PTL_IOVEC, PTL_EQ_NONE, PTL_CT_NONE);
    CHECK_EQ(PtlMDBind(v->c->ni, &d, &h), PTL_ARG_INVALID); /* > max_iovecs (1024) */
    d.length = 1024;
    PT_OK(PtlMDBind(v->c->ni, &d, &h));
    PT_OK(PtlMDRelease(h));
    free(iov);
    PT_OK(PtlNIFini(ni2));
    /* the MD range bounds every operation */
    CHECK_EQ(PtlPut(v->md, BIG - 4, 8, PTL_NO_ACK_REQ, v->to, v->pt, 1, 0, NULL, 0),
             PTL_ARG_INVALID);
    CHECK_EQ(PtlGet(v->md, BIG + 1, 0, v->to, v->pt, 1, 0, NULL), PTL_ARG_INVALID);
}

/* start = NULL, length = PTL_SIZE_MAX: local offsets are addresses (SOS, OMPI). */
static void md_all_memory(env_t *v)
{
    ptl_handle_md_t all = bind(v, NULL, PTL_SIZE_MAX, 0, v->ieq, PTL_CT_NONE);
    ptl_handle_md_t none = bind(v, NULL, 0, 0, v->ieq, PTL_CT_NONE);
    ptl_md_t d = cu_md(v->gbuf, 64, 0, v->ieq, PTL_CT_NONE);
    ptl_handle_md_t copy;
    PT_OK(PtlMDBind(v->c->ni, &d, &copy));
    d.start = v->sbuf; /* the MD keeps its own copy */
    t_fill(v->sbuf + 100, 64, 11 + (uint64_t)v->c->rank);
    pt_barrier(v->c);
    ptl_size_t addr = (ptl_size_t)(uintptr_t)(v->sbuf + 100);
    CHECK_EQ(cu_put_ack(all, v->ieq, addr, 64, v->to, v->pt, 1, 0, 0).mlength, 64);
    CHECK_EQ(cu_put_ack(none, v->ieq, 0, 0, v->to, v->pt, 1, 64, 0).mlength, 0);
    pt_barrier(v->c);
    CHECK(t_verify(v->rbuf, 64, 11 + (uint64_t)v->other) == (size_t)-1);
    CHECK_EQ(pt_expect(v->teq, PTL_EVENT_PUT).mlength, 64);
    CHECK_EQ(pt_expect(v->teq, PTL_EVENT_PUT).mlength, 0);
    addr = (ptl_size_t)(uintptr_t)(v->gbuf + 8);
    CHECK_EQ(cu_get_reply(all, v->ieq, addr, 64, v->to, v->pt, 1, 0).mlength, 64);
    CHECK(t_verify(v->gbuf + 8, 64, 11 + (uint64_t)v->c->rank) == (size_t)-1);
    CHECK_EQ(cu_get_reply(copy, v->ieq, 0, 8, v->to, v->pt, 1, 0).mlength, 8);
    CHECK(t_verify(v->gbuf, 8, 11 + (uint64_t)v->c->rank) == (size_t)-1);
    pt_expect(v->teq, PTL_EVENT_GET);
    pt_expect(v->teq, PTL_EVENT_GET);
    pt_barrier(v->c);
    PT_OK(PtlMDRelease(all));
    PT_OK(PtlMDRelease(none));
    PT_OK(PtlMDRelease(copy));
}

/* PTL_MD_VOLATILE: the buffer is reusable when PtlPut returns, up to
 * max_volatile_size (512 by default); a longer put is refused. */
static void md_volatile(env_t *v)
{
    ptl_handle_md_t vol = bind(v, v->sbuf, 4096, PTL_MD_VOLATILE, v->ieq, PTL_CT_NONE);
    CHECK_EQ(PtlPut(vol, 0, 513, PTL_NO_ACK_REQ, v->to, v->pt, 1, 0, NULL, 0), PTL_ARG_INVALID);
    t_fill(v->sbuf, 512, 21 + (uint64_t)v->c->rank);
    pt_barrier(v->c);
    PT_OK(PtlPut(vol, 0, 512, PTL_NO_ACK_REQ, v->to, v->pt, 1, 0, NULL, 0));
    memset(v->sbuf, 0xee, 512); /* before anything else could have read it */
    CHECK_EQ(pt_expect(v->ieq, PTL_EVENT_SEND).ni_fail_type, PTL_NI_OK);
    CHECK_EQ(pt_expect(v->teq, PTL_EVENT_PUT).mlength, 512);
    CHECK(t_verify(v->rbuf, 512, 21 + (uint64_t)v->other) == (size_t)-1);
    pt_barrier(v->c);
    PT_OK(PtlMDRelease(vol));
}

/* Sluice extension: shared-heap blocks.  Argument checks, and a bulk put
 * from such a block arrives intact (the target copies it by memcpy). */
static void md_sluice_mem(env_t *v)
{
    void *a = NULL, *b = NULL;
    CHECK_EQ(PtlSluiceMemAlloc(v->c->ni, 16, NULL), PTL_ARG_INVALID);
    CHECK_EQ(PtlSluiceMemAlloc(PTL_INVALID_HANDLE, 16, &a), PTL_ARG_INVALID);
    CHECK_EQ(PtlSluiceMemAlloc(v->c->ni, (ptl_size_t)1 << 50, &a), PTL_NO_SPACE);
    CHECK(a == NULL);
    PT_OK(PtlSluiceMemAlloc(v->c->ni, 1 << 20, &a));
    PT_OK(PtlSluiceMemAlloc(v->c->ni, 0, &b)); /* a distinct block even for 0 bytes */
    CHECK(a && b && a != b && ((uintptr_t)a & 63) == 0);
    t_fill(a, 1 << 20, 31 + (uint64_t)v->c->rank);
    ptl_handle_md_t h = bind(v, a, 1 << 20, 0, v->ieq, PTL_CT_NONE);
    pt_barrier(v->c);
    PT_OK(PtlPut(h, 0, 1 << 20, PTL_NO_ACK_REQ, v->to, v->pt, 1, 0, NULL, 0));
    CHECK_EQ(pt_expect(v->ieq, PTL_EVENT_SEND).ni_fail_type, PTL_NI_OK);
    CHECK_EQ(pt_expect(v->teq, PTL_EVENT_PUT).mlength, 1 << 20);
    CHECK(t_verify(v->rbuf, 1 << 20, 31 + (uint64_t)v->other) == (size_t)-1);
    pt_barrier(v->c);
    PT_OK(PtlMDRelease(h));
    CHECK_EQ(PtlSluiceMemFree(v->c->ni, (char *)a + 64), PTL_ARG_INVALID);
    PT_OK(PtlSluiceMemFree(v->c->ni, a));
    CHECK_EQ(PtlSluiceMemFree(v->c->ni, a), PTL_ARG_INVALID); /* twice */
    CHECK_EQ(PtlSluiceMemFree(PTL_INVALID_HANDLE, b), PTL_ARG_INVALID);
    PT_OK(PtlSluiceMemFree(v->c->ni, b));
}

/* A large get keeps its MD busy until the reply: release is refused meanwhile. */
static void md_release_busy(env_t *v)
{
    pt_barrier(v->c);
    int refused = 0;
    for (int i = 0; i < 5 && !refused; i++) {
        ptl_handle_md_t h = bind(v, v->gbuf, BIG, 0, v->ieq, PTL_CT_NONE);
        PT_OK(PtlGet(h, 0, BIG, v->to, v->pt, 1, 0, NULL));
        int rc = PtlMDRelease(h);
        CHECK_MSG(rc == PTL_OK || rc == PTL_IN_USE, "PtlMDRelease returned %d", rc);
        CHECK_EQ(pt_expect(v->ieq, PTL_EVENT_REPLY).mlength, BIG);
        if (rc == PTL_OK) continue; /* the reply beat us (PtlGet progressed): again */
        refused = 1;
        PT_OK(PtlMDRelease(h));
        CHECK_EQ(PtlMDRelease(h), PTL_ARG_INVALID);
    }
    CHECK_MSG(refused, "PtlMDRelease never saw the get in flight");
    pt_barrier(v->c);
    /* from here on the target events of the big entry are not checked (the
     * peer may already be putting to it) */
    ptl_event_t e;
    while (PtlEQGet(v->teq, &e) == PTL_OK)
        CHECK(e.type == PTL_EVENT_GET || e.type == PTL_EVENT_PUT);
}

/* An ack that neither counts on the MD (no PTL_MD_EVENT_CT_ACK) nor logs
 * on it (no EQ) can deliver nothing to it: once the SEND is counted the MD
 * is free and releasing it succeeds at once (issue 21 §4.2: it returned
 * PTL_ARG_INVALID until the ack came back).  Match bits 2: the entry with
 * comm events off, so the target's EQ stays quiet. */
static void md_release_unseen_ack(env_t *v)
{
    ptl_handle_ct_t ct;
    PT_OK(PtlCTAlloc(v->c->ni, &ct));
    ptl_size_t sent = 0;
    for (int i = 0; i < 30; i++) {
        ptl_handle_md_t h = bind(v, v->sbuf, 64, PTL_MD_EVENT_CT_SEND, PTL_EQ_NONE, ct);
        if (i % 3 == 2)
            PT_OK(PtlAtomic(h, 0, 8, PTL_CT_ACK_REQ, v->to, v->pt, 2, 0, NULL, 0, PTL_SUM,
                            PTL_INT64_T));
        else
            PT_OK(PtlPut(h, 0, 8, i % 3 ? PTL_OC_ACK_REQ : PTL_CT_ACK_REQ, v->to, v->pt, 2, 0,
                         NULL, 0));
        pt_ct_reach(ct, ++sent);
        PT_OK(PtlMDRelease(h));
    }
    cu_put_ack(v->md, v->ieq, 0, 8, v->to, v->pt, 2, 0, 0); /* fence */
    cu_expect_empty(v->ieq);
    CHECK_EQ(cu_ct(ct).success, 30);
    CHECK_EQ(cu_ct(ct).failure, 0);
    PT_OK(PtlCTFree(ct));
}

/* An MD that counts its acks can still be written to until the ack is
 * back: PTL_IN_USE meanwhile (never PTL_ARG_INVALID), PTL_OK after. */
static void md_release_counted_ack(env_t *v)
{
    ptl_handle_ct_t ct;
    PT_OK(PtlCTAlloc(v->c->ni, &ct));
    int in_use = 0;
    for (ptl_size_t i = 1; i <= 20 && !in_use; i++) {
        ptl_handle_md_t h =
            bind(v, v->sbuf, 64, PTL_MD_EVENT_CT_SEND | PTL_MD_EVENT_CT_ACK, PTL_EQ_NONE, ct);
        PT_OK(PtlPut(h, 0, 8, PTL_CT_ACK_REQ, v->to, v->pt, 2, 0, NULL, 0));
        int rc = PtlMDRelease(h);
        CHECK_MSG(rc == PTL_OK || rc == PTL_IN_USE, "PtlMDRelease returned %d", rc);
        pt_ct_reach(ct, 2 * i); /* SEND and ACK */
        if (rc == PTL_OK) continue; /* the ack beat us: again */
        in_use = 1;
        PT_OK(PtlMDRelease(h));
    }
    CHECK_MSG(in_use, "PtlMDRelease never saw the ack outstanding");
    PT_OK(PtlCTFree(ct));
}

/* ---- acknowledgments and counts ---------------------------------------------------------------- */

static void ack_arg_checks(env_t *v)
{
    ptl_handle_md_t bare = bind(v, v->sbuf, 64, 0, PTL_EQ_NONE, PTL_CT_NONE);
    CHECK_EQ(PtlPut(bare, 0, 8, PTL_ACK_REQ, v->to, v->pt, 1, 0, NULL, 0), PTL_ARG_INVALID);
    CHECK_EQ(PtlPut(bare, 0, 8, PTL_CT_ACK_REQ, v->to, v->pt, 1, 0, NULL, 0), PTL_ARG_INVALID);
    CHECK_EQ(PtlPut(bare, 0, 8, PTL_OC_ACK_REQ + 1, v->to, v->pt, 1, 0, NULL, 0),
             PTL_ARG_INVALID);
    CHECK_EQ(PtlAtomic(bare, 0, 8, PTL_ACK_REQ, v->to, v->pt, 1, 0, NULL, 0, PTL_SUM,
                       PTL_INT64_T), PTL_ARG_INVALID);
    CHECK_EQ(PtlAtomic(bare, 0, 8, PTL_CT_ACK_REQ, v->to, v->pt, 1, 0, NULL, 0, PTL_SUM,
                       PTL_INT64_T), PTL_ARG_INVALID);
    PT_OK(PtlPut(bare, 0, 8, PTL_OC_ACK_REQ, v->to, v->pt, 1, 0, NULL, 0)); /* no CT needed */
    PT_OK(PtlPut(bare, 0, 8, PTL_NO_ACK_REQ, v->to, v->pt, 1, 0, NULL, 0));
    /* a fence: both earlier puts are done at the target when this one is acked */
    cu_put_ack(v->md, v->ieq, 0, 8, v->to, v->pt, 1, 0, 0);
    cu_expect_empty(v->ieq);
    PT_OK(PtlMDRelease(bare));
}

static void ack_counts(env_t *v)
{
    ptl_handle_ct_t ct;
    PT_OK(PtlCTAlloc(v->c->ni, &ct));
    ptl_handle_md_t md = bind(v, v->sbuf, 256, PTL_MD_EVENT_CT_SEND | PTL_MD_EVENT_CT_ACK,
                              v->ieq, ct);
    PT_OK(PtlPut(md, 0, 8, PTL_NO_ACK_REQ, v->to, v->pt, 1, 0, (void *)1, 0));
    pt_expect(v->ieq, PTL_EVENT_SEND);
    cu_put_ack(md, v->ieq, 0, 8, v->to, v->pt, 1, 0, 0);
    pt_ct_reach(ct, 3);
    PT_OK(PtlPut(md, 0, 8, PTL_CT_ACK_REQ, v->to, v->pt, 1, 0, (void *)2, 0));
    pt_expect(v->ieq, PTL_EVENT_SEND);
    pt_ct_reach(ct, 5);
    PT_OK(PtlPut(md, 0, 8, PTL_OC_ACK_REQ, v->to, v->pt, 1, 0, (void *)3, 0));
    pt_expect(v->ieq, PTL_EVENT_SEND);
    pt_ct_reach(ct, 7);
    cu_put_ack(v->md, v->ieq, 0, 8, v->to, v->pt, 1, 0, 0); /* fence */
    cu_expect_empty(v->ieq); /* CT and OC acks never make full events */
    CHECK_EQ(cu_ct(ct).success, 7);
    PT_OK(PtlMDRelease(md));
    PT_OK(PtlCTFree(ct));
}

/* CT_BYTES: SEND adds the requested length, ACK and REPLY the delivered one. */
static void ack_bytes(env_t *v)
{
    ptl_handle_ct_t ct;
    PT_OK(PtlCTAlloc(v->c->ni, &ct));
    unsigned int o = PTL_MD_EVENT_CT_SEND | PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_REPLY |
                     PTL_MD_EVENT_CT_BYTES | PTL_MD_EVENT_SUCCESS_DISABLE;
    ptl_handle_md_t md = bind(v, v->sbuf, 256, o, v->ieq, ct);
    PT_OK(PtlPut(md, 0, 100, PTL_CT_ACK_REQ, v->to, v->pt, 2, 0, NULL, 0)); /* 40 fit */
    pt_ct_reach(ct, 140);
    PT_OK(PtlPut(md, 0, 100, PTL_OC_ACK_REQ, v->to, v->pt, 2, 0, NULL, 0));
    pt_ct_reach(ct, 241);
    PT_OK(PtlGet(md, 0, 100, v->to, v->pt, 2, 0, NULL));
    pt_ct_reach(ct, 281);
    PT_OK(PtlPut(md, 0, 8, PTL_CT_ACK_REQ, v->to, v->pt, 0x99, 0, NULL, 0)); /* no match */
    ptl_ct_event_t cv;
    PT_OK(PtlCTWait(ct, 1000, &cv)); /* returns on the failure */
    CHECK_EQ(cv.failure, 1);
    CHECK_EQ(cv.success, 289); /* the send still counts its bytes */
    cu_expect_empty(v->ieq);
    PT_OK(PtlMDRelease(md));
    PT_OK(PtlCTFree(ct));
}

static void suppression(env_t *v)
{
    ptl_handle_md_t quiet = bind(v, v->sbuf, 64, PTL_MD_EVENT_SUCCESS_DISABLE, v->ieq,
                                 PTL_CT_NONE);
    ptl_handle_md_t nosend = bind(v, v->sbuf, 64, PTL_MD_EVENT_SEND_DISABLE, v->ieq,
                                  PTL_CT_NONE);
    PT_OK(PtlPut(quiet, 0, 8, PTL_ACK_REQ, v->to, v->pt, 1, 0, (void *)1, 0));
    PT_OK(PtlGet(quiet, 0, 8, v->to, v->pt, 1, 0, (void *)2));
    PT_OK(PtlPut(quiet, 0, 8, PTL_ACK_REQ, v->to, v->pt, 0x99, 0, (void *)3, 0));
    ptl_event_t a = pt_expect(v->ieq, PTL_EVENT_ACK); /* only the failure shows */
    CHECK(a.user_ptr == (void *)3 && a.ni_fail_type == PTL_NI_DROPPED);
    PT_OK(PtlPut(nosend, 0, 8, PTL_ACK_REQ, v->to, v->pt, 1, 0, (void *)4, 0));
    a = pt_expect(v->ieq, PTL_EVENT_ACK);
    CHECK(a.user_ptr == (void *)4 && a.ni_fail_type == PTL_NI_OK);
    cu_put_ack(v->md, v->ieq, 0, 8, v->to, v->pt, 1, 0, 0); /* fence */
    cu_expect_empty(v->ieq);
    PT_OK(PtlMDRelease(quiet));
    PT_OK(PtlMDRelease(nosend));
}

/* ---- EQs -------------------------------------------------------------------------------------- */

static void eq_overflow(env_t *v)
{
    ptl_handle_eq_t eq;
    ptl_pt_index_t p;
    enum { N = 200 };
    static ptl_handle_me_t h[N];
    PT_OK(PtlEQAlloc(v->c->ni, 1, &eq));
    PT_OK(PtlPTAlloc(v->c->ni, 0, eq, PTL_PT_ANY, &p));
    ptl_me_t me = cu_me(NULL, 0, PTL_ME_OP_PUT, 0x1234, 0);
    for (int i = 0; i < N; i++)
        PT_OK(PtlMEAppend(v->c->ni, p, &me, PTL_PRIORITY_LIST, (void *)(uintptr_t)i, &h[i]));
    ptl_event_t e;
    CHECK_EQ(PtlEQGet(eq, &e), PTL_EQ_DROPPED); /* an event, and news of lost ones */
    CHECK_EQ(e.type, PTL_EVENT_LINK);
    int n = 1;
    while (PtlEQGet(eq, &e) == PTL_OK) n++;
    CHECK(n >= 1 && n < N);
    CHECK(e.user_ptr == (void *)(uintptr_t)(N - 1)); /* the newest survive */
    CHECK_EQ(PtlEQGet(eq, &e), PTL_EQ_EMPTY);
    for (int i = 0; i < N; i++) PT_OK(PtlMEUnlink(h[i]));
    PT_OK(PtlPTFree(v->c->ni, p));
    PT_OK(PtlEQFree(eq));
}

static void eq_poll(env_t *v)
{
    ptl_handle_eq_t eqs[2], foreign;
    ptl_handle_ni_t ni2;
    ptl_pt_index_t p;
    ptl_handle_me_t h;
    ptl_event_t e;
    unsigned int which = 99;
    PT_OK(PtlEQAlloc(v->c->ni, 8, &eqs[0]));
    PT_OK(PtlEQAlloc(v->c->ni, 8, &eqs[1]));
    CHECK_EQ(PtlEQGet(eqs[0], &e), PTL_EQ_EMPTY);
    CHECK_EQ(PtlEQGet(eqs[0], NULL), PTL_ARG_INVALID);
    CHECK_EQ(PtlEQPoll(eqs, 2, 0, &e, &which), PTL_EQ_EMPTY);
    double t0 = now_ms();
    CHECK_EQ(PtlEQPoll(eqs, 2, 50, &e, &which), PTL_EQ_EMPTY);
    double dt = now_ms() - t0;
    CHECK_MSG(dt >= 45 && dt < 5000, "EQPoll(50 ms) took %.1f ms", dt);
    PT_OK(PtlPTAlloc(v->c->ni, 0, eqs[1], PTL_PT_ANY, &p));
    ptl_me_t me = cu_me(NULL, 0, PTL_ME_OP_PUT, 0x1234, 0);
    PT_OK(PtlMEAppend(v->c->ni, p, &me, PTL_PRIORITY_LIST, (void *)0x77, &h));
    PT_OK(PtlEQPoll(eqs, 2, PTL_TIME_FOREVER, &e, &which));
    CHECK_EQ(which, 1);
    CHECK(e.type == PTL_EVENT_LINK && e.user_ptr == (void *)0x77);
    CHECK_EQ(PtlEQPoll(eqs, 0, 0, &e, &which), PTL_ARG_INVALID);
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL,
                    NULL, &ni2));
    PT_OK(PtlEQAlloc(ni2, 4, &foreign));
    ptl_handle_eq_t mixed[2] = {eqs[0], foreign}, none[2] = {eqs[0], PTL_EQ_NONE};
    CHECK_EQ(PtlEQPoll(mixed, 2, 0, &e, &which), PTL_ARG_INVALID);
    CHECK_EQ(PtlEQPoll(none, 2, 0, &e, &which), PTL_ARG_INVALID);
    PT_OK(PtlNIFini(ni2));
    PT_OK(PtlMEUnlink(h));
    PT_OK(PtlPTFree(v->c->ni, p));
    PT_OK(PtlEQFree(eqs[0]));
    PT_OK(PtlEQFree(eqs[1]));
}

/* ---- CTs --------------------------------------------------------------------------------------- */

static void ct_ops(env_t *v)
{
    ptl_handle_ct_t ct[2];
    ptl_ct_event_t cv;
    unsigned int which = 99;
    PT_OK(PtlCTAlloc(v->c->ni, &ct[0]));
    PT_OK(PtlCTAlloc(v->c->ni, &ct[1]));
    CHECK(cu_ct(ct[0]).success == 0 && cu_ct(ct[0]).failure == 0);
    PT_OK(PtlCTSet(ct[0], (ptl_ct_event_t){5, 2}));
    CHECK(cu_ct(ct[0]).success == 5 && cu_ct(ct[0]).failure == 2);
    PT_OK(PtlCTInc(ct[0], (ptl_ct_event_t){3, 0}));
    PT_OK(PtlCTInc(ct[0], (ptl_ct_event_t){0, 1}));
    PT_OK(PtlCTInc(ct[0], (ptl_ct_event_t){0, 0}));
    CHECK_EQ(PtlCTInc(ct[0], (ptl_ct_event_t){1, 1}), PTL_ARG_INVALID);
    CHECK(cu_ct(ct[0]).success == 8 && cu_ct(ct[0]).failure == 3);
    CHECK_EQ(PtlCTGet(ct[0], NULL), PTL_ARG_INVALID);
    /* CTWait returns as soon as failure != 0, whatever the test */
    PT_OK(PtlCTWait(ct[0], 1000, &cv));
    CHECK(cv.success == 8 && cv.failure == 3);
    PT_OK(PtlCTSet(ct[0], (ptl_ct_event_t){0, 0}));
    ptl_size_t tests[2] = {1, 5};
    CHECK_EQ(PtlCTPoll(ct, tests, 2, 0, &cv, &which), PTL_CT_NONE_REACHED);
    double t0 = now_ms();
    CHECK_EQ(PtlCTPoll(ct, tests, 2, 30, &cv, &which), PTL_CT_NONE_REACHED);
    double dt = now_ms() - t0;
    CHECK_MSG(dt >= 25 && dt < 5000, "CTPoll(30 ms) took %.1f ms", dt);
    PT_OK(PtlCTInc(ct[1], (ptl_ct_event_t){5, 0}));
    PT_OK(PtlCTPoll(ct, tests, 2, PTL_TIME_FOREVER, &cv, &which));
    CHECK_EQ(which, 1);
    CHECK(cv.success == 5 && cv.failure == 0);
    CHECK_EQ(PtlCTPoll(ct, tests, 0, 0, &cv, &which), PTL_ARG_INVALID);
    PT_OK(PtlCTWait(ct[1], 5, &cv));
    PT_OK(PtlCTFree(ct[0]));
    PT_OK(PtlCTFree(ct[1]));
}

/* ---- waits ended from another thread ------------------------------------------------------------ */

enum { W_CTWAIT, W_CTPOLL, W_EQWAIT, W_EQPOLL };

typedef struct waiter {
    pthread_t th;
    int kind;
    ptl_handle_ct_t ct;
    ptl_handle_eq_t eq;
    atomic_int started, done;
    int rc;
} waiter_t;

static void *waiter_main(void *arg)
{
    waiter_t *w = arg;
    ptl_ct_event_t cv;
    ptl_event_t ev;
    ptl_size_t test = 1000;
    unsigned int which;
    atomic_store(&w->started, 1);
    switch (w->kind) {
    case W_CTWAIT: w->rc = PtlCTWait(w->ct, test, &cv); break;
    case W_CTPOLL: w->rc = PtlCTPoll(&w->ct, &test, 1, 3000, &cv, &which); break;
    case W_EQWAIT: w->rc = PtlEQWait(w->eq, &ev); break;
    default: w->rc = PtlEQPoll(&w->eq, 1, 3000, &ev, &which); break;
    }
    atomic_store(&w->done, 1);
    return NULL;
}

static void waiter_start(waiter_t *w, int kind, ptl_handle_ct_t ct, ptl_handle_eq_t eq)
{
    memset(w, 0, sizeof *w);
    w->kind = kind;
    w->ct = ct;
    w->eq = eq;
    CHECK(pthread_create(&w->th, NULL, waiter_main, w) == 0);
}

/* PtlAbort ends every wait in progress with PTL_ABORTED.  It only affects
 * threads already waiting, so it is repeated until all four have returned. */
static void abort_waits(env_t *v)
{
    ptl_handle_ct_t ct;
    ptl_handle_eq_t eq;
    PT_OK(PtlCTAlloc(v->c->ni, &ct));
    PT_OK(PtlEQAlloc(v->c->ni, 4, &eq));
    waiter_t w[4];
    for (int k = 0; k < 4; k++) waiter_start(&w[k], k, ct, eq);
    for (int done = 0; done < 4;) {
        PtlAbort();
        nap_ms(1);
        done = 0;
        for (int k = 0; k < 4; k++) done += atomic_load(&w[k].done);
    }
    for (int k = 0; k < 4; k++) {
        pthread_join(w[k].th, NULL);
        CHECK_MSG(w[k].rc == PTL_ABORTED, "waiter %d returned %d", k, w[k].rc);
    }
    /* the abort is over: new waits behave normally */
    ptl_ct_event_t cv;
    unsigned int which;
    ptl_size_t test = 1;
    ptl_event_t ev;
    CHECK_EQ(PtlCTPoll(&ct, &test, 1, 0, &cv, &which), PTL_CT_NONE_REACHED);
    CHECK_EQ(PtlEQPoll(&eq, 1, 0, &ev, &which), PTL_EQ_EMPTY);
    PT_OK(PtlCTFree(ct));
    PT_OK(PtlEQFree(eq));
}

/* A waiter whose condition holds when it wakes may return PTL_OK; an abort
 * must not outlive the waiters it was meant for. */
static void abort_then_ready(env_t *v)
{
    ptl_handle_ct_t ct;
    PT_OK(PtlCTAlloc(v->c->ni, &ct));
    waiter_t w;
    waiter_start(&w, W_CTWAIT, ct, PTL_EQ_NONE);
    while (!atomic_load(&w.started)) nap_ms(1);
    nap_ms(20);
    PT_OK(PtlCTInc(ct, (ptl_ct_event_t){1000, 0}));
    PtlAbort();
    pthread_join(w.th, NULL);
    CHECK_MSG(w.rc == PTL_OK || w.rc == PTL_ABORTED, "waiter returned %d", w.rc);
    ptl_ct_event_t cv;
    unsigned int which;
    ptl_size_t test = 1;
    PT_OK(PtlCTSet(ct, (ptl_ct_event_t){0, 0}));
    CHECK_EQ(PtlCTPoll(&ct, &test, 1, 0, &cv, &which), PTL_CT_NONE_REACHED);
    PT_OK(PtlCTFree(ct));
}

/* Freeing the CT or EQ a thread waits on ends its wait with PTL_INTERRUPTED.
 * The thread must be inside the wait first; a late starter would see a stale
 * handle (PTL_ARG_INVALID), in which case the round is repeated, longer. */
static void free_under_waiter(env_t *v, int kind)
{
    int rc = -1;
    for (int round = 0; round < 6 && rc != PTL_INTERRUPTED; round++) {
        ptl_handle_ct_t ct;
        ptl_handle_eq_t eq;
        PT_OK(PtlCTAlloc(v->c->ni, &ct));
        PT_OK(PtlEQAlloc(v->c->ni, 4, &eq));
        waiter_t w;
        waiter_start(&w, kind, ct, eq);
        while (!atomic_load(&w.started)) nap_ms(1);
        nap_ms(10L << round); /* widen the margin each round */
        if (kind == W_CTWAIT || kind == W_CTPOLL) PT_OK(PtlCTFree(ct));
        else PT_OK(PtlEQFree(eq));
        pthread_join(w.th, NULL);
        rc = w.rc;
        CHECK_MSG(rc == PTL_INTERRUPTED || rc == PTL_ARG_INVALID, "waiter %d returned %d", kind,
                  rc);
        if (kind == W_CTWAIT || kind == W_CTPOLL) PT_OK(PtlEQFree(eq));
        else PT_OK(PtlCTFree(ct));
    }
    CHECK_EQ(rc, PTL_INTERRUPTED);
}

/* PtlNIFini (last reference) ends waits on that NI's objects: PTL_INTERRUPTED. */
static void fini_under_waiters(void)
{
    int rc[2] = {-1, -1};
    for (int round = 0; round < 6 && (rc[0] != PTL_INTERRUPTED || rc[1] != PTL_INTERRUPTED);
         round++) {
        ptl_handle_ni_t ni;
        ptl_handle_ct_t ct;
        ptl_handle_eq_t eq;
        PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY,
                        NULL, NULL, &ni));
        PT_OK(PtlCTAlloc(ni, &ct));
        PT_OK(PtlEQAlloc(ni, 4, &eq));
        waiter_t w[2];
        waiter_start(&w[0], W_CTWAIT, ct, eq);
        waiter_start(&w[1], W_EQWAIT, ct, eq);
        while (!atomic_load(&w[0].started) || !atomic_load(&w[1].started)) nap_ms(1);
        nap_ms(10L << round);
        PT_OK(PtlNIFini(ni));
        for (int k = 0; k < 2; k++) {
            pthread_join(w[k].th, NULL);
            rc[k] = w[k].rc;
            CHECK_MSG(rc[k] == PTL_INTERRUPTED || rc[k] == PTL_ARG_INVALID,
                      "waiter %d returned %d", k, rc[k]);
        }
    }
    CHECK_EQ(rc[0], PTL_INTERRUPTED);
    CHECK_EQ(rc[1], PTL_INTERRUPTED);
}

/* An EQ or CT freed while a PT, MD or entry still names it (the application's
 * mistake) must not be written to afterwards: the PT and MD lose their EQ
 * (so PTL_ACK_REQ is refused), the entry stops counting. */
static void free_referenced(env_t *v)
{
    ptl_handle_ni_t ni = v->c->ni;
    ptl_handle_eq_t eq;
    ptl_handle_ct_t ct;
    ptl_pt_index_t p;
    ptl_handle_me_t h;
    PT_OK(PtlEQAlloc(ni, 8, &eq));
    PT_OK(PtlCTAlloc(ni, &ct));
    PT_OK(PtlPTAlloc(ni, 0, eq, 20, &p));
    ptl_me_t me = cu_me(v->small, 8, PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM, 3, 0);
    me.ct_handle = ct;
    PT_OK(PtlMEAppend(ni, p, &me, PTL_PRIORITY_LIST, NULL, &h));
    ptl_handle_md_t m = bind(v, v->sbuf, 64, 0, eq, PTL_CT_NONE);
    PT_OK(PtlEQFree(eq));
    PT_OK(PtlCTFree(ct));
    CHECK_EQ(PtlPut(m, 0, 8, PTL_ACK_REQ, v->to, p, 3, 0, NULL, 0), PTL_ARG_INVALID);
    pt_barrier(v->c);
    CHECK_EQ(cu_put_ack(v->md, v->ieq, 0, 8, v->to, p, 3, 0, 0).ni_fail_type, PTL_NI_OK);
    PT_OK(PtlPut(m, 0, 8, PTL_NO_ACK_REQ, v->to, p, 3, 0, NULL, 0));
    cu_put_ack(v->md, v->ieq, 0, 8, v->to, p, 3, 0, 0); /* fence */
    pt_barrier(v->c);
    PT_OK(PtlMEUnlink(h));
    PT_OK(PtlPTFree(ni, p));
    PT_OK(PtlMDRelease(m));
}

/* PtlCTFree of a CT an MD counts into: the MD stops counting (the next
 * counted event, here CT_SEND, must not write the freed CT). */
static void free_md_ct(env_t *v)
{
    ptl_handle_ct_t ct;
    PT_OK(PtlCTAlloc(v->c->ni, &ct));
    ptl_handle_md_t m = bind(v, v->sbuf, 64, PTL_MD_EVENT_CT_SEND, PTL_EQ_NONE, ct);
    PT_OK(PtlCTFree(ct));
    PT_OK(PtlPut(m, 0, 8, PTL_NO_ACK_REQ, v->to, v->pt, 1, 0, NULL, 0));
    PT_OK(PtlMDRelease(m));
}

static void setup(env_t *v, pt_ctx_t *c)
{
    v->c = c;
    v->other = 1 - c->rank;
    v->to = pt_id(c, v->other);
    v->sbuf = calloc(1, BIG);
    v->gbuf = calloc(1, BIG);
    v->rbuf = calloc(1, BIG);
    CHECK(v->sbuf && v->gbuf && v->rbuf);
    PT_OK(PtlEQAlloc(c->ni, 256, &v->teq));
    PT_OK(PtlEQAlloc(c->ni, 256, &v->ieq));
    v->md = bind(v, v->sbuf, BIG, 0, v->ieq, PTL_CT_NONE);
    PT_OK(PtlPTAlloc(c->ni, 0, v->teq, PTL_PT_ANY, &v->pt));
    ptl_me_t me = cu_me(v->rbuf, BIG, OP_PG | NOLINK | PTL_ME_EVENT_SUCCESS_DISABLE, 1, 0);
    PT_OK(PtlMEAppend(c->ni, v->pt, &me, PTL_PRIORITY_LIST, NULL, &v->me_big));
    me = cu_me(v->small, sizeof v->small, OP_PG | NOLINK | PTL_ME_EVENT_COMM_DISABLE, 2, 0);
    PT_OK(PtlMEAppend(c->ni, v->pt, &me, PTL_PRIORITY_LIST, NULL, &v->me_small));
}

static void teardown(env_t *v)
{
    pt_barrier(v->c);
    PT_OK(PtlMEUnlink(v->me_big));
    PT_OK(PtlMEUnlink(v->me_small));
    PT_OK(PtlPTFree(v->c->ni, v->pt));
    PT_OK(PtlMDRelease(v->md));
    PT_OK(PtlEQFree(v->teq));
    PT_OK(PtlEQFree(v->ieq));
    free(v->sbuf);
    free(v->gbuf);
    free(v->rbuf);
}

int main(void)
{
    env_t v = {0};
    pt_ctx_t c;
    pt_init(&c, PTL_NI_MATCHING | PTL_NI_LOGICAL);
    CHECK(c.size == 2);
    setup(&v, &c);
    pt_barrier(&c);
    md_bind_errors(&v);
    /* the big entry has SUCCESS_DISABLE: turn it on for these two */
    PT_OK(PtlMEUnlink(v.me_big));
    ptl_me_t me = cu_me(v.rbuf, BIG, OP_PG | NOLINK, 1, 0);
    PT_OK(PtlMEAppend(c.ni, v.pt, &me, PTL_PRIORITY_LIST, NULL, &v.me_big));
    md_all_memory(&v);
    md_volatile(&v);
    md_sluice_mem(&v);
    md_release_busy(&v);
    md_release_unseen_ack(&v);
    md_release_counted_ack(&v);
    ack_arg_checks(&v);
    ack_counts(&v);
    ack_bytes(&v);
    suppression(&v);
    eq_overflow(&v);
    eq_poll(&v);
    ct_ops(&v);
    abort_waits(&v);
    abort_then_ready(&v);
    for (int k = 0; k < 4; k++) free_under_waiter(&v, k);
    fini_under_waiters();
    free_referenced(&v);
    free_md_ct(&v);
    teardown(&v);
    pt_fini(&c);
    t_done("conf_md_eq_ct_test");
    return 0;
}
