/**
 * @file portals4.h
 * @brief Sluice's Portals 4 public interface.
 *
 * Coverage.  Every type, constant and function of the Portals 4.0 and 4.0.x
 * interface (4.1 and 4.2 add nothing visible in this header), plus the 4.3
 * additions carried side by side with the 4.0 names they replace, as the
 * "recommended superset" of /work/shared/PORTALS4_API.md §17 describes:
 *   - 4.0 names kept although 4.3 removed them: PTL_INTERRUPTED,
 *     PTL_ME_ACK_DISABLE / PTL_LE_ACK_DISABLE;
 *   - 4.3 names added: PtlAbort(), PTL_ABORTED, PTL_ME_LOCAL_INC_UH_RLENGTH,
 *     PTL_PT_ALLOC_DISABLED, PTL_MD_UNRELIABLE;
 *   - reference-implementation helpers that test programs use to build
 *     invalid arguments: PTL_*_OPTIONS_MASK, PTL_OP_LAST, PTL_DATATYPE_LAST,
 *     PTL_SR_LAST, PTL_STATUS_LAST, and the PTL_PT_MATCH_UNORDERED hint bit.
 * Constants are macros expanding to integer constant expressions (usable
 * in #if, case labels and static initialisers); the few that the reference
 * gives a type (handles, ids, sizes) carry a cast to that type.  Plain macros
 * rather than enumerators, so that comparing constants of different groups
 * (e.g. PTL_NI_OK == PTL_OK) draws no -Wenum-compare warning in C or C++.
 * Exceptions, enumerators because §3.1 defines those types as enums:
 * PTL_SR_* (ptl_sr_index_t) and PTL_CT_OPERATION/PTL_CT_BYTE (ptl_ct_type_t).
 * Numeric values follow the Portals 4 reference implementation wherever the
 * API reference gives them (sections cited next to each group); where it
 * leaves them to the implementation, the choice is written next to them.
 *
 * Sluice extensions.  PtlTriggeredMEAppend() and PtlTriggeredMEUnlink()
 * (reference-implementation extension, paper 004: list entries appended or
 * unlinked when a counting event reaches a threshold); PtlSluiceMem*
 * (memory every process on the host has mapped, and the mapping of a peer's
 * block); the PTL_PT_SLUICE_WAIT and PTL_MD_SLUICE_LAZY option bits.  Every
 * other name is from the Portals 4 / reference-implementation set.
 *
 * Packaging (§1).  Self-contained C99/C11/C++ header: includes only
 * <stdint.h> and <stddef.h>; clients link with -lportals.
 */
#ifndef PORTALS4_H
#define PORTALS4_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/** @name Scalar types (§3.1) */
/** @{ */

typedef uint64_t ptl_size_t;       /**< sizes, offsets, counters, thresholds */
typedef uint32_t ptl_pt_index_t;   /**< portal-table index */
typedef uint64_t ptl_match_bits_t; /**< match / ignore bits */
typedef uint64_t ptl_hdr_data_t;   /**< 64 bits of out-of-band header data */
typedef unsigned int ptl_time_t;   /**< milliseconds; PTL_TIME_FOREVER = infinite */
typedef unsigned int ptl_interface_t; /**< network-interface selector */
typedef uint32_t ptl_nid_t;        /**< node id (physical addressing) */
typedef uint32_t ptl_pid_t;        /**< process id (physical addressing) */
typedef uint32_t ptl_rank_t;       /**< rank (logical addressing) */
typedef uint32_t ptl_uid_t;        /**< user id */
typedef int ptl_sr_value_t;        /**< status-register value */

typedef unsigned char ptl_ni_fail_t;    /**< failure code in events (§11.3) */
typedef unsigned char ptl_list_t;       /**< PTL_PRIORITY_LIST / PTL_OVERFLOW_LIST */
typedef unsigned char ptl_search_op_t;  /**< PTL_SEARCH_ONLY / PTL_SEARCH_DELETE */
typedef unsigned char ptl_ack_req_t;    /**< acknowledgment request (§13.1) */
typedef unsigned char ptl_event_kind_t; /**< event type (§11.1) */
typedef unsigned char ptl_op_t;         /**< atomic operation (§13.4) */
typedef unsigned char ptl_datatype_t;   /**< atomic datatype (§13.4) */

/** Status-register selector for PtlNIStatus(); PTL_SR_LAST = count. */
typedef enum {
    PTL_SR_DROP_COUNT = 0,           /**< messages dropped (not perm/op violations) */
    PTL_SR_PERMISSION_VIOLATIONS = 1,/**< uid check failures */
    PTL_SR_OPERATION_VIOLATIONS = 2, /**< operation not allowed by the entry */
    PTL_SR_LAST = 3                  /**< number of status registers */
} ptl_sr_index_t;

/** Reference-implementation leftover, used by no function (§3.1). */
typedef enum {
    PTL_CT_OPERATION = 0,
    PTL_CT_BYTE = 1
} ptl_ct_type_t;

/** @} */

