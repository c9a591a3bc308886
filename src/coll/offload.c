/* The offload executor (paper 004 §III-IV): a run's schedule is compiled
 * into Portals counters, match entries, memory descriptors and triggered
 * operations, and from then on the engine runs it alone: its progress
 * thread fires each operation when the counters say so, while every
 * application thread computes or sleeps outside the library.
 *
 * Per vertex v: a counter ct[v] that counts v's dependencies as they
 * complete (and, for a send, the receiver's ready notice), and the event
 * that says v has completed, counted on dct[v] up to thr[v].  Each edge
 * (v, w) is a PtlTriggeredCTInc(ct[w], 1) at dct[v] >= thr[v].
 *
 *   send      a use-once zero-byte entry takes the receiver's ready notice
 *             into ct[v]; the data put fires at ct[v] >= ndeps + 1 from an
 *             MD over the buffer whose SEND is counted on dct[v]
 *             (paper 004 Fig. 5: receiver-initiated, pre-matched);
 *   recv      direct: a use-once entry over the buffer counts the data on
 *             dct[v]; the ready notice goes out at ct[v] >= ndeps, so data
 *             never arrives before its entry (Fig. 5);
 *             shadow (<= COLL_OFF_SHADOW bytes with dependencies): an entry
 *             over a shadow buffer counts the data on ct[v], the ready
 *             notice goes out at once, and at ct[v] >= ndeps + 1 (data and
 *             dependencies both there) a put to self copies the shadow into
 *             the buffer through a second entry counting on dct[v]
 *             (Fig. 7-8, the offloaded eager protocol);
 *   copy      a put to self into a use-once entry over the destination;
 *   reduce    puts of PtlAtomic to self (at most max_atomic bytes each)
 *             into an entry over inout, thr = the number of pieces;
 *   nop       a counter: dct = ct, thr = ndeps.
 * The sinks count on fin; at fin >= sinks a zero-byte put to self lands
 * in the run's done entry, whose PUT event tells the host (p2p's queue,
 * p2p_set_nic_hook) that the run is over.
 *
 * Matching: every message of a run is pre-matched by its tag and its
 * occurrence (the k-th message with that tag between two ranks, in vertex
 * order on both sides), so match bits name exactly one receive.  The
 * paper sets up pre-matching with a non-blocking barrier per run; here
 * each receive sends its own zero-byte ready notice instead, and a notice
 * that comes before the send's entry exists waits in the unexpected list
 * (p2p's catcher on the portal) until the append consumes it, counting it
 * on the entry's counter (PTL_ME_EVENT_CT_OVERFLOW).  No barrier, no
 * dropped message, and no host step after the start.
 *
 * Lengths: data entries refuse longer messages (PTL_ME_NO_TRUNCATE), which
 * then land in a misfit catcher whose event makes the host settle the
 * receive (off_misfit); they count bytes, so a shorter message shows in
 * the count at collect; empty messages have their own kind.  Both errors
 * come out as the host executor's (docs/OFFLOAD.md). */
#include "coll/coll_int.h"

#include "util/log.h"
#include "util/param.h"
#include "util/trace.h"

#include <stdlib.h>
#include <string.h>

/* Receives up to this long with dependencies go through a shadow buffer
 * (no round trip to the sender once they are enabled) */
#define COLL_OFF_SHADOW 8192

#define MB_SELF (1ull << 62)
#define MB_DONE 0xffffffffu
#define MB_ABORT 0xfffffffeu /* from a peer: "this run cannot be set up here" */
#define ABORT_IGNORE (((1ull << 62) - 1) & ~(ptl_match_bits_t)0xffffffffu)
/* message ids: kind (2 bits) | tag (17) | epoch (1) | occurrence (12) */
#define OCC_BITS 12
#define ID_EPOCH (1u << OCC_BITS)
#define ID_RTS (1u << 30) /* Fig. 6: ready-to-send */
#define ID_RTR (2u << 30) /* Fig. 6: ready-to-receive (dropped when its entry is not there) */
#define ID_ZERO (3u << 30) /* a zero-byte data message (kind 0: one of at least a byte) */
#define ID_KIND (3u << 30)
/* Misfit catchers (overflow list): a data message of either kind that its
 * receive's entry refused; bits 62 and 63 clear, the kind as it is, the
 * rest ignored */
#define MISFIT_IGNORE (((1ull << 62) - 1) & ~(ptl_match_bits_t)ID_KIND)
/* What a completed dependency adds to a vertex's counter: more than any
 * byte count that shares the counter (a shadow receive counts its bytes,
 * at most COLL_OFF_SHADOW), so thresholds stay exact */
#define DEP_W ((ptl_size_t)1 << 32)

typedef struct coll_off {
    uint32_t nv;
    ptl_handle_ct_t *ct, *dct;
    ptl_handle_md_t *md;     /* sends */
    ptl_handle_me_t *me;     /* reduce and Fig. 6 RTS entries (persistent: unlinked at the end) */
    ptl_size_t *thr;
    uint32_t *id;            /* send/recv: tag, epoch and occurrence (the ID_ layout) */
    ptl_me_t *tme;           /* Fig. 6: entries appended by triggers (read when they fire) */
    ptl_handle_me_t *tmh;    /* ... and their handles */
    ptl_handle_ct_t *rts;    /* Fig. 6 receives: RTS arrivals + enabled */
    ptl_handle_me_t *dme;    /* receives: the data entry (unlinked when it refused a misfit) */
    ptl_handle_me_t *ome;    /* the other use-once entry: a send's notice, a self-put's target */
    ptl_handle_me_t done_me; /* ... and the run's end (all unlinked when a run fails) */
    char **shadow;           /* shadow receives */
    ptl_handle_ct_t fin;
    bool fin_ok;             /* objects made (prepare) */
    bool checked;            /* the schedule's needs fit the NI's limits (start_or_abort) */
    char *base[COLL_NBASE];  /* the buffers the descriptors and entries point into */
    coll_run_t *run;         /* while started: the run, its sequence number, */
    unsigned seq;
    uint32_t startno;        /* its number among the run's starts (aborts of persistent runs) */
    struct coll_off *live_next; /* ... and the next started run (O.live) */
} coll_off_t;

static struct {
    int mode; /* -1 not read yet, else EXEC_* */
    bool append; /* SLUICE_COLL_OFFLOAD_RNDV=append: Fig. 6 instead of Fig. 5 */
    p2p_nic_t nic;
    ptl_handle_md_t md_all; /* all memory, nothing counted: self puts, notices */
    coll_off_t *live;       /* the runs started and not collected (misfits look them up) */
    bool up;
} O = {.mode = -1};

