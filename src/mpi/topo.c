/* Virtual topologies (MPI 3.1 chapter 7): MPI_Dims_create, Cartesian,
 * graph and distributed graph communicators and their queries, and
 * MPI_Topo_test.
 *
 * A topology hangs off its communicator (mcomm_t.topo), is freed with it
 * and copied by MPI_Comm_dup.  reorder is accepted and ignored: rank i of
 * the new communicator is rank i of the old one, which MPI allows.  The
 * communicators are made by comm.c (mcomm_create, mcomm_split), so their
 * context ids are agreed like every other communicator's.  info arguments
 * are ignored (no hints are understood).
 *
 * MPI_Dist_graph_create is the one call here that exchanges data: every
 * process tells every other which of the edges it was given start or end
 * there.  It does so on the old communicator's collective context
 * (ctx | MCOMM_COLL_CTX) with tags TOPO_TAG_COUNT and TOPO_TAG_EDGES.
 * Tags [300, 400) of that context belong to this file; every other tag
 * there is the collectives' (comm.c 100-101, barrier.c's rounds, coll.c,
 * src/coll), so keep new exchanges here inside that range.
 *
 * Error classes are MPICH 4's where it checks: a negative ndims, a grid
 * larger than the communicator and other bad values are MPI_ERR_ARG, a
 * dims entry that does not fit MPI_ERR_DIMS, a communicator without the
 * topology a call needs MPI_ERR_TOPOLOGY, a rank outside the communicator
 * MPI_ERR_RANK.  Where MPICH does not check, Sluice does: MPI_Cart_create
 * refuses dimensions below 1 (MPI_ERR_DIMS). */
#include "mpi/mpi_int.h"
#include "p2p/p2p.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define TOPO_TAG_COUNT 300
#define TOPO_TAG_EDGES 301

/* One allocation: the header and its integer arrays in v[]. */
typedef struct mtopo {
    int kind; /* MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH */
    /* MPI_CART: dims = v, periods = v + ndims (0 or 1) */
    int ndims;
    /* MPI_GRAPH: index = v, edges = v + nnodes */
    int nnodes, nedges;
    /* MPI_DIST_GRAPH: sources = v, their weights v + indeg, destinations
     * v + 2 indeg, their weights v + 2 indeg + outdeg */
    int indeg, outdeg;
    bool weighted;
    int nv; /* ints in v */
    int v[];
} mtopo_t;

/* Sentinels of mpi.h: addresses only, never read or written. */
static int topo_unweighted, topo_weights_empty;
int *const MPI_UNWEIGHTED = &topo_unweighted;
int *const MPI_WEIGHTS_EMPTY = &topo_weights_empty;

static mtopo_t *topo_new(int kind, size_t nv)
{
    mtopo_t *t = calloc(1, sizeof *t + nv * sizeof(int));
    if (t) {
        t->kind = kind;
        t->nv = (int)nv;
    }
    return t;
}

mtopo_t *mtopo_dup(const mtopo_t *t, bool *ok)
{
    *ok = true;
    if (!t) return NULL;
    size_t len = sizeof *t + (size_t)t->nv * sizeof(int);
    mtopo_t *c = malloc(len);
    if (c) memcpy(c, t, len);
    *ok = c != NULL;
    return c;
}

void mtopo_free(mtopo_t *t)
{
    free(t);
}

/* The communicator of a handle and its topology of kind (0: any, which
 * may be NULL), or NULL after raising the error on it. */
static mcomm_t *topo_comm(MPI_Comm comm, int kind, const char *fname, int *err)
{
    mcomm_t *c = mcomm_get(comm);
    if (!c) {
        *err = mpi_err(NULL, MPI_ERR_COMM, fname, NULL);
        return NULL;
    }
    if (kind && (!c->topo || c->topo->kind != kind)) {
        *err = mpi_err(c, MPI_ERR_TOPOLOGY, fname,
                       kind == MPI_CART    ? "no Cartesian topology"
                       : kind == MPI_GRAPH ? "no graph topology"
                                           : "no distributed graph topology");
        return NULL;
    }
    return c;
}

/* The first n world ranks of p in rank order (malloc'd), or NULL. */
static int *topo_members(const mcomm_t *p, int n)
{
    int *w = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int r = 0; w && r < n; r++)
        w[r] = mcomm_world(p, r);
    return w;
}

/* Makes the communicator of the first n ranks of p with topology t (built
 * by the members; NULL elsewhere), or raises.  A member whose t is NULL
 * (out of memory) still takes part in the agreement. */
static int topo_create(const mcomm_t *p, int n, mtopo_t *t, const char *fname, MPI_Comm *out)
{
    bool member = p->rank < n;
    int *world_of = member && t ? topo_members(p, n) : NULL;
    int err = member && !world_of ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    MPI_Comm made;
    int cerr = mcomm_create(p, err ? NULL : world_of, n, p->rank, t, &made);
    if (!err) err = cerr;
    if (err) {
        free(world_of);
        mtopo_free(t);
        return mpi_err(p, err, fname, err == MPI_ERR_OTHER ? "members could not agree" : NULL);
    }
    *out = made;
    return MPI_SUCCESS;
}

/* ---- MPI_Dims_create ----------------------------------------------------------------- */

