/* portals4.h conformance: values, distinctness, aliases, structure layout
 * and function signatures, checked against /work/shared/PORTALS4_API.md.
 * Needs no Portals library: functions are only examined through
 * __typeof__, never called or referenced at link time. */
#include <portals4.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "test.h"

#define N_(a) (sizeof(a) / sizeof((a)[0]))

/* ---- compile-time facts ------------------------------------------------ */

#define SAME_TYPE(a, b) __builtin_types_compatible_p(a, b)
#define SIG(fn, type) _Static_assert(SAME_TYPE(__typeof__(&fn), type), #fn " signature")

/* §3.1 scalar types */
_Static_assert(sizeof(ptl_size_t) == 8 && (ptl_size_t)-1 > 0, "ptl_size_t is uint64_t");
_Static_assert(SAME_TYPE(ptl_size_t, uint64_t), "ptl_size_t");
_Static_assert(SAME_TYPE(ptl_pt_index_t, uint32_t), "ptl_pt_index_t");
_Static_assert(SAME_TYPE(ptl_match_bits_t, uint64_t), "ptl_match_bits_t");
_Static_assert(SAME_TYPE(ptl_hdr_data_t, uint64_t), "ptl_hdr_data_t");
_Static_assert(SAME_TYPE(ptl_time_t, unsigned int), "ptl_time_t");
_Static_assert(SAME_TYPE(ptl_interface_t, unsigned int), "ptl_interface_t");
_Static_assert(SAME_TYPE(ptl_nid_t, uint32_t), "ptl_nid_t");
_Static_assert(SAME_TYPE(ptl_pid_t, uint32_t), "ptl_pid_t");
_Static_assert(SAME_TYPE(ptl_rank_t, uint32_t), "ptl_rank_t");
_Static_assert(SAME_TYPE(ptl_uid_t, uint32_t), "ptl_uid_t");
_Static_assert(SAME_TYPE(ptl_sr_value_t, int), "ptl_sr_value_t");
_Static_assert(SAME_TYPE(ptl_handle_any_t, uint32_t), "ptl_handle_any_t");
_Static_assert(SAME_TYPE(ptl_handle_ni_t, ptl_handle_any_t), "ptl_handle_ni_t");
_Static_assert(SAME_TYPE(ptl_handle_eq_t, ptl_handle_any_t), "ptl_handle_eq_t");
_Static_assert(SAME_TYPE(ptl_handle_ct_t, ptl_handle_any_t), "ptl_handle_ct_t");
_Static_assert(SAME_TYPE(ptl_handle_md_t, ptl_handle_any_t), "ptl_handle_md_t");
_Static_assert(SAME_TYPE(ptl_handle_le_t, ptl_handle_any_t), "ptl_handle_le_t");
_Static_assert(SAME_TYPE(ptl_handle_me_t, ptl_handle_any_t), "ptl_handle_me_t");
_Static_assert(SAME_TYPE(ptl_ni_fail_t, unsigned char), "ptl_ni_fail_t");
_Static_assert(SAME_TYPE(ptl_list_t, unsigned char), "ptl_list_t");
_Static_assert(SAME_TYPE(ptl_search_op_t, unsigned char), "ptl_search_op_t");
_Static_assert(SAME_TYPE(ptl_ack_req_t, unsigned char), "ptl_ack_req_t");
_Static_assert(SAME_TYPE(ptl_event_kind_t, unsigned char), "ptl_event_kind_t");
_Static_assert(SAME_TYPE(ptl_op_t, unsigned char), "ptl_op_t");
_Static_assert(SAME_TYPE(ptl_datatype_t, unsigned char), "ptl_datatype_t");

/* §3.2 ptl_process_t: 8 bytes, rank overlays phys.nid */
_Static_assert(sizeof(ptl_process_t) == 8, "ptl_process_t is 8 bytes");
_Static_assert(offsetof(ptl_process_t, rank) == 0, "rank at 0");
_Static_assert(offsetof(ptl_process_t, phys.nid) == 0, "phys.nid at 0");
_Static_assert(offsetof(ptl_process_t, phys.pid) == 4, "phys.pid at 4");

/* §3.5 structures: field types and order */
#define FIELD(T, f, type) _Static_assert(SAME_TYPE(__typeof__(((T *)0)->f), type), #T "." #f)
#define BEFORE(T, a, b) _Static_assert(offsetof(T, a) < offsetof(T, b), #T ": " #a " before " #b)

FIELD(ptl_ct_event_t, success, ptl_size_t);
FIELD(ptl_ct_event_t, failure, ptl_size_t);
_Static_assert(offsetof(ptl_ct_event_t, success) == 0, "success first (positional init)");
BEFORE(ptl_ct_event_t, success, failure);

FIELD(ptl_iovec_t, iov_base, void *);
FIELD(ptl_iovec_t, iov_len, ptl_size_t);
BEFORE(ptl_iovec_t, iov_base, iov_len);

FIELD(ptl_md_t, start, void *);
FIELD(ptl_md_t, length, ptl_size_t);
FIELD(ptl_md_t, options, unsigned int);
FIELD(ptl_md_t, eq_handle, ptl_handle_eq_t);
FIELD(ptl_md_t, ct_handle, ptl_handle_ct_t);
BEFORE(ptl_md_t, start, length);
BEFORE(ptl_md_t, length, options);
BEFORE(ptl_md_t, options, eq_handle);
BEFORE(ptl_md_t, eq_handle, ct_handle);

FIELD(ptl_le_t, start, void *);
FIELD(ptl_le_t, length, ptl_size_t);
FIELD(ptl_le_t, ct_handle, ptl_handle_ct_t);
FIELD(ptl_le_t, uid, ptl_uid_t);
FIELD(ptl_le_t, options, unsigned int);
BEFORE(ptl_le_t, start, length);
BEFORE(ptl_le_t, length, ct_handle);
BEFORE(ptl_le_t, ct_handle, uid);
BEFORE(ptl_le_t, uid, options);

