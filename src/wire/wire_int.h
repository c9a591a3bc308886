/* Private to src/wire: the shared-memory segment layout, per-peer state and
 * the functions the wire's files call on each other. */
#ifndef SL_WIRE_INT_H
#define SL_WIRE_INT_H

#include "util/list.h"
#include "util/param.h"
#include "util/sys.h"
#include "wire/credit.h"
#include "wire/dynfc.h"
#include "wire/wire.h"

#include <pthread.h>
#include <sys/types.h>

#define SHM_MAGIC 0x31455249574c5353ull /* "SSLWIRE1" */
#define SHM_VERSION 9u
#define WIRE_HOST_MAX 64 /* host name, with its NUL */
#define SHM_SLOT 64u
#define SHM_PKT_HDR 12u /* first-slot header; payload follows contiguously */
enum { BULK_GET = 1, BULK_PUT = 2 }; /* wire_bulk_t.kind */
#define SHM_PIGGY_BYTES 2u

/* Packet types the wire uses itself (above WIRE_TYPE_USER_MAX).  CREQ and
 * CRESP are dynamic flow control's compulsory credit return request and
 * response (paper 001 §6.1): unlike credit packets they consume credits. */
enum { WIRE_T_CREDIT = 0xf0, WIRE_T_STAGE = 0xf1, WIRE_T_CREQ = 0xf2, WIRE_T_CRESP = 0xf3 };
/* libfabric bulk copies (ofi_bulk.c): a get or put request, the target's
 * answer (to a put, or to any RMA request: ready or refused), the end of a
 * copy, and an RMA requester's release of the target's registration.
 * (0xec is the transport's BYE, handled in ofi.c.) */
enum { WIRE_T_OFI_GET = 0xe8, WIRE_T_OFI_PUT = 0xe9, WIRE_T_OFI_READY = 0xea,
       WIRE_T_OFI_DONE = 0xeb, WIRE_T_OFI_RELEASE = 0xed };
/* Packet flags. */
enum { PF_FIRST = 1, PF_LAST = 2, PF_PIGGY = 4 };

/* Header of a packet, in its first slot.  seq is written last (release) and
 * is the only word the receiver polls: SHM_SEQ(position) when the packet is
 * there, 0 once the receiver has consumed the slot (it clears the first word
 * of every slot it consumes, so stale payload can never look like a header). */
typedef struct shm_pkt_hdr {
    _Atomic uint32_t seq;
    uint16_t src;
    uint16_t len;   /* payload bytes */
    uint8_t type;
    uint8_t flags;
    uint16_t msg;   /* user messages: low bits of the sender's message number (fastbox.c) */
} shm_pkt_hdr_t;
_Static_assert(sizeof(shm_pkt_hdr_t) == SHM_PKT_HDR, "packet header layout");

#define SHM_SEQ(pos) (0x80000000u | (uint32_t)((pos) & 0x7fffffffu))

/* A fastbox cell (fastbox.c): one message of at most FB_PAYLOAD bytes from
 * one peer, in our segment.  seq is FB_SEQ(the sender's message number)
 * while the cell holds a message, 0 when it is free; written last by the
 * sender (release), cleared by us once the message is delivered. */
#define FB_CELL 128u
#define FB_HDR 8u
#define FB_PAYLOAD (FB_CELL - FB_HDR)
#define FB_SEQ(n) (0x80000000u | ((uint32_t)(n)&0x7fffffffu))
typedef struct SL_ALIGNED_LINE fb_cell {
    _Atomic uint32_t seq;
    uint16_t len;
    uint8_t type, rsvd;
    char data[FB_PAYLOAD];
} fb_cell_t;
_Static_assert(sizeof(fb_cell_t) == FB_CELL, "fastbox cell layout");

/* Start of every rank's segment.  Written once by the owner before the
 * attach fence, except `leaving` (set by the owner in wire_fini), the
 * futex/sleepers line (owner and wakers), the tail line (senders'
 * fetch-and-add) and the split-copy line (owner and the peer helping with
 * its copy). */
