/* Communicators.  So far MPI_COMM_WORLD (context 0) and MPI_COMM_SELF
 * (context 1); dup/split/free, which need context ids agreed by the members,
 * come with the rest of issue 4. */
#include "mpi/mpi_int.h"

static mcomm_t comm_world = {.ctx = 0, .errh = MPI_ERRORS_ARE_FATAL};
static mcomm_t comm_self = {.ctx = 1, .errh = MPI_ERRORS_ARE_FATAL};

mcomm_t *mcomm_get(MPI_Comm c)
{
    if (c == MPI_COMM_WORLD) {
        comm_world.rank = mpi_world_rank;
        comm_world.size = mpi_world_size;
        return &comm_world;
    }
    if (c == MPI_COMM_SELF) {
        comm_self.rank = 0;
        comm_self.size = 1;
        comm_self.world_of_self = mpi_world_rank;
        return &comm_self;
    }
    return NULL;
}

int mcomm_world(const mcomm_t *c, int r)
{
    return c == &comm_self ? c->world_of_self : r;
}

int mcomm_rank_of(const mcomm_t *c, int w)
{
    if (c == &comm_self) return w == c->world_of_self ? 0 : MPI_UNDEFINED;
    return w;
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

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    MPI_CHECK_STATE("MPI_Comm_compare");
    mcomm_t *a = mcomm_get(comm1), *b = mcomm_get(comm2);
    if (!a || !b) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_compare", NULL);
    if (!result) return mpi_err(a, MPI_ERR_ARG, "MPI_Comm_compare", "result is NULL");
    /* world and self of a one-rank job have the same member */
    *result = a == b ? MPI_IDENT : (a->size == b->size ? MPI_CONGRUENT : MPI_UNEQUAL);
    return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    MPI_CHECK_STATE("MPI_Comm_set_errhandler");
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_set_errhandler", NULL);
    if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN)
        return mpi_err(c, MPI_ERR_ARG, "MPI_Comm_set_errhandler", "unknown error handler");
    c->errh = errhandler;
    return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    MPI_CHECK_STATE("MPI_Comm_get_errhandler");
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_get_errhandler", NULL);
    if (!errhandler) return mpi_err(c, MPI_ERR_ARG, "MPI_Comm_get_errhandler", NULL);
    *errhandler = c->errh;
    return MPI_SUCCESS;
}
