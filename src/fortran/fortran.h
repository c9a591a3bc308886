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

#define SL_F_BUF(p)                                                                         \
    ((void *)(p) == (void *)&sl_f_bottom_     ? MPI_BOTTOM                                  \
     : (void *)(p) == (void *)&sl_f_in_place_ ? MPI_IN_PLACE                                \
                                              : (void *)(p))
#define SL_F_STATUS(p)                                                                      \
    ((void *)(p) == (void *)sl_f_status_ignore_ ? MPI_STATUS_IGNORE : (MPI_Status *)(void *)(p))
#define SL_F_STATUSES(p)                                                                    \
    ((void *)(p) == (void *)sl_f_statuses_ignore_ ? MPI_STATUSES_IGNORE                     \
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