FIELD(ptl_me_t, start, void *);
FIELD(ptl_me_t, length, ptl_size_t);
FIELD(ptl_me_t, ct_handle, ptl_handle_ct_t);
FIELD(ptl_me_t, uid, ptl_uid_t);
FIELD(ptl_me_t, options, unsigned int);
FIELD(ptl_me_t, match_id, ptl_process_t);
FIELD(ptl_me_t, match_bits, ptl_match_bits_t);
FIELD(ptl_me_t, ignore_bits, ptl_match_bits_t);
FIELD(ptl_me_t, min_free, ptl_size_t);
BEFORE(ptl_me_t, start, length);
BEFORE(ptl_me_t, length, ct_handle);
BEFORE(ptl_me_t, ct_handle, uid);
BEFORE(ptl_me_t, uid, options);
BEFORE(ptl_me_t, options, match_id);
BEFORE(ptl_me_t, match_id, match_bits);
BEFORE(ptl_me_t, match_bits, ignore_bits);
BEFORE(ptl_me_t, ignore_bits, min_free);

FIELD(ptl_ni_limits_t, max_entries, int);
FIELD(ptl_ni_limits_t, max_unexpected_headers, int);
FIELD(ptl_ni_limits_t, max_mds, int);
FIELD(ptl_ni_limits_t, max_cts, int);
FIELD(ptl_ni_limits_t, max_eqs, int);
FIELD(ptl_ni_limits_t, max_pt_index, int);
FIELD(ptl_ni_limits_t, max_iovecs, int);
FIELD(ptl_ni_limits_t, max_list_size, int);
FIELD(ptl_ni_limits_t, max_triggered_ops, int);
FIELD(ptl_ni_limits_t, max_msg_size, ptl_size_t);
FIELD(ptl_ni_limits_t, max_atomic_size, ptl_size_t);
FIELD(ptl_ni_limits_t, max_fetch_atomic_size, ptl_size_t);
FIELD(ptl_ni_limits_t, max_waw_ordered_size, ptl_size_t);
FIELD(ptl_ni_limits_t, max_war_ordered_size, ptl_size_t);
FIELD(ptl_ni_limits_t, max_volatile_size, ptl_size_t);
FIELD(ptl_ni_limits_t, features, unsigned int);
BEFORE(ptl_ni_limits_t, max_entries, max_unexpected_headers);
BEFORE(ptl_ni_limits_t, max_unexpected_headers, max_mds);
BEFORE(ptl_ni_limits_t, max_mds, max_cts);
BEFORE(ptl_ni_limits_t, max_cts, max_eqs);
BEFORE(ptl_ni_limits_t, max_eqs, max_pt_index);
BEFORE(ptl_ni_limits_t, max_pt_index, max_iovecs);
BEFORE(ptl_ni_limits_t, max_iovecs, max_list_size);
BEFORE(ptl_ni_limits_t, max_list_size, max_triggered_ops);
BEFORE(ptl_ni_limits_t, max_triggered_ops, max_msg_size);
BEFORE(ptl_ni_limits_t, max_msg_size, max_atomic_size);
BEFORE(ptl_ni_limits_t, max_atomic_size, max_fetch_atomic_size);
BEFORE(ptl_ni_limits_t, max_fetch_atomic_size, max_waw_ordered_size);
BEFORE(ptl_ni_limits_t, max_waw_ordered_size, max_war_ordered_size);
BEFORE(ptl_ni_limits_t, max_war_ordered_size, max_volatile_size);
BEFORE(ptl_ni_limits_t, max_volatile_size, features);

FIELD(ptl_event_t, start, void *);
FIELD(ptl_event_t, user_ptr, void *);
FIELD(ptl_event_t, hdr_data, ptl_hdr_data_t);
FIELD(ptl_event_t, match_bits, ptl_match_bits_t);
FIELD(ptl_event_t, rlength, ptl_size_t);
FIELD(ptl_event_t, mlength, ptl_size_t);
FIELD(ptl_event_t, remote_offset, ptl_size_t);
FIELD(ptl_event_t, initiator, ptl_process_t);
FIELD(ptl_event_t, uid, ptl_uid_t);
FIELD(ptl_event_t, pt_index, ptl_pt_index_t);
FIELD(ptl_event_t, type, ptl_event_kind_t);
FIELD(ptl_event_t, ptl_list, ptl_list_t);
FIELD(ptl_event_t, ni_fail_type, ptl_ni_fail_t);
FIELD(ptl_event_t, atomic_operation, ptl_op_t);
FIELD(ptl_event_t, atomic_type, ptl_datatype_t);
BEFORE(ptl_event_t, start, user_ptr);
BEFORE(ptl_event_t, user_ptr, hdr_data);
BEFORE(ptl_event_t, hdr_data, match_bits);
BEFORE(ptl_event_t, match_bits, rlength);
BEFORE(ptl_event_t, rlength, mlength);
BEFORE(ptl_event_t, mlength, remote_offset);
BEFORE(ptl_event_t, remote_offset, initiator);
BEFORE(ptl_event_t, initiator, uid);
BEFORE(ptl_event_t, uid, pt_index);
BEFORE(ptl_event_t, pt_index, type);
BEFORE(ptl_event_t, type, ptl_list);
BEFORE(ptl_event_t, ptl_list, ni_fail_type);
BEFORE(ptl_event_t, ni_fail_type, atomic_operation);
BEFORE(ptl_event_t, atomic_operation, atomic_type);

/* §3.3/§3.4 sentinel types and values */
_Static_assert(SAME_TYPE(__typeof__(PTL_EQ_NONE), ptl_handle_eq_t), "PTL_EQ_NONE type");
_Static_assert(SAME_TYPE(__typeof__(PTL_CT_NONE), ptl_handle_ct_t), "PTL_CT_NONE type");
_Static_assert(SAME_TYPE(__typeof__(PTL_INVALID_HANDLE), ptl_handle_any_t), "INVALID type");
_Static_assert(PTL_EQ_NONE == 0x3fffffffu, "PTL_EQ_NONE");
_Static_assert(PTL_CT_NONE == 0x5fffffffu, "PTL_CT_NONE");
_Static_assert(PTL_INVALID_HANDLE == 0xffffffffu, "PTL_INVALID_HANDLE");
_Static_assert(SAME_TYPE(__typeof__(PTL_PID_ANY), ptl_pid_t) && PTL_PID_ANY == 0xffff, "PID_ANY");
_Static_assert(SAME_TYPE(__typeof__(PTL_NID_ANY), ptl_nid_t) && PTL_NID_ANY == 0xffff, "NID_ANY");
_Static_assert(SAME_TYPE(__typeof__(PTL_RANK_ANY), ptl_rank_t) && PTL_RANK_ANY == 0xffffffffu,
               "RANK_ANY");
_Static_assert(SAME_TYPE(__typeof__(PTL_UID_ANY), ptl_uid_t) && PTL_UID_ANY == 0xffffffffu,
               "UID_ANY");