typedef struct shm_hdr {
    uint64_t magic;
    uint32_t version, rank, job_size, pid;
    char jobkey[BOOT_JOBKEY_LEN];
    char host[WIRE_HOST_MAX]; /* the owner's host (SLUICE_HOST): peers of another use ofi */
    uint32_t slots, credit_slots, quota, pkt_slots;
    uint32_t stage_chans, stage_chunk;
    uint32_t fb_cells;        /* fastbox cells per sender (0: no fastboxes) */
    uint32_t dynamic;         /* flow control: 0 static, 1 dynamic */
    /* Non-zero once the owner has begun wire_fini: when its process ends
     * after that, it left the job; any other end is a death. */
    _Atomic uint32_t leaving;
    uint64_t ring_off, fb_off, stage_off, heap_off, heap_len, seg_len;
    uint64_t self_addr; /* where the owner mapped it: target of the CMA probe */
    SL_ALIGNED_LINE _Atomic uint32_t wake_seq; /* futex word */
    _Atomic uint32_t sleepers;                 /* threads of the owner asleep on it */
    _Atomic uint32_t app_sleepers; /* of those, application threads (not the progress thread) */
    /* A peer invites us to help with its split copy (bulk.c): its rank + 1,
     * 0 when nobody does.  A word of ours rather than a packet, so that an
     * invitation never waits for ring credits behind the traffic it is
     * meant to speed up. */
    _Atomic uint32_t split_bell;
    /* Bulk copies the owner is doing right now, and its application
     * threads in a blocking wait (wire_host_waits; bulk.c: a peer splits
     * a copy with it only while it waits and copies nothing). */
    _Atomic uint32_t copying, waiting;
    SL_ALIGNED_LINE _Atomic uint64_t tail;     /* next free ring position */
    SL_ALIGNED_LINE _Atomic uint64_t head;     /* owner's read position (for checks) */
    /* The owner's current split copy (bulk.c): split_cursor = generation
     * << 40 | next unit from the front << 20 | end of the units left at
     * the back; the owner takes from the front, the helping peer from the
     * back.  split_done counts the units the peer has finished,
     * split_failed is set when one of them failed.  split_gen .. split_peer
     * describe the copy (what we do, our address, the peer's, the length,
     * which peer): a seqlock, split_gen is 0 while they change. */
    SL_ALIGNED_LINE _Atomic uint64_t split_cursor;
    _Atomic uint32_t split_done, split_failed;
    _Atomic uint32_t split_gen, split_kind;
    _Atomic uint64_t split_laddr, split_raddr, split_len;
    _Atomic uint32_t split_peer; /* the rank whose addresses split_raddr names */
} shm_hdr_t;

/* One staging channel of the pipelined fallback copy: two buffers, each
 * EMPTY (the producer may fill it) or FULL (the consumer may drain it). */
enum { STAGE_EMPTY = 0, STAGE_FULL = 1 };
typedef struct SL_ALIGNED_LINE shm_stage_chan {
    _Atomic uint32_t state[2];
} shm_stage_chan_t;

/* Request a peer to take part in a staged copy through our channel. */
enum { STAGE_GET = 1, STAGE_PUT = 2 };
typedef struct stage_req {
    uint16_t kind, chan;
    uint32_t rsvd;
    uint64_t raddr, len;
} stage_req_t;

/* A target-side staged copy (the peer asked us to feed or drain its channel). */
typedef struct stage_job {
    struct stage_job *next;
    int peer, kind, chan;
    char *addr;
    size_t len, chunks_done;
} stage_job_t;

typedef struct wire_stats_atomic {
#define WIRE_STAT_FIELD_(f) _Atomic uint64_t f;
#include "wire/stats_fields.h"
#undef WIRE_STAT_FIELD_
} wire_stats_atomic_t;

/* Counters shared by all threads (rare events): atomic add. */
#define WIRE_STAT_INC(w, field, n)                                                          \
    atomic_fetch_add_explicit(&(w)->stats.field, (n), memory_order_relaxed)
/* Counters with one writer at a time (a peer's tx block under its lock, the
 * drainer's block): a relaxed load and store, no locked instruction on the
 * packet path, and still race-free for concurrent readers. */
#define WIRE_STAT_OWN(block, field, n)                                                      \
    atomic_store_explicit(&(block)->field,                                                  \
                          atomic_load_explicit(&(block)->field, memory_order_relaxed) + (n),\
                          memory_order_relaxed)

