/* Private to the libfabric transport (ofi.c, ofi_bulk.c). */
#ifndef SL_WIRE_OFI_INT_H
#define SL_WIRE_OFI_INT_H

#include "wire/wire_int.h"

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

/* Header of a packet sent through libfabric; the payload follows.  token
 * is the job's (from its key): a packet without it is refused and counted
 * (docs/WIRE.md, "Authentication"). */
typedef struct ofi_hdr {
    uint64_t token;
    uint32_t src;
    uint16_t len;    /* payload bytes */
    uint8_t type, flags;
    uint16_t msg;    /* user messages: low bits of the message number */
    uint16_t seq;    /* packets from src to us, counted: their order (ofi_rx_pkt) */
    uint32_t piggy;  /* credits returned with it */
} ofi_hdr_t;
_Static_assert(sizeof(ofi_hdr_t) == 24, "ofi packet header layout");
#define OFI_INJECT_MAX (sizeof(ofi_hdr_t) + 256) /* largest packet sent by fi_inject */

/* Packet types of the transport itself, outside credit flow control:
 * BYE, sent from wire_fini, tells the peer our end is a normal one. */
enum { WIRE_T_OFI_BYE = 0xec };

/* What a completion's context is (the fi_context2 comes first). */
enum { OC_RX_PKT, OC_TX_PKT, OC_TX_BYE, OC_BULK_RX, OC_BULK_TX };
typedef struct ofi_ctx {
    struct fi_context2 fc;
    int kind;
    int peer;
    void *owner;     /* OC_BULK_*: the ofi_op or ofi_job it belongs to */
    char *buf;       /* OC_RX_PKT: the posted buffer; OC_TX_PKT: the packet copy */
    int err;         /* a bulk chunk's outcome (libfabric error number, 0 fine) */
    bool over;       /* a bulk chunk has completed */
    bool pooled;     /* OC_TX_*: a buffer of the registered pool (FI_MR_LOCAL), else malloc'd */
    struct ofi_ctx *later; /* queued for the drainer (o->later) */
} ofi_ctx_t;

/* A registration of the cache (ofi_mr.c): whole pages, for one access. */
typedef struct ofi_mr {
    struct ofi_mr *prev, *next; /* most recently used first */
    uintptr_t base;
    size_t len;
    uint64_t access;            /* FI_REMOTE_READ or FI_REMOTE_WRITE */
    struct fid_mr *mr;
    uint64_t key;
    int refs;                   /* copies using it */
} ofi_mr_t;

/* A bulk copy in progress, on either side (ofi_bulk.c). */
typedef struct ofi_op {
    struct ofi_op *next;
    wire_bulk_t *op;     /* requester: the caller's op; NULL on the target side */
    int peer;
    uint32_t id;         /* requester's number; the tag names requester and id */
    int kind;            /* BULK_GET / BULK_PUT */
    char *addr;          /* ours: the requester's laddr, the target's raddr */
    size_t len;
    uint32_t chunks, left; /* chunks posted, completions still to come */
    sl_status_t status;
    bool posted;         /* its chunks were handed to the provider */
    bool rma;            /* by fi_read/fi_write into memory the target registered */
    bool hold;           /* rma requester: the target holds a registration for it */
    uint64_t rkey, raddr; /* rma requester: the target's key and address (READY) */
    ofi_mr_t *mr;        /* rma target: the registration it holds */
    ofi_mr_t *lmr;       /* FI_MR_LOCAL: the registration of our memory its chunks use */
    ofi_ctx_t *ctx;      /* [chunks] */
} ofi_op_t;

#define OFI_STASH 64

struct wire_ofi {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *rxcq, *txcq;
    struct fid_ep *ep;
    fi_addr_t *addr;           /* [size] */
    uint16_t *tx_seq, *rx_seq; /* [size]: packets sent to / received from each peer */
    uint64_t token;
    size_t inject_max, chunk;
    pthread_mutex_t lock;      /* every fi_* call (and the stash) */

    /* received packet buffers, all posted */
    int n_rx;
    size_t rx_len;
    char *rx_mem;
    ofi_ctx_t *rx_ctx;

    /* FI_MR_LOCAL (SLUICE_OFI_MR_LOCAL): every buffer handed to the provider
     * is registered; packets then go from a registered pool (tx_*), not
     * from a malloc'd copy each */
    bool mr_local;
    ofi_mr_t *rx_mr, *tx_mr;
    char *tx_mem;
    ofi_ctx_t *tx_ctx, *tx_free;

    /* completions read by a waiting thread's check (ofi_ready), for the drainer */
    struct fi_cq_tagged_entry stash[OFI_STASH];
    int n_stash;
    _Atomic int stashed;

