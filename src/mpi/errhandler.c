/* User error handlers for communicators: MPI_Comm_create_errhandler,
 * MPI_Comm_call_errhandler, MPI_Errhandler_free, and their dispatch from
 * mpi_err (env.c).
 *
 * A handler object lives while anything refers to it: the handle the user
 * holds (until MPI_Errhandler_free) and every communicator it is set on
 * (MPI 3.1 §8.3.4: freeing a handler in use only marks it).  Its handle
 * stays valid as long as the object, so a communicator keeps storing the
 * handle.  MPI calls are serialised (by the program or the MPI lock). */
#include "mpi/handle.h"
#include "mpi/mpi_int.h"

#include <stdlib.h>

typedef struct merrh {
    MPI_Comm_errhandler_function *fn;
    int refs;
} merrh_t;

static mh_table_t merrh_table = MH_TABLE_INIT(MH_CLASS_ERRHANDLER);

static merrh_t *merrh_get(MPI_Errhandler e)
{
    return MH_KIND(e) == MH_KIND_DYNAMIC ? mh_get(&merrh_table, e) : NULL;
}

/* MPI_ERRORS_ABORT (MPI-4, in MPICH's ABI) aborts like MPI_ERRORS_ARE_FATAL:
 * mpi_err ends the whole job for either. */
bool merrh_valid(MPI_Errhandler e)
{
    return e == MPI_ERRORS_ARE_FATAL || e == MPI_ERRORS_RETURN || e == MPI_ERRORS_ABORT ||
           merrh_get(e);
}

void merrh_retain(MPI_Errhandler e)
{
    merrh_t *h = merrh_get(e);
    if (h) h->refs++;
}

void merrh_release(MPI_Errhandler e)
{
    merrh_t *h = merrh_get(e);
    if (!h || --h->refs > 0) return;
    mh_free(&merrh_table, e);
    free(h);
}

bool merrh_invoke(const mcomm_t *c, int code)
{
    merrh_t *h = merrh_get(c->errh);
    if (!h) return false;
    /* the handler may change both through its pointers; they are copies */
    MPI_Comm comm = c->handle;
    h->fn(&comm, &code);
    return true;
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler)
{
    MPI_CHECK_STATE("MPI_Comm_create_errhandler");
    if (!function || !errhandler)
        return mpi_err(NULL, MPI_ERR_ARG, "MPI_Comm_create_errhandler", "NULL argument");
    merrh_t *h = malloc(sizeof *h);
    if (!h) return mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Comm_create_errhandler", NULL);
    *h = (merrh_t){.fn = function, .refs = 1};
    int e = mh_new(&merrh_table, h);
    if (!e) {
        free(h);
        return mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Comm_create_errhandler", "out of handles");
    }
    *errhandler = (MPI_Errhandler)e;
    return MPI_SUCCESS;
}

/* MPI 3.1 §8.3.6: returns MPI_SUCCESS once the handler has run (and
 * returned); MPI_ERRORS_ARE_FATAL ends the job with the code. */
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    MPI_CHECK_STATE("MPI_Comm_call_errhandler");
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_call_errhandler", NULL);
    mpi_err(c, errorcode, "MPI_Comm_call_errhandler", "called by the program");
    return MPI_SUCCESS;
}

/* Predefined handlers may be freed too (MPI_Comm_get_errhandler hands them
 * out like any other): only the handle is reset. */
int MPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    MPI_CHECK_STATE("MPI_Errhandler_free");
    if (!errhandler || !merrh_valid(*errhandler))
        return mpi_err(NULL, MPI_ERR_ARG, "MPI_Errhandler_free", "not an error handler");
    merrh_release(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

/* The MPI-1 names (deprecated; MPICH still has them). */
int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
{
    return MPI_Comm_create_errhandler(function, errhandler);
}

int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return MPI_Comm_set_errhandler(comm, errhandler);
}

int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return MPI_Comm_get_errhandler(comm, errhandler);
}
