/* Communicators: MPI_COMM_WORLD (context 0), MPI_COMM_SELF (context 1) and
 * communicators made by MPI_Comm_dup/split (freed by MPI_Comm_free).
 *
 * Context ids are agreed by the members: every rank keeps a bitmap of the
 * ids it uses; creating a communicator ORs the members' bitmaps at rank 0 of
 * the parent (messages on the parent's collective context) and takes the
 * lowest id free everywhere.  A split uses one id for all its colours: the
 * groups are disjoint, so their messages can never meet. */
#include "mpi/handle.h"
#include "mpi/mcoll.h"
#include "mpi/mpi_int.h"
#include "mpi/request.h"
#include "p2p/p2p.h"

#include <stdlib.h>
#include <string.h>

#define CTX_WORDS ((MCOMM_MAX_CTX + 1) / 64)
#define TAG_CTX 100
#define TAG_SPLIT 101

static mcomm_t comm_world = {.refs = 1, .ctx = 0, .errh = MPI_ERRORS_ARE_FATAL, .handle = MPI_COMM_WORLD,
                             .name = "MPI_COMM_WORLD"};
static mcomm_t comm_self = {.refs = 1, .ctx = 1, .errh = MPI_ERRORS_ARE_FATAL, .handle = MPI_COMM_SELF,
                            .name = "MPI_COMM_SELF"};
static mh_table_t comm_table = MH_TABLE_INIT(MH_CLASS_COMM);
/* 0: world, 1: self; the last is MCOMM_BOOT_CTX, never handed out */
static uint64_t ctx_used[CTX_WORDS] = {3, [CTX_WORDS - 1] = 1ull << 63};

static bool ctx_sender_gone(unsigned ctx);

void mcomm_init_world(void)
{
    comm_world.rank = mpi_world_rank;
    comm_world.size = mpi_world_size;
    comm_self.rank = 0;
    comm_self.size = 1;
    comm_self.world_of_self = mpi_world_rank;
    p2p_set_any_gone_fn(ctx_sender_gone);
}

/* Read only: calls that take no lock (MPI_Pack, from any thread) use it. */
mcomm_t *mcomm_get(MPI_Comm c)
{
    if (c == MPI_COMM_WORLD) return &comm_world;
    if (c == MPI_COMM_SELF) return &comm_self;
    return MH_KIND(c) == MH_KIND_DYNAMIC ? mh_get(&comm_table, (uint32_t)c) : NULL;
}

int mcomm_world(const mcomm_t *c, int r)
{
    if (c == &comm_self) return c->world_of_self;
    return c->world_of ? c->world_of[r] : r;
}

const int *mcomm_world_map(const mcomm_t *c)
{
    return c == &comm_self ? &c->world_of_self : c->world_of;
}

/* The world -> rank map of a created communicator (world size entries,
 * MPI_UNDEFINED for non-members), built at its first use: every received
 * message's status asks, and a search of world_of costs the rank's position
 * per message.  Published with a compare-and-swap, since threads waiting
 * outside the library's lock may finish receives at once; NULL if out of
 * memory (the caller searches then). */
