/* Datatype constructors made of other constructors, and the decoding of
 * any derived type (prefix xt_):
 *
 * MPI_Type_create_subarray and MPI_Type_create_darray (MPI 4.0 §5.1.3,
 * §5.1.4) build their type map from contiguous, hvector and resized types
 * of the engine, from the fastest dimension out (the last one in C order,
 * the first in Fortran order), the way ROMIO and MPICH do: every dimension
 * is one type whose extent is that dimension of the global array, and the
 * whole is shifted to the first element the process owns and resized to
 * lb 0 and the extent of the whole array.  The type handed out is the last
 * of those, relabelled with its combiner and arguments, so that
 * MPI_Type_get_envelope/get_contents see the call that made it.
 *
 * MPI_Type_get_envelope and MPI_Type_get_contents read the arguments each
 * constructor records (datatype.h, mdt_args_t); derived types in the
 * contents are new handles of the same objects, for the caller to free
 * (MPI 4.0 §5.1.13). */
#include "mpi/datatype.h"
#include "mpi/mpi_int.h"

#include <stdlib.h>

/* The type being built: an intermediate of ours (owned: its handle is
 * freed when the next step holds it), or the caller's old type. */
typedef struct xt_cur {
    mdt_type_t *t;
    MPI_Datatype h;
    bool owned;
} xt_cur_t;

/* The next step replaces the current type by one made of it. */
static int xt_take(xt_cur_t *cur, int rc, MPI_Datatype made)
{
    if (rc != MPI_SUCCESS) return rc;
    if (cur->owned) mdt_free_handle(cur->h);
    *cur = (xt_cur_t){.t = mdt_get(made), .h = made, .owned = true};
    return MPI_SUCCESS;
}

/* count copies of the current type, stride bytes apart, blocklen each. */
static int xt_hvector(xt_cur_t *cur, MPI_Aint count, MPI_Aint blocklen, MPI_Aint stride)
{
    mdt_entry_t *ent = malloc((count > 0 ? (size_t)count : 1u) * sizeof *ent);
    if (!ent) return MPI_ERR_NO_MEM;
    for (MPI_Aint i = 0; i < count; i++)
        ent[i] = (mdt_entry_t){.type = cur->t, .blocklen = blocklen, .disp = i * stride};
    MPI_Datatype made = MPI_DATATYPE_NULL;
    int rc = mdt_create(MPI_COMBINER_HVECTOR, (size_t)count, ent, &made);
    free(ent);
    return xt_take(cur, rc, made);
}

static int xt_contiguous(xt_cur_t *cur, MPI_Aint count)
{
    mdt_entry_t e = {.type = cur->t, .blocklen = count, .disp = 0};
    MPI_Datatype made = MPI_DATATYPE_NULL;
    int rc = mdt_create(MPI_COMBINER_CONTIGUOUS, 1, &e, &made);
    return xt_take(cur, rc, made);
}

/* The current type, then n copies of unit at disp (darray's last, short
 * cyclic block); hindexed-like, so no struct padding. */
static int xt_append(xt_cur_t *cur, mdt_type_t *unit, MPI_Aint n, MPI_Aint disp)
{
    mdt_entry_t e[2] = {{.type = cur->t, .blocklen = 1, .disp = 0},
                        {.type = unit, .blocklen = n, .disp = disp}};
    MPI_Datatype made = MPI_DATATYPE_NULL;
    int rc = mdt_create(MPI_COMBINER_HINDEXED, 2, e, &made);
    return xt_take(cur, rc, made);
}

/* The current type moved by disp bytes, then given bounds [0, extent). */
static int xt_place(xt_cur_t *cur, MPI_Aint disp, MPI_Aint extent)
{
    MPI_Datatype made = MPI_DATATYPE_NULL;
    int rc = MPI_SUCCESS;
    if (disp != 0) {
        mdt_entry_t e = {.type = cur->t, .blocklen = 1, .disp = disp};
        rc = mdt_create(MPI_COMBINER_HINDEXED, 1, &e, &made);
        if ((rc = xt_take(cur, rc, made)) != MPI_SUCCESS) return rc;
    }
    rc = mdt_create_resized(cur->t, 0, extent, &made);
    return xt_take(cur, rc, made);
}

