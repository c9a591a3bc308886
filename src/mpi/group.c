/* Process groups: MPI_Comm_group and the group queries (size, rank,
 * translate_ranks, compare) and MPI_Group_free; the constructors (incl,
 * excl, range_incl, range_excl, union, intersection, difference; an empty
 * result is MPI_GROUP_EMPTY) and the communicators made from groups
 * (MPI_Comm_create, MPI_Comm_create_group).  A group is the list of
 * its members' world ranks in group order; MPI_GROUP_EMPTY is a static
 * empty group.  Errors are raised on MPI_COMM_WORLD (no communicator is
 * involved). */
#include "mpi/handle.h"
#include "mpi/mpi_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct mgroup {
    int size;
    int rank;      /* mine, or MPI_UNDEFINED */
    int *world_of; /* world rank of each member */
} mgroup_t;

static mgroup_t mgroup_empty = {.size = 0, .rank = MPI_UNDEFINED};
static mh_table_t mgroup_table = MH_TABLE_INIT(MH_CLASS_GROUP);

static mgroup_t *mgroup_get(MPI_Group g)
{
    if (g == MPI_GROUP_EMPTY) return &mgroup_empty;
    return MH_KIND(g) == MH_KIND_DYNAMIC ? mh_get(&mgroup_table, g) : NULL;
}

/* Rank in g of world rank w, or MPI_UNDEFINED. */
static int mgroup_rank_of(const mgroup_t *g, int w)
{
    for (int r = 0; r < g->size; r++)
        if (g->world_of[r] == w) return r;
    return MPI_UNDEFINED;
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    MPI_CHECK_STATE("MPI_Comm_group");
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_group", NULL);
    if (!group) return mpi_err(c, MPI_ERR_ARG, "MPI_Comm_group", "group is NULL");
    mgroup_t *g = malloc(sizeof *g);
    int *w = malloc(sizeof(int) * (size_t)c->size);
    int h = g && w ? mh_new(&mgroup_table, g) : 0;
    if (!h) {
        free(g);
        free(w);
        return mpi_err(c, MPI_ERR_NO_MEM, "MPI_Comm_group", NULL);
    }
    for (int r = 0; r < c->size; r++) /* an intercommunicator's local group */
        w[r] = mcomm_local_world(c, r);
    *g = (mgroup_t){.size = c->size, .rank = c->rank, .world_of = w};
    *group = (MPI_Group)h;
    return MPI_SUCCESS;
}

int MPI_Group_size(MPI_Group group, int *size)
{
    MPI_CHECK_STATE("MPI_Group_size");
    mgroup_t *g = mgroup_get(group);
    if (!g) return mpi_err(NULL, MPI_ERR_GROUP, "MPI_Group_size", NULL);
    if (!size) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Group_size", "size is NULL");
    *size = g->size;
    return MPI_SUCCESS;
}

int MPI_Group_rank(MPI_Group group, int *rank)
{
    MPI_CHECK_STATE("MPI_Group_rank");
    mgroup_t *g = mgroup_get(group);
    if (!g) return mpi_err(NULL, MPI_ERR_GROUP, "MPI_Group_rank", NULL);
    if (!rank) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Group_rank", "rank is NULL");
    *rank = g->rank;
    return MPI_SUCCESS;
}

int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[])
{
    MPI_CHECK_STATE("MPI_Group_translate_ranks");
    mgroup_t *a = mgroup_get(group1), *b = mgroup_get(group2);
    if (!a || !b) return mpi_err(NULL, MPI_ERR_GROUP, "MPI_Group_translate_ranks", NULL);
    if (n < 0 || (n > 0 && (!ranks1 || !ranks2)))
        return mpi_err(NULL, MPI_ERR_ARG, "MPI_Group_translate_ranks", "bad n or rank arrays");
    /* check everything before writing anything */
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= a->size))
            return mpi_err(NULL, MPI_ERR_RANK, "MPI_Group_translate_ranks", "rank not in group1");
    for (int i = 0; i < n; i++)
        ranks2[i] =
            ranks1[i] == MPI_PROC_NULL ? MPI_PROC_NULL : mgroup_rank_of(b, a->world_of[ranks1[i]]);
    return MPI_SUCCESS;
}

