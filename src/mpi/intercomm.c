/* Intercommunicators (MPI 4.0 §7.6): MPI_Intercomm_create, _merge,
 * MPI_Comm_remote_size/remote_group, and the dup and split of an
 * intercommunicator (MPI_Comm_dup/split call minter_dup/minter_split).
 *
 * An intercommunicator is an mcomm_t whose world_of maps the remote group
 * (what point-to-point ranks name) and local_of the local group (mpi_int.h).
 * Both groups use one context id, free at every member of both: a message
 * on it comes either from the remote group (user traffic, inter-group
 * collective steps) or from the own group (the local steps of a collective
 * schedule), and its source tells which.  Collectives run on the
 * collective context (ctx | MCOMM_COLL_CTX) as on intracommunicators
 * (inter_coll.c, src/coll/gen_inter.c).
 *
 * Agreements (sequence 0 of the collective context, as comm.c's): the
 * members of both groups form a temporary "union view" (an mcomm_t on the
 * stack, never a handle) and run comm.c's barrier and context-id agreement
 * over it.  Intercomm_create has no context that all members share yet:
 * its union view runs on MCOMM_BOOT_CTX, a context id reserved for this.
 * Creations by overlapping sets of processes must therefore not run
 * concurrently from several threads (MPI orders them within a thread). */
#include "mpi/mcoll.h"
#include "mpi/mpi_int.h"
#include "p2p/p2p.h"

#include <stdlib.h>
#include <string.h>

/* Sequence-0 tags of the collective context (comm.c uses 100, 101, topo.c
 * 300, 301, barrier.c's rounds are below 64). */
#define TAG_MAP 111   /* leader -> local members: the remote group */
#define TAG_HIGH 112  /* merge: the leaders' `high` */
#define TAG_SPLIT 113 /* split: everyone's colour and key */
#define TAG_HELLO 4096 /* + (tag & 4095): Intercomm_create's leaders on the peer communicator */

/* A group of processes for the agreement steps, on context ctx. */
static mcomm_t view(int rank, int size, int *world_of, unsigned ctx, MPI_Errhandler errh)
{
    return (mcomm_t){.rank = rank, .size = size, .world_of = world_of, .ctx = ctx, .errh = errh,
                     .refs = 1};
}

/* Send and receive at once with world rank w on collective context ctx. */
static sl_status_t swap(int w, unsigned ctx, int tag, const void *out, size_t olen, void *in,
                        size_t ilen)
{
    p2p_req_t *r, *s;
    sl_status_t st = p2p_irecv(in, ilen, w, tag, ctx | MCOMM_COLL_CTX, &r);
    if (st != SL_OK) return st;
    if ((st = p2p_isend(out, olen, w, tag, ctx | MCOMM_COLL_CTX, &s)) != SL_OK) {
        p2p_cancel(r);
        p2p_wait(r, NULL);
        return st;
    }
    sl_status_t a = p2p_wait(s, NULL), b = p2p_wait(r, NULL);
    return a != SL_OK ? a : b;
}

/* The leader hands len bytes to every other member of the group c. */
static sl_status_t group_bcast(const mcomm_t *c, int leader, int tag, void *buf, size_t len)
{
    sl_status_t st = SL_OK;
    if (c->rank != leader) return mcomm_crecv(c, leader, tag, buf, len);
    for (int r = 0; r < c->size && st == SL_OK; r++)
        if (r != leader) st = mcomm_csend(c, r, tag, buf, len);
    return st;
}

/* A new intercommunicator on context ctx: local group local_of (nl, my
 * rank rank), remote group remote_of (nr); both taken over on success. */
static int inter_make(const mcomm_t *parent, int ctx, int nl, int rank, int *local_of, int nr,
                      int *remote_of, MPI_Comm *out)
{
    int *map = malloc(sizeof(int) * (size_t)(nl + nr));
    if (!map) return MPI_ERR_NO_MEM;
    memcpy(map, local_of, sizeof(int) * (size_t)nl);
    memcpy(map + nl, remote_of, sizeof(int) * (size_t)nr);
    MPI_Comm h;
    int err = mcomm_make(parent, ctx, nl, rank, remote_of, &h);
    if (err) {
        free(map);
        return err;
    }
    mcomm_t *c = mcomm_get(h);
    c->inter = true;
    c->remote_size = nr;
    c->local_of = local_of;
    c->coll_map = map;
    *out = h;
    return MPI_SUCCESS;
}

