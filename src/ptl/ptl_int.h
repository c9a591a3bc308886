/* Private to src/ptl: the Portals 4 engine's objects, handle tables, wire
 * protocol and the functions its files call on each other.
 *
 * Locking: one engine lock (ptl_g.lock) guards every object.  Public calls
 * take it on entry; progress (wire callbacks, triggered operations) runs
 * with it held, inline in blocking waits and in the progress thread.
 * Functions below marked "locked" expect the caller to hold it. */
#ifndef SL_PTL_INT_H
#define SL_PTL_INT_H

#include "portals4.h"

#include "boot/boot.h"
#include "util/list.h"
#include "util/status.h"
#include "wire/wire.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* ---- handles: [type:4][generation:8][index:20] ------------------------- */
enum ptl_htype { HT_NONE = 0, HT_NI = 1, HT_MD = 2, HT_ME = 3, HT_LE = 4, HT_EQ = 5, HT_CT = 6,
                 HT_XFER = 7, /* internal: initiator operations in flight */
                 HT_COUNT };
#define PTLH_INDEX_BITS 20u
#define PTLH_GEN_BITS 8u
#define PTLH_MAX_INDEX ((1u << PTLH_INDEX_BITS) - 1)

typedef struct ptl_table {
    void **obj;          /* index -> object (NULL: free) */
    uint8_t *gen;        /* bumped on free: stale handles stop matching */
    uint32_t cap, used;
    /* free slots in a FIFO queue (head, tail, or UINT32_MAX): a freed slot
     * is reused last, so a stale handle can only alias a live object after
     * its slot went through the whole queue 2^PTLH_GEN_BITS times */
    uint32_t free_head, free_tail;
    uint32_t *next_free;
} ptl_table_t;

/* locked: returns the new handle or PTL_INVALID_HANDLE when full. */
uint32_t ptl_handle_new(int type, void *obj);
void ptl_handle_free(uint32_t h);
static inline int ptl_handle_type(uint32_t h)
{
    return (int)(h >> 28);
}
void ptl_tables_reset(void);

/* ---- objects ------------------------------------------------------------ */
#define PTL_NI_KINDS 4  /* (matching | non-matching) x (logical | physical) */

typedef struct ptl_eq ptl_eq_t;
typedef struct ptl_ct ptl_ct_t;
typedef struct ptl_ni ptl_ni_t;

typedef struct ptl_pt {
    bool allocated, enabled, disabled_by_fc;
    unsigned int options;
    ptl_eq_t *eq;
    sl_list_t prio, over;   /* ptl_entry_t, list order */
    sl_list_t unexpected;   /* ptl_uh_t, arrival order */
    int n_unexpected;
    int ovf_copies;         /* overflow deliveries copying unlocked, header not queued yet */
    int n_entries[2];
} ptl_pt_t;

struct ptl_ni {
    uint32_t handle;
    int kind;               /* index 0..3 */
    unsigned int options;
    int refs;
    ptl_ni_limits_t limits;
    ptl_pt_t *pts;          /* [limits.max_pt_index + 1] */
    ptl_pt_index_t last_pt; /* PTL_PT_ANY searches from here + 1 */
    ptl_process_t *map;     /* logical NI: rank -> phys */
    ptl_size_t map_size;
    ptl_rank_t *rank_of;    /* logical NI: job rank (phys pid) -> first rank mapping to it */
    int n_md, n_entries, n_eq, n_ct;
    ptl_sr_value_t sr[PTL_SR_LAST];
    int bundle_depth;
};

typedef struct ptl_md {
    uint32_t handle;
    ptl_ni_t *ni;
    ptl_md_t md;            /* copy */
    ptl_eq_t *eq;
    ptl_ct_t *ct;
    int pending;            /* operations in flight using it */
} ptl_md_obj_t;

typedef struct ptl_entry {
    sl_list_t link;         /* on its PT list */
    uint32_t handle;
    ptl_ni_t *ni;
    ptl_pt_index_t pt;
    ptl_list_t list;
    bool matching;          /* ME (true) or LE */
    bool linked;
    ptl_me_t me;            /* copy; an LE is kept as an ME with no match criteria */
    ptl_ct_t *ct;
    void *user_ptr;
    ptl_size_t local_offset;
    ptl_size_t bytes;       /* region size (sum of the iovecs for PTL_IOVEC) */
    int uh_refs;            /* unexpected headers pointing into its memory */
    int busy;               /* bulk copies into/out of it, running unlocked */
    bool auto_free_pending; /* overflow entry auto-unlinked: AUTO_FREE when uh_refs hits 0 */
} ptl_entry_t;