/* Same members in the same order / in another order / not the same. */
static int mgroup_relation(const mgroup_t *a, const mgroup_t *b)
{
    if (a->size != b->size) return MPI_UNEQUAL;
    bool same_order = true;
    for (int r = 0; r < a->size; r++) {
        if (a->world_of[r] != b->world_of[r]) same_order = false;
        if (mgroup_rank_of(b, a->world_of[r]) == MPI_UNDEFINED) return MPI_UNEQUAL;
    }
    return same_order ? MPI_IDENT : MPI_SIMILAR;
}

int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    MPI_CHECK_STATE("MPI_Group_compare");
    mgroup_t *a = mgroup_get(group1), *b = mgroup_get(group2);
    if (!a || !b) return mpi_err(NULL, MPI_ERR_GROUP, "MPI_Group_compare", NULL);
    if (!result) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Group_compare", "result is NULL");
    *result = mgroup_relation(a, b);
    return MPI_SUCCESS;
}

/* MPI_GROUP_EMPTY may be freed like a group a constructor returned (only
 * the handle is reset), as MPICH allows. */
int MPI_Group_free(MPI_Group *group)
{
    MPI_CHECK_STATE("MPI_Group_free");
    if (!group) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Group_free", "group is NULL");
    mgroup_t *g = mgroup_get(*group);
    if (!g) return mpi_err(NULL, MPI_ERR_GROUP, "MPI_Group_free", NULL);
    if (g != &mgroup_empty) {
        mh_free(&mgroup_table, *group);
        free(g->world_of);
        free(g);
    }
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

/* ---- osu-compat: group constructors and communicators from groups ------------------ */

/* A new group of the n world ranks in w (malloc'd, taken over; n may be
 * 0: MPI_GROUP_EMPTY), or 0 out of memory (w freed). */
static MPI_Group mgroup_make(int *w, int n)
{
    if (n == 0) {
        free(w);
        return MPI_GROUP_EMPTY;
    }
    mgroup_t *g = malloc(sizeof *g);
    int h = g ? mh_new(&mgroup_table, g) : 0;
    if (!h) {
        free(g);
        free(w);
        return 0;
    }
    *g = (mgroup_t){.size = n, .rank = MPI_UNDEFINED, .world_of = w};
    for (int r = 0; r < n; r++)
        if (w[r] == mpi_world_rank) g->rank = r;
    return (MPI_Group)h;
}

MPI_Group mgroup_of(int *w, int n)
{
    return mgroup_make(w, n);
}

/* Raises out of memory for fname, or stores the new group. */
static int mgroup_out(int *w, int n, const char *fname, MPI_Group *newgroup)
{
    MPI_Group h = mgroup_make(w, n);
    if (!h) return mpi_err(NULL, MPI_ERR_NO_MEM, fname, NULL);
    *newgroup = h;
    return MPI_SUCCESS;
}

/* Marks (1) the ranks of g listed in ranks[0..n) into mark (g->size bytes);
 * MPI_ERR_RANK for a rank outside g or listed twice. */
static int mgroup_mark(const mgroup_t *g, int n, const int *ranks, unsigned char *mark)
{
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size || mark[ranks[i]]) return MPI_ERR_RANK;
        mark[ranks[i]] = 1;
    }
    return MPI_SUCCESS;
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    static const char fn[] = "MPI_Group_incl";
    MPI_CHECK_STATE(fn);
    mgroup_t *g = mgroup_get(group);
    if (!g) return mpi_err(NULL, MPI_ERR_GROUP, fn, NULL);
    if (n < 0 || n > g->size || (n > 0 && !ranks) || !newgroup)
        return mpi_err(NULL, MPI_ERR_ARG, fn, "bad n, ranks or newgroup");
    unsigned char *mark = calloc((size_t)g->size + 1, 1);
    int *w = malloc(sizeof(int) * ((size_t)n + 1));
    int err = mark && w ? mgroup_mark(g, n, ranks, mark) : MPI_ERR_NO_MEM;
    free(mark);
    if (err) {
        free(w);
        return mpi_err(NULL, err, fn, err == MPI_ERR_RANK ? "rank outside group or twice" : NULL);
    }
    for (int i = 0; i < n; i++) w[i] = g->world_of[ranks[i]];
    return mgroup_out(w, n, fn, newgroup);
}

