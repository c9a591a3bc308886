/* Error classes and codes added by the program (MPI 4.0 §9.5, prefix
 * merr_): MPI_Add_error_class/code/string, read by MPI_Error_class and
 * MPI_Error_string (env.c) and by the MPI_LASTUSEDCODE attribute (attr.c).
 *
 * They are numbered from MERR_USER_BASE, above MPI_ERR_LASTCODE (MPICH's
 * largest predefined code), one table entry each: its class (itself for a
 * class) and its string.  They live until the process ends (MPI has no
 * call to remove them).  MPI calls are serialised, so no lock. */
#include "mpi/mpi_int.h"

#include <stdlib.h>
#include <string.h>

#define MERR_USER_BASE (MPI_ERR_LASTCODE + 1)

typedef struct merr_user {
    int cls;
    char *string; /* malloc'd; NULL: "" */
} merr_user_t;

static merr_user_t *merr_tab;
static int merr_n, merr_cap;
static int merr_lastused = MPI_ERR_LASTCODE;

static merr_user_t *merr_find(int code)
{
    long i = (long)code - MERR_USER_BASE;
    return i >= 0 && i < merr_n ? &merr_tab[i] : NULL;
}

bool merr_user_class(int code, int *cls)
{
    merr_user_t *u = merr_find(code);
    if (u) *cls = u->cls;
    return u != NULL;
}

const char *merr_user_string(int code)
{
    merr_user_t *u = merr_find(code);
    return u ? (u->string ? u->string : "") : NULL;
}

int *merr_lastused_attr(void)
{
    return &merr_lastused;
}

/* A new code of class cls (-1: a new class, its own); 0 when out of memory. */
static int merr_add(int cls)
{
    if (merr_n == merr_cap) {
        int cap = merr_cap ? 2 * merr_cap : 16;
        merr_user_t *t = realloc(merr_tab, (size_t)cap * sizeof *t);
        if (!t) return 0;
        merr_tab = t, merr_cap = cap;
    }
    int code = MERR_USER_BASE + merr_n;
    merr_tab[merr_n++] = (merr_user_t){.cls = cls < 0 ? code : cls};
    merr_lastused = code;
    return code;
}

int MPI_Add_error_class(int *errorclass)
{
    MPI_CHECK_STATE("MPI_Add_error_class");
    if (!errorclass) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Add_error_class", NULL);
    int code = merr_add(-1);
    if (!code) return mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Add_error_class", NULL);
    *errorclass = code;
    return MPI_SUCCESS;
}

/* The class may be predefined or added. */
int MPI_Add_error_code(int errorclass, int *errorcode)
{
    MPI_CHECK_STATE("MPI_Add_error_code");
    int cls;
    bool is_class = (errorclass >= 0 && errorclass <= MPI_ERR_LASTCODE) ||
                    (merr_user_class(errorclass, &cls) && cls == errorclass);
    if (!is_class || !errorcode)
        return mpi_err(NULL, MPI_ERR_ARG, "MPI_Add_error_code", "not an error class");
    int code = merr_add(errorclass);
    if (!code) return mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Add_error_code", NULL);
    *errorcode = code;
    return MPI_SUCCESS;
}

/* Only added codes and classes take strings (MPI: predefined ones keep
 * theirs); a later string replaces the earlier. */
int MPI_Add_error_string(int errorcode, const char *string)
{
    MPI_CHECK_STATE("MPI_Add_error_string");
    merr_user_t *u = merr_find(errorcode);
    if (!u) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Add_error_string", "not an added code");
    if (!string || strlen(string) >= MPI_MAX_ERROR_STRING)
        return mpi_err(NULL, MPI_ERR_ARG, "MPI_Add_error_string", "NULL or too long");
    char *copy = strdup(string);
    if (!copy) return mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Add_error_string", NULL);
    free(u->string);
    u->string = copy;
    return MPI_SUCCESS;
}
