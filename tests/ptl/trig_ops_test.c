/* Triggered operations on one and two ranks: release order (threshold, then
 * issue order), the REF test_triggered_ctinc/ctset scenario, chains of
 * triggered CTInc, cancel, PTL_NO_SPACE, triggered get and atomic, and the
 * triggered ME append/unlink extension of paper 004. */
#include "ptest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTI 3

static ptl_ct_event_t ct_of(ptl_handle_ct_t ct)
{
    ptl_ct_event_t v;
    PT_OK(PtlCTGet(ct, &v));
    return v;
}

static ptl_ct_event_t one = {1, 0};

/* REF test_triggered_ctinc / ctset: thresholds 2 and 1 posted in either
 * order; after one bump only the threshold-1 op has run. */
static void test_ref_order(pt_ctx_t *c)
{
    for (int order = 0; order < 2; order++) {
        ptl_handle_ct_t trig, target;
        PT_OK(PtlCTAlloc(c->ni, &trig));
        PT_OK(PtlCTAlloc(c->ni, &target));
        ptl_ct_event_t inc1 = {1, 0}, inc2 = {2, 0}, set7 = {7, 0}, set1 = {1, 0};
        if (order == 0) {
            PT_OK(PtlTriggeredCTInc(target, inc2, trig, 2));
            PT_OK(PtlTriggeredCTInc(target, inc1, trig, 1));
        } else {
            PT_OK(PtlTriggeredCTInc(target, inc1, trig, 1));
            PT_OK(PtlTriggeredCTInc(target, inc2, trig, 2));
        }
        PT_OK(PtlCTInc(trig, one));
        CHECK_EQ(ct_of(target).success, 1);
        PT_OK(PtlCTInc(trig, one));
        CHECK_EQ(ct_of(target).success, 3);
        /* ctset: threshold 1 sets 1, threshold 2 sets 7 -> 7 at the end */
        PT_OK(PtlCTSet(trig, (ptl_ct_event_t){0, 0}));
        PT_OK(PtlTriggeredCTSet(target, set7, trig, 2));
        PT_OK(PtlTriggeredCTSet(target, set1, trig, 1));
        PT_OK(PtlCTInc(trig, one));
        CHECK_EQ(ct_of(target).success, 1);
        PT_OK(PtlCTInc(trig, one));
        CHECK_EQ(ct_of(target).success, 7);
        PT_OK(PtlCTFree(trig));
        PT_OK(PtlCTFree(target));
    }
}

/* Equal thresholds fire in issue order; one update can release many. */
static void test_issue_order(pt_ctx_t *c)
{
    ptl_handle_ct_t trig, target;
    PT_OK(PtlCTAlloc(c->ni, &trig));
    PT_OK(PtlCTAlloc(c->ni, &target));
    for (ptl_size_t v = 1; v <= 50; v++) {
        ptl_ct_event_t set = {v * 10, 0};
        PT_OK(PtlTriggeredCTSet(target, set, trig, 5)); /* the last one issued wins */
    }
    PT_OK(PtlTriggeredCTSet(target, (ptl_ct_event_t){3, 0}, trig, 4)); /* lower threshold first */
    PT_OK(PtlCTInc(trig, (ptl_ct_event_t){4, 0}));
    CHECK_EQ(ct_of(target).success, 3);
    PT_OK(PtlCTInc(trig, one));
    CHECK_EQ(ct_of(target).success, 500);
    /* a threshold already reached runs at once, inside the call */
    PT_OK(PtlTriggeredCTInc(target, one, trig, 2));
    CHECK_EQ(ct_of(target).success, 501);
    /* failures count toward the threshold too (success + failure) */
    PT_OK(PtlTriggeredCTInc(target, one, trig, 6));
    PT_OK(PtlCTInc(trig, (ptl_ct_event_t){0, 1}));
    CHECK_EQ(ct_of(target).success, 502);
    PT_OK(PtlCTFree(trig));
    PT_OK(PtlCTFree(target));
}