/* Both groups in one list, c's local group first when local_first (malloc'd),
 * and my place in it. */
static int *union_of(const mcomm_t *c, bool local_first, int *myrank)
{
    int nl = c->size, nr = c->remote_size;
    int *w = malloc(sizeof(int) * (size_t)(nl + nr));
    if (!w) return NULL;
    memcpy(w + (local_first ? 0 : nr), c->local_of, sizeof(int) * (size_t)nl);
    memcpy(w + (local_first ? nl : 0), c->world_of, sizeof(int) * (size_t)nr);
    *myrank = local_first ? c->rank : nr + c->rank;
    return w;
}

/* The order both groups agree on when nothing else decides: the group
 * with the lower world rank at its rank 0 first. */
static bool local_is_low(const mcomm_t *c)
{
    return c->local_of[0] < c->world_of[0];
}

static int *dup_ints(const int *a, int n)
{
    int *b = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (b && n) memcpy(b, a, sizeof(int) * (size_t)n);
    return b;
}

/* ---- MPI_Intercomm_create ------------------------------------------------------------------- */

/* The leader learns the remote group from the remote leader (over the peer
 * communicator) and hands it to its group: *nr and *remote (malloc'd). */
static int learn_remote(const mcomm_t *lc, int leader, const mcomm_t *pc, int rleader, int tag,
                        const int *local_of, int *nr, int **remote)
{
    int n = 0;
    sl_status_t st = SL_OK;
    if (lc->rank == leader) {
        int w = mcomm_world(pc, rleader), nl = lc->size;
        st = swap(w, pc->ctx, TAG_HELLO + (tag & 4095), &nl, sizeof nl, &n, sizeof n);
        if (st == SL_OK && n <= 0) st = SL_ERR_PROTO;
        if (st == SL_OK && !(*remote = malloc(sizeof(int) * (size_t)n))) st = SL_ERR_NOMEM;
        if (st == SL_OK)
            st = swap(w, pc->ctx, TAG_HELLO + (tag & 4095), local_of, sizeof(int) * (size_t)nl,
                      *remote, sizeof(int) * (size_t)n);
        int announce = st == SL_OK ? n : -1; /* the members must not wait for a map that never comes */
        sl_status_t b = group_bcast(lc, leader, TAG_MAP, &announce, sizeof announce);
        if (st == SL_OK && announce > 0) st = group_bcast(lc, leader, TAG_MAP, *remote, sizeof(int) * (size_t)n);
        if (st == SL_OK) st = b;
    } else {
        st = group_bcast(lc, leader, TAG_MAP, &n, sizeof n);
        if (st == SL_OK && n <= 0) st = SL_ERR_PROTO;
        if (st == SL_OK && !(*remote = malloc(sizeof(int) * (size_t)n))) st = SL_ERR_NOMEM;
        if (st == SL_OK) st = group_bcast(lc, leader, TAG_MAP, *remote, sizeof(int) * (size_t)n);
    }
    if (st != SL_OK) {
        free(*remote);
        *remote = NULL;
        return st == SL_ERR_NOMEM ? MPI_ERR_NO_MEM : MPI_ERR_OTHER;
    }
    *nr = n;
    return MPI_SUCCESS;
}

