/* Put and get between ranks in a ring, inline and bulk sizes, with events,
 * acks, counts, truncation, a miss (PTL_NI_DROPPED) and a put to oneself.
 * usage: put_get_test [logical|physical] */
#include "ptest.h"

#include <stdlib.h>
#include <string.h>

#define BUF (256 * 1024)
#define MB 0x4242ull

int main(int argc, char **argv)
{
    bool physical = argc > 1 && !strcmp(argv[1], "physical");
    pt_ctx_t c;
    pt_init(&c, PTL_NI_MATCHING | (physical ? PTL_NI_PHYSICAL : PTL_NI_LOGICAL));
    int right = (c.rank + 1) % c.size, left = (c.rank + c.size - 1) % c.size;

    ptl_handle_eq_t teq, ieq;
    ptl_handle_ct_t tct;
    PT_OK(PtlEQAlloc(c.ni, 256, &teq));
    PT_OK(PtlEQAlloc(c.ni, 256, &ieq));
    PT_OK(PtlCTAlloc(c.ni, &tct));
    ptl_pt_index_t pti;
    PT_OK(PtlPTAlloc(c.ni, 0, teq, PTL_PT_ANY, &pti));
    CHECK_EQ(pti, 0); /* the first PTL_PT_ANY on a fresh NI */

    char *rbuf = calloc(1, BUF), *sbuf = malloc(BUF), *gbuf = calloc(1, BUF);
    CHECK(rbuf && sbuf && gbuf);
    ptl_me_t me = {.start = rbuf, .length = BUF, .ct_handle = tct, .uid = PTL_UID_ANY,
                   .options = PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_CT_COMM,
                   .match_id = {.rank = PTL_RANK_ANY}, .match_bits = MB, .ignore_bits = 0xff};
    if (physical) me.match_id.phys.nid = PTL_NID_ANY, me.match_id.phys.pid = PTL_PID_ANY;
    ptl_handle_me_t meh;
    PT_OK(PtlMEAppend(c.ni, pti, &me, PTL_PRIORITY_LIST, (void *)0x1234, &meh));
    pt_expect(teq, PTL_EVENT_LINK);

    ptl_md_t md = {.start = sbuf, .length = BUF, .options = 0, .eq_handle = ieq,
                   .ct_handle = PTL_CT_NONE};
    ptl_handle_md_t mdh;
    PT_OK(PtlMDBind(c.ni, &md, &mdh));
    ptl_md_t gmd = {.start = gbuf, .length = BUF, .eq_handle = ieq, .ct_handle = PTL_CT_NONE};
    ptl_handle_md_t gmdh;
    PT_OK(PtlMDBind(c.ni, &gmd, &gmdh));
    pt_barrier(&c);

    static const size_t sizes[] = {0, 1, 8, 100, 4096, 8192, 8193, 65536, 200003};
    const size_t n = sizeof sizes / sizeof sizes[0];
    for (size_t i = 0; i < n; i++) {
        size_t len = sizes[i], roff = i * 7;
        t_fill(sbuf + 3, len, 1000 * (uint64_t)c.rank + i);
        /* low byte of the match bits is ignored by the ME */
        PT_OK(PtlPut(mdh, 3, len, PTL_ACK_REQ, pt_id(&c, right), pti, MB | 0x17, roff,
                     (void *)(uintptr_t)(i + 1), 0xabc0 + i));
        ptl_event_t s = pt_expect(ieq, PTL_EVENT_SEND);
        CHECK(s.user_ptr == (void *)(uintptr_t)(i + 1) && s.ni_fail_type == PTL_NI_OK);
        ptl_event_t a = pt_expect(ieq, PTL_EVENT_ACK);
        CHECK(a.user_ptr == (void *)(uintptr_t)(i + 1));
        CHECK_EQ(a.ni_fail_type, PTL_NI_OK);
        CHECK_EQ(a.mlength, len);
        CHECK_EQ(a.remote_offset, roff);
        CHECK_EQ(a.ptl_list, PTL_PRIORITY_LIST);
        ptl_event_t p = pt_expect(teq, PTL_EVENT_PUT);
        CHECK(p.user_ptr == (void *)0x1234);
        CHECK_EQ(p.rlength, len);
        CHECK_EQ(p.mlength, len);
        CHECK_EQ(p.remote_offset, roff);
        CHECK_EQ(p.match_bits, MB | 0x17);
        CHECK_EQ(p.hdr_data, 0xabc0 + i);
        CHECK(p.start == rbuf + roff);
        if (physical) CHECK(p.initiator.phys.pid == c.phys[left].phys.pid);
        else CHECK_EQ(p.initiator.rank, (unsigned)left);
        CHECK_EQ(p.ptl_list, PTL_PRIORITY_LIST);
        size_t bad = t_verify(rbuf + roff, len, 1000 * (uint64_t)left + i);
        CHECK_MSG(bad == (size_t)-1, "put of %zu B: byte %zu wrong", len, bad);
        pt_ct_reach(tct, i + 1);
        pt_barrier(&c);
        /* get it back from the right neighbour's buffer */
        memset(gbuf, 0, len + 16);
        PT_OK(PtlGet(gmdh, 5, len, pt_id(&c, right), pti, MB, roff, (void *)0x77));
        ptl_event_t r = pt_expect(ieq, PTL_EVENT_REPLY);
        CHECK_EQ(r.ni_fail_type, PTL_NI_OK);
        CHECK_EQ(r.mlength, len);
        bad = t_verify(gbuf + 5, len, 1000 * (uint64_t)c.rank + i);
        CHECK_MSG(bad == (size_t)-1, "get of %zu B: byte %zu wrong", len, bad);
        ptl_event_t g = pt_expect(teq, PTL_EVENT_GET);
        CHECK_EQ(g.mlength, len);
        pt_barrier(&c);
    }
    /* truncation: 100 bytes at offset BUF-40 keep only 40 */
    PT_OK(PtlPut(mdh, 0, 100, PTL_ACK_REQ, pt_id(&c, right), pti, MB, BUF - 40, NULL, 0));
    pt_expect(ieq, PTL_EVENT_SEND);
    ptl_event_t a = pt_expect(ieq, PTL_EVENT_ACK);
    CHECK_EQ(a.mlength, 40);
    ptl_event_t p = pt_expect(teq, PTL_EVENT_PUT);
    CHECK_EQ(p.rlength, 100);
    CHECK_EQ(p.mlength, 40);
    /* no matching entry: dropped, reported in the ack */
    PT_OK(PtlPut(mdh, 0, 8, PTL_ACK_REQ, pt_id(&c, right), pti, 0x9999, 0, NULL, 0));
    pt_expect(ieq, PTL_EVENT_SEND);
    a = pt_expect(ieq, PTL_EVENT_ACK);
    CHECK_EQ(a.ni_fail_type, PTL_NI_DROPPED);
    pt_barrier(&c);
    ptl_sr_value_t drops;
    PT_OK(PtlNIStatus(c.ni, PTL_SR_DROP_COUNT, &drops));
    CHECK_EQ(drops, 1);
    /* put to oneself */
    t_fill(sbuf, 64, 99);
    PT_OK(PtlPut(mdh, 0, 64, PTL_ACK_REQ, pt_id(&c, c.rank), pti, MB, 0, NULL, 0));
    pt_expect(ieq, PTL_EVENT_SEND);
    pt_expect(ieq, PTL_EVENT_ACK);
    pt_expect(teq, PTL_EVENT_PUT);
    CHECK(t_verify(rbuf, 64, 99) == (size_t)-1);
    pt_barrier(&c);

    PT_OK(PtlMEUnlink(meh));
    CHECK_EQ(PtlMEUnlink(meh), PTL_ARG_INVALID); /* stale handle */
    PT_OK(PtlMDRelease(mdh));
    PT_OK(PtlMDRelease(gmdh));
    PT_OK(PtlPTFree(c.ni, pti));
    PT_OK(PtlCTFree(tct));
    PT_OK(PtlEQFree(teq));
    PT_OK(PtlEQFree(ieq));
    pt_fini(&c);
    free(rbuf);
    free(sbuf);
    free(gbuf);
    t_done("put_get_test");
    return 0;
}
