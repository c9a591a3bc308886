/* MPI-4 large counts (lcount.h): the _c forms of the datatype
 * constructors and queries, and of Pack/Unpack. */
#include "mpi/datatype.h"
#include "mpi/handle.h"
#include "mpi/lcount.h"
#include "mpi/mpi_int.h"

#include <limits.h>
#include <stdlib.h>

/* ---- datatypes ----------------------------------------------------------------------------- */

int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    return MPI_Type_size_x(datatype, size);
}

int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return MPI_Type_get_extent_x(datatype, lb, extent);
}

int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return MPI_Type_get_true_extent_x(datatype, true_lb, true_extent);
}

int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (count <= INT_MAX) return MPI_Type_contiguous(count < 0 ? -1 : (int)count, oldtype, newtype);
    if (!newtype) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Type_contiguous_c", "newtype is NULL");
    int err = mlc_make(count, oldtype, newtype); /* committed already: harmless */
    return err ? mpi_err(NULL, err, "MPI_Type_contiguous_c", NULL) : MPI_SUCCESS;
}


#define LC_INTS_OR_FAIL(fname, ...)                                                           \
    do {                                                                                      \
        if (!(__VA_ARGS__))                                                                   \
            return mpi_err(NULL, MPI_ERR_COUNT, fname, "a count beyond int (not supported)"); \
    } while (0)

int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int c, b, s;
    LC_INTS_OR_FAIL("MPI_Type_vector_c", mlc_int(count, &c) && mlc_int(blocklength, &b) &&
                                             stride >= INT_MIN && mlc_int(stride, &s));
    return MPI_Type_vector(c, b, s, oldtype, newtype);
}

int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int c, b;
    LC_INTS_OR_FAIL("MPI_Type_create_hvector_c", mlc_int(count, &c) && mlc_int(blocklength, &b));
    return MPI_Type_create_hvector(c, b, (MPI_Aint)stride, oldtype, newtype);
}

int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                              MPI_Datatype *newtype)
{
    return MPI_Type_create_resized(oldtype, (MPI_Aint)lb, (MPI_Aint)extent, newtype);
}

/* The array constructors: count and block lengths as ints, byte
 * displacements as they are (MPI_Aint), element displacements as ints. */
static int lc_count_arrays(MPI_Count count, const MPI_Count *bl, const MPI_Count *displs, int *n,
                           int **ibl, int **idispl, const char *fn)
{
    *ibl = *idispl = NULL;
    if (!mlc_int(count, n)) return mpi_err(NULL, MPI_ERR_COUNT, fn, "count beyond int (not supported)");
    int m = *n > 0 ? *n : 0, err = bl ? mlc_ints(bl, m, ibl, MPI_COMM_WORLD, fn) : MPI_SUCCESS;
    if (!err && displs) err = mlc_ints(displs, m, idispl, MPI_COMM_WORLD, fn);
    if (err) free(*ibl);
    return err;
}

int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                       const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                       MPI_Datatype *newtype)
{
    int n, *b, *d;
    int err = lc_count_arrays(count, array_of_blocklengths, array_of_displacements, &n, &b, &d,
                              "MPI_Type_indexed_c");
    if (err) return err;
    err = MPI_Type_indexed(n, b, d, oldtype, newtype);
    free(b);
    free(d);
    return err;
}

int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                               const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                               MPI_Datatype *newtype)
{
    int n, *b, *d;
    int err = lc_count_arrays(count, array_of_blocklengths, NULL, &n, &b, &d,
                              "MPI_Type_create_hindexed_c");
    if (err) return err;
    err = MPI_Type_create_hindexed(n, b, (const MPI_Aint *)array_of_displacements, oldtype, newtype);
    free(b);
    return err;
}

int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                    const MPI_Count array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int n, bl, *b, *d;
    if (!mlc_int(blocklength, &bl))
        return mpi_err(NULL, MPI_ERR_COUNT, "MPI_Type_create_indexed_block_c", "blocklength beyond int");
    int err = lc_count_arrays(count, NULL, array_of_displacements, &n, &b, &d,
                              "MPI_Type_create_indexed_block_c");
    if (err) return err;
    err = MPI_Type_create_indexed_block(n, bl, d, oldtype, newtype);
    free(d);
    return err;
}

int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[],
                                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int n, bl;
    if (!mlc_int(count, &n) || !mlc_int(blocklength, &bl))
        return mpi_err(NULL, MPI_ERR_COUNT, "MPI_Type_create_hindexed_block_c", "a count beyond int");
    return MPI_Type_create_hindexed_block(n, bl, (const MPI_Aint *)array_of_displacements, oldtype,
                                          newtype);
}

int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                             const MPI_Count array_of_displacements[],
                             const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    int n, *b, *d;
    int err = lc_count_arrays(count, array_of_blocklengths, NULL, &n, &b, &d,
                              "MPI_Type_create_struct_c");
    if (err) return err;
    err = MPI_Type_create_struct(n, b, (const MPI_Aint *)array_of_displacements, array_of_types,
                                 newtype);
    free(b);
    return err;
}