/* x^e >= lim, without overflow. */
static bool pow_reaches(long long x, int e, long long lim)
{
    long long p = 1;
    for (int i = 0; i < e; i++) {
        p *= x;
        if (p >= lim) return true;
    }
    return p >= lim;
}

/* The largest m with m^e <= x (x >= 1, e >= 1). */
static long long int_root(long long x, int e)
{
    long long lo = 1, hi = x;
    while (lo < hi) {
        long long mid = lo + (hi - lo + 1) / 2;
        if (pow_reaches(mid, e, x + 1))
            hi = mid - 1;
        else
            lo = mid;
    }
    return lo;
}

/* The search for k factors f0 >= f1 >= ... of a number with the smallest
 * f0 - f(k-1) (MPI: "as close to each other as possible"); among equally
 * close ones the first found, which has the smallest f0. */
typedef struct dims_search {
    const int *div; /* divisors of the number, ascending */
    int ndiv;
    int k;
    int *cur, *best;
    long long spread; /* best's, LLONG_MAX before one is found */
} dims_search_t;

static void dims_found(dims_search_t *s)
{
    long long spread = (long long)s->cur[0] - s->cur[s->k - 1];
    if (spread < s->spread) {
        s->spread = spread;
        memcpy(s->best, s->cur, sizeof(int) * (size_t)s->k);
    }
}

/* Positions d.. get factors of rem, each at most maxf. */
static void dims_step(dims_search_t *s, int d, int rem, int maxf)
{
    if (rem == 1) {
        for (int i = d; i < s->k; i++)
            s->cur[i] = 1;
        dims_found(s);
        return;
    }
    if (d == s->k - 1) {
        if (rem <= maxf) {
            s->cur[d] = rem;
            dims_found(s);
        }
        return;
    }
    int left = s->k - d; /* >= 2 */
    for (int i = 0; i < s->ndiv; i++) {
        int f = s->div[i];
        if (f > maxf || f > rem) break;
        if (rem % f || !pow_reaches(f, left, rem)) continue; /* the rest could not be <= f */
        /* the rest's smallest is at most the (left-1)th root of rem/f, so
         * the spread is at least top - that; it grows with f */
        long long top = d ? s->cur[0] : f;
        if (top - int_root(rem / f, left - 1) >= s->spread) break;
        s->cur[d] = f;
        dims_step(s, d + 1, rem / f, f);
    }
}

/* Splits n (>= 1) into k >= 1 factors, non-increasing, into out. */
static int dims_balance(int n, int k, int *out)
{
    int ndiv = 0, cap = 64, *div = malloc(sizeof(int) * (size_t)cap), *hi = NULL;
    int nhi = 0;
    int *cur = malloc(sizeof(int) * (size_t)k), *best = malloc(sizeof(int) * (size_t)k);
    int err = div && cur && best ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    /* divisors ascending: the small ones up to sqrt(n), then their partners */
    if (!err) hi = malloc(sizeof(int) * (size_t)cap);
    if (!hi) err = MPI_ERR_NO_MEM;
    for (long long f = 1; !err && f * f <= n; f++) {
        if (n % f) continue;
        if (ndiv == cap || nhi == cap) {
            cap *= 2;
            int *a = realloc(div, sizeof(int) * (size_t)cap),
                *b = a ? realloc(hi, sizeof(int) * (size_t)cap) : NULL;
            if (a) div = a;
            if (b) hi = b;
            if (!a || !b) err = MPI_ERR_NO_MEM;
            if (err) break;
        }
        div[ndiv++] = (int)f;
        if (f * f != n) hi[nhi++] = (int)(n / f);
    }
    if (!err) {
        int *all = realloc(div, sizeof(int) * (size_t)(ndiv + nhi));
        if (!all)
            err = MPI_ERR_NO_MEM;
        else
            div = all;
    }
    if (!err) {
        for (int i = nhi - 1; i >= 0; i--)
            div[ndiv++] = hi[i];
        dims_search_t s = {
            .div = div, .ndiv = ndiv, .k = k, .cur = cur, .best = best, .spread = LLONG_MAX};
        dims_step(&s, 0, n, n);
        memcpy(out, best, sizeof(int) * (size_t)k); /* n = n x 1 x ... always fits */
    }
    free(hi);
    free(div);
    free(cur);
    free(best);
    return err;
}

int MPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char fn[] = "MPI_Dims_create";
    MPI_CHECK_STATE(fn);
    if (ndims < 0) return mpi_err(NULL, MPI_ERR_ARG, fn, "negative ndims");
    if (ndims > 0 && !dims) return mpi_err(NULL, MPI_ERR_ARG, fn, "dims is NULL");
    if (nnodes <= 0) return mpi_err(NULL, MPI_ERR_ARG, fn, "nnodes is not positive");
    if (ndims == 0) return MPI_SUCCESS; /* nothing to fill (MPICH does not check nnodes) */
    long long fixed = 1;
    int nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0) return mpi_err(NULL, MPI_ERR_DIMS, fn, "negative entry in dims");
        if (dims[i] == 0)
            nfree++;
        else if ((fixed *= dims[i]) > nnodes)
            break;
    }
    if (nnodes % fixed || (nfree == 0 && fixed != nnodes))
        return mpi_err(NULL, MPI_ERR_DIMS, fn, "nnodes is not a multiple of the given dims");
    if (nfree == 0) return MPI_SUCCESS;
    int *f = malloc(sizeof(int) * (size_t)nfree);
    int err = f ? dims_balance((int)(nnodes / fixed), nfree, f) : MPI_ERR_NO_MEM;
    if (err) {
        free(f);
        return mpi_err(NULL, err, fn, NULL);
    }
    for (int i = 0, j = 0; i < ndims; i++)
        if (dims[i] == 0) dims[i] = f[j++];
    free(f);
    return MPI_SUCCESS;
}