/* A chain: A releases an increment of B, which releases one of C. */
static void test_chain_cancel_nospace(pt_ctx_t *c)
{
    ptl_handle_ct_t a, b, d;
    PT_OK(PtlCTAlloc(c->ni, &a));
    PT_OK(PtlCTAlloc(c->ni, &b));
    PT_OK(PtlCTAlloc(c->ni, &d));
    PT_OK(PtlTriggeredCTInc(d, one, b, 1));
    PT_OK(PtlTriggeredCTInc(b, one, a, 1));
    PT_OK(PtlCTInc(a, one));
    CHECK_EQ(ct_of(b).success, 1);
    CHECK_EQ(ct_of(d).success, 1);
    /* cancel: discarded, never run, counters untouched */
    PT_OK(PtlTriggeredCTInc(d, one, a, 5));
    PT_OK(PtlTriggeredCTInc(d, one, a, 6));
    PT_OK(PtlCTCancelTriggered(a));
    PT_OK(PtlCTInc(a, (ptl_ct_event_t){10, 0}));
    CHECK_EQ(ct_of(d).success, 1);
    CHECK_EQ(ct_of(a).success, 11);
    /* more than max_triggered_ops pending on one CT: PTL_NO_SPACE */
    ptl_ni_limits_t lim;
    ptl_handle_ni_t ni2;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, c->options, PTL_PID_ANY, NULL, &lim, &ni2));
    CHECK_EQ(ni2, c->ni);
    int n = 0, rc = PTL_OK;
    for (; n <= lim.max_triggered_ops && rc == PTL_OK; n++)
        rc = PtlTriggeredCTInc(d, one, b, 1000000);
    CHECK_EQ(rc, PTL_NO_SPACE);
    CHECK_EQ(n, lim.max_triggered_ops + 1);
    PT_OK(PtlNIFini(ni2));
    /* bad arguments */
    CHECK_EQ(PtlTriggeredCTInc(d, (ptl_ct_event_t){1, 1}, a, 1), PTL_ARG_INVALID);
    CHECK_EQ(PtlTriggeredCTInc(d, one, PTL_CT_NONE, 1), PTL_ARG_INVALID);
    PT_OK(PtlCTFree(b)); /* discards its pending ops */
    CHECK_EQ(PtlTriggeredCTInc(d, one, b, 1), PTL_ARG_INVALID);
    PT_OK(PtlCTFree(a));
    PT_OK(PtlCTFree(d));
}

/* Triggered get and atomic toward the peer, released by a local CTInc. */
static void test_trig_data(pt_ctx_t *c, int peer)
{
    uint64_t tbuf[8], lbuf[8];
    for (int i = 0; i < 8; i++) tbuf[i] = 100u * (unsigned)c->rank + (unsigned)i;
    ptl_handle_ct_t tct;
    PT_OK(PtlCTAlloc(c->ni, &tct));
    ptl_me_t me = {.start = tbuf, .length = sizeof tbuf, .ct_handle = tct, .uid = PTL_UID_ANY,
                   .options = PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_CT_COMM,
                   .match_id = {.rank = PTL_RANK_ANY}, .match_bits = 7};
    ptl_handle_me_t meh;
    PT_OK(PtlMEAppend(c->ni, PTI, &me, PTL_PRIORITY_LIST, NULL, &meh));
    ptl_handle_ct_t trig, done;
    PT_OK(PtlCTAlloc(c->ni, &trig));
    PT_OK(PtlCTAlloc(c->ni, &done));
    ptl_md_t md = {.start = lbuf, .length = sizeof lbuf, .eq_handle = PTL_EQ_NONE,
                   .ct_handle = done,
                   .options = PTL_MD_EVENT_CT_REPLY | PTL_MD_EVENT_CT_ACK};
    ptl_handle_md_t mdh;
    PT_OK(PtlMDBind(c->ni, &md, &mdh));
    memset(lbuf, 0, sizeof lbuf);
    pt_barrier(c);
    PT_OK(PtlTriggeredGet(mdh, 0, sizeof lbuf, pt_id(c, peer), PTI, 7, 0, NULL, trig, 1));
    CHECK_EQ(ct_of(done).success, 0); /* not yet released */
    PT_OK(PtlCTInc(trig, one));
    pt_ct_reach(done, 1);
    for (int i = 0; i < 8; i++) CHECK_EQ(lbuf[i], 100u * (unsigned)peer + (unsigned)i);
    /* triggered atomic: add 1..8 to the peer's values, acked by count */
    for (int i = 0; i < 8; i++) lbuf[i] = (uint64_t)i + 1;
    PT_OK(PtlTriggeredAtomic(mdh, 0, sizeof lbuf, PTL_CT_ACK_REQ, pt_id(c, peer), PTI, 7, 0,
                             NULL, 0, PTL_SUM, PTL_UINT64_T, trig, 2));
    PT_OK(PtlCTInc(trig, one));
    pt_ct_reach(done, 2);
    pt_ct_reach(tct, 2); /* the peer's get and atomic hit our entry */
    pt_barrier(c);
    for (int i = 0; i < 8; i++) CHECK_EQ(tbuf[i], 100u * (unsigned)c->rank + 2u * (unsigned)i + 1);
    PT_OK(PtlMEUnlink(meh));
    PT_OK(PtlMDRelease(mdh));
    PT_OK(PtlCTFree(tct));
    PT_OK(PtlCTFree(trig));
    PT_OK(PtlCTFree(done));
}

