/* Collectives as dependency graphs (DESIGN.md §5, paper 004 §II).
 *
 * A schedule is a DAG of send, recv, reduce, copy and nop vertices; an edge
 * (u, v) means v must not start before u has completed.  Schedules are
 * built once by a generator (a dataflow graph mapped onto a topology graph:
 * a tree, a ring, a butterfly...) and are immutable afterwards, so one
 * schedule can run many times (persistent collectives, the blocking
 * collectives' cache) and be handed as it is to another executor.
 *
 * Vertices name memory as (base, offset): the send buffer, the receive
 * buffer and the schedule's scratch are bound per run.  Peers are world
 * ranks (the communicator is resolved when building); tags are local to
 * the schedule (17 bits) and a run adds its collective sequence number
 * above them, so concurrent collectives on one communicator never match
 * each other's messages, whatever the order their receives are posted in.
 *
 * The host executor (exec.c) starts a vertex the moment its last
 * dependency completes: local vertices run at once, sends and receives
 * become p2p operations whose completion is watched (p2p_watch).  Runs
 * started with async progress on are driven by the progress thread
 * (async.c) while the application computes.
 *
 * Threads: every call is made under the p2p layer's lock when threads are
 * on (p2p_mt_enter), serialised otherwise. */
#ifndef SL_COLL_H
#define SL_COLL_H

#include "util/status.h"
#include "util/trace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- schedules ---------------------------------------------------------------------------- */

enum { COLL_SBUF, COLL_RBUF, COLL_TMP, COLL_NBASE };
typedef uint64_t coll_ref_t; /* base << 56 | byte offset */
#define COLL_REF(base, off) (((uint64_t)(base) << 56) | (uint64_t)(off))
#define COLL_REF_BASE(r) ((unsigned)((r) >> 56))
#define COLL_REF_OFF(r) ((size_t)((r) & ((1ull << 56) - 1)))
#define COLL_REF_ADD(r, d) ((r) + (uint64_t)(d))

#define COLL_TAG_BITS 17
#define COLL_TAG_MASK ((1u << COLL_TAG_BITS) - 1)
#define COLL_SEQ_MASK 0x3fffu /* 14 bits above the tag; 0 is never used */

typedef enum { CV_SEND, CV_RECV, CV_REDUCE, CV_COPY, CV_NOP } coll_vkind_t;
enum { COLL_EXEC_SETTING, COLL_EXEC_HOST, COLL_EXEC_OFFLOAD };
/* SLUICE_COLL_EXECUTOR: COLL_EXEC_HOST, COLL_EXEC_OFFLOAD, or
 * COLL_EXEC_SETTING for auto */
int coll_exec_setting(void);

/* A reduction: inout = in op inout on count elements of a packed stream
 * (in holds the lower ranks' part when the op does not commute).  apply
 * returns 0 or an error code of the caller's (kept as the run's error). */
typedef struct coll_op {
    int (*apply)(const struct coll_op *op, const void *in, void *inout, size_t count);
    size_t esize; /* bytes of one element in the stream */
    bool commute;
    /* The same reduction as a Portals atomic (op, datatype of the stream's
     * basic elements of atom_size bytes), which the offload executor needs;
     * without (user ops, pair types...) reductions run on the host. */
    bool has_atom;
    int atom_op, atom_type;
    size_t atom_size;
} coll_op_t;

typedef struct coll_vertex {
    uint8_t kind;
    uint16_t opi;    /* reduce: 0 the schedule's op, k its extra op k - 1 (cs_reduce_op) */
    int peer;        /* send/recv: world rank */
    uint32_t tag;    /* send/recv: local tag */
    size_t len;      /* send/recv/copy: bytes; reduce: elements */
    coll_ref_t a, b; /* send/recv: a; copy: a -> b; reduce: in a, inout b */
    uint32_t ndeps;  /* edges into it */
    uint32_t succ0, nsucc; /* its successors: succ[succ0 .. succ0 + nsucc) */
} coll_vertex_t;

typedef struct coll_sched {
    coll_vertex_t *v;
    uint32_t nv, capv;
    uint32_t (*edge)[2]; /* while building */
    uint32_t ne, cape;
    uint32_t *succ;      /* after commit */
    size_t tmp_bytes;
    const coll_op_t *op;      /* the generators' reductions' op */
    const coll_op_t **xops;   /* more ops (user schedules: one per op and datatype) */
    uint16_t nxops;
    /* what holds the ops' memory (user schedules), freed with the schedule */
    void *keep;
    void (*keep_free)(void *keep);
    int rank, size;           /* of the communicator it was built for */
    int nremote;              /* intercommunicators: the remote group's size (peers size..) */
    const int *world_of;      /* rank -> world rank (NULL: identity) */
    int kind, variant;        /* what it does (coll_kind_t, CA_*) */
    bool failed;              /* out of memory while building */
    bool committed;
    uint8_t exec;             /* COLL_EXEC_*: who runs it (0: the setting decides) */
    uint32_t nxfer;           /* sends and receives */
    size_t max_msg;           /* the longest message */
    int refs;
} coll_sched_t;

