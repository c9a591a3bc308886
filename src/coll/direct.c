/* The direct path: small blocking barrier, bcast, reduce, allreduce,
 * gather, scatter, allgather and alltoall run a variant's algorithm (the
 * default one, but flat gather and scatter) straight on p2p in the calling
 * thread, with no schedule built, cached, bound or cascaded.
 *
 * Why: below a few KiB a blocking collective on shared memory is its
 * per-call work (callgrind, 2 ranks, 4-byte MPI_Allreduce: about 3,400
 * instructions per call through the schedule's path, 1,400 of them the
 * call object, the cache, the run and the vertex cascade; the messages
 * themselves are two short-ring operations).  A schedule earns its keep
 * where the call outlives its call (non-blocking, persistent, offloaded)
 * or where pipelining pays; a small blocking call does neither.
 *
 * The messages are those of the schedules' tags: the communicator's
 * collective context and a sequence number from the same counter
 * (mcoll_next_seq), so the direct and schedule paths never match each
 * other's messages.  Every rank of a call takes the same path: the choice
 * depends only on what the ranks share (the call's kind, bytes, op, the
 * communicator size and the settings).  A receive that fails (a peer's
 * shorter or longer message, a dead peer) does not stop the algorithm:
 * the rank still sends what its peers wait for, and reports the first
 * error at the end, as the host executor does. */
#include "coll/coll_int.h"

#include "p2p/p2p.h"
#include "util/param.h"

#include <string.h>

static unsigned long ncalls;

void coll_direct_cfg_read(coll_direct_cfg_t *cfg)
{
    static const sl_param_id_t kind_param[] = {
        [COLL_BARRIER] = SL_PARAM_COLL_BARRIER,     [COLL_BCAST] = SL_PARAM_COLL_BCAST,
        [COLL_REDUCE] = SL_PARAM_COLL_REDUCE,       [COLL_ALLREDUCE] = SL_PARAM_COLL_ALLREDUCE,
        [COLL_GATHER] = SL_PARAM_COLL_GATHER,       [COLL_SCATTER] = SL_PARAM_COLL_SCATTER,
        [COLL_ALLGATHER] = SL_PARAM_COLL_ALLGATHER, [COLL_ALLTOALL] = SL_PARAM_COLL_ALLTOALL};
    long v = COLL_DIRECT_MAX_DEFAULT;
    if (sl_param_int(SL_PARAM_COLL_DIRECT_MAX, &v) != SL_OK) v = COLL_DIRECT_MAX_DEFAULT;
    /* a forced executor or a Graphviz dump asks for schedules */
    if (coll_exec_setting() == COLL_EXEC_OFFLOAD || *sl_param_str(SL_PARAM_COLL_DOT)) v = -1;
    cfg->forced = 0;
    for (int k = 0; k <= COLL_ALLTOALL; k++)
        if ((COLL_DIRECT_KINDS >> k & 1) && *sl_param_str(kind_param[k])) cfg->forced |= 1u << k;
    cfg->max = v;
    cfg->read = true;
}

unsigned coll_runs_active(void)
{
    return coll_state.active; /* runs in flight are driven by waits on them */
}

unsigned long coll_direct_calls(void)
{
    return __atomic_load_n(&ncalls, __ATOMIC_RELAXED);
}

/* ---- messages ------------------------------------------------------------------------------ */

typedef struct dctx {
    const coll_direct_t *d;
    unsigned tagbase;
    sl_status_t err;
    int op_err; /* the op's first error code */
} dctx_t;

/* a mod n for 0 <= a < 2n (a compare, not a division: these run per step) */
static inline int wrap(int a, int n)
{
    return a >= n ? a - n : a;
}

static int world(const dctx_t *x, int r)
{
    return x->d->map ? x->d->map[r] : r;
}

static void note(dctx_t *x, sl_status_t st)
{
    if (st != SL_OK && x->err == SL_OK) x->err = st;
}

