#include "wire/credit.h"

#include <stdio.h>

uint32_t fc_min_slots(uint32_t senders, uint32_t credit_slots)
{
    /* data region >= credit region = senders * credit_slots, quota >= 1. */
    uint32_t credit_region = senders * credit_slots;
    uint32_t data = credit_region > senders ? credit_region : senders;
    return credit_region + data;
}

sl_status_t fc_layout_make(uint32_t slots, uint32_t senders, uint32_t credit_slots,
                           fc_layout_t *out, char *why, size_t why_len)
{
    if (senders == 0) {
        /* A job of one rank: the mailbox only carries messages to itself,
         * which never use the ring, so there is nothing to partition. */
        *out = (fc_layout_t){.slots = slots, .data_slots = slots, .credit_slots = credit_slots,
                             .quota = slots, .threshold = fc_threshold(slots, credit_slots)};
        return SL_OK;
    }
    uint64_t credit_region = (uint64_t)senders * credit_slots;
    if (credit_slots < 1 || credit_region >= slots ||
        slots - credit_region < credit_region) {
        snprintf(why, why_len,
                 "a mailbox of %u slots cannot serve %u senders with %u credit slots each: "
                 "Eq. 2 needs data region >= credit region (%llu) >= 1 slot per process; "
                 "the smallest valid mailbox is %u slots (SLUICE_MAILBOX_SLOTS)",
                 slots, senders, credit_slots, (unsigned long long)credit_region,
                 fc_min_slots(senders, credit_slots));
        return SL_ERR_CONFIG;
    }
    fc_layout_t l = {.slots = slots, .credit_region = (uint32_t)credit_region,
                     .credit_slots = credit_slots};
    l.data_slots = slots - l.credit_region;
    l.quota = l.data_slots / senders;
    l.threshold = fc_threshold(l.quota, credit_slots);
    *out = l;
    return SL_OK;
}

uint32_t fc_rx_retrieved(_Atomic uint32_t *pending, uint32_t k, uint32_t threshold)
{
    uint32_t old = atomic_load_explicit(pending, memory_order_relaxed);
    for (;;) {
        uint32_t now = old + k;
        uint32_t next = now >= threshold ? 0 : now;
        if (atomic_compare_exchange_weak_explicit(pending, &old, next, memory_order_acq_rel,
                                                  memory_order_relaxed))
            return now >= threshold ? now : 0;
    }
}

uint32_t fc_rx_take_piggy(_Atomic uint32_t *pending, uint32_t max)
{
    uint32_t old = atomic_load_explicit(pending, memory_order_relaxed);
    for (;;) {
        if (old == 0) return 0;
        uint32_t take = old < max ? old : max;
        if (atomic_compare_exchange_weak_explicit(pending, &old, old - take,
                                                  memory_order_acq_rel, memory_order_relaxed))
            return take;
    }
}