/* A message parked for lack of credits (a copy: the caller's buffer is free). */
typedef struct wire_pend {
    sl_list_t link;
    uint8_t type;
    bool control; /* a compulsory request or response: goes before data (§6.1) */
    uint16_t msg; /* its message number (fastbox.c) */
    size_t len, off;
    char data[];
} wire_pend_t;

/* A transport: how packets and bulk copies reach a peer.  Shared memory
 * (shm.c) within a host, libfabric (ofi.c) between hosts, chosen per peer
 * at wire_init (tp.c).  Fragmentation, credits, parking, message order and
 * waiting (wire.c, fc.c) are the same over both: a packet a transport
 * receives goes through wire_rx_packet, a packet to send comes to put_pkt
 * with its credits taken.  docs/WIRE.md, "Transports". */
typedef struct wire_tp {
    const char *name;
    /* This rank's endpoint (before the address exchange) and its end. */
    sl_status_t (*create)(wire_t *w);
    void (*fini)(wire_t *w);
    /* Reach peer (after the exchange): map it, resolve its address. */
    sl_status_t (*attach)(wire_t *w, int peer);
    /* Send one packet (shm_put_pkt has the contract). */
    void (*put_pkt)(wire_t *w, int peer, uint8_t type, uint8_t flags, uint16_t msg, bool lazy,
                    const struct iovec *iov, int iovcnt, size_t off, size_t len);
    /* Take up to budget received packets; their number. */
    int (*drain)(wire_t *w, int budget);
    /* Anything to drain?  Cheap: waits call it before they sleep. */
    bool (*ready)(wire_t *w);
    /* Make peer drain soon (we wait for credits it returns when it does). */
    void (*wake)(wire_t *w, int peer);
    /* A thread of ours is about to sleep on our futex: see that packets
     * arriving through this transport wake it (NULL: they do already). */
    void (*arm)(wire_t *w);
    /* Start a bulk copy with op->peer (op->kind BULK_GET or BULK_PUT):
     * SL_OK done, SL_INPROGRESS (wire_progress finishes it), or an error. */
    sl_status_t (*bulk)(wire_t *w, wire_bulk_t *op);
    /* Has peer's process ended?  *left: after its wire_fini. */
    bool (*ended)(wire_t *w, int peer, bool *left);
} wire_tp_t;

extern const wire_tp_t wire_tp_shm, wire_tp_ofi;
#define WIRE_PKT_SLOTS_MAX 1024u /* 65,524 payload bytes: packet headers say lengths in 16 bits */
typedef struct wire_ofi wire_ofi_t; /* ofi_int.h */

typedef struct wire_peer {
    const wire_tp_t *tp;    /* how we reach it (tp.c) */
    size_t pkt_payload;     /* largest packet payload to it: its transport's (tp.c) */
    int host;               /* index of its host in the job (tp.c) */
    int host_rank;          /* its place among the ranks of its host */
    pthread_mutex_t lock;   /* credits and pending, sender side */
    uint32_t credits;       /* data slots we may still fill in its mailbox */
    sl_list_t pending;      /* wire_pend_t, FIFO */
    /* Credits we owe it.  Static: its slots we retrieved, not returned yet
     * (Eq. 1 decides when).  Dynamic: credits granted at threshold
     * crossings (dynfc.c), not sent yet.  Piggybacking takes from it. */
    _Atomic uint32_t rx_pending;
    shm_hdr_t *hdr;         /* its segment, mapped */
    /* Its geometry, read once at attach after shm_check_peer_header checked it:
     * the header stays writable by the peer, so these are never re-read
     * from it (a peer's shared memory is input: docs/RELIABILITY.md). */
    uint64_t seg_len, heap_len;
    uint32_t stage_chans, stage_chunk;
    char *ring;
    shm_stage_chan_t *chans;
    char *stage_bufs;
    char *heap;             /* its shared heap, as mapped here */
    uint64_t heap_base;     /* the same heap's address in its own process */
    pid_t pid;
    int pidfd;
    bool cma;
    bool populated;         /* its ring is mapped in our page tables (under lock) */
    _Atomic bool dead;      /* its process has ended: sends fail, nothing more comes */
    _Atomic bool left;      /* ... after its wire_fini (set before dead): not an error */
    _Atomic bool bye;       /* ofi: it said it is leaving (its wire_fini began) */
    _Atomic bool ofi_broken; /* ofi: a send to it failed (on another machine: its death) */
    _Atomic uint64_t ofi_quiet_ns; /* ofi: when it was first seen ended without a bye */
    /* Message numbers (fastbox.c).  Under lock: the next user message to
     * this peer gets tx_msgs; fb_tx of them went into our fastbox cells in
     * its segment, fb_out.  The drainer's: rx_msgs is the number of the
     * next message from this peer we may deliver; fb_rx of them came from
     * its cells in our segment, fb_in. */
    uint32_t tx_msgs, fb_tx, rx_msgs;
    _Atomic uint32_t fb_rx; /* also read by threads looking for work (fb_ready) */
    fb_cell_t *fb_out, *fb_in;
    wire_stats_atomic_t tx; /* sends to this peer, written under lock */
} wire_peer_t;


