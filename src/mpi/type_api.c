/* MPI datatype functions over the engine (datatype.h): argument checks and
 * the translation of each constructor into blocks (child, length, byte
 * displacement).  Every function returns an error class; error-handler
 * dispatch is the caller's (added with communicators). */
#include "mpi/datatype.h"
#include "mpi/mpi_int.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#define RETURN_IF(cond, err)                                                                \
    do {                                                                                    \
        if (cond) return (err);                                                             \
    } while (0)

static int to_int(MPI_Count v)
{
    return v > INT_MAX || v < INT_MIN ? MPI_UNDEFINED : (int)v;
}

/* One block per entry, all of type old: blocklengths bl (or one length
 * blen for all when bl is NULL), displacements in bytes computed by
 * disp_of(i). */
typedef MPI_Aint (*disp_fn)(const void *ctx, int i);

static int build_blocks(int combiner, int count, const int *bl, int blen, mdt_type_t *old,
                        disp_fn disp_of, const void *ctx, MPI_Datatype *newtype)
{
    mdt_entry_t *ent = malloc((count ? (size_t)count : 1u) * sizeof *ent);
    if (!ent) return MPI_ERR_NO_MEM;
    for (int i = 0; i < count; i++)
        ent[i] = (mdt_entry_t){.type = old, .blocklen = bl ? bl[i] : blen,
                               .disp = disp_of(ctx, i)};
    int rc = mdt_create(combiner, (size_t)count, ent, newtype);
    free(ent);
    return rc;
}

typedef struct stride_ctx {
    MPI_Aint stride; /* bytes */
} stride_ctx_t;

static MPI_Aint disp_stride(const void *ctx, int i)
{
    return (MPI_Aint)i * ((const stride_ctx_t *)ctx)->stride;
}

typedef struct index_ctx {
    const int *d;
    MPI_Aint unit; /* extent of old */
} index_ctx_t;

static MPI_Aint disp_index(const void *ctx, int i)
{
    const index_ctx_t *c = ctx;
    return (MPI_Aint)c->d[i] * c->unit;
}

static MPI_Aint disp_bytes(const void *ctx, int i)
{
    return ((const MPI_Aint *)ctx)[i];
}

/* The constructor's arguments for MPI_Type_get_contents: the caller fills
 * what args_new allocates, type_finish attaches it to the new type (or
 * drops it when the construction failed). */
static mdt_args_t *args_new(int combiner, int ni, int na, mdt_type_t *old)
{
    mdt_args_t *a = mdt_args_alloc(combiner, ni, na, old ? 1 : 0);
    if (a && old) a->types[0] = old;
    return a;
}

static int type_finish(int rc, mdt_args_t *a, MPI_Datatype *newtype)
{
    if (rc != MPI_SUCCESS) {
        mdt_args_free(a);
        return rc;
    }
    mdt_args_attach(mdt_get(*newtype), a);
    return MPI_SUCCESS;
}

static void copy_ints(int *to, const int *from, int n)
{
    for (int i = 0; i < n; i++) to[i] = from[i];
}

static int check_lengths(int count, const int *bl)
{
    for (int i = 0; i < count; i++) RETURN_IF(bl[i] < 0, MPI_ERR_ARG);
    return MPI_SUCCESS;
}

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RETURN_IF(count < 0, MPI_ERR_COUNT);
    mdt_type_t *old = mdt_get(oldtype);
    RETURN_IF(!old, MPI_ERR_TYPE);
    RETURN_IF(!newtype, MPI_ERR_ARG);
    mdt_args_t *a = args_new(MPI_COMBINER_CONTIGUOUS, 1, 0, old);
    RETURN_IF(!a, MPI_ERR_NO_MEM);
    a->ints[0] = count;
    mdt_entry_t e = {.type = old, .blocklen = count, .disp = 0};
    return type_finish(mdt_create(MPI_COMBINER_CONTIGUOUS, 1, &e, newtype), a, newtype);
}