/* Header of a message that landed on an overflow entry. */
typedef struct ptl_uh {
    sl_list_t link;
    ptl_event_kind_t kind;     /* PUT/GET/ATOMIC/FETCH_ATOMIC */
    ptl_process_t initiator;
    ptl_uid_t uid;
    ptl_match_bits_t match_bits;
    ptl_hdr_data_t hdr_data;
    ptl_size_t rlength, mlength, remote_offset;
    void *start;
    ptl_op_t atomic_op;
    ptl_datatype_t atomic_type;
    ptl_entry_t *owner;
} ptl_uh_t;

struct ptl_eq {
    uint32_t handle;
    ptl_ni_t *ni;
    ptl_event_t *ring;
    ptl_size_t count, head, n;  /* capacity, oldest, how many */
    ptl_size_t limit;           /* the count asked for: "full" for flow control */
    bool dropped;
};

/* The arguments of a data-movement call, kept by triggered operations and
 * validated again when they fire (an MD freed meanwhile makes it a no-op). */
typedef struct ptl_xfer_args {
    int kind;                     /* RK_* */
    ptl_handle_md_t md, get_md;   /* put-side MD (or get MD for RK_GET); fetch/swap get MD */
    ptl_size_t local_offset, local_get_offset, length;
    ptl_ack_req_t ack_req;
    ptl_process_t target;
    ptl_pt_index_t pt_index;
    ptl_match_bits_t match_bits;
    ptl_size_t remote_offset;
    void *user_ptr;
    ptl_hdr_data_t hdr_data;
    ptl_op_t op;
    ptl_datatype_t type;
    uint8_t operand[32];
} ptl_xfer_args_t;

/* A triggered operation waiting on a CT. */
enum ptl_trig_kind { TK_XFER = 1, TK_CTINC, TK_CTSET, TK_MEAPPEND, TK_MEUNLINK };
typedef struct ptl_trig {
    struct ptl_trig *next;        /* ready list */
    ptl_size_t threshold;
    uint64_t seq;                 /* issue order: equal thresholds fire in it */
    int kind;
    ptl_xfer_args_t x;            /* TK_XFER */
    ptl_handle_ct_t ct;           /* TK_CTINC / TK_CTSET target */
    ptl_ct_event_t value;
    ptl_handle_ni_t ni;           /* TK_MEAPPEND */
    ptl_me_t *me;                 /* caller keeps it alive (REF semantics) */
    ptl_list_t list;
    void *user_ptr;
    ptl_handle_me_t *me_handle_p;
    ptl_handle_me_t me_handle;    /* TK_MEUNLINK */
} ptl_trig_t;

struct ptl_ct {
    uint32_t handle;
    ptl_ni_t *ni;
    ptl_ct_event_t val;
    _Atomic uint64_t success, failure; /* mirror read lock-free by PtlCTGet */
    ptl_trig_t **heap;      /* pending triggered ops, min-heap on (threshold, seq) */
    size_t n_heap, cap_heap;
    uint32_t md_refs;       /* MDs bound to it (only those need detaching at free) */
};

/* ---- global engine state ------------------------------------------------- */
typedef struct ptl_global {
    pthread_mutex_t lock;
    int init_count;
    boot_t *boot;
    wire_t *wire;
    int rank, size;
    ptl_uid_t uid;
    ptl_ni_t *nis[PTL_NI_KINDS];
    ptl_table_t tables[HT_COUNT];
    pthread_t progress;
    bool progress_running;
    _Atomic bool stop;
    _Atomic int waiters;        /* application threads inside blocking waits */
    _Atomic uint64_t host_beat; /* PtlSluiceHostActive: an application thread is in the library */
    int bulk_busy;              /* bulk copies running without the lock */
    _Atomic uint64_t changes;   /* bumped on every event/CT change: waiters re-check */
    _Atomic int aborting;       /* PtlAbort in effect while > 0 */
    _Atomic uint32_t park;      /* progress thread parks on this futex */
    _Atomic int park_long;      /* it parks for longer than PTL_PARK_NS: the last waiter out wakes it */
    uint64_t trig_seq;          /* issue order of triggered operations */
    ptl_trig_t *ready_head, *ready_tail;  /* released, to run after the current step */
    bool running_ready;
    struct ptl_rx *rx;          /* per-source reassembly of multi-packet requests */
    uint32_t gone_seen;         /* wire_peers_gone() when operations were last failed */
} ptl_global_t;