/* A new empty schedule for rank of size ranks (world_of maps them, NULL
 * for the identity). */
coll_sched_t *coll_sched_new(int rank, int size, const int *world_of);
void coll_sched_retain(coll_sched_t *s);
void coll_sched_release(coll_sched_t *s);
/* Add vertices; each returns its id, or -1 (s->failed) without memory.
 * peer: a rank of the communicator. */
int cs_send(coll_sched_t *s, coll_ref_t buf, size_t len, int peer, uint32_t tag);
int cs_recv(coll_sched_t *s, coll_ref_t buf, size_t len, int peer, uint32_t tag);
int cs_copy(coll_sched_t *s, coll_ref_t src, coll_ref_t dst, size_t len);
int cs_reduce(coll_sched_t *s, coll_ref_t in, coll_ref_t inout, size_t count);
/* A reduce vertex with its own op (NULL or s->op: the schedule's); op must
 * live as long as the schedule (s->keep).  At most COLL_MAX_XOPS distinct
 * ops besides s->op. */
#define COLL_MAX_XOPS 65535
int cs_reduce_op(coll_sched_t *s, coll_ref_t in, coll_ref_t inout, size_t count,
                 const coll_op_t *op);
/* The op a reduce vertex applies. */
static inline const coll_op_t *coll_vop(const coll_sched_t *s, const coll_vertex_t *x)
{
    return x->opi ? s->xops[x->opi - 1] : s->op;
}
/* Does s reduce at all, and does every op it applies have a Portals
 * atomic? */
static inline bool coll_sched_reduces(const coll_sched_t *s)
{
    return s->op || s->nxops;
}
bool coll_sched_atomic(const coll_sched_t *s);
int cs_nop(coll_sched_t *s);
/* after must not start before before has completed (no-op if either is
 * negative or they are the same vertex). */
void cs_dep(coll_sched_t *s, int before, int after);
/* A nop that completes when every vertex added so far has: later phases
 * depend on it. */
int cs_join(coll_sched_t *s);
/* Every vertex from from on that depends on nothing depends on gate (the
 * next phase starts after the join). */
void cs_gate(coll_sched_t *s, int gate, uint32_t from);
/* Reserve len bytes of scratch (64-byte aligned); returns its offset. */
size_t cs_tmp(coll_sched_t *s, size_t len);
/* Freeze the graph (successor lists); SL_ERR_NOMEM if building failed,
 * SL_ERR_INVALID if it has a cycle. */
sl_status_t coll_sched_commit(coll_sched_t *s);
/* Write the schedule as a Graphviz graph to path. */
sl_status_t coll_sched_dot(const coll_sched_t *s, const char *path);

/* ---- runs (exec.c) ------------------------------------------------------------------------- */

typedef struct coll_run coll_run_t;
typedef void (*coll_done_fn)(coll_run_t *run, void *arg);

/* A run of s on p2p context ctx (its scratch allocated, buffers bound
 * later); holds a reference on s. */
sl_status_t coll_run_new(coll_sched_t *s, unsigned ctx, coll_run_t **out);
void coll_run_free(coll_run_t *run);
void coll_run_bind(coll_run_t *run, const void *sbuf, void *rbuf);
/* fn(run, arg) is called once when a run completes, before it is seen
 * complete (unpacking into the user's buffers). */
void coll_run_on_done(coll_run_t *run, coll_done_fn fn, void *arg);
/* Start the run with collective sequence seq (1..COLL_SEQ_MASK): the
 * vertices without dependencies start now (test-on-init).  async: the
 * progress thread keeps it moving (coll_async_start must have run).  nb:
 * a non-blocking or persistent call (every rank of the call says the
 * same), which SLUICE_COLL_EXECUTOR=auto offloads when it can and no
 * progress thread runs (async false on every rank); an offloaded run is
 * moved by the Portals engine alone. */
sl_status_t coll_run_start(coll_run_t *run, unsigned seq, bool async, bool nb);
/* Progress, then: has the run completed? */
bool coll_run_test(coll_run_t *run);
/* Until the run has completed.  Both return its error (SL_OK,
 * SL_ERR_TRUNCATE when a message was longer than its receive,
 * SL_ERR_PROTO when shorter, or the p2p layer's). */