static const int *rank_map(const mcomm_t *c)
{
    int *m = __atomic_load_n(&((mcomm_t *)c)->rank_of, __ATOMIC_ACQUIRE);
    if (m || !(m = malloc((size_t)mpi_world_size * sizeof *m))) return m;
    for (int w = 0; w < mpi_world_size; w++) m[w] = MPI_UNDEFINED;
    for (int r = 0; r < mcomm_peers(c); r++) m[c->world_of[r]] = r; /* inter: the remote group */
    int *none = NULL;
    if (__atomic_compare_exchange_n(&((mcomm_t *)c)->rank_of, &none, m, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
        return m;
    free(m);
    return none;
}

int mcomm_rank_of(const mcomm_t *c, int w)
{
    if (c == &comm_self) return w == c->world_of_self ? 0 : MPI_UNDEFINED;
    if (!c->world_of) return w;
    if (w < 0 || w >= mpi_world_size) return MPI_UNDEFINED;
    const int *m = rank_map(c);
    if (m) return m[w];
    for (int r = 0; r < mcomm_peers(c); r++)
        if (c->world_of[r] == w) return r;
    return MPI_UNDEFINED;
}

int mcomm_local_world(const mcomm_t *c, int r)
{
    return c->inter ? c->local_of[r] : mcomm_world(c, r);
}

/* ---- agreement among the members of a parent communicator ---------------------------- */

/* Blocking exchange on the parent's collective context. */
sl_status_t mcomm_csend(const mcomm_t *c, int r, int tag, const void *buf, size_t len)
{
    p2p_req_t *q;
    sl_status_t st = p2p_isend(buf, len, mcomm_world(c, r), tag, c->ctx | MCOMM_COLL_CTX, &q);
    return st == SL_OK ? p2p_wait(q, NULL) : st;
}

sl_status_t mcomm_crecv(const mcomm_t *c, int r, int tag, void *buf, size_t len)
{
    p2p_req_t *q;
    sl_status_t st = p2p_irecv(buf, len, mcomm_world(c, r), tag, c->ctx | MCOMM_COLL_CTX, &q);
    return st == SL_OK ? p2p_wait(q, NULL) : st;
}

/* Rank 0 of c gathers len bytes from every member into all (c->size * len
 * bytes), and hands the result back to everyone (gather, then broadcast). */
sl_status_t mcomm_callgather(const mcomm_t *c, int tag, const void *mine, void *all,
                                  size_t len)
{
    sl_status_t st = SL_OK;
    if (c->rank != 0) {
        if ((st = mcomm_csend(c, 0, tag, mine, len)) != SL_OK) return st;
        return mcomm_crecv(c, 0, tag, all, len * (size_t)c->size);
    }
    memcpy(all, mine, len);
    for (int r = 1; r < c->size && st == SL_OK; r++)
        st = mcomm_crecv(c, r, tag, (char *)all + (size_t)r * len, len);
    for (int r = 1; r < c->size && st == SL_OK; r++)
        st = mcomm_csend(c, r, tag, all, len * (size_t)c->size);
    return st;
}

/* One agreement at a time per process: under MPI_THREAD_MULTIPLE two
 * threads may create communicators on different parents at once, and
 * their exchanges let the lock go; with both in flight they could agree on
 * the same id.  A round is therefore taken only while this rank holds the
 * token; a rank whose token is out says so instead of blocking (its other
 * agreement may need members that wait in this one), and the whole round
 * is tried again after a random pause. */
static bool ctx_token;

/* A random pause before round + 1, growing with the rounds (up to ~3 ms),
 * so that two agreements that keep colliding fall apart. */
static void mcomm_backoff(unsigned round)
{
    static unsigned seed;
    if (!seed) seed = (unsigned)mpi_world_rank * 2654435761u + 1u;
    seed = seed * 1103515245u + 12345u;
    unsigned span = 50u << (round < 6 ? round : 6);
    p2p_mt_sleep_us(10u + (seed >> 8) % span);
}

/* One round: the lowest context id no member of c uses (*found), or busy
 * when some member's token was out. */
static sl_status_t ctx_round(const mcomm_t *c, uint64_t *all, int *found, bool *busy)
{
    uint64_t mine[CTX_WORDS + 1];
    bool took = !ctx_token;
    ctx_token = true;
    memcpy(mine, ctx_used, sizeof ctx_used);
    mine[CTX_WORDS] = !took;
    sl_status_t st = mcomm_callgather(c, TAG_CTX, mine, all, sizeof mine);
    *busy = false;
    for (int r = 0; st == SL_OK && r < c->size; r++)
        *busy |= all[(size_t)r * (CTX_WORDS + 1) + CTX_WORDS] != 0;
    *found = -1;
    for (unsigned w = 0; st == SL_OK && !*busy && w < CTX_WORDS && *found < 0; w++) {
        uint64_t used = 0;
        for (int r = 0; r < c->size; r++) used |= all[(size_t)r * (CTX_WORDS + 1) + w];
        if (~used) *found = (int)(w * 64 + (unsigned)__builtin_ctzll(~used));
    }
    if (took) ctx_token = false; /* the caller marks the id used before it lets the lock go */
    return st;
}

/* The lowest context id no member of c uses, or -1. */
static int ctx_agree(const mcomm_t *c)
{
    uint64_t *all = malloc(sizeof(uint64_t) * (CTX_WORDS + 1) * (size_t)c->size);
    int found = -1;
    bool busy = true;
    for (unsigned round = 0; all && busy; round++) {
        if (ctx_round(c, all, &found, &busy) != SL_OK) break;
        if (busy) mcomm_backoff(round);
    }
    free(all);
    return busy ? -1 : found;
}

/* The dynamic communicators alive (made, not yet destroyed), newest first:
 * where ctx_sender_gone finds a context's group. */
static mcomm_t *live_head;

static void live_remove(mcomm_t *c)
{
    for (mcomm_t **p = &live_head; *p; p = &(*p)->live_next)
        if (*p == c) {
            *p = c->live_next;
            return;
        }
}

/* p2p asks, when peers have ended, whether a receive from MPI_ANY_SOURCE
 * on context ctx (user or collective) may wait for one of them: is a rank
 * it can receive from (the remote group of an intercommunicator) gone? */
static bool ctx_sender_gone(unsigned ctx)
{
    ctx &= ~MCOMM_COLL_CTX;
    if (ctx == comm_self.ctx) return false;
    const mcomm_t *c = ctx == comm_world.ctx ? &comm_world : NULL;
    for (const mcomm_t *l = live_head; !c && l; l = l->live_next)
        if (l->ctx == ctx) c = l;
    if (!c) return true; /* not ours (cannot happen): any rank might send */
    for (int r = 0; r < mcomm_peers(c); r++)
        if (p2p_peer_gone(mcomm_world(c, r))) return true;
    return false;
}

/* world_of and topo are taken over on success. */
static int comm_make(const mcomm_t *parent, int ctx, int size, int rank, int *world_of,
                     struct mtopo *topo, MPI_Comm *out)
{
    mcomm_t *c = calloc(1, sizeof *c);
    if (!c) return MPI_ERR_NO_MEM;
    *c = (mcomm_t){.rank = rank, .size = size, .ctx = (unsigned)ctx, .errh = parent->errh,
                   .world_of = world_of, .topo = topo, .refs = 1};
    c->handle = (MPI_Comm)mh_new(&comm_table, c);
    if (!c->handle) {
        free(c);
        return MPI_ERR_NO_MEM;
    }
    ctx_used[ctx / 64] |= 1ull << (ctx % 64);
    c->live_next = live_head;
    live_head = c;
    merrh_retain(c->errh); /* inherited from the parent */
    *out = c->handle;
    return MPI_SUCCESS;
}

int mcomm_agree_ctx(const mcomm_t *c)
{
    return mcomm_barrier(c) == SL_OK ? ctx_agree(c) : -1;
}

int mcomm_make(const mcomm_t *parent, int ctx, int size, int rank, int *world_of, MPI_Comm *out)
{
    return comm_make(parent, ctx, size, rank, world_of, NULL, out);
}

int mcomm_create(const mcomm_t *p, int *world_of, int n, int rank, struct mtopo *topo,
                 MPI_Comm *out)
{
    /* every member has arrived before any takes its token (as split's
     * colour exchange ensures): a token held while a member still did
     * something else first could keep that thing, and so the member,
     * from ever coming (another thread's agreement retrying for ever) */
    if (p->inter) return MPI_ERR_COMM; /* no topologies or group-made communicators from them */
    int ctx = mcomm_barrier(p) == SL_OK ? ctx_agree(p) : -1;
    if (ctx < 0) return MPI_ERR_OTHER;
    if (!world_of) {
        *out = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    return comm_make(p, ctx, n, rank, world_of, topo, out);
}

/* The last step of MPI_Comm_dup: the copy callbacks of p's attributes
 * (MPI 4.0 §7.7.2); when one fails the new communicator is freed again. */
static int comm_dup_attrs(mcomm_t *p, MPI_Comm made, MPI_Comm *newcomm)
{
    mcomm_t *c = mcomm_get(made);
    if (mattr_copy_all(p->handle, p->attrs, made, &c->attrs) != MPI_SUCCESS) {
        mh_free(&comm_table, (uint32_t)made);
        c->freed = true;
        mcomm_release(c);
        return mpi_err(p, MPI_ERR_OTHER, "MPI_Comm_dup", "an attribute copy callback failed");
    }
    *newcomm = made;
    return MPI_SUCCESS;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    MPI_CHECK_STATE("MPI_Comm_dup");
    mcomm_t *p = mcomm_get(comm);
    if (!p) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_dup", NULL);
    if (!newcomm) return mpi_err(p, MPI_ERR_ARG, "MPI_Comm_dup", "newcomm is NULL");
    if (p->inter) {
        MPI_Comm made;
        int ierr = minter_dup(p, &made);
        if (ierr) return mpi_err(p, ierr, "MPI_Comm_dup", "no context id agreed");
        return comm_dup_attrs(p, made, newcomm);
    }
    /* the copy keeps the topology (MPI 3.1 §6.4.2); the name is not copied */
    bool ok;
    struct mtopo *topo = mtopo_dup(p->topo, &ok);
    int *world_of = malloc(sizeof(int) * (size_t)p->size);
    int err = world_of && ok ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int r = 0; !err && r < p->size; r++) world_of[r] = mcomm_world(p, r);
    /* a rank short of memory still takes part in the agreement */
    MPI_Comm made;
    int cerr = mcomm_create(p, err ? NULL : world_of, p->size, p->rank, topo, &made);
    if (!err) err = cerr;
    if (err) {
        free(world_of);
        mtopo_free(topo);
        return mpi_err(p, err, "MPI_Comm_dup",
                       err == MPI_ERR_OTHER ? "no context id agreed" : NULL);
    }
    return comm_dup_attrs(p, made, newcomm);
}

/* MPI 4.0 §7.4.2: a blocking MPI_Comm_dup, then a request that is complete
 * already.  Correct, not overlapped: the members agree on the context id
 * inside the call, so each must call it before any returns (as every
 * collective in a correct program does, in the same order). */
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    MPI_CHECK_STATE("MPI_Comm_idup");
    mcomm_t *p = mcomm_get(comm);
    if (!p) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_idup", NULL);
    if (!request) return mpi_err(p, MPI_ERR_ARG, "MPI_Comm_idup", "request is NULL");
    MPI_Comm made;
    int err = MPI_Comm_dup(comm, &made);
    if (err) return err;
    if ((err = mreq_create_done(p, request)) != MPI_SUCCESS) {
        MPI_Comm_free(&made);
        return mpi_err(p, err, "MPI_Comm_idup", "out of request handles");
    }
    *newcomm = made;
    return MPI_SUCCESS;
}

int MPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    MPI_CHECK_STATE("MPI_Comm_test_inter");
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_test_inter", NULL);
    if (!flag) return mpi_err(c, MPI_ERR_ARG, "MPI_Comm_test_inter", "flag is NULL");
    *flag = c->inter;
    return MPI_SUCCESS;
}

