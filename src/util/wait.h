/* How every waiter in Sluice passes the time before it sleeps: one policy
 * per process and one helper.  A wait first spins (PAUSE) through half its
 * budget and yields through the rest (or spins it all when yielding is
 * off); on an oversubscribed host (more ranks than CPUs) it yields from the
 * start, within a budget capped at SL_WAIT_OVERSUB_NS, since the rank it
 * waits for may need this very CPU.  Past the budget the caller sleeps in
 * its own way (a futex, an event queue, a short nanosleep).
 *
 * The policy is set once by the wire at start-up (SLUICE_SPIN_US,
 * SLUICE_YIELD, the host's CPUs against the job's ranks); until then a wait
 * uses the defaults below. */
#ifndef SL_UTIL_WAIT_H
#define SL_UTIL_WAIT_H

#include <stdbool.h>
#include <stdint.h>

/* Budget cap on an oversubscribed host.  A futex wake-up costs ~15 us on
 * this VM; 4 ranks on 2 CPUs measured 16-20 us one-way with 5-10 us, 70 us
 * with 50 us, 200-1500 us with spins learned up to 1 ms. */
#define SL_WAIT_OVERSUB_NS 10000
/* Budget of a poll that precedes another blocking wait (p2p's poll of its
 * short-message rings before it waits in the engine). */
#define SL_WAIT_POLL_NS 10000
/* Most a learned budget may grow to (the engine's waits learn the time
 * their answers take; a wake-up costs 25-35 us on a VM). */
#define SL_WAIT_LEARN_CAP_NS 1000000

typedef struct sl_wait_policy {
    int64_t spin_ns; /* a wait's budget (capped when oversubscribed) */
    bool oversub;    /* yield from the start */
    bool yield;      /* yield in the budget's second half */
} sl_wait_policy_t;

void sl_wait_policy_set(int64_t spin_ns, bool oversub, bool yield);
sl_wait_policy_t sl_wait_policy(void);

/* A budget learned from the average time waits took (twice it, at least
 * the policy's, at most SL_WAIT_LEARN_CAP_NS; the policy's alone when
 * oversubscribed: learned growth made every round trip cost the cap). */
int64_t sl_wait_budget_learned(int64_t avg_ns);

/* One waiter's state.  sl_backoff_init(b, budget) before the wait (budget
 * < 0: the policy's); then, each time the condition is not met,
 * sl_backoff(b) pauses or yields once and returns true while the budget
 * lasts, false once it is spent (the caller sleeps; the state starts over
 * at the next init).  b->now holds the last clock reading (the clock is
 * read every 16 turns while spinning, every turn while yielding). */
typedef struct sl_backoff {
    uint64_t start, now;
    int64_t budget;
    uint32_t turn;
    bool yielding;
} sl_backoff_t;

void sl_backoff_init(sl_backoff_t *b, int64_t budget_ns);
bool sl_backoff(sl_backoff_t *b);

/* One turn of a polling loop with no budget of its own: a yield on an
 * oversubscribed host, else a PAUSE. */
void sl_wait_pause(void);

#endif