_Static_assert(SAME_TYPE(__typeof__(PTL_PT_ANY), ptl_pt_index_t) && PTL_PT_ANY == 0xffffffffu,
               "PT_ANY");
_Static_assert(PTL_PID_MAX == 1024, "PID_MAX");
_Static_assert(SAME_TYPE(__typeof__(PTL_IFACE_DEFAULT), ptl_interface_t) &&
                   PTL_IFACE_DEFAULT == 0xffffffffu, "IFACE_DEFAULT");
_Static_assert(SAME_TYPE(__typeof__(PTL_TIME_FOREVER), ptl_time_t) &&
                   PTL_TIME_FOREVER == 0xffffffffu, "TIME_FOREVER");
_Static_assert(SAME_TYPE(__typeof__(PTL_SIZE_MAX), ptl_size_t) && PTL_SIZE_MAX == UINT64_MAX,
               "SIZE_MAX");

/* §4 / §11.3 zero codes */
_Static_assert(PTL_OK == 0, "PTL_OK == 0");
_Static_assert(PTL_NI_OK == 0, "PTL_NI_OK == 0");
_Static_assert(PTL_NI_OK == PTL_OK, "PTL_NI_OK == PTL_OK");

/* §2 function inventory: exact prototypes (argument order and types). */
SIG(PtlInit, int (*)(void));
SIG(PtlFini, void (*)(void));
SIG(PtlAbort, void (*)(void));
SIG(PtlNIInit, int (*)(ptl_interface_t, unsigned int, ptl_pid_t, const ptl_ni_limits_t *,
                       ptl_ni_limits_t *, ptl_handle_ni_t *));
SIG(PtlNIFini, int (*)(ptl_handle_ni_t));
SIG(PtlNIStatus, int (*)(ptl_handle_ni_t, ptl_sr_index_t, ptl_sr_value_t *));
SIG(PtlNIHandle, int (*)(ptl_handle_any_t, ptl_handle_ni_t *));
SIG(PtlSetMap, int (*)(ptl_handle_ni_t, ptl_size_t, const ptl_process_t *));
SIG(PtlGetMap, int (*)(ptl_handle_ni_t, ptl_size_t, ptl_process_t *, ptl_size_t *));
SIG(PtlGetUid, int (*)(ptl_handle_ni_t, ptl_uid_t *));
SIG(PtlGetId, int (*)(ptl_handle_ni_t, ptl_process_t *));
SIG(PtlGetPhysId, int (*)(ptl_handle_ni_t, ptl_process_t *));
SIG(PtlPTAlloc, int (*)(ptl_handle_ni_t, unsigned int, ptl_handle_eq_t, ptl_pt_index_t,
                        ptl_pt_index_t *));
SIG(PtlPTFree, int (*)(ptl_handle_ni_t, ptl_pt_index_t));
SIG(PtlPTDisable, int (*)(ptl_handle_ni_t, ptl_pt_index_t));
SIG(PtlPTEnable, int (*)(ptl_handle_ni_t, ptl_pt_index_t));
SIG(PtlMDBind, int (*)(ptl_handle_ni_t, const ptl_md_t *, ptl_handle_md_t *));
SIG(PtlMDRelease, int (*)(ptl_handle_md_t));
SIG(PtlLEAppend, int (*)(ptl_handle_ni_t, ptl_pt_index_t, const ptl_le_t *, ptl_list_t, void *,
                         ptl_handle_le_t *));
SIG(PtlLEUnlink, int (*)(ptl_handle_le_t));
SIG(PtlLESearch, int (*)(ptl_handle_ni_t, ptl_pt_index_t, const ptl_le_t *, ptl_search_op_t,
                         void *));
SIG(PtlMEAppend, int (*)(ptl_handle_ni_t, ptl_pt_index_t, const ptl_me_t *, ptl_list_t, void *,
                         ptl_handle_me_t *));
SIG(PtlMEUnlink, int (*)(ptl_handle_me_t));
SIG(PtlMESearch, int (*)(ptl_handle_ni_t, ptl_pt_index_t, const ptl_me_t *, ptl_search_op_t,
                         void *));
SIG(PtlEQAlloc, int (*)(ptl_handle_ni_t, ptl_size_t, ptl_handle_eq_t *));
SIG(PtlEQFree, int (*)(ptl_handle_eq_t));
SIG(PtlEQGet, int (*)(ptl_handle_eq_t, ptl_event_t *));
SIG(PtlEQWait, int (*)(ptl_handle_eq_t, ptl_event_t *));
SIG(PtlEQPoll, int (*)(const ptl_handle_eq_t *, unsigned int, ptl_time_t, ptl_event_t *,
                       unsigned int *));
SIG(PtlCTAlloc, int (*)(ptl_handle_ni_t, ptl_handle_ct_t *));
SIG(PtlCTFree, int (*)(ptl_handle_ct_t));
SIG(PtlCTCancelTriggered, int (*)(ptl_handle_ct_t));
SIG(PtlCTGet, int (*)(ptl_handle_ct_t, ptl_ct_event_t *));
SIG(PtlCTWait, int (*)(ptl_handle_ct_t, ptl_size_t, ptl_ct_event_t *));
SIG(PtlCTPoll, int (*)(const ptl_handle_ct_t *, const ptl_size_t *, unsigned int, ptl_time_t,
                       ptl_ct_event_t *, unsigned int *));
SIG(PtlCTSet, int (*)(ptl_handle_ct_t, ptl_ct_event_t));
SIG(PtlCTInc, int (*)(ptl_handle_ct_t, ptl_ct_event_t));
SIG(PtlPut, int (*)(ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_ack_req_t, ptl_process_t,
                    ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *, ptl_hdr_data_t));
SIG(PtlGet, int (*)(ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_process_t, ptl_pt_index_t,
                    ptl_match_bits_t, ptl_size_t, void *));
SIG(PtlAtomic, int (*)(ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_ack_req_t, ptl_process_t,
                       ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *, ptl_hdr_data_t,
                       ptl_op_t, ptl_datatype_t));
SIG(PtlFetchAtomic, int (*)(ptl_handle_md_t, ptl_size_t, ptl_handle_md_t, ptl_size_t, ptl_size_t,
                            ptl_process_t, ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *,
                            ptl_hdr_data_t, ptl_op_t, ptl_datatype_t));
