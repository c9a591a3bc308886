/* List entries (LE) and matching list entries (ME): append (with the
 * unexpected-header scan of §9.4), unlink, search (§9.5), and the matching
 * predicate of §9.2. */
#include "ptl/ptl_int.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

ptl_pt_t *ptl_pt_get(ptl_ni_t *ni, ptl_pt_index_t index)
{
    if (!ni || index > (ptl_pt_index_t)ni->limits.max_pt_index) return NULL;
    ptl_pt_t *pt = &ni->pts[index];
    return pt->allocated ? pt : NULL;
}

/* Count one event of an object's CT: by events or bytes, success or failure. */
void ptl_count(ptl_ct_t *ct, unsigned int options, unsigned int bytes_flag, bool ok,
               ptl_size_t mlength)
{
    if (!ct) return;
    if (!ok) ptl_ct_add(ct, 0, 1);
    else ptl_ct_add(ct, (options & bytes_flag) ? mlength : 1, 0);
}

bool ptl_entry_matches(const ptl_entry_t *e, const ptl_ni_t *ni, ptl_process_t initiator,
                       ptl_match_bits_t bits, ptl_size_t rlength, ptl_size_t remote_offset)
{
    if (!e->matching) return true;
    const ptl_me_t *me = &e->me;
    if (ni->options & PTL_NI_LOGICAL) {
        if (me->match_id.rank != PTL_RANK_ANY && me->match_id.rank != initiator.rank) return false;
    } else {
        if (me->match_id.phys.nid != PTL_NID_ANY && me->match_id.phys.nid != initiator.phys.nid)
            return false;
        if (me->match_id.phys.pid != PTL_PID_ANY && me->match_id.phys.pid != initiator.phys.pid)
            return false;
    }
    if (((bits ^ me->match_bits) & ~me->ignore_bits) != 0) return false;
    if (me->options & PTL_ME_NO_TRUNCATE) {
        ptl_size_t off = (me->options & PTL_ME_MANAGE_LOCAL) ? e->local_offset : remote_offset;
        if (off > e->bytes || rlength > e->bytes - off) return false;
    }
    return true;
}

static void post_simple(ptl_pt_t *pt, ptl_event_kind_t kind, void *user_ptr, ptl_pt_index_t idx,
                        ptl_ni_fail_t fail)
{
    if (!pt->eq) return;
    ptl_event_t ev = {.type = kind, .user_ptr = user_ptr, .pt_index = idx, .ni_fail_type = fail};
    ptl_eq_post(pt->eq, &ev);
}

/* Freed entries are kept for reuse (MPI appends and unlinks one per
 * receive; malloc and zeroing were a tenth of the small-message path), up
 * to ENTRY_CACHE of them.  All under the engine lock. */
#define ENTRY_CACHE 256
static ptl_entry_t *entry_cache[ENTRY_CACHE];
static unsigned entry_cached;

static ptl_entry_t *entry_alloc(void)
{
    if (entry_cached == 0) return calloc(1, sizeof(ptl_entry_t));
    ptl_entry_t *e = entry_cache[--entry_cached];
    memset(e, 0, sizeof *e);
    return e;
}

static void entry_release(ptl_entry_t *e)
{
    if (entry_cached < ENTRY_CACHE) entry_cache[entry_cached++] = e;
    else free(e);
}

void ptl_entry_cache_drop(void)
{
    while (entry_cached) free(entry_cache[--entry_cached]);
}

static void entry_free(ptl_entry_t *e)
{
    e->ni->n_entries--;
    entry_release(e);
}

/* An overflow entry's memory is free again once no header points into it. */
static void uh_unref(ptl_pt_t *pt, ptl_uh_t *uh)
{
    ptl_entry_t *o = uh->owner;
    if (o && --o->uh_refs == 0 && !o->linked) {
        if (o->auto_free_pending && !(o->me.options & PTL_ME_EVENT_UNLINK_DISABLE))
            post_simple(pt, PTL_EVENT_AUTO_FREE, o->user_ptr, o->pt, PTL_NI_OK);
        entry_free(o);
    }
}

/* Take an entry off its list (it stays allocated while headers use it). */
void ptl_entry_delist(ptl_pt_t *pt, ptl_entry_t *e)
{
    if (!e->linked) return;
    sl_list_remove(&e->link);
    e->linked = false;
    pt->n_entries[e->list]--;
}