/* The members of g whose mark is keep, in g's order. */
static int mgroup_keep(const mgroup_t *g, const unsigned char *mark, int keep, const char *fname,
                       MPI_Group *newgroup)
{
    int *w = malloc(sizeof(int) * ((size_t)g->size + 1)), n = 0;
    if (!w) return mpi_err(NULL, MPI_ERR_NO_MEM, fname, NULL);
    for (int r = 0; r < g->size; r++)
        if (mark[r] == keep) w[n++] = g->world_of[r];
    return mgroup_out(w, n, fname, newgroup);
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    static const char fn[] = "MPI_Group_excl";
    MPI_CHECK_STATE(fn);
    mgroup_t *g = mgroup_get(group);
    if (!g) return mpi_err(NULL, MPI_ERR_GROUP, fn, NULL);
    if (n < 0 || n > g->size || (n > 0 && !ranks) || !newgroup)
        return mpi_err(NULL, MPI_ERR_ARG, fn, "bad n, ranks or newgroup");
    unsigned char *mark = calloc((size_t)g->size + 1, 1);
    int err = mark ? mgroup_mark(g, n, ranks, mark) : MPI_ERR_NO_MEM;
    if (err) {
        free(mark);
        return mpi_err(NULL, err, fn, err == MPI_ERR_RANK ? "rank outside group or twice" : NULL);
    }
    err = mgroup_keep(g, mark, 0, fn, newgroup);
    free(mark);
    return err;
}

/* The ranks of the n triplets (first, last, stride) in order, into
 * *out (malloc'd) and *nout.  As MPICH: first or last outside g, a stride
 * of 0 or one that leads away from last is MPI_ERR_ARG; a rank given twice
 * MPI_ERR_RANK. */
static int mgroup_ranges(const mgroup_t *g, int n, int ranges[][3], int **out, int *nout)
{
    long long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (first < 0 || first >= g->size || last < 0 || last >= g->size) return MPI_ERR_ARG;
        if (stride == 0 || (stride > 0 && first > last) || (stride < 0 && first < last))
            return MPI_ERR_ARG;
        total += (last - first) / stride + 1;
        if (total > g->size) return MPI_ERR_RANK; /* some rank twice */
    }
    int *r = malloc(sizeof(int) * ((size_t)total + 1));
    unsigned char *mark = calloc((size_t)g->size + 1, 1);
    int err = r && mark ? MPI_SUCCESS : MPI_ERR_NO_MEM, k = 0;
    for (int i = 0; !err && i < n; i++)
        for (int j = 0; j <= (ranges[i][1] - ranges[i][0]) / ranges[i][2]; j++)
            r[k++] = ranges[i][0] + j * ranges[i][2];
    if (!err) err = mgroup_mark(g, k, r, mark);
    free(mark);
    if (err) {
        free(r);
        return err;
    }
    *out = r;
    *nout = k;
    return MPI_SUCCESS;
}

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    static const char fn[] = "MPI_Group_range_incl";
    MPI_CHECK_STATE(fn);
    mgroup_t *g = mgroup_get(group);
    if (!g) return mpi_err(NULL, MPI_ERR_GROUP, fn, NULL);
    if (n < 0 || (n > 0 && !ranges) || !newgroup)
        return mpi_err(NULL, MPI_ERR_ARG, fn, "bad n, ranges or newgroup");
    int *r, k, err = mgroup_ranges(g, n, ranges, &r, &k);
    if (err) return mpi_err(NULL, err, fn, "bad range");
    for (int i = 0; i < k; i++) r[i] = g->world_of[r[i]];
    return mgroup_out(r, k, fn, newgroup);
}

