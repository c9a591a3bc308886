/* The wire: packets into a receiver's shared mailbox and one-sided bulk
 * copies between ranks.  The only layer that knows about processes, shared
 * memory and transports; the Portals engine sits on top of it.
 *
 * Packets.  wire_send() takes a message (header + payload, any size up to
 * WIRE_MSG_MAX), cuts it into packets that fit the sender's credit quota and
 * delivers it to the destination's receive callback as fragments, in order:
 * messages from one sender to one receiver are never reordered and the
 * fragments of one message are never interleaved with another message from
 * the same sender.  End-to-end credit flow control (paper 001, static scheme)
 * guarantees a mailbox never overflows; a message that finds no credits is
 * parked and goes out when credits return.  wire_send() never blocks.
 *
 * Bulk.  wire_get()/wire_put() copy between local memory and an address in a
 * peer's address space: single copy by cross-memory attach when the kernel
 * allows it, else a pipelined copy through shared staging buffers, which
 * needs the peer to make progress (call wire_progress or wait).
 *
 * Threads: every call may be made from any thread.  One thread at a time
 * drains the mailbox; receive callbacks run on it, inside wire_progress(). */
#ifndef SL_WIRE_H
#define SL_WIRE_H

#include "boot/boot.h"
#include "util/status.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define WIRE_MSG_MAX (1u << 20)  /* largest message wire_send accepts */
#define WIRE_TYPE_USER_MAX 0xdf  /* packet types 0..0xdf belong to the layer above */

typedef struct wire wire_t;

/* One fragment of a received message.  data is valid only during the
 * callback.  first/last mark the message's first and last fragment; a
 * message that fits one packet has both. */
typedef struct wire_frag {
    int src;
    uint8_t type;
    bool first, last;
    const void *data;
    size_t len;
} wire_frag_t;

typedef void (*wire_recv_fn)(void *arg, const wire_frag_t *frag);

/* Counters kept per rank (printed at wire_fini with SLUICE_STATS=1); the
 * list and the meaning of each is in wire/stats_fields.h. */
typedef struct wire_stats {
#define WIRE_STAT_FIELD_(f) uint64_t f;
#include "wire/stats_fields.h"
#undef WIRE_STAT_FIELD_
} wire_stats_t;

/* Mailbox geometry, as configured (for tests, tools and benchmarks). */
typedef struct wire_layout {
    uint32_t slots;         /* ring slots (data + credit region) */
    uint32_t data_slots;    /* data region */
    uint32_t credit_slots;  /* credit-region slots per peer */
    uint32_t quota;         /* static: data credits per sender (slots); dynamic: the
                               credits a sender starts with (its static slots) */
    bool dynamic;           /* SLUICE_FLOWCTL=dynamic (paper 001 §6) */
    uint32_t threshold;     /* credit return threshold, Eq. 1 */
    uint32_t pkt_slots;     /* largest packet, in slots (SLUICE_PKT_SLOTS, the shared-memory ring's) */
    size_t pkt_payload;     /* largest packet payload, bytes */
    uint32_t pkt_slots_fc;  /* largest packet flow control allows (Eq. 3; dynamic: the
                               64 KiB packet headers can say) */
} wire_layout_t;

/* Receive-side memory of one rank in a job of `size` ranks under the
 * current settings and a flow-control scheme, computed without starting anything (sluice_info
 * --memory, SLUICE_STATS).  Bytes. */
typedef struct wire_mem {
    bool dynamic;
    uint32_t slots;
    uint64_t ring;           /* the mailbox: credit + static + dynamic regions */
    uint64_t credit_region, static_region, dynamic_region;
    uint64_t fastbox;        /* fastbox cells, every sender's */
    uint64_t staging;        /* staged-copy channels and buffers */
    uint64_t header;
    uint64_t segment;        /* the segment before its shared heap (all of the above) */
    uint64_t heap;           /* SLUICE_SHM_HEAP as set (shrunk at run time to fit /dev/shm) */
    uint64_t fc_private;     /* the receiver's flow-control structures (private memory) */
} wire_mem_t;
enum { WIRE_FC_SETTING = -1, WIRE_FC_STATIC = 0, WIRE_FC_DYNAMIC = 1 };
/* scheme: WIRE_FC_STATIC, WIRE_FC_DYNAMIC, or WIRE_FC_SETTING (the one
 * SLUICE_FLOWCTL names).  SL_ERR_INVALID for a bad size or scheme. */
sl_status_t wire_memory_plan(int size, int scheme, wire_mem_t *out);