void ptl_entry_auto_unlink(ptl_pt_t *pt, ptl_entry_t *e)
{
    ptl_entry_delist(pt, e);
    bool events = !(e->me.options & PTL_ME_EVENT_UNLINK_DISABLE);
    if (events) post_simple(pt, PTL_EVENT_AUTO_UNLINK, e->user_ptr, e->pt, PTL_NI_OK);
    ptl_handle_free(e->handle);
    if (e->list == PTL_OVERFLOW_LIST && e->uh_refs > 0) {
        e->auto_free_pending = true; /* AUTO_FREE when the last header goes */
        return;
    }
    if (e->list == PTL_OVERFLOW_LIST && events)
        post_simple(pt, PTL_EVENT_AUTO_FREE, e->user_ptr, e->pt, PTL_NI_OK);
    entry_free(e);
}

void ptl_pt_release_entries(ptl_ni_t *ni, ptl_pt_t *pt)
{
    sl_list_t *pos, *tmp;
    sl_list_for_each_safe(pos, tmp, &pt->unexpected) {
        ptl_uh_t *uh = sl_list_entry(pos, ptl_uh_t, link);
        sl_list_remove(pos);
        ptl_entry_t *o = uh->owner;
        /* an owner already off its list lives only for its headers */
        if (o && --o->uh_refs == 0 && !o->linked) entry_free(o);
        free(uh);
    }
    pt->n_unexpected = 0;
    for (int l = 0; l < 2; l++) {
        sl_list_t *list = l == 0 ? &pt->prio : &pt->over;
        sl_list_for_each_safe(pos, tmp, list) {
            ptl_entry_t *e = sl_list_entry(pos, ptl_entry_t, link);
            ptl_entry_delist(pt, e);
            ptl_handle_free(e->handle);
            entry_free(e);
        }
    }
    (void)ni;
}

/* The overflow-style event for a header consumed by an append or a
 * search-delete, carrying the new entry's (or search's) user_ptr. */
static void post_overflow(ptl_pt_t *pt, ptl_pt_index_t idx, const ptl_uh_t *uh, void *user_ptr,
                          ptl_event_kind_t kind)
{
    if (!pt->eq) return;
    ptl_event_t ev = {.type = kind, .user_ptr = user_ptr, .start = uh->start,
                      .hdr_data = uh->hdr_data, .match_bits = uh->match_bits,
                      .rlength = uh->rlength, .mlength = uh->mlength,
                      .remote_offset = uh->remote_offset, .initiator = uh->initiator,
                      .uid = uh->uid, .pt_index = idx, .ptl_list = PTL_OVERFLOW_LIST,
                      .ni_fail_type = PTL_NI_OK, .atomic_operation = uh->atomic_op,
                      .atomic_type = uh->atomic_type};
    ptl_eq_post(pt->eq, &ev);
}

static ptl_event_kind_t overflow_kind(ptl_event_kind_t k)
{
    return (ptl_event_kind_t)(k + 1); /* GET->GET_OVERFLOW, PUT->PUT_OVERFLOW, ... */
}

/* Consume one unexpected header with entry e (append or search-delete). */
static void uh_consume(ptl_pt_t *pt, ptl_entry_t *e, ptl_uh_t *uh)
{
    sl_list_remove(&uh->link);
    pt->n_unexpected--;
    if (!(e->me.options & PTL_ME_EVENT_OVER_DISABLE))
        post_overflow(pt, e->pt, uh, e->user_ptr, overflow_kind(uh->kind));
    if (e->me.options & PTL_ME_EVENT_CT_OVERFLOW)
        ptl_count(ptl_ct_get(e->me.ct_handle), e->me.options, PTL_ME_EVENT_CT_BYTES, true,
                  uh->mlength);
    if ((e->me.options & PTL_ME_MANAGE_LOCAL) && (e->me.options & PTL_ME_LOCAL_INC_UH_RLENGTH))
        e->local_offset += uh->rlength;
    uh_unref(pt, uh);
    free(uh);
}

static bool min_free_hit(const ptl_entry_t *e)
{
    return (e->me.options & PTL_ME_MANAGE_LOCAL) && e->me.min_free &&
           (e->local_offset > e->bytes || e->bytes - e->local_offset < e->me.min_free);
}

/* Wait (lock released, yielding) until no message is being copied into an
 * overflow entry of pt without its header queued yet: the copy takes
 * microseconds, and a scan before it ends would miss that message. */
