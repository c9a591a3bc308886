/* The machinery under every MPI collective (mcoll.h): buffers as streams,
 * the op, building and running the schedule in the three modes, and the
 * argument checks they share.  The calls themselves are in coll_api.c
 * (reductions, barrier, bcast) and coll_move.c (gathers, scatters,
 * alltoalls).
 *
 * Collective traffic runs on the communicator's collective context
 * (ctx | MCOMM_COLL_CTX), apart from its user messages; each call takes
 * the communicator's next collective sequence number, which the schedule
 * puts into its tags (src/coll).  Tags there with sequence 0 belong to the
 * communicator management of comm.c and barrier.c. */
#include "mpi/mcoll.h"

#include "mpi/request.h"
#include "p2p/p2p.h"
#include "util/param.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- checks ----------------------------------------------------------------------------------- */

int mcoll_check_comm(MPI_Comm comm, mcomm_t **c, const char *fname)
{
    if (!(*c = mcomm_get(comm))) return mpi_err(NULL, MPI_ERR_COMM, fname, NULL);
    return MPI_SUCCESS;
}

/* count elements of dt at buf: a committed type, a count >= 0, and a
 * buffer that can hold them (NULL only for absolute-address derived types
 * or no data; MPI_IN_PLACE only where the caller allows it). */
int mcoll_check_buf(mcomm_t *c, const void *buf, int count, MPI_Datatype dt, mdt_type_t **t,
                    bool may_be_in_place, const char *fname)
{
    int err;
    if (count < 0) return mpi_err(c, MPI_ERR_COUNT, fname, "negative count");
    if (!(*t = mdt_get_committed(dt, &err))) return mpi_err(c, err, fname, NULL);
    if (buf == MPI_IN_PLACE && !may_be_in_place)
        return mpi_err(c, MPI_ERR_BUFFER, fname, "MPI_IN_PLACE is not allowed here");
    if (count && (*t)->size && !buf && MDT_IS_BUILTIN(dt))
        return mpi_err(c, MPI_ERR_BUFFER, fname, "NULL buffer");
    return MPI_SUCCESS;
}

int mcoll_check_root(mcomm_t *c, int root, const char *fname)
{
    if (c->inter) { /* MPI 4.0 §6.2.2: the root itself, its group, or the remote group's rank */
        if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->remote_size))
            return MPI_SUCCESS;
        return mpi_err(c, MPI_ERR_ROOT, fname, "root out of range");
    }
    if (root < 0 || root >= c->size) return mpi_err(c, MPI_ERR_ROOT, fname, "root out of range");
    return MPI_SUCCESS;
}

/* Two ranges: 1..8191 cycle through the blocking and non-blocking calls;
 * 8192..16383 go to persistent requests, one each for its lifetime, in
 * the order of their (collective, ordered) init calls.  A persistent
 * request started long after its init thus never shares its tags with a
 * call that has since come round to the same number; two calls collide
 * only when one is still in flight 8,191 calls later (or past 8,192
 * persistent requests on one communicator). */
#define SEQ_CALLS 8191u

unsigned mcoll_next_seq(mcomm_t *c, bool persistent)
{
    if (persistent) return SEQ_CALLS + 1 + c->coll_pseq++ % (COLL_SEQ_MASK - SEQ_CALLS);
    /* 1..SEQ_CALLS in turn (a compare, not a division: every call pays it) */
    unsigned s = c->coll_seq < SEQ_CALLS ? c->coll_seq + 1 : 1;
    c->coll_seq = s;
    return s;
}

/* ---- objects and buffers ---------------------------------------------------------------------- */

/* Freed objects, for the next call (each call describes itself in a new
 * one before the cache is consulted); under the MPI lock. */
static mcoll_t *pool[16];
static int npool;

mcoll_t *mcoll_new(mcomm_t *c)
{
    mcoll_t *m = npool ? pool[--npool] : malloc(sizeof *m);
    if (m) *m = (mcoll_t){.comm = c};
    return m;
}

void mcoll_free(mcoll_t *m)
{
    if (!m) return;
    coll_run_free(m->run);
    for (int i = 0; i < 2; i++) {
        free(m->side[i].tmp);
        free(m->side[i].blk);
        if (m->types[i]) mdt_release(m->types[i]);
    }
    for (int i = 0; i < m->nw; i++) {
        if (m->wtypes) mdt_release(m->wtypes[i]);
        if (m->wstypes) mdt_release(m->wstypes[i]);
    }
    free(m->wtypes);
    free(m->wstypes);
    for (int i = 0; m->nbr_rtypes && i < m->nbr_nin; i++) mdt_release(m->nbr_rtypes[i]);
    for (int i = 0; m->nbr_stypes && i < m->nbr_nout; i++) mdt_release(m->nbr_stypes[i]);
    free(m->nbr_rtypes);
    free(m->nbr_stypes);
    mcoll_nbr_free(m->nbr_keep);
    free(m->off);
    free(m->len);
    free(m->soff);
    free(m->slen);
    free(m->counts);
    if (npool < 16) pool[npool++] = m;
    else free(m);
}