/* ---- Cartesian topologies ------------------------------------------------------------ */

/* Coordinates of rank r (row-major: the last dimension varies fastest). */
static void cart_coords(const mtopo_t *t, int r, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = r % t->v[i];
        r /= t->v[i];
    }
}

static int cart_rank(const mtopo_t *t, const int *coords)
{
    int r = 0;
    for (int i = 0; i < t->ndims; i++)
        r = r * t->v[i] + coords[i];
    return r;
}

/* The ranks disp steps below and above rank along direction (MPI_PROC_NULL
 * past a non-periodic edge): ends[0] the source, ends[1] the destination
 * of MPI_Cart_shift.  coords: scratch of ndims ints. */
static void cart_shift(const mtopo_t *t, int rank, int direction, int disp, int *coords,
                       int ends[2])
{
    int d = t->v[direction];
    for (int k = 0; k < 2; k++) {
        cart_coords(t, rank, coords);
        long long x = (long long)coords[direction] + (k ? disp : -(long long)disp);
        if (t->v[t->ndims + direction]) x = (x % d + d) % d;
        if (x < 0 || x >= d) {
            ends[k] = MPI_PROC_NULL;
            continue;
        }
        coords[direction] = (int)x;
        ends[k] = cart_rank(t, coords);
    }
}

/* The points of a grid of ndims dims[] (each at least 1, MPI_ERR_DIMS),
 * no more than c has processes (MPI_ERR_ARG): Cart_create and Cart_map. */
static int grid_points(mcomm_t *c, int ndims, const int dims[], const char *fn, long long *n)
{
    *n = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0) return mpi_err(c, MPI_ERR_DIMS, fn, "a dimension is not positive");
        if ((*n *= dims[i]) > c->size)
            return mpi_err(c, MPI_ERR_ARG, fn, "more grid points than processes");
    }
    return MPI_SUCCESS;
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *comm_cart)
{
    static const char fn[] = "MPI_Cart_create";
    MPI_CHECK_STATE(fn);
    (void)reorder;
    int err;
    mcomm_t *p = topo_comm(comm_old, 0, fn, &err);
    if (!p) return err;
    if (!comm_cart) return mpi_err(p, MPI_ERR_ARG, fn, "comm_cart is NULL");
    if (ndims < 0) return mpi_err(p, MPI_ERR_ARG, fn, "negative ndims");
    if (ndims > 0 && (!dims || !periods))
        return mpi_err(p, MPI_ERR_ARG, fn, "dims or periods is NULL");
    long long n;
    if ((err = grid_points(p, ndims, dims, fn, &n))) return err;
    mtopo_t *t = NULL;
    if (p->rank < n && (t = topo_new(MPI_CART, 2 * (size_t)ndims))) {
        t->ndims = ndims;
        for (int i = 0; i < ndims; i++) {
            t->v[i] = dims[i];
            t->v[ndims + i] = periods[i] != 0;
        }
    }
    return topo_create(p, (int)n, t, fn, comm_cart);
}

int MPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    static const char fn[] = "MPI_Cartdim_get";
    MPI_CHECK_STATE(fn);
    int err;
    mcomm_t *c = topo_comm(comm, MPI_CART, fn, &err);
    if (!c) return err;
    if (!ndims) return mpi_err(c, MPI_ERR_ARG, fn, "ndims is NULL");
    *ndims = c->topo->ndims;
    return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    static const char fn[] = "MPI_Cart_get";
    MPI_CHECK_STATE(fn);
    int err;
    mcomm_t *c = topo_comm(comm, MPI_CART, fn, &err);
    if (!c) return err;
    const mtopo_t *t = c->topo;
    if (maxdims < t->ndims) return mpi_err(c, MPI_ERR_ARG, fn, "maxdims is below ndims");
    if (t->ndims > 0 && (!dims || !periods || !coords))
        return mpi_err(c, MPI_ERR_ARG, fn, "NULL array");
    memcpy(dims, t->v, sizeof(int) * (size_t)t->ndims);
    memcpy(periods, t->v + t->ndims, sizeof(int) * (size_t)t->ndims);
    cart_coords(t, c->rank, coords);
    return MPI_SUCCESS;
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    static const char fn[] = "MPI_Cart_coords";
    MPI_CHECK_STATE(fn);
    int err;
    mcomm_t *c = topo_comm(comm, MPI_CART, fn, &err);
    if (!c) return err;
    const mtopo_t *t = c->topo;
    if (rank < 0 || rank >= c->size) return mpi_err(c, MPI_ERR_RANK, fn, NULL);
    if (maxdims < t->ndims) return mpi_err(c, MPI_ERR_ARG, fn, "maxdims is below ndims");
    if (t->ndims > 0 && !coords) return mpi_err(c, MPI_ERR_ARG, fn, "coords is NULL");
    cart_coords(t, rank, coords);
    return MPI_SUCCESS;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    static const char fn[] = "MPI_Cart_rank";
    MPI_CHECK_STATE(fn);
    int err;
    mcomm_t *c = topo_comm(comm, MPI_CART, fn, &err);
    if (!c) return err;
    const mtopo_t *t = c->topo;
    if (!rank || (t->ndims > 0 && !coords)) return mpi_err(c, MPI_ERR_ARG, fn, "NULL argument");
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int d = t->v[i], x = coords[i];
        if (t->v[t->ndims + i])
            x = (x % d + d) % d; /* periodic: wraps */
        else if (x < 0 || x >= d)
            return mpi_err(c, MPI_ERR_ARG, fn, "coordinate outside a non-periodic dimension");
        r = r * d + x;
    }
    *rank = r;
    return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    static const char fn[] = "MPI_Cart_shift";
    MPI_CHECK_STATE(fn);
    int err;
    mcomm_t *c = topo_comm(comm, MPI_CART, fn, &err);
    if (!c) return err;
    const mtopo_t *t = c->topo;
    if (!rank_source || !rank_dest) return mpi_err(c, MPI_ERR_ARG, fn, "NULL argument");
    if (direction < 0 || direction >= t->ndims)
        return mpi_err(c, MPI_ERR_ARG, fn, "direction outside the dimensions");
    int *coords = malloc(sizeof(int) * (size_t)t->ndims), ends[2];
    if (!coords) return mpi_err(c, MPI_ERR_NO_MEM, fn, NULL);
    cart_shift(t, c->rank, direction, disp, coords, ends);
    free(coords);
    *rank_source = ends[0];
    *rank_dest = ends[1];
    return MPI_SUCCESS;
}

/* The processes that share the coordinates of the dropped dimensions form
 * one new communicator (a split coloured by those coordinates, keyed by the
 * old rank, so the kept coordinates keep their row-major order). */
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Cart_sub";
    MPI_CHECK_STATE(fn);
    int err;
    mcomm_t *c = topo_comm(comm, MPI_CART, fn, &err);
    if (!c) return err;
    const mtopo_t *t = c->topo;
    if (!newcomm || (t->ndims > 0 && !remain_dims))
        return mpi_err(c, MPI_ERR_ARG, fn, "NULL argument");
    int nd = 0;
    for (int i = 0; i < t->ndims; i++)
        nd += remain_dims[i] != 0;
    int *coords = malloc(sizeof(int) * (size_t)(t->ndims ? t->ndims : 1));
    mtopo_t *sub = coords ? topo_new(MPI_CART, 2 * (size_t)nd) : NULL;
    if (!sub) {
        free(coords);
        return mpi_err(c, MPI_ERR_NO_MEM, fn, NULL);
    }
    cart_coords(t, c->rank, coords);
    int color = 0;
    sub->ndims = nd;
    for (int i = 0, j = 0; i < t->ndims; i++) {
        if (!remain_dims[i]) {
            color = color * t->v[i] + coords[i];
            continue;
        }
        sub->v[j] = t->v[i];
        sub->v[nd + j] = t->v[t->ndims + i];
        j++;
    }
    free(coords);
    MPI_Comm made;
    err = mcomm_split(c, color, c->rank, sub, &made);
    if (err) {
        mtopo_free(sub);
        return mpi_err(c, err, fn, err == MPI_ERR_OTHER ? "members could not agree" : NULL);
    }
    *newcomm = made;
    return MPI_SUCCESS;
}

/* ---- graph topologies ---------------------------------------------------------------- */

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[],
                     int reorder, MPI_Comm *comm_graph)
{
    static const char fn[] = "MPI_Graph_create";
    MPI_CHECK_STATE(fn);
    (void)reorder;
    int err;
    mcomm_t *p = topo_comm(comm_old, 0, fn, &err);
    if (!p) return err;
    if (!comm_graph) return mpi_err(p, MPI_ERR_ARG, fn, "comm_graph is NULL");
    if (nnodes < 0 || nnodes > p->size)
        return mpi_err(p, MPI_ERR_ARG, fn, "nnodes outside 0..size");
    if (nnodes > 0 && !indx) return mpi_err(p, MPI_ERR_ARG, fn, "index is NULL");
    int nedges = nnodes > 0 ? indx[nnodes - 1] : 0;
    for (int i = 0; i < nnodes; i++)
        if (indx[i] < (i ? indx[i - 1] : 0))
            return mpi_err(p, MPI_ERR_ARG, fn, "index is not non-decreasing from 0");
    if (nedges > 0 && !edges) return mpi_err(p, MPI_ERR_ARG, fn, "edges is NULL");
    for (int i = 0; i < nedges; i++)
        if (edges[i] < 0 || edges[i] >= nnodes)
            return mpi_err(p, MPI_ERR_ARG, fn, "an edge leaves the graph");
    mtopo_t *t = NULL;
    if (p->rank < nnodes && (t = topo_new(MPI_GRAPH, (size_t)nnodes + (size_t)nedges))) {
        t->nnodes = nnodes;
        t->nedges = nedges;
        memcpy(t->v, indx, sizeof(int) * (size_t)nnodes);
        if (nedges) memcpy(t->v + nnodes, edges, sizeof(int) * (size_t)nedges);
    }
    return topo_create(p, nnodes, t, fn, comm_graph);
}