struct wire {
    boot_t *boot;
    int rank, size;
    wire_layout_t layout;
    wire_recv_fn cb;
    void *cb_arg;
    int64_t spin_ns;
    _Atomic bool piggyback;
    bool check;            /* SLUICE_WIRE_CHECK */
    bool yield;            /* yield between spinning and sleeping (SLUICE_YIELD) */
    bool oversubscribed;   /* more ranks on this host than CPUs we may run on */
    uint32_t fb_cells;     /* SLUICE_FASTBOX: cells per sender (0: ring only) */
    _Atomic uint8_t test_mid; /* SLUICE_TEST_CRASH at mid-message: 1 kill, 2 stop (once) */

    shm_hdr_t *hdr;      /* own segment */
    char *ring;
    size_t seg_len;
    char shm_name[64];
    bool shm_linked;     /* name still in /dev/shm */
    wire_peer_t *peers;  /* [size]; peers[rank] unused */
    int n_hosts;         /* hosts of the job (tp.c) */
    char host[WIRE_HOST_MAX]; /* ours: SLUICE_HOST or the machine's name */
    bool force_ofi;      /* SLUICE_WIRE=ofi */
    wire_ofi_t *ofi;     /* the libfabric endpoint, when a peer uses it */

    _Atomic int draining;  /* one thread drains at a time */
    _Atomic bool drain_stop; /* wire_drain_stop: the drainer takes no more packets */
    /* next ring position to read: written by the drainer only, read by any
     * thread checking for work before it sleeps (a stale value only makes
     * that check conservative: senders wake sleepers for new packets) */
    _Atomic uint64_t head;
    char *scratch;         /* packets that wrap around the ring end */

    pthread_mutex_t self_lock; /* messages to ourselves */
    sl_list_t self_q;
    _Atomic int self_count;
    _Atomic uint32_t kicked;
    _Atomic int parked;         /* wire_pend_t on all peers' queues */
    _Atomic uint32_t gone;      /* peers found dead or left so far */

    pthread_mutex_t stage_lock; /* staged copies, both roles */
    uint64_t chan_free;         /* bitmap of our free channels */
    wire_bulk_t *ops_head, *ops_tail;  /* our staged ops, in order */
    stage_job_t *jobs;                 /* peers' staged ops we serve */
    _Atomic int stage_active;

    size_t split_min;     /* SLUICE_BULK_SPLIT: smallest copy to split (0: never) */
    uint32_t split_gen;   /* generation of our last split copy (24 bits) */
    _Atomic bool split_busy; /* a thread of ours is splitting a copy */

    pthread_mutex_t heap_lock;  /* our shared heap's allocator */
    struct heap_ext *heap_free, *heap_used;

    /* Dynamic flow control (layout.dynamic), the drainer's: the receiver
     * state, and the senders owed a credit packet once this drain ends. */
    dfc_t dfc;
    int *owed;
    int n_owed;
    bool *owed_mark;

    wire_stats_atomic_t stats;
};

/* shm.c */
/* Where the regions of a segment start (bytes; the heap comes last). */
typedef struct shm_plan {
    size_t ring_off, fb_off, stage_off, heap_off;
} shm_plan_t;
void shm_plan(int size, uint32_t slots, uint32_t fb_cells, uint32_t chans, uint32_t chunk,
              shm_plan_t *out);
sl_status_t shm_create(wire_t *w);
/* Remove /dev/shm segments whose creator died before unlinking them (rank
 * 0 calls it at set-up). */
