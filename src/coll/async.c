/* The progress thread of asynchronous runs (paper 002's point: a
 * non-blocking collective completes while the application computes and
 * makes no MPI call).  It exists from the first asynchronous run on, and
 * turns the p2p layer's lock on (p2p_threads), since it then calls p2p
 * beside the application's threads.
 *
 * While no asynchronous run is active it sleeps on its condition variable
 * (no CPU); while one is, it waits in p2p like any MPI wait: events and
 * ring messages wake it, and each completion it collects starts the
 * vertices that waited for it.  Its waits sleep at once (no polling: it
 * shares the CPU with the computation it overlaps), and it steps aside
 * while an application thread waits for a collective (coll_run_wait),
 * which then drives every run itself.  Blocking collectives never use it: they
 * run in the calling thread. */
#include "coll/coll_int.h"

#include "p2p/p2p.h"
#include "util/log.h"

#include <pthread.h>

static struct {
    pthread_mutex_t m;
    pthread_cond_t cv;
    pthread_t th;
    bool started, stop, work;
    bool pending; /* a kick to deliver when the lock is let go */
} A = {.m = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

#define C coll_state

/* Move the asynchronous runs until there are none (or the library stops). */
static void drive(void)
{
    bool held __attribute__((cleanup(p2p_mt_exit))) = p2p_mt_enter();
    while (C.async_active > 0 && C.app_waiting == 0 && !__atomic_load_n(&A.stop, __ATOMIC_ACQUIRE)) {
        unsigned seen = C.ticks;
        if (coll_progress() > 0 || C.async_active == 0 || C.app_waiting) continue;
        if (p2p_wait_change(NULL, &C.ticks, seen) != SL_OK) {
            sl_log_error("coll: the progress thread's wait failed; asynchronous collectives "
                         "now progress only inside MPI calls");
            return;
        }
    }
}

static void *async_main(void *unused)
{
    (void)unused;
    p2p_thread_background(); /* its waits sleep at once: the CPU is the application's */
    for (;;) {
        pthread_mutex_lock(&A.m);
        while (!A.stop && !A.work) pthread_cond_wait(&A.cv, &A.m);
        A.work = false;
        bool stop = A.stop;
        pthread_mutex_unlock(&A.m);
        if (stop) return NULL;
        drive();
    }
}

/* Under the lock: the thread is woken once the lock has been let go (the
 * release hook), so that it does not wake into a lock the application
 * still holds (measured: a post of an Iallreduce cost 30-50 us, four
 * context switches, when the kick came inside the call). */
void coll_async_kick(void)
{
    __atomic_store_n(&A.pending, true, __ATOMIC_RELEASE);
}

static void deliver(void)
{
    if (!__atomic_load_n(&A.pending, __ATOMIC_ACQUIRE) ||
        !__atomic_exchange_n(&A.pending, false, __ATOMIC_ACQ_REL))
        return;
    pthread_mutex_lock(&A.m);
    A.work = true;
    pthread_cond_signal(&A.cv);
    pthread_mutex_unlock(&A.m);
}

sl_status_t coll_async_start(void)
{
    sl_status_t st = SL_OK;
    pthread_mutex_lock(&A.m);
    if (!A.started) {
        st = p2p_threads(true);
        p2p_mt_set_release_hook(deliver);
        if (st == SL_OK && pthread_create(&A.th, NULL, async_main, NULL) != 0) st = SL_ERR_SYS;
        A.started = st == SL_OK;
        A.stop = false;
    }
    pthread_mutex_unlock(&A.m);
    return st;
}

bool coll_async_running(void)
{
    return A.started;
}

void coll_async_stop(void)
{
    pthread_mutex_lock(&A.m);
    if (!A.started) {
        pthread_mutex_unlock(&A.m);
        return;
    }
    __atomic_store_n(&A.stop, true, __ATOMIC_RELEASE);
    pthread_cond_signal(&A.cv);
    pthread_mutex_unlock(&A.m);
    {
        bool held __attribute__((cleanup(p2p_mt_exit))) = p2p_mt_enter();
        C.ticks++; /* a thread inside p2p_wait_change looks again at its next wake-up */
    }
    pthread_join(A.th, NULL);
    A.started = false;
}
