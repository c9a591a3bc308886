/* Sequence counters for matching control messages (paper 003 §4.1): for
 * each (peer, context, tag) the number of messages sent to the peer and of
 * receives posted for it.  A RECEIVER_READY carries the receive's number;
 * the sender uses it for exactly its send of that number, keeps the ones
 * for future sends, and drops the ones for sends already made (a receive
 * the sender beat with another protocol).  Memory: one entry per pair and
 * tag in use, as the paper accepts.
 *
 * The numbers are hints, not a correctness condition: a direct put that
 * follows a stale RECEIVER_READY still lands where MPI matching says (see
 * send.c), at worst in the catcher, from which its receive pulls it. */
#include "p2p/p2p_int.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

#define RR_KEEP 4 /* future RECEIVER_READYs kept per key; more are dropped (a hint lost) */

typedef struct seq_ent {
    uint64_t key; /* 0: empty */
    uint32_t sent, posted;
    uint32_t rr[RR_KEEP];
    unsigned n_rr;
} seq_ent_t;

static struct {
    seq_ent_t *tab;
    size_t cap, used;
} S;

static uint64_t seq_key(int peer, unsigned ctx, int tag)
{
    /* +1 so that no real key is 0 */
    return ((uint64_t)(uint32_t)peer << 48 | (uint64_t)(ctx & 0xffff) << 32 | (uint32_t)tag) + 1;
}

static size_t seq_hash(uint64_t k, size_t cap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k & (cap - 1);
}

sl_status_t p2p_seq_init(void)
{
    S.cap = 1024;
    S.used = 0;
    S.tab = calloc(S.cap, sizeof *S.tab);
    return S.tab ? SL_OK : SL_ERR_NOMEM;
}

void p2p_seq_fini(void)
{
    free(S.tab);
    memset(&S, 0, sizeof S);
}

static bool seq_grow(void)
{
    seq_ent_t *old = S.tab;
    size_t n = S.cap;
    seq_ent_t *tab = calloc(2 * n, sizeof *tab);
    if (!tab) return false;
    for (size_t i = 0; i < n; i++) {
        if (!old[i].key) continue;
        size_t j = seq_hash(old[i].key, 2 * n);
        while (tab[j].key) j = (j + 1) & (2 * n - 1);
        tab[j] = old[i];
    }
    S.tab = tab;
    S.cap = 2 * n;
    free(old);
    return true;
}

/* The entry of a key, created on first use; NULL only without memory. */
size_t p2p_seq_keys(void)
{
    return S.used;
}

static seq_ent_t *seq_find(int peer, unsigned ctx, int tag)
{
    uint64_t k = seq_key(peer, ctx, tag);
    if (2 * (S.used + 1) > S.cap && !seq_grow()) return NULL;
    size_t i = seq_hash(k, S.cap);
    while (S.tab[i].key && S.tab[i].key != k) i = (i + 1) & (S.cap - 1);
    if (!S.tab[i].key) {
        S.tab[i].key = k;
        S.used++;
    }
    return &S.tab[i];
}

/* Forget stored RECEIVER_READYs for sends already made. */
static void rr_prune(seq_ent_t *e)
{
    unsigned k = 0;
    for (unsigned i = 0; i < e->n_rr; i++) {
        if ((int32_t)(e->rr[i] - e->sent) >= 0) e->rr[k++] = e->rr[i];
        else P.stats.rr_stale++;
    }
    e->n_rr = k;
}

/* Only the protocols that announce receives number them: under the
 * other forced protocols no RECEIVER_READY is sent or used, and the table
 * is left alone (no lookups, no growth). */
static bool seq_used(void)
{
    return P.proto == P2P_PROTO_AUTO || P.proto == P2P_PROTO_RECV_RNDV;
}

bool p2p_seq_send(int peer, unsigned ctx, int tag, uint32_t *seq)
{
    *seq = 0;
    if (!seq_used()) return false;
    seq_ent_t *e = seq_find(peer, ctx, tag);
    if (!e) return false;
    *seq = e->sent++;
    bool found = false;
    for (unsigned i = 0; i < e->n_rr && !found; i++) {
        if (e->rr[i] != *seq) continue;
        e->rr[i] = e->rr[--e->n_rr];
        found = true;
    }
    rr_prune(e);
    return found;
}

uint32_t p2p_seq_recv(int peer, unsigned ctx, int tag)
{
    if (!seq_used()) return 0;
    seq_ent_t *e = seq_find(peer, ctx, tag);
    return e ? e->posted++ : 0;
}

/* A receive numbered seq went away unmatched (cancelled): if it was the
 * last one posted, its number is reused; otherwise later numbers stay one
 * ahead and their RECEIVER_READYs become useless hints. */
void p2p_seq_unrecv(int peer, unsigned ctx, int tag, uint32_t seq)
{
    if (!seq_used()) return;
    seq_ent_t *e = seq_find(peer, ctx, tag);
    if (e && e->posted == seq + 1) e->posted = seq;
}

/* The last send numbered on this key did not start. */
void p2p_seq_unsend(int peer, unsigned ctx, int tag)
{
    if (!seq_used()) return;
    seq_ent_t *e = seq_find(peer, ctx, tag);
    if (e && e->sent) e->sent--;
}

void p2p_seq_rr_arrived(const ptl_event_t *ev)
{
    int peer = (int)ev->initiator.rank;
    unsigned ctx = (unsigned)((ev->match_bits >> MB_CTX_SHIFT) & P2P_CTX_MAX);
    int tag = (int)(uint32_t)(ev->match_bits & MB_TAG_MASK);
    uint32_t seq = (uint32_t)ev->hdr_data;
    seq_ent_t *e = seq_used() ? seq_find(peer, ctx, tag) : NULL;
    if (!e) return; /* (a peer with another SLUICE_PROTOCOL: a useless hint) */
    if ((int32_t)(seq - e->sent) < 0 || e->n_rr == RR_KEEP) {
        P.stats.rr_stale++; /* that send went already (or too many ahead) */
        return;
    }
    e->rr[e->n_rr++] = seq;
}