void shm_sweep_stale(void);
/* Map peer p's ring in our page tables now, once (under p's lock after
 * set-up).  At set-up for jobs of up to SHM_POPULATE_ALL ranks, else at the
 * first send to it. */
#define SHM_POPULATE_ALL 16
void shm_populate_peer(wire_t *w, wire_peer_t *p);
/* Where rank r is, by its segment: it exists and names our host, it names
 * another (virtual) host, or it does not exist (another machine). */
enum { SHM_HOST_SAME, SHM_HOST_OTHER, SHM_HOST_ABSENT };
int shm_peer_host(const wire_t *w, int r);
sl_status_t shm_attach_one(wire_t *w, int r);
/* Does the header of rank r's segment, mapped over maplen bytes, belong to
 * the job with jobkey and agree with our settings, its regions all inside
 * the mapping?  SL_ERR_AUTH or SL_ERR_CONFIG (logged) if not.  Called at
 * attach (and by fuzz_wire). */
sl_status_t shm_check_peer_header(const wire_t *w, const char *jobkey, int r, const shm_hdr_t *h,
                                  size_t maplen);
void shm_unlink_own(wire_t *w);
void shm_detach(wire_t *w);
uint32_t shm_pkt_slots(size_t len);
/* Write one packet into peer's ring.  Data packets must hold the peer's lock
 * and have taken the credits; credit packets need neither. */
/* lazy: wake the owner only if an application thread of it sleeps (see
 * wire_send_lazy). */
/* msg: the message number of a user message (see fastbox.c), else 0. */
void shm_put_pkt(wire_t *w, int peer, uint8_t type, uint8_t flags, uint16_t msg, bool lazy,
                 const struct iovec *iov, int iovcnt, size_t off, size_t len);
/* Wake h's owner (lazy: only an application thread); the caller has made
 * its update visible with a full fence or a seq_cst read-modify-write. */
void shm_wake_after_fence(wire_t *w, shm_hdr_t *h, bool lazy);
/* Copy len bytes starting at byte off of the iov list into dst. */
void iov_gather(char *dst, const struct iovec *iov, int iovcnt, size_t off, size_t len);
int shm_drain(wire_t *w, int budget);
static inline bool wire_drain_stopped(wire_t *w)
{
    return atomic_load_explicit(&w->drain_stop, memory_order_relaxed);
}
bool shm_ring_ready(wire_t *w);
void shm_wake(wire_t *w, shm_hdr_t *h);
/* tp.c: look for peers whose process has ended (each transport's check);
 * each end is handled once, by the thread that finds it.  Returns whether
 * a peer has died (ended without leaving), now or before. */
bool wire_check_dead(wire_t *w);
/* The transport's provider progresses in a polling thread of its own:
 * every wait of the process yields from the start (util/wait.h,
 * oversubscribed). */
void wire_own_cpus_shared(wire_t *w);
/* Log the formatted reason and end the job with code (corruption, a broken
 * invariant: nothing this rank can recover from). */
#define wire_die(w, code, ...) boot_abortf((w)->boot, (code), __VA_ARGS__)
/* Testing hook: SLUICE_TEST_CRASH=RANK:POINT kills this rank at POINT. */
void shm_test_crash(const wire_t *w, const char *point);
/* The same for the point "mid-message" (after the first fragment of a
 * message cut into several is out; "mid-message-stop": SIGSTOP instead of
 * SIGKILL, the first time only), read once into w->test_mid: the hook sits
 * on the send path. */
void shm_test_mid_read(wire_t *w);
void shm_test_mid(wire_t *w);

/* wire.c */
sl_status_t wire_send_internal(wire_t *w, int dst, uint8_t type, const struct iovec *iov,
                               int iovcnt);
/* The same as wire_send_lazy, for the wire's own packet types. */
sl_status_t wire_send_internal_lazy(wire_t *w, int dst, uint8_t type, const struct iovec *iov,
                                    int iovcnt);
void wire_credits_arrived(wire_t *w, int peer, uint32_t credits);
/* Send a compulsory request or response (type WIRE_T_CREQ / CRESP): they
 * consume credits and, parked, go before any data waiting for that peer. */
void wire_send_control(wire_t *w, int dst, uint8_t type, uint32_t value);
/* peer has ended: what is parked for it would wait for credits forever. */
void wire_drop_parked(wire_t *w, int peer);
void wire_deliver(wire_t *w, int src, uint8_t type, uint8_t flags, const void *data,
                  size_t len);