int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    static const char fn[] = "MPI_Group_range_excl";
    MPI_CHECK_STATE(fn);
    mgroup_t *g = mgroup_get(group);
    if (!g) return mpi_err(NULL, MPI_ERR_GROUP, fn, NULL);
    if (n < 0 || (n > 0 && !ranges) || !newgroup)
        return mpi_err(NULL, MPI_ERR_ARG, fn, "bad n, ranges or newgroup");
    int *r, k, err = mgroup_ranges(g, n, ranges, &r, &k);
    if (err) return mpi_err(NULL, err, fn, "bad range");
    unsigned char *mark = calloc((size_t)g->size + 1, 1);
    if (!mark) {
        free(r);
        return mpi_err(NULL, MPI_ERR_NO_MEM, fn, NULL);
    }
    for (int i = 0; i < k; i++) mark[r[i]] = 1;
    free(r);
    err = mgroup_keep(g, mark, 0, fn, newgroup);
    free(mark);
    return err;
}

/* op 'u' union: a's members, then b's not in a; 'i' intersection: a's
 * members that are in b; 'd' difference: a's members not in b.  In the
 * order of a, then b (MPI 3.1 §6.3.2). */
static int mgroup_setop(MPI_Group group1, MPI_Group group2, int op, const char *fname,
                        MPI_Group *newgroup)
{
    mgroup_t *a = mgroup_get(group1), *b = mgroup_get(group2);
    if (!a || !b) return mpi_err(NULL, MPI_ERR_GROUP, fname, NULL);
    if (!newgroup) return mpi_err(NULL, MPI_ERR_ARG, fname, "newgroup is NULL");
    /* membership by world rank (every member is a rank of MPI_COMM_WORLD) */
    unsigned char *in_a = calloc((size_t)mpi_world_size + 1, 1);
    unsigned char *in_b = calloc((size_t)mpi_world_size + 1, 1);
    int *w = malloc(sizeof(int) * ((size_t)a->size + (size_t)b->size + 1)), n = 0;
    if (!in_a || !in_b || !w) {
        free(in_a);
        free(in_b);
        free(w);
        return mpi_err(NULL, MPI_ERR_NO_MEM, fname, NULL);
    }
    for (int r = 0; r < a->size; r++) in_a[a->world_of[r]] = 1;
    for (int r = 0; r < b->size; r++) in_b[b->world_of[r]] = 1;
    if (op == 'u') {
        for (int r = 0; r < a->size; r++) w[n++] = a->world_of[r];
        for (int r = 0; r < b->size; r++)
            if (!in_a[b->world_of[r]]) w[n++] = b->world_of[r];
    } else {
        for (int r = 0; r < a->size; r++)
            if (in_b[a->world_of[r]] == (op == 'i')) w[n++] = a->world_of[r];
    }
    free(in_a);
    free(in_b);
    return mgroup_out(w, n, fname, newgroup);
}

int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    MPI_CHECK_STATE("MPI_Group_union");
    return mgroup_setop(group1, group2, 'u', "MPI_Group_union", newgroup);
}

int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    MPI_CHECK_STATE("MPI_Group_intersection");
    return mgroup_setop(group1, group2, 'i', "MPI_Group_intersection", newgroup);
}

int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    MPI_CHECK_STATE("MPI_Group_difference");
    return mgroup_setop(group1, group2, 'd', "MPI_Group_difference", newgroup);
}

