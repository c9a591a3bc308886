/* The MPI datatype engine (prefix mdt_).
 *
 * A datatype is an mdt_type_t.  Predefined types are static objects found
 * by decoding their handle (include/mpi.h: 0x4c000000 | size << 8 | index,
 * or one of MPICH's five pair handles 0x8c00000k);
 * derived types live in a generation-checked handle table (handle.h), so a
 * freed or stale handle is MPI_ERR_TYPE, never a crash.
 *
 * Every derived type is kept as the list of its constructor's blocks,
 * (child type, block length, byte displacement): contiguous is one block,
 * vector/hvector/indexed/hindexed/indexed_block/hindexed_block/struct one
 * block per entry, resized and dup one block of one child.  From it come the
 * size, the bounds (lb, ub, extent: MPI's rules including the "sticky"
 * bounds of resized types and MPICH's alignment padding of struct extents),
 * the true bounds, the number of basic elements, and, at commit, the
 * flattened form: the contiguous pieces (offset from the buffer, length,
 * position in the packed stream) of one element in type-map order, adjacent
 * pieces merged.  Instance k of a count is the same list shifted by
 * k * extent.  Packing cost and flattened size both grow with the number of
 * pieces; a type whose one piece spans its whole extent is "dense", and any
 * count of it is one memcpy.  A type that would need more than
 * mdt_max_pieces pieces (default 4 Mi, about 100 MB) is not flattened: its
 * walks recurse through the constructor blocks down to the largest
 * flattened children (one callback per child piece, no merging).
 *
 * Thread safety: lookups are lock-free; constructors, commit and free take
 * one engine lock; pack/unpack only read committed types.  A type in use by
 * a pending operation is kept alive by mdt_retain/mdt_release, so
 * MPI_Type_free during a transfer is harmless (MPI 3.1 §4.1.9). */
#ifndef SL_MPI_DATATYPE_H
#define SL_MPI_DATATYPE_H

#include <mpi.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Size of a kind-1 predefined datatype, decoded from its handle. */
#define MDT_BUILTIN_SIZE(dt) ((int)(((uint32_t)(dt) >> 8) & 0xffu))
/* MPICH's kind-2 pair handles (0x8c00000k) follow the kind-1 indexes
 * (MPICH's go up to 0x46) in the table of predefined types.  A run-time
 * datatype handle never has generation 0 (handle.c), so it is never one. */
#define MDT_PAIR_BASE 0x48
#define MDT_IS_PAIR_HANDLE(dt) ((((uint32_t)(dt)) & 0xffffff00u) == 0x8c000000u)
#define MDT_BUILTIN_INDEX(dt)                                                               \
    ((int)((uint32_t)(dt) & 0xffu) + (MDT_IS_PAIR_HANDLE(dt) ? MDT_PAIR_BASE : 0))
#define MDT_IS_BUILTIN(dt)                                                                  \
    (((((uint32_t)(dt)) & 0xffff0000u) == 0x4c000000u) || MDT_IS_PAIR_HANDLE(dt))

typedef struct mdt_type mdt_type_t;

/* One block of a constructor: blocklen copies of type, the first at disp
 * bytes, the next ones each one extent of type further. */
typedef struct mdt_entry {
    mdt_type_t *type;
    MPI_Count blocklen;
    MPI_Aint disp;
} mdt_entry_t;

/* One contiguous piece of the flattened form. */
typedef struct mdt_piece {
    MPI_Aint off;  /* from the buffer address, for element 0 */
    MPI_Aint len;  /* > 0 */
    MPI_Count pos; /* offset in the packed stream of one element */
} mdt_piece_t;

/* Element kinds of basic types, for the reduction operations. */
typedef enum mdt_kind {
    MDT_KIND_DERIVED = 0,
    MDT_KIND_INT,     /* signed integers, char types */
    MDT_KIND_UINT,    /* unsigned integers */
    MDT_KIND_FLOAT,   /* real floating point */
    MDT_KIND_COMPLEX, /* complex floating point */
    MDT_KIND_BOOL,    /* C bool, Fortran LOGICAL */
    MDT_KIND_BYTE,    /* MPI_BYTE, MPI_PACKED: no arithmetic */
    MDT_KIND_PAIR     /* value-index pairs of MINLOC/MAXLOC */
} mdt_kind_t;