enum { EXEC_HOST, EXEC_OFFLOAD, EXEC_AUTO };

/* ---- the decision ---------------------------------------------------------------------------- */

static int exec_mode(void)
{
    if (O.mode >= 0) return O.mode;
    const char *v = sl_param_str(SL_PARAM_COLL_EXECUTOR);
    int m = EXEC_AUTO;
    if (v && !strcmp(v, "host")) m = EXEC_HOST;
    else if (v && !strcmp(v, "offload")) m = EXEC_OFFLOAD;
    else if (v && *v && strcmp(v, "auto"))
        sl_log_warn("coll: SLUICE_COLL_EXECUTOR=%s is not host, offload or auto: auto", v);
    const char *p = sl_param_str(SL_PARAM_COLL_OFFLOAD_RNDV);
    O.append = p && !strcmp(p, "append");
    if (p && *p && strcmp(p, "append") && strcmp(p, "notice"))
        sl_log_warn("coll: SLUICE_COLL_OFFLOAD_RNDV=%s is not notice or append: notice", p);
    O.mode = m;
    return m;
}

int coll_exec_setting(void)
{
    int m = exec_mode();
    return m == EXEC_HOST ? COLL_EXEC_HOST : m == EXEC_OFFLOAD ? COLL_EXEC_OFFLOAD : COLL_EXEC_SETTING;
}

/* Every rank of a call builds its own schedule, so the answer may depend
 * only on what they share: the setting, the kind of call, the op and
 * whether the progress thread runs (one decision per host).  auto offloads
 * a non-blocking or persistent call without a reduction when no progress
 * thread moves it otherwise: measured on 2 ranks with the thread, the
 * offload executor overlaps nothing (its engine work shares the computing
 * cores) where the host executor overlaps small broadcasts, and reductions
 * go in 512-byte atomics (256 KiB Iallreduce 560-660 us against 76-82);
 * docs/OFFLOAD.md. */
bool coll_off_wanted(const coll_sched_t *s, bool nb, bool async)
{
    int m = s->exec == COLL_EXEC_HOST      ? EXEC_HOST
            : s->exec == COLL_EXEC_OFFLOAD ? EXEC_OFFLOAD
                                           : exec_mode();
    if (m == EXEC_HOST) return false;
    if (!coll_sched_atomic(s)) return false; /* an op without a Portals atomic: host */
    if (m == EXEC_OFFLOAD) return true;
    return nb && !async && !coll_sched_reduces(s);
}

/* ---- compiling ------------------------------------------------------------------------------- */

/* The misfit catchers: zero-byte entries at the end of the offload
 * portal's overflow list, one per kind of data message, with full events
 * (the only ones of the executor besides a run's end).  Every data entry
 * is PTL_ME_NO_TRUNCATE, so a message longer than its receive, or a
 * zero-byte one (kind ID_ZERO) where bytes are expected and the other way
 * round, skips its entry and lands here; nothing else can (data goes only
 * after the receive's entry exists).  The event tells the host, which
 * settles the receive (off_misfit).  No unexpected header: nothing may
 * match it later. */
static int misfit_catchers(void)
{
    static const ptl_match_bits_t kinds[2] = {0, ID_ZERO};
    for (int i = 0; i < 2; i++) {
        ptl_me_t c = {.start = NULL, .length = 0, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                      .options = PTL_ME_OP_PUT | PTL_ME_UNEXPECTED_HDR_DISABLE |
                                 PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_UNLINK_DISABLE,
                      .match_id = {.rank = PTL_RANK_ANY}, .match_bits = kinds[i],
                      .ignore_bits = MISFIT_IGNORE};
        ptl_handle_me_t h;
        int rc = PtlMEAppend(O.nic.ni, O.nic.pt, &c, PTL_OVERFLOW_LIST, &O, &h);
        if (rc != PTL_OK) return rc;
    }
    return PTL_OK;
}

/* The abort catcher (a rank that cannot set a start up tells every rank
 * of the communicator: off_abort_event): bit 62 from a peer (a self-put
 * always finds its own entry first), id MB_ABORT, any context and
 * sequence.  A full event each, on the error path only. */
static int abort_catcher(void)
{
    ptl_me_t c = {.start = NULL, .length = 0, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                  .options = PTL_ME_OP_PUT | PTL_ME_UNEXPECTED_HDR_DISABLE |
                             PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_UNLINK_DISABLE,
                  .match_id = {.rank = PTL_RANK_ANY}, .match_bits = MB_SELF | MB_ABORT,
                  .ignore_bits = ABORT_IGNORE};
    ptl_handle_me_t h;
    return PtlMEAppend(O.nic.ni, O.nic.pt, &c, PTL_OVERFLOW_LIST, &O.live, &h);
}

static sl_status_t nic_up(void)
{
    if (O.up) return SL_OK;
    p2p_nic(&O.nic);
    ptl_md_t md = {.start = NULL, .length = PTL_SIZE_MAX, .options = 0,
                   .eq_handle = PTL_EQ_NONE, .ct_handle = PTL_CT_NONE};
    if (PtlMDBind(O.nic.ni, &md, &O.md_all) != PTL_OK) return SL_ERR_PROTO;
    if (misfit_catchers() != PTL_OK || abort_catcher() != PTL_OK) {
        PtlMDRelease(O.md_all);
        return SL_ERR_PROTO;
    }
    O.up = true;
    return SL_OK;
}

static inline ptl_match_bits_t mbits(unsigned ctx, unsigned seq, uint32_t id)
{
    return (uint64_t)(ctx & 0xffffu) << 46 | (uint64_t)(seq & COLL_SEQ_MASK) << 32 | id;
}

static inline void *vaddr(const coll_run_t *r, coll_ref_t ref)
{
    return (void *)((uintptr_t)r->base[COLL_REF_BASE(ref)] + COLL_REF_OFF(ref));
}