/* The finished type gets its constructor's arguments; on failure the
 * intermediate goes. */
static int xt_finish(xt_cur_t *cur, int rc, mdt_args_t *a, MPI_Datatype *newtype)
{
    if (rc == MPI_SUCCESS && !cur->owned) rc = xt_place(cur, 0, mdt_extent(cur->t));
    if (rc != MPI_SUCCESS) {
        if (cur->owned) mdt_free_handle(cur->h);
        mdt_args_free(a);
        return rc;
    }
    mdt_args_attach(cur->t, a);
    *newtype = cur->h;
    return MPI_SUCCESS;
}

/* Dimension k counted from the fastest varying one. */
static int xt_dim(int ndims, int order, int k)
{
    return order == MPI_ORDER_C ? ndims - 1 - k : k;
}

/* ---- subarray ------------------------------------------------------------------------ */

static int subarray_check(int ndims, const int sizes[], const int subsizes[], const int starts[],
                          int order)
{
    if (ndims <= 0 || !sizes || !subsizes || !starts) return MPI_ERR_ARG;
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) return MPI_ERR_ARG;
    for (int i = 0; i < ndims; i++)
        if (sizes[i] <= 0 || subsizes[i] <= 0 || subsizes[i] > sizes[i] || starts[i] < 0 ||
            starts[i] > sizes[i] - subsizes[i])
            return MPI_ERR_ARG;
    return MPI_SUCCESS;
}

static int subarray_build(int ndims, const int sizes[], const int subsizes[], const int starts[],
                          int order, xt_cur_t *cur)
{
    MPI_Aint stride = mdt_extent(cur->t), disp = 0;
    int rc = MPI_SUCCESS;
    for (int k = 0; k < ndims && rc == MPI_SUCCESS; k++) {
        int d = xt_dim(ndims, order, k);
        rc = k == 0 ? xt_contiguous(cur, subsizes[d]) : xt_hvector(cur, subsizes[d], 1, stride);
        disp += (MPI_Aint)starts[d] * stride;
        stride *= sizes[d];
    }
    return rc == MPI_SUCCESS ? xt_place(cur, disp, stride) : rc;
}

int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    mdt_type_t *old = mdt_get(oldtype);
    if (!old) return MPI_ERR_TYPE;
    if (!newtype) return MPI_ERR_ARG;
    int rc = subarray_check(ndims, array_of_sizes, array_of_subsizes, array_of_starts, order);
    if (rc != MPI_SUCCESS) return rc;
    mdt_args_t *a = mdt_args_alloc(MPI_COMBINER_SUBARRAY, 3 * ndims + 2, 0, 1);
    if (!a) return MPI_ERR_NO_MEM;
    a->ints[0] = ndims;
    for (int i = 0; i < ndims; i++) {
        a->ints[1 + i] = array_of_sizes[i];
        a->ints[1 + ndims + i] = array_of_subsizes[i];
        a->ints[1 + 2 * ndims + i] = array_of_starts[i];
    }
    a->ints[1 + 3 * ndims] = order;
    a->types[0] = old;
    xt_cur_t cur = {.t = old, .h = oldtype, .owned = false};
    rc = subarray_build(ndims, array_of_sizes, array_of_subsizes, array_of_starts, order, &cur);
    return xt_finish(&cur, rc, a, newtype);
}

/* ---- darray -------------------------------------------------------------------------- */

/* One dimension of a darray: the process's coordinate, the grid's extent
 * in it, the global size and the distribution. */
typedef struct xt_ddim {
    int coord, nprocs, gsize, distrib, darg;
    MPI_Aint stride; /* bytes between consecutive indexes of this dimension */
    bool fastest;
} xt_ddim_t;

/* BLOCK (NONE is BLOCK on one process): the process's block, one hvector
 * (or contiguous in the fastest dimension); *start is its first index. */
static int darray_block(xt_cur_t *cur, const xt_ddim_t *d, MPI_Aint *start)
{
    int blk =
        d->darg == MPI_DISTRIBUTE_DFLT_DARG ? (d->gsize + d->nprocs - 1) / d->nprocs : d->darg;
    MPI_Aint mine = (MPI_Aint)d->gsize - (MPI_Aint)blk * d->coord;
    if (mine > blk) mine = blk;
    if (mine < 0) mine = 0;
    *start = mine > 0 ? (MPI_Aint)blk * d->coord : 0;
    return d->fastest ? xt_contiguous(cur, mine) : xt_hvector(cur, mine, 1, d->stride);
}

