/* The datatype engine (datatype.h): predefined types, the derived-type
 * handle table, bounds under MPI's rules, flattening, range walks for
 * pack/unpack, element counting. */
#include "mpi/datatype.h"

#include "mpi/handle.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* ---- predefined types ---------------------------------------------------- */

#define MDT_NBUILTIN (MDT_PAIR_BASE + 8)

/* Basic types: handle, C type, kind.  The size bits of each handle are
 * checked against sizeof of its C type at compile time. */
#define MDT_BASIC_TABLE(X)                                                                  \
    X(MPI_CHAR, char, MDT_KIND_INT)                                                         \
    X(MPI_SIGNED_CHAR, signed char, MDT_KIND_INT)                                           \
    X(MPI_UNSIGNED_CHAR, unsigned char, MDT_KIND_UINT)                                      \
    X(MPI_BYTE, unsigned char, MDT_KIND_BYTE)                                               \
    X(MPI_WCHAR, wchar_t, MDT_KIND_INT)                                                     \
    X(MPI_SHORT, short, MDT_KIND_INT)                                                       \
    X(MPI_UNSIGNED_SHORT, unsigned short, MDT_KIND_UINT)                                    \
    X(MPI_INT, int, MDT_KIND_INT)                                                           \
    X(MPI_UNSIGNED, unsigned, MDT_KIND_UINT)                                                \
    X(MPI_LONG, long, MDT_KIND_INT)                                                         \
    X(MPI_UNSIGNED_LONG, unsigned long, MDT_KIND_UINT)                                      \
    X(MPI_FLOAT, float, MDT_KIND_FLOAT)                                                     \
    X(MPI_DOUBLE, double, MDT_KIND_FLOAT)                                                   \
    X(MPI_LONG_DOUBLE, long double, MDT_KIND_FLOAT)                                         \
    X(MPI_LONG_LONG_INT, long long, MDT_KIND_INT)                                           \
    X(MPI_UNSIGNED_LONG_LONG, unsigned long long, MDT_KIND_UINT)                            \
    X(MPI_PACKED, unsigned char, MDT_KIND_BYTE)                                             \
    X(MPI_INT8_T, int8_t, MDT_KIND_INT)                                                     \
    X(MPI_INT16_T, int16_t, MDT_KIND_INT)                                                   \
    X(MPI_INT32_T, int32_t, MDT_KIND_INT)                                                   \
    X(MPI_INT64_T, int64_t, MDT_KIND_INT)                                                   \
    X(MPI_UINT8_T, uint8_t, MDT_KIND_UINT)                                                  \
    X(MPI_UINT16_T, uint16_t, MDT_KIND_UINT)                                                \
    X(MPI_UINT32_T, uint32_t, MDT_KIND_UINT)                                                \
    X(MPI_UINT64_T, uint64_t, MDT_KIND_UINT)                                                \
    X(MPI_C_BOOL, _Bool, MDT_KIND_BOOL)                                                     \
    X(MPI_C_FLOAT_COMPLEX, float _Complex, MDT_KIND_COMPLEX)                                \
    X(MPI_C_DOUBLE_COMPLEX, double _Complex, MDT_KIND_COMPLEX)                              \
    X(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, MDT_KIND_COMPLEX)                    \
    X(MPI_AINT, MPI_Aint, MDT_KIND_INT)                                                     \
    X(MPI_OFFSET, MPI_Offset, MDT_KIND_INT)                                                 \
    X(MPI_COUNT, MPI_Count, MDT_KIND_INT)                                                   \
    X(MPI_CXX_BOOL, _Bool, MDT_KIND_BOOL)                                                   \
    X(MPI_CXX_FLOAT_COMPLEX, float _Complex, MDT_KIND_COMPLEX)                              \
    X(MPI_CXX_DOUBLE_COMPLEX, double _Complex, MDT_KIND_COMPLEX)                            \
    X(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex, MDT_KIND_COMPLEX)                  \
    X(MPI_CHARACTER, char, MDT_KIND_BYTE)                                                   \
    X(MPI_LOGICAL, int, MDT_KIND_BOOL)                                                      \
    X(MPI_INTEGER, int, MDT_KIND_INT)                                                       \
    X(MPI_REAL, float, MDT_KIND_FLOAT)                                                      \
    X(MPI_DOUBLE_PRECISION, double, MDT_KIND_FLOAT)                                         \
    X(MPI_COMPLEX, float _Complex, MDT_KIND_COMPLEX)                                        \
    X(MPI_DOUBLE_COMPLEX, double _Complex, MDT_KIND_COMPLEX)                                \
    X(MPI_INTEGER1, int8_t, MDT_KIND_INT)                                                   \
    X(MPI_INTEGER2, int16_t, MDT_KIND_INT)                                                  \
    X(MPI_INTEGER4, int32_t, MDT_KIND_INT)                                                  \
    X(MPI_INTEGER8, int64_t, MDT_KIND_INT)                                                  \
    X(MPI_REAL4, float, MDT_KIND_FLOAT)                                                     \
    X(MPI_REAL8, double, MDT_KIND_FLOAT)                                                    \
    X(MPI_COMPLEX8, float _Complex, MDT_KIND_COMPLEX)                                       \
    X(MPI_COMPLEX16, double _Complex, MDT_KIND_COMPLEX)

