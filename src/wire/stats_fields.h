/* The wire's counters, listed once: expanded into the public snapshot
 * (wire_stats_t), the atomic counters and the SLUICE_STATS printout. */
WIRE_STAT_FIELD_(msgs_tx)          /* messages given to wire_send (not to self) */
WIRE_STAT_FIELD_(pkts_tx)          /* data packets written into peers' rings */
WIRE_STAT_FIELD_(bytes_tx)         /* payload bytes of those packets */
WIRE_STAT_FIELD_(fb_pkts_tx)       /* messages written into peers' fastbox cells */
WIRE_STAT_FIELD_(fb_pkts_rx)       /* messages taken from our fastbox cells */
WIRE_STAT_FIELD_(pkts_rx)          /* data packets drained from our ring */
WIRE_STAT_FIELD_(bytes_rx)
WIRE_STAT_FIELD_(credit_pkts_tx)   /* explicit credit packets sent */
WIRE_STAT_FIELD_(credit_pkts_rx)
WIRE_STAT_FIELD_(credits_returned) /* credits carried by explicit credit packets */
WIRE_STAT_FIELD_(piggy_pkts_tx)    /* data packets that carried credits */
WIRE_STAT_FIELD_(piggy_credits_tx) /* credits returned that way */
WIRE_STAT_FIELD_(piggy_pkts_rx)
WIRE_STAT_FIELD_(fc_requests_tx)   /* dynamic: compulsory credit return requests sent */
WIRE_STAT_FIELD_(fc_responses_tx)  /* dynamic: responses to them sent */
WIRE_STAT_FIELD_(fc_credits_given_back) /* dynamic: credits those responses returned */
WIRE_STAT_FIELD_(fc_steals)        /* dynamic: Eq. 6 steals done as a receiver */
WIRE_STAT_FIELD_(stalled_msgs)     /* messages parked for lack of credits */
WIRE_STAT_FIELD_(stalled_pkts)     /* packets sent later from a parked message */
WIRE_STAT_FIELD_(wakeups_tx)       /* futex wakes issued to sleeping peers */
WIRE_STAT_FIELD_(lazy_skips)       /* lazy packets that left a peer's progress thread asleep */
WIRE_STAT_FIELD_(sleeps)           /* times this rank slept on its futex */
WIRE_STAT_FIELD_(gets)
WIRE_STAT_FIELD_(puts)
WIRE_STAT_FIELD_(bulk_bytes)
WIRE_STAT_FIELD_(staged_ops)       /* bulk copies that went through staging */
WIRE_STAT_FIELD_(heap_copies)      /* bulk copies on a peer's shared heap (memcpy) */
WIRE_STAT_FIELD_(split_copies)     /* bulk copies split with the peer (SLUICE_BULK_SPLIT) */
WIRE_STAT_FIELD_(split_pieces_peer)   /* pieces of our split copies the peer copied */
WIRE_STAT_FIELD_(split_pieces_helped) /* pieces of peers' split copies we copied */
WIRE_STAT_FIELD_(ofi_pkts_tx)       /* packets (of those above) sent through libfabric */
WIRE_STAT_FIELD_(ofi_pkts_rx)       /* packets received through libfabric */
WIRE_STAT_FIELD_(ofi_refused)       /* libfabric packets refused: not from a rank of this job */
WIRE_STAT_FIELD_(ofi_bulk_ops)      /* bulk copies through libfabric (as requester) */
WIRE_STAT_FIELD_(ofi_wakeups)       /* wake-ups by the libfabric wait object */
WIRE_STAT_FIELD_(ofi_trywait_busy)  /* waker pauses: the provider refused to sleep, nothing to read */
WIRE_STAT_FIELD_(ofi_rma_ops)       /* of ofi_bulk_ops: by fi_read/fi_write (SLUICE_OFI_RMA) */
WIRE_STAT_FIELD_(ofi_mr_regs)       /* memory registrations made (fi_mr_reg) */
WIRE_STAT_FIELD_(ofi_mr_hits)       /* transfers that reused a cached registration */
WIRE_STAT_FIELD_(ofi_mr_local)      /* transfers and packets posted with a local descriptor */
WIRE_STAT_FIELD_(ofi_mr_drops)      /* registrations closed (evicted, or last use ended) */