/* ======================================================================== */
/** @name Handles (§3.3)
 *
 * Handles are plain 32-bit integers: clients compare them with ==, store
 * them in integer fields and pass arbitrary integers in negative tests.
 *
 * Encoding reservation (Sluice engine, not part of the API; clients must
 * treat handles as opaque):
 *
 *     bits 31..28  object type   0 = never valid (so 0 and values such as
 *                                    0x0fffffff / 0x0eeeeeee are rejected)
 *                                1 NI, 2 MD, 3 EQ, 4 LE, 5 CT, 6 ME,
 *                                7..14 unassigned, 15 never valid
 *     bits 27..20  generation    bumped each time the slot is reused; a
 *                                stale handle fails the check and the call
 *                                returns PTL_ARG_INVALID without touching
 *                                the reused slot
 *     bits 19..0   index         slot index; 0xFFFFF is never allocated
 *
 * The three sentinels below keep their reference-implementation values and
 * can never equal a real handle: PTL_EQ_NONE (type 3) and PTL_CT_NONE
 * (type 5) carry the reserved index 0xFFFFF, PTL_INVALID_HANDLE has the
 * reserved type 15.
 */
/** @{ */

typedef uint32_t ptl_handle_any_t;        /**< any object */
typedef ptl_handle_any_t ptl_handle_ni_t; /**< network interface */
typedef ptl_handle_any_t ptl_handle_eq_t; /**< event queue */
typedef ptl_handle_any_t ptl_handle_ct_t; /**< counting event */
typedef ptl_handle_any_t ptl_handle_md_t; /**< memory descriptor */
typedef ptl_handle_any_t ptl_handle_le_t; /**< list entry */
typedef ptl_handle_any_t ptl_handle_me_t; /**< matching list entry */

#define PTL_EQ_NONE        ((ptl_handle_eq_t)0x3fffffff)  /**< no event queue */
#define PTL_CT_NONE        ((ptl_handle_ct_t)0x5fffffff)  /**< no counting event */
#define PTL_INVALID_HANDLE ((ptl_handle_any_t)0xffffffff) /**< never a valid handle */

/** @} */

/* ======================================================================== */
/** @name Process identifiers and wildcards (§3.2, §3.4) */
/** @{ */

/**
 * Process identifier: a rank on a logical NI, a nid/pid pair on a physical
 * NI.  8 bytes, no pointers (its raw bytes are exchanged between processes);
 * rank overlays phys.nid at offset 0.
 */
typedef union {
    ptl_rank_t rank; /**< logical addressing */
    struct {
        ptl_nid_t nid;
        ptl_pid_t pid;
    } phys;          /**< physical addressing */
} ptl_process_t;

#define PTL_PID_ANY       ((ptl_pid_t)0xffff)             /**< library chooses / wildcard pid */
#define PTL_NID_ANY       ((ptl_nid_t)0xffff)             /**< wildcard nid */
#define PTL_RANK_ANY      ((ptl_rank_t)0xffffffff)        /**< wildcard rank */
#define PTL_UID_ANY       ((ptl_uid_t)0xffffffff)         /**< wildcard uid in LE/ME */
#define PTL_PT_ANY        ((ptl_pt_index_t)0xffffffff)    /**< any free PT index */
#define PTL_PID_MAX       1024                            /**< largest pid (not enforced) */
#define PTL_IFACE_DEFAULT ((ptl_interface_t)0xffffffff)   /**< default interface */
#define PTL_TIME_FOREVER  ((ptl_time_t)0xffffffff)        /**< infinite timeout */
#define PTL_SIZE_MAX      ((ptl_size_t)0xffffffffffffffffULL) /**< largest size (4.0.x) */

/** @} */

/* ======================================================================== */
/** @name Return codes (§4)
 *
 * REF19 numbering (0..15) plus PTL_ABORTED = 16 (4.3), as §4 suggests;
 * PTL_STATUS_LAST is one past the largest code.  All distinct, PTL_OK == 0.
 */
/** @{ */
#define PTL_OK                           0   /**< success */
#define PTL_ARG_INVALID                  1   /**< bad argument (handle, options, size, ...) */
#define PTL_CT_NONE_REACHED              2   /**< PtlCTPoll timed out */
#define PTL_EQ_DROPPED                   3   /**< event returned, earlier event(s) lost */
#define PTL_EQ_EMPTY                     4   /**< no event */
#define PTL_FAIL                         5   /**< generic failure */
#define PTL_IGNORED                      6   /**< request ignored (e.g. second PtlSetMap) */
#define PTL_IN_USE                       7   /**< resource busy */
#define PTL_INTERRUPTED                  8   /**< wait interrupted by free/fini (4.0; removed in 4.3, kept) */
#define PTL_LIST_TOO_LONG                9   /**< list length limit */
#define PTL_NO_INIT                      10  /**< PtlInit not called */
#define PTL_NO_SPACE                     11  /**< out of memory / over a resource limit */
#define PTL_PID_IN_USE                   12  /**< requested pid taken */
#define PTL_PT_FULL                      13  /**< no free portal-table entry */
#define PTL_PT_EQ_NEEDED                 14  /**< flow control requested without an EQ */
#define PTL_PT_IN_USE                    15  /**< PT index taken / PT still has entries */
#define PTL_ABORTED                      16  /**< wait ended by PtlAbort (4.3) */
#define PTL_STATUS_LAST                  17  /**< one past the last code (REF helper) */
/** @} */