    /* the waker thread: sleeps on the provider's wait object while a thread
     * of ours sleeps on our futex, and wakes it when packets come */
    int wait_fd, tx_wait_fd, stop_fd; /* the queues' wait fds (-1: none) */
    pthread_t waker;
    bool waker_on;
    _Atomic uint32_t arm;      /* futex: a thread of ours went to sleep */
    _Atomic uint32_t drained;  /* futex: the drainer read the completion queue */
    _Atomic bool drain_wait;   /* the waker sleeps on `drained` (else no wake is due) */
    _Atomic bool signalled;    /* the wait object fired since the last drain */
    _Atomic bool stop;
    int byes_out;              /* byes not completed yet (wire_fini) */
    unsigned tx_out;           /* operations that will complete on the send queue (under lock) */
    unsigned tx_skips;         /* reads of the send queue skipped since the last one */

    /* bulk chunks completed (or failed), for the drainer to account out of
     * the lock: accounting may send packets, which takes peer locks */
    ofi_ctx_t *later_head, *later_tail;
    _Atomic int n_later;

    /* bulk copies (ofi_bulk.c), under lock */
    ofi_op_t *ops;
    uint32_t next_id;
    bool rma;                  /* SLUICE_OFI_RMA chose fi_read/fi_write */

    /* registrations (ofi_mr.c), under lock: the provider's FI_MR_* modes */
    bool mr_virt, mr_prov_key, mr_bind_ep;
    size_t mr_key_size;        /* bytes of a key (FI_MR_RAW is not offered: at most 8) */
    ofi_mr_t *mr_head, *mr_tail;
    int n_mr, n_idle, mr_max;  /* all, unused, unused ones kept */
};

/* ofi.c */
/* Post (again) one packet receive buffer.  Under lock. */
void ofi_post_rx(wire_t *w, ofi_ctx_t *c);
/* fi_* call that may answer -FI_EAGAIN (the provider's queues are full):
 * retried, progressing the send queue in between, for as long as peer
 * (-1: none in particular) may still take it (ofi_again).  Under lock. */
#define OFI_RETRY(w, peer, call)                                                            \
    ({                                                                                      \
        ssize_t rc_;                                                                        \
        uint64_t t0_ = 0;                                                                   \
        while ((rc_ = (call)) == -FI_EAGAIN && ofi_again(w, peer, &t0_)) {}                 \
        rc_;                                                                                \
    })
bool ofi_again(wire_t *w, int peer, uint64_t *t0);
/* Read the send queue's completions (under lock); ofi_reap_tx only when
 * operations are out there (see ofi.c), ofi_reap_tx_now always. */
void ofi_reap_tx(wire_t *w);
void ofi_reap_tx_now(wire_t *w);
/* An operation that completes on the send queue was posted (rc 0). */
static inline void ofi_tx_posted(wire_ofi_t *o, ssize_t rc)
{
    if (rc == 0) o->tx_out++;
}
/* A libfabric call failed in a way the transport cannot recover from. */
void ofi_fatal(wire_t *w, const char *what, ssize_t rc) __attribute__((noreturn));

/* ofi_mr.c (under lock) */
/* The provider's registration modes and the cache's bound. */
sl_status_t ofi_mr_init(wire_t *w);
/* A registration covering [addr, addr+len) for access (FI_REMOTE_READ or
 * _WRITE), from the cache or new; the caller holds it until ofi_mr_put.
 * The range must have been checked (range_ok in ofi_bulk.c) just before. */
sl_status_t ofi_mr_get(wire_t *w, uintptr_t addr, size_t len, uint64_t access, ofi_mr_t **out);
void ofi_mr_put(wire_t *w, ofi_mr_t *m);
/* The address a peer names for addr in an fi_read/fi_write with m's key. */
uint64_t ofi_mr_raddr(const wire_t *w, const ofi_mr_t *m, uintptr_t addr);
/* The local descriptor of m for an fi_* call (NULL for NULL m: no
 * FI_MR_LOCAL), counted. */
static inline void *ofi_ldesc(wire_t *w, const ofi_mr_t *m)
{
    if (!m) return NULL;
    WIRE_STAT_INC(w, ofi_mr_local, 1);
    return fi_mr_desc(m->mr);
}
void ofi_mr_fini(wire_t *w);

/* ofi_bulk.c */
sl_status_t ofi_bulk(wire_t *w, wire_bulk_t *op);
/* A bulk chunk's completion (c->err set), rx or tx side.  Not under lock. */
void ofi_bulk_done(wire_t *w, ofi_ctx_t *c);
/* End: drop what is still listed.  Under lock. */
void ofi_bulk_fini(wire_t *w);
/* peer is gone: its copies are cancelled, and fail as their chunks come back. */
void ofi_bulk_peer_gone(wire_t *w, int peer);

#endif