/* The arguments of the constructor call that made a derived type, as
 * MPI_Type_get_contents returns them (MPI 4.0 §5.1.13); types hold a
 * reference each.  One malloc'd block. */
typedef struct mdt_args {
    int combiner;
    int ni, na, nd;
    int *ints;
    MPI_Aint *aints;
    mdt_type_t **types;
} mdt_args_t;

struct mdt_type {
    int handle;      /* own handle */
    int combiner;    /* MPI_COMBINER_* */
    int refs;        /* handle + parents + mdt_retain; atomic */
    bool predefined; /* static object, never freed */
    bool committed;
    bool lb_sticky, ub_sticky; /* bounds fixed by MPI_Type_create_resized */
    bool dense;                /* flattened: one piece covering the extent */
    bool tree;                 /* too many pieces to flatten: walk the blocks */
    mdt_kind_t kind;           /* basic types and pairs; DERIVED otherwise */
    int align;                 /* largest alignment of its basic types */
    MPI_Count size;            /* bytes of data in one element */
    MPI_Count nelem;           /* basic elements in one element */
    MPI_Aint lb, ub;           /* extent = ub - lb */
    MPI_Aint true_lb, true_ub;
    size_t nent;
    mdt_entry_t *ent; /* constructor blocks (NULL for basic types) */
    size_t npieces;
    mdt_piece_t *pieces; /* flattened form; built by commit */
    const char *name;    /* predefined types: "MPI_INT" ... */
    char *set_name;      /* MPI_Type_set_name's (malloc'd), overrides name; NULL */
    struct mattr *attrs; /* cached attributes (attr.c), newest first */
    mdt_args_t *args;    /* constructor arguments; NULL for predefined types */
};

/* ---- lookup and lifetime ---- */

/* The type of a handle (predefined or derived, committed or not), or NULL
 * for MPI_DATATYPE_NULL, freed, stale or invalid handles.  Lock-free; any
 * thread. */
mdt_type_t *mdt_get(MPI_Datatype dt);
/* As mdt_get, and sets *err (MPI_ERR_TYPE) when the handle is invalid or
 * the type is not committed (what communication calls need). */
mdt_type_t *mdt_get_committed(MPI_Datatype dt, int *err);
/* Keep a type alive across its handle being freed (pending operations);
 * no-ops on predefined types (inline: twice per message).  Any thread. */
void mdt_retain_derived(mdt_type_t *t);
void mdt_release_derived(mdt_type_t *t);
static inline void mdt_retain(mdt_type_t *t)
{
    if (!t->predefined) mdt_retain_derived(t);
}
static inline void mdt_release(mdt_type_t *t)
{
    if (!t->predefined) mdt_release_derived(t);
}
/* The predefined kind-1 types whose element is one dense piece, by handle
 * index; filled when the predefined types are set up (the first mdt_get),
 * NULL before and for every other index. */
extern mdt_type_t *mdt_dense_builtin[256];
/* The type of dt if it is a predefined dense type (contiguous for any
 * count, lb 0): the message-rate path's lookup; NULL otherwise (the
 * caller then takes mdt_get_committed's path). */
static inline mdt_type_t *mdt_get_dense_builtin(MPI_Datatype dt)
{
    uint32_t u = (uint32_t)dt;
    if ((u & 0xffff0000u) != 0x4c000000u) return NULL;
    mdt_type_t *t = __atomic_load_n(&mdt_dense_builtin[u & 0xffu], __ATOMIC_ACQUIRE);
    return t && t->handle == dt ? t : NULL;
}
/* Number of derived types still allocated (leak check at finalize). */
uint32_t mdt_live_count(void);

static inline MPI_Aint mdt_extent(const mdt_type_t *t)
{
    return t->ub - t->lb;
}

/* ---- construction (MPI_SUCCESS or an error class; *out on success) ---- */

/* Builds a derived type from its constructor blocks: takes a reference on
 * every entry's type; ent is copied.  combiner is MPI_COMBINER_*;
 * struct-like combiners get MPICH's alignment padding. */
int mdt_create(int combiner, size_t nent, const mdt_entry_t *ent, MPI_Datatype *out);
int mdt_create_resized(mdt_type_t *old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *out);
int mdt_create_dup(mdt_type_t *old, MPI_Datatype *out);
/* Constructor arguments: alloc gives room for ni ints, na aints and nd
 * types (NULL when out of memory), for the caller to fill; attach gives
 * them to t (which takes a reference on each type and sets t->combiner
 * to a->combiner: subarray and darray are built of other constructors);
 * free is for an args never attached. */