SIG(PtlSwap, int (*)(ptl_handle_md_t, ptl_size_t, ptl_handle_md_t, ptl_size_t, ptl_size_t,
                     ptl_process_t, ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *,
                     ptl_hdr_data_t, const void *, ptl_op_t, ptl_datatype_t));
SIG(PtlAtomicSync, int (*)(void));
SIG(PtlTriggeredPut, int (*)(ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_ack_req_t,
                             ptl_process_t, ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *,
                             ptl_hdr_data_t, ptl_handle_ct_t, ptl_size_t));
SIG(PtlTriggeredGet, int (*)(ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_process_t,
                             ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *,
                             ptl_handle_ct_t, ptl_size_t));
SIG(PtlTriggeredAtomic, int (*)(ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_ack_req_t,
                                ptl_process_t, ptl_pt_index_t, ptl_match_bits_t, ptl_size_t,
                                void *, ptl_hdr_data_t, ptl_op_t, ptl_datatype_t,
                                ptl_handle_ct_t, ptl_size_t));
SIG(PtlTriggeredFetchAtomic, int (*)(ptl_handle_md_t, ptl_size_t, ptl_handle_md_t, ptl_size_t,
                                     ptl_size_t, ptl_process_t, ptl_pt_index_t, ptl_match_bits_t,
                                     ptl_size_t, void *, ptl_hdr_data_t, ptl_op_t, ptl_datatype_t,
                                     ptl_handle_ct_t, ptl_size_t));
SIG(PtlTriggeredSwap, int (*)(ptl_handle_md_t, ptl_size_t, ptl_handle_md_t, ptl_size_t,
                              ptl_size_t, ptl_process_t, ptl_pt_index_t, ptl_match_bits_t,
                              ptl_size_t, void *, ptl_hdr_data_t, const void *, ptl_op_t,
                              ptl_datatype_t, ptl_handle_ct_t, ptl_size_t));
SIG(PtlTriggeredCTInc, int (*)(ptl_handle_ct_t, ptl_ct_event_t, ptl_handle_ct_t, ptl_size_t));
SIG(PtlTriggeredCTSet, int (*)(ptl_handle_ct_t, ptl_ct_event_t, ptl_handle_ct_t, ptl_size_t));
SIG(PtlTriggeredMEAppend, int (*)(ptl_handle_ni_t, ptl_pt_index_t, ptl_me_t *, ptl_list_t, void *,
                                  ptl_handle_me_t *, ptl_handle_ct_t, ptl_size_t));
SIG(PtlTriggeredMEUnlink, int (*)(ptl_handle_me_t, ptl_handle_ct_t, ptl_size_t));
SIG(PtlStartBundle, int (*)(ptl_handle_ni_t));
SIG(PtlEndBundle, int (*)(ptl_handle_ni_t));
SIG(PtlHandleIsEqual, int (*)(ptl_handle_any_t, ptl_handle_any_t));

/* ---- run-time checks --------------------------------------------------- */

static void check_distinct(const char *what, const long long *v, const char *const *names,
                           size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            CHECK_MSG(v[i] != v[j], "%s: %s == %s (%lld)", what, names[i], names[j], v[i]);
}

/* Values 0..n-1 in table order (REF numbering), hence also distinct. */
static void check_sequence(const char *what, const long long *v, const char *const *names,
                           size_t n)
{
    for (size_t i = 0; i < n; i++)
        CHECK_MSG(v[i] == (long long)i, "%s: %s = %lld, expected %zu", what, names[i], v[i], i);
    check_distinct(what, v, names, n);
}

/* Single-bit, pairwise-distinct option bits, all inside mask. */
static void check_bits(const char *what, const unsigned *v, const char *const *names, size_t n,
                       unsigned mask)
{
    unsigned all = 0;
    for (size_t i = 0; i < n; i++) {
        CHECK_MSG(v[i] != 0 && (v[i] & (v[i] - 1)) == 0, "%s: %s = %#x is not one bit", what,
                  names[i], v[i]);
        CHECK_MSG((all & v[i]) == 0, "%s: %s = %#x overlaps another bit", what, names[i], v[i]);
        CHECK_MSG((v[i] & ~mask) == 0, "%s: %s = %#x outside mask %#x", what, names[i], v[i],
                  mask);
        all |= v[i];
    }
    CHECK_MSG(all == mask, "%s: mask %#x != union of bits %#x", what, mask, all);
}

#define LL(x) (long long)(x)
#define NM(x) #x

static void test_return_codes(void)
{
    static const long long v[] = {
        LL(PTL_OK), LL(PTL_ARG_INVALID), LL(PTL_CT_NONE_REACHED), LL(PTL_EQ_DROPPED),
        LL(PTL_EQ_EMPTY), LL(PTL_FAIL), LL(PTL_IGNORED), LL(PTL_IN_USE), LL(PTL_INTERRUPTED),
        LL(PTL_LIST_TOO_LONG), LL(PTL_NO_INIT), LL(PTL_NO_SPACE), LL(PTL_PID_IN_USE),
        LL(PTL_PT_FULL), LL(PTL_PT_EQ_NEEDED), LL(PTL_PT_IN_USE), LL(PTL_ABORTED)};
    static const char *const n[] = {
        NM(PTL_OK), NM(PTL_ARG_INVALID), NM(PTL_CT_NONE_REACHED), NM(PTL_EQ_DROPPED),
        NM(PTL_EQ_EMPTY), NM(PTL_FAIL), NM(PTL_IGNORED), NM(PTL_IN_USE), NM(PTL_INTERRUPTED),
        NM(PTL_LIST_TOO_LONG), NM(PTL_NO_INIT), NM(PTL_NO_SPACE), NM(PTL_PID_IN_USE),
        NM(PTL_PT_FULL), NM(PTL_PT_EQ_NEEDED), NM(PTL_PT_IN_USE), NM(PTL_ABORTED)};
    _Static_assert(N_(v) == N_(n), "table");
    /* §4 suggested numbering: REF19 0..15, PTL_ABORTED 16, LAST one past. */
    check_sequence("return code", v, n, N_(v));
    CHECK_EQ(PTL_STATUS_LAST, 17);
    CHECK_EQ(PTL_OK, 0);

    /* All are distinct integer constant expressions usable as case labels
     * in one switch (OMPI ompi_mtl_portals4_get_error, REF testing.h). */
    int hits = 0;
    for (int rc = 0; rc < PTL_STATUS_LAST; rc++) {
        switch (rc) {
        case PTL_OK: case PTL_ARG_INVALID: case PTL_CT_NONE_REACHED: case PTL_EQ_DROPPED:
        case PTL_EQ_EMPTY: case PTL_FAIL: case PTL_IGNORED: case PTL_IN_USE:
        case PTL_INTERRUPTED: case PTL_LIST_TOO_LONG: case PTL_NO_INIT: case PTL_NO_SPACE:
        case PTL_PID_IN_USE: case PTL_PT_FULL: case PTL_PT_EQ_NEEDED: case PTL_PT_IN_USE:
        case PTL_ABORTED:
            hits++;
            break;
        default:
            break;
        }
    }
    CHECK_EQ(hits, 17);
}

