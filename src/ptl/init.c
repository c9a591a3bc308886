/* Library and NI lifetime, identities, the progress thread and waiting.
 *
 * Identity: nid = the rank's host (the wire's numbering: 0 for a job on one
 * host), pid = the rank in the launcher's job (unique on its host, since
 * unique in the job).  A logical NI's rank comes from its map (PtlSetMap). */
#include "ptl/ptl_int.h"
#include "util/log.h"
#include "util/param.h"
#include "util/sys.h"
#include "util/trace.h"
#include "util/wait.h"

#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ptl_global_t ptl_g = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* While an application thread waits, the progress thread parks: 1 ms at
 * first (a short wait ends without any system call to wake it), then
 * doubling to 1 s, announced in park_long so the last waiter out wakes
 * it.  A fixed 1 ms park woke an idle rank's progress thread up to 1,000
 * times a second (docs/WIRE.md, "Idle wake-ups"). */
#define PTL_PARK_NS 1000000
#define PTL_PARK_MAX_NS 1024000000
#define PTL_GRACE_NS 20000
#define PTL_GRACE_MAX_NS 1000000

/* ---- progress ------------------------------------------------------------- */

void ptl_note_change(void)
{
    atomic_fetch_add_explicit(&ptl_g.changes, 1, memory_order_release);
    if (atomic_load_explicit(&ptl_g.waiters, memory_order_relaxed) > 0 && ptl_g.wire)
        wire_kick(ptl_g.wire);
}

__thread bool ptl_t_defer_bulk; /* PtlSluiceDeferBulk(1) */

int PtlSluiceDeferBulk(int defer)
{
    ptl_t_defer_bulk = defer != 0;
    return PTL_OK;
}

