/* Portal table entries: allocation (PTL_PT_ANY searches upward from the last
 * index handed out, so the first one on a fresh NI is 0), free, and
 * enable/disable (manual, or by flow control in target.c). */
#include "ptl/ptl_int.h"

int PtlPTAlloc(ptl_handle_ni_t ni_handle, unsigned int options, ptl_handle_eq_t eq_handle,
               ptl_pt_index_t pt_index_req, ptl_pt_index_t *pt_index)
{
    PTL_CHECK_INIT();
    if (!pt_index || (options & ~(unsigned)PTL_PT_ALLOC_OPTIONS_MASK)) return PTL_ARG_INVALID;
    PTL_LOCK();
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    ptl_eq_t *eq = eq_handle == PTL_EQ_NONE ? NULL : ptl_eq_get(eq_handle);
    int rc = PTL_OK;
    ptl_pt_index_t idx = 0;
    if (!ni || (eq_handle != PTL_EQ_NONE && (!eq || eq->ni != ni))) {
        rc = PTL_ARG_INVALID;
    } else if ((options & PTL_PT_FLOWCTRL) && !eq) {
        rc = PTL_PT_EQ_NEEDED;
    } else if (pt_index_req == PTL_PT_ANY) {
        ptl_pt_index_t n = (ptl_pt_index_t)ni->limits.max_pt_index + 1;
        rc = PTL_PT_FULL;
        for (ptl_pt_index_t k = 1; k <= n; k++) {
            ptl_pt_index_t i = (ni->last_pt + k) % n;
            if (!ni->pts[i].allocated) {
                idx = i;
                rc = PTL_OK;
                break;
            }
        }
    } else if (pt_index_req > (ptl_pt_index_t)ni->limits.max_pt_index) {
        rc = PTL_ARG_INVALID;
    } else if (ni->pts[pt_index_req].allocated) {
        rc = PTL_PT_IN_USE;
    } else {
        idx = pt_index_req;
    }
    if (rc == PTL_OK) {
        ptl_pt_t *pt = &ni->pts[idx];
        *pt = (ptl_pt_t){.allocated = true, .enabled = !(options & PTL_PT_ALLOC_DISABLED),
                         .options = options, .eq = eq};
        sl_list_init(&pt->prio);
        sl_list_init(&pt->over);
        sl_list_init(&pt->unexpected);
        if (pt_index_req == PTL_PT_ANY) ni->last_pt = idx;
        *pt_index = idx;
    }
    PTL_UNLOCK();
    return rc;
}

int PtlPTFree(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
    PTL_CHECK_INIT();
    PTL_LOCK();
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    ptl_pt_t *pt = ptl_pt_get(ni, pt_index);
    int rc = PTL_OK;
    /* a copy in flight took its use-once entry off the list already, and
     * posts its events when it lands: let it land on this PT */
    if (pt) ptl_target_land(ni, pt);
    if (!pt) rc = PTL_ARG_INVALID;
    else if (pt->n_entries[0] || pt->n_entries[1]) rc = PTL_PT_IN_USE;
    else {
        ptl_pt_release_entries(ni, pt); /* the unexpected headers */
        pt->allocated = false;
    }
    PTL_UNLOCK();
    return rc;
}

static int pt_set(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, bool on)
{
    PTL_CHECK_INIT();
    PTL_LOCK();
    ptl_pt_t *pt = ptl_pt_get(ptl_ni_get(ni_handle), pt_index);
    if (pt && !on) ptl_target_land(NULL, pt);
    if (pt) {
        pt->enabled = on;
        if (on) pt->disabled_by_fc = false;
    }
    PTL_UNLOCK();
    return pt ? PTL_OK : PTL_ARG_INVALID;
}

int PtlPTEnable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
    return pt_set(ni_handle, pt_index, true);
}

int PtlPTDisable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
    /* requests are processed to completion under the engine lock, so once
     * we hold it nothing is half-done on this entry, except bulk copies in
     * flight from the deferred queue: pt_set lands them first */
    return pt_set(ni_handle, pt_index, false);
}
