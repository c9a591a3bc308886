/* Internals of the collective layer, shared by its files:
 *   sched.c     building schedules, commit, the Graphviz dump
 *   exec.c      the host executor (runs, the completion cascade)
 *   async.c     the progress thread that moves asynchronous runs
 *   tree.c      tree shapes
 *   select.c    variant names, the default table, SLUICE_COLL_<KIND>
 *   gen_*.c     the generators, one file per family of collectives */
#ifndef SL_COLL_INT_H
#define SL_COLL_INT_H

#include "coll/coll.h"

struct coll_pend;

typedef struct coll_state {
    struct coll_pend *done_list; /* p2p completions not collected yet */
    volatile unsigned ticks;     /* changes with every completion */
    unsigned active;             /* runs started and not complete */
    unsigned async_active;       /* of them, the asynchronous ones */
    unsigned app_waiting;        /* threads inside coll_run_wait: the progress thread steps aside */
} coll_state_t;
extern coll_state_t coll_state;

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

#endif