int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    static const char fn[] = "MPI_Graphdims_get";
    MPI_CHECK_STATE(fn);
    int err;
    mcomm_t *c = topo_comm(comm, MPI_GRAPH, fn, &err);
    if (!c) return err;
    if (!nnodes || !nedges) return mpi_err(c, MPI_ERR_ARG, fn, "NULL argument");
    *nnodes = c->topo->nnodes;
    *nedges = c->topo->nedges;
    return MPI_SUCCESS;
}

/* At most maxindex / maxedges entries are written (the arrays' sizes). */
int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[])
{
    static const char fn[] = "MPI_Graph_get";
    MPI_CHECK_STATE(fn);
    int err;
    mcomm_t *c = topo_comm(comm, MPI_GRAPH, fn, &err);
    if (!c) return err;
    const mtopo_t *t = c->topo;
    if (maxindex < 0 || maxedges < 0 || (maxindex > 0 && !indx) || (maxedges > 0 && !edges))
        return mpi_err(c, MPI_ERR_ARG, fn, "bad array size or NULL array");
    for (int i = 0; i < maxindex && i < t->nnodes; i++)
        indx[i] = t->v[i];
    for (int i = 0; i < maxedges && i < t->nedges; i++)
        edges[i] = t->v[t->nnodes + i];
    return MPI_SUCCESS;
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    static const char fn[] = "MPI_Graph_neighbors_count";
    MPI_CHECK_STATE(fn);
    int err;
    mcomm_t *c = topo_comm(comm, MPI_GRAPH, fn, &err);
    if (!c) return err;
    if (rank < 0 || rank >= c->topo->nnodes) return mpi_err(c, MPI_ERR_RANK, fn, NULL);
    if (!nneighbors) return mpi_err(c, MPI_ERR_ARG, fn, "nneighbors is NULL");
    const int *ix = c->topo->v;
    *nneighbors = ix[rank] - (rank ? ix[rank - 1] : 0);
    return MPI_SUCCESS;
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    static const char fn[] = "MPI_Graph_neighbors";
    MPI_CHECK_STATE(fn);
    int err;
    mcomm_t *c = topo_comm(comm, MPI_GRAPH, fn, &err);
    if (!c) return err;
    const mtopo_t *t = c->topo;
    if (rank < 0 || rank >= t->nnodes) return mpi_err(c, MPI_ERR_RANK, fn, NULL);
    if (maxneighbors < 0 || (maxneighbors > 0 && !neighbors))
        return mpi_err(c, MPI_ERR_ARG, fn, "bad maxneighbors or NULL neighbors");
    int from = rank ? t->v[rank - 1] : 0, to = t->v[rank];
    for (int i = from, j = 0; i < to && j < maxneighbors; i++, j++)
        neighbors[j] = t->v[t->nnodes + i];
    return MPI_SUCCESS;
}

/* ---- distributed graph topologies ---------------------------------------------------- */

static inline int *dg_sources(mtopo_t *t)
{
    return t->v;
}
static inline int *dg_sweights(mtopo_t *t)
{
    return t->v + t->indeg;
}
static inline int *dg_dests(mtopo_t *t)
{
    return t->v + 2 * t->indeg;
}
static inline int *dg_dweights(mtopo_t *t)
{
    return t->v + 2 * t->indeg + t->outdeg;
}

static mtopo_t *dg_new(int indeg, int outdeg, bool weighted)
{
    mtopo_t *t = topo_new(MPI_DIST_GRAPH, 2 * ((size_t)indeg + (size_t)outdeg));
    if (t) {
        t->indeg = indeg;
        t->outdeg = outdeg;
        t->weighted = weighted;
    }
    return t;
}

/* A weights argument for deg edges: MPI_UNWEIGHTED, or an array of deg
 * non-negative weights (MPI_WEIGHTS_EMPTY or anything when deg is 0). */
static bool dg_weights_ok(const int *w, int deg)
{
    if (w == MPI_UNWEIGHTED || deg == 0) return true;
    if (!w || w == MPI_WEIGHTS_EMPTY) return false;
    for (int i = 0; i < deg; i++)
        if (w[i] < 0) return false;
    return true;
}

