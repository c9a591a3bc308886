/* Private to src/mpi: the helpers of the MPI-4 large-count (_c) forms
 * (large_count.c: point-to-point and statuses; large_coll.c: the
 * collectives; large_type.c: datatypes).  How counts beyond INT_MAX are
 * handled: large_count.c's first comment. */
#ifndef SL_MPI_LCOUNT_H
#define SL_MPI_LCOUNT_H

#include "mpi.h"

#include <stdbool.h>

/* count elements of dt as n elements of t (made: t is ours to free). */
typedef struct mlc {
    int n;
    MPI_Datatype t;
    bool made;
} mlc_t;

/* Describe count elements of dt as x->n elements of x->t: dt itself when
 * count fits an int (a negative count as -1, for the int form to refuse),
 * else a type made for them; mlc_done frees it and passes err on.
 * Errors are raised through comm's handler as fname's. */
int mlc_of(MPI_Count count, MPI_Datatype dt, mlc_t *x, MPI_Comm comm, const char *fname);
int mlc_done(mlc_t *x, int err);
/* A committed type of count (> INT_MAX) elements of dt (nothing raised). */
int mlc_make(MPI_Count count, MPI_Datatype dt, MPI_Datatype *out);
/* Raise cls for fname through comm's handler. */
int mlc_err(MPI_Comm comm, int cls, const char *fname, const char *why);
/* n counts or displacements as ints (*out malloc'd; NULL stays NULL);
 * MPI_ERR_COUNT (raised) for an entry beyond int. */
int mlc_ints(const MPI_Count *a, int n, int **out, MPI_Comm comm, const char *fname);
/* A scalar that must fit an int: false beyond INT_MAX. */
bool mlc_int(MPI_Count v, int *out);

#endif