static void keep_type(mcoll_t *m, int side, mdt_type_t *t)
{
    if (m->types[side] || !t) return;
    mdt_retain(t);
    m->types[side] = t;
}

int mcoll_side(mcoll_t *m, int side, void *buf, MPI_Count count, mdt_type_t *t, bool in, bool out)
{
    mcoll_side_t *s = &m->side[side];
    void *addr;
    keep_type(m, side, t);
    if (mdt_is_contig(t, count, buf, &addr)) {
        s->stream = addr;
        return MPI_SUCCESS;
    }
    size_t bytes = (size_t)(count * t->size);
    s->tmp = malloc(bytes ? bytes : 1);
    s->blk = malloc(sizeof *s->blk);
    if (!s->tmp || !s->blk) return MPI_ERR_NO_MEM;
    s->blk[0] = (mcoll_blk_t){.ubuf = buf, .count = count, .t = t, .off = 0};
    s->nblk = 1;
    s->stream = s->tmp;
    s->pack_in = in;
    s->unpack_out = out;
    return MPI_SUCCESS;
}

/* Every block dense and at a non-negative offset from buf: the stream is
 * the user's memory. */
static bool v_direct(int n, const int *counts, const int *displs, const MPI_Aint *adispls,
                     mdt_type_t *t, mdt_type_t *const *types)
{
    for (int i = 0; i < n; i++) {
        mdt_type_t *ti = types ? types[i] : t;
        bool data = counts[i] && ti->size;
        if (data && (!ti->dense || ti->tree || (adispls ? adispls[i] < 0 : displs[i] < 0)))
            return false;
        if (types && data && ti->pieces[0].off != 0) return false;
    }
    return true;
}

int mcoll_side_v(mcoll_t *m, int side, void *buf, int n, const int *counts, const int *displs,
                 mdt_type_t *t, mdt_type_t *const *types, bool bytes_displ, bool in, bool out,
                 size_t **off, size_t **len)
{
    return mcoll_side_va(m, side, buf, n, counts, displs, NULL, t, types, bytes_displ, in, out, off,
                         len);
}

/* displacement i: adispls[i] bytes when given, else displs[i] (bytes or extents) */
static MPI_Aint displ(const int *displs, const MPI_Aint *adispls, int i, bool bytes,
                      const mdt_type_t *t)
{
    if (adispls) return adispls[i];
    return bytes ? displs[i] : (MPI_Aint)displs[i] * mdt_extent(t);
}

int mcoll_side_va(mcoll_t *m, int side, void *buf, int n, const int *counts, const int *displs,
                  const MPI_Aint *adispls, mdt_type_t *t, mdt_type_t *const *types,
                  bool bytes_displ, bool in, bool out, size_t **off, size_t **len)
{
    mcoll_side_t *s = &m->side[side];
    keep_type(m, side, t);
    *off = malloc(sizeof(size_t) * (size_t)n);
    *len = malloc(sizeof(size_t) * (size_t)n);
    if (!*off || !*len) return MPI_ERR_NO_MEM;
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        mdt_type_t *ti = types ? types[i] : t;
        (*len)[i] = (size_t)counts[i] * (size_t)ti->size;
        total += (*len)[i];
    }
    if (v_direct(n, counts, displs, adispls, t, types)) {
        /* the first piece's offset shifts every block alike (one type) */
        size_t shift = !types && t->size && t->npieces ? (size_t)t->pieces[0].off : 0;
        s->stream = (char *)buf + shift;
        for (int i = 0; i < n; i++)
            (*off)[i] = (size_t)displ(displs, adispls, i, bytes_displ, types ? types[i] : t);
        return MPI_SUCCESS;
    }
    s->tmp = malloc(total ? total : 1);
    s->blk = malloc(sizeof *s->blk * (size_t)n);
    if (!s->tmp || !s->blk) return MPI_ERR_NO_MEM;
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        mdt_type_t *ti = types ? types[i] : t;
        MPI_Aint d = displ(displs, adispls, i, bytes_displ, ti);
        s->blk[i] = (mcoll_blk_t){.ubuf = (char *)buf + d, .count = counts[i], .t = ti, .off = at};
        (*off)[i] = at;
        at += (*len)[i];
    }
    s->nblk = n;
    s->stream = s->tmp;
    s->pack_in = in;
    s->unpack_out = out;
    return MPI_SUCCESS;
}

