/* Counting events and triggered operations.
 *
 * Each CT keeps its pending triggered operations in a binary min-heap on
 * (threshold, issue sequence): a change of the counter pops exactly the
 * operations now due, in threshold order and, for equal thresholds, in
 * issue order, without rescanning the rest.  Due operations go to a ready
 * list that runs after the current step (never from inside the code that
 * changed the counter), so chains of triggered CTInc work without recursion
 * and registration cannot race with updates (both run under the engine lock). */
#include "ptl/ptl_int.h"
#include "util/trace.h"

#include <stdlib.h>
#include <string.h>

static bool trig_before(const ptl_trig_t *a, const ptl_trig_t *b)
{
    return a->threshold < b->threshold || (a->threshold == b->threshold && a->seq < b->seq);
}

static void heap_swap(ptl_trig_t **h, size_t i, size_t j)
{
    ptl_trig_t *t = h[i];
    h[i] = h[j];
    h[j] = t;
}

static bool heap_push(ptl_ct_t *ct, ptl_trig_t *t)
{
    if (ct->n_heap == ct->cap_heap) {
        size_t cap = ct->cap_heap ? ct->cap_heap * 2 : 16;
        ptl_trig_t **h = realloc(ct->heap, cap * sizeof *h);
        if (!h) return false;
        ct->heap = h;
        ct->cap_heap = cap;
    }
    size_t i = ct->n_heap++;
    ct->heap[i] = t;
    while (i > 0 && trig_before(ct->heap[i], ct->heap[(i - 1) / 2])) {
        heap_swap(ct->heap, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    return true;
}

static ptl_trig_t *heap_pop(ptl_ct_t *ct)
{
    ptl_trig_t *top = ct->heap[0];
    ct->heap[0] = ct->heap[--ct->n_heap];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < ct->n_heap && trig_before(ct->heap[l], ct->heap[m])) m = l;
        if (r < ct->n_heap && trig_before(ct->heap[r], ct->heap[m])) m = r;
        if (m == i) break;
        heap_swap(ct->heap, i, m);
        i = m;
    }
    return top;
}

static void ready_push(ptl_trig_t *t)
{
    t->next = NULL;
    if (ptl_g.ready_tail) ptl_g.ready_tail->next = t;
    else ptl_g.ready_head = t;
    ptl_g.ready_tail = t;
}

/* Move every operation now due on ct to the ready list. */
static void ct_release(ptl_ct_t *ct)
{
    ptl_size_t sum = ct->val.success + ct->val.failure;
    while (ct->n_heap > 0 && ct->heap[0]->threshold <= sum) ready_push(heap_pop(ct));
}

static void ct_publish(ptl_ct_t *ct)
{
    atomic_store_explicit(&ct->success, ct->val.success, memory_order_release);
    atomic_store_explicit(&ct->failure, ct->val.failure, memory_order_release);
    ct_release(ct);
    ptl_note_change();
}

void ptl_ct_add(ptl_ct_t *ct, ptl_size_t success, ptl_size_t failure)
{
    if (!ct) return;
    ct->val.success += success;
    ct->val.failure += failure;
    ct_publish(ct);
}

void ptl_ct_set(ptl_ct_t *ct, ptl_ct_event_t v)
{
    ct->val = v;
    ct_publish(ct);
}

static void trig_exec(ptl_trig_t *t)
{
    static const char *const kinds[] = {"", "triggered xfer", "triggered ctinc", "triggered ctset",
                                        "triggered me append", "triggered me unlink"};
    SL_TRACE('i', "ptl", kinds[t->kind <= TK_MEUNLINK ? t->kind : 0], 0,
             "\"threshold\":%llu", (unsigned long long)t->threshold);
    switch (t->kind) {
    case TK_XFER:
        if (ptl_xfer_start(&t->x) != PTL_OK) ptl_xfer_start_failed(&t->x);
        break;
    case TK_CTINC: ptl_ct_add(ptl_ct_get(t->ct), t->value.success, t->value.failure); break;
    case TK_CTSET: {
        ptl_ct_t *ct = ptl_ct_get(t->ct);
        if (ct) ptl_ct_set(ct, t->value);
        break;
    }
    case TK_MEAPPEND:
        ptl_me_append_locked(t->ni, t->x.pt_index, t->me, t->list, t->user_ptr, t->me_handle_p,
                             true);
        break;
    case TK_MEUNLINK: ptl_me_unlink_locked(t->me_handle); break;
    default: break;
    }
}