/* ======================================================================== */
/** @name Network-interface options and features (§5.2) */
/** @{ */
#define PTL_NI_MATCHING    1u   /**< receive entries carry match criteria (MEs) */
#define PTL_NI_NO_MATCHING 2u   /**< plain receive entries (LEs) */
#define PTL_NI_LOGICAL     4u   /**< targets addressed by rank (needs PtlSetMap) */
#define PTL_NI_PHYSICAL    8u   /**< targets addressed by nid/pid */
#define PTL_NI_INIT_OPTIONS_MASK 0xFu /**< all valid PtlNIInit option bits (REF helper) */

#define PTL_TARGET_BIND_INACCESSIBLE 1u /**< feature: entries may cover unmapped memory */
#define PTL_TOTAL_DATA_ORDERING      2u /**< feature: all data ordered per pair */
#define PTL_COHERENT_ATOMICS         4u /**< feature: atomics coherent with host (4.0.x) */
/** @} */

/** NI limits requested from / granted by PtlNIInit (§5.3); field order as REF. */
typedef struct {
    int max_entries;            /**< LEs + MEs at once */
    int max_unexpected_headers; /**< queued unexpected headers */
    int max_mds;                /**< MDs at once */
    int max_cts;                /**< CTs at once */
    int max_eqs;                /**< EQs at once */
    int max_pt_index;           /**< highest valid PT index */
    int max_iovecs;             /**< elements of one PTL_IOVEC list */
    int max_list_size;          /**< entries on one list of one PT */
    int max_triggered_ops;      /**< pending triggered operations */
    ptl_size_t max_msg_size;          /**< largest put/get/reply */
    ptl_size_t max_atomic_size;       /**< largest PtlAtomic */
    ptl_size_t max_fetch_atomic_size; /**< largest PtlFetchAtomic/PtlSwap */
    ptl_size_t max_waw_ordered_size;  /**< write-after-write ordering bound */
    ptl_size_t max_war_ordered_size;  /**< write-after-read ordering bound */
    ptl_size_t max_volatile_size;     /**< largest put/atomic from a VOLATILE MD */
    unsigned int features;            /**< PTL_TARGET_BIND_INACCESSIBLE | ... */
} ptl_ni_limits_t;

/* ======================================================================== */
/** @name Portal-table entry options (§6.1) */
/** @{ */
#define PTL_PT_ONLY_USE_ONCE   1u  /**< hint: all entries use-once (not enforced) */
#define PTL_PT_FLOWCTRL        2u  /**< flow control (needs an EQ) */
#define PTL_PT_ONLY_TRUNCATE   4u  /**< hint: no NO_TRUNCATE priority entries */
#define PTL_PT_MATCH_UNORDERED 8u  /**< REF-ext hint: hashed matching allowed */
#define PTL_PT_ALLOC_DISABLED  16u /**< create the entry disabled (4.3) */
/** Sluice extension: a message that finds no entry on either list is not
 * dropped: it waits, and every later message to this process queues
 * behind it (so arrival order stays matching order), until an entry
 * appended to this PT takes it.  For a receiver whose overflow buffers are
 * relinked by its host (MPI's unexpected messages); a message no entry will
 * ever take waits for good.  A bulk put's initiator is not told SEND before
 * the data has moved, so its buffer stays put meanwhile. */
#define PTL_PT_SLUICE_WAIT     (1u << 30)
#define PTL_PT_ALLOC_OPTIONS_MASK (0x1Fu | PTL_PT_SLUICE_WAIT) /**< all valid PtlPTAlloc option bits */
/** @} */

/* ======================================================================== */
/** @name List-entry / matching-list-entry options (§8.1)
 *
 * Values are implementation-chosen (Sluice uses REF's bit positions).
 * PTL_IOVEC is bit 0 in MD, LE and ME option words.  PTL_LE_x equals
 * PTL_ME_x.  Bit 1 is unused.
 */
/** @{ */
#define PTL_IOVEC                     (1u << 0) /**< start is a ptl_iovec_t array, length its count */

#define PTL_ME_OP_PUT                 (1u << 2)  /**< accept puts and atomics */
#define PTL_ME_OP_GET                 (1u << 3)  /**< accept gets (fetch/swap need both) */
#define PTL_ME_MANAGE_LOCAL           (1u << 4)  /**< target-managed running offset */
#define PTL_ME_NO_TRUNCATE            (1u << 5)  /**< too-long messages do not match */
#define PTL_ME_USE_ONCE               (1u << 6)  /**< unlink after first match */
#define PTL_ME_MAY_ALIGN              (1u << 7)  /**< hint: may pad local offset */
#define PTL_ME_ACK_DISABLE            (1u << 8)  /**< never acknowledge (4.0; removed in 4.3, kept) */
#define PTL_ME_UNEXPECTED_HDR_DISABLE (1u << 9)  /**< do not queue unexpected header */
#define PTL_ME_IS_ACCESSIBLE          (1u << 10) /**< whole region is mapped */
#define PTL_ME_EVENT_COMM_DISABLE     (1u << 11) /**< no full comm events */
#define PTL_ME_EVENT_FLOWCTRL_DISABLE (1u << 12) /**< no PTL_EVENT_PT_DISABLED */
#define PTL_ME_EVENT_SUCCESS_DISABLE  (1u << 13) /**< no full events on success */
#define PTL_ME_EVENT_OVER_DISABLE     (1u << 14) /**< no *_OVERFLOW full events */
#define PTL_ME_EVENT_UNLINK_DISABLE   (1u << 15) /**< no AUTO_UNLINK / AUTO_FREE */
#define PTL_ME_EVENT_LINK_DISABLE     (1u << 16) /**< no PTL_EVENT_LINK */
#define PTL_ME_EVENT_CT_COMM          (1u << 17) /**< count comm events */
#define PTL_ME_EVENT_CT_OVERFLOW      (1u << 18) /**< count overflow events (4.3: searches) */
#define PTL_ME_EVENT_CT_BYTES         (1u << 19) /**< count bytes instead of events */
#define PTL_ME_LOCAL_INC_UH_RLENGTH   (1u << 20) /**< advance offset by consumed UH rlength (4.3) */

