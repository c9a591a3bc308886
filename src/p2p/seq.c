/* Sequence counters for matching control messages (paper 003 §4.1): for
 * each (peer, context, tag) the number of messages sent to the peer and of
 * receives posted for it.  A RECEIVER_READY carries the receive's number;
 * the sender uses it for exactly its send of that number, keeps the ones
 * for future sends, and drops the ones for sends already made (a receive
 * the sender beat with another protocol).
 *
 * Memory is bounded: the counters live in a fixed table of
 * SLUICE_SEQ_BUCKETS buckets indexed by a hash of (sender, receiver,
 * context, tag), with no keys.  Keys that share a bucket share its counters, so both
 * sides number the messages of a bucket, and they agree whenever the
 * bucket's messages are sent in the order their receives are posted --
 * always for a bucket used by one key.  The paper's one entry per key in
 * use grows without end under a program that uses a fresh tag per step
 * (tag = iteration); a table that evicts keys would let the two sides'
 * counts drift apart for good.  Every rank must use the same bucket count
 * (the environment is the job's); a rank that does not merely loses hints.
 *
 * The numbers are hints, not a correctness condition: a direct put that
 * follows a stale or misattributed RECEIVER_READY still lands where MPI
 * matching says (see send.c), at worst in the catcher, from which its
 * receive pulls it.  Each stored RECEIVER_READY also keeps a fingerprint
 * of its key, so a shared bucket does not lend one key's hint to another.
 *
 * Both at once (DESIGN.md §4, Table 1's third column: RECV_RNDV).  When
 * sender and receiver arrive together, the receive is posted by the time
 * the message gets there, yet its RECEIVER_READY crosses the send and
 * arrives stale: the sender saw none and chose SEND_RNDV, one more
 * hand-shake and, before, a second copy.  Stale RECEIVER_READYs from a
 * peer are the evidence that the pair arrives together: each raises the
 * peer's score (at most TOGETHER_MAX).  While it is positive, a large send
 * with no RECEIVER_READY stored goes as RECV_RNDV's direct put all the
 * same (send.c).  One that finds no receive lands in the catcher and is
 * pulled like a SEND_RNDV; its ack says so, and lowers the score by two,
 * so a pair whose sender is early goes back to SEND_RNDV.  (A sender-early
 * pair sends no RECEIVER_READYs at all: the receive matches at once.) */
#include "p2p/p2p_int.h"
#include "util/log.h"
#include "util/param.h"

#include <stdlib.h>
#include <string.h>

#define RR_KEEP 4 /* future RECEIVER_READYs kept per bucket; more are dropped (a hint lost) */
#define RR_POOL 4096 /* stored RECEIVER_READYs of all buckets together */
#define TOGETHER_MAX 16

/* A stored RECEIVER_READY, in its bucket's list (next: pool index + 1). */
typedef struct seq_rr {
    uint32_t seq;    /* the receive's number */
    uint32_t fp;     /* fingerprint of its key */
    uint32_t bucket; /* whose list it is on (for eviction) */
    uint16_t next;
} seq_rr_t;

/* 12 bytes: the table is mapped whole at set-up (below), so it is kept
 * small; the stored RECEIVER_READYs, rare next to the buckets, live in a
 * shared pool. */
typedef struct seq_ent {
    uint32_t sent, posted;
    uint16_t rr; /* first stored RECEIVER_READY: pool index + 1, 0 for none */
    uint8_t n_rr;
    bool used; /* touched at least once (for the statistics) */
} seq_ent_t;

/* The last key looked up, with its bucket and fingerprint. */
typedef struct seq_memo {
    int sender, receiver, tag;
    unsigned ctx;
    seq_ent_t *e;
    uint32_t fp;
} seq_memo_t;

static struct {
    /* Touched at set-up (p2p_seq_init): with zero pages until touched,
     * every fresh key's first message paid a page fault for its bucket on
     * both sides, and a collective numbers a new key per call (its tag):
     * a 2-rank 256 KiB MPI_Allgather ran its first ~50 calls at 1.4x its
     * steady time, ~3 faults per call, 4-5 us on this VM's. */
    seq_ent_t *tab;
    size_t mask, used;
    seq_rr_t *pool;    /* RR_POOL entries */
    uint16_t pool_free; /* free list: pool index + 1, 0 when empty */
    uint16_t hand;      /* the next entry to evict when the pool is full */
    int8_t *together; /* per peer: the evidence that it arrives together with us */
    /* [0]: a key we send on, [1]: one we receive on.  A stream repeats its
     * key, and the hash was ~8% of a receiver's time at the 8-byte rate. */
    seq_memo_t memo[2];
} S;

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