/* Triggered ME append: a put sent before the append fires is dropped; after
 * the trigger it lands.  Triggered unlink removes it again. */
static void test_trig_me(pt_ctx_t *c, int peer)
{
    uint64_t buf = 0, src = 0xfeedull + (unsigned)c->rank;
    ptl_handle_eq_t eq;
    PT_OK(PtlEQAlloc(c->ni, 64, &eq));
    ptl_handle_ct_t trig, acks;
    PT_OK(PtlCTAlloc(c->ni, &trig));
    PT_OK(PtlCTAlloc(c->ni, &acks));
    ptl_pt_index_t pti;
    PT_OK(PtlPTAlloc(c->ni, 0, eq, PTI + 1, &pti));
    ptl_me_t me = {.start = &buf, .length = sizeof buf, .ct_handle = PTL_CT_NONE,
                   .uid = PTL_UID_ANY, .options = PTL_ME_OP_PUT,
                   .match_id = {.rank = PTL_RANK_ANY}, .match_bits = 9};
    ptl_handle_me_t meh = PTL_INVALID_HANDLE;
    PT_OK(PtlTriggeredMEAppend(c->ni, pti, &me, PTL_PRIORITY_LIST, (void *)0x99, &meh, trig, 1));
    CHECK(meh == PTL_INVALID_HANDLE); /* written only when it fires */
    ptl_md_t md = {.start = &src, .length = sizeof src, .eq_handle = PTL_EQ_NONE,
                   .ct_handle = acks, .options = PTL_MD_EVENT_CT_ACK};
    ptl_handle_md_t mdh;
    PT_OK(PtlMDBind(c->ni, &md, &mdh));
    pt_barrier(c);
    PT_OK(PtlPut(mdh, 0, 8, PTL_CT_ACK_REQ, pt_id(c, peer), pti, 9, 0, NULL, 0));
    ptl_ct_event_t v;
    PT_OK(PtlCTWait(acks, 1, &v));
    CHECK_EQ(v.failure, 1); /* no entry yet: dropped */
    PT_OK(PtlCTSet(acks, (ptl_ct_event_t){0, 0})); /* CTWait returns early on failures */
    pt_barrier(c);
    PT_OK(PtlCTInc(trig, one)); /* fires the append */
    CHECK(meh != PTL_INVALID_HANDLE);
    ptl_event_t ev = pt_expect(eq, PTL_EVENT_LINK);
    CHECK(ev.user_ptr == (void *)0x99);
    pt_barrier(c);
    PT_OK(PtlPut(mdh, 0, 8, PTL_CT_ACK_REQ, pt_id(c, peer), pti, 9, 0, NULL, 0));
    PT_OK(PtlCTWait(acks, 1, &v));
    CHECK_EQ(v.success, 1);
    CHECK_EQ(v.failure, 0);
    pt_expect(eq, PTL_EVENT_PUT);
    CHECK_EQ(buf, 0xfeedull + (unsigned)peer);
    /* triggered unlink at threshold 2 */
    PT_OK(PtlTriggeredMEUnlink(meh, trig, 2));
    PT_OK(PtlCTInc(trig, one));
    CHECK_EQ(PtlMEUnlink(meh), PTL_ARG_INVALID); /* already gone */
    PT_OK(PtlMDRelease(mdh));
    PT_OK(PtlPTFree(c->ni, pti));
    PT_OK(PtlCTFree(trig));
    PT_OK(PtlCTFree(acks));
    PT_OK(PtlEQFree(eq));
}

int main(void)
{
    pt_ctx_t c;
    pt_init(&c, PTL_NI_MATCHING | PTL_NI_LOGICAL);
    ptl_pt_index_t pti;
    PT_OK(PtlPTAlloc(c.ni, 0, PTL_EQ_NONE, PTI, &pti));
    int peer = (c.rank + 1) % c.size;
    test_ref_order(&c);
    test_issue_order(&c);
    test_chain_cancel_nospace(&c);
    test_trig_data(&c, c.size > 1 ? (c.rank ^ 1) : 0);
    test_trig_me(&c, peer);
    PT_OK(PtlPTFree(c.ni, pti));
    pt_fini(&c);
    t_done("trig_ops_test");
    return 0;
}