/* A receive's outcome: exactly len bytes, or the error a schedule reports. */
static void check_recv(dctx_t *x, p2p_req_t *r, size_t len)
{
    p2p_status_t st;
    sl_status_t s = p2p_wait(r, &st);
    if (s != SL_OK) note(x, s);
    else if (st.error != SL_OK) note(x, st.error);
    else note(x, coll_len_status(st.sent, len));
}

/* This rank's own block of sb bytes into its place of b in the result (a
 * different length is the same error as a peer's message of it). */
static void copy_own(dctx_t *x, void *to, const void *from, size_t sb, size_t b)
{
    note(x, coll_len_status(sb, b));
    memcpy(to, from, sb < b ? sb : b);
}

/* Send len bytes at buf to comm rank `to` and/or receive len bytes from
 * `from` into in (a side is skipped with a rank < 0); returns when both
 * are done, so buf may change afterwards.  The send goes first: the peer
 * waits for it, and a receive posted after it often finds the peer's
 * message in the short ring already, which completes it at once. */
static void xchg(dctx_t *x, int to, const void *buf, int from, void *in, size_t len,
                 unsigned tag)
{
    p2p_req_t *r = NULL, *s = NULL;
    int t = (int)(x->tagbase | tag);
    if (to >= 0) note(x, p2p_isend_lite(buf, len, world(x, to), t, x->d->ctx, &s));
    if (from >= 0) {
        sl_status_t st = p2p_irecv(in, len, world(x, from), t, x->d->ctx, &r);
        if (st == SL_OK) check_recv(x, r, len);
        else note(x, st);
    }
    if (s) note(x, p2p_wait(s, NULL));
}

static void reduce_in(dctx_t *x, const void *in, void *inout)
{
    const coll_op_t *op = x->d->op;
    int e = op->apply(op, in, inout, x->d->bytes / op->esize);
    if (e && !x->op_err) x->op_err = e;
}

/* ---- the algorithms (comm ranks) ----------------------------------------------------------- */

/* Dissemination (the default barrier): round k sends to rank + 2^k and
 * receives from rank - 2^k. */
static void barrier(dctx_t *x)
{
    int n = x->d->size, me = x->d->rank;
    char token = 0, in;
    for (unsigned k = 0, dist = 1; (int)dist < n; k++, dist *= 2)
        xchg(x, wrap(me + (int)dist, n), &token, wrap(me - (int)dist + n, n), &in, 0, k);
}

/* Binomial tree (k-nomial, k = 2, the default below the segmenting
 * sizes): relative rank v gets the data from v - lowbit(v), then sends to
 * v + m for each m below lowbit(v), the largest subtree first. */
static void bcast(dctx_t *x)
{
    const coll_direct_t *d = x->d;
    int n = d->size, v = wrap(d->rank - d->root + n, n), top = 1;
    while (top < n) top *= 2;
    int low = v ? v & -v : top;
    if (v) xchg(x, -1, NULL, wrap(v - low + d->root, n), d->rbuf, d->bytes, 0);
    for (int m = low / 2; m >= 1; m /= 2)
        if (v + m < n) xchg(x, wrap(v + m + d->root, n), d->rbuf, -1, NULL, d->bytes, 0);
}

/* Binomial reduction towards the root (commutative ops): relative rank v
 * takes in v + m for each m below lowbit(v) (smallest first), then sends
 * to v - lowbit(v).  acc: the root's receive buffer, or scratch. */
static void reduce(dctx_t *x, char *scratch)
{
    const coll_direct_t *d = x->d;
    int n = d->size, v = wrap(d->rank - d->root + n, n);
    char *acc = v ? scratch : d->rbuf, *in = scratch + d->bytes;
    const void *mine = d->sbuf ? d->sbuf : d->rbuf;
    bool copied = false;
    int m = 1;
    for (; m < n && !(v & m); m *= 2) {
        if (v + m >= n) continue;
        if (!copied && acc != mine) memcpy(acc, mine, d->bytes);
        copied = true;
        xchg(x, -1, NULL, wrap(v + m + d->root, n), in, d->bytes, 0);
        reduce_in(x, in, acc);
    }
    if (v) xchg(x, wrap(v - m + d->root, n), copied ? acc : mine, -1, NULL, d->bytes, 0);
    else if (!copied && acc != mine) memcpy(acc, mine, d->bytes);
}

