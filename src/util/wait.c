#include "util/wait.h"

#include "util/sys.h"

#include <sched.h>
#include <stdatomic.h>

/* Set once at start-up, read by every waiter: relaxed atomics. */
static _Atomic int64_t pol_spin_ns = 50000;
static _Atomic bool pol_oversub, pol_yield = true;

void sl_wait_policy_set(int64_t spin_ns, bool oversub, bool yield)
{
    if (oversub && spin_ns > SL_WAIT_OVERSUB_NS) spin_ns = SL_WAIT_OVERSUB_NS;
    atomic_store_explicit(&pol_spin_ns, spin_ns, memory_order_relaxed);
    atomic_store_explicit(&pol_oversub, oversub, memory_order_relaxed);
    atomic_store_explicit(&pol_yield, yield, memory_order_relaxed);
}

sl_wait_policy_t sl_wait_policy(void)
{
    return (sl_wait_policy_t){atomic_load_explicit(&pol_spin_ns, memory_order_relaxed),
                              atomic_load_explicit(&pol_oversub, memory_order_relaxed),
                              atomic_load_explicit(&pol_yield, memory_order_relaxed)};
}

int64_t sl_wait_budget_learned(int64_t avg_ns)
{
    int64_t base = atomic_load_explicit(&pol_spin_ns, memory_order_relaxed);
    if (atomic_load_explicit(&pol_oversub, memory_order_relaxed)) return base;
    int64_t b = 2 * avg_ns;
    if (b < base) b = base;
    return b > SL_WAIT_LEARN_CAP_NS ? SL_WAIT_LEARN_CAP_NS : b;
}

void sl_wait_pause(void)
{
    if (atomic_load_explicit(&pol_oversub, memory_order_relaxed)) sched_yield();
    else sl_cpu_relax();
}

void sl_backoff_init(sl_backoff_t *b, int64_t budget_ns)
{
    b->start = b->now = 0;
    b->budget = budget_ns < 0 ? atomic_load_explicit(&pol_spin_ns, memory_order_relaxed)
                              : budget_ns;
    b->turn = 0;
    b->yielding = atomic_load_explicit(&pol_oversub, memory_order_relaxed);
}

bool sl_backoff(sl_backoff_t *b)
{
    /* between clock readings while spinning: the latency path, one branch */
    if (b->start && !b->yielding && (++b->turn & 15) != 0) {
        sl_cpu_relax();
        return true;
    }
    uint64_t now = sl_now_ns();
    if (!b->start) b->start = now;
    b->now = now;
    int64_t el = (int64_t)(now - b->start);
    if (el >= b->budget) return false;
    if (!b->yielding && el >= b->budget / 2 &&
        atomic_load_explicit(&pol_yield, memory_order_relaxed))
        b->yielding = true;
    if (b->yielding) sched_yield();
    else sl_cpu_relax();
    return true;
}