/* Members of my colour ordered by (key, parent rank). */
static int split_members(const mcomm_t *p, const int *ck, int color, int *world_of, int *myrank)
{
    int n = 0;
    for (int r = 0; r < p->size; r++) {
        if (ck[2 * r] != color) continue;
        int at = n++;
        while (at > 0) { /* insertion by key; equal keys keep parent order */
            int prev = mcomm_rank_of(p, world_of[at - 1]);
            if (ck[2 * prev + 1] <= ck[2 * r + 1]) break;
            world_of[at] = world_of[at - 1];
            at--;
        }
        world_of[at] = mcomm_world(p, r);
    }
    for (int i = 0; i < n; i++)
        if (world_of[i] == mpi_world_rank) *myrank = i;
    return n;
}

int mcomm_split(const mcomm_t *p, int color, int key, struct mtopo *topo, MPI_Comm *out)
{
    if (p->inter) return MPI_ERR_COMM;
    int mine[2] = {color, key}, *ck = malloc(sizeof mine * (size_t)p->size);
    int *world_of = malloc(sizeof(int) * (size_t)p->size);
    int ctx = -1;
    if (ck && world_of && mcomm_callgather(p, TAG_SPLIT, mine, ck, sizeof mine) == SL_OK)
        ctx = ctx_agree(p);
    if (ctx < 0 || color == MPI_UNDEFINED) {
        free(ck);
        free(world_of);
        if (ctx < 0) return MPI_ERR_OTHER;
        mtopo_free(topo);
        *out = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    int myrank = 0, n = split_members(p, ck, color, world_of, &myrank);
    free(ck);
    int err = comm_make(p, ctx, n, myrank, world_of, topo, out);
    if (err) free(world_of);
    return err;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    MPI_CHECK_STATE("MPI_Comm_split");
    mcomm_t *p = mcomm_get(comm);
    if (!p) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_split", NULL);
    if (!newcomm) return mpi_err(p, MPI_ERR_ARG, "MPI_Comm_split", "newcomm is NULL");
    if (color < 0 && color != MPI_UNDEFINED)
        return mpi_err(p, MPI_ERR_ARG, "MPI_Comm_split", "negative color");
    int err = p->inter ? minter_split(p, color, key, newcomm)
                       : mcomm_split(p, color, key, NULL, newcomm);
    return err ? mpi_err(p, err, "MPI_Comm_split",
                         err == MPI_ERR_OTHER ? "members could not agree" : NULL)
               : MPI_SUCCESS;
}

/* MPI_COMM_TYPE_SHARED: the ranks that can share memory, which are the
 * ranks of one host.  The wire reaches peers by shared memory only (no
 * transport between hosts yet, and the boot layer has no notion of host),
 * so every rank of the job is on this host: one colour for all. */
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm *newcomm)
{
    MPI_CHECK_STATE("MPI_Comm_split_type");
    (void)info; /* no hints are understood */
    mcomm_t *p = mcomm_get(comm);
    if (!p) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_split_type", NULL);
    if (!newcomm) return mpi_err(p, MPI_ERR_ARG, "MPI_Comm_split_type", "newcomm is NULL");
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
        return mpi_err(p, MPI_ERR_ARG, "MPI_Comm_split_type", "unknown split_type");
    int color = split_type == MPI_UNDEFINED ? MPI_UNDEFINED : 0;
    int err = mcomm_split(p, color, key, NULL, newcomm);
    return err ? mpi_err(p, err, "MPI_Comm_split_type",
                         err == MPI_ERR_OTHER ? "members could not agree" : NULL)
               : MPI_SUCCESS;
}

