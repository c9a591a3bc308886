/* Communicator attributes: the predefined ones of MPI 3.1 §8.1.2 that
 * include/mpi.h names.  There is no MPI_Comm_create_keyval yet, so every
 * communicator has exactly these, all on every communicator (MPI puts
 * them on MPI_COMM_WORLD, and programs query them on their own
 * communicators too, as MPICH and Open MPI answer). */
#include "mpi/mpi_int.h"
#include "p2p/p2p.h"

/* MPI hands out a pointer to the value (C binding: the attribute is a
 * void * that points to an int). */
static int attr_tag_ub = P2P_TAG_MAX; /* the largest tag p2p matches */
static int attr_host = MPI_PROC_NULL; /* no host process */
static int attr_io = MPI_ANY_SOURCE;  /* every process can do I/O */
static int attr_wtime_is_global = 0;  /* not promised beyond one host */

/* Keyvals of the predefined range that include/mpi.h does not name (MPICH
 * numbers them from 0x64400001 in steps of 2: MPI_UNIVERSE_SIZE,
 * MPI_LASTUSEDCODE, MPI_APPNUM): valid keys, never set. */
#define ATTR_PREDEF_FIRST 0x64400001
#define ATTR_PREDEF_LAST 0x6440000d

int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    MPI_CHECK_STATE("MPI_Comm_get_attr");
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Comm_get_attr", NULL);
    if (!attribute_val || !flag)
        return mpi_err(c, MPI_ERR_ARG, "MPI_Comm_get_attr", "NULL attribute_val or flag");
    int *val = NULL;
    switch (comm_keyval) {
    case MPI_TAG_UB:
        val = &attr_tag_ub;
        break;
    case MPI_HOST:
        val = &attr_host;
        break;
    case MPI_IO:
        val = &attr_io;
        break;
    case MPI_WTIME_IS_GLOBAL:
        val = &attr_wtime_is_global;
        break;
    default:
        if (comm_keyval < ATTR_PREDEF_FIRST || comm_keyval > ATTR_PREDEF_LAST || !(comm_keyval & 1))
            return mpi_err(c, MPI_ERR_KEYVAL, "MPI_Comm_get_attr", "unknown keyval");
        break;
    }
    *flag = val != NULL;
    if (val) *(int **)attribute_val = val;
    return MPI_SUCCESS;
}