static void test_event_kinds_and_fail_codes(void)
{
    static const long long ev[] = {
        LL(PTL_EVENT_GET), LL(PTL_EVENT_GET_OVERFLOW), LL(PTL_EVENT_PUT),
        LL(PTL_EVENT_PUT_OVERFLOW), LL(PTL_EVENT_ATOMIC), LL(PTL_EVENT_ATOMIC_OVERFLOW),
        LL(PTL_EVENT_FETCH_ATOMIC), LL(PTL_EVENT_FETCH_ATOMIC_OVERFLOW), LL(PTL_EVENT_REPLY),
        LL(PTL_EVENT_SEND), LL(PTL_EVENT_ACK), LL(PTL_EVENT_PT_DISABLED), LL(PTL_EVENT_LINK),
        LL(PTL_EVENT_AUTO_UNLINK), LL(PTL_EVENT_AUTO_FREE), LL(PTL_EVENT_SEARCH)};
    static const char *const evn[] = {
        NM(PTL_EVENT_GET), NM(PTL_EVENT_GET_OVERFLOW), NM(PTL_EVENT_PUT),
        NM(PTL_EVENT_PUT_OVERFLOW), NM(PTL_EVENT_ATOMIC), NM(PTL_EVENT_ATOMIC_OVERFLOW),
        NM(PTL_EVENT_FETCH_ATOMIC), NM(PTL_EVENT_FETCH_ATOMIC_OVERFLOW), NM(PTL_EVENT_REPLY),
        NM(PTL_EVENT_SEND), NM(PTL_EVENT_ACK), NM(PTL_EVENT_PT_DISABLED), NM(PTL_EVENT_LINK),
        NM(PTL_EVENT_AUTO_UNLINK), NM(PTL_EVENT_AUTO_FREE), NM(PTL_EVENT_SEARCH)};
    _Static_assert(N_(ev) == N_(evn) && N_(ev) == 16, "16 event kinds");
    check_sequence("event kind", ev, evn, N_(ev)); /* §11.1: REF GET=0 ... SEARCH=15 */
    for (size_t i = 0; i < N_(ev); i++) /* fits ptl_event_kind_t */
        CHECK_EQ((ptl_event_kind_t)ev[i], ev[i]);

    static const long long nf[] = {
        LL(PTL_NI_OK), LL(PTL_NI_UNDELIVERABLE), LL(PTL_NI_DROPPED), LL(PTL_NI_PT_DISABLED),
        LL(PTL_NI_PERM_VIOLATION), LL(PTL_NI_OP_VIOLATION), LL(PTL_NI_NO_MATCH),
        LL(PTL_NI_SEGV)};
    static const char *const nfn[] = {
        NM(PTL_NI_OK), NM(PTL_NI_UNDELIVERABLE), NM(PTL_NI_DROPPED), NM(PTL_NI_PT_DISABLED),
        NM(PTL_NI_PERM_VIOLATION), NM(PTL_NI_OP_VIOLATION), NM(PTL_NI_NO_MATCH),
        NM(PTL_NI_SEGV)};
    _Static_assert(N_(nf) == N_(nfn), "table");
    check_sequence("ni_fail", nf, nfn, N_(nf)); /* §11.3 REF values 0..7 */

    /* Client idioms: ev.ni_fail_type != PTL_OK (SOS), == PTL_OK (OMPI). */
    ptl_event_t e = {0};
    e.ni_fail_type = PTL_NI_OK;
    CHECK(e.ni_fail_type == PTL_OK);
    e.ni_fail_type = PTL_NI_PT_DISABLED;
    CHECK(e.ni_fail_type != PTL_OK);
}

static void test_ops_and_datatypes(void)
{
    static const long long op[] = {
        LL(PTL_MIN), LL(PTL_MAX), LL(PTL_SUM), LL(PTL_PROD), LL(PTL_LOR), LL(PTL_LAND),
        LL(PTL_BOR), LL(PTL_BAND), LL(PTL_LXOR), LL(PTL_BXOR), LL(PTL_SWAP), LL(PTL_CSWAP),
        LL(PTL_CSWAP_NE), LL(PTL_CSWAP_LE), LL(PTL_CSWAP_LT), LL(PTL_CSWAP_GE), LL(PTL_CSWAP_GT),
        LL(PTL_MSWAP)};
    static const char *const opn[] = {
        NM(PTL_MIN), NM(PTL_MAX), NM(PTL_SUM), NM(PTL_PROD), NM(PTL_LOR), NM(PTL_LAND),
        NM(PTL_BOR), NM(PTL_BAND), NM(PTL_LXOR), NM(PTL_BXOR), NM(PTL_SWAP), NM(PTL_CSWAP),
        NM(PTL_CSWAP_NE), NM(PTL_CSWAP_LE), NM(PTL_CSWAP_LT), NM(PTL_CSWAP_GE), NM(PTL_CSWAP_GT),
        NM(PTL_MSWAP)};
    _Static_assert(N_(op) == N_(opn) && N_(op) == 18, "18 ops");
    check_sequence("op", op, opn, N_(op)); /* §13.4 REF 0..17 */
    CHECK_EQ(PTL_OP_LAST, 18);

    static const long long dt[] = {
        LL(PTL_INT8_T), LL(PTL_UINT8_T), LL(PTL_INT16_T), LL(PTL_UINT16_T), LL(PTL_INT32_T),
        LL(PTL_UINT32_T), LL(PTL_FLOAT), LL(PTL_INT64_T), LL(PTL_UINT64_T), LL(PTL_DOUBLE),
        LL(PTL_FLOAT_COMPLEX), LL(PTL_DOUBLE_COMPLEX), LL(PTL_LONG_DOUBLE),
        LL(PTL_LONG_DOUBLE_COMPLEX)};
    static const char *const dtn[] = {
        NM(PTL_INT8_T), NM(PTL_UINT8_T), NM(PTL_INT16_T), NM(PTL_UINT16_T), NM(PTL_INT32_T),
        NM(PTL_UINT32_T), NM(PTL_FLOAT), NM(PTL_INT64_T), NM(PTL_UINT64_T), NM(PTL_DOUBLE),
        NM(PTL_FLOAT_COMPLEX), NM(PTL_DOUBLE_COMPLEX), NM(PTL_LONG_DOUBLE),
        NM(PTL_LONG_DOUBLE_COMPLEX)};
    _Static_assert(N_(dt) == N_(dtn) && N_(dt) == 14, "14 datatypes");
    check_sequence("datatype", dt, dtn, N_(dt)); /* §13.4 REF 0..13 */
    CHECK_EQ(PTL_DATATYPE_LAST, 14);
}

