/* The Fortran bindings' shared pieces (src/fortran/README.md): the special
 * addresses of mpif.h's COMMON blocks and their translation, and strings.
 * Used by the generated wrappers (mpi_fortran_gen.c) and mpi_fortran.c. */
#ifndef SL_FORTRAN_H
#define SL_FORTRAN_H

#include <mpi.h>

#include <stddef.h>
#include <stdlib.h>

/* mpif.h's COMMON blocks (gfortran: lower case, trailing underscore); the
 * program passes their addresses, which stand for the C constants. */
extern MPI_Fint sl_f_bottom_, sl_f_in_place_, sl_f_unweighted_, sl_f_weights_empty_;
extern MPI_Fint sl_f_status_ignore_[5], sl_f_statuses_ignore_[5], sl_f_errcodes_ignore_[1];

/* The same constants in MPICH's blocks (COMMON /MPIPRIV1/ MPI_BOTTOM,
 * MPI_IN_PLACE, MPI_STATUS_IGNORE and /MPIPRIV2/ MPI_STATUSES_IGNORE,
 * MPI_ERRCODES_IGNORE), for MPICH-built programs on the ABI library. */
struct sl_f_mpich_priv1 {
    MPI_Fint bottom, in_place, status_ignore[5];
};
struct sl_f_mpich_priv2 {
    MPI_Fint statuses_ignore[5], errcodes_ignore[1];
};
extern struct sl_f_mpich_priv1 mpipriv1_;
extern struct sl_f_mpich_priv2 mpipriv2_;
extern MPI_Fint mpifcmb5_, mpifcmb9_; /* MPICH's MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY */

#define SL_F_IS(p, a) ((const void *)(p) == (const void *)(a))
#define SL_F_BUF(p)                                                                         \
    (SL_F_IS(p, &sl_f_bottom_) || SL_F_IS(p, &mpipriv1_.bottom)       ? MPI_BOTTOM          \
     : SL_F_IS(p, &sl_f_in_place_) || SL_F_IS(p, &mpipriv1_.in_place) ? MPI_IN_PLACE        \
                                                                      : (void *)(p))
/* A graph's weights argument: an array, or MPI_UNWEIGHTED or
 * MPI_WEIGHTS_EMPTY (before, their blocks' addresses reached C as weight
 * arrays: read past their one INTEGER, or written over by
 * MPI_DIST_GRAPH_NEIGHBORS). */
#define SL_F_WEIGHTS(p)                                                                     \
    (SL_F_IS(p, &sl_f_unweighted_) || SL_F_IS(p, &mpifcmb5_)         ? MPI_UNWEIGHTED       \
     : SL_F_IS(p, &sl_f_weights_empty_) || SL_F_IS(p, &mpifcmb9_) ? MPI_WEIGHTS_EMPTY     \
                                                                  : (p))
#define SL_F_STATUS(p)                                                                      \
    (SL_F_IS(p, sl_f_status_ignore_) || SL_F_IS(p, mpipriv1_.status_ignore)                 \
         ? MPI_STATUS_IGNORE                                                                \
         : (MPI_Status *)(void *)(p))
#define SL_F_STATUSES(p)                                                                    \
    (SL_F_IS(p, sl_f_statuses_ignore_) || SL_F_IS(p, mpipriv2_.statuses_ignore)             \
         ? MPI_STATUSES_IGNORE                                                              \
         : (MPI_Status *)(void *)(p))

/* A Fortran string of len characters as a C string (trailing blanks
 * dropped), malloc'd; NULL if out of memory (the call then sees NULL and
 * reports MPI_ERR_ARG). */
char *sl_f_cstr(const char *f, size_t len);
/* A C buffer for an output string going to a Fortran string of len
 * characters: room for len and for the longest string MPI writes. */
char *sl_f_outbuf(size_t len);
/* Copy C string c (then freed) into Fortran string f of len, blank-padded. */
void sl_f_fstr(char *c, char *f, size_t len);

#endif