static int hvector(int combiner, int count, int blocklength, MPI_Aint stride_bytes,
                   mdt_type_t *old, MPI_Datatype *newtype)
{
    stride_ctx_t c = {.stride = stride_bytes};
    return build_blocks(combiner, count, NULL, blocklength, old, disp_stride, &c, newtype);
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype)
{
    RETURN_IF(count < 0, MPI_ERR_COUNT);
    RETURN_IF(blocklength < 0, MPI_ERR_ARG);
    mdt_type_t *old = mdt_get(oldtype);
    RETURN_IF(!old, MPI_ERR_TYPE);
    RETURN_IF(!newtype, MPI_ERR_ARG);
    mdt_args_t *a = args_new(MPI_COMBINER_VECTOR, 3, 0, old);
    RETURN_IF(!a, MPI_ERR_NO_MEM);
    a->ints[0] = count, a->ints[1] = blocklength, a->ints[2] = stride;
    return type_finish(hvector(MPI_COMBINER_VECTOR, count, blocklength,
                               (MPI_Aint)stride * mdt_extent(old), old, newtype),
                       a, newtype);
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    RETURN_IF(count < 0, MPI_ERR_COUNT);
    RETURN_IF(blocklength < 0, MPI_ERR_ARG);
    mdt_type_t *old = mdt_get(oldtype);
    RETURN_IF(!old, MPI_ERR_TYPE);
    RETURN_IF(!newtype, MPI_ERR_ARG);
    mdt_args_t *a = args_new(MPI_COMBINER_HVECTOR, 2, 1, old);
    RETURN_IF(!a, MPI_ERR_NO_MEM);
    a->ints[0] = count, a->ints[1] = blocklength, a->aints[0] = stride;
    return type_finish(hvector(MPI_COMBINER_HVECTOR, count, blocklength, stride, old, newtype), a,
                       newtype);
}

int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    return MPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    RETURN_IF(count < 0, MPI_ERR_COUNT);
    RETURN_IF(count > 0 && (!array_of_blocklengths || !array_of_displacements), MPI_ERR_ARG);
    mdt_type_t *old = mdt_get(oldtype);
    RETURN_IF(!old, MPI_ERR_TYPE);
    RETURN_IF(!newtype, MPI_ERR_ARG);
    int rc = check_lengths(count, array_of_blocklengths);
    RETURN_IF(rc != MPI_SUCCESS, rc);
    mdt_args_t *a = args_new(MPI_COMBINER_INDEXED, 2 * count + 1, 0, old);
    RETURN_IF(!a, MPI_ERR_NO_MEM);
    a->ints[0] = count;
    copy_ints(a->ints + 1, array_of_blocklengths, count);
    copy_ints(a->ints + 1 + count, array_of_displacements, count);
    index_ctx_t c = {.d = array_of_displacements, .unit = mdt_extent(old)};
    return type_finish(build_blocks(MPI_COMBINER_INDEXED, count, array_of_blocklengths, 0, old,
                                    disp_index, &c, newtype),
                       a, newtype);
}

int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    RETURN_IF(count < 0, MPI_ERR_COUNT);
    RETURN_IF(count > 0 && (!array_of_blocklengths || !array_of_displacements), MPI_ERR_ARG);
    mdt_type_t *old = mdt_get(oldtype);
    RETURN_IF(!old, MPI_ERR_TYPE);
    RETURN_IF(!newtype, MPI_ERR_ARG);
    int rc = check_lengths(count, array_of_blocklengths);
    RETURN_IF(rc != MPI_SUCCESS, rc);
    mdt_args_t *a = args_new(MPI_COMBINER_HINDEXED, count + 1, count, old);
    RETURN_IF(!a, MPI_ERR_NO_MEM);
    a->ints[0] = count;
    copy_ints(a->ints + 1, array_of_blocklengths, count);
    for (int i = 0; i < count; i++) a->aints[i] = array_of_displacements[i];
    return type_finish(build_blocks(MPI_COMBINER_HINDEXED, count, array_of_blocklengths, 0, old,
                                    disp_bytes, array_of_displacements, newtype),
                       a, newtype);
}

int MPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return MPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements, oldtype,
                                    newtype);
}

