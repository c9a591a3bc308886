/* Internals of the collective layer, shared by its files:
 *   sched.c     building schedules, commit, the Graphviz dump
 *   exec.c      the host executor (runs, the completion cascade)
 *   async.c     the progress thread that moves asynchronous runs
 *   tree.c      tree shapes
 *   select.c    variant names, the default table, SLUICE_COLL_<KIND>
 *   roundopt.c  the round-optimal broadcast's plans (roundopt.h)
 *   gen_*.c     the generators, one file per family of collectives */
#ifndef SL_COLL_INT_H
#define SL_COLL_INT_H

#include "coll/coll.h"
#include "p2p/p2p.h"

/* One p2p operation of a run that has completed, not yet collected. */
typedef struct coll_pend {
    struct coll_run *run;
    uint32_t v;
    struct coll_pend *next;
} coll_pend_t;

struct coll_off;

struct coll_run {
    coll_sched_t *s;
    unsigned ctx;
    uint32_t tagbase;
    char *base[COLL_NBASE];
    uint32_t *rem;       /* dependencies each vertex still waits for */
    uint32_t *ready;     /* vertices to start: two stacks in one array of nv, sends and
                            receives from the start up, local ones from the end down */
    uint32_t nready_xfer, nready_local;
    p2p_req_t **req;     /* send/recv vertices in flight */
    coll_pend_t *pend;   /* one per vertex, for p2p's watch */
    uint32_t left;       /* vertices not completed */
    uint32_t xfers;      /* sends and receives started */
    sl_status_t err;
    int op_err;
    bool done, async;
    coll_done_fn on_done;
    void *on_done_arg;
    p2p_req_t *hint;     /* a receive in flight, for p2p_wait_flag */
    struct coll_off *off; /* offloaded: its Portals objects (offload.c) */
    struct coll_off *off_keep; /* ... kept after completion for the next start */
    uint32_t starts;      /* offloaded starts (the epoch of persistent runs) */
    struct coll_run *off_next; /* offloaded and complete, not collected yet */
};

typedef struct coll_state {
    coll_pend_t *done_list;      /* p2p completions not collected yet */
    struct coll_run *off_done;   /* offloaded runs the engine has completed */
    volatile unsigned ticks;     /* changes with every completion */
    unsigned active;             /* runs started and not complete */
    unsigned async_active;       /* of them, the asynchronous ones */
    unsigned app_waiting;        /* threads inside coll_run_wait: the progress thread steps aside */
} coll_state_t;
extern coll_state_t coll_state;

/* A message of got bytes into a receive of want: SL_OK, SL_ERR_TRUNCATE
 * when longer, SL_ERR_PROTO when shorter (the ranks' type signatures
 * differ): what every executor reports for the receiving vertex. */
static inline sl_status_t coll_len_status(size_t got, size_t want)
{
    return got == want ? SL_OK : got > want ? SL_ERR_TRUNCATE : SL_ERR_PROTO;
}

/* Messages up to this long land without the receiver's host (p2p's short
 * rings, SLUICE_SHORT_MAX's default) */
#define COLL_ASYNC_MSG 8192

/* At most this many segments per message: a smaller segment is raised
 * (each segment is a receive on the engine's list and an event: 4 MiB in
 * 64-byte segments posted 65,536 receives and overflowed the event queue) */
#define COLL_MAX_SEGS 256

/* The segment size of a len-byte message under a (a whole number of
 * units, at most COLL_MAX_SEGS segments), and how many. */
size_t coll_seg_of(const coll_alg_t *a, size_t len, size_t unit, size_t *nseg);

/* Tags inside a schedule: most generators tag a message by its step or
 * segment; these keep the phases of composed schedules apart. */
#define CT_PHASE(p) ((uint32_t)(p) << 14)

/* The tree reduction of count elements of own towards virtual root 0 of
 * the ranks mapped by root (gen_tree.c): the result goes to dst at the
 * virtual root, or is sent to rank fwd when fwd >= 0. */
sl_status_t cg_reduce_to(coll_sched_t *s, const coll_alg_t *a, size_t count, int root,
                         coll_ref_t own, coll_ref_t dst, int fwd);

/* exec.c: mark a run complete (counts, callback) */
void coll_run_finish(coll_run_t *r);

/* offload.c: the offload executor.  Should a run of s go to it (the
 * setting, and whether every vertex can be expressed; the answer is the
 * same on every rank of the call)?  Compile and start a run; collect the
 * runs the engine has completed (from coll_progress). */
bool coll_off_wanted(const coll_sched_t *s, bool nb, bool async);
sl_status_t coll_off_start(coll_run_t *r, unsigned seq);
void coll_off_release(coll_run_t *r); /* the kept objects, when the run is freed */
int coll_off_collect(void);

#endif