/* ---- the op ----------------------------------------------------------------------------------- */

static int op_apply(const coll_op_t *op, const void *in, void *inout, size_t count)
{
    return mop_apply(&((const mcoll_op_t *)op)->plan, in, inout, (MPI_Count)count);
}

void mcoll_op_init(mcoll_op_t *o, const mop_plan_t *p)
{
    o->plan = *p;
    o->base = (coll_op_t){.apply = op_apply, .esize = (size_t)p->type->size,
                          .commute = p->commute};
}

void mcoll_op_init_atomic(mcoll_op_t *o, const mop_plan_t *p)
{
    mcoll_op_init(o, p);
    o->base.atom_size = p->esize;
    o->base.has_atom = mop_atomic(p, &o->base.atom_op, &o->base.atom_type);
}

void mcoll_set_op(mcoll_t *m, const mop_plan_t *p)
{
    mcoll_op_init_atomic(&m->op, p);
    m->args.op = &m->op.base;
}

/* ---- running ---------------------------------------------------------------------------------- */

static void pack_in(mcoll_t *m)
{
    for (int i = 0; i < 2; i++) {
        mcoll_side_t *s = &m->side[i];
        if (!s->pack_in) continue;
        for (int b = 0; b < s->nblk; b++)
            mdt_pack(s->blk[b].t, s->blk[b].ubuf, s->blk[b].count, s->tmp + s->blk[b].off);
    }
}

/* The run has completed: unpack what it produced (any thread, under the
 * lock). */
static void on_done(coll_run_t *run, void *arg)
{
    mcoll_t *m = arg;
    (void)run;
    mcoll_side_t *s = &m->side[COLL_RBUF];
    if (!s->unpack_out || coll_run_error(run) != SL_OK) return;
    for (int b = 0; b < s->nblk; b++)
        mdt_unpack(s->blk[b].t, s->blk[b].ubuf, s->blk[b].count, s->tmp + s->blk[b].off);
}

/* A run's outcome as an MPI error class (the op's own error first). */
static int status_err(int op_err, sl_status_t st)
{
    if (op_err) return op_err;
    switch (st) {
    case SL_OK: return MPI_SUCCESS;
    case SL_ERR_TRUNCATE: return MPI_ERR_TRUNCATE;
    case SL_ERR_PROTO: return MPI_ERR_ARG; /* a shorter message: mismatched counts or types */
    case SL_ERR_NOMEM: return MPI_ERR_NO_MEM;
    default: return MPI_ERR_OTHER;
    }
}

int mcoll_error(const mcoll_t *m)
{
    if (m->err) return m->err;
    if (!m->run) return MPI_SUCCESS;
    return status_err(coll_run_op_error(m->run), coll_run_error(m->run));
}

static int direct_run(mcomm_t *c, coll_direct_t *d)
{
    int oe;
    d->rank = c->rank;
    d->size = c->size;
    d->map = mcomm_world_map(c);
    d->ctx = c->ctx | MCOMM_COLL_CTX;
    d->seq = mcoll_next_seq(c, false);
    int err = status_err(0, coll_direct_run(d, &oe));
    return oe ? oe : err;
}

static bool dense(const mcoll_dbuf_t *b, void **addr)
{
    *addr = NULL;
    return !b || !b->t || mdt_is_contig(b->t, b->count, b->buf, addr);
}

/* A side that is not dense goes through a stream on the stack (the
 * direct path's sizes are small); kept out of the dense calls' frame. */
static __attribute__((noinline)) int direct_packed(mcomm_t *c, coll_direct_t *d,
                                                   const mcoll_dbuf_t *s, const mcoll_dbuf_t *r)
{
    char tmp[2][COLL_DIRECT_MAX_LIMIT];
    const mcoll_dbuf_t *side[2] = {s, r};
    void *stream[2];
    bool packed[2];
    for (int i = 0; i < 2; i++) {
        const mcoll_dbuf_t *b = side[i];
        packed[i] = !dense(b, &stream[i]);
        if (!packed[i]) continue;
        if ((size_t)(b->count * b->t->size) > sizeof tmp[i]) return MPI_ERR_TRUNCATE;
        stream[i] = tmp[i];
        if (b->in) mdt_pack(b->t, b->buf, b->count, tmp[i]);
    }
    d->sbuf = stream[0];
    d->rbuf = stream[1];
    int err = direct_run(c, d);
    for (int i = 0; i < 2; i++)
        if (packed[i] && side[i]->out && !err)
            mdt_unpack(side[i]->t, (void *)(uintptr_t)side[i]->buf, side[i]->count, stream[i]);
    return err;
}