/* Both groups agree on a context id over MCOMM_BOOT_CTX. */
static int create_agree(const int *local_of, int nl, int rank, const int *remote, int nr, int *ctx)
{
    bool local_first = local_of[0] < remote[0];
    int n = nl + nr, *w = malloc(sizeof(int) * (size_t)n);
    if (!w) return MPI_ERR_NO_MEM;
    memcpy(w + (local_first ? 0 : nr), local_of, sizeof(int) * (size_t)nl);
    memcpy(w + (local_first ? nl : 0), remote, sizeof(int) * (size_t)nr);
    mcomm_t u = view(local_first ? rank : nr + rank, n, w, MCOMM_BOOT_CTX, MPI_ERRORS_RETURN);
    *ctx = mcomm_agree_ctx(&u);
    free(w);
    return *ctx < 0 ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int overlap(const int *a, int na, const int *b, int nb)
{
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            if (a[i] == b[j]) return 1;
    return 0;
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm)
{
    static const char fn[] = "MPI_Intercomm_create";
    MPI_CHECK_STATE(fn);
    mcomm_t *lc = mcomm_get(local_comm), *pc = NULL;
    if (!lc || lc->inter) return mpi_err(lc, MPI_ERR_COMM, fn, "local_comm is not an intracommunicator");
    if (!newintercomm) return mpi_err(lc, MPI_ERR_ARG, fn, "newintercomm is NULL");
    if (local_leader < 0 || local_leader >= lc->size)
        return mpi_err(lc, MPI_ERR_RANK, fn, "local_leader out of range");
    if (lc->rank == local_leader) { /* peer_comm and remote_leader matter at the leader only */
        if (!(pc = mcomm_get(peer_comm))) return mpi_err(lc, MPI_ERR_COMM, fn, "bad peer_comm");
        if (remote_leader < 0 || remote_leader >= mcomm_peers(pc))
            return mpi_err(lc, MPI_ERR_RANK, fn, "remote_leader out of range");
        if (tag < 0 || tag > P2P_TAG_MAX) return mpi_err(lc, MPI_ERR_TAG, fn, NULL);
    }
    int nl = lc->size, nr = 0, *remote = NULL, ctx = -1;
    int *local_of = malloc(sizeof(int) * (size_t)nl);
    if (!local_of) return mpi_err(lc, MPI_ERR_NO_MEM, fn, NULL);
    for (int r = 0; r < nl; r++) local_of[r] = mcomm_world(lc, r);
    int err = learn_remote(lc, local_leader, pc, remote_leader, tag, local_of, &nr, &remote);
    /* both groups say so; MPI names no class, MPICH's is MPI_ERR_RANK (the
     * remote leader names a member of the local group, or groups share one) */
    if (!err && overlap(local_of, nl, remote, nr)) err = MPI_ERR_RANK;
    if (!err) err = create_agree(local_of, nl, lc->rank, remote, nr, &ctx);
    if (!err) err = inter_make(lc, ctx, nl, lc->rank, local_of, nr, remote, newintercomm);
    if (err) {
        free(local_of);
        free(remote);
        return mpi_err(lc, err, fn,
                       err == MPI_ERR_RANK ? "the groups overlap" : "the groups could not agree");
    }
    return MPI_SUCCESS;
}

/* ---- queries -------------------------------------------------------------------------------- */

static int get_inter(MPI_Comm comm, mcomm_t **c, const char *fn)
{
    if (!(*c = mcomm_get(comm))) return mpi_err(NULL, MPI_ERR_COMM, fn, NULL);
    if (!(*c)->inter) return mpi_err(*c, MPI_ERR_COMM, fn, "not an intercommunicator");
    return MPI_SUCCESS;
}

int MPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    MPI_CHECK_STATE("MPI_Comm_remote_size");
    mcomm_t *c;
    int err = get_inter(comm, &c, "MPI_Comm_remote_size");
    if (err) return err;
    if (!size) return mpi_err(c, MPI_ERR_ARG, "MPI_Comm_remote_size", "size is NULL");
    *size = c->remote_size;
    return MPI_SUCCESS;
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    MPI_CHECK_STATE("MPI_Comm_remote_group");
    mcomm_t *c;
    int err = get_inter(comm, &c, "MPI_Comm_remote_group");
    if (err) return err;
    if (!group) return mpi_err(c, MPI_ERR_ARG, "MPI_Comm_remote_group", "group is NULL");
    int *w = dup_ints(c->world_of, c->remote_size);
    MPI_Group g = w ? mgroup_of(w, c->remote_size) : 0;
    if (!g) return mpi_err(c, MPI_ERR_NO_MEM, "MPI_Comm_remote_group", NULL);
    *group = g;
    return MPI_SUCCESS;
}