extern ptl_global_t ptl_g;

/* locked: object of that type for h, or NULL (never touches freed memory).
 * Inline: every call of the API looks up one to three handles. */
static inline void *ptl_handle_get(int type, uint32_t h)
{
    if ((unsigned)type - 1u >= HT_COUNT - 1u || ptl_handle_type(h) != type) return NULL;
    const ptl_table_t *t = &ptl_g.tables[type];
    uint32_t i = h & PTLH_MAX_INDEX;
    if (i >= t->cap || !t->obj[i]) return NULL;
    if (t->gen[i] != (uint8_t)(h >> PTLH_INDEX_BITS)) return NULL;
    return t->obj[i];
}

#define PTL_LOCK() pthread_mutex_lock(&ptl_g.lock)
#define PTL_UNLOCK() pthread_mutex_unlock(&ptl_g.lock)

/* Every public call checks initialisation first (PTL_NO_INIT). */
#define PTL_CHECK_INIT()                                                                    \
    do {                                                                                    \
        if (ptl_g.init_count <= 0) return PTL_NO_INIT;                                      \
    } while (0)

/* ---- wire protocol ----------------------------------------------------------- */
enum { PTL_PKT_REQ = 0x10, PTL_PKT_RESP = 0x11 };
enum ptl_req_kind { RK_PUT = 1, RK_GET, RK_ATOMIC, RK_FETCH, RK_SWAP };
/* RF_ROFF, RF_HDR, RF_LEN64: optional fields present in the encoded
 * request (ptl_req_encode), so that a small put fits one 64-byte slot. */
enum ptl_req_flags { RF_INLINE = 1, RF_BULK = 2, RF_ROFF = 4, RF_HDR = 8, RF_LEN64 = 16 };

typedef struct ptl_req_hdr {
    uint8_t kind, ni_kind, ack_req, flags;
    uint8_t atom_op, atom_type;
    uint16_t pt_index;
    uint32_t xfer_id;       /* initiator's operation, echoed in the response */
    uint32_t uid;
    uint64_t match_bits, remote_offset, hdr_data, length;
    uint64_t addr;          /* RF_BULK: initiator address to read (put) or write (reply) */
    uint8_t operand[32];    /* swap comparand/mask */
} ptl_req_hdr_t;

/* The request header on the wire: 28 fixed bytes, then remote_offset,
 * hdr_data, the 64-bit length, addr and operand only when used (see
 * reqfmt.c).  At most PTL_REQ_WIRE_MAX bytes. */
#define PTL_REQ_WIRE_MAX 100u
size_t ptl_req_encode(ptl_req_hdr_t *h, unsigned char *out);
size_t ptl_req_decode(const unsigned char *p, size_t len, ptl_req_hdr_t *h);

enum ptl_resp_flags { PF_RESP_DATA = 1, PF_RESP_ACK = 2, PF_RESP_REPLY = 4 };

typedef struct ptl_resp_hdr {
    uint8_t ni_fail, list, flags, rsvd;
    uint32_t xfer_id;
    uint64_t mlength, remote_offset;
} ptl_resp_hdr_t;

/* Requests up to PTL_INLINE_SURE data bytes carry them inline; puts of up
 * to PTL_INLINE_MAX do when the mailbox has room for them at once (else a
 * window of them would wait for credits: windowed 16 KiB puts ran at half
 * the bandwidth inline); the rest is moved by the wire's one-sided copy.
 * Inline, a 16 KiB MPI ping-pong took 2.0 us one-way against 5.8 by
 * cross-memory attach (a system call and page pinning per message), and
 * 64 KiB 6.9 against 9.4. */
#define PTL_INLINE_SURE 8192u
#define PTL_INLINE_MAX 65536u