/* Value-index pairs: handle, first type, its handle, second type, its handle. */
#define MDT_PAIR_TABLE(X)                                                                   \
    X(MPI_FLOAT_INT, float, MPI_FLOAT, int, MPI_INT)                                        \
    X(MPI_DOUBLE_INT, double, MPI_DOUBLE, int, MPI_INT)                                     \
    X(MPI_LONG_INT, long, MPI_LONG, int, MPI_INT)                                           \
    X(MPI_SHORT_INT, short, MPI_SHORT, int, MPI_INT)                                        \
    X(MPI_2INT, int, MPI_INT, int, MPI_INT)                                                 \
    X(MPI_LONG_DOUBLE_INT, long double, MPI_LONG_DOUBLE, int, MPI_INT)                      \
    X(MPI_2INTEGER, int, MPI_INTEGER, int, MPI_INTEGER)                                     \
    X(MPI_2REAL, float, MPI_REAL, float, MPI_REAL)                                          \
    X(MPI_2DOUBLE_PRECISION, double, MPI_DOUBLE_PRECISION, double, MPI_DOUBLE_PRECISION)

#define MDT_CHECK_BASIC(h, ctype, kind)                                                     \
    _Static_assert(MDT_IS_BUILTIN(h) && MDT_BUILTIN_INDEX(h) < MDT_NBUILTIN &&              \
                       MDT_BUILTIN_SIZE(h) == sizeof(ctype),                                \
                   #h " encodes sizeof(" #ctype ")");
MDT_BASIC_TABLE(MDT_CHECK_BASIC)
/* MPICH's kind-2 pairs carry no size; the others the sum of the members. */
#define MDT_CHECK_PAIR(h, a, ha, b, hb)                                                     \
    _Static_assert(MDT_IS_BUILTIN(h) && MDT_BUILTIN_INDEX(h) < MDT_NBUILTIN &&              \
                       (MDT_IS_PAIR_HANDLE(h) || MDT_BUILTIN_SIZE(h) == sizeof(a) + sizeof(b)), \
                   #h " encodes its size");
MDT_PAIR_TABLE(MDT_CHECK_PAIR)

static mdt_type_t builtin[MDT_NBUILTIN];
static mdt_piece_t builtin_piece[MDT_NBUILTIN];
static mdt_entry_t pair_ent[MDT_NBUILTIN][2];
static mdt_piece_t pair_piece[MDT_NBUILTIN][2];
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;
mdt_type_t *mdt_dense_builtin[256];

static mh_table_t type_table = MH_TABLE_INIT(MH_CLASS_DATATYPE);
static size_t max_pieces = (size_t)1 << 22;
static pthread_mutex_t engine_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t live_derived;

static void basic_init(MPI_Datatype h, size_t size, size_t align, mdt_kind_t kind,
                       const char *name)
{
    int i = MDT_BUILTIN_INDEX(h);
    mdt_type_t *t = &builtin[i];
    builtin_piece[i] = (mdt_piece_t){.off = 0, .len = (MPI_Aint)size, .pos = 0};
    *t = (mdt_type_t){.handle = h, .combiner = MPI_COMBINER_NAMED, .refs = 1,
                      .predefined = true, .committed = true, .dense = true, .kind = kind,
                      .align = (int)align, .size = (MPI_Count)size, .nelem = 1, .lb = 0,
                      .ub = (MPI_Aint)size, .true_lb = 0, .true_ub = (MPI_Aint)size,
                      .npieces = 1, .pieces = &builtin_piece[i], .name = name};
}

static MPI_Aint round_up(MPI_Aint x, MPI_Aint a)
{
    return (x + a - 1) / a * a;
}

/* A pair is laid out as struct { a v; b i; }: the second member at the
 * first's size rounded to its alignment, the extent padded to the larger
 * alignment (what MPI_Type_create_struct gives for that struct). */
static void pair_init(MPI_Datatype h, MPI_Datatype ha, MPI_Datatype hb, const char *name)
{
    int i = MDT_BUILTIN_INDEX(h);
    mdt_type_t *a = &builtin[MDT_BUILTIN_INDEX(ha)], *b = &builtin[MDT_BUILTIN_INDEX(hb)];
    MPI_Aint db = round_up((MPI_Aint)a->size, b->align);
    int align = a->align > b->align ? a->align : b->align;
    pair_ent[i][0] = (mdt_entry_t){.type = a, .blocklen = 1, .disp = 0};
    pair_ent[i][1] = (mdt_entry_t){.type = b, .blocklen = 1, .disp = db};
    size_t np = 0;
    pair_piece[i][np++] = (mdt_piece_t){.off = 0, .len = (MPI_Aint)a->size, .pos = 0};
    if (db == (MPI_Aint)a->size)
        pair_piece[i][0].len += (MPI_Aint)b->size;
    else
        pair_piece[i][np++] = (mdt_piece_t){.off = db, .len = (MPI_Aint)b->size,
                                            .pos = a->size};
    MPI_Aint ub = round_up(db + (MPI_Aint)b->size, align);
    builtin[i] = (mdt_type_t){
        .handle = h, .combiner = MPI_COMBINER_NAMED, .refs = 1, .predefined = true,
        .committed = true, .kind = MDT_KIND_PAIR, .align = align, .size = a->size + b->size,
        .nelem = 2, .lb = 0, .ub = ub, .true_lb = 0, .true_ub = db + (MPI_Aint)b->size,
        .nent = 2, .ent = pair_ent[i], .npieces = np, .pieces = pair_piece[i], .name = name};
    builtin[i].dense = np == 1 && pair_piece[i][0].len == ub;
}

static void builtin_init(void)
{
#define MDT_INIT_BASIC(h, ctype, kind) basic_init(h, sizeof(ctype), _Alignof(ctype), kind, #h);
    MDT_BASIC_TABLE(MDT_INIT_BASIC)
#define MDT_INIT_PAIR(h, a, ha, b, hb) pair_init(h, ha, hb, #h);
    MDT_PAIR_TABLE(MDT_INIT_PAIR)
    for (int i = 0; i < MDT_NBUILTIN; i++) {
        mdt_type_t *t = &builtin[i];
        uint32_t h = (uint32_t)t->handle;
        if ((h & 0xffff0000u) == 0x4c000000u && t->dense && t->lb == 0 && t->size > 0 &&
            t->npieces == 1 && t->pieces[0].off == 0)
            __atomic_store_n(&mdt_dense_builtin[h & 0xffu], t, __ATOMIC_RELEASE);
    }
}

/* ---- lookup and lifetime ------------------------------------------------- */

mdt_type_t *mdt_get(MPI_Datatype dt)
{
    if (MDT_IS_BUILTIN(dt)) {
        pthread_once(&builtin_once, builtin_init);
        int i = MDT_BUILTIN_INDEX(dt);
        return i < MDT_NBUILTIN && builtin[i].handle == dt ? &builtin[i] : NULL;
    }
    return mh_get(&type_table, dt);
}

mdt_type_t *mdt_get_committed(MPI_Datatype dt, int *err)
{
    mdt_type_t *t = mdt_get(dt);
    if (!t || !__atomic_load_n(&t->committed, __ATOMIC_ACQUIRE)) {
        *err = MPI_ERR_TYPE;
        return NULL;
    }
    return t;
}

void mdt_retain_derived(mdt_type_t *t)
{
    __atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
}

static void args_release(mdt_args_t *a)
{
    if (!a) return;
    for (int i = 0; i < a->nd; i++) mdt_release(a->types[i]);
    free(a);
}

static void type_destroy(mdt_type_t *t)
{
    args_release(t->args);
    for (size_t i = 0; i < t->nent; i++) mdt_release(t->ent[i].type);
    free(t->ent);
    free(t->pieces);
    free(t->set_name);
    free(t);
    __atomic_sub_fetch(&live_derived, 1, __ATOMIC_RELAXED);
}

void mdt_release_derived(mdt_type_t *t)
{
    if (__atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) == 0) type_destroy(t);
}

uint32_t mdt_live_count(void)
{
    return __atomic_load_n(&live_derived, __ATOMIC_RELAXED);
}

/* ---- construction -------------------------------------------------------- */

mdt_args_t *mdt_args_alloc(int combiner, int ni, int na, int nd)
{
    /* aints first: the strictest alignment of the three arrays */
    size_t bytes = sizeof(mdt_args_t) + (size_t)na * sizeof(MPI_Aint) +
                   (size_t)nd * sizeof(mdt_type_t *) + (size_t)ni * sizeof(int);
    mdt_args_t *a = calloc(1, bytes);
    if (!a) return NULL;
    a->combiner = combiner;
    a->ni = ni;
    a->na = na;
    a->aints = (MPI_Aint *)(a + 1);
    a->types = (mdt_type_t **)(a->aints + na);
    a->ints = (int *)(a->types + nd);
    a->nd = nd;
    return a;
}

void mdt_args_attach(mdt_type_t *t, mdt_args_t *a)
{
    for (int i = 0; i < a->nd; i++) mdt_retain(a->types[i]);
    args_release(t->args);
    t->args = a;
    t->combiner = a->combiner;
}

void mdt_args_free(mdt_args_t *a)
{
    free(a);
}

int mdt_handle_again(mdt_type_t *t, MPI_Datatype *out)
{
    if (t->predefined) {
        *out = t->handle;
        return MPI_SUCCESS;
    }
    mdt_retain(t);
    int h = mh_new(&type_table, t);
    if (!h) {
        mdt_release(t);
        return MPI_ERR_INTERN;
    }
    *out = h;
    return MPI_SUCCESS;
}

static mdt_type_t *type_alloc(int combiner, size_t nent, const mdt_entry_t *ent)
{
    mdt_type_t *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    if (nent) {
        t->ent = malloc(nent * sizeof *t->ent);
        if (!t->ent) {
            free(t);
            return NULL;
        }
        memcpy(t->ent, ent, nent * sizeof *ent);
    }
    t->nent = nent;
    for (size_t i = 0; i < nent; i++) mdt_retain(ent[i].type);
    t->combiner = combiner;
    t->refs = 1;
    t->kind = MDT_KIND_DERIVED;
    t->align = 1;
    __atomic_add_fetch(&live_derived, 1, __ATOMIC_RELAXED);
    return t;
}

/* Size, element count, alignment, bounds and true bounds from the blocks.
 * A block of n copies of c at d spans [d + c.lb, d + c.ub) shifted by
 * (n - 1) * extent(c) on the side the extent points to.  Blocks of no data
 * (n == 0, or a child with no data and no fixed bounds) do not count.  If a
 * child has sticky bounds (resized), only sticky children set that bound
 * (MPI's lb/ub marker rule).  Struct extents without sticky bounds are
 * padded to a multiple of the largest member alignment (MPICH). */
static void type_bounds(mdt_type_t *t, bool pad)
{
    bool any = false, tany = false;
    MPI_Aint lb = 0, ub = 0, slb = 0, sub = 0, tlb = 0, tub = 0;
    for (size_t i = 0; i < t->nent; i++) {
        const mdt_entry_t *e = &t->ent[i];
        const mdt_type_t *c = e->type;
        if (e->blocklen == 0) continue;
        t->size += e->blocklen * c->size;
        t->nelem += e->blocklen * c->nelem;
        if (c->size == 0 && !c->lb_sticky && !c->ub_sticky) continue;
        if (c->align > t->align) t->align = c->align;
        MPI_Aint span = (MPI_Aint)(e->blocklen - 1) * mdt_extent(c);
        MPI_Aint lo_shift = span < 0 ? span : 0, hi_shift = span > 0 ? span : 0;
        MPI_Aint lo = e->disp + c->lb + lo_shift, hi = e->disp + c->ub + hi_shift;
        if (!any || lo < lb) lb = lo;
        if (!any || hi > ub) ub = hi;
        any = true;
        if (c->lb_sticky && (!t->lb_sticky || lo < slb)) slb = lo, t->lb_sticky = true;
        if (c->ub_sticky && (!t->ub_sticky || hi > sub)) sub = hi, t->ub_sticky = true;
        if (c->size > 0) {
            MPI_Aint tlo = e->disp + c->true_lb + lo_shift, thi = e->disp + c->true_ub + hi_shift;
            if (!tany || tlo < tlb) tlb = tlo;
            if (!tany || thi > tub) tub = thi;
            tany = true;
        }
    }
    if (t->lb_sticky) lb = slb;
    if (t->ub_sticky) ub = sub;
    if (pad && !t->lb_sticky && !t->ub_sticky && t->align > 1) {
        MPI_Aint eps = (ub - lb) % t->align;
        if (eps > 0) ub += t->align - eps;
    }
    t->lb = lb;
    t->ub = ub;
    t->true_lb = tlb;
    t->true_ub = tub;
}

static int type_register(mdt_type_t *t, MPI_Datatype *out)
{
    int h = mh_new(&type_table, t);
    if (!h) {
        mdt_release(t);
        return MPI_ERR_INTERN;
    }
    t->handle = h;
    *out = h;
    return MPI_SUCCESS;
}

int mdt_create(int combiner, size_t nent, const mdt_entry_t *ent, MPI_Datatype *out)
{
    mdt_type_t *t = type_alloc(combiner, nent, ent);
    if (!t) return MPI_ERR_NO_MEM;
    type_bounds(t, combiner == MPI_COMBINER_STRUCT || combiner == MPI_COMBINER_STRUCT_INTEGER);
    return type_register(t, out);
}

int mdt_create_resized(mdt_type_t *old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *out)
{
    mdt_entry_t e = {.type = old, .blocklen = 1, .disp = 0};
    mdt_type_t *t = type_alloc(MPI_COMBINER_RESIZED, 1, &e);
    if (!t) return MPI_ERR_NO_MEM;
    t->size = old->size;
    t->nelem = old->nelem;
    t->align = old->align;
    t->true_lb = old->true_lb;
    t->true_ub = old->true_ub;
    t->lb = lb;
    t->ub = lb + extent;
    t->lb_sticky = t->ub_sticky = true;
    return type_register(t, out);
}

static int flatten(mdt_type_t *t);

int mdt_create_dup(mdt_type_t *old, MPI_Datatype *out)
{
    mdt_entry_t e = {.type = old, .blocklen = 1, .disp = 0};
    mdt_type_t *t = type_alloc(MPI_COMBINER_DUP, 1, &e);
    if (!t) return MPI_ERR_NO_MEM;
    t->size = old->size;
    t->nelem = old->nelem;
    t->align = old->align;
    t->lb = old->lb;
    t->ub = old->ub;
    t->true_lb = old->true_lb;
    t->true_ub = old->true_ub;
    t->lb_sticky = old->lb_sticky;
    t->ub_sticky = old->ub_sticky;
    if (old->committed) {
        pthread_mutex_lock(&engine_lock);
        int rc = flatten(t);
        pthread_mutex_unlock(&engine_lock);
        if (rc != MPI_SUCCESS) {
            mdt_release(t);
            return rc;
        }
        t->committed = true;
    }
    return type_register(t, out);
}

/* ---- flattening ---------------------------------------------------------- */

typedef struct piece_list {
    mdt_piece_t *p;
    size_t n, cap;
    bool too_many; /* over max_pieces: the type stays unflattened */
} piece_list_t;

void mdt_set_max_pieces(size_t n)
{
    max_pieces = n ? n : 1;
}

/* False when out of memory or over max_pieces (l->too_many). */
static bool piece_add(piece_list_t *l, MPI_Aint off, MPI_Aint len)
{
    if (len <= 0) return true;
    if (l->n && l->p[l->n - 1].off + l->p[l->n - 1].len == off) {
        l->p[l->n - 1].len += len;
        return true;
    }
    if (l->n >= max_pieces) {
        l->too_many = true;
        return false;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        mdt_piece_t *p = realloc(l->p, cap * sizeof *p);
        if (!p) return false;
        l->p = p;
        l->cap = cap;
    }
    l->p[l->n++] = (mdt_piece_t){.off = off, .len = len, .pos = 0};
    return true;
}

/* Builds t->pieces from the children's pieces (flattening them first), or
 * marks t as a tree type when that would take more than max_pieces.
 * Engine lock held. */
static int flatten(mdt_type_t *t)
{
    if (t->pieces || t->tree || t->predefined) return MPI_SUCCESS;
    piece_list_t l = {0};
    for (size_t i = 0; i < t->nent; i++) {
        const mdt_entry_t *e = &t->ent[i];
        mdt_type_t *c = e->type;
        int rc = flatten(c);
        if (rc != MPI_SUCCESS) {
            free(l.p);
            return rc;
        }
        if (c->tree) goto too_many;
        if (c->npieces == 0 || e->blocklen == 0) continue;
        MPI_Aint ext = mdt_extent(c);
        if (c->dense) {
            if (!piece_add(&l, e->disp + c->pieces[0].off, (MPI_Aint)e->blocklen * ext))
                goto nomem;
            continue;
        }
        for (MPI_Count k = 0; k < e->blocklen; k++)
            for (size_t j = 0; j < c->npieces; j++)
                if (!piece_add(&l, e->disp + (MPI_Aint)k * ext + c->pieces[j].off,
                               c->pieces[j].len))
                    goto nomem;
    }
    MPI_Count pos = 0;
    for (size_t j = 0; j < l.n; j++) {
        l.p[j].pos = pos;
        pos += l.p[j].len;
    }
    if (l.n == 0) {
        /* No data: an empty, non-NULL list marks the type as flattened. */
        l.p = malloc(sizeof *l.p);
        if (!l.p) return MPI_ERR_NO_MEM;
    } else if (l.n < l.cap) {
        mdt_piece_t *p = realloc(l.p, l.n * sizeof *p);
        if (p) l.p = p;
    }
    t->pieces = l.p;
    t->npieces = l.n;
    t->dense = l.n == 1 && l.p[0].len == mdt_extent(t);
    return MPI_SUCCESS;
nomem:
    if (l.too_many) goto too_many;
    free(l.p);
    return MPI_ERR_NO_MEM;
too_many:
    /* Walks recurse into every child: each needs its own form. */
    free(l.p);
    for (size_t i = 0; i < t->nent; i++) {
        int rc = flatten(t->ent[i].type);
        if (rc != MPI_SUCCESS) return rc;
    }
    t->tree = true;
    return MPI_SUCCESS;
}

int mdt_commit(mdt_type_t *t)
{
    if (t->committed) return MPI_SUCCESS;
    pthread_mutex_lock(&engine_lock);
    int rc = flatten(t);
    if (rc == MPI_SUCCESS) __atomic_store_n(&t->committed, true, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&engine_lock);
    return rc;
}

int mdt_free_handle(MPI_Datatype dt)
{
    mdt_type_t *t = mh_get(&type_table, dt);
    if (!t || !mh_free(&type_table, dt)) return MPI_ERR_TYPE;
    mdt_release(t);
    return MPI_SUCCESS;
}

/* ---- data movement ------------------------------------------------------- */

/* Index of the piece holding stream offset r (0 <= r < size) of one element. */
static size_t piece_find(const mdt_type_t *t, MPI_Count r)
{
    size_t lo = 0, hi = t->npieces - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (t->pieces[mid].pos <= r)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Bytes [from, to) (0 <= from < to <= t->size) of one element of a
 * flattened type at base; pos is the stream position of byte from. */
static int walk_pieces(const mdt_type_t *t, uintptr_t base, MPI_Count from, MPI_Count to,
                       MPI_Count pos, mdt_piece_fn fn, void *arg)
{
    for (size_t j = piece_find(t, from); from < to; j++) {
        const mdt_piece_t *p = &t->pieces[j];
        MPI_Count in = from - p->pos, n = p->len - in;
        if (n > to - from) n = to - from;
        int rc = fn((void *)(base + (uintptr_t)(p->off + (MPI_Aint)in)), (size_t)n, pos, arg);
        if (rc) return rc;
        from += n;
        pos += n;
    }
    return 0;
}

/* The same for any type: unflattened ones through their blocks. */
static int walk_tree(const mdt_type_t *t, uintptr_t base, MPI_Count from, MPI_Count to,
                     MPI_Count pos, mdt_piece_fn fn, void *arg)
{
    if (!t->tree) return walk_pieces(t, base, from, to, pos, fn, arg);
    for (size_t i = 0; i < t->nent && from < to; i++) {
        const mdt_entry_t *e = &t->ent[i];
        const mdt_type_t *c = e->type;
        MPI_Count blk = e->blocklen * c->size;
        if (from >= blk) {
            from -= blk;
            to -= blk;
            continue;
        }
        MPI_Aint ext = mdt_extent(c);
        for (MPI_Count k = from / c->size; k < e->blocklen; k++) {
            MPI_Count lo = k * c->size, f = from > lo ? from - lo : 0;
            MPI_Count end = to - lo < c->size ? to - lo : c->size;
            if (f >= end) break;
            int rc = walk_tree(c, base + (uintptr_t)(e->disp + (MPI_Aint)k * ext), f, end, pos,
                               fn, arg);
            if (rc) return rc;
            pos += end - f;
        }
        from = 0;
        to -= blk;
    }
    return 0;
}

/* The bytes [from, to) of a flattened type's stream at base, piece by
 * piece.  Always inlined: with a constant fn (packing) the call becomes
 * the copy itself, which is what makes small pieces cheap. */
static inline __attribute__((always_inline)) int walk_flat(const mdt_type_t *t, uintptr_t base,
                                                           MPI_Count from, MPI_Count to,
                                                           mdt_piece_fn fn, void *arg)
{
    MPI_Aint ext = mdt_extent(t);
    MPI_Count k = from / t->size, r = from % t->size, x = from;
    size_t j = piece_find(t, r);
    while (x < to) {
        const mdt_piece_t *p = &t->pieces[j];
        MPI_Count in = r - p->pos, n = p->len - in;
        if (n > to - x) n = to - x;
        uintptr_t addr = base + (uintptr_t)((MPI_Aint)k * ext + p->off + (MPI_Aint)in);
        int rc = fn((void *)addr, (size_t)n, x, arg);
        if (rc) return rc;
        x += n;
        r += n;
        if (r == p->pos + p->len && ++j == t->npieces) {
            j = 0;
            k++;
            r = 0;
        }
    }
    return 0;
}

int mdt_walk(const mdt_type_t *t, const void *buf, MPI_Count from, MPI_Count to,
             mdt_piece_fn fn, void *arg)
{
    if (from >= to || t->size == 0) return 0;
    if (t->tree) {
        MPI_Aint ext = mdt_extent(t);
        for (MPI_Count k = from / t->size; from < to; k++) {
            MPI_Count lo = k * t->size, end = to - lo < t->size ? to - lo : t->size;
            int rc = walk_tree(t, (uintptr_t)buf + (uintptr_t)((MPI_Aint)k * ext), from - lo,
                               end, from, fn, arg);
            if (rc) return rc;
            from = lo + end;
        }
        return 0;
    }
    /* Addresses are computed as integers: buf may be MPI_BOTTOM with
     * absolute displacements. */
    uintptr_t base = (uintptr_t)buf;
    if (t->dense)
        return fn((void *)(base + (uintptr_t)(t->pieces[0].off + from)), (size_t)(to - from),
                  from, arg);
    return walk_flat(t, base, from, to, fn, arg);
}

/* Pieces of 1, 2, 4, 8 or 16 bytes (vectors of basic types) are copied
 * inline: a libc call costs more than such a copy. */
static inline void copy_bytes(char *dst, const char *src, size_t n)
{
    switch (n) {
    case 1: *dst = *src; return;
    case 2: memcpy(dst, src, 2); return;
    case 4: memcpy(dst, src, 4); return;
    case 8: memcpy(dst, src, 8); return;
    case 16: memcpy(dst, src, 16); return;
    default: memcpy(dst, src, n); return;
    }
}

typedef struct copy_arg {
    char *packed;
    MPI_Count from;
} copy_arg_t;

static inline int pack_piece(void *addr, size_t len, MPI_Count pos, void *arg)
{
    copy_arg_t *a = arg;
    copy_bytes(a->packed + (pos - a->from), addr, len);
    return 0;
}

static inline int unpack_piece(void *addr, size_t len, MPI_Count pos, void *arg)
{
    copy_arg_t *a = arg;
    copy_bytes(addr, a->packed + (pos - a->from), len);
    return 0;
}

void mdt_pack_range(const mdt_type_t *t, const void *ubuf, MPI_Count from, MPI_Count to,
                    void *packed)
{
    if (from >= to || t->size == 0) return;
    copy_arg_t a = {.packed = packed, .from = from};
    if (t->tree || t->dense)
        mdt_walk(t, ubuf, from, to, pack_piece, &a);
    else
        walk_flat(t, (uintptr_t)ubuf, from, to, pack_piece, &a);
}

void mdt_unpack_range(const mdt_type_t *t, void *ubuf, MPI_Count from, MPI_Count to,
                      const void *packed)
{
    if (from >= to || t->size == 0) return;
    copy_arg_t a = {.packed = (char *)(uintptr_t)packed, .from = from};
    if (t->tree || t->dense)
        mdt_walk(t, ubuf, from, to, unpack_piece, &a);
    else
        walk_flat(t, (uintptr_t)ubuf, from, to, unpack_piece, &a);
}

bool mdt_is_contig(const mdt_type_t *t, MPI_Count count, const void *buf, void **addr)
{
    if (count == 0 || t->size == 0) {
        *addr = (void *)(uintptr_t)buf;
        return true;
    }
    if (t->tree || (!t->dense && !(count == 1 && t->npieces == 1))) return false;
    *addr = (void *)((uintptr_t)buf + (uintptr_t)t->pieces[0].off);
    return true;
}

/* ---- element counting ---------------------------------------------------- */

/* Elements in the first bytes (< t->size) of one element of t. */
static MPI_Count elements_partial(const mdt_type_t *t, MPI_Count bytes)
{
    MPI_Count n = 0;
    if (bytes == 0) return 0;
    if (!t->ent) return MPI_UNDEFINED; /* inside a basic element */
    for (size_t i = 0; i < t->nent && bytes > 0; i++) {
        const mdt_entry_t *e = &t->ent[i];
        const mdt_type_t *c = e->type;
        if (c->size == 0 || e->blocklen == 0) continue;
        MPI_Count whole = bytes / c->size;
        if (whole >= e->blocklen) {
            n += e->blocklen * c->nelem;
            bytes -= e->blocklen * c->size;
            continue;
        }
        n += whole * c->nelem;
        bytes -= whole * c->size;
        if (bytes == 0) break;
        MPI_Count m = elements_partial(c, bytes);
        return m == MPI_UNDEFINED ? MPI_UNDEFINED : n + m;
    }
    return n;
}

MPI_Count mdt_elements_in(const mdt_type_t *t, MPI_Count bytes)
{
    if (t->size == 0) return bytes == 0 ? 0 : MPI_UNDEFINED;
    MPI_Count whole = bytes / t->size, m = elements_partial(t, bytes % t->size);
    return m == MPI_UNDEFINED ? MPI_UNDEFINED : whole * t->nelem + m;
}

/* Bytes of the first nelem (< t->nelem) elements of one element of t. */
static MPI_Count bytes_partial(const mdt_type_t *t, MPI_Count nelem)
{
    MPI_Count b = 0;
    for (size_t i = 0; i < t->nent && nelem > 0; i++) {
        const mdt_entry_t *e = &t->ent[i];
        const mdt_type_t *c = e->type;
        if (c->nelem == 0 || e->blocklen == 0) continue;
        MPI_Count whole = nelem / c->nelem;
        if (whole >= e->blocklen) {
            b += e->blocklen * c->size;
            nelem -= e->blocklen * c->nelem;
            continue;
        }
        b += whole * c->size;
        nelem -= whole * c->nelem;
        if (nelem > 0) b += bytes_partial(c, nelem);
        break;
    }
    return b;
}

MPI_Count mdt_bytes_of_elements(const mdt_type_t *t, MPI_Count nelem)
{
    if (t->nelem == 0) return 0;
    return nelem / t->nelem * t->size + bytes_partial(t, nelem % t->nelem);
}