static bool ranks_ok(const int *r, int n, int size)
{
    for (int i = 0; i < n; i++)
        if (r[i] < 0 || r[i] >= size) return false;
    return true;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm *comm_dist_graph)
{
    static const char fn[] = "MPI_Dist_graph_create_adjacent";
    MPI_CHECK_STATE(fn);
    (void)info;
    (void)reorder;
    int err;
    mcomm_t *p = topo_comm(comm_old, 0, fn, &err);
    if (!p) return err;
    if (!comm_dist_graph) return mpi_err(p, MPI_ERR_ARG, fn, "comm_dist_graph is NULL");
    if (indegree < 0 || outdegree < 0) return mpi_err(p, MPI_ERR_ARG, fn, "negative degree");
    if ((indegree > 0 && !sources) || (outdegree > 0 && !destinations))
        return mpi_err(p, MPI_ERR_ARG, fn, "sources or destinations is NULL");
    if (!ranks_ok(sources, indegree, p->size) || !ranks_ok(destinations, outdegree, p->size))
        return mpi_err(p, MPI_ERR_RANK, fn, "a neighbour is not in comm_old");
    bool wi = sourceweights != MPI_UNWEIGHTED, wo = destweights != MPI_UNWEIGHTED;
    if (wi != wo || !dg_weights_ok(sourceweights, indegree) ||
        !dg_weights_ok(destweights, outdegree))
        return mpi_err(p, MPI_ERR_ARG, fn, "bad weights");
    mtopo_t *t = dg_new(indegree, outdegree, wi);
    if (t) {
        if (indegree) memcpy(dg_sources(t), sources, sizeof(int) * (size_t)indegree);
        if (outdegree) memcpy(dg_dests(t), destinations, sizeof(int) * (size_t)outdegree);
        if (wi && indegree) memcpy(dg_sweights(t), sourceweights, sizeof(int) * (size_t)indegree);
        if (wo && outdegree) memcpy(dg_dweights(t), destweights, sizeof(int) * (size_t)outdegree);
    }
    return topo_create(p, p->size, t, fn, comm_dist_graph);
}

/* An edge as exchanged by MPI_Dist_graph_create: to the source process it
 * is an outgoing edge to peer, to the destination an incoming one. */
typedef struct dg_edge {
    int out; /* 1: outgoing from the receiver, 0: incoming */
    int peer;
    int weight;
} dg_edge_t;

/* Tells every rank of p the edges of mine (n) that touch it, and collects
 * the ones the others have for me, in order of the rank that declared them
 * (then their order there): *got (malloc'd), *ngot.  Collective over p.
 * Point-to-point on p's collective context, tags 300 and 301. */