static void off_free(coll_off_t *o)
{
    if (!o) return;
    for (uint32_t i = 0; i < o->nv; i++) {
        if (o->me && o->me[i] != PTL_INVALID_HANDLE) PtlMEUnlink(o->me[i]);
        if (o->md && o->md[i] != PTL_INVALID_HANDLE) PtlMDRelease(o->md[i]);
        if (o->dct && o->dct[i] != PTL_INVALID_HANDLE && o->dct[i] != o->ct[i]) PtlCTFree(o->dct[i]);
        if (o->ct && o->ct[i] != PTL_INVALID_HANDLE) PtlCTFree(o->ct[i]);
        if (o->rts && o->rts[i] != PTL_INVALID_HANDLE) PtlCTFree(o->rts[i]);
        /* a data entry no message took (a failed run); else stale, refused */
        if (o->dme && o->dme[i] != PTL_INVALID_HANDLE) PtlMEUnlink(o->dme[i]);
        if (o->ome && o->ome[i] != PTL_INVALID_HANDLE) PtlMEUnlink(o->ome[i]);
        if (o->tmh && o->tmh[i]) PtlMEUnlink(o->tmh[i]);
        if (o->shadow) free(o->shadow[i]);
    }
    if (o->done_me != PTL_INVALID_HANDLE) PtlMEUnlink(o->done_me);
    if (o->fin_ok) PtlCTFree(o->fin);
    free(o->ct);
    free(o->dct);
    free(o->md);
    free(o->me);
    free(o->thr);
    free(o->id);
    free(o->shadow);
    free(o->tme);
    free(o->tmh);
    free(o->rts);
    free(o->dme);
    free(o->ome);
    free(o);
}

static coll_off_t *off_new(uint32_t nv)
{
    coll_off_t *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    o->ct = malloc(nv * sizeof *o->ct);
    o->dct = malloc(nv * sizeof *o->dct);
    o->md = malloc(nv * sizeof *o->md);
    o->me = malloc(nv * sizeof *o->me);
    o->thr = calloc(nv, sizeof *o->thr);
    o->id = calloc(nv, sizeof *o->id);
    o->shadow = calloc(nv, sizeof *o->shadow);
    o->tme = calloc(nv, sizeof *o->tme);
    o->tmh = calloc(nv, sizeof *o->tmh);
    o->rts = malloc(nv * sizeof *o->rts);
    o->dme = malloc(nv * sizeof *o->dme);
    o->ome = malloc(nv * sizeof *o->ome);
    o->done_me = PTL_INVALID_HANDLE;
    if (!o->ct || !o->dct || !o->md || !o->me || !o->thr || !o->id || !o->shadow || !o->tme ||
        !o->tmh || !o->rts || !o->dme || !o->ome) {
        off_free(o);
        return NULL;
    }
    for (uint32_t i = 0; i < nv; i++)
        o->ct[i] = o->dct[i] = o->md[i] = o->me[i] = o->rts[i] = o->dme[i] = o->ome[i] =
            PTL_INVALID_HANDLE;
    o->nv = nv;
    return o;
}

/* Message ids: tag and occurrence among this rank's messages of that
 * direction, peer and tag, in vertex order (the peer numbers its side the
 * same way); the epoch bit is left clear.  A small open-addressing table;
 * SL_ERR_INVALID past 2^OCC_BITS occurrences. */
static sl_status_t number_messages(const coll_sched_t *s, coll_off_t *o)
{
    uint32_t cap = 16;
    while (cap < 2 * s->nxfer + 2) cap <<= 1;
    struct slot { uint64_t key; uint32_t n; } *t = calloc(cap, sizeof *t);
    if (!t) return SL_ERR_NOMEM;
    sl_status_t st = SL_OK;
    for (uint32_t v = 0; v < s->nv && st == SL_OK; v++) {
        const coll_vertex_t *x = &s->v[v];
        if (x->kind != CV_SEND && x->kind != CV_RECV) continue;
        uint64_t key = 1 | (uint64_t)(x->kind == CV_SEND) << 1 | (uint64_t)x->tag << 2 |
                       (uint64_t)(uint32_t)x->peer << 32;
        uint32_t h = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & (cap - 1);
        while (t[h].key && t[h].key != key) h = (h + 1) & (cap - 1);
        t[h].key = key;
        if (t[h].n >= (1u << OCC_BITS)) st = SL_ERR_INVALID;
        o->id[v] = (x->tag & COLL_TAG_MASK) << (OCC_BITS + 1) | t[h].n++;
    }
    free(t);
    return st;
}

#define ME_QUIET (PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_UNLINK_DISABLE | \
                  PTL_ME_EVENT_OVER_DISABLE)

/* An entry of the offload portal: only from `from`, exactly `bits`, no
 * full events (opts adds counting and use-once) */
static ptl_me_t make_me(ptl_process_t from, void *start, ptl_size_t len, ptl_match_bits_t bits,
                        unsigned opts, ptl_handle_ct_t ct)
{
    return (ptl_me_t){.start = start, .length = len, .ct_handle = ct, .uid = PTL_UID_ANY,
                      .options = ME_QUIET | opts, .match_id = from, .match_bits = bits,
                      .ignore_bits = 0};
}

static int me_append(ptl_process_t from, void *start, ptl_size_t len, ptl_match_bits_t bits,
                     unsigned opts, ptl_handle_ct_t ct, void *user, ptl_handle_me_t *h)
{
    ptl_me_t me = make_me(from, start, len, bits, opts, ct);
    ptl_handle_me_t tmp;
    return PtlMEAppend(O.nic.ni, O.nic.pt, &me, PTL_PRIORITY_LIST, user, h ? h : &tmp);
}

/* Bytes of one atomic of a reduction: whole basic elements */
static size_t atom_piece(const coll_op_t *op)
{
    size_t piece = (size_t)O.nic.max_atomic, e = op->atom_size ? op->atom_size : 1;
    return piece - piece % e;
}

#define ONCE_CT (PTL_ME_USE_ONCE | PTL_ME_EVENT_CT_COMM | PTL_ME_EVENT_COMM_DISABLE)

/* A vertex whose only object is its counter (dct = ct, thr = its
 * dependencies) */
static inline bool counter_only(const coll_vertex_t *x)
{
    return x->kind == CV_NOP || (x->kind == CV_REDUCE && x->len == 0);
}

/* ct[v] once every dependency of v has completed (each adds DEP_W) */
static inline ptl_size_t deps_in(const coll_vertex_t *x)
{
    return (ptl_size_t)x->ndeps * DEP_W;
}

/* The id of a send's or receive's data message: its kind says whether it
 * is empty, so an empty message and a receive of bytes (or the other way
 * round) never match (each side knows only its own length) */
static inline uint32_t data_id(const coll_vertex_t *x, uint32_t id)
{
    return x->len ? id : id | ID_ZERO;
}

/* A receive's data entry: used once, refuses a longer message (misfit
 * catchers), and counts the bytes it took (a shorter message shows at
 * collect) or, when empty, the message */
static inline unsigned data_opts(const coll_vertex_t *x)
{
    return ONCE_CT | PTL_ME_NO_TRUNCATE | (x->len ? PTL_ME_EVENT_CT_BYTES : 0);
}