static void ptl_pt_settle(ptl_pt_t *pt)
{
    while (pt->ovf_copies > 0) {
        PTL_UNLOCK();
        sched_yield();
        PTL_LOCK();
    }
}

/* Scan the unexpected list for a new priority entry; true if it was used up. */
static bool append_scan(ptl_pt_t *pt, ptl_entry_t *e)
{
    sl_list_t *pos, *tmp;
    ptl_pt_settle(pt);
    sl_list_for_each_safe(pos, tmp, &pt->unexpected) {
        ptl_uh_t *uh = sl_list_entry(pos, ptl_uh_t, link);
        if (!ptl_entry_matches(e, e->ni, uh->initiator, uh->match_bits, uh->rlength,
                               uh->remote_offset))
            continue;
        uh_consume(pt, e, uh);
        if ((e->me.options & PTL_ME_USE_ONCE) || min_free_hit(e)) return true;
    }
    return false;
}

/* Whether the entry names a CT.  PTL_INVALID_HANDLE counts as "none" when no
 * counting option is set: SOS passes it that way (PORTALS4_API.md §3.3). */
static bool entry_has_ct(const ptl_me_t *me)
{
    unsigned int counting = PTL_ME_EVENT_CT_COMM | PTL_ME_EVENT_CT_OVERFLOW;
    if (me->ct_handle == PTL_CT_NONE) return false;
    return me->ct_handle != PTL_INVALID_HANDLE || (me->options & counting);
}

static int entry_validate(ptl_ni_t *ni, ptl_pt_index_t pt_index, const ptl_me_t *me,
                          ptl_list_t list, bool matching, ptl_pt_t **pt_out, ptl_ct_t **ct_out)
{
    unsigned int mask = matching ? PTL_ME_APPEND_OPTIONS_MASK : PTL_LE_APPEND_OPTIONS_MASK;
    bool ni_matching = (ni->options & PTL_NI_MATCHING) != 0;
    ptl_pt_t *pt = ptl_pt_get(ni, pt_index);
    if (!pt || ni_matching != matching || list > PTL_OVERFLOW_LIST || (me->options & ~mask))
        return PTL_ARG_INVALID;
    if ((me->options & PTL_IOVEC) &&
        (me->length > (ptl_size_t)ni->limits.max_iovecs || (me->length && !me->start)))
        return PTL_ARG_INVALID;
    ptl_ct_t *ct = NULL;
    if (entry_has_ct(me) && (!(ct = ptl_ct_get(me->ct_handle)) || ct->ni != ni))
        return PTL_ARG_INVALID;
    if (ni->n_entries >= ni->limits.max_entries ||
        pt->n_entries[list] >= ni->limits.max_list_size)
        return PTL_NO_SPACE;
    *pt_out = pt;
    *ct_out = ct;
    return PTL_OK;
}

int ptl_me_append_locked(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t *me,
                         ptl_list_t list, void *user_ptr, ptl_handle_me_t *out, bool matching)
{
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    ptl_pt_t *pt;
    ptl_ct_t *ct;
    if (!ni || !me || !out) return PTL_ARG_INVALID;
    int rc = entry_validate(ni, pt_index, me, list, matching, &pt, &ct);
    if (rc != PTL_OK) return rc;
    ptl_entry_t *e = entry_alloc();
    if (!e) return PTL_NO_SPACE;
    e->ni = ni;
    e->pt = pt_index;
    e->list = list;
    e->matching = matching;
    e->me = *me;
    e->ct = ct; /* counting looks the handle up again: a CT freed meanwhile is skipped */
    e->user_ptr = user_ptr;
    e->bytes = me->length;
    if (me->options & PTL_IOVEC) {
        const ptl_iovec_t *iov = me->start;
        e->bytes = 0;
        for (ptl_size_t i = 0; i < me->length; i++) e->bytes += iov[i].iov_len;
    }
    e->handle = ptl_handle_new(matching ? HT_ME : HT_LE, e);
    if (e->handle == PTL_INVALID_HANDLE) {
        entry_release(e);
        return PTL_NO_SPACE;
    }
    ni->n_entries++;
    *out = e->handle;
    if (list == PTL_PRIORITY_LIST && append_scan(pt, e)) {
        /* used up by unexpected headers: never linked */
        if (!(e->me.options & PTL_ME_EVENT_UNLINK_DISABLE))
            post_simple(pt, PTL_EVENT_AUTO_UNLINK, e->user_ptr, pt_index, PTL_NI_OK);
        ptl_handle_free(e->handle);
        entry_free(e);
        return PTL_OK;
    }
    sl_list_push_tail(list == PTL_PRIORITY_LIST ? &pt->prio : &pt->over, &e->link);
    e->linked = true;
    ptl_target_kick(); /* a request waiting for an entry may fit now */
    pt->n_entries[list]++;
    if (!(e->me.options & PTL_ME_EVENT_LINK_DISABLE))
        post_simple(pt, PTL_EVENT_LINK, e->user_ptr, pt_index, PTL_NI_OK);
    return PTL_OK;
}