/* A copy of g's members (malloc'd), or NULL. */
static int *mgroup_members(const mgroup_t *g)
{
    int *w = malloc(sizeof(int) * ((size_t)g->size + 1));
    if (w && g->size) memcpy(w, g->world_of, sizeof(int) * (size_t)g->size);
    return w;
}

/* Collective over comm; each process passes a subgroup of comm, the same
 * one everywhere or disjoint ones (MPI 3.1 §6.4.2).  Members get the
 * communicator of their group, the others MPI_COMM_NULL. */
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create";
    MPI_CHECK_STATE(fn);
    mcomm_t *p = mcomm_get(comm);
    if (!p) return mpi_err(NULL, MPI_ERR_COMM, fn, NULL);
    if (p->inter) /* create_group: MPI defines it on intracommunicators only; create: not yet */
        return mpi_err(p, MPI_ERR_COMM, fn, "not supported on intercommunicators");
    mgroup_t *g = mgroup_get(group);
    if (!g) return mpi_err(p, MPI_ERR_GROUP, fn, NULL);
    if (!newcomm) return mpi_err(p, MPI_ERR_ARG, fn, "newcomm is NULL");
    for (int r = 0; r < g->size; r++)
        if (mcomm_rank_of(p, g->world_of[r]) == MPI_UNDEFINED)
            return mpi_err(p, MPI_ERR_GROUP, fn, "group is not a subgroup of comm");
    bool member = g->rank != MPI_UNDEFINED;
    int *w = member ? mgroup_members(g) : NULL;
    int err = member && !w ? MPI_ERR_NO_MEM : MPI_SUCCESS; /* still takes part */
    MPI_Comm made;
    int cerr = mcomm_create(p, err ? NULL : w, g->size, g->rank, NULL, &made);
    if (!err) err = cerr;
    if (err) {
        free(w);
        return mpi_err(p, err, fn, err == MPI_ERR_OTHER ? "members could not agree" : NULL);
    }
    *newcomm = made;
    return MPI_SUCCESS;
}

/* Collective over the group's members only: they agree on a context id
 * among themselves, over the parent's collective context (as a
 * communicator of the group's members would).  tag is checked and not
 * used otherwise: concurrent calls on one parent from several threads with
 * overlapping groups are not told apart. */
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create_group";
    MPI_CHECK_STATE(fn);
    mcomm_t *p = mcomm_get(comm);
    if (!p) return mpi_err(NULL, MPI_ERR_COMM, fn, NULL);
    if (p->inter) /* create_group: MPI defines it on intracommunicators only; create: not yet */
        return mpi_err(p, MPI_ERR_COMM, fn, "not supported on intercommunicators");
    mgroup_t *g = mgroup_get(group);
    if (!g) return mpi_err(p, MPI_ERR_GROUP, fn, NULL);
    if (!newcomm) return mpi_err(p, MPI_ERR_ARG, fn, "newcomm is NULL");
    if (tag < 0) return mpi_err(p, MPI_ERR_TAG, fn, NULL);
    for (int r = 0; r < g->size; r++)
        if (mcomm_rank_of(p, g->world_of[r]) == MPI_UNDEFINED)
            return mpi_err(p, MPI_ERR_GROUP, fn, "group is not a subgroup of comm");
    if (g->rank == MPI_UNDEFINED) { /* not a member: local, MPI_COMM_NULL */
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    mcomm_t members = {.rank = g->rank, .size = g->size, .ctx = p->ctx, .errh = p->errh,
                       .world_of = g->world_of, .handle = p->handle};
    int *w = mgroup_members(g);
    if (!w) return mpi_err(p, MPI_ERR_NO_MEM, fn, NULL);
    MPI_Comm made;
    int err = mcomm_create(&members, w, g->size, g->rank, NULL, &made);
    free(members.rank_of); /* built if the agreement asked for a rank */
    if (err) {
        free(w);
        return mpi_err(p, err, fn, err == MPI_ERR_OTHER ? "members could not agree" : NULL);
    }
    *newcomm = made;
    return MPI_SUCCESS;
}