static void test_small_enums(void)
{
    CHECK_EQ(PTL_PRIORITY_LIST, 0);
    CHECK_EQ(PTL_OVERFLOW_LIST, 1);
    CHECK_EQ(PTL_SEARCH_ONLY, 0);
    CHECK_EQ(PTL_SEARCH_DELETE, 1);
    static const long long ack[] = {LL(PTL_NO_ACK_REQ), LL(PTL_ACK_REQ), LL(PTL_CT_ACK_REQ),
                                    LL(PTL_OC_ACK_REQ)};
    static const char *const ackn[] = {NM(PTL_NO_ACK_REQ), NM(PTL_ACK_REQ), NM(PTL_CT_ACK_REQ),
                                       NM(PTL_OC_ACK_REQ)};
    check_sequence("ack_req", ack, ackn, N_(ack));
    static const long long sr[] = {LL(PTL_SR_DROP_COUNT), LL(PTL_SR_PERMISSION_VIOLATIONS),
                                   LL(PTL_SR_OPERATION_VIOLATIONS)};
    static const char *const srn[] = {NM(PTL_SR_DROP_COUNT), NM(PTL_SR_PERMISSION_VIOLATIONS),
                                      NM(PTL_SR_OPERATION_VIOLATIONS)};
    check_sequence("status register", sr, srn, N_(sr));
    CHECK_EQ(PTL_SR_LAST, 3);
    ptl_ct_type_t ctt = PTL_CT_BYTE;
    CHECK(ctt != PTL_CT_OPERATION);
}

static void test_option_bits(void)
{
    /* §5.2 NI options (REF values) and features. */
    CHECK_EQ(PTL_NI_MATCHING, 1);
    CHECK_EQ(PTL_NI_NO_MATCHING, 2);
    CHECK_EQ(PTL_NI_LOGICAL, 4);
    CHECK_EQ(PTL_NI_PHYSICAL, 8);
    CHECK_EQ(PTL_NI_INIT_OPTIONS_MASK, 0xF);
    CHECK_EQ(PTL_TARGET_BIND_INACCESSIBLE, 1);
    CHECK_EQ(PTL_TOTAL_DATA_ORDERING, 2);
    CHECK_EQ(PTL_COHERENT_ATOMICS, 4);

    /* §6.1 PT options. */
    static const unsigned pt[] = {PTL_PT_ONLY_USE_ONCE, PTL_PT_FLOWCTRL, PTL_PT_ONLY_TRUNCATE,
                                  PTL_PT_MATCH_UNORDERED, PTL_PT_ALLOC_DISABLED,
                                  PTL_PT_SLUICE_WAIT /* Sluice extension */};
    static const char *const ptn[] = {NM(PTL_PT_ONLY_USE_ONCE), NM(PTL_PT_FLOWCTRL),
                                      NM(PTL_PT_ONLY_TRUNCATE), NM(PTL_PT_MATCH_UNORDERED),
                                      NM(PTL_PT_ALLOC_DISABLED), NM(PTL_PT_SLUICE_WAIT)};
    check_bits("PT options", pt, ptn, N_(pt), PTL_PT_ALLOC_OPTIONS_MASK);
    CHECK_EQ(PTL_PT_ONLY_USE_ONCE, 1);
    CHECK_EQ(PTL_PT_FLOWCTRL, 2);
    CHECK_EQ(PTL_PT_ONLY_TRUNCATE, 4);

    /* §7.1 MD options: REF values, CT_BYTES shared with LE/ME. */
    static const unsigned md[] = {
        PTL_IOVEC, PTL_MD_EVENT_CT_SEND, PTL_MD_EVENT_CT_REPLY, PTL_MD_EVENT_CT_ACK,
        PTL_MD_UNORDERED, PTL_MD_EVENT_SUCCESS_DISABLE, PTL_MD_VOLATILE,
        PTL_MD_EVENT_SEND_DISABLE, PTL_MD_UNRELIABLE, PTL_MD_EVENT_CT_BYTES,
        PTL_MD_SLUICE_LAZY, PTL_MD_SLUICE_ONE_COPY /* Sluice extensions */};
    static const char *const mdn[] = {
        NM(PTL_IOVEC), NM(PTL_MD_EVENT_CT_SEND), NM(PTL_MD_EVENT_CT_REPLY),
        NM(PTL_MD_EVENT_CT_ACK), NM(PTL_MD_UNORDERED), NM(PTL_MD_EVENT_SUCCESS_DISABLE),
        NM(PTL_MD_VOLATILE), NM(PTL_MD_EVENT_SEND_DISABLE), NM(PTL_MD_UNRELIABLE),
        NM(PTL_MD_EVENT_CT_BYTES), NM(PTL_MD_SLUICE_LAZY), NM(PTL_MD_SLUICE_ONE_COPY)};
    check_bits("MD options", md, mdn, N_(md), PTL_MD_OPTIONS_MASK);
    CHECK_EQ(PTL_IOVEC, 1);
    CHECK_EQ(PTL_MD_EVENT_CT_SEND, 2);
    CHECK_EQ(PTL_MD_EVENT_CT_REPLY, 4);
    CHECK_EQ(PTL_MD_EVENT_CT_ACK, 8);
    CHECK_EQ(PTL_MD_UNORDERED, 16);
    CHECK_EQ(PTL_MD_EVENT_SUCCESS_DISABLE, 32);
    CHECK_EQ(PTL_MD_VOLATILE, 64);
    CHECK_EQ(PTL_MD_EVENT_SEND_DISABLE, 128);
    CHECK_EQ(PTL_MD_UNRELIABLE, 256);

    /* §8.1 ME options; LE mask is the ME mask minus the ME-only bits. */
    static const unsigned me[] = {
        PTL_IOVEC, PTL_ME_OP_PUT, PTL_ME_OP_GET, PTL_ME_MANAGE_LOCAL, PTL_ME_NO_TRUNCATE,
        PTL_ME_USE_ONCE, PTL_ME_MAY_ALIGN, PTL_ME_ACK_DISABLE, PTL_ME_UNEXPECTED_HDR_DISABLE,
        PTL_ME_IS_ACCESSIBLE, PTL_ME_EVENT_COMM_DISABLE, PTL_ME_EVENT_FLOWCTRL_DISABLE,
        PTL_ME_EVENT_SUCCESS_DISABLE, PTL_ME_EVENT_OVER_DISABLE, PTL_ME_EVENT_UNLINK_DISABLE,
        PTL_ME_EVENT_LINK_DISABLE, PTL_ME_EVENT_CT_COMM, PTL_ME_EVENT_CT_OVERFLOW,
        PTL_ME_EVENT_CT_BYTES, PTL_ME_LOCAL_INC_UH_RLENGTH};
    static const char *const men[] = {
        NM(PTL_IOVEC), NM(PTL_ME_OP_PUT), NM(PTL_ME_OP_GET), NM(PTL_ME_MANAGE_LOCAL),
        NM(PTL_ME_NO_TRUNCATE), NM(PTL_ME_USE_ONCE), NM(PTL_ME_MAY_ALIGN),
        NM(PTL_ME_ACK_DISABLE), NM(PTL_ME_UNEXPECTED_HDR_DISABLE), NM(PTL_ME_IS_ACCESSIBLE),
        NM(PTL_ME_EVENT_COMM_DISABLE), NM(PTL_ME_EVENT_FLOWCTRL_DISABLE),
        NM(PTL_ME_EVENT_SUCCESS_DISABLE), NM(PTL_ME_EVENT_OVER_DISABLE),
        NM(PTL_ME_EVENT_UNLINK_DISABLE), NM(PTL_ME_EVENT_LINK_DISABLE),
        NM(PTL_ME_EVENT_CT_COMM), NM(PTL_ME_EVENT_CT_OVERFLOW), NM(PTL_ME_EVENT_CT_BYTES),
        NM(PTL_ME_LOCAL_INC_UH_RLENGTH)};
    _Static_assert(N_(me) == N_(men), "table");
    check_bits("ME options", me, men, N_(me), PTL_ME_APPEND_OPTIONS_MASK);
    unsigned me_only = PTL_ME_MANAGE_LOCAL | PTL_ME_NO_TRUNCATE | PTL_ME_MAY_ALIGN |
                       PTL_ME_LOCAL_INC_UH_RLENGTH;
    CHECK_EQ(PTL_LE_APPEND_OPTIONS_MASK, PTL_ME_APPEND_OPTIONS_MASK & ~me_only);
    CHECK_EQ(PTL_LE_APPEND_OPTIONS_MASK & me_only, 0);
}

