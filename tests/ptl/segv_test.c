/* An entry over all of memory (start NULL, length PTL_SIZE_MAX, as
 * OpenSHMEM binds it): remote offsets are addresses.  Valid addresses work;
 * an unmapped one gives PTL_NI_SEGV in the initiator's ack or reply, for
 * put, get and atomic, and the target survives to serve the next request. */
#include "ptest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTI 6

int main(void)
{
    pt_ctx_t c;
    pt_init(&c, PTL_NI_MATCHING | PTL_NI_LOGICAL);
    int peer = c.rank ^ 1;
    CHECK(peer < c.size);
    uint64_t target[4] = {1, 2, 3, 4};
    ptl_pt_index_t pti;
    PT_OK(PtlPTAlloc(c.ni, 0, PTL_EQ_NONE, PTI, &pti));
    ptl_me_t me = {.start = NULL, .length = PTL_SIZE_MAX, .ct_handle = PTL_CT_NONE,
                   .uid = PTL_UID_ANY, .options = PTL_ME_OP_PUT | PTL_ME_OP_GET,
                   .match_id = {.rank = PTL_RANK_ANY}};
    ptl_handle_me_t meh;
    PT_OK(PtlMEAppend(c.ni, pti, &me, PTL_PRIORITY_LIST, NULL, &meh));
    /* publish where our target array is */
    char key[32], val[32];
    snprintf(key, sizeof key, "segv-addr-%d", c.rank);
    snprintf(val, sizeof val, "%llx", (unsigned long long)(uintptr_t)target);
    CHECK_OK(boot_put(c.boot, key, val));
    pt_barrier(&c);
    snprintf(key, sizeof key, "segv-addr-%d", peer);
    CHECK_OK(boot_get(c.boot, key, val, sizeof val));
    ptl_size_t addr = strtoull(val, NULL, 16);

    ptl_handle_eq_t eq;
    PT_OK(PtlEQAlloc(c.ni, 16, &eq));
    uint64_t src[4] = {10, 20, 30, 40}, back[4] = {0};
    ptl_md_t md = {.start = src, .length = sizeof src, .eq_handle = eq, .ct_handle = PTL_CT_NONE};
    ptl_md_t gmd = {.start = back, .length = sizeof back, .eq_handle = eq,
                    .ct_handle = PTL_CT_NONE};
    ptl_handle_md_t mdh, gmdh;
    PT_OK(PtlMDBind(c.ni, &md, &mdh));
    PT_OK(PtlMDBind(c.ni, &gmd, &gmdh));
    ptl_process_t p = pt_id(&c, peer);
    const ptl_size_t bad[] = {16, ~(ptl_size_t)0 - 8}; /* page 0; the top of the address space */
    for (size_t i = 0; i < 2; i++) {
        PT_OK(PtlPut(mdh, 0, 16, PTL_ACK_REQ, p, pti, 0, bad[i], NULL, 0));
        pt_expect(eq, PTL_EVENT_SEND);
        ptl_event_t a = pt_expect(eq, PTL_EVENT_ACK);
        CHECK_EQ(a.ni_fail_type, PTL_NI_SEGV);
        PT_OK(PtlGet(gmdh, 0, 16, p, pti, 0, bad[i], NULL));
        ptl_event_t r = pt_expect(eq, PTL_EVENT_REPLY);
        CHECK_EQ(r.ni_fail_type, PTL_NI_SEGV);
        PT_OK(PtlAtomic(mdh, 0, 8, PTL_ACK_REQ, p, pti, 0, bad[i], NULL, 0, PTL_SUM,
                        PTL_UINT64_T));
        pt_expect(eq, PTL_EVENT_SEND);
        a = pt_expect(eq, PTL_EVENT_ACK);
        CHECK_EQ(a.ni_fail_type, PTL_NI_SEGV);
    }
    /* the target is alive and the same entry works at valid addresses */
    PT_OK(PtlPut(mdh, 0, 16, PTL_ACK_REQ, p, pti, 0, addr, NULL, 0));
    pt_expect(eq, PTL_EVENT_SEND);
    CHECK_EQ(pt_expect(eq, PTL_EVENT_ACK).ni_fail_type, PTL_NI_OK);
    PT_OK(PtlAtomic(mdh, 16, 8, PTL_ACK_REQ, p, pti, 0, addr + 16, NULL, 0, PTL_SUM,
                    PTL_UINT64_T));
    pt_expect(eq, PTL_EVENT_SEND);
    CHECK_EQ(pt_expect(eq, PTL_EVENT_ACK).ni_fail_type, PTL_NI_OK);
    PT_OK(PtlGet(gmdh, 0, sizeof back, p, pti, 0, addr, NULL));
    CHECK_EQ(pt_expect(eq, PTL_EVENT_REPLY).ni_fail_type, PTL_NI_OK);
    CHECK_EQ(back[0], 10);
    CHECK_EQ(back[1], 20);
    CHECK_EQ(back[2], 3 + 30);
    CHECK_EQ(back[3], 4);
    pt_barrier(&c);
    PT_OK(PtlMEUnlink(meh));
    PT_OK(PtlMDRelease(mdh));
    PT_OK(PtlMDRelease(gmdh));
    PT_OK(PtlEQFree(eq));
    PT_OK(PtlPTFree(c.ni, pti));
    pt_fini(&c);
    t_done("segv_test");
    return 0;
}