/* Create this rank's segment, attach every peer's, check the configuration
 * (Eq. 2, agreement between ranks) and probe cross-memory attach.  Collective:
 * every rank of the job calls it.  cb receives every message fragment. */
sl_status_t wire_init(boot_t *boot, wire_recv_fn cb, void *cb_arg, wire_t **out);

/* Release everything.  Messages still parked for credits are dropped with a
 * warning: callers complete their traffic first (e.g. a fence).  From its
 * start, the end of this process is a normal one for the peers, not a
 * death (wire_peers_gone). */
sl_status_t wire_fini(wire_t *w);

int wire_rank(const wire_t *w);
int wire_size(const wire_t *w);
const wire_layout_t *wire_get_layout(const wire_t *w);
void wire_get_stats(const wire_t *w, wire_stats_t *out);

/* Send a message of type (<= WIRE_TYPE_USER_MAX) made of the iov pieces to
 * dst (dst == own rank is allowed).  The data is copied before return.
 * SL_ERR_INVALID for a bad rank, type or size, SL_ERR_NOMEM when parking
 * failed (nothing was sent then), SL_ERR_PEER_DEAD when dst is gone (below). */
sl_status_t wire_send(wire_t *w, int dst, uint8_t type, const struct iovec *iov, int iovcnt);
/* The same for a message nobody needs handled before dst's application
 * next waits in the library: it wakes dst only if an application thread of
 * dst sleeps there, not its progress thread (which then handles it at its
 * next wake-up, at most WIRE_SLEEP_SLICE later).  Saves a context switch
 * on a CPU the application is computing on.  A message that has to wait
 * for credits wakes dst anyway (it must drain). */
sl_status_t wire_send_lazy(wire_t *w, int dst, uint8_t type, const struct iovec *iov, int iovcnt);

/* Convenience for one contiguous buffer. */
sl_status_t wire_send_buf(wire_t *w, int dst, uint8_t type, const void *buf, size_t len);

/* Would a message of len bytes to dst go into its mailbox at once (credits
 * for all of it, nothing parked before it)?  A hint: credits only grow
 * until this thread sends, but other threads may send meanwhile. */
bool wire_tx_room(wire_t *w, int dst, size_t len);

/* Do pending work: drain the mailbox (running callbacks), send parked
 * packets, move staged bulk data.  Returns the number of items handled (0 =
 * nothing to do), so waiting loops can back off.  Never blocks. */
int wire_progress(wire_t *w);

/* wire_progress for a thread that is about to start operations of its own
 * (posting, not waiting): it drains packets but neither helps a peer's
 * split copy nor moves staged bulk data, so that its own operations go out
 * first.  The receive callback may end the drain early (wire_drain_stop). */
int wire_progress_light(wire_t *w);

/* From the receive callback: take no further packet in this drain (they
 * stay queued for the next one). */
void wire_drain_stop(wire_t *w);

/* An application thread begins (on) or ends a blocking wait in the layer
 * above: peers offer such a process a share of their copies (bulk.c). */
void wire_host_waits(wire_t *w, bool on);

/* Progress until every message parked for credits has been sent (the
 * receivers must be making progress to return credits), or timeout_ns passes
 * (< 0: no limit).  SL_OK, SL_ERR_TIMEOUT or SL_ERR_PEER_DEAD.  Call it
 * before leaving the wire idle, e.g. before a fence that ends a phase. */
sl_status_t wire_flush(wire_t *w, int64_t timeout_ns);

/* Messages currently parked for lack of credits (all peers). */
int wire_parked(const wire_t *w);

/* Peers whose process has ended, found by the dead-peer checks of waits
 * (every WIRE_SLEEP_SLICE of sleep): those that died, and those that left
 * after their wire_fini.  Nothing more comes from a gone peer, sends to it
 * fail (SL_ERR_PEER_DEAD) and what was parked for it is dropped.  How many
 * so far (a layer above compares it with the count it has handled), and
 * whether peer is one of them. */
uint32_t wire_peers_gone(const wire_t *w);
bool wire_peer_gone(const wire_t *w, int peer);
/* More ranks on this host than it has CPUs: a waiting rank should give its
 * CPU away soon, since the rank it waits for may need it. */
bool wire_oversubscribed(const wire_t *w);
/* How long a wait spins before it sleeps: SLUICE_SPIN_US, capped when
 * oversubscribed (SL_WAIT_OVERSUB_NS, util/wait.h). */
int64_t wire_spin_ns(const wire_t *w);

