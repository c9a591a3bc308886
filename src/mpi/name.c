/* Object names (MPI 3.1 §6.8): MPI_Comm_get_name/set_name and
 * MPI_Type_get_name/set_name.  MPI_COMM_WORLD and MPI_COMM_SELF are named
 * so at start (comm.c), predefined datatypes have their MPI names
 * ("MPI_INT"; MPI_LONG_LONG is MPI_LONG_LONG_INT, one handle), other
 * objects have the empty name until one is set.  Names are not copied by
 * MPI_Comm_dup or MPI_Type_dup.  A name longer than MPI_MAX_OBJECT_NAME - 1
 * characters is cut to that length.  Both run under the MPI lock
 * (MPI_CHECK_STATE), which is what keeps set and get apart. */
#include "mpi/datatype.h"
#include "mpi/mpi_int.h"

#include <stdlib.h>
#include <string.h>

/* Copies name into out (MPI_MAX_OBJECT_NAME bytes), cut if too long, and
 * sets *len. */
static void name_out(const char *name, char *out, int *len)
{
    size_t n = strnlen(name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(out, name, n);
    out[n] = '\0';
    *len = (int)n;
}

int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    static const char fn[] = "MPI_Comm_set_name";
    MPI_CHECK_STATE(fn);
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, fn, NULL);
    if (!comm_name) return mpi_err(c, MPI_ERR_ARG, fn, "comm_name is NULL");
    int len;
    name_out(comm_name, c->name, &len);
    return MPI_SUCCESS;
}

int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    static const char fn[] = "MPI_Comm_get_name";
    MPI_CHECK_STATE(fn);
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, fn, NULL);
    if (!comm_name || !resultlen) return mpi_err(c, MPI_ERR_ARG, fn, "NULL argument");
    name_out(c->name, comm_name, resultlen);
    return MPI_SUCCESS;
}

int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    static const char fn[] = "MPI_Type_set_name";
    MPI_CHECK_STATE(fn);
    mdt_type_t *t = mdt_get(datatype);
    if (!t) return mpi_err(NULL, MPI_ERR_TYPE, fn, NULL);
    if (!type_name) return mpi_err(NULL, MPI_ERR_ARG, fn, "type_name is NULL");
    size_t n = strnlen(type_name, MPI_MAX_OBJECT_NAME - 1);
    char *s = malloc(n + 1);
    if (!s) return mpi_err(NULL, MPI_ERR_NO_MEM, fn, NULL);
    memcpy(s, type_name, n);
    s[n] = '\0';
    /* a predefined type's name lives as long as the process (the static
     * type refers to it, freed never); a derived type's goes with it */
    free(t->set_name);
    t->set_name = s;
    return MPI_SUCCESS;
}

int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    static const char fn[] = "MPI_Type_get_name";
    MPI_CHECK_STATE(fn);
    mdt_type_t *t = mdt_get(datatype);
    if (!t) return mpi_err(NULL, MPI_ERR_TYPE, fn, NULL);
    if (!type_name || !resultlen) return mpi_err(NULL, MPI_ERR_ARG, fn, "NULL argument");
    const char *name = t->set_name ? t->set_name : t->name ? t->name : "";
    name_out(name, type_name, resultlen);
    return MPI_SUCCESS;
}