void ptl_trig_run_ready(void)
{
    if (ptl_g.running_ready) return;
    ptl_g.running_ready = true;
    while (ptl_g.ready_head) {
        ptl_trig_t *t = ptl_g.ready_head;
        ptl_g.ready_head = t->next;
        if (!ptl_g.ready_head) ptl_g.ready_tail = NULL;
        trig_exec(t);
        free(t);
    }
    ptl_g.running_ready = false;
}

int ptl_trig_add(ptl_ct_t *ct, ptl_size_t threshold, const ptl_trig_t *proto)
{
    if ((int)ct->n_heap >= ct->ni->limits.max_triggered_ops) return PTL_NO_SPACE;
    ptl_trig_t *t = malloc(sizeof *t);
    if (!t) return PTL_NO_SPACE;
    *t = *proto;
    t->threshold = threshold;
    t->seq = ptl_g.trig_seq++;
    if (!heap_push(ct, t)) {
        free(t);
        return PTL_NO_SPACE;
    }
    ct_release(ct); /* already due: runs now, in order with its peers */
    ptl_trig_run_ready();
    return PTL_OK;
}

static void ct_cancel(ptl_ct_t *ct)
{
    for (size_t i = 0; i < ct->n_heap; i++) free(ct->heap[i]);
    ct->n_heap = 0;
}

/* MDs keep a pointer to their CT; one freed under them stops counting
 * instead of being written after the free (entries look theirs up by
 * handle). */
static void ct_detach(ptl_ct_t *ct)
{
    /* (the scan is over every MD of the process: only when one is bound;
     * the offload executor releases its MDs before their counters, and
     * frees thousands of counters per large schedule) */
    if (ct->md_refs == 0) return;
    const ptl_table_t *t = &ptl_g.tables[HT_MD];
    for (uint32_t i = 0; i < t->cap; i++) {
        ptl_md_obj_t *m = t->obj[i];
        if (m && m->ct == ct) m->ct = NULL;
    }
}

void ptl_ct_destroy(ptl_ct_t *ct)
{
    ct_detach(ct);
    ct_cancel(ct);
    free(ct->heap);
    ct->ni->n_ct--;
    ptl_handle_free(ct->handle);
    free(ct);
    ptl_note_change();
}

/* ---- public calls ---------------------------------------------------------------- */

int PtlCTAlloc(ptl_handle_ni_t ni_handle, ptl_handle_ct_t *ct_handle)
{
    PTL_CHECK_INIT();
    if (!ct_handle) return PTL_ARG_INVALID;
    PTL_LOCK();
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    int rc = PTL_OK;
    ptl_ct_t *ct = NULL;
    if (!ni) rc = PTL_ARG_INVALID;
    else if (ni->n_ct >= ni->limits.max_cts || !(ct = calloc(1, sizeof *ct))) rc = PTL_NO_SPACE;
    else if ((ct->handle = ptl_handle_new(HT_CT, ct)) == PTL_INVALID_HANDLE) rc = PTL_NO_SPACE;
    if (rc == PTL_OK) {
        ct->ni = ni;
        ni->n_ct++;
        *ct_handle = ct->handle;
    } else if (ct) {
        free(ct);
    }
    PTL_UNLOCK();
    return rc;
}

int PtlCTFree(ptl_handle_ct_t ct_handle)
{
    PTL_CHECK_INIT();
    PTL_LOCK();
    ptl_ct_t *ct = ptl_ct_get(ct_handle);
    if (ct) ptl_ct_destroy(ct);
    PTL_UNLOCK();
    return ct ? PTL_OK : PTL_ARG_INVALID;
}

int PtlCTCancelTriggered(ptl_handle_ct_t ct_handle)
{
    PTL_CHECK_INIT();
    PTL_LOCK();
    ptl_ct_t *ct = ptl_ct_get(ct_handle);
    if (ct) ct_cancel(ct);
    PTL_UNLOCK();
    return ct ? PTL_OK : PTL_ARG_INVALID;
}

int PtlCTGet(ptl_handle_ct_t ct_handle, ptl_ct_event_t *event)
{
    PTL_CHECK_INIT();
    if (!event) return PTL_ARG_INVALID;
    PTL_LOCK();
    ptl_ct_t *ct = ptl_ct_get(ct_handle);
    if (ct) *event = ct->val;
    PTL_UNLOCK();
    return ct ? PTL_OK : PTL_ARG_INVALID;
}

typedef struct ct_wait {
    const ptl_handle_ct_t *h;
    const ptl_size_t *tests;
    unsigned int n;
    int which;
    bool interrupted;
} ct_wait_t;