/* An initiator-side operation in flight. */
typedef struct ptl_xfer {
    uint32_t id;
    int kind;
    int rank;               /* target's job rank */
    ptl_md_obj_t *md;       /* put side (PUT/ATOMIC/FETCH/SWAP) or get side (GET) */
    ptl_md_obj_t *get_md;   /* FETCH/SWAP: where the old value goes */
    ptl_size_t local_offset, local_get_offset, length;
    ptl_ack_req_t ack_req;
    void *user_ptr;
    bool send_pending;      /* SEND event still to come (bulk put) */
    void *bounce;           /* bulk on an iovec MD spanning pieces: contiguous copy */
} ptl_xfer_t;

/* ---- cross-file functions (all "locked") -------------------------------------- */
/* init.c */
static inline ptl_ni_t *ptl_ni_get(ptl_handle_ni_t h)
{
    return ptl_handle_get(HT_NI, h);
}
void ptl_ni_destroy(ptl_ni_t *ni);
int ptl_ni_rank_of(const ptl_ni_t *ni, ptl_process_t id, int *rank);
/* A job rank's physical id, and back (false: no such process). */
ptl_process_t ptl_phys_of(int rank);
bool ptl_phys_rank(ptl_process_t id, int *rank);
ptl_process_t ptl_ni_initiator_id(const ptl_ni_t *ni, int rank);
void ptl_note_change(void);
int ptl_progress_locked(void);
int ptl_wait_locked(bool (*ready)(void *), void *arg, ptl_time_t timeout_ms, bool *timed_out);

/* eq.c */
void ptl_eq_post(ptl_eq_t *eq, const ptl_event_t *ev);
static inline ptl_eq_t *ptl_eq_get(ptl_handle_eq_t h)
{
    return ptl_handle_get(HT_EQ, h);
}
void ptl_eq_destroy(ptl_eq_t *eq);

/* ct.c */
static inline ptl_ct_t *ptl_ct_get(ptl_handle_ct_t h)
{
    return ptl_handle_get(HT_CT, h);
}
void ptl_ct_add(ptl_ct_t *ct, ptl_size_t success, ptl_size_t failure);
void ptl_ct_set(ptl_ct_t *ct, ptl_ct_event_t v);
void ptl_ct_destroy(ptl_ct_t *ct);
void ptl_trig_run_ready(void);

/* md.c: copy between an MD / entry region (contiguous or PTL_IOVEC) and a flat buffer */
int ptl_region_check(const void *start, ptl_size_t length, unsigned int options,
                     ptl_size_t offset, ptl_size_t len);
void ptl_region_read(const void *start, ptl_size_t length, unsigned int options,
                     ptl_size_t offset, void *dst, ptl_size_t len);
void ptl_region_write(void *start, ptl_size_t length, unsigned int options, ptl_size_t offset,
                      const void *src, ptl_size_t len);
/* start + offset for a region that may start at NULL (an MD or entry over
 * all of memory, where offsets are addresses): integer arithmetic, since
 * pointer arithmetic on a null pointer is undefined. */
static inline char *ptl_at(const void *start, ptl_size_t offset)
{
    return (char *)((uintptr_t)start + (uintptr_t)offset);
}

/* Address of byte `offset` when it lies in one contiguous piece of len bytes, else NULL. */
void *ptl_region_addr(void *start, ptl_size_t length, unsigned int options, ptl_size_t offset,
                      ptl_size_t len);
static inline ptl_md_obj_t *ptl_md_get(ptl_handle_md_t h)
{
    return ptl_handle_get(HT_MD, h);
}
/* Copy within this process without faulting on unmapped memory: the kernel
 * copies (process_vm_* on ourselves) and reports EFAULT, which becomes
 * PTL_NI_SEGV.  For entries that may cover memory the program did not vouch
 * for (start NULL or length PTL_SIZE_MAX).  Returns false on a fault. */
bool ptl_safe_copy(void *dst, const void *src, size_t n, bool into_memory);

/* entry.c */
bool ptl_entry_matches(const ptl_entry_t *e, const ptl_ni_t *ni, ptl_process_t initiator,
                       ptl_match_bits_t bits, ptl_size_t rlength, ptl_size_t remote_offset);
void ptl_entry_auto_unlink(ptl_pt_t *pt, ptl_entry_t *e);
/* Take an entry off its list; it stays allocated (and its handle valid)
 * until unlinked or freed.  No-op on an entry already off. */