/* ---- merge ---------------------------------------------------------------------------------- */

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    static const char fn[] = "MPI_Intercomm_merge";
    MPI_CHECK_STATE(fn);
    mcomm_t *c;
    int err = get_inter(intercomm, &c, fn);
    if (err) return err;
    if (!newintracomm) return mpi_err(c, MPI_ERR_ARG, fn, "newintracomm is NULL");
    /* the leaders swap their group's `high`, then tell their members */
    int mine = high != 0, theirs = 0;
    mcomm_t lv = view(c->rank, c->size, c->local_of, c->ctx, c->errh);
    sl_status_t st = SL_OK;
    if (c->rank == 0) st = swap(c->world_of[0], c->ctx, TAG_HIGH, &mine, sizeof mine, &theirs, sizeof theirs);
    if (st == SL_OK) st = group_bcast(&lv, 0, TAG_HIGH, &theirs, sizeof theirs);
    if (st != SL_OK) return mpi_err(c, MPI_ERR_OTHER, fn, "the leaders could not agree");
    /* MPI 4.0 §7.6.2: the group with high false first; equal: either order,
     * the same on both sides */
    bool local_first = mine != theirs ? !mine : local_is_low(c);
    int myrank, *w = union_of(c, local_first, &myrank);
    if (!w) return mpi_err(c, MPI_ERR_NO_MEM, fn, NULL);
    mcomm_t u = view(myrank, c->size + c->remote_size, w, c->ctx, c->errh);
    if ((err = mcomm_create(&u, w, u.size, myrank, NULL, newintracomm))) {
        free(w);
        return mpi_err(c, err, fn, "no context id agreed");
    }
    return MPI_SUCCESS;
}

/* ---- dup and split (from comm.c) ------------------------------------------------------------ */

int minter_dup(mcomm_t *c, MPI_Comm *out)
{
    int myrank, *w = union_of(c, local_is_low(c), &myrank);
    if (!w) return MPI_ERR_NO_MEM;
    mcomm_t u = view(myrank, c->size + c->remote_size, w, c->ctx, c->errh);
    int ctx = mcomm_agree_ctx(&u);
    free(w);
    if (ctx < 0) return MPI_ERR_OTHER;
    int *lo = dup_ints(c->local_of, c->size), *ro = dup_ints(c->world_of, c->remote_size);
    int err = lo && ro ? inter_make(c, ctx, c->size, c->rank, lo, c->remote_size, ro, out)
                       : MPI_ERR_NO_MEM;
    if (err) {
        free(lo);
        free(ro);
    }
    return err;
}

/* The members of colour among n entries of (colour, key) pairs ck[first..],
 * ordered by key then rank: their world ranks (from w[first..]) into out;
 * returns how many, and my place among them in *me (when mine). */
static int members(const int *ck, const int *w, int first, int n, int color, int *out, int self, int *me)
{
    int m = 0;
    for (int i = first; i < first + n; i++) {
        if (ck[2 * i] != color) continue;
        int at = m++;
        while (at > 0 && ck[2 * out[at - 1] + 1] > ck[2 * i + 1]) {
            out[at] = out[at - 1];
            at--;
        }
        out[at] = i; /* indices first, world ranks below */
    }
    for (int j = 0; j < m; j++) {
        if (out[j] == self) *me = j;
        out[j] = w[out[j]];
    }
    return m;
}

int minter_split(mcomm_t *c, int color, int key, MPI_Comm *out)
{
    bool lf = local_is_low(c);
    int myrank, n = c->size + c->remote_size, *w = union_of(c, lf, &myrank);
    int mine[2] = {color, key}, *ck = malloc(sizeof mine * (size_t)n);
    int *lo = malloc(sizeof(int) * (size_t)c->size), *ro = malloc(sizeof(int) * (size_t)c->remote_size);
    int ctx = -1, err = MPI_ERR_NO_MEM;
    if (w && ck && lo && ro) {
        mcomm_t u = view(myrank, n, w, c->ctx, c->errh);
        err = mcomm_callgather(&u, TAG_SPLIT, mine, ck, sizeof mine) == SL_OK &&
                      (ctx = mcomm_agree_ctx(&u)) >= 0
                  ? MPI_SUCCESS
                  : MPI_ERR_OTHER;
    }
    int nl = 0, nr = 0, me = 0;
    if (!err && color != MPI_UNDEFINED) {
        int lfirst = lf ? 0 : c->remote_size, rfirst = lf ? c->size : 0;
        nl = members(ck, w, lfirst, c->size, color, lo, myrank, &me);
        nr = members(ck, w, rfirst, c->remote_size, color, ro, -1, &me);
    }
    free(w);
    free(ck);
    if (!err && nr > 0) err = inter_make(c, ctx, nl, me, lo, nr, ro, out);
    else if (!err) *out = MPI_COMM_NULL; /* MPI_UNDEFINED, or no one of my colour over there */
    if (err || nr == 0) {
        free(lo);
        free(ro);
    }
    return err;
}