static int dg_exchange(const mcomm_t *p, const dg_edge_t *mine, const int *to, int n,
                       dg_edge_t **got, int *ngot)
{
    int size = p->size;
    unsigned ctx = p->ctx | MCOMM_COLL_CTX;
    int *cnt = calloc((size_t)size * 2 + 1, sizeof(int)), *off = cnt ? cnt + size : NULL;
    dg_edge_t *out = malloc(sizeof *out * (size_t)(n > 0 ? n : 1));
    p2p_req_t **sreq = calloc((size_t)size * 2 + 1, sizeof *sreq);
    int *rcnt = calloc((size_t)size + 1, sizeof(int));
    dg_edge_t **rbuf = calloc((size_t)size + 1, sizeof *rbuf);
    int err = cnt && out && sreq && rcnt && rbuf ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    /* edges grouped by the rank they go to */
    for (int i = 0; !err && i < n; i++)
        cnt[to[i]]++;
    for (int r = 0, o = 0; !err && r < size; r++) {
        off[r] = o;
        o += cnt[r];
    }
    for (int i = 0; !err && i < n; i++)
        out[off[to[i]]++] = mine[i];
    for (int r = 0; !err && r < size; r++)
        off[r] -= cnt[r];
    /* sends: a count, then the edges (p2p_isend does not wait for the peer) */
    int ns = 0;
    for (int r = 0; !err && r < size; r++) {
        if (r == p->rank) continue;
        int w = mcomm_world(p, r);
        if (p2p_isend(&cnt[r], sizeof(int), w, TOPO_TAG_COUNT, ctx, &sreq[ns]) != SL_OK) {
            err = MPI_ERR_OTHER;
            break;
        }
        ns++;
        if (cnt[r] && p2p_isend(&out[off[r]], sizeof *out * (size_t)cnt[r], w, TOPO_TAG_EDGES, ctx,
                                &sreq[ns]) != SL_OK) {
            err = MPI_ERR_OTHER;
            break;
        }
        ns += cnt[r] != 0;
    }
    /* receives, rank by rank */
    size_t total = 0;
    for (int r = 0; !err && r < size; r++) {
        if (r == p->rank) {
            rcnt[r] = cnt ? cnt[r] : 0;
            total += (size_t)rcnt[r];
            continue;
        }
        int w = mcomm_world(p, r);
        p2p_req_t *q;
        p2p_status_t ps;
        if (p2p_irecv(&rcnt[r], sizeof(int), w, TOPO_TAG_COUNT, ctx, &q) != SL_OK ||
            p2p_wait(q, &ps) != SL_OK || ps.error != SL_OK || ps.bytes != sizeof(int) ||
            rcnt[r] < 0) {
            err = MPI_ERR_OTHER;
            break;
        }
        if (!rcnt[r]) continue;
        size_t len = sizeof(dg_edge_t) * (size_t)rcnt[r];
        if (!(rbuf[r] = malloc(len))) { /* the message still has to be taken */
            err = MPI_ERR_NO_MEM;
            break;
        }
        if (p2p_irecv(rbuf[r], len, w, TOPO_TAG_EDGES, ctx, &q) != SL_OK ||
            p2p_wait(q, &ps) != SL_OK || ps.error != SL_OK || ps.bytes != len) {
            err = MPI_ERR_OTHER;
            break;
        }
        total += (size_t)rcnt[r];
    }
    for (int i = 0; i < ns; i++)
        if (p2p_wait(sreq[i], NULL) != SL_OK && !err) err = MPI_ERR_OTHER;
    dg_edge_t *all = NULL;
    if (!err && !(all = malloc(sizeof *all * (total ? total : 1)))) err = MPI_ERR_NO_MEM;
    size_t k = 0;
    for (int r = 0; !err && r < size; r++) {
        const dg_edge_t *from = r == p->rank ? &out[off[r]] : rbuf[r];
        if (rcnt[r]) memcpy(&all[k], from, sizeof *all * (size_t)rcnt[r]);
        k += (size_t)rcnt[r];
    }
    for (int r = 0; rbuf && r < size; r++)
        free(rbuf[r]);
    free(rbuf);
    free(rcnt);
    free(sreq);
    free(out);
    free(cnt);
    if (err) {
        free(all);
        return err;
    }
    *got = all;
    *ngot = (int)k;
    return MPI_SUCCESS;
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm *comm_dist_graph)
{
    static const char fn[] = "MPI_Dist_graph_create";
    MPI_CHECK_STATE(fn);
    (void)info;
    (void)reorder;
    int err;
    mcomm_t *p = topo_comm(comm_old, 0, fn, &err);
    if (!p) return err;
    if (!comm_dist_graph) return mpi_err(p, MPI_ERR_ARG, fn, "comm_dist_graph is NULL");
    if (n < 0 || (n > 0 && (!sources || !degrees)))
        return mpi_err(p, MPI_ERR_ARG, fn, "bad n, sources or degrees");
    long long nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0) return mpi_err(p, MPI_ERR_ARG, fn, "negative degree");
        nedges += degrees[i];
    }
    if (nedges > INT_MAX / 2) return mpi_err(p, MPI_ERR_ARG, fn, "too many edges");
    if (nedges > 0 && !destinations) return mpi_err(p, MPI_ERR_ARG, fn, "destinations is NULL");
    if (!ranks_ok(sources, n, p->size) || !ranks_ok(destinations, (int)nedges, p->size))
        return mpi_err(p, MPI_ERR_RANK, fn, "a node is not in comm_old");
    bool weighted = weights != MPI_UNWEIGHTED;
    if (!dg_weights_ok(weights, (int)nedges)) return mpi_err(p, MPI_ERR_ARG, fn, "bad weights");
    /* each edge s -> d goes to s as outgoing and to d as incoming */
    dg_edge_t *mine = malloc(sizeof *mine * (size_t)(2 * nedges + 1));
    int *to = malloc(sizeof(int) * (size_t)(2 * nedges + 1));
    err = mine && to ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int i = 0, e = 0; !err && i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            int s = sources[i], d = destinations[e], w = weighted ? weights[e] : 1;
            mine[2 * e] = (dg_edge_t){.out = 1, .peer = d, .weight = w};
            to[2 * e] = s;
            mine[2 * e + 1] = (dg_edge_t){.out = 0, .peer = s, .weight = w};
            to[2 * e + 1] = d;
        }
    /* a rank short of memory still takes part, with no edges */
    dg_edge_t *got = NULL;
    int ngot = 0;
    int xerr = dg_exchange(p, mine, to, err ? 0 : (int)(2 * nedges), &got, &ngot);
    free(mine);
    free(to);
    if (!err) err = xerr;
    mtopo_t *t = NULL;
    if (!err) {
        int indeg = 0, outdeg = 0;
        for (int i = 0; i < ngot; i++) {
            if (got[i].out) outdeg++;
            else indeg++;
        }
        if ((t = dg_new(indeg, outdeg, weighted))) {
            for (int i = 0, a = 0, b = 0; i < ngot; i++) {
                if (got[i].out) {
                    dg_dests(t)[b] = got[i].peer;
                    dg_dweights(t)[b++] = got[i].weight;
                } else {
                    dg_sources(t)[a] = got[i].peer;
                    dg_sweights(t)[a++] = got[i].weight;
                }
            }
        }
    }
    free(got);
    if (err && err != MPI_ERR_NO_MEM) return mpi_err(p, err, fn, "the edge exchange failed");
    return topo_create(p, p->size, t, fn, comm_dist_graph);
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    static const char fn[] = "MPI_Dist_graph_neighbors_count";
    MPI_CHECK_STATE(fn);
    int err;
    mcomm_t *c = topo_comm(comm, MPI_DIST_GRAPH, fn, &err);
    if (!c) return err;
    if (!indegree || !outdegree || !weighted) return mpi_err(c, MPI_ERR_ARG, fn, "NULL argument");
    *indegree = c->topo->indeg;
    *outdegree = c->topo->outdeg;
    *weighted = c->topo->weighted;
    return MPI_SUCCESS;
}

/* At most maxindegree / maxoutdegree entries are written; weights only
 * for a weighted graph and when the array is not MPI_UNWEIGHTED. */