/* Old and new names, LE and ME spellings, shared bits: same values. */
static void test_aliases(void)
{
    CHECK_EQ(PTL_NI_OK, PTL_OK);
    CHECK_EQ(PTL_LE_OP_PUT, PTL_ME_OP_PUT);
    CHECK_EQ(PTL_LE_OP_GET, PTL_ME_OP_GET);
    CHECK_EQ(PTL_LE_USE_ONCE, PTL_ME_USE_ONCE);
    CHECK_EQ(PTL_LE_ACK_DISABLE, PTL_ME_ACK_DISABLE);
    CHECK_EQ(PTL_LE_UNEXPECTED_HDR_DISABLE, PTL_ME_UNEXPECTED_HDR_DISABLE);
    CHECK_EQ(PTL_LE_IS_ACCESSIBLE, PTL_ME_IS_ACCESSIBLE);
    CHECK_EQ(PTL_LE_EVENT_COMM_DISABLE, PTL_ME_EVENT_COMM_DISABLE);
    CHECK_EQ(PTL_LE_EVENT_FLOWCTRL_DISABLE, PTL_ME_EVENT_FLOWCTRL_DISABLE);
    CHECK_EQ(PTL_LE_EVENT_SUCCESS_DISABLE, PTL_ME_EVENT_SUCCESS_DISABLE);
    CHECK_EQ(PTL_LE_EVENT_OVER_DISABLE, PTL_ME_EVENT_OVER_DISABLE);
    CHECK_EQ(PTL_LE_EVENT_UNLINK_DISABLE, PTL_ME_EVENT_UNLINK_DISABLE);
    CHECK_EQ(PTL_LE_EVENT_LINK_DISABLE, PTL_ME_EVENT_LINK_DISABLE);
    CHECK_EQ(PTL_LE_EVENT_CT_COMM, PTL_ME_EVENT_CT_COMM);
    CHECK_EQ(PTL_LE_EVENT_CT_OVERFLOW, PTL_ME_EVENT_CT_OVERFLOW);
    CHECK_EQ(PTL_LE_EVENT_CT_BYTES, PTL_ME_EVENT_CT_BYTES);
    CHECK_EQ(PTL_MD_EVENT_CT_BYTES, PTL_ME_EVENT_CT_BYTES);
    /* 4.0 name kept beside its 4.3 replacement: both exist and differ. */
    CHECK(PTL_INTERRUPTED != PTL_ABORTED);
}

/* Handles: scalar, ==-comparable, sentinels distinct and outside the
 * engine's encoding (reserved index 0xFFFFF or reserved type 0xF). */
static void test_handles(void)
{
    ptl_handle_any_t h[] = {PTL_EQ_NONE, PTL_CT_NONE, PTL_INVALID_HANDLE};
    CHECK(h[0] != h[1] && h[0] != h[2] && h[1] != h[2]);
    for (size_t i = 0; i < N_(h); i++) {
        unsigned type = h[i] >> 28, index = h[i] & 0xFFFFFu;
        CHECK(type == 0xF || index == 0xFFFFFu);
    }
    ptl_handle_ct_t ct = PTL_CT_NONE;
    CHECK(ct == PTL_CT_NONE);
    ptl_handle_md_t md = PTL_INVALID_HANDLE;
    CHECK(md == PTL_INVALID_HANDLE);
}