/* A packet a transport has received, before and after it is handled. */
typedef struct wire_rx {
    int src;
    uint8_t type, flags;
    uint16_t msg;          /* its message number (user messages) */
    const void *data;
    size_t len;
    uint32_t credits;      /* piggybacked on it (the transport read them) */
} wire_rx_t;
/* Handle a received packet: deliver it (in message order) or take its
 * credits.  Returns false, having done nothing, for a packet that makes no
 * sense (the transport decides what that costs).  Then, once the
 * transport has freed the packet's room (slots, buffer), wire_rx_settle
 * spends the credits it brought and accounts its k slots. */
bool wire_rx_packet(wire_t *w, wire_rx_t *rx, uint32_t *value);
void wire_rx_settle(wire_t *w, const wire_rx_t *rx, uint32_t k, uint32_t value);

/* tp.c */
/* Choose every peer's transport and host (exchanging host names through
 * the boot layer: one fence, and one more when libfabric is used), create
 * the libfabric endpoint if some peer needs it and attach every peer. */
sl_status_t tp_setup(wire_t *w);
/* w->host from SLUICE_HOST or the machine's name (SL_ERR_CONFIG if unusable). */
sl_status_t tp_host_name(wire_t *w);
/* The index of string setting id's value in names[n], or -1 after logging
 * the accepted values. */
int tp_param_choice(sl_param_id_t id, const char *const *names, int n);
/* Peer ended (found by the transport's check): mark it gone, once. */
void tp_peer_gone(wire_t *w, int r, bool left);

/* ofi.c */
/* Called by the drainer for the wire's own libfabric packet types. */
void ofi_bulk_packet(wire_t *w, int src, uint8_t type, const void *data, size_t len);
/* peer is gone: its bulk copies through libfabric fail. */
void ofi_bulk_peer_gone(wire_t *w, int peer);
/* Testing and tools: is libfabric built in? */
bool ofi_built(void);
/* The largest packet payload to a libfabric peer: what the provider
 * delivers in order (see ofi.c), within what flow control allows. */
size_t ofi_pkt_payload(const wire_t *w);

/* fc.c: the flow-control scheme seen from the ring (static or dynamic) */
sl_status_t fc_wire_init(wire_t *w);
void fc_wire_fini(wire_t *w);
/* The drainer took a packet of k slots from src (its slots are free);
 * value: a compulsory request's or response's payload. */
void fc_wire_retrieved(wire_t *w, int src, uint8_t type, uint32_t k, uint32_t value);
/* The drainer is done with a batch: send the credit packets still owed. */
void fc_wire_flush_owed(wire_t *w);

/* fastbox.c */
void fb_bind(wire_t *w);
/* Under dst's lock: send a user message through a fastbox cell if one is
 * free and order allows; false if it must take the ring. */
bool fb_try_send(wire_t *w, int dst, uint8_t type, const struct iovec *iov, int iovcnt,
                 size_t len, bool lazy);
/* The drainer, before delivering a ring packet from src: deliver src's
 * fastbox messages numbered before it (msg, low 16 bits). */
void fb_catch_up(wire_t *w, int src, uint16_t msg);
int fb_drain(wire_t *w, int budget);
bool fb_ready(wire_t *w);

/* heap.c */
void heap_init(wire_t *w);
void heap_fini(wire_t *w);
/* If [raddr, raddr+len) lies in peer's shared heap, its address here. */
char *heap_translate(const wire_t *w, int peer, uint64_t raddr, size_t len);

/* bulk.c */
void bulk_init(wire_t *w);
bool bulk_cma_probe(wire_t *w, int peer);
/* wire_tp_shm.bulk: heap memcpy, cross-memory attach or staged copy. */
sl_status_t bulk_shm(wire_t *w, wire_bulk_t *op);
/* Mark op finished with st (release: op->done last). */
void bulk_finish(wire_bulk_t *op, sl_status_t st);
void bulk_stage_request(wire_t *w, int src, const void *data, size_t len);
void bulk_split_answer(wire_t *w); /* help a peer that rang our split_bell */
int bulk_progress(wire_t *w);
bool bulk_has_work(wire_t *w);
void bulk_fini(wire_t *w);

#endif