#define PTL_LE_OP_PUT                 PTL_ME_OP_PUT
#define PTL_LE_OP_GET                 PTL_ME_OP_GET
#define PTL_LE_USE_ONCE               PTL_ME_USE_ONCE
#define PTL_LE_ACK_DISABLE            PTL_ME_ACK_DISABLE
#define PTL_LE_UNEXPECTED_HDR_DISABLE PTL_ME_UNEXPECTED_HDR_DISABLE
#define PTL_LE_IS_ACCESSIBLE          PTL_ME_IS_ACCESSIBLE
#define PTL_LE_EVENT_COMM_DISABLE     PTL_ME_EVENT_COMM_DISABLE
#define PTL_LE_EVENT_FLOWCTRL_DISABLE PTL_ME_EVENT_FLOWCTRL_DISABLE
#define PTL_LE_EVENT_SUCCESS_DISABLE  PTL_ME_EVENT_SUCCESS_DISABLE
#define PTL_LE_EVENT_OVER_DISABLE     PTL_ME_EVENT_OVER_DISABLE
#define PTL_LE_EVENT_UNLINK_DISABLE   PTL_ME_EVENT_UNLINK_DISABLE
#define PTL_LE_EVENT_LINK_DISABLE     PTL_ME_EVENT_LINK_DISABLE
#define PTL_LE_EVENT_CT_COMM          PTL_ME_EVENT_CT_COMM
#define PTL_LE_EVENT_CT_OVERFLOW      PTL_ME_EVENT_CT_OVERFLOW
#define PTL_LE_EVENT_CT_BYTES         PTL_ME_EVENT_CT_BYTES

/** All valid LE option bits (REF helper); an LE with ME-only bits is invalid. */
#define PTL_LE_APPEND_OPTIONS_MASK                                                  \
    (PTL_IOVEC | PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_USE_ONCE |                  \
     PTL_LE_ACK_DISABLE | PTL_LE_UNEXPECTED_HDR_DISABLE | PTL_LE_IS_ACCESSIBLE |   \
     PTL_LE_EVENT_COMM_DISABLE | PTL_LE_EVENT_FLOWCTRL_DISABLE |                    \
     PTL_LE_EVENT_SUCCESS_DISABLE | PTL_LE_EVENT_OVER_DISABLE |                     \
     PTL_LE_EVENT_UNLINK_DISABLE | PTL_LE_EVENT_LINK_DISABLE |                      \
     PTL_LE_EVENT_CT_COMM | PTL_LE_EVENT_CT_OVERFLOW | PTL_LE_EVENT_CT_BYTES)
/** All valid ME option bits (REF helper); a superset of the LE mask. */
#define PTL_ME_APPEND_OPTIONS_MASK                                                  \
    (PTL_LE_APPEND_OPTIONS_MASK | PTL_ME_MANAGE_LOCAL | PTL_ME_NO_TRUNCATE |        \
     PTL_ME_MAY_ALIGN | PTL_ME_LOCAL_INC_UH_RLENGTH)
/** @} */

/* ======================================================================== */
/** @name Memory-descriptor options (§7.1)
 *
 * REF bit values; PTL_MD_EVENT_CT_BYTES is the LE/ME CT_BYTES bit.
 */
/** @{ */
#define PTL_MD_EVENT_CT_SEND         (1u << 1) /**< count SEND */
#define PTL_MD_EVENT_CT_REPLY        (1u << 2) /**< count REPLY */
#define PTL_MD_EVENT_CT_ACK          (1u << 3) /**< count acks (all three kinds) */
#define PTL_MD_UNORDERED             (1u << 4) /**< no issue-order guarantee */
#define PTL_MD_EVENT_SUCCESS_DISABLE (1u << 5) /**< no full events on success */
#define PTL_MD_VOLATILE              (1u << 6) /**< buffer reusable on return */
#define PTL_MD_EVENT_SEND_DISABLE    (1u << 7) /**< no SEND full events */
#define PTL_MD_UNRELIABLE            (1u << 8) /**< may be dropped; PtlPut + NO_ACK only (4.3) */
#define PTL_MD_EVENT_CT_BYTES        PTL_ME_EVENT_CT_BYTES /**< count bytes instead of events */
/** Sluice extension: inline puts from this MD do not wake the target's
 * progress thread, only an application thread waiting in Portals; the
 * target handles them when its application next waits (or within 100 ms).
 * For traffic whose target acts only when its application asks (MPI's
 * eager messages); not for puts that drive triggered operations. */
