/* Atomics between ranks: every rank adds into rank 0's counters (SUM over
 * int64 and double), takes unique tickets with FetchAtomic, and races for a
 * lock word with CSWAP; SWAP of several elements and MSWAP; argument errors. */
#include "ptest.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTI 4
#define ROUNDS 200

int main(void)
{
    pt_ctx_t c;
    pt_init(&c, PTL_NI_MATCHING | PTL_NI_LOGICAL);
    struct {
        int64_t sum[4];
        double dsum;
        uint64_t ticket, lock, words[3], mask;
    } tgt;
    memset(&tgt, 0, sizeof tgt);
    tgt.mask = 0xff00ff00ff00ff00ull;
    ptl_pt_index_t pti;
    PT_OK(PtlPTAlloc(c.ni, 0, PTL_EQ_NONE, PTI, &pti));
    ptl_me_t me = {.start = &tgt, .length = sizeof tgt, .ct_handle = PTL_CT_NONE,
                   .uid = PTL_UID_ANY, .options = PTL_ME_OP_PUT | PTL_ME_OP_GET,
                   .match_id = {.rank = PTL_RANK_ANY}};
    ptl_handle_me_t meh;
    PT_OK(PtlMEAppend(c.ni, pti, &me, PTL_PRIORITY_LIST, NULL, &meh));
    ptl_handle_ct_t ct;
    PT_OK(PtlCTAlloc(c.ni, &ct));
    struct {
        int64_t add[4];
        double dadd;
        uint64_t one, got, mine, swapin[3], swapout[3], msw;
    } loc = {.add = {1, -2, 3, (int64_t)1 << 40}, .dadd = 0.5, .one = 1};
    ptl_md_t md = {.start = &loc, .length = sizeof loc, .eq_handle = PTL_EQ_NONE,
                   .ct_handle = ct,
                   .options = PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_REPLY};
    ptl_handle_md_t mdh;
    PT_OK(PtlMDBind(c.ni, &md, &mdh));
    pt_barrier(&c);
    ptl_process_t zero = pt_id(&c, 0);
    size_t o_sum = offsetof(__typeof__(tgt), sum), o_d = offsetof(__typeof__(tgt), dsum);
    size_t o_t = offsetof(__typeof__(tgt), ticket), o_l = offsetof(__typeof__(tgt), lock);
    size_t l_one = offsetof(__typeof__(loc), one), l_got = offsetof(__typeof__(loc), got);
    ptl_size_t expect = 0;
    uint64_t *tickets = calloc(ROUNDS, sizeof *tickets);
    for (int i = 0; i < ROUNDS; i++) {
        PT_OK(PtlAtomic(mdh, 0, sizeof loc.add, PTL_CT_ACK_REQ, zero, pti, 0, o_sum, NULL, 0,
                        PTL_SUM, PTL_INT64_T));
        PT_OK(PtlAtomic(mdh, offsetof(__typeof__(loc), dadd), 8, PTL_CT_ACK_REQ, zero, pti, 0,
                        o_d, NULL, 0, PTL_SUM, PTL_DOUBLE));
        PT_OK(PtlFetchAtomic(mdh, l_got, mdh, l_one, 8, zero, pti, 0, o_t, NULL, 0, PTL_SUM,
                             PTL_UINT64_T));
        expect += 3;
        pt_ct_reach(ct, expect);
        tickets[i] = loc.got;
    }
    /* tickets are unique across ranks and increasing here */
    for (int i = 1; i < ROUNDS; i++) CHECK(tickets[i] > tickets[i - 1]);
    /* CSWAP: whoever swaps 0 -> rank+1 first wins; exactly one rank does */
    loc.mine = (uint64_t)c.rank + 1;
    uint64_t zero_operand = 0;
    PT_OK(PtlSwap(mdh, l_got, mdh, offsetof(__typeof__(loc), mine), 8, zero, pti, 0, o_l, NULL, 0,
                  &zero_operand, PTL_CSWAP, PTL_UINT64_T));
    expect += 1;
    pt_ct_reach(ct, expect);
    uint64_t won = loc.got == 0;
    pt_barrier(&c);
    PT_OK(PtlAtomicSync()); /* host reads of memory changed by Portals atomics */
    if (c.rank == 0) {
        int64_t r = (int64_t)ROUNDS * c.size;
        CHECK_EQ(tgt.sum[0], r);
        CHECK_EQ(tgt.sum[1], -2 * r);
        CHECK_EQ(tgt.sum[2], 3 * r);
        CHECK_EQ(tgt.sum[3], r << 40);
        CHECK(tgt.dsum == 0.5 * (double)r);
        CHECK_EQ(tgt.ticket, (uint64_t)r);
        CHECK(tgt.lock >= 1 && tgt.lock <= (uint64_t)c.size);
    }
    /* tickets: each rank's are increasing; all ranks' together sum to
     * 0+1+...+(R-1) with R handed out, as only unique tickets can */
    unsigned long long tsum = 0;
    for (int i = 0; i < ROUNDS; i++) tsum += tickets[i];
    char key[32], val[64];
    snprintf(key, sizeof key, "won-%d", c.rank);
    snprintf(val, sizeof val, "%llu:%llu", (unsigned long long)won, tsum);
    CHECK_OK(boot_put(c.boot, key, val));
    pt_barrier(&c);
    int winners = 0;
    unsigned long long all = 0, total = (unsigned long long)ROUNDS * (unsigned)c.size;
    for (int r = 0; r < c.size; r++) {
        unsigned long long w, ts;
        snprintf(key, sizeof key, "won-%d", r);
        CHECK_OK(boot_get(c.boot, key, val, sizeof val));
        CHECK(sscanf(val, "%llu:%llu", &w, &ts) == 2);
        winners += (int)w;
        all += ts;
    }
    CHECK_EQ(winners, 1);
    CHECK_EQ(all, total * (total - 1) / 2);
    /* SWAP of three elements and MSWAP, on rank 0 by rank 0 only */
    if (c.rank == 0) {
        uint64_t w[3] = {7, 8, 9};
        memcpy(loc.swapin, w, sizeof w);
        PT_OK(PtlSwap(mdh, offsetof(__typeof__(loc), swapout), mdh,
                      offsetof(__typeof__(loc), swapin), 24, zero, pti, 0,
                      offsetof(__typeof__(tgt), words), NULL, 0, NULL, PTL_SWAP, PTL_UINT64_T));
        loc.msw = 0x1234567812345678ull;
        uint64_t mask = 0x00000000ffffffffull;
        PT_OK(PtlSwap(mdh, l_got, mdh, offsetof(__typeof__(loc), msw), 8, zero, pti, 0,
                      offsetof(__typeof__(tgt), mask), NULL, 0, &mask, PTL_MSWAP, PTL_UINT64_T));
        expect += 2;
        pt_ct_reach(ct, expect);
        for (int i = 0; i < 3; i++) CHECK_EQ(loc.swapout[i], 0);
        for (int i = 0; i < 3; i++) CHECK_EQ(tgt.words[i], w[i]);
        CHECK_EQ(loc.got, 0xff00ff00ff00ff00ull);
        CHECK_EQ(tgt.mask, 0xff00ff0012345678ull);
        /* argument errors */
        CHECK_EQ(PtlAtomic(mdh, 0, 8, PTL_NO_ACK_REQ, zero, pti, 0, 0, NULL, 0, PTL_SWAP,
                           PTL_INT64_T), PTL_ARG_INVALID);
        CHECK_EQ(PtlAtomic(mdh, 0, 8, PTL_NO_ACK_REQ, zero, pti, 0, 0, NULL, 0, PTL_BAND,
                           PTL_DOUBLE), PTL_ARG_INVALID);
        CHECK_EQ(PtlAtomic(mdh, 0, 7, PTL_NO_ACK_REQ, zero, pti, 0, 0, NULL, 0, PTL_SUM,
                           PTL_INT64_T), PTL_ARG_INVALID);
        CHECK_EQ(PtlSwap(mdh, 0, mdh, 8, 16, zero, pti, 0, 0, NULL, 0, &mask, PTL_CSWAP,
                         PTL_UINT64_T), PTL_ARG_INVALID);
        CHECK_EQ(PtlAtomic(mdh, 0, 8, PTL_NO_ACK_REQ, zero, pti, 0, 0, NULL, 0, PTL_SUM,
                           (ptl_datatype_t)PTL_DATATYPE_LAST), PTL_ARG_INVALID);
    }
    free(tickets);
    pt_barrier(&c);
    PT_OK(PtlMEUnlink(meh));
    PT_OK(PtlMDRelease(mdh));
    PT_OK(PtlCTFree(ct));
    PT_OK(PtlPTFree(c.ni, pti));
    pt_fini(&c);
    t_done("atomic_test");
    return 0;
}