int mcoll_direct(mcomm_t *c, coll_direct_t *d, const mcoll_dbuf_t *s, const mcoll_dbuf_t *r,
                 const char *fname)
{
    void *sa, *ra;
    int err;
    if (dense(s, &sa) && dense(r, &ra)) {
        d->sbuf = sa;
        d->rbuf = ra;
        err = direct_run(c, d);
    } else {
        err = direct_packed(c, d, s, r);
    }
    return err ? mpi_err(c, err, fname, "the collective failed") : MPI_SUCCESS;
}

int mcoll_start(mcoll_t *m)
{
    pack_in(m);
    sl_status_t st = coll_run_start(m->run, m->seq, coll_async_running(), true);
    return st == SL_OK ? MPI_SUCCESS : MPI_ERR_OTHER;
}

bool mcoll_test(mcoll_t *m)
{
    return coll_run_test(m->run);
}

int mcoll_wait(mcoll_t *m)
{
    coll_run_wait(m->run);
    return mcoll_error(m);
}

/* Whether this process wants the progress thread: decided once, at the
 * first non-blocking or persistent collective (a setting and a CPU count
 * read at every such call cost a getenv and a sysconf where the answer was
 * no). */
static bool async_wanted(void)
{
    static int wanted = -1; /* -1 not decided yet; any thread may decide, all agree */
    int w = __atomic_load_n(&wanted, __ATOMIC_RELAXED);
    if (w >= 0) return w;
    long on = -1;
    if (sl_param_int(SL_PARAM_COLL_PROGRESS, &on) != SL_OK) on = 0;
    /* automatic: not when the ranks oversubscribe the host's CPUs (every
     * rank here is on this host: one host so far).  Measured, 4 ranks on 2
     * CPUs, Iallreduce + Wait: 34-75 us without the thread, 90-240 with */
    if (on < 0) on = mpi_world_size <= sysconf(_SC_NPROCESSORS_ONLN);
    __atomic_store_n(&wanted, on != 0, __ATOMIC_RELAXED);
    return on != 0;
}

void mcoll_async_prepare(void)
{
    if (coll_async_running() || __atomic_load_n(&mpi_state, __ATOMIC_ACQUIRE) != 1) return;
    if (async_wanted()) (void)coll_async_start();
}

/* ---- the cache of blocking collectives' schedules -------------------------------------------- */

static void make_key(mcoll_t *m)
{
    const coll_args_t *a = &m->args;
    m->cacheable = !a->vform && !m->nw && ((!a->lay && !a->counts) || m->uniform);
    memset(&m->key, 0, sizeof m->key);
    m->key.kind = (int)a->kind;
    m->key.root = a->root;
    m->key.flags = a->inplace | a->exclusive << 1;
    m->key.count = a->count;
    m->key.mylen = a->mylen;
    m->key.t[0] = m->types[0];
    m->key.t[1] = m->types[1];
    if (a->op) {
        m->key.pre = m->op.plan.pre;
        m->key.ctype = m->op.plan.ctype;
        m->key.fn = m->op.plan.fn;
        m->key.fn_c = m->op.plan.fn_c;
        m->key.t[0] = m->op.plan.type;
    }
}

static bool same_key(const mcoll_key_t *a, const mcoll_key_t *b)
{
    return a->kind == b->kind && a->root == b->root && a->flags == b->flags &&
           a->count == b->count && a->mylen == b->mylen && a->t[0] == b->t[0] &&
           a->t[1] == b->t[1] && a->pre == b->pre && a->ctype == b->ctype && a->fn == b->fn &&
           a->fn_c == b->fn_c;
}

/* A cached object for m's call: m's buffers move into it, m goes. */
static mcoll_t *cache_take(mcoll_t *m)
{
    mcomm_t *c = m->comm;
    for (int i = 0; i < 8; i++) {
        mcoll_t *e = c->coll_cache[i];
        if (!e || !same_key(&e->key, &m->key)) continue;
        c->coll_cache[i] = NULL;
        for (int j = 0; j < 2; j++) {
            e->side[j] = m->side[j];
            m->side[j] = (mcoll_side_t){0};
        }
        mcoll_free(m);
        return e;
    }
    return NULL;
}