int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RETURN_IF(count < 0, MPI_ERR_COUNT);
    RETURN_IF(blocklength < 0, MPI_ERR_ARG);
    RETURN_IF(count > 0 && !array_of_displacements, MPI_ERR_ARG);
    mdt_type_t *old = mdt_get(oldtype);
    RETURN_IF(!old, MPI_ERR_TYPE);
    RETURN_IF(!newtype, MPI_ERR_ARG);
    mdt_args_t *a = args_new(MPI_COMBINER_INDEXED_BLOCK, count + 2, 0, old);
    RETURN_IF(!a, MPI_ERR_NO_MEM);
    a->ints[0] = count, a->ints[1] = blocklength;
    copy_ints(a->ints + 2, array_of_displacements, count);
    index_ctx_t c = {.d = array_of_displacements, .unit = mdt_extent(old)};
    return type_finish(build_blocks(MPI_COMBINER_INDEXED_BLOCK, count, NULL, blocklength, old,
                                    disp_index, &c, newtype),
                       a, newtype);
}

int MPI_Type_create_hindexed_block(int count, int blocklength,
                                   const MPI_Aint array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RETURN_IF(count < 0, MPI_ERR_COUNT);
    RETURN_IF(blocklength < 0, MPI_ERR_ARG);
    RETURN_IF(count > 0 && !array_of_displacements, MPI_ERR_ARG);
    mdt_type_t *old = mdt_get(oldtype);
    RETURN_IF(!old, MPI_ERR_TYPE);
    RETURN_IF(!newtype, MPI_ERR_ARG);
    mdt_args_t *a = args_new(MPI_COMBINER_HINDEXED_BLOCK, 2, count, old);
    RETURN_IF(!a, MPI_ERR_NO_MEM);
    a->ints[0] = count, a->ints[1] = blocklength;
    for (int i = 0; i < count; i++) a->aints[i] = array_of_displacements[i];
    return type_finish(build_blocks(MPI_COMBINER_HINDEXED_BLOCK, count, NULL, blocklength, old,
                                    disp_bytes, array_of_displacements, newtype),
                       a, newtype);
}

int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    RETURN_IF(count < 0, MPI_ERR_COUNT);
    RETURN_IF(count > 0 && (!array_of_blocklengths || !array_of_displacements ||
                            !array_of_types),
              MPI_ERR_ARG);
    RETURN_IF(!newtype, MPI_ERR_ARG);
    int rc = check_lengths(count, array_of_blocklengths);
    RETURN_IF(rc != MPI_SUCCESS, rc);
    mdt_entry_t *ent = malloc((count ? (size_t)count : 1u) * sizeof *ent);
    mdt_args_t *a = mdt_args_alloc(MPI_COMBINER_STRUCT, count + 1, count, count);
    if (!ent || !a) {
        free(ent);
        mdt_args_free(a);
        return MPI_ERR_NO_MEM;
    }
    a->ints[0] = count;
    copy_ints(a->ints + 1, array_of_blocklengths, count);
    for (int i = 0; i < count; i++) {
        mdt_type_t *t = mdt_get(array_of_types[i]);
        if (!t) {
            free(ent);
            mdt_args_free(a);
            return MPI_ERR_TYPE;
        }
        ent[i] = (mdt_entry_t){.type = t, .blocklen = array_of_blocklengths[i],
                               .disp = array_of_displacements[i]};
        a->aints[i] = array_of_displacements[i];
        a->types[i] = t;
    }
    rc = mdt_create(MPI_COMBINER_STRUCT, (size_t)count, ent, newtype);
    free(ent);
    return type_finish(rc, a, newtype);
}

int MPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                    MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return MPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements,
                                  array_of_types, newtype);
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype)
{
    mdt_type_t *old = mdt_get(oldtype);
    RETURN_IF(!old, MPI_ERR_TYPE);
    RETURN_IF(!newtype, MPI_ERR_ARG);
    mdt_args_t *a = args_new(MPI_COMBINER_RESIZED, 0, 2, old);
    RETURN_IF(!a, MPI_ERR_NO_MEM);
    a->aints[0] = lb, a->aints[1] = extent;
    return type_finish(mdt_create_resized(old, lb, extent, newtype), a, newtype);
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    mdt_type_t *old = mdt_get(oldtype);
    RETURN_IF(!old, MPI_ERR_TYPE);
    RETURN_IF(!newtype, MPI_ERR_ARG);
    MPI_Datatype made;
    mdt_args_t *a = args_new(MPI_COMBINER_DUP, 0, 0, old);
    RETURN_IF(!a, MPI_ERR_NO_MEM);
    int rc = type_finish(mdt_create_dup(old, &made), a, &made);
    if (rc) return rc;
    /* the copy callbacks of old's attributes (MPI 4.0 §7.7.4) */
    if (mattr_copy_all(oldtype, old->attrs, made, &mdt_get(made)->attrs) != MPI_SUCCESS) {
        mdt_free_handle(made);
        return MPI_ERR_OTHER;
    }
    *newtype = made;
    return MPI_SUCCESS;
}