/* Step 0, once per set of objects (reused by later starts of the run):
 * counters, descriptors, shadow buffers, thresholds. */
static int alloc_vertex(coll_run_t *r, coll_off_t *o, uint32_t v)
{
    const coll_vertex_t *x = &r->s->v[v];
    int rc = PtlCTAlloc(O.nic.ni, &o->ct[v]);
    if (rc != PTL_OK) return rc;
    if (counter_only(x)) {
        o->dct[v] = o->ct[v];
        o->thr[v] = deps_in(x);
        return PTL_OK;
    }
    if ((rc = PtlCTAlloc(O.nic.ni, &o->dct[v])) != PTL_OK) return rc;
    o->thr[v] = 1;
    if (x->kind == CV_SEND) {
        ptl_md_t md = {.start = vaddr(r, x->a), .length = x->len,
                       .options = PTL_MD_EVENT_CT_SEND, .eq_handle = PTL_EQ_NONE,
                       .ct_handle = o->dct[v]};
        return PtlMDBind(O.nic.ni, &md, &o->md[v]);
    }
    if (x->kind == CV_RECV && O.append && (rc = PtlCTAlloc(O.nic.ni, &o->rts[v])) != PTL_OK)
        return rc;
    /* zeroed: a refused message leaves it as it is, and it is copied */
    if (x->kind == CV_RECV && x->ndeps > 0 && x->len <= COLL_OFF_SHADOW &&
        !(o->shadow[v] = calloc(1, x->len ? x->len : 1)))
        return PTL_NO_SPACE;
    if (x->kind == CV_REDUCE) {
        const coll_op_t *op = coll_vop(r->s, x);
        size_t bytes = x->len * op->esize, piece = atom_piece(op);
        o->thr[v] = (uint32_t)((bytes + piece - 1) / piece);
    }
    return PTL_OK;
}

/* Step 1, every start: the entries (nothing leaves the rank yet). */
static int post_vertex(coll_run_t *r, coll_off_t *o, uint32_t v, unsigned seq)
{
    const coll_vertex_t *x = &r->s->v[v];
    ptl_process_t peer = {.rank = (ptl_rank_t)x->peer}, self = {.rank = (ptl_rank_t)O.nic.rank};
    int rc;
    if (counter_only(x)) return PTL_OK;
    ptl_match_bits_t own = MB_SELF | mbits(r->ctx, seq, v);
    switch (x->kind) {
    case CV_SEND: {
        if (O.append) { /* Fig. 6: the RTR entry is appended when the send is enabled */
            o->tme[v] = make_me(peer, NULL, 0, mbits(r->ctx, seq, o->id[v] | ID_RTR), ONCE_CT, o->ct[v]);
            return PTL_OK;
        }
        /* the receiver's ready notice, perhaps already waiting */
        return me_append(peer, NULL, 0, P2P_COLL_NOTICE | mbits(r->ctx, seq, o->id[v]),
                         ONCE_CT | PTL_ME_EVENT_CT_OVERFLOW, o->ct[v], NULL, &o->ome[v]);
    }
    case CV_RECV: {
        ptl_match_bits_t bits = mbits(r->ctx, seq, data_id(x, o->id[v]));
        if (O.append) { /* Fig. 6: RTS arrivals (+ enabled) on rts[v] */
            /* not use-once: an RTS that came before this entry existed was
             * dropped, and a use-once entry would then outlive the run and
             * take the RTS of a later start; unlinked at the end instead */
            rc = me_append(peer, NULL, 0, mbits(r->ctx, seq, o->id[v] | ID_RTS),
                           PTL_ME_EVENT_CT_COMM | PTL_ME_EVENT_COMM_DISABLE, o->rts[v], NULL,
                           &o->me[v]);
            if (rc != PTL_OK) return rc;
        }
        if (o->shadow[v]) {
            rc = me_append(peer, o->shadow[v], x->len, bits, data_opts(x), o->ct[v], NULL,
                           &o->dme[v]);
            if (rc != PTL_OK) return rc;
            return me_append(self, vaddr(r, x->a), x->len, own, ONCE_CT, o->dct[v], NULL,
                             &o->ome[v]);
        }
        if (O.append) { /* the data entry too, when the receive is enabled */
            o->tme[v] = make_me(peer, vaddr(r, x->a), x->len, bits, data_opts(x), o->dct[v]);
            return PTL_OK;
        }
        return me_append(peer, vaddr(r, x->a), x->len, bits, data_opts(x), o->dct[v], NULL,
                         &o->dme[v]);
    }
    case CV_COPY:
        return me_append(self, vaddr(r, x->b), x->len, own, ONCE_CT, o->dct[v], NULL, &o->ome[v]);
    case CV_REDUCE: {
        size_t bytes = x->len * coll_vop(r->s, x)->esize;
        return me_append(self, vaddr(r, x->b), bytes, own,
                         PTL_ME_EVENT_CT_COMM | PTL_ME_EVENT_COMM_DISABLE, o->dct[v], NULL,
                         &o->me[v]);
    }
    default: return PTL_ARG_INVALID;
    }
}

/* A shadow receive: the copy into the buffer once the data and the
 * dependencies are both there */
static int copy_shadow(coll_run_t *r, coll_off_t *o, uint32_t v, unsigned seq)
{
    const coll_vertex_t *x = &r->s->v[v];
    ptl_process_t self = {.rank = (ptl_rank_t)O.nic.rank};
    return PtlTriggeredPut(O.md_all, (ptl_size_t)(uintptr_t)o->shadow[v], x->len, PTL_NO_ACK_REQ,
                           self, O.nic.pt, MB_SELF | mbits(r->ctx, seq, v), 0, NULL, 0, o->ct[v],
                           deps_in(x) + 1);
}

/* Fig. 6, the sender: when enabled, append the entry for the receiver's
 * RTR, then send RTS; the RTR (counted on ct) fires the data. */
static int arm_send_fig6(coll_run_t *r, coll_off_t *o, uint32_t v, unsigned seq)
{
    const coll_vertex_t *x = &r->s->v[v];
    ptl_process_t peer = {.rank = (ptl_rank_t)x->peer};
    int rc = PtlTriggeredMEAppend(O.nic.ni, O.nic.pt, &o->tme[v], PTL_PRIORITY_LIST, NULL,
                                  &o->tmh[v], o->ct[v], deps_in(x));
    if (rc == PTL_OK)
        rc = PtlTriggeredPut(O.md_all, 0, 0, PTL_NO_ACK_REQ, peer, O.nic.pt,
                             mbits(r->ctx, seq, o->id[v] | ID_RTS), 0, NULL, 0, o->ct[v],
                             deps_in(x));
    if (rc == PTL_OK)
        rc = PtlTriggeredPut(o->md[v], 0, x->len, PTL_NO_ACK_REQ, peer, O.nic.pt,
                             mbits(r->ctx, seq, data_id(x, o->id[v])), 0, NULL, 0, o->ct[v],
                             deps_in(x) + 1);
    return rc;
}