/* Both sides must pick the same bucket for a message: the key names the
 * sender and the receiver, not "the peer" (which differs between them). */
static uint64_t seq_hash(int sender, int receiver, unsigned ctx, int tag)
{
    uint64_t pair = mix((uint64_t)(uint32_t)sender << 32 | (uint32_t)receiver);
    return mix(pair ^ ((uint64_t)ctx << 32 | (uint32_t)tag));
}

sl_status_t p2p_seq_init(void)
{
    long n;
    if (sl_param_int(SL_PARAM_SEQ_BUCKETS, &n)) return SL_ERR_CONFIG;
    if (n & (n - 1)) {
        sl_log_error("p2p: SLUICE_SEQ_BUCKETS=%ld is not a power of two", n);
        return SL_ERR_CONFIG;
    }
    S.mask = (size_t)n - 1;
    S.used = 0;
    memset(S.memo, 0, sizeof S.memo);
    S.tab = malloc((size_t)n * sizeof *S.tab); /* zeroed below, every page */
    S.pool = calloc(RR_POOL, sizeof *S.pool);
    S.together = calloc((size_t)P.size, sizeof *S.together);
    if (!S.tab || !S.pool || !S.together) return SL_ERR_NOMEM;
    memset(S.tab, 0, (size_t)n * sizeof *S.tab);
    for (unsigned i = 0; i < RR_POOL; i++) S.pool[i].next = (uint16_t)(i + 1 < RR_POOL ? i + 2 : 0);
    S.pool_free = 1;
    return SL_OK;
}

void p2p_seq_fini(void)
{
    free(S.tab);
    free(S.pool);
    free(S.together);
    memset(&S, 0, sizeof S);
}

size_t p2p_seq_keys(void)
{
    return S.used;
}

/* The bucket of a key, and the key's fingerprint (the hash's high half,
 * independent of the bucket index). */
static seq_ent_t *seq_find(int sender, int receiver, unsigned ctx, int tag, uint32_t *fp)
{
    seq_memo_t *m = &S.memo[receiver == P.rank];
    if (!m->e || m->sender != sender || m->receiver != receiver || m->ctx != ctx ||
        m->tag != tag) {
        uint64_t h = seq_hash(sender, receiver, ctx, tag);
        seq_ent_t *e = &S.tab[h & S.mask];
        if (!e->used) {
            e->used = true;
            S.used++;
        }
        *m = (seq_memo_t){.sender = sender, .receiver = receiver, .tag = tag, .ctx = ctx,
                          .e = e, .fp = (uint32_t)(h >> 32)};
    }
    if (fp) *fp = m->fp;
    return m->e;
}

/* Both at once: the evidence for peer, kept within 0..TOGETHER_MAX. */
static void together_add(int peer, int d)
{
    if (!S.together || peer < 0 || peer >= P.size) return;
    int v = S.together[peer] + d;
    S.together[peer] = (int8_t)(v < 0 ? 0 : v > TOGETHER_MAX ? TOGETHER_MAX : v);
}

/* Unlink the entry *link points to and return it to the pool. */
static void rr_drop(seq_ent_t *e, uint16_t *link)
{
    uint16_t i = *link;
    seq_rr_t *r = &S.pool[i - 1];
    *link = r->next;
    r->next = S.pool_free;
    S.pool_free = i;
    e->n_rr--;
}

/* The pool is full: hints whose send never comes (a receive cancelled, a
 * send that went by another protocol on a bucket not used since) would
 * stay for good, so one entry goes, round robin: a hint lost. */
static void rr_evict(void)
{
    seq_rr_t *r = &S.pool[S.hand];
    seq_ent_t *e = &S.tab[r->bucket];
    uint16_t *link = &e->rr;
    while (*link && *link != S.hand + 1) link = &S.pool[*link - 1].next;
    if (*link) rr_drop(e, link);
    S.hand = (uint16_t)((S.hand + 1) % RR_POOL);
    P.stats.rr_lost++;
}

