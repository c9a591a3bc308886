/* A chain of triggered puts around the ring, LAPS times, that must complete
 * while every rank's main thread sleeps in nanosleep without calling
 * Portals: only the progress threads move it.  Rank r holds, for each lap k,
 * a triggered put to rank r+1 released when its receive CT reaches k (rank
 * 0: k-1 after the first lap, started by one ordinary put).  Each put
 * writes its lap number into the next rank's buffer slot for that lap. */
#include "ptest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LAPS 25
#define PTI 5

/* The test watches memory that the engine writes from its progress thread,
 * as a program polling a flag written by a NIC would; it is deliberately not
 * a Portals call, so ThreadSanitizer is told not to instrument this read. */
__attribute__((no_sanitize("thread"))) static uint64_t peek(const uint64_t *p)
{
    return *(const volatile uint64_t *)p;
}

int main(void)
{
    pt_ctx_t c;
    pt_init(&c, PTL_NI_MATCHING | PTL_NI_LOGICAL);
    int next = (c.rank + 1) % c.size;
    ptl_handle_ct_t rct;
    PT_OK(PtlCTAlloc(c.ni, &rct));
    ptl_pt_index_t pti;
    PT_OK(PtlPTAlloc(c.ni, 0, PTL_EQ_NONE, PTI, &pti));
    CHECK_EQ(pti, PTI);
    uint64_t slots[LAPS + 1] = {0}, laps[LAPS + 1];
    for (int k = 0; k <= LAPS; k++) laps[k] = 1000u * (unsigned)c.rank + (unsigned)k;
    ptl_me_t me = {.start = slots, .length = sizeof slots, .ct_handle = rct, .uid = PTL_UID_ANY,
                   .options = PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM,
                   .match_id = {.rank = PTL_RANK_ANY}};
    ptl_handle_me_t meh;
    PT_OK(PtlMEAppend(c.ni, pti, &me, PTL_PRIORITY_LIST, NULL, &meh));
    ptl_md_t md = {.start = laps, .length = sizeof laps, .eq_handle = PTL_EQ_NONE,
                   .ct_handle = PTL_CT_NONE};
    ptl_handle_md_t mdh;
    PT_OK(PtlMDBind(c.ni, &md, &mdh));
    /* lap k leaves rank r once rank r has received lap k (rank 0: lap k-1) */
    for (int k = 1; k <= LAPS; k++) {
        ptl_size_t threshold = c.rank == 0 ? (ptl_size_t)(k - 1) : (ptl_size_t)k;
        if (c.rank == 0 && k == 1) continue; /* the ordinary put below starts lap 1 */
        PT_OK(PtlTriggeredPut(mdh, (ptl_size_t)k * 8, 8, PTL_NO_ACK_REQ, pt_id(&c, next), pti, 0,
                              (ptl_size_t)k * 8, NULL, 0, rct, threshold));
    }
    pt_barrier(&c);
    if (c.rank == 0) PT_OK(PtlPut(mdh, 8, 8, PTL_NO_ACK_REQ, pt_id(&c, next), pti, 0, 8, NULL, 0));

    /* Sleep without touching Portals: the chain runs on progress threads. */
    struct timespec nap = {0, 50 * 1000 * 1000};
    int naps = 0;
    for (; naps < 100; naps++) {
        nanosleep(&nap, NULL);
        /* read the counters straight from memory: the last lap's slot is set
         * (the put that wrote it also counted) */
        if (peek(&slots[LAPS]) != 0) break;
    }
    ptl_ct_event_t v;
    PT_OK(PtlCTGet(rct, &v));
    int prev = (c.rank + c.size - 1) % c.size;
    printf("rank %d: %d laps received after %d naps of 50 ms (CT %llu)\n", c.rank, LAPS, naps + 1,
           (unsigned long long)v.success);
    CHECK_EQ(v.success, LAPS);
    CHECK_EQ(v.failure, 0);
    for (int k = 1; k <= LAPS; k++)
        CHECK_MSG(slots[k] == 1000u * (unsigned)prev + (unsigned)k, "lap %d slot %llu", k,
                  (unsigned long long)slots[k]);
    pt_barrier(&c);
    PT_OK(PtlMEUnlink(meh));
    PT_OK(PtlMDRelease(mdh));
    PT_OK(PtlCTFree(rct));
    PT_OK(PtlPTFree(c.ni, pti));
    pt_fini(&c);
    t_done("trig_chain_test");
    return 0;
}