/* ---- pack ---------------------------------------------------------------------------------- */

int MPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
               MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    int n, size, pos;
    if (!position) return mlc_err(comm, MPI_ERR_ARG, "MPI_Pack_c", "position is NULL");
    if (!mlc_int(incount, &n) || !mlc_int(outsize, &size) || !mlc_int(*position, &pos))
        return mlc_err(comm, MPI_ERR_COUNT, "MPI_Pack_c", "a count or position beyond int (not supported)");
    int err = MPI_Pack(inbuf, n, datatype, outbuf, size, &pos, comm);
    if (!err) *position = pos;
    return err;
}

int MPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                 MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    int n, size, pos;
    if (!position) return mlc_err(comm, MPI_ERR_ARG, "MPI_Unpack_c", "position is NULL");
    if (!mlc_int(outcount, &n) || !mlc_int(insize, &size) || !mlc_int(*position, &pos))
        return mlc_err(comm, MPI_ERR_COUNT, "MPI_Unpack_c", "a count or position beyond int (not supported)");
    int err = MPI_Unpack(inbuf, size, &pos, outbuf, n, datatype, comm);
    if (!err) *position = pos;
    return err;
}

int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    static const char fn[] = "MPI_Pack_size_c";
    if (!mcomm_get(comm)) return mlc_err(comm, MPI_ERR_COMM, fn, NULL);
    if (incount < 0) return mlc_err(comm, MPI_ERR_COUNT, fn, "negative count");
    if (!size) return mlc_err(comm, MPI_ERR_ARG, fn, "size is NULL");
    MPI_Count one, n;
    int err = MPI_Type_size_x(datatype, &one); /* MPI_Pack_size is count * size here */
    if (err) return err;
    if (__builtin_mul_overflow(incount, one, &n))
        return mlc_err(comm, MPI_ERR_COUNT, fn, "the packed size does not fit MPI_Count");
    *size = n;
    return MPI_SUCCESS;
}

/* ---- envelopes, subarrays and darrays ------------------------------------------------------- */

/* Sluice keeps every constructor's arguments as ints and addresses, so no
 * type has large counts in its contents (num_large_counts 0).  A type made
 * by a _c constructor with counts beyond int is a resized struct
 * (mlc_make) and says so. */
int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                            MPI_Count *num_addresses, MPI_Count *num_large_counts,
                            MPI_Count *num_datatypes, int *combiner)
{
    int ni, na, nd;
    if (!num_integers || !num_addresses || !num_large_counts || !num_datatypes)
        return mpi_err(NULL, MPI_ERR_ARG, "MPI_Type_get_envelope_c", "NULL argument");
    int err = MPI_Type_get_envelope(datatype, &ni, &na, &nd, combiner);
    if (err) return err;
    *num_integers = ni;
    *num_addresses = na;
    *num_large_counts = 0;
    *num_datatypes = nd;
    return MPI_SUCCESS;
}

/* A maximum given as MPI_Count: more than an int can say is as good as INT_MAX. */
static int clamp(MPI_Count v)
{
    return v > INT_MAX ? INT_MAX : v < 0 ? -1 : (int)v;
}

int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                            MPI_Count max_addresses, MPI_Count max_large_counts,
                            MPI_Count max_datatypes, int array_of_integers[],
                            MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                            MPI_Datatype array_of_datatypes[])
{
    (void)max_large_counts, (void)array_of_large_counts; /* none, see above */
    return MPI_Type_get_contents(datatype, clamp(max_integers), clamp(max_addresses),
                                 clamp(max_datatypes), array_of_integers, array_of_addresses,
                                 array_of_datatypes);
}

/* ndims arrays of sizes as ints (MPI_ERR_COUNT beyond). */
static int dims_as_ints(int ndims, const MPI_Count *a, int **out, const char *fn)
{
    return mlc_ints(a, ndims > 0 ? ndims : 0, out, MPI_COMM_WORLD, fn);
}

int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                               const MPI_Count array_of_subsizes[],
                               const MPI_Count array_of_starts[], int order,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_subarray_c";
    int *sz = NULL, *sub = NULL, *st = NULL;
    int err = dims_as_ints(ndims, array_of_sizes, &sz, fn);
    if (!err) err = dims_as_ints(ndims, array_of_subsizes, &sub, fn);
    if (!err) err = dims_as_ints(ndims, array_of_starts, &st, fn);
    if (!err) err = MPI_Type_create_subarray(ndims, sz, sub, st, order, oldtype, newtype);
    free(sz);
    free(sub);
    free(st);
    return err;
}

int MPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                             const int array_of_distribs[], const int array_of_dargs[],
                             const int array_of_psizes[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    int *gs = NULL;
    int err = dims_as_ints(ndims, array_of_gsizes, &gs, "MPI_Type_create_darray_c");
    if (!err)
        err = MPI_Type_create_darray(size, rank, ndims, gs, array_of_distribs, array_of_dargs,
                                     array_of_psizes, order, oldtype, newtype);
    free(gs);
    return err;
}