/* Wait until work may be available or timeout_ns passes (< 0: no limit):
 * spins for SLUICE_SPIN_US, yielding in the second half, then sleeps on the
 * mailbox futex.  Returns SL_OK (work may be there: call wire_progress),
 * SL_ERR_TIMEOUT, or SL_ERR_PEER_DEAD when a peer process has died (ended
 * before its wire_fini; a peer that left is no error, see wire_peers_gone):
 * after each sleep slice without work, for as long as the job runs. */
sl_status_t wire_wait(wire_t *w, int64_t timeout_ns);

/* wire_wait with its own spin budget: a progress thread passes 0 so it
 * sleeps at once instead of competing for a CPU with application threads. */
sl_status_t wire_wait_spin(wire_t *w, int64_t timeout_ns, int64_t spin_ns);
/* The progress thread's wait: sleeps at once, and lazy packets
 * (wire_send_lazy) do not wake it. */
sl_status_t wire_wait_idle(wire_t *w, int64_t timeout_ns);

/* Wake this process's threads sleeping in wire_wait (e.g. a progress thread
 * that must notice new local work). */
void wire_kick(wire_t *w);

/* A bulk transfer.  Owned by the caller, must stay valid until done. */
typedef struct wire_bulk {
    _Atomic int done;       /* 1 when finished; status tells how */
    sl_status_t status;
    /* private */
    int peer, kind, chan;
    uint64_t raddr;
    char *laddr;
    size_t len, chunks_moved, chunks_filled;
    struct wire_bulk *next;
} wire_bulk_t;

/* Copy len bytes at raddr in peer's address space into laddr (get) or laddr
 * into raddr (put).  SL_OK: finished already (cross-memory attach did the
 * copy in the caller's context).  SL_INPROGRESS: staged; wire_progress
 * completes it (op->done).  Errors: SL_ERR_INVALID, SL_ERR_PEER_DEAD,
 * SL_ERR_SYS (the remote range is not mapped in the peer). */
sl_status_t wire_get(wire_t *w, int peer, uint64_t raddr, void *laddr, size_t len,
                     wire_bulk_t *op);
sl_status_t wire_put(wire_t *w, int peer, uint64_t raddr, const void *laddr, size_t len,
                     wire_bulk_t *op);

/* Progress until op is done, waiting (not spinning) in between; returns its
 * final status. */
sl_status_t wire_bulk_wait(wire_t *w, wire_bulk_t *op);

/* Turn piggybacked credit return on or off at run time (default from
 * SLUICE_PIGGYBACK); for experiments comparing the two. */
void wire_set_piggyback(wire_t *w, bool on);

/* The shared heap: memory of this rank that every peer has mapped.  A get
 * or put whose remote range lies in a peer's shared heap is one memcpy
 * (no system call).  64-byte aligned; NULL when the heap (SLUICE_SHM_HEAP)
 * is exhausted or disabled.  wire_heap_free returns SL_ERR_INVALID for a
 * pointer that is not a live block of this heap. */
void *wire_heap_alloc(wire_t *w, size_t len);
sl_status_t wire_heap_free(wire_t *w, void *ptr);
size_t wire_heap_size(const wire_t *w);
/* Where [raddr, raddr+len) of peer's shared heap (raddr: an address in the
 * peer's own process, as its wire_heap_alloc returned it) is mapped in this
 * process; NULL when the range is not inside that heap or peer is invalid. */
void *wire_heap_peer(const wire_t *w, int peer, uint64_t raddr, size_t len);

/* Hosts.  Ranks of one host (SLUICE_HOST, else the machine) share memory;
 * ranks on different hosts talk through libfabric.  wire_hosts: how many
 * the job has; wire_host_of: rank's host, numbered 0.. in the order of
 * their lowest rank; wire_host_rank: its place among the ranks of its
 * host, 0..  (-1 for a bad rank).  The Portals engine's nid is the host. */
int wire_hosts(const wire_t *w);
int wire_host_of(const wire_t *w, int rank);
int wire_host_rank(const wire_t *w, int rank);
/* "shm", "ofi" or "self": how this rank reaches rank (NULL: bad rank). */
const char *wire_peer_transport(const wire_t *w, int rank);
/* The libfabric providers this build can use, comma separated, into buf
 * ("" when none; "not built" without libfabric).  For sluice_info. */
const char *wire_ofi_providers(char *buf, size_t len);

/* Whether bulk copies to peer use cross-memory attach. */
bool wire_peer_uses_cma(const wire_t *w, int peer);

/* For launchers cleaning up after a job: if the shared-memory object name
 * (as in /dev/shm, without the slash) is a wire segment, the pid and rank
 * its header names as creator (true), else false.  Reads the header only;
 * never blocks. */
bool wire_segment_owner(const char *name, int *pid, int *rank);

#endif