#define PTL_MD_SLUICE_LAZY           (1u << 30)
/** Sluice extension: puts from this MD of more than 8 KiB to a target on
 * this host with cross-memory attach leave their bytes for the target's
 * one-sided copy (the SEND event comes when it has read them) instead of
 * going inline through its mailbox when there is room (copied twice: by
 * the initiator in, by the target out).  For initiators that expect
 * traffic the other way at the same time (an exchange), where both CPUs
 * are busy and one copy costs less than two. */
#define PTL_MD_SLUICE_ONE_COPY       (1u << 29)
/** All valid MD option bits (REF helper). */
#define PTL_MD_OPTIONS_MASK                                                         \
    (PTL_IOVEC | PTL_MD_EVENT_CT_SEND | PTL_MD_EVENT_CT_REPLY | PTL_MD_EVENT_CT_ACK | \
     PTL_MD_UNORDERED | PTL_MD_EVENT_SUCCESS_DISABLE | PTL_MD_VOLATILE |            \
     PTL_MD_EVENT_SEND_DISABLE | PTL_MD_UNRELIABLE | PTL_MD_EVENT_CT_BYTES |     \
     PTL_MD_SLUICE_LAZY | PTL_MD_SLUICE_ONE_COPY)
/** @} */

/* ======================================================================== */
/** @name Lists and searches (§3.1, §8) */
/** @{ */
#define PTL_PRIORITY_LIST                0   /**< posted receives, searched first */
#define PTL_OVERFLOW_LIST                1   /**< buffers for unexpected messages */
#define PTL_SEARCH_ONLY                  0   /**< report matching unexpected headers, keep them */
#define PTL_SEARCH_DELETE                1   /**< report and remove matching unexpected headers */
/** @} */

/* ======================================================================== */
/** @name Structures (§3.5) — field names and order as REF */
/** @{ */

/** Counting event value; built positionally as { success, failure }. */
typedef struct {
    ptl_size_t success;
    ptl_size_t failure;
} ptl_ct_event_t;

/** One element of a PTL_IOVEC list. */
typedef struct {
    void *iov_base;
    ptl_size_t iov_len;
} ptl_iovec_t;

/** Memory descriptor (initiator side). */
typedef struct {
    void *start;
    ptl_size_t length;
    unsigned int options;      /**< PTL_MD_* | PTL_IOVEC */
    ptl_handle_eq_t eq_handle; /**< PTL_EQ_NONE = no full events */
    ptl_handle_ct_t ct_handle; /**< PTL_CT_NONE = no counting */
} ptl_md_t;

/** List entry (non-matching NI). */
typedef struct {
    void *start;
    ptl_size_t length;
    ptl_handle_ct_t ct_handle;
    ptl_uid_t uid;             /**< PTL_UID_ANY = anyone */
    unsigned int options;      /**< PTL_LE_* | PTL_IOVEC */
} ptl_le_t;

/** Matching list entry (matching NI). */
typedef struct {
    void *start;
    ptl_size_t length;
    ptl_handle_ct_t ct_handle;
    ptl_uid_t uid;
    unsigned int options;      /**< PTL_ME_* | PTL_IOVEC */
    ptl_process_t match_id;    /**< sender filter, wildcards allowed */
    ptl_match_bits_t match_bits;
    ptl_match_bits_t ignore_bits;
    ptl_size_t min_free;       /**< only with PTL_ME_MANAGE_LOCAL; 0 = off */
} ptl_me_t;

/** @} */

/* ======================================================================== */
/** @name Events (§11.1-§11.3) */
/** @{ */

/** Event kinds; REF numbering GET = 0 ... SEARCH = 15. */
#define PTL_EVENT_GET                    0
#define PTL_EVENT_GET_OVERFLOW           1
#define PTL_EVENT_PUT                    2
#define PTL_EVENT_PUT_OVERFLOW           3
#define PTL_EVENT_ATOMIC                 4
#define PTL_EVENT_ATOMIC_OVERFLOW        5
#define PTL_EVENT_FETCH_ATOMIC           6
#define PTL_EVENT_FETCH_ATOMIC_OVERFLOW  7
#define PTL_EVENT_REPLY                  8
#define PTL_EVENT_SEND                   9
#define PTL_EVENT_ACK                    10
#define PTL_EVENT_PT_DISABLED            11
#define PTL_EVENT_LINK                   12
#define PTL_EVENT_AUTO_UNLINK            13
#define PTL_EVENT_AUTO_FREE              14
#define PTL_EVENT_SEARCH                 15

/** Failure codes carried in events; PTL_NI_OK == PTL_OK == 0. */
#define PTL_NI_OK                        0   /**< success */
#define PTL_NI_UNDELIVERABLE             1   /**< could not be delivered */
#define PTL_NI_DROPPED                   2   /**< dropped at target */
#define PTL_NI_PT_DISABLED               3   /**< target PT disabled */
#define PTL_NI_PERM_VIOLATION            4   /**< uid check failed */
#define PTL_NI_OP_VIOLATION              5   /**< operation not permitted by the entry */
#define PTL_NI_NO_MATCH                  6   /**< search found nothing */
#define PTL_NI_SEGV                      7   /**< target memory not accessible */