/* Fig. 6, the receiver: once ready (at once into a shadow, else when
 * enabled, after appending the data entry) send RTR; the sender may not
 * have its RTR entry yet, and then drops it, so an RTS that finds the
 * receiver ready (rts[v] = 2: arrived + ready) sends it again.  At most
 * one of the two matches (the entry is used once); the other is dropped. */
static int arm_recv_fig6(coll_run_t *r, coll_off_t *o, uint32_t v, unsigned seq)
{
    const coll_vertex_t *x = &r->s->v[v];
    ptl_process_t peer = {.rank = (ptl_rank_t)x->peer};
    ptl_match_bits_t rtr = mbits(r->ctx, seq, o->id[v] | ID_RTR);
    int rc;
    if (o->shadow[v]) {
        rc = PtlPut(O.md_all, 0, 0, PTL_NO_ACK_REQ, peer, O.nic.pt, rtr, 0, NULL, 0);
        if (rc == PTL_OK) rc = PtlCTInc(o->rts[v], (ptl_ct_event_t){1, 0});
        if (rc == PTL_OK) rc = copy_shadow(r, o, v, seq);
    } else {
        rc = PtlTriggeredMEAppend(O.nic.ni, O.nic.pt, &o->tme[v], PTL_PRIORITY_LIST, NULL,
                                  &o->tmh[v], o->ct[v], deps_in(x));
        if (rc == PTL_OK)
            rc = PtlTriggeredPut(O.md_all, 0, 0, PTL_NO_ACK_REQ, peer, O.nic.pt, rtr, 0, NULL, 0,
                                 o->ct[v], deps_in(x));
        if (rc == PTL_OK)
            rc = PtlTriggeredCTInc(o->rts[v], (ptl_ct_event_t){1, 0}, o->ct[v], deps_in(x));
    }
    if (rc == PTL_OK)
        rc = PtlTriggeredPut(O.md_all, 0, 0, PTL_NO_ACK_REQ, peer, O.nic.pt, rtr, 0, NULL, 0,
                             o->rts[v], 2);
    return rc;
}

/* Step 3: what each vertex does once enabled (some fire at once). */
static int arm_vertex(coll_run_t *r, coll_off_t *o, uint32_t v, unsigned seq)
{
    const coll_vertex_t *x = &r->s->v[v];
    ptl_process_t peer = {.rank = (ptl_rank_t)x->peer}, self = {.rank = (ptl_rank_t)O.nic.rank};
    ptl_match_bits_t own = MB_SELF | mbits(r->ctx, seq, v);
    ptl_pt_index_t pt = O.nic.pt;
    switch (x->kind) {
    case CV_SEND:
        if (O.append) return arm_send_fig6(r, o, v, seq);
        return PtlTriggeredPut(o->md[v], 0, x->len, PTL_NO_ACK_REQ, peer, pt,
                               mbits(r->ctx, seq, data_id(x, o->id[v])), 0, NULL, 0, o->ct[v],
                               deps_in(x) + 1);
    case CV_RECV: {
        if (O.append) return arm_recv_fig6(r, o, v, seq);
        ptl_match_bits_t note = P2P_COLL_NOTICE | mbits(r->ctx, seq, o->id[v]);
        if (o->shadow[v]) {
            int rc = PtlPut(O.md_all, 0, 0, PTL_NO_ACK_REQ, peer, pt, note, 0, NULL, 0);
            if (rc != PTL_OK) return rc;
            return copy_shadow(r, o, v, seq);
        }
        return PtlTriggeredPut(O.md_all, 0, 0, PTL_NO_ACK_REQ, peer, pt, note, 0, NULL, 0,
                               o->ct[v], deps_in(x));
    }
    case CV_COPY:
        return PtlTriggeredPut(O.md_all, (ptl_size_t)(uintptr_t)vaddr(r, x->a), x->len,
                               PTL_NO_ACK_REQ, self, pt, own, 0, NULL, 0, o->ct[v], deps_in(x));
    case CV_REDUCE: {
        const coll_op_t *op = coll_vop(r->s, x);
        size_t bytes = x->len * op->esize, piece = atom_piece(op);
        const char *in = vaddr(r, x->a);
        for (size_t at = 0; at < bytes; at += piece) {
            size_t n = bytes - at < piece ? bytes - at : piece;
            int rc = PtlTriggeredAtomic(O.md_all, (ptl_size_t)(uintptr_t)(in + at), n,
                                        PTL_NO_ACK_REQ, self, pt, own, at, NULL, 0,
                                        (ptl_op_t)op->atom_op, (ptl_datatype_t)op->atom_type,
                                        o->ct[v],
                                        deps_in(x));
            if (rc != PTL_OK) return rc;
        }
        return PTL_OK;
    }
    default: return PTL_OK;
    }
}

/* A receive whose entry refused its message (a misfit catcher's event):
 * the run fails as the host executor's would (longer: SL_ERR_TRUNCATE;
 * an empty one for bytes: SL_ERR_PROTO), the refused entry goes, and the
 * receive completes without data so that the schedule, and the peers
 * waiting for this rank, go on. */
static void settle_misfit(coll_off_t *o, uint32_t v, ptl_size_t rlength)
{
    coll_run_t *r = o->run;
    const coll_vertex_t *x = &r->s->v[v];
    if (r->err == SL_OK) r->err = coll_len_status(rlength, x->len);
    ptl_handle_me_t me = o->shadow[v] || !O.append ? o->dme[v] : o->tmh[v];
    o->dme[v] = PTL_INVALID_HANDLE;
    if (!o->shadow[v] && O.append) o->tmh[v] = 0;
    PtlMEUnlink(me);
    /* a shadow receive's copy still waits for its dependencies */
    PtlCTInc(o->shadow[v] ? o->ct[v] : o->dct[v], (ptl_ct_event_t){1, 0});
    SL_TRACE('i', "coll", "misfit", (uint64_t)(uintptr_t)r, "\"vertex\":%u,\"rlength\":%llu",
             v, (unsigned long long)rlength);
}

