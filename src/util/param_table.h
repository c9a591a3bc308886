/* Every run-time setting of Sluice, in one table, so that `sluice_info` can
 * list them all with defaults and meaning.  Layers read them through
 * sl_param_*(SL_PARAM_<ID>).  Columns:
 *   X(ID, environment name, kind (INT|STR), default, min, max, meaning)
 * min/max bound INT settings; a value outside them, or not a number, is a
 * configuration error reported with the variable's name. */
#define SL_PARAM_TABLE(X)                                                                   \
    X(DEBUG, "SLUICE_DEBUG", INT, "0", 0, 1, "print debug diagnostics on stderr")          \
    X(STATS, "SLUICE_STATS", INT, "0", 0, 1,                                                \
      "print per-rank wire counters (packets, bytes, credits, stalls, wake-ups) at the "    \
      "end")                                                                                \
    X(JOBKEY, "SLUICE_JOBKEY", STR, "", 0, 0,                                               \
      "per-job random key (32 hex digits) set by sluicerun; names and authenticates the "   \
      "job's shared memory. Without it rank 0 makes one and shares it over PMI")            \
    X(MAILBOX_SLOTS, "SLUICE_MAILBOX_SLOTS", INT, "0", 0, 16777216,                         \
      "64-byte slots in each rank's mailbox ring (data + credit region); 0 = automatic: "   \
      "static flow control (256 + credit slots) per peer, dynamic 2 x credit slots per "    \
      "peer + 16384; at least 32768 (2 MiB) either way")                                    \
    X(FLOWCTL, "SLUICE_FLOWCTL", STR, "dynamic", 0, 0,                                      \
      "mailbox credit flow control (paper 001): static (an equal share of the data region " \
      "per sender) or dynamic (credit slots per sender, the rest handed to the senders "    \
      "that are active: activity lists, credit stealing, compulsory return). Every rank "   \
      "must agree")                                                                         \
    X(CREDIT_SLOTS, "SLUICE_CREDIT_SLOTS", INT, "2", 1, 64,                                 \
      "credit-region slots per peer (paper 001 'credit slots'); sets the credit return "    \
      "threshold by Eq. 1")                                                                 \
    X(FASTBOX, "SLUICE_FASTBOX", INT, "8", 0, 256,                                          \
      "fastbox cells (128 bytes each) per sender in each rank's segment: a message of at "  \
      "most 120 bytes goes into a free cell of its receiver instead of the mailbox ring "   \
      "(no ring credits, one cache line); at most 256 KiB of cells per rank in all (fewer "  \
      "cells per sender beyond 257 ranks); 0 = ring only. Every rank must agree")            \
    X(PIGGYBACK, "SLUICE_PIGGYBACK", INT, "1", 0, 1,                                        \
      "return credits in the spare bytes of a data packet's last slot (paper 001 5.4)")     \
    X(PKT_SLOTS, "SLUICE_PKT_SLOTS", INT, "64", 1, 1024,                                    \
      "largest packet in slots in the shared-memory ring; also at most quota - (threshold "  \
      "- 1) slots (paper 001 Eq. 3), which rules out credit deadlock. Larger messages are "  \
      "cut into packets. Libfabric packets are as large as flow control and the provider's " \
      "in-order limit allow (16 KiB with tcp;ofi_rxm), whatever this says")                 \
    X(WIRE, "SLUICE_WIRE", STR, "auto", 0, 0,                                              \
      "transport per peer: auto (shared memory within a host, libfabric between hosts), "   \
      "ofi (libfabric for every peer, also on one host), shm (shared memory only: a job "  \
      "over several hosts is an error). Every rank must agree")                             \
    X(HOST, "SLUICE_HOST", STR, "", 0, 0,                                                   \
      "this rank's host name for the wire (ranks of one name share memory); empty = the "   \
      "machine's. sluicerun --hosts sets it to place ranks on virtual hosts")               \
    X(OFI_PROVIDER, "SLUICE_OFI_PROVIDER", STR, "", 0, 0,                                   \
      "libfabric provider for the ofi transport (e.g. tcp, sockets); empty = FI_PROVIDER, " \
      "else the first reliable-datagram provider libfabric offers")                         \
    X(OFI_RX_BUFS, "SLUICE_OFI_RX_BUFS", INT, "256", 8, 65536,                              \
      "receive buffers the ofi transport keeps posted (one packet each)")                   \
    X(OFI_RMA, "SLUICE_OFI_RMA", STR, "auto", 0, 0,                                         \
      "ofi bulk get/put: on (fi_read/fi_write into memory the target registered; an error " \
      "if the provider has no RMA), off (tagged sends and receives), auto (on when the "    \
      "provider has RMA). Every rank must agree")                                           \
    X(OFI_MR_LOCAL, "SLUICE_OFI_MR_LOCAL", STR, "auto", 0, 0,                                \
      "ofi local registrations (FI_MR_LOCAL): auto (offered; buffers registered when the "  \
      "provider asks, as verbs and efa do), on (always registered: for tests), off (not "   \
      "offered: providers that need it are not chosen)")                                    \
    X(OFI_MR_CACHE, "SLUICE_OFI_MR_CACHE", INT, "256", 0, 65536,                            \
      "memory registrations the ofi transport keeps for reuse after their last transfer "   \
      "(least recently used dropped first); 0 = drop each when its transfers end")          \
    X(CMA, "SLUICE_CMA", INT, "1", 0, 1,                                                    \
      "bulk get/put by cross-memory attach (process_vm_readv/writev); 0 forces the "        \
      "staged copy through shared memory")                                                  \
    X(BULK_SPLIT, "SLUICE_BULK_SPLIT", INT, "65536", 0, 1099511627776,                     \
      "a cross-memory-attach copy of at least this many bytes is split with the peer it "   \
      "copies to or from: both processes claim ranges (half of what is left, at least "     \
      "32 KiB) from either end, so two CPUs move the data when the peer is waiting in "     \
      "the library; 0 = the target copies alone")                                           \
    X(STAGE_CHUNK, "SLUICE_STAGE_CHUNK", INT, "262144", 4096, 67108864,                     \
      "bytes per staging buffer of the staged bulk copy (two per channel, pipelined)")      \
    X(STAGE_CHANNELS, "SLUICE_STAGE_CHANNELS", INT, "4", 1, 64,                             \
      "staged bulk copies a rank may have in flight at once")                               \
    X(SHM_HEAP, "SLUICE_SHM_HEAP", INT, "67108864", 0, 17179869184,                         \
      "bytes of each rank's shared heap (wire_heap_alloc, later MPI_Alloc_mem): memory "    \
      "every peer has mapped, so gets and puts on it are one memcpy. Shrunk to fit "       \
      "/dev/shm; 0 disables it")                                                           \
    X(EAGER_LIMIT, "SLUICE_EAGER_LIMIT", INT, "65536", 0, 16777216,                         \
      "point-to-point messages up to this many bytes use the EAGER protocol (one put; an "  \
      "unexpected one waits in a bounce buffer)")                                          \
    X(HYBRID_LIMIT, "SLUICE_HYBRID_LIMIT", INT, "0", 0, 1073741824,                          \
      "messages over SLUICE_EAGER_LIMIT and up to this many bytes use HYBRID when the "      \
      "sender is first (copy to a library buffer, complete at once, the receiver pulls); "  \
      "a RECEIVER_READY already there selects RECV_RNDV (paper 003 Table 1). Off (0) by "   \
      "default: on shared memory its copy costs as much as the transfer, and it lost to "   \
      "the rendezvous in latency, bandwidth and overlap (docs/P2P.md)")                     \
    X(PROTOCOL, "SLUICE_PROTOCOL", STR, "auto", 0, 0,                                       \
      "point-to-point protocol: auto (paper 003 Table 1 by size and arrival order), or "    \
      "one forced for every message: eager, hybrid, send_rndv, recv_rndv, or traditional "  \
      "(sender-initiated RTS/CTS rendezvous over SLUICE_EAGER_LIMIT, data moved by the "    \
      "sender's next MPI call)")                                                           \
    X(SINK_SLOWDOWN, "SLUICE_SINK_SLOWDOWN", INT, "1", 1, 64,                               \
      "experiment knob: a receiver pulling a rendezvous message drains each chunk k "       \
      "times slower than normal (stays busy k-1 times the first chunk's transfer time "     \
      "after each chunk) before asking for more")                                           \
    X(RDRP_CHUNK, "SLUICE_RDRP_CHUNK", INT, "2097152", 4096, 1073741824,                    \
      "bytes per get of the receiver-driven rendezvous (SEND_RNDV, paper 000 RDRP): a "     \
      "message over SLUICE_EAGER_LIMIT is pulled by the receiver in chunks of this size")   \
    X(RDRP_FIRST, "SLUICE_RDRP_FIRST", INT, "8192", 0, 16777216,                           \
      "bytes of a SEND_RNDV message that travel with its first put (the paper's first "    \
      "chunk; at most SLUICE_EAGER_LIMIT); the receiver gets the rest.  Small, so the put " \
      "goes in one packet: a larger first chunk is a second copy per message")            \
    X(TGT_INFLIGHT, "SLUICE_TGT_INFLIGHT", INT, "8", 1, 1024,                                \
      "bulk copies a target serving peers without cross-memory attach (libfabric, staged) " \
      "keeps in flight at once, finished in arrival order (1: one at a time)")              \
    X(RDRP_INFLIGHT, "SLUICE_RDRP_INFLIGHT", INT, "2", 1, 1024,                             \
      "rendezvous gets a receiver keeps outstanding per message (the paper's c)")           \
    X(RDRP_TRIGGERED, "SLUICE_RDRP_TRIGGERED", INT, "1", 0, 1,                              \
      "chain the rendezvous gets as triggered gets on a per-message reply counter, FIN as " \
      "a triggered put, so the engine pulls the message with no host involvement; 0: the " \
      "host issues each get when the previous one replies")                               \
    X(P2P_EQ_SIZE, "SLUICE_P2P_EQ_SIZE", INT, "16384", 16, 16777216,                        \
      "events of the point-to-point layer that may wait unread (completions of messages "  \
      "that arrive while the rank computes); more make the rank abort with the reason, "   \
      "since flow control then disables its message table")                                \
    X(NI_MAX_CTS, "SLUICE_NI_MAX_CTS", INT, "0", 0, 1048576,                                \
      "counting events the MPI layer's Portals NI may hold at once (0: the engine's "      \
      "largest, 2^20); lower only to test what runs out of them")                          \
    X(NI_MAX_ENTRIES, "SLUICE_NI_MAX_ENTRIES", INT, "0", 0, 1048576,                        \
      "list entries of the MPI layer's Portals NI (0: 2^20); lower only for tests")        \
    X(NI_MAX_TRIGGERED, "SLUICE_NI_MAX_TRIGGERED", INT, "0", 0, 1048576,                    \
      "triggered operations waiting on one counting event of the MPI layer's Portals NI "  \
      "(0: 2^20); lower only for tests")                                                   \
    X(SEQ_BUCKETS, "SLUICE_SEQ_BUCKETS", INT, "16384", 1, 16777216,                         \
      "buckets (a power of two, the same on every rank) of the per-(peer, context, tag) "   \
      "send/receive counters that pair RECEIVER_READYs with sends; keys sharing a bucket "  \
      "share its counters (hints lost, never data), so memory stays bounded: 12 B each, "  \
      "touched at set-up, and a 64 KiB pool of stored hints")                             \
    X(BOUNCE_SIZE, "SLUICE_BOUNCE_SIZE", INT, "1048576", 4096, 1073741824,                  \
      "bytes of each of the 8 bounce buffers that hold unexpected eager messages; must "    \
      "hold at least two eager messages")                                                  \
    X(SHORT_MAX, "SLUICE_SHORT_MAX", INT, "8192", 0, 65536,                                 \
      "largest message that goes to a process of the same host through its short-message "  \
      "ring, matched by MPI matching in p2p instead of the Portals engine (0: never; "       \
      "automatic protocol only; at most the eager limit, 8 KiB and half the ring)")        \
    X(SHORT_RING, "SLUICE_SHORT_RING", INT, "65536", 256, 16777216,                         \
      "bytes (rounded down to a power of two) of the short-message ring per sender in "    \
      "each rank's shared heap; a message takes 16 bytes plus its length in 64-byte "      \
      "lines (1,024 messages of up to 48 bytes, or 7 of 8 KiB); when it is full and its "   \
      "receiver does not read it, the sender switches to Portals")                         \
    X(SHORT_BUDGET, "SLUICE_SHORT_BUDGET", INT, "4194304", 0, 17179869184,                  \
      "bytes a rank gives all its senders' short-message rings together: each ring is at "  \
      "most this divided by the other ranks of the host (and SLUICE_SHORT_RING, at least "  \
      "2 KiB), so receive memory stays flat as the job grows (the largest short message "   \
      "shrinks with the ring: at most half of it); 0 = no limit")                           \
    X(FAST_PEERS, "SLUICE_FAST_PEERS", INT, "0", 0, 64,                                     \
      "short-message channels a rank leases to the peers that send to it (each a ring of "  \
      "SLUICE_SHORT_BUDGET / this bytes, at most SLUICE_SHORT_RING); a sender claims a free " \
      "one, the receiver asks an idle owner to give it back when others wait; the rest go " \
      "through Portals. 0 = a ring for every sender")                                        \
    X(FAST_IDLE_US, "SLUICE_FAST_IDLE_US", INT, "200", 1, 10000000,                        \
      "with SLUICE_FAST_PEERS: microseconds between a receiver's requests to give a "        \
      "channel back while a sender waits for one (an idle owner first, else the oldest)")   \
    X(SHORT_HOT, "SLUICE_SHORT_HOT", INT, "8192", 0, 16777216,                              \
      "bytes at the start of a short-message ring that a sender reuses: a message that "    \
      "would pass them into a ring its receiver has emptied goes back to the start, so a "  \
      "conversation keeps its lines in the caches (0, or the ring's size: walk it all)")   \
    X(SPIN_US, "SLUICE_SPIN_US", INT, "50", 0, 1000000,                                     \
      "microseconds a waiting rank polls (spinning, then yielding) before it sleeps on "    \
      "its futex (longer when waits are usually longer, up to 1 ms; at most 10 us when "    \
      "the host has more ranks than CPUs)")                                                \
    X(YIELD, "SLUICE_YIELD", INT, "-1", -1, 1,                                              \
      "whether waiting ranks yield the CPU between spinning and sleeping: 1 yes, 0 no, -1 "\
      "automatic (yes unless the process is bound to one CPU: a bound rank has its CPU to " \
      "itself, and a yield only hands it to unrelated processes for a scheduler tick)")    \
    X(WIRE_CHECK, "SLUICE_WIRE_CHECK", INT, "0", 0, 1,                                      \
      "check on every packet that the slots a sender reserves are free (the mailbox can "   \
      "never overflow); aborts the job with a message if not. For tests: costs latency")    \
    X(COLL_BARRIER, "SLUICE_COLL_BARRIER", STR, "", 0, 0,                                   \
      "barrier variant: dissemination, butterfly, pairwise, reduce_bcast[:k=K] (empty: "   \
      "the default table)")                                                                 \
    X(COLL_BCAST, "SLUICE_COLL_BCAST", STR, "", 0, 0,                                       \
      "broadcast variant and parameters, e.g. 'kary:k=4,seg=65536,window=8': kary, "       \
      "knomial, chain, flat (pipelined trees; seg bytes per segment, window segments in "  \
      "flight per child), scatter_allgather")                                               \
    X(COLL_REDUCE, "SLUICE_COLL_REDUCE", STR, "", 0, 0,                                     \
      "reduce variant: kary, knomial, chain, flat [:k=K,seg=S]")                           \
    X(COLL_ALLREDUCE, "SLUICE_COLL_ALLREDUCE", STR, "", 0, 0,                               \
      "allreduce variant: butterfly, dissemination, reduce_bcast[:k=K,seg=S], ring "       \
      "(dissemination and ring need a commutative op)")                                     \
    X(COLL_GATHER, "SLUICE_COLL_GATHER", STR, "", 0, 0,                                     \
      "gather variant: kary, knomial, chain, flat [:k=K] (Gatherv is always flat)")        \
    X(COLL_SCATTER, "SLUICE_COLL_SCATTER", STR, "", 0, 0,                                   \
      "scatter variant: kary, knomial, chain, flat [:k=K] (Scatterv is always flat)")      \
    X(COLL_ALLGATHER, "SLUICE_COLL_ALLGATHER", STR, "", 0, 0,                               \
      "allgather variant: ring, butterfly, pairwise, dissemination, gather_bcast[:k=K] "   \
      "(gather_bcast needs equal blocks)")                                                  \
    X(COLL_ALLTOALL, "SLUICE_COLL_ALLTOALL", STR, "", 0, 0,                                 \
      "alltoall variant: pairwise[:window=W] (W steps in flight), bruck (equal blocks)")   \
    X(COLL_REDUCE_SCATTER, "SLUICE_COLL_REDUCE_SCATTER", STR, "", 0, 0,                     \
      "reduce_scatter variant: pairwise, reduce_scatterv[:k=K]")                           \
    X(COLL_SCAN, "SLUICE_COLL_SCAN", STR, "", 0, 0,                                         \
      "scan and exscan variant: linear[:seg=S] (a pipelined chain)")                       \
    X(COLL_EXECUTOR, "SLUICE_COLL_EXECUTOR", STR, "auto", 0, 0,                             \
      "who runs collective schedules: host (the host executor, with the progress thread), "  \
      "offload (compiled onto Portals triggered operations, run by the engine), auto "       \
      "(offload for non-blocking and persistent collectives without a reduction when no "    \
      "progress thread runs, see SLUICE_COLL_PROGRESS; host otherwise)")         \
    X(COLL_OFFLOAD_RNDV, "SLUICE_COLL_OFFLOAD_RNDV", STR, "notice", 0, 0,                   \
      "offloaded messages: notice (receiver-ready notices caught in the unexpected list, "   \
      "paper 004 Fig. 5 without its barrier) or append (RTS/RTR with triggered ME appends, " \
      "Fig. 6); every rank must say the same")                                               \
    X(TRACE, "SLUICE_TRACE", STR, "", 0, 0,                                                 \
      "path: write a Chrome/Perfetto trace of schedules, triggered operations, p2p protocol " \
      "steps and credit stalls to path.<rank>; sluicerun merges them into path")             \
    X(COLL_DIRECT_MAX, "SLUICE_COLL_DIRECT_MAX", INT, "8192", -1, 16384,                     \
      "blocking barrier, bcast, reduce, allreduce, gather, scatter, allgather and alltoall " \
      "(all blocks, on at most 8 ranks) of at most this many bytes run straight on "        \
      "point-to-point, without a schedule (-1: never)")                                     \
    X(COLL_DOT, "SLUICE_COLL_DOT", STR, "", 0, 0,                                           \
      "directory: write every collective schedule built as a Graphviz file there")         \
    X(COLL_PROGRESS, "SLUICE_COLL_PROGRESS", INT, "-1", -1, 1,                              \
      "1: a progress thread moves non-blocking and persistent collectives while the "      \
      "program computes (started by the first one); 0: they move only inside MPI calls; "  \
      "-1: 1 unless the host has more ranks than CPUs (there the thread only adds "        \
      "context switches to cores that are all busy)")                                      \
    X(TEST_CRASH, "SLUICE_TEST_CRASH", STR, "", 0, 0,                                       \
      "testing only: 'RANK:POINT' makes that rank kill itself with SIGKILL at POINT "       \
      "(wire-created: after its segment exists, before peers attach; mid-message: after "  \
      "the first fragment of a message cut into several; mid-message-stop: SIGSTOP there, " \
      "once)")