/** Full event; which fields are valid per kind: §11.2. */
typedef struct {
    void *start;
    void *user_ptr;
    ptl_hdr_data_t hdr_data;
    ptl_match_bits_t match_bits;
    ptl_size_t rlength;
    ptl_size_t mlength;
    ptl_size_t remote_offset;
    ptl_process_t initiator;
    ptl_uid_t uid;
    ptl_pt_index_t pt_index;
    ptl_event_kind_t type;
    ptl_list_t ptl_list;
    ptl_ni_fail_t ni_fail_type;
    ptl_op_t atomic_operation;
    ptl_datatype_t atomic_type;
} ptl_event_t;

/** @} */

/* ======================================================================== */
/** @name Acknowledgment requests (§13.1) */
/** @{ */
#define PTL_NO_ACK_REQ                   0   /**< no acknowledgment */
#define PTL_ACK_REQ                      1   /**< full ACK event (MD needs an EQ) */
#define PTL_CT_ACK_REQ                   2   /**< counting ack only (MD needs a CT) */
#define PTL_OC_ACK_REQ                   3   /**< operation-completed ack, counted only */
/** @} */

/* ======================================================================== */
/** @name Atomic operations and datatypes (§13.4) — REF values */
/** @{ */
#define PTL_MIN                          0
#define PTL_MAX                          1
#define PTL_SUM                          2
#define PTL_PROD                         3
#define PTL_LOR                          4
#define PTL_LAND                         5
#define PTL_BOR                          6
#define PTL_BAND                         7
#define PTL_LXOR                         8
#define PTL_BXOR                         9
#define PTL_SWAP                         10  /**< PtlSwap only */
#define PTL_CSWAP                        11  /**< PtlSwap only: store if operand == target */
#define PTL_CSWAP_NE                     12  /**< ... operand != target */
#define PTL_CSWAP_LE                     13  /**< ... operand <= target */
#define PTL_CSWAP_LT                     14  /**< ... operand <  target */
#define PTL_CSWAP_GE                     15  /**< ... operand >= target */
#define PTL_CSWAP_GT                     16  /**< ... operand >  target */
#define PTL_MSWAP                        17  /**< (S & O) | (T & ~O) */
#define PTL_OP_LAST                      18  /**< number of operations (REF helper) */

#define PTL_INT8_T                       0
#define PTL_UINT8_T                      1
#define PTL_INT16_T                      2
#define PTL_UINT16_T                     3
#define PTL_INT32_T                      4
#define PTL_UINT32_T                     5
#define PTL_FLOAT                        6
#define PTL_INT64_T                      7
#define PTL_UINT64_T                     8
#define PTL_DOUBLE                       9
#define PTL_FLOAT_COMPLEX                10
#define PTL_DOUBLE_COMPLEX               11
#define PTL_LONG_DOUBLE                  12
#define PTL_LONG_DOUBLE_COMPLEX          13
#define PTL_DATATYPE_LAST                14  /**< number of datatypes (REF helper) */
/** @} */

/* ======================================================================== */
/** @name Initialization (§5.1) */
/** @{ */
int PtlInit(void);  /**< reference-counted library init */
void PtlFini(void); /**< drop one reference; at zero release everything */
void PtlAbort(void); /**< make current waiters return PTL_ABORTED (4.3) */
/** @} */

/* ======================================================================== */
/** @name Network interfaces and identities (§5.4) */
/** @{ */
int PtlNIInit(ptl_interface_t iface, unsigned int options, ptl_pid_t pid,
              const ptl_ni_limits_t *desired, ptl_ni_limits_t *actual,
              ptl_handle_ni_t *ni_handle);
int PtlNIFini(ptl_handle_ni_t ni_handle);
int PtlNIStatus(ptl_handle_ni_t ni_handle, ptl_sr_index_t status_register,
                ptl_sr_value_t *status);
int PtlNIHandle(ptl_handle_any_t handle, ptl_handle_ni_t *ni_handle);
int PtlSetMap(ptl_handle_ni_t ni_handle, ptl_size_t map_size, const ptl_process_t *mapping);
int PtlGetMap(ptl_handle_ni_t ni_handle, ptl_size_t map_size, ptl_process_t *mapping,
              ptl_size_t *actual_map_size);
int PtlGetUid(ptl_handle_ni_t ni_handle, ptl_uid_t *uid);
int PtlGetId(ptl_handle_ni_t ni_handle, ptl_process_t *id);
int PtlGetPhysId(ptl_handle_ni_t ni_handle, ptl_process_t *id);
/** @} */

/* ======================================================================== */
/** @name Portal table (§6.2) */
/** @{ */
int PtlPTAlloc(ptl_handle_ni_t ni_handle, unsigned int options, ptl_handle_eq_t eq_handle,
               ptl_pt_index_t pt_index_req, ptl_pt_index_t *pt_index);
int PtlPTFree(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index);
int PtlPTDisable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index);
int PtlPTEnable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index);
/** @} */

