#include "ptest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void pt_init(pt_ctx_t *c, unsigned int ni_options)
{
    memset(c, 0, sizeof *c);
    PT_OK(PtlInit());
    CHECK_OK(boot_init(&c->boot));
    const boot_info_t *bi = boot_get_info(c->boot);
    c->rank = bi->rank;
    c->size = bi->size;
    c->options = ni_options;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, ni_options, PTL_PID_ANY, NULL, NULL, &c->ni));
    ptl_process_t me;
    PT_OK(PtlGetPhysId(c->ni, &me));
    char key[32], val[64];
    snprintf(key, sizeof key, "ptest-id-%d", c->rank);
    snprintf(val, sizeof val, "%u.%u", me.phys.nid, me.phys.pid);
    CHECK_OK(boot_put(c->boot, key, val));
    CHECK_OK(boot_fence(c->boot));
    c->phys = calloc((size_t)c->size, sizeof *c->phys);
    CHECK(c->phys != NULL);
    for (int r = 0; r < c->size; r++) {
        snprintf(key, sizeof key, "ptest-id-%d", r);
        CHECK_OK(boot_get(c->boot, key, val, sizeof val));
        CHECK(sscanf(val, "%u.%u", &c->phys[r].phys.nid, &c->phys[r].phys.pid) == 2);
    }
    if (ni_options & PTL_NI_LOGICAL) PT_OK(PtlSetMap(c->ni, (ptl_size_t)c->size, c->phys));
}

/* The PMI barrier orders the processes; the engine calls around it order
 * this thread with the engine's progress thread (its lock), as a program's
 * own Portals calls around its barriers do.  Without them a test that reads
 * a buffer right after the barrier is correct but invisible to
 * ThreadSanitizer, which cannot see synchronisation through another
 * process. */
void pt_barrier(pt_ctx_t *c)
{
    ptl_sr_value_t v;
    PT_OK(PtlNIStatus(c->ni, PTL_SR_DROP_COUNT, &v));
    CHECK_OK(boot_fence(c->boot));
    PT_OK(PtlNIStatus(c->ni, PTL_SR_DROP_COUNT, &v));
}

void pt_fini(pt_ctx_t *c)
{
    pt_barrier(c);
    PT_OK(PtlNIFini(c->ni));
    CHECK_OK(boot_fini(c->boot));
    PtlFini();
    free(c->phys);
}

ptl_process_t pt_id(const pt_ctx_t *c, int r)
{
    if (c->options & PTL_NI_LOGICAL) {
        ptl_process_t p = {.rank = (ptl_rank_t)r};
        return p;
    }
    return c->phys[r];
}

ptl_event_t pt_expect(ptl_handle_eq_t eq, ptl_event_kind_t kind)
{
    ptl_event_t ev;
    int rc = PtlEQWait(eq, &ev);
    CHECK_MSG(rc == PTL_OK, "PtlEQWait returned %d", rc);
    CHECK_MSG(ev.type == kind, "event %d, expected %d (ni_fail %d)", ev.type, kind,
              ev.ni_fail_type);
    return ev;
}

void pt_ct_reach(ptl_handle_ct_t ct, ptl_size_t n)
{
    ptl_ct_event_t v;
    PT_OK(PtlCTWait(ct, n, &v));
    CHECK_MSG(v.failure == 0 && v.success >= n, "CT {%llu, %llu}, waited for %llu",
              (unsigned long long)v.success, (unsigned long long)v.failure,
              (unsigned long long)n);
}

double pt_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