/* CYCLIC(blk): every nprocs-th block of blk indexes from coord * blk on,
 * the last one possibly short. */
static int darray_cyclic(xt_cur_t *cur, const xt_ddim_t *d, MPI_Aint *start)
{
    MPI_Aint blk = d->darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : d->darg;
    MPI_Aint first = (MPI_Aint)d->coord * blk, span = (MPI_Aint)d->nprocs * blk, mine = 0;
    if (first < d->gsize) {
        MPI_Aint left = d->gsize - first;
        mine = left / span * blk + (left % span < blk ? left % span : blk);
    }
    MPI_Aint count = mine / blk, rem = mine % blk, stride = span * d->stride;
    mdt_type_t *unit = cur->t;
    mdt_retain(unit); /* an hvector of no blocks does not hold it */
    int rc = xt_hvector(cur, count, blk, stride);
    if (rc == MPI_SUCCESS && rem) rc = xt_append(cur, unit, rem, count * stride);
    mdt_release(unit);
    *start = mine > 0 ? first : 0;
    return rc;
}

static int darray_check(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                        const int dargs[], const int psizes[], int order)
{
    if (size <= 0 || rank < 0 || rank >= size || ndims <= 0) return MPI_ERR_ARG;
    if (!gsizes || !distribs || !dargs || !psizes) return MPI_ERR_ARG;
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) return MPI_ERR_ARG;
    long procs = 1;
    for (int i = 0; i < ndims; i++) {
        int g = gsizes[i], p = psizes[i], dg = dargs[i];
        if (g <= 0 || p <= 0 || (dg <= 0 && dg != MPI_DISTRIBUTE_DFLT_DARG)) return MPI_ERR_ARG;
        if (distribs[i] == MPI_DISTRIBUTE_NONE && p != 1) return MPI_ERR_ARG;
        if (distribs[i] == MPI_DISTRIBUTE_BLOCK && dg != MPI_DISTRIBUTE_DFLT_DARG &&
            (long)dg * p < g)
            return MPI_ERR_ARG;
        if (distribs[i] != MPI_DISTRIBUTE_BLOCK && distribs[i] != MPI_DISTRIBUTE_CYCLIC &&
            distribs[i] != MPI_DISTRIBUTE_NONE)
            return MPI_ERR_ARG;
        procs *= p;
    }
    return procs == size ? MPI_SUCCESS : MPI_ERR_ARG;
}

/* Dimension d of the grid for this rank (grid ranks in row-major order,
 * whatever the array's order). */
static xt_ddim_t darray_dim(int rank, int ndims, const int psizes[], int d)
{
    int below = 1;
    for (int i = d + 1; i < ndims; i++)
        below *= psizes[i];
    return (xt_ddim_t){.coord = rank / below % psizes[d], .nprocs = psizes[d]};
}

static int darray_build(int rank, int ndims, const int gsizes[], const int distribs[],
                        const int dargs[], const int psizes[], int order, xt_cur_t *cur)
{
    MPI_Aint stride = mdt_extent(cur->t), disp = 0;
    int rc = MPI_SUCCESS;
    for (int k = 0; k < ndims && rc == MPI_SUCCESS; k++) {
        int i = xt_dim(ndims, order, k);
        xt_ddim_t d = darray_dim(rank, ndims, psizes, i);
        d.gsize = gsizes[i], d.darg = dargs[i], d.distrib = distribs[i];
        d.stride = stride, d.fastest = k == 0;
        if (d.distrib == MPI_DISTRIBUTE_NONE) d.darg = MPI_DISTRIBUTE_DFLT_DARG;
        MPI_Aint start = 0;
        rc = d.distrib == MPI_DISTRIBUTE_CYCLIC ? darray_cyclic(cur, &d, &start)
                                                : darray_block(cur, &d, &start);
        /* the next dimension's copies of this one are one whole row apart */
        if (rc == MPI_SUCCESS) rc = xt_place(cur, 0, stride * d.gsize);
        disp += start * stride;
        stride *= d.gsize;
    }
    return rc == MPI_SUCCESS ? xt_place(cur, disp, stride) : rc;
}

