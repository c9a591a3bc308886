/* Event queues: a ring of full events.  Without flow control a full queue
 * overwrites its oldest event and the next reader gets PTL_EQ_DROPPED; a
 * flow-controlled portal table is disabled before that happens (target.c). */
#include "ptl/ptl_int.h"

#include <stdlib.h>
#include <string.h>

void ptl_eq_post(ptl_eq_t *eq, const ptl_event_t *ev)
{
    if (!eq) return;
    if (eq->n == eq->count) { /* full: lose the oldest */
        eq->head = (eq->head + 1) % eq->count;
        eq->n--;
        eq->dropped = true;
    }
    eq->ring[(eq->head + eq->n) % eq->count] = *ev;
    eq->n++;
    ptl_note_change();
}

int PtlEQAlloc(ptl_handle_ni_t ni_handle, ptl_size_t count, ptl_handle_eq_t *eq_handle)
{
    PTL_CHECK_INIT();
    if (!eq_handle || count == 0 || count > ((ptl_size_t)1 << 26)) return PTL_ARG_INVALID;
    PTL_LOCK();
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    int rc = PTL_OK;
    ptl_eq_t *eq = NULL;
    if (!ni) {
        rc = PTL_ARG_INVALID;
    } else if (ni->n_eq >= ni->limits.max_eqs) {
        rc = PTL_NO_SPACE;
    } else {
        /* one hidden slot per PT, so a PT_DISABLED event always fits (§10) */
        ptl_size_t cap = count + (ptl_size_t)ni->limits.max_pt_index + 1;
        eq = calloc(1, sizeof *eq);
        if (eq) eq->ring = calloc(cap, sizeof *eq->ring);
        if (eq && eq->ring) {
            eq->ni = ni;
            eq->count = cap;
            eq->limit = count;
            eq->handle = ptl_handle_new(HT_EQ, eq);
        }
        if (!eq || !eq->ring || eq->handle == PTL_INVALID_HANDLE) {
            if (eq) free(eq->ring);
            free(eq);
            rc = PTL_NO_SPACE;
        } else {
            ni->n_eq++;
            *eq_handle = eq->handle;
        }
    }
    PTL_UNLOCK();
    return rc;
}

/* The application should not free an EQ that a PT or MD still names, but if
 * it does, they lose their EQ (events are no longer posted) instead of
 * writing into freed memory. */
static void eq_detach(ptl_eq_t *eq)
{
    ptl_ni_t *ni = eq->ni;
    for (int i = 0; i <= ni->limits.max_pt_index; i++)
        if (ni->pts[i].eq == eq) ni->pts[i].eq = NULL;
    const ptl_table_t *t = &ptl_g.tables[HT_MD];
    for (uint32_t i = 0; i < t->cap; i++) {
        ptl_md_obj_t *m = t->obj[i];
        if (m && m->eq == eq) m->eq = NULL;
    }
}

void ptl_eq_destroy(ptl_eq_t *eq)
{
    eq_detach(eq);
    eq->ni->n_eq--;
    ptl_handle_free(eq->handle);
    free(eq->ring);
    free(eq);
    ptl_note_change(); /* waiters on it notice (PTL_INTERRUPTED) */
}

int PtlEQFree(ptl_handle_eq_t eq_handle)
{
    PTL_CHECK_INIT();
    PTL_LOCK();
    ptl_eq_t *eq = ptl_eq_get(eq_handle);
    if (eq) ptl_eq_destroy(eq);
    PTL_UNLOCK();
    return eq ? PTL_OK : PTL_ARG_INVALID;
}

static int eq_pop(ptl_eq_t *eq, ptl_event_t *event)
{
    if (eq->n == 0) return PTL_EQ_EMPTY;
    if (event) *event = eq->ring[eq->head];
    eq->head = (eq->head + 1) % eq->count;
    eq->n--;
    int rc = eq->dropped ? PTL_EQ_DROPPED : PTL_OK;
    eq->dropped = false;
    return rc;
}

int PtlEQGet(ptl_handle_eq_t eq_handle, ptl_event_t *event)
{
    PTL_CHECK_INIT();
    if (!event) return PTL_ARG_INVALID;
    PTL_LOCK();
    ptl_eq_t *eq = ptl_eq_get(eq_handle);
    int rc = PTL_ARG_INVALID;
    if (eq) {
        if (eq->n == 0) ptl_progress_locked();
        eq = ptl_eq_get(eq_handle);
        rc = eq ? eq_pop(eq, event) : PTL_INTERRUPTED;
    }
    PTL_UNLOCK();
    return rc;
}

/* What a waiter on several queues is waiting for; a queue freed while we
 * wait makes the wait end with PTL_INTERRUPTED. */
typedef struct eq_wait {
    const ptl_handle_eq_t *h;
    unsigned int n;
    int which;        /* ready queue, -1 none */
    bool interrupted;
} eq_wait_t;

static bool eq_ready(void *arg)
{
    eq_wait_t *w = arg;
    for (unsigned int i = 0; i < w->n; i++) {
        ptl_eq_t *eq = ptl_eq_get(w->h[i]);
        if (!eq) {
            w->interrupted = true;
            return true;
        }
        if (eq->n > 0) {
            w->which = (int)i;
            return true;
        }
    }
    return false;
}

static int eq_wait_any(const ptl_handle_eq_t *h, unsigned int n, ptl_time_t timeout,
                       ptl_event_t *event, unsigned int *which)
{
    eq_wait_t w = {.h = h, .n = n, .which = -1};
    bool timed_out;
    int rc = ptl_wait_locked(eq_ready, &w, timeout, &timed_out);
    if (rc != PTL_OK) return rc;
    if (w.interrupted) return PTL_INTERRUPTED;
    if (timed_out || w.which < 0) return PTL_EQ_EMPTY;
    if (which) *which = (unsigned int)w.which;
    return eq_pop(ptl_eq_get(h[w.which]), event);
}

int PtlEQWait(ptl_handle_eq_t eq_handle, ptl_event_t *event)
{
    PTL_CHECK_INIT();
    if (!event) return PTL_ARG_INVALID;
    PTL_LOCK();
    int rc = ptl_eq_get(eq_handle) ? eq_wait_any(&eq_handle, 1, PTL_TIME_FOREVER, event, NULL)
                                   : PTL_ARG_INVALID;
    PTL_UNLOCK();
    return rc;
}

int PtlEQPoll(const ptl_handle_eq_t *eq_handles, unsigned int size, ptl_time_t timeout,
              ptl_event_t *event, unsigned int *which)
{
    PTL_CHECK_INIT();
    if (!eq_handles || size == 0 || !event || !which) return PTL_ARG_INVALID;
    PTL_LOCK();
    int rc = PTL_OK;
    ptl_ni_t *ni = NULL;
    for (unsigned int i = 0; i < size && rc == PTL_OK; i++) {
        ptl_eq_t *eq = ptl_eq_get(eq_handles[i]);
        if (!eq || (ni && eq->ni != ni)) rc = PTL_ARG_INVALID;
        else ni = eq->ni;
    }
    if (rc == PTL_OK) rc = eq_wait_any(eq_handles, size, timeout, event, which);
    PTL_UNLOCK();
    return rc;
}
