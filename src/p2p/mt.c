/* MPI_THREAD_MULTIPLE: one lock over the layer's state, and one thread at a
 * time sleeping in the engine (docs/P2P.md, "Threads").
 *
 * The lock is MPICH's "global" granularity: every MPI call that touches
 * shared state holds it (MPI_CHECK_STATE takes it, a scope guard lets it
 * go), so the matching, the rings and the request tables stay as single-
 * threaded as before.  It is counted per thread, since MPI calls nest (an
 * error handler, a collective's sends), and off unless the program asked
 * for MPI_THREAD_MULTIPLE: then the single-threaded path pays one load
 * and a branch per call.
 *
 * Waiting.  A thread that waits gives the lock up while it sleeps.  Only
 * one waiter sleeps in the engine (the owner: PtlEQPoll, woken by an event
 * or by a ring message's sender, as before); every other waiter sleeps on
 * a condition variable, woken whenever a thread leaves the library or the
 * owner lets the lock go.  While the owner sleeps, the others handle no
 * events and take no ring messages: the owner may hold an event it has
 * taken from the queue and not yet handled, and events must be handled in
 * their order (a match event and the ring take that must come after it).
 * The owner handles everything and wakes them. */
#include "p2p/p2p_int.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

bool p2p_mt_on;
bool p2p_mt_asleep; /* a thread sleeps in the engine, without the lock */

static struct {
    pthread_mutex_t lock;
    pthread_cond_t turn;   /* waiters that are not the owner */
    unsigned waiters;      /* sleeping on turn */
} T = {.lock = PTHREAD_MUTEX_INITIALIZER};

static __thread unsigned t_depth; /* how deep this thread is in the lock */
static void (*release_hook)(void); /* p2p_mt_set_release_hook */

void p2p_mt_set_release_hook(void (*fn)(void))
{
    release_hook = fn;
}

sl_status_t p2p_threads(bool multiple)
{
    if (!multiple || p2p_mt_on) return SL_OK;
    pthread_condattr_t a;
    if (pthread_condattr_init(&a) || pthread_condattr_setclock(&a, CLOCK_MONOTONIC) ||
        pthread_cond_init(&T.turn, &a))
        return SL_ERR_NOMEM;
    pthread_condattr_destroy(&a);
    p2p_mt_on = true;
    return SL_OK;
}

bool p2p_mt_lock(void)
{
    if (t_depth++ == 0) pthread_mutex_lock(&T.lock);
    return true;
}

/* Let the lock go for good: first wake the waiters, so that they look at
 * their requests again (whatever this thread did may have completed them). */
static void drop(void)
{
    if (T.waiters) pthread_cond_broadcast(&T.turn);
    pthread_mutex_unlock(&T.lock);
    if (release_hook) release_hook();
}

void p2p_mt_unlock(void)
{
    if (--t_depth == 0) drop();
}

/* Give the lock up however deep this thread is in it; returns the depth
 * for retake().  Only with threads on and the lock held. */
static unsigned release(void)
{
    unsigned depth = t_depth;
    t_depth = 0;
    drop();
    return depth;
}

static void retake(unsigned depth)
{
    pthread_mutex_lock(&T.lock);
    t_depth = depth;
}

/* ---- inside the layer --------------------------------------------------------------------- */

unsigned p2p_mt_sleep_begin(void)
{
    if (!p2p_mt_on) return 0;
    p2p_mt_asleep = true;
    return release();
}

void p2p_mt_sleep_end(unsigned depth)
{
    if (!p2p_mt_on) return;
    retake(depth);
    p2p_mt_asleep = false;
}

void p2p_mt_wait_turn(int timeout_ms)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    T.waiters++;
    pthread_cond_timedwait(&T.turn, &T.lock, &until); /* the mutex is held once */
    T.waiters--;
}

void p2p_mt_yield(void)
{
    if (!p2p_mt_on) return;
    unsigned depth = release();
    sched_yield(); /* let a thread blocked on the lock have it */
    retake(depth);
}

void p2p_mt_sleep_us(unsigned us)
{
    unsigned depth = t_depth ? release() : 0;
    struct timespec ts = {.tv_sec = us / 1000000u, .tv_nsec = (long)(us % 1000000u) * 1000L};
    nanosleep(&ts, NULL);
    if (depth) retake(depth);
}

/* ---- matched probes -------------------------------------------------------------------- */

/* A matched probe (MPI_Mprobe) finds a message, then posts the receive that
 * claims it; between the two its search may let the lock go (the sleeper
 * in the engine handles the search's event).  No other thread may post a
 * receive meanwhile, or it could take the probed message and the claim the
 * next one.  The gate is held for one non-blocking attempt at a time, so a
 * thread that waits at it waits microseconds, never for a message. */
static bool gate_held;
static __thread bool t_gate;

void p2p_mt_gate_enter(void)
{
    if (!p2p_mt_on) return;
    p2p_mt_gate_wait();
    gate_held = true;
    t_gate = true;
}

void p2p_mt_gate_exit(void)
{
    if (!p2p_mt_on || !t_gate) return;
    gate_held = false;
    t_gate = false; /* the waiters are woken when this thread lets the lock go */
}

void p2p_mt_gate_wait(void)
{
    while (p2p_mt_on && gate_held && !t_gate) p2p_mt_wait_turn(10);
}