int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype *newtype)
{
    mdt_type_t *old = mdt_get(oldtype);
    if (!old) return MPI_ERR_TYPE;
    if (!newtype) return MPI_ERR_ARG;
    int rc = darray_check(size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                          array_of_psizes, order);
    if (rc != MPI_SUCCESS) return rc;
    mdt_args_t *a = mdt_args_alloc(MPI_COMBINER_DARRAY, 4 * ndims + 4, 0, 1);
    if (!a) return MPI_ERR_NO_MEM;
    a->ints[0] = size, a->ints[1] = rank, a->ints[2] = ndims;
    for (int i = 0; i < ndims; i++) {
        a->ints[3 + i] = array_of_gsizes[i];
        a->ints[3 + ndims + i] = array_of_distribs[i];
        a->ints[3 + 2 * ndims + i] = array_of_dargs[i];
        a->ints[3 + 3 * ndims + i] = array_of_psizes[i];
    }
    a->ints[3 + 4 * ndims] = order;
    a->types[0] = old;
    xt_cur_t cur = {.t = old, .h = oldtype, .owned = false};
    rc = darray_build(rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                      array_of_psizes, order, &cur);
    return xt_finish(&cur, rc, a, newtype);
}

/* ---- decoding ------------------------------------------------------------------------ */

int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner)
{
    mdt_type_t *t = mdt_get(datatype);
    if (!t) return MPI_ERR_TYPE;
    if (!num_integers || !num_addresses || !num_datatypes || !combiner) return MPI_ERR_ARG;
    const mdt_args_t *a = t->args;
    *num_integers = a ? a->ni : 0;
    *num_addresses = a ? a->na : 0;
    *num_datatypes = a ? a->nd : 0;
    *combiner = a ? a->combiner : MPI_COMBINER_NAMED;
    return MPI_SUCCESS;
}

int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
                          MPI_Datatype array_of_datatypes[])
{
    mdt_type_t *t = mdt_get(datatype);
    if (!t) return MPI_ERR_TYPE;
    const mdt_args_t *a = t->args;
    if (!a) return MPI_ERR_TYPE; /* a named type has no contents (MPI 4.0 §5.1.13) */
    if (max_integers < a->ni || max_addresses < a->na || max_datatypes < a->nd) return MPI_ERR_ARG;
    if ((a->ni && !array_of_integers) || (a->na && !array_of_addresses) ||
        (a->nd && !array_of_datatypes))
        return MPI_ERR_ARG;
    for (int i = 0; i < a->nd; i++) {
        int rc = mdt_handle_again(a->types[i], &array_of_datatypes[i]);
        if (rc != MPI_SUCCESS) {
            while (i-- > 0)
                mdt_free_handle(array_of_datatypes[i]);
            return rc;
        }
    }
    for (int i = 0; i < a->ni; i++)
        array_of_integers[i] = a->ints[i];
    for (int i = 0; i < a->na; i++)
        array_of_addresses[i] = a->aints[i];
    return MPI_SUCCESS;
}

/* ---- MPI_Type_match_size ------------------------------------------------------------- */

/* MPI 4.0 §19.1.9 (MPICH's choice of candidates): the first C type of the
 * class with that size. */
int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const MPI_Datatype reals[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
    static const MPI_Datatype ints[] = {MPI_CHAR, MPI_SHORT, MPI_INT, MPI_LONG, MPI_LONG_LONG};
    static const MPI_Datatype cplx[] = {MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
                                        MPI_C_LONG_DOUBLE_COMPLEX};
    const MPI_Datatype *c = NULL;
    int n = 0;
    if (typeclass == MPI_TYPECLASS_REAL)
        c = reals, n = 3;
    else if (typeclass == MPI_TYPECLASS_INTEGER)
        c = ints, n = 5;
    else if (typeclass == MPI_TYPECLASS_COMPLEX)
        c = cplx, n = 3;
    if (!c || !datatype) return MPI_ERR_ARG;
    for (int i = 0; i < n; i++)
        if (mdt_get(c[i])->size == size) {
            *datatype = c[i];
            return MPI_SUCCESS;
        }
    return MPI_ERR_ARG;
}