/* Recursive doubling (the butterfly, the default below 64 KiB); a
 * communicator of n = 2^K + rem ranks first folds: each odd rank below
 * 2 rem takes in its even neighbour's data and stands for it, and hands
 * it the result at the end. */
static void allreduce(dctx_t *x, char *in)
{
    const coll_direct_t *d = x->d;
    int n = d->size, me = d->rank, p2 = 1;
    while (p2 * 2 <= n) p2 *= 2;
    int rem = n - p2, vr;
    char *acc = d->rbuf;
    if (d->sbuf) memcpy(acc, d->sbuf, d->bytes);
    if (me < 2 * rem) {
        if (!(me & 1)) {
            xchg(x, me + 1, acc, -1, NULL, d->bytes, 0);
            vr = -1;
        } else {
            xchg(x, -1, NULL, me - 1, in, d->bytes, 0);
            reduce_in(x, in, acc);
            vr = me / 2;
        }
    } else {
        vr = me - rem;
    }
    for (int m = 1, k = 1; vr >= 0 && m < p2; m *= 2, k++) {
        int pv = vr ^ m, peer = pv < rem ? pv * 2 + 1 : pv + rem;
        xchg(x, peer, acc, peer, in, d->bytes, (unsigned)k);
        reduce_in(x, in, acc); /* commutative: either operand order gives the same bits */
    }
    if (me < 2 * rem) {
        if (me & 1) xchg(x, me - 1, acc, -1, NULL, d->bytes, 63);
        else xchg(x, -1, NULL, me + 1, acc, d->bytes, 63);
    }
}

/* Pairwise exchange (the default of both below 64 KiB on up to 8 ranks),
 * every step at once: block i of the result comes from rank i; own is
 * this rank's block for rank i (allgather: the same block for all). */
static void exchange(dctx_t *x, const char *own, size_t own_step)
{
    const coll_direct_t *d = x->d;
    int n = d->size, me = d->rank, t = (int)x->tagbase;
    size_t b = d->bytes, sb = d->sbytes;
    char *out = d->rbuf;
    p2p_req_t *rq[COLL_DIRECT_MAX_PEERS], *sq[COLL_DIRECT_MAX_PEERS];
    if (own + (size_t)me * own_step != out + (size_t)me * b)
        copy_own(x, out + (size_t)me * b, own + (size_t)me * own_step, sb, b);
    for (int i = 1; i < n; i++) { /* sends first, as xchg */
        int to = wrap(me + i, n);
        sq[i] = NULL;
        note(x, p2p_isend_lite(own + (size_t)to * own_step, sb, world(x, to), t, d->ctx, &sq[i]));
    }
    for (int i = 1; i < n; i++) {
        int from = wrap(me - i + n, n);
        if (p2p_irecv(out + (size_t)from * b, b, world(x, from), t, d->ctx, &rq[i]) != SL_OK) {
            note(x, SL_ERR_NOMEM);
            rq[i] = NULL;
        }
    }
    for (int i = 1; i < n; i++)
        if (rq[i]) check_recv(x, rq[i], b);
    for (int i = 1; i < n; i++)
        if (sq[i]) note(x, p2p_wait(sq[i], NULL));
}

static void allgather(dctx_t *x)
{
    const coll_direct_t *d = x->d;
    /* in place: the own block is where the result keeps it */
    const char *own = d->sbuf ? d->sbuf : (const char *)d->rbuf + (size_t)d->rank * d->bytes;
    exchange(x, own, 0);
}

static void alltoall(dctx_t *x, char *scratch)
{
    const coll_direct_t *d = x->d;
    const char *own = d->sbuf;
    if (!own) { /* in place: the blocks to send are overwritten by those received */
        memcpy(scratch, d->rbuf, d->bytes * (size_t)d->size);
        own = scratch;
    }
    exchange(x, own, d->sbytes);
}