/* Store a RECEIVER_READY in e's list (evicting one when the pool is full). */
static void rr_store(seq_ent_t *e, uint32_t seq, uint32_t fp)
{
    if (!S.pool_free) rr_evict();
    uint16_t i = S.pool_free;
    if (!i) return; /* (cannot happen: a full pool's entries are all on lists) */
    seq_rr_t *r = &S.pool[i - 1];
    S.pool_free = r->next;
    *r = (seq_rr_t){.seq = seq, .fp = fp, .bucket = (uint32_t)(e - S.tab), .next = e->rr};
    e->rr = i;
    e->n_rr++;
}

/* Take e's stored RECEIVER_READY for send seq of the key fp, if there is
 * one, and forget those for sends already made (by another protocol: their
 * receives were posted before the message came). */
static bool rr_take(seq_ent_t *e, uint32_t seq, uint32_t fp, int peer)
{
    bool found = false;
    uint16_t *link = &e->rr;
    while (*link) {
        seq_rr_t *r = &S.pool[*link - 1];
        if (!found && r->seq == seq && r->fp == fp) {
            found = true;
            rr_drop(e, link);
        } else if ((int32_t)(r->seq - e->sent) < 0) {
            P.stats.rr_stale++;
            together_add(peer, 1);
            rr_drop(e, link);
        } else {
            link = &r->next;
        }
    }
    return found;
}

/* Not numbered: a short message on a context of exact receives (p2p.h);
 * a collective's per-call tags made every such message a hash of a new key
 * (177 instructions of a 2-rank 4-byte MPI_Allreduce's 2,100). */
static inline bool unnumbered(unsigned ctx, size_t len)
{
    return (ctx & P2P_CTX_EXACT) && len <= P.eager_limit;
}

bool p2p_seq_send(int peer, unsigned ctx, int tag, size_t len, uint32_t *seq)
{
    *seq = 0;
    if (!p2p_announcing() || unnumbered(ctx, len)) return false;
    uint32_t fp;
    seq_ent_t *e = seq_find(P.rank, peer, ctx, tag, &fp);
    *seq = e->sent++;
    return e->n_rr && rr_take(e, *seq, fp, peer);
}

uint32_t p2p_seq_recv(int peer, unsigned ctx, int tag, size_t len)
{
    if (!p2p_announcing() || unnumbered(ctx, len)) return 0;
    return seq_find(peer, P.rank, ctx, tag, NULL)->posted++;
}

/* A receive numbered seq went away unmatched (cancelled): if it was the
 * last one posted, its number is reused; otherwise later numbers stay one
 * ahead and their RECEIVER_READYs become useless hints. */
void p2p_seq_unrecv(int peer, unsigned ctx, int tag, size_t len, uint32_t seq)
{
    if (!p2p_announcing() || unnumbered(ctx, len)) return;
    seq_ent_t *e = seq_find(peer, P.rank, ctx, tag, NULL);
    if (e->posted == seq + 1) e->posted = seq;
}

/* The last send numbered on this key did not start. */
void p2p_seq_unsend(int peer, unsigned ctx, int tag, size_t len)
{
    if (!p2p_announcing() || unnumbered(ctx, len)) return;
    seq_ent_t *e = seq_find(P.rank, peer, ctx, tag, NULL);
    if (e->sent) e->sent--;
}

bool p2p_seq_together(int peer)
{
    return p2p_announcing() && S.together && peer >= 0 && peer < P.size && S.together[peer] > 0;
}

void p2p_seq_direct_landed(int peer, bool landed)
{
    together_add(peer, landed ? 1 : -2);
}

void p2p_seq_rr_arrived(const ptl_event_t *ev)
{
    if (!p2p_announcing()) return; /* (a peer with another SLUICE_PROTOCOL: a useless hint) */
    int peer = (int)ev->initiator.rank;
    unsigned ctx = (unsigned)((ev->match_bits >> MB_CTX_SHIFT) & P2P_CTX_MAX);
    int tag = (int)(uint32_t)(ev->match_bits & MB_TAG_MASK);
    uint32_t seq = (uint32_t)ev->hdr_data, fp;
    seq_ent_t *e = seq_find(P.rank, peer, ctx, tag, &fp); /* we are its sender */
    if ((int32_t)(seq - e->sent) < 0) {
        P.stats.rr_stale++; /* that send went already: it crossed this notice */
        together_add(peer, 1);
        return;
    }
    if (e->n_rr == RR_KEEP) {
        P.stats.rr_stale++; /* too many ahead */
        return;
    }
    rr_store(e, seq, fp);
}