sl_status_t coll_run_wait(coll_run_t *run);
bool coll_run_done(const coll_run_t *run);
sl_status_t coll_run_error(const coll_run_t *run);
/* The op's error code, if a reduce vertex failed (0 otherwise). */
int coll_run_op_error(const coll_run_t *run);

/* Handle the completions p2p has reported and start what they enable;
 * returns how many vertices completed. */
int coll_progress(void);

/* ---- asynchronous progress (async.c) ------------------------------------------------------ */

/* Start the progress thread (once; turns p2p's lock on).  Called outside
 * the lock, before the first asynchronous run. */
sl_status_t coll_async_start(void);
bool coll_async_running(void);
/* Stop it (MPI_Finalize), outside the lock. */
void coll_async_stop(void);
/* exec.c: an asynchronous run started or completed */
void coll_async_kick(void);

/* ---- generators (gen_*.c) ------------------------------------------------------------------ */

/* Tree shapes: every one numbers its nodes in preorder (virtual ranks,
 * the root 0), so a subtree is a contiguous run of virtual ranks and the
 * children come in increasing order: gathers need no reordering and a
 * reduction along it combines operands in rank order. */
typedef enum { CT_KARY, CT_KNOMIAL, CT_CHAIN, CT_FLAT } coll_tree_kind_t;
#define COLL_TREE_MAXCHILD 64
typedef struct coll_tree {
    int parent; /* -1 at the root */
    int nchild;
    int child[COLL_TREE_MAXCHILD];
    int span; /* the subtree is [v, v + span) */
} coll_tree_t;
void coll_tree(coll_tree_kind_t kind, int k, int n, int v, coll_tree_t *t);

/* Each collective's variants. */
typedef enum {
    COLL_BARRIER, COLL_BCAST, COLL_REDUCE, COLL_ALLREDUCE, COLL_GATHER, COLL_SCATTER,
    COLL_ALLGATHER, COLL_ALLTOALL, COLL_REDUCE_SCATTER, COLL_SCAN, COLL_NEIGHBOR, COLL_NKIND
} coll_kind_t;

enum { /* variants */
    CA_KARY, CA_KNOMIAL, CA_CHAIN, CA_FLAT,  /* trees (bcast, reduce, gather, scatter) */
    CA_SCATTER_ALLGATHER,                    /* bcast */
    CA_BUTTERFLY, CA_DISSEMINATION, CA_PAIRWISE, CA_RING, CA_BRUCK,
    CA_REDUCE_BCAST, /* allreduce, barrier */
    CA_GATHER_BCAST, /* allgather */
    CA_REDUCE_SCATTERV, /* reduce_scatter: scatter after reduce */
    CA_LINEAR, /* scan, exscan: pipelined chain */
    CA_DIRECT, /* neighbour collectives: every message at once */
    CA_ROUNDOPT, /* bcast: round-optimal pipeline (roundopt.h) */
    CA_NVARIANT
};

typedef struct coll_alg {
    int variant;
    int k;         /* tree fan-out (kary, knomial) */
    size_t seg;    /* pipeline segment, bytes (0: whole message) */
    int window;    /* sends in flight per peer (pipelines), steps in flight (pairwise) */
} coll_alg_t;

/* The algorithm for a call: SLUICE_COLL_<KIND> if set and able to serve
 * it, the default table otherwise.  bytes: the message size the tables
 * key on; commute, pow2 and regular describe the call (a variant that
 * needs what the call lacks falls back, warning once). */
typedef struct coll_call {
    int size;
    size_t bytes;
    bool commute;  /* reductions */
    bool regular;  /* equal blocks (not a v-collective) */
} coll_call_t;
void coll_select(coll_kind_t kind, const coll_call_t *call, coll_alg_t *out);
/* The default table alone (a variant that can serve any call). */
void coll_select_default(coll_kind_t kind, const coll_call_t *call, coll_alg_t *out);
const char *coll_variant_name(int variant);
const char *coll_kind_name(coll_kind_t kind);
/* Every variant of kind, for sluice_info and the tests: fills names (up to
 * max), returns how many. */
int coll_variants(coll_kind_t kind, int *variants, int max);
/* Parse "name[:k=K][,seg=S][,window=W]" for kind: SL_OK or SL_ERR_INVALID. */
sl_status_t coll_alg_parse(coll_kind_t kind, const char *text, coll_alg_t *out);