/* ======================================================================== */
/** @name Memory descriptors (§7.2) */
/** @{ */
int PtlMDBind(ptl_handle_ni_t ni_handle, const ptl_md_t *md, ptl_handle_md_t *md_handle);
int PtlMDRelease(ptl_handle_md_t md_handle);
/** @} */

/* ======================================================================== */
/** @name List entries and matching list entries (§8.3) */
/** @{ */
int PtlLEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t *le,
                ptl_list_t ptl_list, void *user_ptr, ptl_handle_le_t *le_handle);
int PtlLEUnlink(ptl_handle_le_t le_handle);
int PtlLESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t *le,
                ptl_search_op_t ptl_search_op, void *user_ptr);
int PtlMEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t *me,
                ptl_list_t ptl_list, void *user_ptr, ptl_handle_me_t *me_handle);
int PtlMEUnlink(ptl_handle_me_t me_handle);
int PtlMESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t *me,
                ptl_search_op_t ptl_search_op, void *user_ptr);
/** @} */

/* ======================================================================== */
/** @name Event queues (§11.4) */
/** @{ */
int PtlEQAlloc(ptl_handle_ni_t ni_handle, ptl_size_t count, ptl_handle_eq_t *eq_handle);
int PtlEQFree(ptl_handle_eq_t eq_handle);
int PtlEQGet(ptl_handle_eq_t eq_handle, ptl_event_t *event);
int PtlEQWait(ptl_handle_eq_t eq_handle, ptl_event_t *event);
int PtlEQPoll(const ptl_handle_eq_t *eq_handles, unsigned int size, ptl_time_t timeout,
              ptl_event_t *event, unsigned int *which);
/** @} */

/* ======================================================================== */
/** @name Counting events (§12) */
/** @{ */
int PtlCTAlloc(ptl_handle_ni_t ni_handle, ptl_handle_ct_t *ct_handle);
int PtlCTFree(ptl_handle_ct_t ct_handle);
int PtlCTCancelTriggered(ptl_handle_ct_t ct_handle);
int PtlCTGet(ptl_handle_ct_t ct_handle, ptl_ct_event_t *event);
int PtlCTWait(ptl_handle_ct_t ct_handle, ptl_size_t test, ptl_ct_event_t *event);
int PtlCTPoll(const ptl_handle_ct_t *ct_handles, const ptl_size_t *tests, unsigned int size,
              ptl_time_t timeout, ptl_ct_event_t *event, unsigned int *which);
int PtlCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct);
int PtlCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment);
/** @} */

/* ======================================================================== */
/** @name Data movement (§13.2-§13.3) */
/** @{ */
int PtlPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
           ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
           ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
           ptl_hdr_data_t hdr_data);
int PtlGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
           ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
           ptl_size_t remote_offset, void *user_ptr);
int PtlAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
              ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
              ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
              ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype);
int PtlFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                   ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset, ptl_size_t length,
                   ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                   ptl_size_t remote_offset, void *user_ptr, ptl_hdr_data_t hdr_data,
                   ptl_op_t operation, ptl_datatype_t datatype);
int PtlSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
            ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset, ptl_size_t length,
            ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
            ptl_size_t remote_offset, void *user_ptr, ptl_hdr_data_t hdr_data,
            const void *operand, ptl_op_t operation, ptl_datatype_t datatype);
int PtlAtomicSync(void);
/** @} */

/* ======================================================================== */
/** @name Triggered operations (§14)
 *
 * Each is its immediate counterpart plus (trig_ct_handle, threshold): it is
 * performed once success + failure of trig_ct_handle >= threshold.
 */
/** @{ */
int PtlTriggeredPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                    ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
                    ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
                    ptl_hdr_data_t hdr_data, ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                    ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                    ptl_size_t remote_offset, void *user_ptr, ptl_handle_ct_t trig_ct_handle,
                    ptl_size_t threshold);
int PtlTriggeredAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                       ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
                       ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
                       ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype,
                       ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                            ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset,
                            ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
                            ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
                            ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype,
                            ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                     ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset, ptl_size_t length,
                     ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                     ptl_size_t remote_offset, void *user_ptr, ptl_hdr_data_t hdr_data,
                     const void *operand, ptl_op_t operation, ptl_datatype_t datatype,
                     ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment,
                      ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct,
                      ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
/** @} */

/* ======================================================================== */
/** @name Sluice extension: memory every peer on the host has mapped
 *
 * Not part of any Portals specification.  PtlSluiceMemAlloc() returns
 * len bytes (64-byte aligned) of this process's shared heap
 * (SLUICE_SHM_HEAP): a bulk put or get whose initiator-side buffer lies in
 * it is moved by the target with one memcpy through its mapping instead of
 * a cross-memory-attach system call (about 4x faster for large copies on
 * the machines measured).  PTL_NO_SPACE when the heap is exhausted or
 * disabled (callers fall back to ordinary memory), PTL_ARG_INVALID for a
 * bad NI or pointer.  The memory is valid until PtlSluiceMemFree() or
 * PtlFini(). */