int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[])
{
    static const char fn[] = "MPI_Dist_graph_neighbors";
    MPI_CHECK_STATE(fn);
    int err;
    mcomm_t *c = topo_comm(comm, MPI_DIST_GRAPH, fn, &err);
    if (!c) return err;
    mtopo_t *t = c->topo;
    int nin = maxindegree < t->indeg ? maxindegree : t->indeg;
    int nout = maxoutdegree < t->outdeg ? maxoutdegree : t->outdeg;
    bool win = t->weighted && sourceweights != MPI_UNWEIGHTED && nin > 0;
    bool wout = t->weighted && destweights != MPI_UNWEIGHTED && nout > 0;
    if (maxindegree < 0 || maxoutdegree < 0 || (nin > 0 && !sources) ||
        (nout > 0 && !destinations) ||
        (win && (!sourceweights || sourceweights == MPI_WEIGHTS_EMPTY)) ||
        (wout && (!destweights || destweights == MPI_WEIGHTS_EMPTY)))
        return mpi_err(c, MPI_ERR_ARG, fn, "bad array size or NULL array");
    if (nin > 0) memcpy(sources, dg_sources(t), sizeof(int) * (size_t)nin);
    if (nout > 0) memcpy(destinations, dg_dests(t), sizeof(int) * (size_t)nout);
    if (win) memcpy(sourceweights, dg_sweights(t), sizeof(int) * (size_t)nin);
    if (wout) memcpy(destweights, dg_dweights(t), sizeof(int) * (size_t)nout);
    return MPI_SUCCESS;
}

int MPI_Topo_test(MPI_Comm comm, int *status)
{
    static const char fn[] = "MPI_Topo_test";
    MPI_CHECK_STATE(fn);
    int err;
    mcomm_t *c = topo_comm(comm, 0, fn, &err);
    if (!c) return err;
    if (!status) return mpi_err(c, MPI_ERR_ARG, fn, "status is NULL");
    *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ---- neighbourhoods (the neighbour collectives, coll_nbr.c) ------------------------------- */

/* In and out neighbours of c's rank in the order MPI 3.1 §7.6 gives them:
 * Cartesian: for each dimension the -1 then the +1 neighbour of
 * MPI_Cart_shift (MPI_PROC_NULL at a non-periodic edge), both lists the
 * same; graph: MPI_Graph_neighbors, both lists; distributed graph: sources
 * and destinations.  Each tag tells the k-th message between a pair from
 * the others: Cartesian, the send to position k is tagged k and the
 * receive from position k expects k ^ 1 (what that neighbour sent the
 * other way); otherwise the j-th edge to (or from) the same peer is
 * tagged j.  Arrays are malloc'd (the caller frees them); MPI_ERR_TOPOLOGY
 * without a topology. */
int mtopo_neighbors(const mcomm_t *c, mtopo_nbrs_t *nb)
{
    const mtopo_t *t = c->topo;
    memset(nb, 0, sizeof *nb);
    if (!t) return MPI_ERR_TOPOLOGY;
    int nin, nout;
    const int *in, *out;
    int *cart = NULL;
    if (t->kind == MPI_CART) {
        nin = nout = 2 * t->ndims;
        cart = malloc(sizeof(int) * (size_t)(nin ? nin : 1) + sizeof(int) * (size_t)(t->ndims + 1));
        if (!cart) return MPI_ERR_NO_MEM;
        for (int d = 0; d < t->ndims; d++) cart_shift(t, c->rank, d, 1, cart + nin, cart + 2 * d);
        in = out = cart;
    } else if (t->kind == MPI_GRAPH) {
        int lo = c->rank ? t->v[c->rank - 1] : 0;
        nin = nout = t->v[c->rank] - lo;
        in = out = t->v + t->nnodes + lo;
    } else {
        nin = t->indeg;
        nout = t->outdeg;
        in = t->v;
        out = t->v + 2 * t->indeg;
    }
    nb->nin = nin;
    nb->nout = nout;
    nb->in = malloc(sizeof(int) * (size_t)(2 * (nin + nout) + 1));
    if (!nb->in) {
        free(cart);
        return MPI_ERR_NO_MEM;
    }
    nb->out = nb->in + nin;
    nb->intag = nb->out + nout;
    nb->outtag = nb->intag + nin;
    for (int i = 0; i < nin; i++) {
        nb->in[i] = in[i];
        int j = 0;
        for (int k = 0; k < i; k++) j += in[k] == in[i];
        nb->intag[i] = cart ? (i ^ 1) : j;
    }
    for (int i = 0; i < nout; i++) {
        nb->out[i] = out[i];
        int j = 0;
        for (int k = 0; k < i; k++) j += out[k] == out[i];
        nb->outtag[i] = cart ? i : j;
    }
    free(cart);
    return MPI_SUCCESS;
}

/* ---- mapping (MPI 4.0 §8.5.7): Sluice never reorders, so the process
 * keeps its rank when the topology has room for it ---- */

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    MPI_CHECK_STATE("MPI_Cart_map");
    (void)periods;
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Cart_map", NULL);
    if (ndims < 0 || (ndims > 0 && !dims) || !newrank)
        return mpi_err(c, MPI_ERR_ARG, "MPI_Cart_map", NULL);
    long long n;
    int err = grid_points(c, ndims, dims, "MPI_Cart_map", &n);
    if (err) return err;
    *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[], int *newrank)
{
    MPI_CHECK_STATE("MPI_Graph_map");
    (void)edges;
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Graph_map", NULL);
    if (nnodes < 0 || nnodes > c->size || (nnodes > 0 && !indx) || !newrank)
        return mpi_err(c, MPI_ERR_ARG, "MPI_Graph_map", NULL);
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