int ptl_me_unlink_locked(ptl_handle_me_t h)
{
    int type = ptl_handle_type(h);
    ptl_entry_t *e = (type == HT_ME || type == HT_LE) ? ptl_handle_get(type, h) : NULL;
    if (!e) return PTL_ARG_INVALID;
    if (e->busy) return PTL_IN_USE; /* a bulk copy is moving its data (§8.3) */
    ptl_pt_t *pt = &e->ni->pts[e->pt];
    ptl_entry_delist(pt, e);
    ptl_handle_free(e->handle);
    if (e->uh_refs == 0) entry_free(e); /* else freed with its last header */
    return PTL_OK;
}

static ptl_me_t le_as_me(const ptl_le_t *le)
{
    ptl_me_t me = {.start = le->start, .length = le->length, .ct_handle = le->ct_handle,
                   .uid = le->uid, .options = le->options};
    return me;
}

int PtlMEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t *me,
                ptl_list_t ptl_list, void *user_ptr, ptl_handle_me_t *me_handle)
{
    PTL_CHECK_INIT();
    PTL_LOCK();
    int rc = ptl_me_append_locked(ni_handle, pt_index, me, ptl_list, user_ptr, me_handle, true);
    ptl_trig_run_ready();
    PTL_UNLOCK();
    return rc;
}

int PtlLEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t *le,
                ptl_list_t ptl_list, void *user_ptr, ptl_handle_le_t *le_handle)
{
    PTL_CHECK_INIT();
    if (!le) return PTL_ARG_INVALID;
    ptl_me_t me = le_as_me(le);
    PTL_LOCK();
    int rc = ptl_me_append_locked(ni_handle, pt_index, &me, ptl_list, user_ptr, le_handle, false);
    ptl_trig_run_ready();
    PTL_UNLOCK();
    return rc;
}

int PtlMEUnlink(ptl_handle_me_t me_handle)
{
    PTL_CHECK_INIT();
    PTL_LOCK();
    int rc = ptl_handle_type(me_handle) == HT_ME ? ptl_me_unlink_locked(me_handle) : PTL_ARG_INVALID;
    PTL_UNLOCK();
    return rc;
}

int PtlLEUnlink(ptl_handle_le_t le_handle)
{
    PTL_CHECK_INIT();
    PTL_LOCK();
    int rc = ptl_handle_type(le_handle) == HT_LE ? ptl_me_unlink_locked(le_handle) : PTL_ARG_INVALID;
    PTL_UNLOCK();
    return rc;
}

/* ---- search ---------------------------------------------------------------------- */

static void post_search(ptl_pt_t *pt, ptl_pt_index_t idx, const ptl_uh_t *uh, void *user_ptr)
{
    if (!pt->eq) return;
    if (!uh) {
        post_simple(pt, PTL_EVENT_SEARCH, user_ptr, idx, PTL_NI_NO_MATCH);
        return;
    }
    post_overflow(pt, idx, uh, user_ptr, PTL_EVENT_SEARCH);
}

