// portals4.h used from C++ the way clients use it (OMPI's MTL is C, but
// C++ users and the REF tests' C++ build must compile warning-free).
#include <portals4.h>

static_assert(PTL_OK == 0 && PTL_NI_OK == PTL_OK, "zero codes");
static_assert(sizeof(ptl_process_t) == 8, "ptl_process_t");
static_assert(PTL_LE_OP_PUT == PTL_ME_OP_PUT, "LE = ME");

int ptl_cxx_idioms(const ptl_event_t *ev, int rc, ptl_handle_ct_t ct);
int ptl_cxx_idioms(const ptl_event_t *ev, int rc, ptl_handle_ct_t ct)
{
    int r = 0;
    switch (rc) {
    case PTL_OK: case PTL_ARG_INVALID: case PTL_CT_NONE_REACHED: case PTL_EQ_DROPPED:
    case PTL_EQ_EMPTY: case PTL_FAIL: case PTL_IGNORED: case PTL_IN_USE: case PTL_INTERRUPTED:
    case PTL_LIST_TOO_LONG: case PTL_NO_INIT: case PTL_NO_SPACE: case PTL_PID_IN_USE:
    case PTL_PT_FULL: case PTL_PT_EQ_NEEDED: case PTL_PT_IN_USE: case PTL_ABORTED:
        r++;
        break;
    default:
        break;
    }
    switch (ev->type) {
    case PTL_EVENT_GET: case PTL_EVENT_GET_OVERFLOW: case PTL_EVENT_PUT:
    case PTL_EVENT_PUT_OVERFLOW: case PTL_EVENT_ATOMIC: case PTL_EVENT_ATOMIC_OVERFLOW:
    case PTL_EVENT_FETCH_ATOMIC: case PTL_EVENT_FETCH_ATOMIC_OVERFLOW: case PTL_EVENT_REPLY:
    case PTL_EVENT_SEND: case PTL_EVENT_ACK: case PTL_EVENT_PT_DISABLED: case PTL_EVENT_LINK:
    case PTL_EVENT_AUTO_UNLINK: case PTL_EVENT_AUTO_FREE: case PTL_EVENT_SEARCH:
        r++;
        break;
    default:
        break;
    }
    if (ev->ni_fail_type != PTL_OK) r++;
    if (ev->ni_fail_type == PTL_NI_OK) r++;
    if (ev->ptl_list == PTL_PRIORITY_LIST) r++;
    if (ct == PTL_CT_NONE || ct == PTL_INVALID_HANDLE) r++;
    if (!PtlHandleIsEqual(ct, PTL_INVALID_HANDLE)) r++;
    ptl_ct_event_t inc = {1, 0};
    ptl_me_t me = ptl_me_t();
    me.options = PTL_ME_OP_PUT | PTL_ME_USE_ONCE | PTL_ME_EVENT_UNLINK_DISABLE;
    me.match_id.phys.nid = PTL_NID_ANY;
    me.match_id.phys.pid = PTL_PID_ANY;
    me.uid = PTL_UID_ANY;
    me.ct_handle = PTL_CT_NONE;
    me.min_free = 0;
    ptl_md_t md = {0, PTL_SIZE_MAX, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_SUCCESS_DISABLE,
                   PTL_EQ_NONE, PTL_CT_NONE};
    ptl_ack_req_t ack = PTL_OC_ACK_REQ;
    ptl_op_t op = PTL_CSWAP;
    ptl_datatype_t dt = PTL_LONG_DOUBLE_COMPLEX;
    ptl_pt_index_t pt = PTL_PT_ANY;
    ptl_time_t t = PTL_TIME_FOREVER;
    ptl_interface_t ifc = PTL_IFACE_DEFAULT;
    unsigned int ni_opts = PTL_NI_MATCHING | PTL_NI_PHYSICAL;
    ptl_sr_index_t sr = PTL_SR_DROP_COUNT;
    return r + (int)inc.success + (int)(me.options & 1u) + (int)(md.length & 1u) + ack + op + dt +
           (pt != PTL_PT_ANY) + (t == 0) + (ifc == 0) + (int)(ni_opts & ~PTL_NI_INIT_OPTIONS_MASK) +
           (sr == PTL_SR_LAST);
}