void ptl_entry_delist(ptl_pt_t *pt, ptl_entry_t *e);
void ptl_pt_release_entries(ptl_ni_t *ni, ptl_pt_t *pt);
/* Free the entries kept for reuse (PtlFini). */
void ptl_entry_cache_drop(void);
ptl_pt_t *ptl_pt_get(ptl_ni_t *ni, ptl_pt_index_t index);
void ptl_count(ptl_ct_t *ct, unsigned int options, unsigned int bytes_flag, bool ok,
               ptl_size_t mlength);

/* target.c */
void ptl_target_request(int src, const ptl_req_hdr_t *h, const void *data, size_t len);
/* Serve requests deferred out of the receive callback (bulk data staged
 * through the peer, and what arrived after it); returns how many ran.
 * Called by ptl_progress_locked.  drop: at PtlFini. */
int ptl_target_run_deferred(void);
/* Requests are queued (served outside the wire's receive callback). */
bool ptl_target_queued(void);
/* Bulk copies served so far (a pass serves at most one, target.c). */
unsigned ptl_target_bulk_moves(void);
/* This thread called PtlSluiceDeferBulk(1): bulk requests of peers queue
 * (target.c) instead of being served by it. */
extern __thread bool ptl_t_defer_bulk;
/* An entry was appended: have progress retry a waiting request. */
void ptl_target_kick(void);
void ptl_target_drop_deferred(void);
/* Wait for the bulk copies the queue has in flight and finish them (their
 * events and answers), and end the puts streaming into pt (pt NULL: into
 * any PT of ni) as failed (PTL_NI_PT_DISABLED); before the entries they
 * use go away. */
void ptl_target_land(const ptl_ni_t *ni, const ptl_pt_t *pt);
/* A fragment of a message cut into several (not the whole message): the
 * put it belongs to streams into its entry (target.c) and the fragment was
 * taken, or false: reassemble it. */
bool ptl_target_stream(const wire_frag_t *f);
/* End the streams whose senders are gone (after ptl_xfer_fail_gone). */
void ptl_target_streams_gone(void);
/* Puts streamed so far, and whether fragments of src go to a stream now
 * (tests), and the per-source state (PtlFini). */
unsigned long ptl_target_streamed(void);
bool ptl_target_stream_busy(int src);
void ptl_target_streams_free(void);
/* Free what copies lost with their peer still hold; after wire_fini. */
void ptl_target_free_lost(void);

/* ct.c: queue a triggered operation (copied) on ct; PTL_NO_SPACE when the
 * CT already holds max_triggered_ops.  Released at once if already due. */
int ptl_trig_add(ptl_ct_t *ct, ptl_size_t threshold, const ptl_trig_t *t);

/* xfer.c: validate and start a data movement (PTL_ARG_INVALID when its
 * objects are gone) */
int ptl_xfer_start(const ptl_xfer_args_t *a);
void ptl_xfer_start_failed(const ptl_xfer_args_t *a);
/* entry.c: the bodies of PtlMEAppend / PtlMEUnlink, for triggered use */
int ptl_me_append_locked(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t *me,
                         ptl_list_t list, void *user_ptr, ptl_handle_me_t *out, bool matching);
int ptl_me_unlink_locked(ptl_handle_me_t h);

/* xfer.c */
void ptl_wire_recv(void *arg, const wire_frag_t *f);
void ptl_rx_free(void);
void ptl_initiator_response(int src, const ptl_resp_hdr_t *h, const void *data, size_t len);
/* Complete every operation in flight towards a peer that is gone (died or
 * left) as failed, PTL_NI_UNDELIVERABLE: no answer will come. */
void ptl_xfer_fail_gone(void);

/* atomic.c */
size_t ptl_atom_size(ptl_datatype_t dt);
int ptl_atom_check(ptl_op_t op, ptl_datatype_t dt, int family, ptl_size_t length);
void ptl_atom_apply(ptl_op_t op, ptl_datatype_t dt, void *target, const void *src,
                    const void *operand, size_t len, void *fetch);
enum { PTL_ATOM_FAMILY_ATOMIC = 0, PTL_ATOM_FAMILY_FETCH = 1, PTL_ATOM_FAMILY_SWAP = 2 };

#endif
