/* Helpers for multi-rank Portals tests: bring up Portals plus one NI the way
 * a client does (PtlInit, PtlNIInit, exchange physical ids over PMI, install
 * the logical map), a barrier, and event/CT waiting with checks. */
#ifndef SL_PTEST_H
#define SL_PTEST_H

#include "boot/boot.h"
#include "portals4.h"
#include "test.h"

typedef struct pt_ctx {
    boot_t *boot;
    int rank, size;
    ptl_handle_ni_t ni;
    unsigned int options;
    ptl_process_t *phys;   /* every rank's physical id */
} pt_ctx_t;

#define PT_OK(expr)                                                                         \
    do {                                                                                    \
        int rc_ = (expr);                                                                   \
        if (rc_ != PTL_OK) t_fail(__FILE__, __LINE__, #expr, "returned %d", rc_);           \
        t_pass_count_inc();                                                                 \
    } while (0)

void pt_init(pt_ctx_t *c, unsigned int ni_options);
void pt_fini(pt_ctx_t *c);
void pt_barrier(pt_ctx_t *c);
/* How this NI names rank r (its rank, or its physical id). */
ptl_process_t pt_id(const pt_ctx_t *c, int r);
/* Wait for the next event on eq and check its kind. */
ptl_event_t pt_expect(ptl_handle_eq_t eq, ptl_event_kind_t kind);
/* Seconds on the monotonic clock (deadlines of bounded waits). */
double pt_now_s(void);
/* Wait until ct's success reaches n, with no failure. */
void pt_ct_reach(ptl_handle_ct_t ct, ptl_size_t n);

#endif