int MPI_Type_commit(MPI_Datatype *datatype)
{
    RETURN_IF(!datatype, MPI_ERR_ARG);
    mdt_type_t *t = mdt_get(*datatype);
    RETURN_IF(!t, MPI_ERR_TYPE);
    return mdt_commit(t);
}

int MPI_Type_free(MPI_Datatype *datatype)
{
    /* under the library's lock with threads: a call that looked the type up
     * holds a reference before it lets the lock go (pt2pt.c) */
    MPI_ENTER();
    RETURN_IF(!datatype, MPI_ERR_ARG);
    /* Predefined types are permanent (MPI_ERR_TYPE, as MPICH). */
    mdt_type_t *t = mdt_get(*datatype);
    RETURN_IF(!t || t->predefined, MPI_ERR_TYPE);
    /* the attributes' delete callbacks run at the free (MPI 4.0 §7.7.4) */
    RETURN_IF(mattr_delete_all(*datatype, &t->attrs) != MPI_SUCCESS, MPI_ERR_OTHER);
    int rc = mdt_free_handle(*datatype);
    if (rc == MPI_SUCCESS) *datatype = MPI_DATATYPE_NULL;
    return rc;
}

/* ---- queries ------------------------------------------------------------- */

int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    mdt_type_t *t = mdt_get(datatype);
    RETURN_IF(!t, MPI_ERR_TYPE);
    RETURN_IF(!size, MPI_ERR_ARG);
    *size = t->size;
    return MPI_SUCCESS;
}

int MPI_Type_size(MPI_Datatype datatype, int *size)
{
    MPI_Count s;
    RETURN_IF(!size, MPI_ERR_ARG);
    int rc = MPI_Type_size_x(datatype, &s);
    if (rc == MPI_SUCCESS) *size = to_int(s);
    return rc;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    mdt_type_t *t = mdt_get(datatype);
    RETURN_IF(!t, MPI_ERR_TYPE);
    RETURN_IF(!lb || !extent, MPI_ERR_ARG);
    *lb = t->lb;
    *extent = mdt_extent(t);
    return MPI_SUCCESS;
}

int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    MPI_Aint l, e;
    RETURN_IF(!lb || !extent, MPI_ERR_ARG);
    int rc = MPI_Type_get_extent(datatype, &l, &e);
    if (rc == MPI_SUCCESS) *lb = l, *extent = e;
    return rc;
}

int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    mdt_type_t *t = mdt_get(datatype);
    RETURN_IF(!t, MPI_ERR_TYPE);
    RETURN_IF(!true_lb || !true_extent, MPI_ERR_ARG);
    *true_lb = t->true_lb;
    *true_extent = t->true_ub - t->true_lb;
    return MPI_SUCCESS;
}

int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                               MPI_Count *true_extent)
{
    MPI_Aint l, e;
    RETURN_IF(!true_lb || !true_extent, MPI_ERR_ARG);
    int rc = MPI_Type_get_true_extent(datatype, &l, &e);
    if (rc == MPI_SUCCESS) *true_lb = l, *true_extent = e;
    return rc;
}

int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_Aint lb;
    RETURN_IF(!extent, MPI_ERR_ARG);
    return MPI_Type_get_extent(datatype, &lb, extent);
}

int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    mdt_type_t *t = mdt_get(datatype);
    RETURN_IF(!t, MPI_ERR_TYPE);
    RETURN_IF(!displacement, MPI_ERR_ARG);
    *displacement = t->lb;
    return MPI_SUCCESS;
}

int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    mdt_type_t *t = mdt_get(datatype);
    RETURN_IF(!t, MPI_ERR_TYPE);
    RETURN_IF(!displacement, MPI_ERR_ARG);
    *displacement = t->ub;
    return MPI_SUCCESS;
}

/* ---- status -------------------------------------------------------------- */