static void off_misfit(const ptl_event_t *ev)
{
    unsigned ctx = (unsigned)(ev->match_bits >> 46) & 0xffffu;
    unsigned seq = (unsigned)(ev->match_bits >> 32) & COLL_SEQ_MASK;
    uint32_t id = (uint32_t)ev->match_bits & ~ID_KIND;
    for (coll_off_t *o = O.live; o; o = o->live_next) {
        const coll_sched_t *s = o->run->s;
        if ((o->run->ctx & 0xffffu) != ctx || (o->seq & COLL_SEQ_MASK) != seq) continue;
        for (uint32_t v = 0; v < s->nv; v++)
            if (s->v[v].kind == CV_RECV && (ptl_rank_t)s->v[v].peer == ev->initiator.rank &&
                o->id[v] == id) {
                settle_misfit(o, v, ev->rlength);
                return;
            }
    }
    /* a run that failed (an ended peer) and is gone: nothing waits for it */
    sl_log_debug("coll: a message of %llu bytes from rank %u matches no offloaded receive",
                 (unsigned long long)ev->rlength, ev->initiator.rank);
}

static void off_abort_event(const ptl_event_t *ev);

/* Events of the offload portal: a run's end, a misfit, an abort */
static void off_event(const ptl_event_t *ev)
{
    if (ev->user_ptr == &O) {
        off_misfit(ev);
        return;
    }
    if (ev->user_ptr == &O.live) {
        off_abort_event(ev);
        return;
    }
    coll_run_t *r = ev->user_ptr;
    if (!r) return;
    if (ev->ni_fail_type != PTL_NI_OK && r->err == SL_OK) r->err = SL_ERR_PROTO;
    r->off_next = coll_state.off_done;
    coll_state.off_done = r;
    coll_state.ticks++;
}

/* The objects of a start: made once, then reset (every counter back to
 * 0: a completed start's triggered operations have all fired, or were
 * cancelled at its completion). */
static int prepare(coll_run_t *r, coll_off_t *o)
{
    int rc = PTL_OK;
    if (!o->fin_ok) {
        if ((rc = PtlCTAlloc(O.nic.ni, &o->fin)) != PTL_OK) return rc;
        o->fin_ok = true;
        for (uint32_t v = 0; v < o->nv && rc == PTL_OK; v++) rc = alloc_vertex(r, o, v);
        return rc;
    }
    const ptl_ct_event_t zero = {0, 0};
    rc = PtlCTSet(o->fin, zero);
    for (uint32_t v = 0; v < o->nv && rc == PTL_OK; v++) {
        rc = PtlCTSet(o->ct[v], zero);
        if (rc == PTL_OK && o->dct[v] != o->ct[v]) rc = PtlCTSet(o->dct[v], zero);
        if (rc == PTL_OK && o->rts[v] != PTL_INVALID_HANDLE) rc = PtlCTSet(o->rts[v], zero);
    }
    return rc;
}

static int compile(coll_run_t *r, coll_off_t *o, unsigned seq)
{
    const coll_sched_t *s = r->s;
    int rc = prepare(r, o);
    if (rc != PTL_OK) return rc;
    for (uint32_t v = 0; v < s->nv; v++)
        if ((rc = post_vertex(r, o, v, seq)) != PTL_OK) return rc;
    ptl_process_t self = {.rank = (ptl_rank_t)O.nic.rank};
    ptl_match_bits_t done = MB_SELF | mbits(r->ctx, seq, MB_DONE);
    rc = me_append(self, NULL, 0, done, PTL_ME_USE_ONCE, PTL_CT_NONE, r, &o->done_me);
    if (rc != PTL_OK) return rc;
    /* Step 2: the edges and the end, before anything can fire */
    uint32_t sinks = 0;
    for (uint32_t v = 0; v < s->nv && rc == PTL_OK; v++) {
        const coll_vertex_t *x = &s->v[v];
        for (uint32_t j = 0; j < x->nsucc && rc == PTL_OK; j++)
            rc = PtlTriggeredCTInc(o->ct[s->succ[x->succ0 + j]], (ptl_ct_event_t){DEP_W, 0},
                                   o->dct[v], o->thr[v]);
        if (x->nsucc == 0 && rc == PTL_OK) {
            sinks++;
            rc = PtlTriggeredCTInc(o->fin, (ptl_ct_event_t){1, 0}, o->dct[v], o->thr[v]);
        }
    }
    if (rc == PTL_OK)
        rc = PtlTriggeredPut(O.md_all, 0, 0, PTL_NO_ACK_REQ, self, O.nic.pt, done, 0, NULL, 0,
                             o->fin, sinks);
    /* Step 3: the operations */
    for (uint32_t v = 0; v < s->nv && rc == PTL_OK; v++) rc = arm_vertex(r, o, v, seq);
    return rc;
}

/* The objects of the run's last start if its buffers are the same
 * (persistent requests, a cached schedule called on the same memory),
 * else new ones with the messages numbered; ids without the epoch. */
static sl_status_t take_objects(coll_run_t *r, coll_off_t **out)
{
    const coll_sched_t *s = r->s;
    coll_off_t *o = r->off_keep;
    r->off_keep = NULL;
    if (o && memcmp(o->base, r->base, sizeof o->base)) {
        off_free(o);
        o = NULL;
    }
    if (!o) {
        if (!(o = off_new(s->nv))) return SL_ERR_NOMEM;
        sl_status_t st = number_messages(s, o);
        if (st != SL_OK) {
            off_free(o);
            return st;
        }
        memcpy(o->base, r->base, sizeof o->base);
    }
    for (uint32_t v = 0; v < s->nv; v++) o->id[v] &= ~ID_EPOCH;
    *out = o;
    return SL_OK;
}

static void live_remove(coll_off_t *o)
{
    for (coll_off_t **p = &O.live; *p; p = &(*p)->live_next)
        if (*p == o) {
            *p = o->live_next;
            return;
        }
}

/* ---- limits and aborts ----------------------------------------------------------------------- */

/* What one start of s holds on the NI at once (mirrors alloc_vertex,
 * post_vertex, arm_vertex and compile): counters, entries, descriptors,
 * and the most triggered operations waiting on one counter (the engine's
 * max_triggered_ops counts per counter). */
typedef struct off_needs {
    long cts, entries, mds, trig;
} off_needs_t;