/* Every structure field named and used as clients use it. */
static void test_structures(void)
{
    ptl_ct_event_t ce = (ptl_ct_event_t){1, 0}; /* positional: success, failure */
    CHECK_EQ(ce.success, 1);
    CHECK_EQ(ce.failure, 0);

    int buf[4] = {0};
    ptl_iovec_t iov[2] = {{.iov_base = buf, .iov_len = 8}, {.iov_base = buf + 2, .iov_len = 8}};
    CHECK(iov[1].iov_len == 8 && iov[0].iov_base == buf);

    ptl_md_t md = {.start = NULL, .length = PTL_SIZE_MAX, .options = PTL_MD_EVENT_CT_ACK,
                   .eq_handle = PTL_EQ_NONE, .ct_handle = PTL_CT_NONE};
    CHECK(md.start == NULL && md.length == UINT64_MAX && md.options == PTL_MD_EVENT_CT_ACK &&
          md.eq_handle == PTL_EQ_NONE && md.ct_handle == PTL_CT_NONE);

    ptl_le_t le = {.start = iov, .length = 2, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                   .options = PTL_IOVEC | PTL_LE_OP_PUT};
    CHECK(le.start == iov && le.length == 2 && le.ct_handle == PTL_CT_NONE &&
          le.uid == PTL_UID_ANY && le.options == (PTL_IOVEC | PTL_LE_OP_PUT));

    ptl_me_t me = {.start = buf, .length = sizeof buf, .ct_handle = PTL_CT_NONE,
                   .uid = PTL_UID_ANY, .options = PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL,
                   .match_id = {.phys = {.nid = PTL_NID_ANY, .pid = PTL_PID_ANY}},
                   .match_bits = 0x1234, .ignore_bits = ~(ptl_match_bits_t)0xff,
                   .min_free = 4};
    CHECK(me.match_id.phys.nid == PTL_NID_ANY && me.match_id.phys.pid == PTL_PID_ANY);
    CHECK(me.start == buf && me.length == sizeof buf && me.ct_handle == PTL_CT_NONE);
    CHECK(me.uid == PTL_UID_ANY && me.min_free == 4 && me.match_bits == 0x1234);
    CHECK(me.ignore_bits == 0xffffffffffffff00ull);
    CHECK(me.options == (PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL));

    /* §3.2: designated init, rank overlays phys.nid, last store wins. */
    ptl_process_t p = (ptl_process_t){.rank = 7};
    CHECK_EQ(p.phys.nid, 7);
    p.phys.nid = 0;
    p.phys.pid = 0;
    p.rank = 42;
    CHECK_EQ(p.rank, 42);
    CHECK_EQ(p.phys.nid, 42);
    CHECK(PTL_RANK_ANY != (ptl_rank_t)0 && PTL_PT_ANY > (ptl_pt_index_t)1000000);

    ptl_ni_limits_t lim = {.max_entries = 1, .max_unexpected_headers = 2, .max_mds = 3,
                           .max_cts = 4, .max_eqs = 5, .max_pt_index = 63, .max_iovecs = 6,
                           .max_list_size = 7, .max_triggered_ops = 8,
                           .max_msg_size = PTL_SIZE_MAX, .max_atomic_size = 32,
                           .max_fetch_atomic_size = 32, .max_waw_ordered_size = 64,
                           .max_war_ordered_size = 8, .max_volatile_size = 32,
                           .features = PTL_TARGET_BIND_INACCESSIBLE | PTL_TOTAL_DATA_ORDERING};
    CHECK(lim.max_entries + lim.max_unexpected_headers + lim.max_mds + lim.max_cts +
              lim.max_eqs + lim.max_iovecs + lim.max_list_size + lim.max_triggered_ops == 36);
    CHECK(lim.max_pt_index == 63 && lim.max_msg_size == PTL_SIZE_MAX);
    CHECK(lim.max_atomic_size + lim.max_fetch_atomic_size + lim.max_waw_ordered_size +
              lim.max_war_ordered_size + lim.max_volatile_size == 168);
    CHECK(lim.features == 3);

    ptl_event_t ev = {.start = buf, .user_ptr = &ev, .hdr_data = 9, .match_bits = 10,
                      .rlength = 11, .mlength = 12, .remote_offset = 13,
                      .initiator = {.rank = 14}, .uid = 15, .pt_index = 16,
                      .type = PTL_EVENT_PUT_OVERFLOW, .ptl_list = PTL_OVERFLOW_LIST,
                      .ni_fail_type = PTL_NI_OK, .atomic_operation = PTL_CSWAP_GT,
                      .atomic_type = PTL_LONG_DOUBLE_COMPLEX};
    CHECK(ev.start == buf && ev.user_ptr == &ev);
    CHECK(ev.hdr_data + ev.match_bits + ev.rlength + ev.mlength + ev.remote_offset == 55);
    CHECK(ev.initiator.rank == 14 && ev.uid == 15 && ev.pt_index == 16);
    CHECK(ev.type == PTL_EVENT_PUT_OVERFLOW && ev.ptl_list == PTL_OVERFLOW_LIST);
    CHECK(ev.ni_fail_type == PTL_NI_OK && ev.atomic_operation == PTL_CSWAP_GT);
    CHECK(ev.atomic_type == PTL_LONG_DOUBLE_COMPLEX);

    /* Event kinds as case labels of one switch (OMPI's EQ loop). */
    int seen = 0;
    for (int k = 0; k < 16; k++) {
        ev.type = (ptl_event_kind_t)k;
        switch (ev.type) {
        case PTL_EVENT_GET: case PTL_EVENT_GET_OVERFLOW: case PTL_EVENT_PUT:
        case PTL_EVENT_PUT_OVERFLOW: case PTL_EVENT_ATOMIC: case PTL_EVENT_ATOMIC_OVERFLOW:
        case PTL_EVENT_FETCH_ATOMIC: case PTL_EVENT_FETCH_ATOMIC_OVERFLOW:
        case PTL_EVENT_REPLY: case PTL_EVENT_SEND: case PTL_EVENT_ACK:
        case PTL_EVENT_PT_DISABLED: case PTL_EVENT_LINK: case PTL_EVENT_AUTO_UNLINK:
        case PTL_EVENT_AUTO_FREE: case PTL_EVENT_SEARCH:
            seen++;
            break;
        default:
            break;
        }
    }
    CHECK_EQ(seen, 16);
}

int main(void)
{
    test_return_codes();
    test_event_kinds_and_fail_codes();
    test_ops_and_datatypes();
    test_small_enums();
    test_option_bits();
    test_aliases();
    test_handles();
    test_structures();
    t_done("ptl_header");
    return 0;
}