mdt_args_t *mdt_args_alloc(int combiner, int ni, int na, int nd);
void mdt_args_attach(mdt_type_t *t, mdt_args_t *a);
void mdt_args_free(mdt_args_t *a);
/* One more handle for t, which the caller frees with MPI_Type_free
 * (MPI_Type_get_contents' "new datatype objects"); a predefined type's own
 * handle.  MPI_SUCCESS or MPI_ERR_INTERN (table full). */
int mdt_handle_again(mdt_type_t *t, MPI_Datatype *out);
/* Flattens and marks committed (idempotent). */
int mdt_commit(mdt_type_t *t);
/* Largest flattened form built by later commits (tests lower it to
 * exercise the unflattened walk).  Not thread-safe; set before use. */
void mdt_set_max_pieces(size_t n);
/* Drops the handle's reference; the object goes when nothing uses it. */
int mdt_free_handle(MPI_Datatype dt);

/* ---- data movement: committed types only ---- */

/* Calls fn(addr, len, pos, arg) for each contiguous piece of bytes
 * [from, to) of the packed stream of elements of t laid out from buf (pos
 * is the piece's offset in that stream), in stream order; stops early and
 * returns fn's value when it is nonzero.  Requires 0 <= from <= to <=
 * count * t->size.  Used by pack/unpack and for building I/O vectors. */
typedef int (*mdt_piece_fn)(void *addr, size_t len, MPI_Count pos, void *arg);
int mdt_walk(const mdt_type_t *t, const void *buf, MPI_Count from, MPI_Count to,
             mdt_piece_fn fn, void *arg);
/* Copies bytes [from, to) of the packed stream of elements of t at ubuf to
 * packed (which receives to - from bytes), or back (unpack).  Elements past
 * those touched by the range are not read or written. */
void mdt_pack_range(const mdt_type_t *t, const void *ubuf, MPI_Count from, MPI_Count to,
                    void *packed);
void mdt_unpack_range(const mdt_type_t *t, void *ubuf, MPI_Count from, MPI_Count to,
                      const void *packed);
static inline void mdt_pack(const mdt_type_t *t, const void *ubuf, MPI_Count count,
                            void *packed)
{
    mdt_pack_range(t, ubuf, 0, count * t->size, packed);
}
static inline void mdt_unpack(const mdt_type_t *t, void *ubuf, MPI_Count count,
                              const void *packed)
{
    mdt_unpack_range(t, ubuf, 0, count * t->size, packed);
}
/* True when count elements at buf are one contiguous block; then *addr is
 * where that block starts (buf shifted by the first piece's offset). */
bool mdt_is_contig(const mdt_type_t *t, MPI_Count count, const void *buf, void **addr);

/* ---- element counting ---- */

/* Basic elements in the first bytes of the packed stream of t, or
 * MPI_UNDEFINED when bytes ends inside a basic element. */
MPI_Count mdt_elements_in(const mdt_type_t *t, MPI_Count bytes);
/* Bytes of the packed stream holding the first nelem basic elements. */
MPI_Count mdt_bytes_of_elements(const mdt_type_t *t, MPI_Count nelem);

/* ---- status private fields ---- */

static inline void mdt_status_set_bytes(MPI_Status *s, MPI_Count bytes)
{
    uint64_t b = (uint64_t)bytes;
    s->count_lo = (int)(uint32_t)b;
    s->count_hi_and_cancelled =
        (int)(((uint32_t)(b >> 32) << 1) | ((uint32_t)s->count_hi_and_cancelled & 1u));
}
static inline MPI_Count mdt_status_bytes(const MPI_Status *s)
{
    return (MPI_Count)((uint64_t)(uint32_t)s->count_lo |
                       (uint64_t)((uint32_t)s->count_hi_and_cancelled >> 1) << 32);
}
static inline void mdt_status_set_cancelled(MPI_Status *s, bool cancelled)
{
    s->count_hi_and_cancelled =
        (int)(((uint32_t)s->count_hi_and_cancelled & ~1u) | (cancelled ? 1u : 0u));
}
static inline bool mdt_status_cancelled(const MPI_Status *s)
{
    return ((uint32_t)s->count_hi_and_cancelled & 1u) != 0;
}

#endif