/* Keep m (idle) for the next call of its shape; the oldest goes. */
static void cache_put(mcoll_t *m)
{
    mcomm_t *c = m->comm;
    for (int j = 0; j < 2; j++) { /* per-call buffers */
        free(m->side[j].tmp);
        free(m->side[j].blk);
        m->side[j] = (mcoll_side_t){0};
    }
    mcoll_free(c->coll_cache[7]);
    memmove(&c->coll_cache[1], &c->coll_cache[0], 7 * sizeof c->coll_cache[0]);
    c->coll_cache[0] = m;
}

void mcoll_cache_drop(mcomm_t *c)
{
    for (int i = 0; i < 8; i++) {
        mcoll_free(c->coll_cache[i]);
        c->coll_cache[i] = NULL;
    }
}

void mcoll_fini(void)
{
    mcoll_cache_drop(mcomm_get(MPI_COMM_WORLD));
    mcoll_cache_drop(mcomm_get(MPI_COMM_SELF));
    while (npool) free(pool[--npool]);
}

static int start_nb(mcoll_t *m, MPI_Request *req, const char *fname)
{
    mcomm_t *c = m->comm;
    mreq_t *r = mreq_create(req);
    if (!r) {
        mcoll_free(m);
        return mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
    }
    *r = (mreq_t){.comm = c, .coll = m, .active = true};
    mcomm_retain(c);
    mreq_status_empty(&r->st);
    int err = mcoll_start(m);
    return err ? mpi_err(c, err, fname, NULL) : MPI_SUCCESS;
}

static int run_blocking(mcoll_t *m, const char *fname)
{
    mcomm_t *c = m->comm;
    int err = MPI_ERR_OTHER;
    pack_in(m);
    if (coll_run_start(m->run, m->seq, false, false) == SL_OK) err = mcoll_wait(m);
    if (m->cacheable && coll_run_done(m->run)) cache_put(m);
    else mcoll_free(m);
    return err ? mpi_err(c, err, fname, "the collective failed") : MPI_SUCCESS;
}

int mcoll_launch(mcoll_t *m, mcoll_mode_t mode, MPI_Request *req, const char *fname)
{
    mcomm_t *c = m->comm;
    int err = MPI_SUCCESS;
    coll_sched_t *s = NULL;
    m->args.nremote = c->inter ? c->remote_size : 0;
    make_key(m);
    if (c->inter) m->cacheable = false; /* the key does not say which role a rank has */
    if (mode != MCOLL_PERSISTENT && m->cacheable) {
        mcoll_t *e = cache_take(m);
        if (e) {
            e->seq = mcoll_next_seq(c, false);
            coll_run_bind(e->run, e->side[COLL_SBUF].stream, e->side[COLL_RBUF].stream);
            if (mode == MCOLL_BLOCKING) return run_blocking(e, fname);
            return start_nb(e, req, fname);
        }
    }
    m->seq = mcoll_next_seq(c, mode == MCOLL_PERSISTENT);
    m->run = NULL;
    const int *map = c->inter ? c->coll_map : mcomm_world_map(c);
    sl_status_t st = coll_build(&m->args, c->rank, c->size, map, &s);
    if (st == SL_OK) {
        st = coll_run_new(s, c->ctx | MCOMM_COLL_CTX, &m->run);
        coll_sched_release(s);
    }
    if (st != SL_OK) {
        mcoll_free(m);
        return mpi_err(c, st == SL_ERR_NOMEM ? MPI_ERR_NO_MEM : MPI_ERR_INTERN, fname,
                       "cannot build the collective's schedule");
    }
    coll_run_bind(m->run, m->side[COLL_SBUF].stream, m->side[COLL_RBUF].stream);
    coll_run_on_done(m->run, on_done, m);
    if (mode == MCOLL_BLOCKING) return run_blocking(m, fname);
    if (mode == MCOLL_NB) return start_nb(m, req, fname);
    mreq_t *r = mreq_create(req);
    if (!r) {
        mcoll_free(m);
        return mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
    }
    *r = (mreq_t){.comm = c, .coll = m, .persistent = true};
    mcomm_retain(c);
    m->persistent_req = true;
    mreq_status_empty(&r->st);
    (void)err;
    return MPI_SUCCESS;
}

/* The request of a completed non-blocking collective goes: its schedule
 * back to the cache. */
void mcoll_release(mcoll_t *m)
{
    if (m->cacheable && !m->persistent_req && !m->comm->freed && coll_run_done(m->run))
        cache_put(m);
    else mcoll_free(m);
}
