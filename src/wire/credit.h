/* Static end-to-end credit flow control (paper 001 §5), free of any
 * transport: mailbox partitioning, the credit return threshold (Eq. 1), the
 * receiver's retrieved-slots accounting and piggyback take-over.  The shm
 * transport and the flow-control model test both run this code. */
#ifndef SL_WIRE_CREDIT_H
#define SL_WIRE_CREDIT_H

#include "util/status.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fc_layout {
    uint32_t slots, data_slots, credit_region, credit_slots, quota, threshold;
} fc_layout_t;

/* Eq. 1: threshold = (credit quota div (credit slots + 1)) + 1. */
static inline uint32_t fc_threshold(uint32_t quota, uint32_t credit_slots)
{
    return quota / (credit_slots + 1) + 1;
}

/* Largest packet, in slots, that can never deadlock.  Paper 001's packets
 * are one slot; ours span several.  While the receiver holds fewer than
 * `threshold` retrieved slots it returns nothing, so the sender is only sure
 * to own quota - (threshold - 1) credits (the paper's Eq. 3): a packet larger
 * than that could wait forever for credits stuck below the threshold. */
static inline uint32_t fc_max_pkt_slots(uint32_t quota, uint32_t threshold)
{
    return quota - (threshold - 1);
}

/* Split a mailbox of `slots` slots among `senders` senders with
 * `credit_slots` credit slots each.  Checks Eq. 2 (data region >= credit
 * region >= 1 slot per process) and returns SL_ERR_CONFIG with an explanation
 * in why[] otherwise.  The data region is divided equally with lower
 * rounding (paper 001 footnote 7, option b). */
sl_status_t fc_layout_make(uint32_t slots, uint32_t senders, uint32_t credit_slots,
                           fc_layout_t *out, char *why, size_t why_len);

/* Smallest mailbox that satisfies Eq. 2 for this job. */
uint32_t fc_min_slots(uint32_t senders, uint32_t credit_slots);

/* Receiver: `k` data slots of one sender were retrieved.  *pending counts
 * retrieved slots whose credits are not yet returned.  When it reaches the
 * threshold the whole count is taken and returned: the caller sends an
 * explicit credit packet with that many credits.  Returns 0 otherwise.
 * Every explicit credit packet therefore carries >= threshold credits, which
 * is what bounds the credit packets in flight to credit_slots (Eq. 1). */
uint32_t fc_rx_retrieved(_Atomic uint32_t *pending, uint32_t k, uint32_t threshold);

/* Sender of a data packet to the same peer: take up to max pending credits
 * to piggyback (0 if none).  Piggybacking only ever lowers *pending, so it
 * cannot make an explicit credit packet carry less than the threshold. */
uint32_t fc_rx_take_piggy(_Atomic uint32_t *pending, uint32_t max);

#endif