static int entry_search(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t *me,
                        ptl_search_op_t op, void *user_ptr, bool matching)
{
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    ptl_pt_t *pt;
    ptl_ct_t *ct;
    if (!ni || !me || (op != PTL_SEARCH_ONLY && op != PTL_SEARCH_DELETE)) return PTL_ARG_INVALID;
    int rc = entry_validate(ni, pt_index, me, PTL_PRIORITY_LIST, matching, &pt, &ct);
    if (rc == PTL_NO_SPACE) rc = PTL_OK; /* a search never takes a list slot */
    if (rc != PTL_OK) return rc;
    ptl_entry_t e = {.ni = ni, .pt = pt_index, .matching = matching, .me = *me, .ct = ct,
                     .user_ptr = user_ptr, .bytes = me->length};
    bool once = (me->options & PTL_ME_USE_ONCE) != 0;
    bool events = !(me->options & PTL_ME_EVENT_COMM_DISABLE);
    bool counting = (me->options & PTL_ME_EVENT_CT_OVERFLOW) != 0;
    int found = 0;
    sl_list_t *pos, *tmp;
    ptl_pt_settle(pt);
    sl_list_for_each_safe(pos, tmp, &pt->unexpected) {
        ptl_uh_t *uh = sl_list_entry(pos, ptl_uh_t, link);
        if (!ptl_entry_matches(&e, ni, uh->initiator, uh->match_bits, uh->rlength,
                               uh->remote_offset))
            continue;
        found++;
        if (op == PTL_SEARCH_DELETE) {
            uh_consume(pt, &e, uh); /* *_OVERFLOW event and CT_OVERFLOW count */
        } else {
            if (events) post_search(pt, pt_index, uh, user_ptr);
            if (counting) ptl_count(ct, me->options, PTL_ME_EVENT_CT_BYTES, true, uh->mlength);
        }
        if (once) break;
    }
    if (!found && events) post_search(pt, pt_index, NULL, user_ptr);
    /* 4.3: failure += 1 marks the end of a search (or a use-once one that found nothing) */
    if (counting && ct && (!once || !found)) ptl_ct_add(ct, 0, 1);
    return PTL_OK;
}

int PtlMESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t *me,
                ptl_search_op_t ptl_search_op, void *user_ptr)
{
    PTL_CHECK_INIT();
    PTL_LOCK();
    int rc = entry_search(ni_handle, pt_index, me, ptl_search_op, user_ptr, true);
    ptl_trig_run_ready();
    PTL_UNLOCK();
    return rc;
}

int PtlLESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t *le,
                ptl_search_op_t ptl_search_op, void *user_ptr)
{
    PTL_CHECK_INIT();
    if (!le) return PTL_ARG_INVALID;
    ptl_me_t me = le_as_me(le);
    PTL_LOCK();
    int rc = entry_search(ni_handle, pt_index, &me, ptl_search_op, user_ptr, false);
    ptl_trig_run_ready();
    PTL_UNLOCK();
    return rc;
}

/* ---- triggered ME append / unlink (paper 004's extension) ------------------------- */

int PtlTriggeredMEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, ptl_me_t *me_init,
                         ptl_list_t ptl_list, void *user_ptr, ptl_handle_me_t *me_handle_p,
                         ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
    PTL_CHECK_INIT();
    if (!me_init || !me_handle_p) return PTL_ARG_INVALID;
    PTL_LOCK();
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    ptl_ct_t *trig = ptl_ct_get(trig_ct_handle);
    ptl_pt_t *pt;
    ptl_ct_t *ct;
    int rc = (!ni || !trig || trig->ni != ni)
                 ? PTL_ARG_INVALID
                 : entry_validate(ni, pt_index, me_init, ptl_list, true, &pt, &ct);
    if (rc == PTL_NO_SPACE) rc = PTL_OK; /* limits apply when it fires */
    if (rc == PTL_OK) {
        ptl_trig_t t = {.kind = TK_MEAPPEND, .ni = ni_handle, .me = me_init, .list = ptl_list,
                        .user_ptr = user_ptr, .me_handle_p = me_handle_p};
        t.x.pt_index = pt_index;
        rc = ptl_trig_add(trig, threshold, &t);
    }
    PTL_UNLOCK();
    return rc;
}

int PtlTriggeredMEUnlink(ptl_handle_me_t me_handle, ptl_handle_ct_t trig_ct_handle,
                         ptl_size_t threshold)
{
    PTL_CHECK_INIT();
    PTL_LOCK();
    ptl_entry_t *e = ptl_handle_get(HT_ME, me_handle);
    ptl_ct_t *trig = ptl_ct_get(trig_ct_handle);
    int rc = PTL_ARG_INVALID;
    if (e && trig && trig->ni == e->ni) {
        ptl_trig_t t = {.kind = TK_MEUNLINK, .me_handle = me_handle};
        rc = ptl_trig_add(trig, threshold, &t);
    }
    PTL_UNLOCK();
    return rc;
}