/* Block layouts of the v-collectives: block i at off[i], len[i] bytes. */
typedef struct coll_layout {
    const size_t *off, *len;
} coll_layout_t;

/* Each generator adds the calling rank's part of the collective to s.
 * Data: SBUF the rank's contribution, RBUF the result (as MPI names them);
 * inplace: the contribution is already in RBUF where MPI_IN_PLACE puts it.
 * They return SL_OK, SL_ERR_INVALID for a variant that cannot serve the
 * call (the caller falls back), SL_ERR_NOMEM. */
sl_status_t cg_barrier(coll_sched_t *s, const coll_alg_t *a);
sl_status_t cg_bcast(coll_sched_t *s, const coll_alg_t *a, size_t len, int root);
sl_status_t cg_reduce(coll_sched_t *s, const coll_alg_t *a, size_t count, int root, bool inplace);
sl_status_t cg_allreduce(coll_sched_t *s, const coll_alg_t *a, size_t count, bool inplace);
sl_status_t cg_gather(coll_sched_t *s, const coll_alg_t *a, size_t blen, int root, bool inplace);
sl_status_t cg_scatter(coll_sched_t *s, const coll_alg_t *a, size_t blen, int root, bool inplace);
/* v forms: lay at the root only (other ranks pass their own block's len). */
sl_status_t cg_gatherv(coll_sched_t *s, const coll_layout_t *lay, size_t mylen, int root,
                       bool inplace);
sl_status_t cg_scatterv(coll_sched_t *s, const coll_layout_t *lay, size_t mylen, int root,
                        bool inplace);
/* lay: every rank's block in RBUF; the own block comes from SBUF (offset 0)
 * unless inplace. */
sl_status_t cg_allgather(coll_sched_t *s, const coll_alg_t *a, const coll_layout_t *lay,
                         bool inplace);
/* slay: blocks in SBUF for each destination; rlay: in RBUF from each
 * source.  inplace: SBUF is not used, RBUF's blocks (rlay) are sent. */
sl_status_t cg_alltoall(coll_sched_t *s, const coll_alg_t *a, const coll_layout_t *slay,
                        const coll_layout_t *rlay, bool inplace);
/* counts[i]: elements of block i (the full vector is their sum, in SBUF or,
 * inplace, in RBUF); the rank's block of the result goes to RBUF[0..). */
sl_status_t cg_reduce_scatter(coll_sched_t *s, const coll_alg_t *a, const size_t *counts,
                              bool inplace);
sl_status_t cg_scan(coll_sched_t *s, const coll_alg_t *a, size_t count, bool inplace,
                    bool exclusive);

/* A neighbourhood (the neighbour collectives): block i of RBUF (rlay)
 * comes from in[i] with tag intag[i], block j of SBUF (slay; NULL: all
 * sendlen bytes of SBUF, the allgather) goes to out[j] with outtag[j];
 * negative ranks (MPI_PROC_NULL) exchange nothing. */
typedef struct coll_nbr {
    int nin, nout;
    const int *in, *out, *intag, *outtag;
    const coll_layout_t *rlay, *slay;
    size_t sendlen;
} coll_nbr_t;
sl_status_t cg_neighbor(coll_sched_t *s, const coll_nbr_t *nb);

/* A whole call's arguments, for coll_build. */
typedef struct coll_args {
    coll_kind_t kind;
    int root;
    bool inplace;
    bool exclusive;            /* scan: Exscan */
    bool vform;                /* gather/scatter: Gatherv/Scatterv */
    size_t count;              /* reductions: elements; bcast: bytes; gather/scatter: block bytes */
    size_t mylen;              /* Gatherv/Scatterv: this rank's block */
    const coll_layout_t *lay;  /* allgather, alltoall (receive side), Gatherv/Scatterv */
    const coll_layout_t *slay; /* alltoall: send side */
    const size_t *counts;      /* reduce_scatter */
    const coll_op_t *op;       /* reductions */
    const coll_nbr_t *nbr;     /* neighbour collectives */
    int nremote;               /* > 0: an intercommunicator's call (gen_inter.c) */
} coll_args_t;

/* Intercommunicators (gen_inter.c).  The schedule's ranks 0..size-1 are
 * the local group, size..size+nremote-1 the remote group's ranks 0..
 * (world_of maps both), so the local steps are the intracommunicator
 * generators' and the steps between the groups are sends and receives to
 * the remote ranks.  root of a rooted call: a remote rank (this group
 * contributes or receives), COLL_ROOT_HERE (this rank is the root) or
 * COLL_ROOT_IDLE (another rank of this group is).  vform: the v and w
 * forms, whose blocks the local leader does not know (direct messages).
 * Layouts: lay/slay have nremote blocks (the remote ranks'); Bcast uses
 * RBUF at every rank; Reduce_scatter's counts are the local group's. */