static void count_vertex(const coll_sched_t *s, const coll_vertex_t *x, off_needs_t *n)
{
    long on_dct = x->nsucc ? x->nsucc : 1, on_ct = 0; /* edges, or the sink's count on fin */
    if (counter_only(x)) {
        n->cts += 1;
        if (on_dct > n->trig) n->trig = on_dct;
        return;
    }
    n->cts += 2;
    n->entries += 1;
    switch (x->kind) {
    case CV_SEND:
        n->mds += 1;
        on_ct = O.append ? 3 : 1; /* Fig. 6: append, RTS, data; else the data */
        break;
    case CV_RECV: {
        bool shadow = x->ndeps > 0 && x->len <= COLL_OFF_SHADOW;
        n->entries += shadow;                       /* the self-put's target */
        on_ct = O.append && !shadow ? 3 : 1;        /* append, RTR, rts; or notice / copy */
        if (O.append) n->cts += 1, n->entries += 1; /* rts and the RTS entry (2nd RTR: 1) */
        break;
    }
    case CV_REDUCE: {
        const coll_op_t *op = coll_vop(s, x);
        size_t piece = atom_piece(op);
        on_ct = (long)((x->len * op->esize + piece - 1) / piece);
        break;
    }
    default: on_ct = 1; break; /* copy */
    }
    if (on_ct > n->trig) n->trig = on_ct;
    if (on_dct > n->trig) n->trig = on_dct;
}

/* Does a start of s fit the NI's limits?  The limits are the same on every
 * rank (the same settings); the needs are this rank's.  Checked before
 * anything of the start is posted. */
static bool fits(const coll_sched_t *s, off_needs_t *n)
{
    *n = (off_needs_t){.cts = 1, .entries = 1, .trig = 1}; /* fin, the done entry and put */
    for (uint32_t v = 0; v < s->nv; v++) count_vertex(s, &s->v[v], n);
    return n->cts <= O.nic.max_cts && n->entries <= O.nic.max_entries &&
           n->mds <= O.nic.max_mds && n->trig <= O.nic.max_trig;
}

/* Aborts that came before this rank started their run (or after it ended
 * here: discarded), and per context the last non-persistent sequence
 * number started, which tells the two apart. */
typedef struct off_abort {
    unsigned ctx, seq;
    uint32_t startno;
    struct off_abort *next;
} off_abort_t;
typedef struct off_ctx {
    unsigned ctx, last;
    struct off_ctx *next;
} off_ctx_t;
static off_abort_t *pending_aborts;
static off_ctx_t *ctx_seen;

static inline bool seq_persistent(unsigned seq)
{
    return (seq & COLL_SEQ_MASK) > COLL_SEQ_MASK / 2;
}

/* Has this rank started (ctx, seq) already?  Non-persistent sequence
 * numbers run 1..COLL_SEQ_MASK / 2 in call order on every rank. */
static bool seq_passed(unsigned ctx, unsigned seq)
{
    const unsigned span = COLL_SEQ_MASK / 2;
    for (off_ctx_t *c = ctx_seen; c; c = c->next)
        if (c->ctx == ctx) return (c->last + span - seq) % span < span / 2;
    return false;
}

static void seq_started(unsigned ctx, unsigned seq)
{
    off_ctx_t *c = ctx_seen;
    while (c && c->ctx != ctx) c = c->next;
    if (!c && (c = calloc(1, sizeof *c))) {
        c->ctx = ctx;
        c->next = ctx_seen;
        ctx_seen = c;
    }
    if (c) c->last = seq;
}

static bool same_start(unsigned ctx, unsigned seq, uint32_t startno, const coll_off_t *o)
{
    return (o->run->ctx & 0xffffu) == ctx && (o->seq & COLL_SEQ_MASK) == seq &&
           (!seq_persistent(seq) || o->startno == startno);
}

/* An abort from a peer: a run started here fails (MPI_ERR_NO_MEM) and ends
 * at once through its own done entry (so its end is reported exactly once,
 * whichever comes first); one not started yet fails when it starts. */
static void off_abort_event(const ptl_event_t *ev)
{
    unsigned ctx = (unsigned)(ev->match_bits >> 46) & 0xffffu;
    unsigned seq = (unsigned)(ev->match_bits >> 32) & COLL_SEQ_MASK;
    uint32_t startno = (uint32_t)ev->hdr_data;
    for (coll_off_t *o = O.live; o; o = o->live_next)
        if (same_start(ctx, seq, startno, o)) {
            ptl_process_t self = {.rank = (ptl_rank_t)O.nic.rank};
            if (o->run->err == SL_OK) o->run->err = SL_ERR_NOMEM;
            PtlPut(O.md_all, 0, 0, PTL_NO_ACK_REQ, self, O.nic.pt,
                   MB_SELF | mbits(o->run->ctx, o->seq, MB_DONE), 0, NULL, 0);
            return;
        }
    if (!seq_persistent(seq) && seq_passed(ctx, seq)) return; /* it ended well here */
    off_abort_t *a = malloc(sizeof *a);
    if (!a) return;
    *a = (off_abort_t){.ctx = ctx, .seq = seq, .startno = startno, .next = pending_aborts};
    pending_aborts = a;
}

/* Was this start aborted by a peer already?  Drops that abort, and the
 * stale ones of its context: of persistent starts this run has passed, of
 * non-persistent calls behind this one (calls this rank had nothing to
 * offload for: an empty schedule never starts here). */
static bool take_abort(const coll_off_t *o)
{
    bool hit = false;
    unsigned ctx = o->run->ctx & 0xffffu, seq = o->seq & COLL_SEQ_MASK;
    for (off_abort_t **p = &pending_aborts; *p;) {
        off_abort_t *a = *p;
        bool same = ctx == a->ctx && seq == a->seq;
        bool now = same && same_start(a->ctx, a->seq, a->startno, o);
        bool behind = ctx == a->ctx && !same && !seq_persistent(seq) && seq_passed(ctx, a->seq);
        bool stale = seq_persistent(a->seq) ? same && a->startno < o->startno : behind;
        if (now || stale) {
            hit |= now;
            *p = a->next;
            free(a);
        } else {
            p = &a->next;
        }
    }
    return hit;
}

/* This rank cannot set the start up: tell every rank of the communicator
 * (the ones waiting for this rank's messages would wait for ever; the
 * others end at once too, so that the call fails everywhere it has not
 * completed already) */
static void send_aborts(const coll_run_t *r, const coll_off_t *o)
{
    const coll_sched_t *s = r->s;
    for (int i = 0; i < s->size + s->nremote; i++) {
        int w = s->world_of ? s->world_of[i] : i;
        if (w == O.nic.rank) continue;
        ptl_process_t to = {.rank = (ptl_rank_t)w};
        PtlPut(O.md_all, 0, 0, PTL_NO_ACK_REQ, to, O.nic.pt,
               MB_SELF | mbits(r->ctx, o->seq, MB_ABORT), 0, NULL, o->startno);
    }
}