/* Flat gather and scatter: the root's n - 1 messages all at once (at
 * these sizes and rank counts one round beats the default tree's
 * log2 n dependent ones, as for allgather). */
static void gather(dctx_t *x)
{
    const coll_direct_t *d = x->d;
    int n = d->size, me = d->rank, t = (int)x->tagbase;
    size_t b = d->bytes, sb = d->sbytes;
    if (me != d->root) {
        xchg(x, d->root, d->sbuf, -1, NULL, sb, 0);
        return;
    }
    char *out = d->rbuf;
    p2p_req_t *rq[COLL_DIRECT_MAX_PEERS];
    for (int q = 0; q < n; q++) {
        rq[q] = NULL;
        if (q != me && p2p_irecv(out + (size_t)q * b, b, world(x, q), t, d->ctx, &rq[q]) != SL_OK)
            note(x, SL_ERR_NOMEM);
    }
    if (d->sbuf) copy_own(x, out + (size_t)me * b, d->sbuf, sb, b); /* not in place */
    for (int q = 0; q < n; q++)
        if (rq[q]) check_recv(x, rq[q], b);
}

static void scatter(dctx_t *x)
{
    const coll_direct_t *d = x->d;
    int n = d->size, me = d->rank, t = (int)x->tagbase;
    size_t b = d->bytes, sb = d->sbytes;
    if (me != d->root) {
        xchg(x, -1, NULL, d->root, d->rbuf, b, 0);
        return;
    }
    const char *in = d->sbuf;
    p2p_req_t *sq[COLL_DIRECT_MAX_PEERS];
    for (int q = 0; q < n; q++) {
        sq[q] = NULL;
        if (q != me)
            note(x, p2p_isend_lite(in + (size_t)q * sb, sb, world(x, q), t, d->ctx, &sq[q]));
    }
    if (d->rbuf) copy_own(x, d->rbuf, in + (size_t)me * sb, sb, b); /* not in place */
    for (int q = 0; q < n; q++)
        if (sq[q]) note(x, p2p_wait(sq[q], NULL));
}

sl_status_t coll_direct_run(const coll_direct_t *d, int *op_err)
{
    dctx_t x = {.d = d, .tagbase = (d->seq & COLL_SEQ_MASK) << COLL_TAG_BITS, .err = SL_OK};
    *op_err = 0;
    __atomic_fetch_add(&ncalls, 1, __ATOMIC_RELAXED);
    bool blocks = d->kind == COLL_ALLGATHER || d->kind == COLL_ALLTOALL ||
                  d->kind == COLL_GATHER || d->kind == COLL_SCATTER;
    if ((blocks ? (d->bytes > d->sbytes ? d->bytes : d->sbytes) * (size_t)d->size : d->bytes) >
            COLL_DIRECT_MAX_LIMIT ||
        (blocks && d->size > COLL_DIRECT_MAX_PEERS))
        return SL_ERR_INVALID;
    /* reduce: two rank's data; allreduce: one; alltoall in place: all blocks */
    char scratch[d->kind == COLL_ALLTOALL ? d->bytes * (size_t)d->size + 1 : 2 * d->bytes + 1];
    switch (d->kind) {
    case COLL_BARRIER: barrier(&x); break;
    case COLL_BCAST:
        if (d->bytes) bcast(&x);
        break;
    case COLL_REDUCE:
        if (d->bytes) reduce(&x, scratch);
        break;
    case COLL_ALLREDUCE:
        if (d->bytes) allreduce(&x, scratch);
        break;
    case COLL_ALLGATHER:
        if (d->bytes) allgather(&x);
        break;
    case COLL_ALLTOALL:
        if (d->bytes) alltoall(&x, scratch);
        break;
    case COLL_GATHER:
        if (d->bytes || d->sbytes) gather(&x);
        break;
    case COLL_SCATTER:
        if (d->bytes || d->sbytes) scatter(&x);
        break;
    default: return SL_ERR_INVALID;
    }
    *op_err = x.op_err;
    return x.err;
}