static bool status_invalid(const MPI_Status *s)
{
    return !s || s == MPI_STATUS_IGNORE;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    RETURN_IF(status_invalid(status) || !count, MPI_ERR_ARG);
    mdt_type_t *t = mdt_get(datatype);
    RETURN_IF(!t, MPI_ERR_TYPE);
    MPI_Count bytes = mdt_status_bytes(status);
    if (t->size == 0)
        *count = bytes == 0 ? 0 : MPI_UNDEFINED;
    else
        *count = bytes % t->size ? MPI_UNDEFINED : to_int(bytes / t->size);
    return MPI_SUCCESS;
}

int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    RETURN_IF(status_invalid(status) || !count, MPI_ERR_ARG);
    mdt_type_t *t = mdt_get(datatype);
    RETURN_IF(!t, MPI_ERR_TYPE);
    *count = mdt_elements_in(t, mdt_status_bytes(status));
    return MPI_SUCCESS;
}

int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count n;
    RETURN_IF(!count, MPI_ERR_ARG);
    int rc = MPI_Get_elements_x(status, datatype, &n);
    if (rc == MPI_SUCCESS) *count = n == MPI_UNDEFINED ? MPI_UNDEFINED : to_int(n);
    return rc;
}

int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    RETURN_IF(status_invalid(status), MPI_ERR_ARG);
    RETURN_IF(count < 0, MPI_ERR_COUNT);
    mdt_type_t *t = mdt_get(datatype);
    RETURN_IF(!t, MPI_ERR_TYPE);
    mdt_status_set_bytes(status, mdt_bytes_of_elements(t, count));
    return MPI_SUCCESS;
}

int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return MPI_Status_set_elements_x(status, datatype, count);
}

int MPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    RETURN_IF(status_invalid(status), MPI_ERR_ARG);
    mdt_status_set_cancelled(status, flag != 0);
    return MPI_SUCCESS;
}

int MPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    RETURN_IF(status_invalid(status) || !flag, MPI_ERR_ARG);
    *flag = mdt_status_cancelled(status);
    return MPI_SUCCESS;
}

/* ---- addresses ----------------------------------------------------------- */

int MPI_Get_address(const void *location, MPI_Aint *address)
{
    RETURN_IF(!address, MPI_ERR_ARG);
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

int MPI_Address(void *location, MPI_Aint *address)
{
    return MPI_Get_address(location, address);
}

MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}

/* ---- pack/unpack (the communicator argument is not examined yet) ---------- */

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    RETURN_IF(!mcomm_get(comm), MPI_ERR_COMM);
    RETURN_IF(incount < 0, MPI_ERR_COUNT);
    mdt_type_t *t = mdt_get(datatype);
    RETURN_IF(!t, MPI_ERR_TYPE);
    RETURN_IF(!size, MPI_ERR_ARG);
    *size = to_int((MPI_Count)incount * t->size);
    return MPI_SUCCESS;
}

int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    RETURN_IF(!mcomm_get(comm), MPI_ERR_COMM);
    RETURN_IF(incount < 0, MPI_ERR_COUNT);
    mdt_type_t *t = mdt_get_committed(datatype, &rc);
    RETURN_IF(!t, rc);
    RETURN_IF(!position || outsize < 0 || *position < 0, MPI_ERR_ARG);
    MPI_Count bytes = (MPI_Count)incount * t->size;
    RETURN_IF(bytes > (MPI_Count)outsize - *position, MPI_ERR_TRUNCATE);
    RETURN_IF(bytes > 0 && !outbuf, MPI_ERR_ARG);
    if (bytes > 0) mdt_pack(t, inbuf, incount, (char *)outbuf + *position);
    *position += (int)bytes;
    return MPI_SUCCESS;
}

int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    RETURN_IF(!mcomm_get(comm), MPI_ERR_COMM);
    RETURN_IF(outcount < 0, MPI_ERR_COUNT);
    mdt_type_t *t = mdt_get_committed(datatype, &rc);
    RETURN_IF(!t, rc);
    RETURN_IF(!position || insize < 0 || *position < 0, MPI_ERR_ARG);
    MPI_Count bytes = (MPI_Count)outcount * t->size;
    RETURN_IF(bytes > (MPI_Count)insize - *position, MPI_ERR_TRUNCATE);
    RETURN_IF(bytes > 0 && !inbuf, MPI_ERR_ARG);
    if (bytes > 0) mdt_unpack(t, outbuf, outcount, (const char *)inbuf + *position);
    *position += (int)bytes;
    return MPI_SUCCESS;
}
