/* Reduction operations (prefix mop_): the predefined ops of MPI 3.1 §5.9.2
 * on every basic type they apply to, and user ops (MPI_Op_create).
 *
 * The collectives (coll.c) move and combine data as packed streams (the
 * bytes mdt_pack gives), so a predefined op works on any datatype whose
 * basic elements are all one predefined type (a vector of doubles, a
 * contiguous run of MPI_DOUBLE_INT pairs) without caring about its layout.
 * MPI 3.1 grants that only to accumulates (§11.3.4) and limits reductions
 * to basic types (§5.9.2, MPICH 4.0 refuses derived ones); Sluice extends
 * the accumulate rule to reductions.
 * A user function sees the user's layout, as MPI requires: mop_apply
 * unpacks into a temporary layout for it when the stream is not already
 * that layout. */
#ifndef SL_MPI_OP_H
#define SL_MPI_OP_H

#include "mpi/datatype.h"

#include <stdbool.h>
#include <stddef.h>

/* How one reduction combines count elements of one datatype. */
typedef struct mop_plan {
    int pre;               /* predefined op (index in its handle), 0 for a user op */
    int ctype;             /* predefined: the C type of the basic elements */
    size_t esize;          /* predefined: bytes of one basic element in the stream */
    MPI_User_function *fn; /* user op */
    MPI_User_function_c *fn_c; /* user op made by MPI_Op_create_c */
    bool commute;
    const mdt_type_t *type; /* the user's datatype */
    MPI_Datatype dt;
} mop_plan_t;

/* Checks that op applies to datatype t (handle dt) and fills *p:
 * MPI_SUCCESS, or MPI_ERR_OP for an invalid or freed op, MPI_REPLACE and
 * MPI_NO_OP, and every op/type combination MPI 3.1 forbids (a derived type
 * of mixed basic types included).  t has no data (size 0): any op. */
int mop_plan(MPI_Op op, const mdt_type_t *t, MPI_Datatype dt, mop_plan_t *p);

/* inout = in op inout, element by element, for count elements of the
 * plan's datatype in packed form (in holds the lower ranks' part when the
 * op does not commute).  MPI_SUCCESS or MPI_ERR_NO_MEM (a user op on a
 * non-contiguous layout needs two temporary buffers). */
int mop_apply(const mop_plan_t *p, const void *in, void *inout, MPI_Count count);

/* The plan as a Portals atomic (op, datatype): false for user ops and for
 * ops and types Portals has no atomic for (pairs, complex, long double). */
bool mop_atomic(const mop_plan_t *p, int *ptl_op, int *ptl_type);

#endif