int PtlSluiceHostActive(void)
{
    /* a plain increment (no locked instruction): the latency path calls
     * this; threads racing lose increments, and any change is enough */
    atomic_store_explicit(&ptl_g.host_beat,
                          atomic_load_explicit(&ptl_g.host_beat, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    return PTL_OK;
}

int ptl_progress_locked(void)
{
    /* read before the drain: what a gone peer sent before it ended is in
     * the mailbox by then, and this pass takes the answers it can reach
     * before it fails the operations still waiting */
    uint32_t gone = wire_peers_gone(ptl_g.wire);
    unsigned moves = ptl_target_bulk_moves();
    int n = 0;
    /* deferring: with a request queued already, everything new would only
     * queue behind it (target.c), so the packets stay in the wire */
    if (!ptl_t_defer_bulk) n += wire_progress(ptl_g.wire);
    else if (!ptl_target_queued()) n += wire_progress_light(ptl_g.wire);
    if (gone != ptl_g.gone_seen) {
        ptl_g.gone_seen = gone;
        ptl_xfer_fail_gone();
        ptl_target_streams_gone();
        n++;
    }
    if (!ptl_t_defer_bulk && ptl_target_bulk_moves() == moves) n += ptl_target_run_deferred();
    if (ptl_g.ready_head) {
        ptl_trig_run_ready();
        n++;
    }
    return n;
}

/* The progress thread: drives the engine while no application thread is
 * in the library, and sleeps on the wire's futex (no spinning: it must not
 * take a CPU from the application) when there is nothing to do.  While an
 * application thread waits in the engine it parks, since that thread
 * progresses and two pollers would only fight over the lock and the CPUs.
 * An application thread elsewhere in the library (between two engine
 * waits of an MPI_Waitall, posting sends, polling rings) says so through
 * PtlSluiceHostActive: work taken then would be done on its CPU while it
 * waits to run (bidirectional 128 KiB windows: 12.5-13 GB/s with the
 * thread taking work then, 23-24 with it kept out).  So the thread takes
 * work only once the application has stayed away for a grace period,
 * PTL_GRACE_NS, doubled while it keeps coming back (up to
 * PTL_GRACE_MAX_NS: the longest that work waits for the thread once the
 * application has gone off to compute). */
static void *ptl_progress_main(void *arg)
{
    (void)arg;
    int64_t park_ns = PTL_PARK_NS, grace_ns = PTL_GRACE_NS;
    uint64_t seen = atomic_load(&ptl_g.host_beat);
    while (!atomic_load(&ptl_g.stop)) {
        if (atomic_load(&ptl_g.waiters) > 0) {
            uint32_t v = atomic_load(&ptl_g.park);
            if (park_ns > PTL_PARK_NS) {
                /* announce, then look again: a waiter that left before the
                 * announcement is seen here, one after it wakes us */
                atomic_store(&ptl_g.park_long, 1);
                if (atomic_load(&ptl_g.waiters) == 0) continue;
            }
            sl_futex_wait(&ptl_g.park, v, park_ns);
            bool same = atomic_load(&ptl_g.park) == v; /* no wait ended meanwhile */
            /* a wait ended: halve, not back to 1 ms (the p2p layer's
             * waits end every second and come straight back; restarting
             * at 1 ms woke an idle rank's progress thread 10 times a
             * second).  Short waits still bring it down to 1 ms. */
            if (same) park_ns = park_ns < PTL_PARK_MAX_NS ? 2 * park_ns : park_ns;
            else park_ns = park_ns / 2 > PTL_PARK_NS ? park_ns / 2 : PTL_PARK_NS;
            continue;
        }
        park_ns = PTL_PARK_NS;
        atomic_store(&ptl_g.park_long, 0);
        uint64_t beat = atomic_load_explicit(&ptl_g.host_beat, memory_order_relaxed);
        if (beat != seen) {
            seen = beat;
            sl_futex_wait(&ptl_g.park, atomic_load(&ptl_g.park), grace_ns);
            if (grace_ns < PTL_GRACE_MAX_NS) grace_ns *= 2;
            continue;
        }
        grace_ns = PTL_GRACE_NS;
        PTL_LOCK();
        int n = ptl_progress_locked();
        PTL_UNLOCK();
        /* Sleep at once, no spinning: on 2 cores a polling progress thread
         * takes the CPU its own application thread needs (measured: PtlGet
         * bandwidth fell to a quarter with a 50 us poll after each step). */
        if (n == 0) wire_wait_idle(ptl_g.wire, 100000000);
    }
    return NULL;
}

/* How long the waits of this process usually last (moving average), so a
 * wait spins about that long before it sleeps: a wait for a 1 MiB get
 * (~80 us here) would otherwise sleep every time and pay a futex wake-up
 * (25-35 us on a VM).  The budget follows the process's wait policy
 * (util/wait.h): yielding in its second half, or from the start and not
 * learned when oversubscribed; past it everyone sleeps. */
static _Atomic int64_t ptl_wait_avg_ns;

static __thread bool ptl_t_nospin; /* PtlSluiceWaitSpin(0) */

int PtlSluiceWaitSpin(int spin)
{
    ptl_t_nospin = !spin;
    return PTL_OK;
}

static int64_t ptl_spin_budget(void)
{
    if (ptl_t_nospin) return 0;
    return sl_wait_budget_learned(atomic_load_explicit(&ptl_wait_avg_ns, memory_order_relaxed));
}

static void ptl_wait_learn(int64_t ns)
{
    int64_t avg = atomic_load_explicit(&ptl_wait_avg_ns, memory_order_relaxed);
    atomic_store_explicit(&ptl_wait_avg_ns, (7 * avg + ns) / 8, memory_order_relaxed);
}

/* How long a wait leaves the wire before it looks again itself.  The
 * wire's sleep already watches for dead peers (its slices grow from 100 ms
 * to 1 s, and it returns on a death), and events, aborts and time-outs
 * end it early, so nothing here needs a shorter look: a 100 ms one woke an
 * idle rank 10 times a second. */
#define PTL_WAIT_PIECE_NS 1000000000

int ptl_wait_locked(bool (*ready)(void *), void *arg, ptl_time_t timeout_ms, bool *timed_out)
{
    /* The clock (~35 ns a read on this VM) is read only before going to
     * wait, never between a delivery and the return: that is the latency
     * path.  active: last time progress did work; worked: it did since. */
    uint64_t t0 = sl_now_ns(), active = t0;
    int64_t spin = ptl_spin_budget();
    bool waited = false, worked = false;
    int64_t limit = timeout_ms == PTL_TIME_FOREVER ? -1 : (int64_t)timeout_ms * 1000000;
    int rc = PTL_OK;
    *timed_out = false;
    atomic_fetch_add(&ptl_g.waiters, 1);
    wire_host_waits(ptl_g.wire, true);
    for (;;) {
        if (ready(arg)) break;
        if (atomic_load(&ptl_g.aborting) > 0) {
            rc = PTL_ABORTED;
            break;
        }
        if (ptl_progress_locked() > 0) {
            worked = true; /* traffic: keep polling rather than sleep */
            continue;
        }
        if (ready(arg)) break;
        uint64_t now = sl_now_ns();
        if (worked) active = now, worked = false;
        /* abort and event changes kick the wire (ptl_note_change, PtlAbort)
         * and timeouts shorten this (docs/WIRE.md, "Idle wake-ups") */
        int64_t left = PTL_WAIT_PIECE_NS;
        if (limit >= 0) {
            int64_t rem = limit - (int64_t)(now - t0);
            if (rem <= 0) {
                *timed_out = true;
                break;
            }
            if (rem < left) left = rem;
        }
        PTL_UNLOCK();
        int64_t idle = (int64_t)(now - active);
        /* SL_ERR_PEER_DEAD needs nothing here: the wire has logged the
         * death, and the next progress fails the operations towards it */
        wire_wait_spin(ptl_g.wire, left, spin > idle ? spin - idle : 0);
        waited = true;
        PTL_LOCK();
    }
    /* learn from one wait in 8: the average moves slowly anyway, and the
     * clock read is on the way back to the caller */
    static _Atomic unsigned learn_tick;
    if (waited && rc == PTL_OK && !*timed_out &&
        (atomic_fetch_add_explicit(&learn_tick, 1, memory_order_relaxed) & 7) == 0)
        ptl_wait_learn((int64_t)(sl_now_ns() - t0));
    wire_host_waits(ptl_g.wire, false);
    /* an abort lasts while the waiters it found (and newcomers) remain */
    if (atomic_fetch_sub(&ptl_g.waiters, 1) == 1) atomic_store(&ptl_g.aborting, 0);
    atomic_fetch_add(&ptl_g.park, 1);
    if (atomic_load(&ptl_g.park_long) && atomic_exchange(&ptl_g.park_long, 0))
        sl_futex_wake_all(&ptl_g.park);
    return rc;
}

/* ---- physical ids -------------------------------------------------------------- */

ptl_process_t ptl_phys_of(int rank)
{
    return (ptl_process_t){.phys = {.nid = (ptl_nid_t)wire_host_of(ptl_g.wire, rank),
                                    .pid = (ptl_pid_t)rank}};
}

bool ptl_phys_rank(ptl_process_t id, int *rank)
{
    if (id.phys.pid >= (ptl_pid_t)ptl_g.size ||
        id.phys.nid != (ptl_nid_t)wire_host_of(ptl_g.wire, (int)id.phys.pid))
        return false;
    *rank = (int)id.phys.pid;
    return true;
}

/* ---- PtlInit / PtlFini / PtlAbort ------------------------------------------- */

static int ptl_start(void)
{
    if (boot_init(&ptl_g.boot) != SL_OK) return PTL_FAIL;
    const boot_info_t *bi = boot_get_info(ptl_g.boot);
    ptl_g.rank = bi->rank;
    ptl_g.size = bi->size;
    ptl_g.uid = (ptl_uid_t)geteuid();
    ptl_g.rx = calloc((size_t)ptl_g.size, sizeof(void *) * 4);
    if (!ptl_g.rx || wire_init(ptl_g.boot, ptl_wire_recv, NULL, &ptl_g.wire) != SL_OK) {
        free(ptl_g.rx);
        ptl_g.rx = NULL;
        boot_fini(ptl_g.boot);
        return PTL_FAIL;
    }
    sl_trace_init(ptl_g.rank);
    atomic_store(&ptl_g.stop, false);
    ptl_g.progress_running = pthread_create(&ptl_g.progress, NULL, ptl_progress_main, NULL) == 0;
    if (!ptl_g.progress_running) sl_log_warn("ptl: no progress thread; progress only inside calls");
    return PTL_OK;
}

int PtlInit(void)
{
    PTL_LOCK();
    int rc = PTL_OK;
    if (ptl_g.init_count == 0) rc = ptl_start();
    if (rc == PTL_OK) ptl_g.init_count++;
    PTL_UNLOCK();
    return rc;
}

static void ptl_stop(void)
{
    if (ptl_g.progress_running) {
        atomic_store(&ptl_g.stop, true);
        wire_kick(ptl_g.wire);
        atomic_fetch_add(&ptl_g.park, 1);
        sl_futex_wake_all(&ptl_g.park);
        PTL_UNLOCK();
        pthread_join(ptl_g.progress, NULL);
        PTL_LOCK();
        ptl_g.progress_running = false;
    }
    for (int k = 0; k < PTL_NI_KINDS; k++)
        if (ptl_g.nis[k]) ptl_ni_destroy(ptl_g.nis[k]);
    PTL_UNLOCK();
    /* let what we still owe peers (acks, replies, credits) go out */
    wire_flush(ptl_g.wire, 1000000000);
    PTL_LOCK();
    ptl_target_drop_deferred();
    sl_trace_flush();
    wire_fini(ptl_g.wire);
    ptl_g.wire = NULL;
    ptl_target_free_lost();
    boot_fini(ptl_g.boot);
    ptl_g.boot = NULL;
    ptl_rx_free();
    ptl_target_streams_free();
    ptl_entry_cache_drop();
    ptl_tables_reset();
}

void PtlFini(void)
{
    PTL_LOCK();
    if (ptl_g.init_count > 0 && --ptl_g.init_count == 0) ptl_stop();
    PTL_UNLOCK();
}

void PtlAbort(void)
{
    PTL_LOCK();
    /* Waiters change only under the engine lock, so none can leave between
     * this check and the store: the flag is cleared by the last one out. */
    if (ptl_g.init_count > 0 && atomic_load(&ptl_g.waiters) > 0) {
        atomic_store(&ptl_g.aborting, 1);
        wire_kick(ptl_g.wire);
    }
    PTL_UNLOCK();
}

/* ---- NIs ---------------------------------------------------------------------- */

static const ptl_ni_limits_t ptl_lim_default = {
    .max_entries = 1024, .max_unexpected_headers = 1024, .max_mds = 1024, .max_cts = 1024,
    .max_eqs = 1024, .max_pt_index = 63, .max_iovecs = 1024, .max_list_size = 1024,
    .max_triggered_ops = 1024, .max_msg_size = (ptl_size_t)1 << 40, .max_atomic_size = 512,
    .max_fetch_atomic_size = 512, .max_waw_ordered_size = 64, .max_war_ordered_size = 64,
    .max_volatile_size = 512, .features = PTL_TARGET_BIND_INACCESSIBLE | PTL_TOTAL_DATA_ORDERING};

static const ptl_ni_limits_t ptl_lim_max = {
    .max_entries = 1 << 20, .max_unexpected_headers = 1 << 20, .max_mds = 1 << 20,
    .max_cts = 1 << 20, .max_eqs = 1 << 20, .max_pt_index = 511, .max_iovecs = 1 << 20,
    .max_list_size = 1 << 20, .max_triggered_ops = 1 << 20,
    .max_msg_size = (ptl_size_t)INT64_MAX, .max_atomic_size = 512, .max_fetch_atomic_size = 512,
    .max_waw_ordered_size = 64, .max_war_ordered_size = 64,
    .max_volatile_size = PTL_INLINE_SURE, /* such puts have copied their data on return */
    .features = PTL_TARGET_BIND_INACCESSIBLE | PTL_TOTAL_DATA_ORDERING};

/* A desired limit of 0 was not chosen (programs zero the struct and set the
 * fields they care about): it gets the default.  Any other value is clamped
 * into [lo, hi] and used as is. */
static int limit_int(int want, int lo, int dflt, int hi)
{
    if (want == 0) return dflt;
    return want < lo ? lo : want > hi ? hi : want;
}

static ptl_size_t limit_size(ptl_size_t want, ptl_size_t lo, ptl_size_t dflt, ptl_size_t hi)
{
    if (want == 0) return dflt;
    return want < lo ? lo : want > hi ? hi : want;
}

static void ptl_limits_apply(const ptl_ni_limits_t *d, ptl_ni_limits_t *out)
{
    const ptl_ni_limits_t *df = &ptl_lim_default, *m = &ptl_lim_max;
    *out = *df; /* the ordered sizes are what the engine guarantees, not a choice */
    if (!d) return;
    out->max_entries = limit_int(d->max_entries, 1, df->max_entries, m->max_entries);
    out->max_unexpected_headers = limit_int(d->max_unexpected_headers, 1,
                                            df->max_unexpected_headers, m->max_unexpected_headers);
    out->max_mds = limit_int(d->max_mds, 1, df->max_mds, m->max_mds);
    out->max_cts = limit_int(d->max_cts, 1, df->max_cts, m->max_cts);
    out->max_eqs = limit_int(d->max_eqs, 1, df->max_eqs, m->max_eqs);
    out->max_pt_index = limit_int(d->max_pt_index, 0, df->max_pt_index, m->max_pt_index);
    out->max_iovecs = limit_int(d->max_iovecs, 1, df->max_iovecs, m->max_iovecs);
    out->max_list_size = limit_int(d->max_list_size, 1, df->max_list_size, m->max_list_size);
    out->max_triggered_ops = limit_int(d->max_triggered_ops, 1, df->max_triggered_ops,
                                       m->max_triggered_ops);
    out->max_msg_size = limit_size(d->max_msg_size, 1, df->max_msg_size, m->max_msg_size);
    out->max_atomic_size = limit_size(d->max_atomic_size, 1, df->max_atomic_size,
                                      m->max_atomic_size);
    out->max_fetch_atomic_size = limit_size(d->max_fetch_atomic_size, 8,
                                            df->max_fetch_atomic_size, m->max_fetch_atomic_size);
    out->max_volatile_size = limit_size(d->max_volatile_size, 1, df->max_volatile_size,
                                        m->max_volatile_size);
    out->features = d->features & m->features;
}

static int ptl_ni_kind(unsigned int options)
{
    unsigned int match = options & (PTL_NI_MATCHING | PTL_NI_NO_MATCHING);
    unsigned int addr = options & (PTL_NI_LOGICAL | PTL_NI_PHYSICAL);
    if (options & ~(unsigned)PTL_NI_INIT_OPTIONS_MASK) return -1;
    if ((match != PTL_NI_MATCHING && match != PTL_NI_NO_MATCHING) ||
        (addr != PTL_NI_LOGICAL && addr != PTL_NI_PHYSICAL))
        return -1;
    return (match == PTL_NI_MATCHING ? 0 : 1) | (addr == PTL_NI_LOGICAL ? 0 : 2);
}

int PtlNIInit(ptl_interface_t iface, unsigned int options, ptl_pid_t pid,
              const ptl_ni_limits_t *desired, ptl_ni_limits_t *actual, ptl_handle_ni_t *ni_handle)
{
    PTL_CHECK_INIT();
    int kind = ptl_ni_kind(options);
    if (kind < 0 || !ni_handle || (iface != PTL_IFACE_DEFAULT && iface != 0))
        return PTL_ARG_INVALID;
    if (pid != PTL_PID_ANY && pid != (ptl_pid_t)ptl_g.rank) return PTL_ARG_INVALID;
    PTL_LOCK();
    int rc = PTL_OK;
    ptl_ni_t *ni = ptl_g.nis[kind];
    if (ni) {
        ni->refs++;
    } else if (!(ni = calloc(1, sizeof *ni))) {
        rc = PTL_NO_SPACE;
    } else {
        ni->kind = kind;
        ni->options = options;
        ni->refs = 1;
        ptl_limits_apply(desired, &ni->limits);
        ni->pts = calloc((size_t)ni->limits.max_pt_index + 1, sizeof *ni->pts);
        ni->last_pt = (ptl_pt_index_t)ni->limits.max_pt_index; /* first PT_ANY gets 0 */
        ni->handle = ni->pts ? ptl_handle_new(HT_NI, ni) : PTL_INVALID_HANDLE;
        if (ni->handle == PTL_INVALID_HANDLE) {
            free(ni->pts);
            free(ni);
            ni = NULL;
            rc = PTL_NO_SPACE;
        } else {
            ptl_g.nis[kind] = ni;
        }
    }
    if (rc == PTL_OK) {
        if (actual) *actual = ni->limits;
        *ni_handle = ni->handle;
    }
    PTL_UNLOCK();
    return rc;
}

/* Operations still in flight die with their NI: a late answer then finds no
 * operation (and is ignored) instead of an MD freed below. */
static void ni_drop_xfers(ptl_ni_t *ni)
{
    ptl_table_t *t = &ptl_g.tables[HT_XFER];
    for (uint32_t i = 0; i < t->cap; i++) {
        ptl_xfer_t *x = t->obj[i];
        if (!x || x->md->ni != ni) continue;
        ptl_handle_free(x->id);
        free(x);
    }
}

/* Free one object of table `ty` if it belongs to ni. */
static void ni_drop_object(ptl_ni_t *ni, int ty, void *o)
{
    if (ty == HT_MD && ((ptl_md_obj_t *)o)->ni == ni) {
        ptl_handle_free(((ptl_md_obj_t *)o)->handle);
        free(o);
    } else if (ty == HT_EQ && ((ptl_eq_t *)o)->ni == ni) {
        ptl_eq_destroy(o);
    } else if (ty == HT_CT && ((ptl_ct_t *)o)->ni == ni) {
        ptl_ct_destroy(o);
    }
}

void ptl_ni_destroy(ptl_ni_t *ni)
{
    /* bulk copies run without the lock, or in flight from the queue: let
     * them finish with their entries */
    ptl_target_land(ni, NULL);
    while (ptl_g.bulk_busy > 0) {
        ptl_target_land(ni, NULL); /* another thread may have started more meanwhile */
        if (ptl_g.bulk_busy == 0) break;
        PTL_UNLOCK();
        sched_yield();
        PTL_LOCK();
    }
    for (int i = 0; i <= ni->limits.max_pt_index; i++)
        if (ni->pts[i].allocated) ptl_pt_release_entries(ni, &ni->pts[i]);
    ni_drop_xfers(ni);
    /* objects still open on this NI die with it */
    for (int ty = HT_MD; ty < HT_COUNT; ty++) {
        ptl_table_t *t = &ptl_g.tables[ty];
        for (uint32_t i = 0; i < t->cap; i++)
            if (t->obj[i]) ni_drop_object(ni, ty, t->obj[i]);
    }
    ptl_g.nis[ni->kind] = NULL;
    ptl_handle_free(ni->handle);
    free(ni->map);
    free(ni->rank_of);
    free(ni->pts);
    free(ni);
}

int PtlNIFini(ptl_handle_ni_t ni_handle)
{
    PTL_CHECK_INIT();
    PTL_LOCK();
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    int rc = PTL_ARG_INVALID;
    if (ni) {
        if (--ni->refs == 0) ptl_ni_destroy(ni);
        rc = PTL_OK;
    }
    PTL_UNLOCK();
    return rc;
}

int PtlNIStatus(ptl_handle_ni_t ni_handle, ptl_sr_index_t reg, ptl_sr_value_t *status)
{
    PTL_CHECK_INIT();
    if (!status || (unsigned)reg >= PTL_SR_LAST) return PTL_ARG_INVALID;
    PTL_LOCK();
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    if (ni) *status = ni->sr[reg];
    PTL_UNLOCK();
    return ni ? PTL_OK : PTL_ARG_INVALID;
}

int PtlSluicePeerGone(ptl_handle_ni_t ni_handle, ptl_rank_t rank, unsigned int *count, int *gone)
{
    PTL_CHECK_INIT();
    if (!count || (rank != PTL_RANK_ANY && !gone)) return PTL_ARG_INVALID;
    PTL_LOCK();
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    int rc = ni ? PTL_OK : PTL_ARG_INVALID;
    if (ni && rank != PTL_RANK_ANY && rank >= (ptl_rank_t)ptl_g.size) rc = PTL_ARG_INVALID;
    if (rc == PTL_OK) {
        *count = wire_peers_gone(ptl_g.wire);
        if (rank != PTL_RANK_ANY) *gone = wire_peer_gone(ptl_g.wire, (int)rank);
    }
    PTL_UNLOCK();
    return rc;
}

int PtlNIHandle(ptl_handle_any_t handle, ptl_handle_ni_t *ni_handle)
{
    PTL_CHECK_INIT();
    if (!ni_handle) return PTL_ARG_INVALID;
    PTL_LOCK();
    ptl_ni_t *ni = NULL;
    void *o = ptl_handle_get(ptl_handle_type(handle), handle);
    switch (o ? ptl_handle_type(handle) : HT_NONE) {
    case HT_NI: ni = o; break;
    case HT_MD: ni = ((ptl_md_obj_t *)o)->ni; break;
    case HT_ME:
    case HT_LE: ni = ((ptl_entry_t *)o)->ni; break;
    case HT_EQ: ni = ((ptl_eq_t *)o)->ni; break;
    case HT_CT: ni = ((ptl_ct_t *)o)->ni; break;
    default: break;
    }
    if (ni) *ni_handle = ni->handle;
    PTL_UNLOCK();
    return ni ? PTL_OK : PTL_ARG_INVALID;
}

/* ---- identities and maps --------------------------------------------------------- */

static bool ni_logical(const ptl_ni_t *ni)
{
    return (ni->options & PTL_NI_LOGICAL) != 0;
}

int ptl_ni_rank_of(const ptl_ni_t *ni, ptl_process_t id, int *rank)
{
    if (ni_logical(ni)) {
        if (!ni->map || id.rank >= ni->map_size) return PTL_ARG_INVALID;
        id = ni->map[id.rank];
    }
    return ptl_phys_rank(id, rank) ? PTL_OK : PTL_ARG_INVALID;
}

/* How a message from job rank `rank` is named in this NI's events: one
 * lookup in the inverse of the map (each incoming message asks). */
ptl_process_t ptl_ni_initiator_id(const ptl_ni_t *ni, int rank)
{
    if (ni->rank_of && rank >= 0 && rank < ptl_g.size && ni->rank_of[rank] != PTL_RANK_ANY)
        return (ptl_process_t){.rank = ni->rank_of[rank]};
    return ptl_phys_of(rank);
}

/* The inverse of a logical NI's map; the first rank naming a process wins
 * (as a search of the map from rank 0 would find). */
static ptl_rank_t *map_invert(const ptl_process_t *map, ptl_size_t n)
{
    ptl_rank_t *inv = malloc((size_t)ptl_g.size * sizeof *inv);
    if (!inv) return NULL;
    for (int r = 0; r < ptl_g.size; r++) inv[r] = PTL_RANK_ANY;
    int r;
    for (ptl_size_t i = n; i-- > 0;)
        if (ptl_phys_rank(map[i], &r)) inv[r] = (ptl_rank_t)i;
    return inv;
}

int PtlSetMap(ptl_handle_ni_t ni_handle, ptl_size_t map_size, const ptl_process_t *mapping)
{
    PTL_CHECK_INIT();
    if (!mapping || map_size == 0) return PTL_ARG_INVALID;
    PTL_LOCK();
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    int rc = PTL_OK;
    bool self = false;
    for (ptl_size_t i = 0; ni && i < map_size; i++) {
        int r;
        if (ptl_phys_rank(mapping[i], &r) && r == ptl_g.rank) self = true;
    }
    if (!ni || !ni_logical(ni) || !self) {
        rc = PTL_ARG_INVALID;
    } else if (ni->map) {
        rc = PTL_IGNORED;
    } else if (map_size >= PTL_RANK_ANY) { /* ranks would collide with the wildcard */
        rc = PTL_ARG_INVALID;
    } else if (!(ni->rank_of = map_invert(mapping, map_size))) {
        rc = PTL_NO_SPACE;
    } else if (!(ni->map = malloc(map_size * sizeof *mapping))) {
        free(ni->rank_of);
        ni->rank_of = NULL;
        rc = PTL_NO_SPACE;
    } else {
        memcpy(ni->map, mapping, map_size * sizeof *mapping);
        ni->map_size = map_size;
    }
    PTL_UNLOCK();
    return rc;
}

int PtlGetMap(ptl_handle_ni_t ni_handle, ptl_size_t map_size, ptl_process_t *mapping,
              ptl_size_t *actual_map_size)
{
    PTL_CHECK_INIT();
    if (!actual_map_size || (map_size && !mapping)) return PTL_ARG_INVALID;
    PTL_LOCK();
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    int rc = PTL_OK;
    if (!ni || !ni_logical(ni)) {
        rc = PTL_ARG_INVALID;
    } else if (!ni->map) {
        rc = PTL_NO_SPACE;
    } else {
        ptl_size_t n = map_size < ni->map_size ? map_size : ni->map_size;
        if (n) memcpy(mapping, ni->map, n * sizeof *mapping); /* mapping may be NULL if 0 */
        *actual_map_size = ni->map_size;
    }
    PTL_UNLOCK();
    return rc;
}

int PtlGetUid(ptl_handle_ni_t ni_handle, ptl_uid_t *uid)
{
    PTL_CHECK_INIT();
    if (!uid) return PTL_ARG_INVALID;
    PTL_LOCK();
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    if (ni) *uid = ptl_g.uid;
    PTL_UNLOCK();
    return ni ? PTL_OK : PTL_ARG_INVALID;
}

int PtlGetPhysId(ptl_handle_ni_t ni_handle, ptl_process_t *id)
{
    PTL_CHECK_INIT();
    if (!id) return PTL_ARG_INVALID;
    PTL_LOCK();
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    if (ni) *id = ptl_phys_of(ptl_g.rank);
    PTL_UNLOCK();
    return ni ? PTL_OK : PTL_ARG_INVALID;
}

int PtlGetId(ptl_handle_ni_t ni_handle, ptl_process_t *id)
{
    PTL_CHECK_INIT();
    if (!id) return PTL_ARG_INVALID;
    PTL_LOCK();
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    int rc = ni ? PTL_OK : PTL_ARG_INVALID;
    if (ni && ni_logical(ni)) {
        if (!ni->map) rc = PTL_NO_SPACE; /* no rank before PtlSetMap */
        else *id = ptl_ni_initiator_id(ni, ptl_g.rank);
    } else if (ni) {
        *id = ptl_phys_of(ptl_g.rank);
    }
    PTL_UNLOCK();
    return rc;
}

/* ---- bundles, handles ---------------------------------------------------------- */

int PtlStartBundle(ptl_handle_ni_t ni_handle)
{
    PTL_CHECK_INIT();
    PTL_LOCK();
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    if (ni) ni->bundle_depth++;
    PTL_UNLOCK();
    return ni ? PTL_OK : PTL_ARG_INVALID;
}

int PtlEndBundle(ptl_handle_ni_t ni_handle)
{
    PTL_CHECK_INIT();
    PTL_LOCK();
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    if (ni && ni->bundle_depth > 0) ni->bundle_depth--;
    PTL_UNLOCK();
    /* nothing is deferred: every operation goes out when issued */
    return ni ? PTL_OK : PTL_ARG_INVALID;
}

int PtlHandleIsEqual(ptl_handle_any_t handle1, ptl_handle_any_t handle2)
{
    return handle1 == handle2;
}