void mcomm_destroy(mcomm_t *c)
{
    ctx_used[c->ctx / 64] &= ~(1ull << (c->ctx % 64));
    live_remove(c);
    mcoll_cache_drop(c);
    merrh_release(c->errh);
    mtopo_free(c->topo);
    free(c->world_of);
    free(c->rank_of);
    free(c->local_of);
    free(c->coll_map);
    free(c);
}

int MPI_Comm_free(MPI_Comm *comm)
{
    MPI_CHECK_STATE("MPI_Comm_free");
    mcomm_t *c = comm ? mcomm_get(*comm) : NULL;
    if (!c || c == &comm_world || c == &comm_self)
        return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_free", "not a freeable communicator");
    /* the delete callbacks first, while the communicator still works */
    if (mattr_delete_all(c->handle, &c->attrs) != MPI_SUCCESS)
        return mpi_err(c, MPI_ERR_OTHER, "MPI_Comm_free", "an attribute delete callback failed");
    mcoll_cache_drop(c);
    mh_free(&comm_table, (uint32_t)c->handle);
    c->freed = true;
    mcomm_release(c); /* the context id stays taken while requests on it are pending */
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    MPI_CHECK_STATE("MPI_Comm_rank");
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_rank", NULL);
    if (!rank) return mpi_err(c, MPI_ERR_ARG, "MPI_Comm_rank", "rank is NULL");
    *rank = c->rank;
    return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    MPI_CHECK_STATE("MPI_Comm_size");
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_size", NULL);
    if (!size) return mpi_err(c, MPI_ERR_ARG, "MPI_Comm_size", "size is NULL");
    *size = c->size;
    return MPI_SUCCESS;
}

