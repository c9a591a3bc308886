/* Dynamic end-to-end credit flow control (paper 001 §6), receiver side, free
 * of any transport: the shm transport and the model tests run this code.
 *
 * The receiver's data region is a static region (credit_slots per sender,
 * never taken away) plus a dynamic region that goes to the senders that are
 * active.  Per sender it keeps the FIFO of credit_slots + 1 thresholds, the
 * intended quota, the retrieved and current credit counters and the blocked
 * flag (§6.2); per receiver the available-slots counter and the four
 * activity lists.  Credits move by the rules of §6.4-6.5: at each threshold
 * crossing the sender gets Eq. 1 of its intended quota (at most what is
 * available); every credit_slots + 1 crossings is a monitoring point, which
 * moves it up the activity lists and may steal (Eq. 6) intended quota from
 * the last sender of the low list; a victim left with only its static slots
 * is asked to return its excess (compulsory credit return).
 *
 * Where the paper is silent, or where our packets (several slots, variable
 * size) need another rule, the choice and its reason are in docs/WIRE.md
 * ("Dynamic credit flow control").  The invariant that keeps the credit
 * region from overflowing and every threshold reachable, checked by
 * dfc_check():  cc + rp == sum(thresholds) - 1  for every sender.
 *
 * One addition: a reserve that lets every sender get back to its static
 * slots whatever the others hold, so no sender ever waits on a third party.
 *
 * Not thread-safe: one thread (the mailbox's drainer) calls everything. */
#ifndef SL_WIRE_DYNFC_H
#define SL_WIRE_DYNFC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Activity levels.  The three lists rotate (§6.5.2), the null list does not. */
enum { DFC_HIGH = 0, DFC_MED = 1, DFC_LOW = 2, DFC_NULL = 3 };

/* Output of the state machine, called synchronously from inside dfc_*:
 * return `credits` to `sender` (an explicit credit packet or a piggyback),
 * and send `victim` a compulsory credit return request. */
typedef struct dfc_ops {
    void (*grant)(void *arg, int sender, uint32_t credits);
    void (*request)(void *arg, int victim);
    void *arg;
} dfc_ops_t;

typedef struct dfc_sender {
    uint32_t iq;        /* intended credit quota */
    uint32_t cc;        /* current credits: held by the sender + in flight to us */
    uint32_t rp;        /* retrieved slots since the last threshold crossing */
    uint32_t thr_head;  /* index of the current threshold in its FIFO */
    uint32_t crossings; /* since the last monitoring point */
    int prev, next;     /* activity list links (-1: none) */
    uint8_t list;       /* physical list (0..2) or DFC_NULL */
    bool blocked;       /* a compulsory request is out, its response not back */
    bool deferred;      /* on the deferred list: a crossing waits for free slots */
} dfc_sender_t;

typedef struct dfc_stats {
    uint64_t crossings, monitor_points, steals, stolen, requests, responses, returned_by_resp,
        deferrals, shifts;
} dfc_stats_t;

typedef struct dfc {
    int n, self;          /* ranks; our own index takes no part */
    uint32_t cs;          /* credit slots = static slots per sender */
    uint32_t total;       /* data region: static + dynamic */
    uint32_t avail;       /* available slots counter */
    uint32_t reserve;     /* of those, kept to bring senders back to their static slots */
    uint32_t base;        /* list rotation: level L lives in physical list (base + L) % 3 */
    int head[4], tail[4]; /* physical lists 0..2 and the null list */
    dfc_sender_t *s;      /* [n] */
    uint32_t *thr;        /* [n][cs + 1] threshold FIFOs */
    int *defer_q;         /* senders whose crossing waits for free slots, FIFO */
    int defer_len;
    int blocked;          /* senders with a compulsory request out */
    dfc_ops_t ops;
    dfc_stats_t stats;
} dfc_t;

/* §6.3: every sender in the low list by rank, credit_slots current credits,
 * the FIFO all ones, the intended quota a static partition of the whole data
 * region; the dynamic region (data_slots - cs * senders) is available.
 * data_slots >= cs * senders (Eq. 2, checked by the caller).  -1 when out
 * of memory. */
int dfc_init(dfc_t *d, int n, int self, uint32_t cs, uint32_t data_slots, const dfc_ops_t *ops);
void dfc_fini(dfc_t *d);

/* A packet of k slots that consumed credits (data, or a compulsory request
 * or response) was retrieved from sender's ring slots.  resp_credits: the
 * credits a compulsory response returns (0 for other packets); is_resp marks
 * one.  Runs the slot management, control packet and activity control
 * modules (§6.5); grants and requests come out through ops.  Returns -1 if
 * the sender used more credits than it had (a broken peer), else 0. */
int dfc_retrieved(dfc_t *d, int sender, uint32_t k, bool is_resp, uint32_t resp_credits);

/* Sender side of a compulsory request (§6.5.4): of `credits` held, how many
 * go back (the excess over the static slots; the response then costs one). */
static inline uint32_t dfc_excess(uint32_t credits, uint32_t cs)
{
    return credits > cs ? credits - cs : 0;
}

/* The current threshold of a sender, its level (DFC_HIGH..DFC_NULL). */
uint32_t dfc_threshold(const dfc_t *d, int sender);
int dfc_level(const dfc_t *d, int sender);
/* The members of a level, first to last, into out[max]; returns the count. */
int dfc_list(const dfc_t *d, int level, int *out, int max);

/* Check every invariant (credit conservation, cc + rp == sum(FIFO) - 1,
 * thresholds >= 1, intended quotas >= static slots and summing to at most
 * the data region, list membership).  0 if all hold, else -1 and a
 * description in why[]. */
int dfc_check(const dfc_t *d, char *why, size_t why_len);

/* Paper 001 Eq. 7: bytes per receiver of the flow-control structures for
 * n processes; Eq. 8 adds the buffers of its IMB setting at 3% overhead (64
 * slots of 64 B per process static, 16 dynamic).  Table 3 lists Eq. 8 in MB. */
static inline uint64_t dfc_eq7_static(uint64_t n) { return 4 * n + 2; }
static inline uint64_t dfc_eq7_dynamic(uint64_t n) { return 150 * n; }
static inline uint64_t dfc_eq8_static(uint64_t n) { return dfc_eq7_static(n) + 4096 * n; }
static inline uint64_t dfc_eq8_dynamic(uint64_t n) { return dfc_eq7_dynamic(n) + 1024 * n; }

/* Receiver-side bytes of this state for n ranks (paper 001 Eq. 7's
 * "structures"). */
size_t dfc_struct_bytes(int n, uint32_t cs);

#endif
