/* Process groups: MPI_Comm_group and the group queries (size, rank,
 * translate_ranks, compare) and MPI_Group_free.  A group is the list of
 * its members' world ranks in group order; MPI_GROUP_EMPTY is a static
 * empty group.  Errors are raised on MPI_COMM_WORLD (no communicator is
 * involved). */
#include "mpi/handle.h"
#include "mpi/mpi_int.h"

#include <stdlib.h>

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
    for (int r = 0; r < c->size; r++)
        w[r] = mcomm_world(c, r);
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