/* Same members in the same order / in another order / not the same (n
 * world ranks each). */
static int group_relation(const int *a, const int *b, int n)
{
    bool same_order = true;
    for (int r = 0; r < n; r++) {
        bool found = false;
        for (int j = 0; j < n && !found; j++) found = a[r] == b[j];
        if (!found) return MPI_UNEQUAL;
        if (a[r] != b[r]) same_order = false;
    }
    return same_order ? MPI_CONGRUENT : MPI_SIMILAR;
}

static int *group_of(const mcomm_t *c, bool local, int *buf)
{
    int n = local ? c->size : mcomm_peers(c);
    for (int r = 0; r < n; r++) buf[r] = local ? mcomm_local_world(c, r) : mcomm_world(c, r);
    return buf;
}

/* Intercommunicators compare both groups (MPI 4.0 §7.4.1): the weaker of
 * the two relations; an intra- and an intercommunicator are unequal. */
static int comm_relation(const mcomm_t *a, const mcomm_t *b)
{
    if (a->size != b->size || a->inter != b->inter) return MPI_UNEQUAL;
    if (a->inter && a->remote_size != b->remote_size) return MPI_UNEQUAL;
    int n = a->size > mcomm_peers(a) ? a->size : mcomm_peers(a);
    int *x = malloc(sizeof(int) * (size_t)n), *y = malloc(sizeof(int) * (size_t)n);
    int rel = MPI_UNEQUAL;
    if (x && y) {
        rel = group_relation(group_of(a, true, x), group_of(b, true, y), a->size);
        if (a->inter && rel != MPI_UNEQUAL) {
            int rr = group_relation(group_of(a, false, x), group_of(b, false, y), a->remote_size);
            if (rr != MPI_CONGRUENT) rel = rr;
        }
    }
    free(x);
    free(y);
    return rel;
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    MPI_CHECK_STATE("MPI_Comm_compare");
    mcomm_t *a = mcomm_get(comm1), *b = mcomm_get(comm2);
    if (!a || !b) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_compare", NULL);
    if (!result) return mpi_err(a, MPI_ERR_ARG, "MPI_Comm_compare", "result is NULL");
    *result = a == b ? MPI_IDENT : comm_relation(a, b);
    return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    MPI_CHECK_STATE("MPI_Comm_set_errhandler");
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_set_errhandler", NULL);
    if (!merrh_valid(errhandler))
        return mpi_err(c, MPI_ERR_ARG, "MPI_Comm_set_errhandler", "unknown error handler");
    merrh_retain(errhandler);
    merrh_release(c->errh);
    c->errh = errhandler;
    return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    MPI_CHECK_STATE("MPI_Comm_get_errhandler");
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_get_errhandler", NULL);
    if (!errhandler) return mpi_err(c, MPI_ERR_ARG, "MPI_Comm_get_errhandler", NULL);
    merrh_retain(c->errh); /* a new reference, for MPI_Errhandler_free (MPI 3.1 §8.3.1) */
    *errhandler = c->errh;
    return MPI_SUCCESS;
}