/* The start fails on this rank: nothing of it stays on the NI */
static void fail_start(coll_run_t *r, coll_off_t *o, sl_status_t why)
{
    live_remove(o);
    r->err = why;
    r->off = NULL;
    off_free(o);
    coll_run_finish(r);
}

/* Set the start up, or fail it on every rank: a peer aborted it already,
 * this rank's needs are past the NI's limits (before anything is posted),
 * or the engine refused an object (others' objects share the NI). */
static void start_or_abort(coll_run_t *r, coll_off_t *o, unsigned seq)
{
    const coll_sched_t *s = r->s;
    off_needs_t n;
    if (take_abort(o)) {
        fail_start(r, o, SL_ERR_NOMEM);
        return;
    }
    /* counted once per set of objects: the needs are the schedule's */
    if (!o->checked) o->checked = fits(s, &n);
    int rc = o->checked ? compile(r, o, seq) : PTL_NO_SPACE;
    if (rc == PTL_OK) return;
    fits(s, &n); /* for the message */
    sl_log_error("coll: cannot offload a %s of %u vertices (Portals error %d; it needs %ld "
                 "counters, %ld entries, %ld descriptors, %ld triggered operations on one "
                 "counter; the NI allows %d, %d, %d, %d): it fails on every rank",
                 coll_kind_name((coll_kind_t)s->kind), s->nv, rc, n.cts, n.entries, n.mds, n.trig,
                 O.nic.max_cts, O.nic.max_entries, O.nic.max_mds, O.nic.max_trig);
    send_aborts(r, o);
    fail_start(r, o, rc == PTL_NO_SPACE ? SL_ERR_NOMEM : SL_ERR_PROTO);
}

sl_status_t coll_off_start(coll_run_t *r, unsigned seq)
{
    const coll_sched_t *s = r->s;
    sl_status_t st = nic_up();
    if (st != SL_OK) return st;
    static bool hooked;
    if (!hooked) {
        p2p_set_nic_hook(off_event);
        hooked = true;
    }
    coll_off_t *o;
    if ((st = take_objects(r, &o)) != SL_OK) return st;
    /* A persistent run (sequence numbers above COLL_SEQ_MASK / 2: its own
     * for its lifetime) alternates an epoch bit, so that a duplicate RTR
     * of one start (Fig. 6 sends a second one when the RTS finds the
     * receiver ready; the sender's entry takes at most one) cannot match
     * the next start's entry.  One bit is enough: a pair's packets arrive
     * in order, and the next start's RTR goes after the duplicate.  The
     * start's number also names it in aborts (the same on every rank). */
    o->startno = r->starts;
    if (seq_persistent(seq) && (r->starts++ & 1))
        for (uint32_t v = 0; v < s->nv; v++) o->id[v] |= ID_EPOCH;
    if (!seq_persistent(seq)) seq_started(r->ctx & 0xffffu, seq & COLL_SEQ_MASK);
    r->tagbase = (seq & COLL_SEQ_MASK) << COLL_TAG_BITS;
    r->err = SL_OK;
    r->op_err = 0;
    r->hint = NULL;
    r->left = s->nv;
    r->async = false;
    r->done = false;
    r->off = o;
    coll_state.active++;
    SL_TRACE('b', "coll", "offloaded run", (uint64_t)(uintptr_t)r,
             "\"coll\":\"%s\",\"vertices\":%u,\"seq\":%u,\"exec\":\"offload\",\"rndv\":\"%s\"",
             coll_kind_name((coll_kind_t)s->kind), s->nv, seq, O.append ? "append" : "notice");
    o->run = r;
    o->seq = seq;
    o->live_next = O.live;
    O.live = o;
    start_or_abort(r, o, seq);
    return SL_OK;
}

/* A shorter message than its receive: the entry counted fewer bytes than
 * it holds (the host executor's SL_ERR_PROTO).  Read here, where the run's
 * counters are read anyway, so a run that fits costs nothing more. */
static bool recv_short(const coll_off_t *o, const coll_vertex_t *x, uint32_t v)
{
    ptl_ct_event_t e;
    ptl_handle_ct_t c = o->shadow[v] ? o->ct[v] : o->dct[v];
    ptl_size_t want = (o->shadow[v] ? deps_in(x) : 0) + (x->len ? x->len : 1);
    return PtlCTGet(c, &e) == PTL_OK && e.success < want;
}

/* The runs whose done entry the engine has reached: release their
 * objects (every triggered operation has fired: each sink, and so each
 * vertex, has completed), then complete them. */
void coll_off_release(coll_run_t *r)
{
    off_free(r->off_keep);
    r->off_keep = NULL;
}

int coll_off_collect(void)
{
    int n = 0;
    while (coll_state.off_done) {
        coll_run_t *r = coll_state.off_done;
        coll_state.off_done = r->off_next;
        coll_off_t *o = r->off;
        r->off = NULL;
        if (o) live_remove(o);
        for (uint32_t v = 0; o && v < o->nv && r->err == SL_OK; v++) {
            ptl_ct_event_t e;
            if (PtlCTGet(o->dct[v], &e) == PTL_OK && e.failure) r->err = SL_ERR_PROTO;
            else if (r->s->v[v].kind == CV_RECV && recv_short(o, &r->s->v[v], v))
                r->err = SL_ERR_PROTO;
        }
        /* the entries that outlive a start go; the rest waits for the next.
         * Every triggered operation has fired but Fig. 6's second RTR,
         * which fires only when an RTS found the receive ready: left on a
         * kept counter it would fire in the next start, with this start's
         * match bits, and hand a later start's sender a false RTR (a
         * 20-runs-in-flight test hung 1 time in 12 under load) */
        for (uint32_t v = 0; o && v < o->nv; v++) {
            if (o->me[v] != PTL_INVALID_HANDLE) {
                PtlMEUnlink(o->me[v]);
                o->me[v] = PTL_INVALID_HANDLE;
            }
            if (o->rts[v] != PTL_INVALID_HANDLE) PtlCTCancelTriggered(o->rts[v]);
        }
        if (o && r->err == SL_OK) {
            /* every use-once entry was taken: their handles are stale now */
            for (uint32_t v = 0; v < o->nv; v++) {
                o->dme[v] = o->ome[v] = PTL_INVALID_HANDLE;
                o->tmh[v] = 0;
            }
            o->done_me = PTL_INVALID_HANDLE;
            r->off_keep = o;
        } else {
            off_free(o);
        }
        SL_TRACE('e', "coll", "offloaded run", (uint64_t)(uintptr_t)r, NULL);
        r->left = 0;
        coll_run_finish(r);
        n++;
    }
    return n;
}