/** @{ */
int PtlSluiceMemAlloc(ptl_handle_ni_t ni_handle, ptl_size_t len, void **out);
int PtlSluiceMemFree(ptl_handle_ni_t ni_handle, void *ptr);
/** Where a block of target's shared heap is mapped in this process:
 * remote_addr is the block's address in the target's own process (as
 * PtlSluiceMemAlloc returned it there), *out its address here, valid until
 * PtlFini().  Loads and stores through it reach the target's memory with no
 * Portals operation: the caller orders them (C11 atomics).  PTL_ARG_INVALID
 * for a bad NI, target or out, for the calling process itself, or a range
 * not inside the target's heap (a process on another host, a heap that is
 * disabled). */
int PtlSluiceMemAttach(ptl_handle_ni_t ni_handle, ptl_process_t target, ptl_size_t remote_addr,
                       ptl_size_t len, void **out);
/** @} */

/* ======================================================================== */
/** @name Sluice extension: how the calling thread waits
 *
 * Not part of any Portals specification.  By default a blocking wait
 * (PtlEQWait/Poll, PtlCTWait/Poll) polls for a while (SLUICE_SPIN_US, or
 * longer when waits are usually longer) before it sleeps, for latency.
 * PtlSluiceWaitSpin(0) makes the calling thread's waits sleep at once: for
 * a background thread that shares its CPU with the application (a progress
 * thread), whose polling would take the CPU the application computes on.
 * PtlSluiceWaitSpin(1) restores the default.  Always PTL_OK. */
/** @{ */
int PtlSluiceWaitSpin(int spin);
/** @} */

/* ======================================================================== */
/** @name Sluice extension: calls that post rather than wait
 *
 * Not part of any Portals specification.  A software NI serves the
 * transfers peers direct at this process (the data of a bulk put, the
 * reply of a bulk get) inside whichever engine call drives progress.  A
 * thread about to start operations of its own (an MPI_Isend, before it
 * puts) should not copy another process's data first: both would wait for
 * each other's copies in turn.  After PtlSluiceDeferBulk(1), engine calls
 * made by the calling thread queue such requests, with everything that
 * arrives after them, for the next engine call of a thread without the
 * setting (a wait, or the engine's progress thread, which is woken);
 * everything else is handled as usual.  PtlSluiceDeferBulk(0) restores the
 * default.  Always PTL_OK. */
/** @{ */
int PtlSluiceDeferBulk(int defer);
/** @} */

/* ======================================================================== */
/** @name Sluice extension: the application is driving progress
 *
 * Not part of any Portals specification.  The engine's progress thread
 * moves data while the application is away (computing); while an
 * application thread is in a layer's call that makes progress itself, work
 * the thread took would be done on the CPU the application needs.
 * PtlSluiceHostActive() says that the calling thread is in such a call
 * now; a layer calls it as a call begins and from its waiting loops.  The
 * progress thread takes work only once no such call has been seen for a
 * short grace period (PtlEQWait/Poll and PtlCTWait/Poll count by
 * themselves).  Cheap (no locked instruction).  Always PTL_OK. */
/** @{ */
int PtlSluiceHostActive(void);
/** @} */

/* ======================================================================== */
/** @name Sluice extension: peers that have ended
 *
 * Not part of any Portals specification.  Operations this process starts
 * towards an ended peer fail (PTL_NI_UNDELIVERABLE), but an entry waiting
 * for a message from it waits for ever: a layer with receive semantics
 * (MPI) asks here which peers are gone and fails what it waits for from
 * them.  *count is how many processes of the job the engine has found
 * ended so far (died, or left after PtlFini); with a rank other than
 * PTL_RANK_ANY, *gone says whether that rank is one of them (a logical
 * rank of the job).  PTL_ARG_INVALID for a bad NI, a NULL pointer or a rank
 * beyond the job. */
/** @{ */
int PtlSluicePeerGone(ptl_handle_ni_t ni_handle, ptl_rank_t rank, unsigned int *count, int *gone);
/** @} */

/* ======================================================================== */
/** @name Sluice extension: triggered ME append/unlink (§14.1, paper 004)
 *
 * Not part of any Portals specification (reference-implementation
 * extension).  When the threshold is reached a normal PtlMEAppend /
 * PtlMEUnlink is performed.  Signatures as REF: me_init and me_handle_p are
 * stored and dereferenced at trigger time, so both must stay valid until the
 * operation fires or is cancelled; *me_handle_p is written only then.
 */
/** @{ */
int PtlTriggeredMEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, ptl_me_t *me_init,
                         ptl_list_t ptl_list, void *user_ptr, ptl_handle_me_t *me_handle_p,
                         ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredMEUnlink(ptl_handle_me_t me_handle, ptl_handle_ct_t trig_ct_handle,
                         ptl_size_t threshold);
/** @} */

/* ======================================================================== */
/** @name Bundles and handle comparison (§15) */
/** @{ */
int PtlStartBundle(ptl_handle_ni_t ni_handle); /**< performance hint; nests */
int PtlEndBundle(ptl_handle_ni_t ni_handle);   /**< flushes deferred operations */
/** Non-zero if equal, 0 otherwise; no validation (any integer allowed). */
int PtlHandleIsEqual(ptl_handle_any_t handle1, ptl_handle_any_t handle2);
/** @} */

#ifdef __cplusplus
}
#endif

#endif /* PORTALS4_H */