#define COLL_ROOT_HERE (-1)
#define COLL_ROOT_IDLE (-2)
sl_status_t cg_inter(coll_sched_t *s, const coll_args_t *g);

/* Select the variant (coll_select), generate, commit: *out is this rank's
 * schedule of the call.  A variant that cannot serve the call (its
 * generator says so) is replaced by the default, with a warning once per
 * collective.  With SLUICE_COLL_DOT=dir the schedule is also written to
 * dir/<collective>-<variant>-n<size>-r<rank>-<count>.dot. */
sl_status_t coll_build(const coll_args_t *args, int rank, int size, const int *world_of,
                       coll_sched_t **out);

/* ---- the direct path (direct.c) -------------------------------------------------------------- */

/* Small blocking barrier, bcast, reduce, allreduce, gather, scatter,
 * allgather and alltoall run a variant's algorithm straight on p2p, with
 * no schedule (the per-call work of a schedule is most of a small blocking
 * call's time).  Up to SLUICE_COLL_DIRECT_MAX bytes per rank (at most
 * COLL_DIRECT_MAX_LIMIT; the block collectives: all blocks together, on
 * at most COLL_DIRECT_MAX_PEERS ranks); not for a forced variant or
 * executor, a trace, a Graphviz dump, a non-commutative op, or while
 * schedule runs are in flight (their waits drive them). */
#define COLL_DIRECT_MAX_DEFAULT 8192
#define COLL_DIRECT_MAX_LIMIT 16384
#define COLL_DIRECT_MAX_PEERS 8
#define COLL_DIRECT_KINDS                                                                     \
    (1u << COLL_BARRIER | 1u << COLL_BCAST | 1u << COLL_REDUCE | 1u << COLL_ALLREDUCE |        \
     1u << COLL_GATHER | 1u << COLL_SCATTER | 1u << COLL_ALLGATHER | 1u << COLL_ALLTOALL)
typedef struct coll_direct {
    coll_kind_t kind;   /* one of COLL_DIRECT_KINDS */
    int rank, size;     /* in the communicator */
    int root;           /* bcast, reduce */
    const int *map;     /* communicator rank -> world rank (NULL: the same) */
    unsigned ctx, seq;  /* the collective context and sequence (as a run's) */
    const void *sbuf;   /* the input (bcast: unused); NULL: in place */
    void *rbuf;         /* bcast: the data; the others: the result; NULL: in place (scatter) */
    size_t bytes;       /* of one rank's data; block collectives: of one block received */
    size_t sbytes;      /* block collectives: of one block sent (the same in a correct call) */
    const coll_op_t *op;
} coll_direct_t;
/* The settings that decide it, read when a communicator first asks (as
 * the schedules' variants are read when a communicator first builds one:
 * a program or test that changes them uses a new communicator). */
typedef struct coll_direct_cfg {
    bool read;
    long max;        /* bytes; < 0: never */
    unsigned forced; /* bit per kind: SLUICE_COLL_<KIND> names a variant */
} coll_direct_cfg_t;
void coll_direct_cfg_read(coll_direct_cfg_t *cfg);
/* Schedule runs started and not complete (the direct path waits only for
 * its own messages: while runs are in flight, calls take schedules, whose
 * waits drive every run). */
unsigned coll_runs_active(void);
/* Does a call of this kind take the direct path?  bytes: all this rank
 * receives (allgather, alltoall) or its data (the others); size: the
 * communicator's. */
static inline bool coll_direct_ok(const coll_direct_cfg_t *cfg, coll_kind_t kind, size_t bytes,
                                  int size, const coll_op_t *op)
{
    if (!(COLL_DIRECT_KINDS >> kind & 1) || cfg->max < 0 || bytes > (size_t)cfg->max ||
        (cfg->forced >> kind & 1) || sl_trace_on)
        return false;
    if (kind >= COLL_GATHER && size > COLL_DIRECT_MAX_PEERS) return false; /* block collectives */
    return (!op || op->commute) && coll_runs_active() == 0;
}
/* Run it: SL_OK, or the first error (the algorithm still runs to its end,
 * so that peers are not left waiting); *op_err: the op's first error. */
sl_status_t coll_direct_run(const coll_direct_t *d, int *op_err);
/* Calls that took the direct path in this process (tests). */
unsigned long coll_direct_calls(void);

#endif