static bool ct_ready(void *arg)
{
    ct_wait_t *w = arg;
    for (unsigned int i = 0; i < w->n; i++) {
        ptl_ct_t *ct = ptl_ct_get(w->h[i]);
        if (!ct) {
            w->interrupted = true;
            return true;
        }
        /* as both reference implementations: success reached, or any failure */
        if (ct->val.success >= w->tests[i] || ct->val.failure != 0) {
            w->which = (int)i;
            return true;
        }
    }
    return false;
}

static int ct_wait_any(const ptl_handle_ct_t *h, const ptl_size_t *tests, unsigned int n,
                       ptl_time_t timeout, ptl_ct_event_t *event, unsigned int *which)
{
    ct_wait_t w = {.h = h, .tests = tests, .n = n, .which = -1};
    bool timed_out;
    int rc = ptl_wait_locked(ct_ready, &w, timeout, &timed_out);
    if (rc != PTL_OK) return rc;
    if (w.interrupted) return PTL_INTERRUPTED;
    if (timed_out || w.which < 0) return PTL_CT_NONE_REACHED;
    if (which) *which = (unsigned int)w.which;
    if (event) *event = ptl_ct_get(h[w.which])->val;
    return PTL_OK;
}

int PtlCTWait(ptl_handle_ct_t ct_handle, ptl_size_t test, ptl_ct_event_t *event)
{
    PTL_CHECK_INIT();
    if (!event) return PTL_ARG_INVALID;
    PTL_LOCK();
    int rc = ptl_ct_get(ct_handle)
                 ? ct_wait_any(&ct_handle, &test, 1, PTL_TIME_FOREVER, event, NULL)
                 : PTL_ARG_INVALID;
    PTL_UNLOCK();
    return rc;
}

int PtlCTPoll(const ptl_handle_ct_t *ct_handles, const ptl_size_t *tests, unsigned int size,
              ptl_time_t timeout, ptl_ct_event_t *event, unsigned int *which)
{
    PTL_CHECK_INIT();
    if (!ct_handles || !tests || size == 0 || !event || !which) return PTL_ARG_INVALID;
    PTL_LOCK();
    int rc = PTL_OK;
    for (unsigned int i = 0; i < size && rc == PTL_OK; i++)
        if (!ptl_ct_get(ct_handles[i])) rc = PTL_ARG_INVALID;
    if (rc == PTL_OK) rc = ct_wait_any(ct_handles, tests, size, timeout, event, which);
    PTL_UNLOCK();
    return rc;
}

int PtlCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct)
{
    PTL_CHECK_INIT();
    PTL_LOCK();
    ptl_ct_t *ct = ptl_ct_get(ct_handle);
    if (ct) {
        ptl_ct_set(ct, new_ct);
        ptl_trig_run_ready();
    }
    PTL_UNLOCK();
    return ct ? PTL_OK : PTL_ARG_INVALID;
}

int PtlCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment)
{
    PTL_CHECK_INIT();
    if (increment.success && increment.failure) return PTL_ARG_INVALID;
    PTL_LOCK();
    ptl_ct_t *ct = ptl_ct_get(ct_handle);
    if (ct) {
        ptl_ct_add(ct, increment.success, increment.failure);
        ptl_trig_run_ready();
    }
    PTL_UNLOCK();
    return ct ? PTL_OK : PTL_ARG_INVALID;
}

/* ---- triggered counter operations ------------------------------------------------ */

static int trig_ct_op(int kind, ptl_handle_ct_t ct_handle, ptl_ct_event_t value,
                      ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
    PTL_CHECK_INIT();
    if (kind == TK_CTINC && value.success && value.failure) return PTL_ARG_INVALID;
    PTL_LOCK();
    ptl_ct_t *ct = ptl_ct_get(ct_handle), *trig = ptl_ct_get(trig_ct_handle);
    int rc = PTL_ARG_INVALID;
    if (ct && trig && ct->ni == trig->ni) {
        ptl_trig_t t = {.kind = kind, .ct = ct_handle, .value = value};
        rc = ptl_trig_add(trig, threshold, &t);
    }
    PTL_UNLOCK();
    return rc;
}

int PtlTriggeredCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment,
                      ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
    return trig_ct_op(TK_CTINC, ct_handle, increment, trig_ct_handle, threshold);
}

int PtlTriggeredCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct,
                      ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
    return trig_ct_op(TK_CTSET, ct_handle, new_ct, trig_ct_handle, threshold);
}
