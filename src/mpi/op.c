/* Reduction operations (op.h): which predefined op applies to which basic
 * type (MPI 3.1 §5.9.2), their kernels on packed streams, user ops and
 * MPI_Op_create/MPI_Op_free. */
#include "mpi/op.h"

#include "mpi/handle.h"
#include "mpi/mpi_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The tables and kernel macros stay compact, one entry family per line. */
/* clang-format off */

/* Predefined ops: the low byte of their handles (include/mpi.h). */
enum {
    MOP_MAX = 1, MOP_MIN, MOP_SUM, MOP_PROD, MOP_LAND, MOP_BAND, MOP_LOR, MOP_BOR,
    MOP_LXOR, MOP_BXOR, MOP_MINLOC, MOP_MAXLOC, MOP_REPLACE, MOP_NO_OP, MOP_NPRE
};

/* The groups of basic types of §5.9.2; what each op accepts. */
enum {
    MOP_G_CINT = 1, MOP_G_FINT = 2, MOP_G_FLOAT = 4, MOP_G_COMPLEX = 8, MOP_G_LOGICAL = 16,
    MOP_G_BYTE = 32, MOP_G_MULTI = 64, MOP_G_PAIR = 128
};
#define MOP_G_ARITH (MOP_G_CINT | MOP_G_FINT | MOP_G_FLOAT | MOP_G_MULTI)

static const unsigned mop_allowed[MOP_NPRE] = {
    [MOP_MAX] = MOP_G_ARITH, [MOP_MIN] = MOP_G_ARITH,
    [MOP_SUM] = MOP_G_ARITH | MOP_G_COMPLEX, [MOP_PROD] = MOP_G_ARITH | MOP_G_COMPLEX,
    [MOP_LAND] = MOP_G_CINT | MOP_G_LOGICAL, [MOP_LOR] = MOP_G_CINT | MOP_G_LOGICAL,
    [MOP_LXOR] = MOP_G_CINT | MOP_G_LOGICAL,
    [MOP_BAND] = MOP_G_CINT | MOP_G_FINT | MOP_G_BYTE | MOP_G_MULTI,
    [MOP_BOR] = MOP_G_CINT | MOP_G_FINT | MOP_G_BYTE | MOP_G_MULTI,
    [MOP_BXOR] = MOP_G_CINT | MOP_G_FINT | MOP_G_BYTE | MOP_G_MULTI,
    [MOP_MINLOC] = MOP_G_PAIR, [MOP_MAXLOC] = MOP_G_PAIR,
    /* MPI_REPLACE and MPI_NO_OP are for one-sided accumulates only */
};

/* C types the kernels work on.  Booleans and Fortran LOGICAL are 0/1 in
 * one or four bytes, so the unsigned 8-bit and signed 32-bit kernels give
 * their logical ops. */
enum {
    MOP_CT_NONE, MOP_CT_I8, MOP_CT_I16, MOP_CT_I32, MOP_CT_I64, MOP_CT_U8, MOP_CT_U16,
    MOP_CT_U32, MOP_CT_U64, MOP_CT_F, MOP_CT_D, MOP_CT_LD, MOP_CT_CF, MOP_CT_CD, MOP_CT_CLD,
    MOP_CT_FI, MOP_CT_DI, MOP_CT_LI, MOP_CT_SI, MOP_CT_II, MOP_CT_LDI, MOP_CT_FF, MOP_CT_DD,
    MOP_NCT
};

typedef struct mop_basic {
    unsigned char ctype, group;
} mop_basic_t;

#define MOP_B(h, ct, g) [MDT_BUILTIN_INDEX(h)] = {MOP_CT_##ct, MOP_G_##g}
/* Indexed by predefined datatype index; types absent (MPI_WCHAR,
 * MPI_PACKED, MPI_CHARACTER) take no predefined op, as in MPI 3.1.
 * MPI_CHAR is a signed C integer here (char is signed on the targets),
 * against MPI 3.1 §5.9.2 but as MPICH and Open MPI take it: the standard
 * collective benchmarks reduce MPI_CHAR by default (README.md). */
static const mop_basic_t mop_basic[256] = {
    MOP_B(MPI_CHAR, I8, CINT),
    MOP_B(MPI_SIGNED_CHAR, I8, CINT), MOP_B(MPI_UNSIGNED_CHAR, U8, CINT),
    MOP_B(MPI_SHORT, I16, CINT), MOP_B(MPI_UNSIGNED_SHORT, U16, CINT),
    MOP_B(MPI_INT, I32, CINT), MOP_B(MPI_UNSIGNED, U32, CINT),
    MOP_B(MPI_LONG, I64, CINT), MOP_B(MPI_UNSIGNED_LONG, U64, CINT),
    MOP_B(MPI_LONG_LONG_INT, I64, CINT), MOP_B(MPI_UNSIGNED_LONG_LONG, U64, CINT),
    MOP_B(MPI_INT8_T, I8, CINT), MOP_B(MPI_INT16_T, I16, CINT),
    MOP_B(MPI_INT32_T, I32, CINT), MOP_B(MPI_INT64_T, I64, CINT),
    MOP_B(MPI_UINT8_T, U8, CINT), MOP_B(MPI_UINT16_T, U16, CINT),
    MOP_B(MPI_UINT32_T, U32, CINT), MOP_B(MPI_UINT64_T, U64, CINT),
    MOP_B(MPI_INTEGER, I32, FINT), MOP_B(MPI_INTEGER1, I8, FINT),
    MOP_B(MPI_INTEGER2, I16, FINT), MOP_B(MPI_INTEGER4, I32, FINT),
    MOP_B(MPI_INTEGER8, I64, FINT),
    MOP_B(MPI_FLOAT, F, FLOAT), MOP_B(MPI_DOUBLE, D, FLOAT), MOP_B(MPI_LONG_DOUBLE, LD, FLOAT),
    MOP_B(MPI_REAL, F, FLOAT), MOP_B(MPI_DOUBLE_PRECISION, D, FLOAT),
    MOP_B(MPI_REAL4, F, FLOAT), MOP_B(MPI_REAL8, D, FLOAT),
    MOP_B(MPI_C_FLOAT_COMPLEX, CF, COMPLEX), MOP_B(MPI_C_DOUBLE_COMPLEX, CD, COMPLEX),
    MOP_B(MPI_C_LONG_DOUBLE_COMPLEX, CLD, COMPLEX), MOP_B(MPI_CXX_FLOAT_COMPLEX, CF, COMPLEX),
    MOP_B(MPI_CXX_DOUBLE_COMPLEX, CD, COMPLEX),
    MOP_B(MPI_CXX_LONG_DOUBLE_COMPLEX, CLD, COMPLEX),
    MOP_B(MPI_COMPLEX, CF, COMPLEX), MOP_B(MPI_DOUBLE_COMPLEX, CD, COMPLEX),
    MOP_B(MPI_COMPLEX8, CF, COMPLEX), MOP_B(MPI_COMPLEX16, CD, COMPLEX),
    MOP_B(MPI_C_BOOL, U8, LOGICAL), MOP_B(MPI_CXX_BOOL, U8, LOGICAL),
    MOP_B(MPI_LOGICAL, I32, LOGICAL),
    MOP_B(MPI_BYTE, U8, BYTE),
    MOP_B(MPI_AINT, I64, MULTI), MOP_B(MPI_OFFSET, I64, MULTI), MOP_B(MPI_COUNT, I64, MULTI),
    MOP_B(MPI_FLOAT_INT, FI, PAIR), MOP_B(MPI_DOUBLE_INT, DI, PAIR),
    MOP_B(MPI_LONG_INT, LI, PAIR), MOP_B(MPI_SHORT_INT, SI, PAIR),
    MOP_B(MPI_2INT, II, PAIR), MOP_B(MPI_LONG_DOUBLE_INT, LDI, PAIR),
    MOP_B(MPI_2INTEGER, II, PAIR), MOP_B(MPI_2REAL, FF, PAIR),
    MOP_B(MPI_2DOUBLE_PRECISION, DD, PAIR),
};

/* ---- kernels: inout[i] = in[i] op inout[i] on n basic elements ---------------------- */

typedef void mop_kernel_fn(int op, const void *in, void *io, size_t n);

#define MOP_EACH(T, EXPR)                                                                   \
    do {                                                                                    \
        const T *a_ = in;                                                                   \
        T *b_ = io;                                                                         \
        for (size_t i_ = 0; i_ < n; i_++) {                                                 \
            T x = a_[i_], y = b_[i_];                                                       \
            b_[i_] = (EXPR);                                                                \
        }                                                                                   \
    } while (0)

/* Sums and products are computed in the unsigned type U (at least as wide
 * as int, so no promotion back to signed): they wrap instead of being
 * undefined on overflow. */
#define MOP_INT_KERNEL(name, T, U)                                                          \
    static void name(int op, const void *in, void *io, size_t n)                            \
    {                                                                                       \
        switch (op) {                                                                       \
        case MOP_MAX: MOP_EACH(T, x > y ? x : y); break;                                    \
        case MOP_MIN: MOP_EACH(T, x < y ? x : y); break;                                    \
        case MOP_SUM: MOP_EACH(T, (T)((U)x + (U)y)); break;                                 \
        case MOP_PROD: MOP_EACH(T, (T)((U)x * (U)y)); break;                                \
        case MOP_LAND: MOP_EACH(T, (T)(x && y)); break;                                     \
        case MOP_LOR: MOP_EACH(T, (T)(x || y)); break;                                      \
        case MOP_LXOR: MOP_EACH(T, (T)(!x != !y)); break;                                   \
        case MOP_BAND: MOP_EACH(T, (T)(x & y)); break;                                      \
        case MOP_BOR: MOP_EACH(T, (T)(x | y)); break;                                       \
        case MOP_BXOR: MOP_EACH(T, (T)(x ^ y)); break;                                      \
        default: break;                                                                     \
        }                                                                                   \
    }

MOP_INT_KERNEL(mop_k_i8, int8_t, unsigned)
MOP_INT_KERNEL(mop_k_i16, int16_t, unsigned)
MOP_INT_KERNEL(mop_k_i32, int32_t, uint32_t)
MOP_INT_KERNEL(mop_k_i64, int64_t, uint64_t)
MOP_INT_KERNEL(mop_k_u8, uint8_t, unsigned)
MOP_INT_KERNEL(mop_k_u16, uint16_t, unsigned)
MOP_INT_KERNEL(mop_k_u32, uint32_t, uint32_t)
MOP_INT_KERNEL(mop_k_u64, uint64_t, uint64_t)

#define MOP_FLOAT_KERNEL(name, T)                                                           \
    static void name(int op, const void *in, void *io, size_t n)                            \
    {                                                                                       \
        switch (op) {                                                                       \
        case MOP_MAX: MOP_EACH(T, x > y ? x : y); break;                                    \
        case MOP_MIN: MOP_EACH(T, x < y ? x : y); break;                                    \
        case MOP_SUM: MOP_EACH(T, x + y); break;                                            \
        case MOP_PROD: MOP_EACH(T, x * y); break;                                           \
        default: break;                                                                     \
        }                                                                                   \
    }

MOP_FLOAT_KERNEL(mop_k_f, float)
MOP_FLOAT_KERNEL(mop_k_d, double)
MOP_FLOAT_KERNEL(mop_k_ld, long double)

#define MOP_COMPLEX_KERNEL(name, T)                                                         \
    static void name(int op, const void *in, void *io, size_t n)                            \
    {                                                                                       \
        if (op == MOP_SUM) MOP_EACH(T, x + y);                                              \
        else if (op == MOP_PROD) MOP_EACH(T, x * y);                                        \
    }

MOP_COMPLEX_KERNEL(mop_k_cf, float _Complex)
MOP_COMPLEX_KERNEL(mop_k_cd, double _Complex)
MOP_COMPLEX_KERNEL(mop_k_cld, long double _Complex)

/* Value-index pairs are packed without padding (value, then index), so the
 * members are read with memcpy.  MINLOC/MAXLOC: the smaller/larger value;
 * on a tie the smaller index (MPI 3.1 §5.9.4). */
#define MOP_PAIR_KERNEL(name, V, I)                                                         \
    static void name(int op, const void *in, void *io, size_t n)                            \
    {                                                                                       \
        const char *a = in;                                                                 \
        char *b = io;                                                                       \
        for (size_t k = 0; k < n; k++, a += sizeof(V) + sizeof(I), b += sizeof(V) + sizeof(I)) { \
            V av, bv;                                                                       \
            I ai, bi;                                                                       \
            memcpy(&av, a, sizeof av);                                                      \
            memcpy(&bv, b, sizeof bv);                                                      \
            memcpy(&ai, a + sizeof(V), sizeof ai);                                          \
            memcpy(&bi, b + sizeof(V), sizeof bi);                                          \
            bool better = op == MOP_MINLOC ? av < bv : av > bv;                             \
            if (better || (!(av < bv) && !(av > bv) && ai < bi))                            \
                memcpy(b, a, sizeof(V) + sizeof(I));                                        \
        }                                                                                   \
    }

MOP_PAIR_KERNEL(mop_k_fi, float, int)
MOP_PAIR_KERNEL(mop_k_di, double, int)
MOP_PAIR_KERNEL(mop_k_li, long, int)
MOP_PAIR_KERNEL(mop_k_si, short, int)
MOP_PAIR_KERNEL(mop_k_ii, int, int)
MOP_PAIR_KERNEL(mop_k_ldi, long double, int)
MOP_PAIR_KERNEL(mop_k_ff, float, float)
MOP_PAIR_KERNEL(mop_k_dd, double, double)

static mop_kernel_fn *const mop_kernel[MOP_NCT] = {
    [MOP_CT_I8] = mop_k_i8, [MOP_CT_I16] = mop_k_i16, [MOP_CT_I32] = mop_k_i32,
    [MOP_CT_I64] = mop_k_i64, [MOP_CT_U8] = mop_k_u8, [MOP_CT_U16] = mop_k_u16,
    [MOP_CT_U32] = mop_k_u32, [MOP_CT_U64] = mop_k_u64, [MOP_CT_F] = mop_k_f,
    [MOP_CT_D] = mop_k_d, [MOP_CT_LD] = mop_k_ld, [MOP_CT_CF] = mop_k_cf,
    [MOP_CT_CD] = mop_k_cd, [MOP_CT_CLD] = mop_k_cld, [MOP_CT_FI] = mop_k_fi,
    [MOP_CT_DI] = mop_k_di, [MOP_CT_LI] = mop_k_li, [MOP_CT_SI] = mop_k_si,
    [MOP_CT_II] = mop_k_ii, [MOP_CT_LDI] = mop_k_ldi, [MOP_CT_FF] = mop_k_ff,
    [MOP_CT_DD] = mop_k_dd,
};
/* clang-format on */

/* ---- user ops ------------------------------------------------------------------------ */

typedef struct mop {
    MPI_User_function *fn;
    MPI_User_function_c *fn_c; /* MPI_Op_create_c's (fn NULL then) */
    bool commute;
} mop_t;

static mh_table_t mop_table = MH_TABLE_INIT(MH_CLASS_OP);

static bool mop_is_predefined(MPI_Op op)
{
    unsigned i = (uint32_t)op & 0xffu;
    return ((uint32_t)op & ~0xffu) == 0x58000000u && i >= MOP_MAX && i < MOP_NPRE;
}

static int op_create(const mop_t *proto, MPI_Op *op, const char *fname)
{
    mop_t *o = malloc(sizeof *o);
    if (!o) return mpi_err(NULL, MPI_ERR_NO_MEM, fname, NULL);
    *o = *proto;
    int h = mh_new(&mop_table, o);
    if (!h) {
        free(o);
        return mpi_err(NULL, MPI_ERR_NO_MEM, fname, "out of op handles");
    }
    *op = (MPI_Op)h;
    return MPI_SUCCESS;
}

int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    MPI_CHECK_STATE("MPI_Op_create");
    if (!user_fn || !op) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Op_create", "NULL argument");
    return op_create(&(mop_t){.fn = user_fn, .commute = commute != 0}, op, "MPI_Op_create");
}

/* MPI-4's large-count user function: its length argument is an MPI_Count. */
int MPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    MPI_CHECK_STATE("MPI_Op_create_c");
    if (!user_fn || !op) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Op_create_c", "NULL argument");
    return op_create(&(mop_t){.fn_c = user_fn, .commute = commute != 0}, op, "MPI_Op_create_c");
}

int MPI_Op_free(MPI_Op *op)
{
    MPI_CHECK_STATE("MPI_Op_free");
    if (!op) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Op_free", "op is NULL");
    mop_t *o = mh_get(&mop_table, *op);
    if (!o) return mpi_err(NULL, MPI_ERR_OP, "MPI_Op_free", "not a user-defined op");
    /* collectives are blocking, so no operation can still be using it */
    mh_free(&mop_table, *op);
    free(o);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

/* Predefined ops are all commutative (MPI 3.1 §5.9.2). */
int MPI_Op_commutative(MPI_Op op, int *commute)
{
    MPI_CHECK_STATE("MPI_Op_commutative");
    if (!commute) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Op_commutative", "commute is NULL");
    if (mop_is_predefined(op)) {
        *commute = 1;
        return MPI_SUCCESS;
    }
    const mop_t *o = mh_get(&mop_table, op);
    if (!o) return mpi_err(NULL, MPI_ERR_OP, "MPI_Op_commutative", NULL);
    *commute = o->commute;
    return MPI_SUCCESS;
}

/* ---- plans --------------------------------------------------------------------------- */

/* The one predefined type every basic element of t is (a pair type counts
 * as one), NULL if they differ or t has none. */
static const mdt_type_t *mop_base(const mdt_type_t *t)
{
    if (t->predefined) return t;
    const mdt_type_t *found = NULL;
    for (size_t i = 0; i < t->nent; i++) {
        const mdt_type_t *c = t->ent[i].type;
        if (t->ent[i].blocklen == 0 || c->size == 0) continue;
        const mdt_type_t *b = mop_base(c);
        if (!b || (found && b != found)) return NULL;
        found = b;
    }
    return found;
}

int mop_plan(MPI_Op op, const mdt_type_t *t, MPI_Datatype dt, mop_plan_t *p)
{
    *p = (mop_plan_t){.type = t, .dt = dt, .commute = true};
    if (!mop_is_predefined(op)) {
        const mop_t *o = mh_get(&mop_table, op);
        if (!o) return MPI_ERR_OP;
        p->fn = o->fn;
        p->fn_c = o->fn_c;
        p->commute = o->commute;
        return MPI_SUCCESS;
    }
    p->pre = (int)((uint32_t)op & 0xffu);
    if (!mop_allowed[p->pre]) return MPI_ERR_OP;
    if (t->size == 0) return MPI_SUCCESS; /* nothing to combine */
    const mdt_type_t *b = mop_base(t);
    if (!b) return MPI_ERR_OP;
    mop_basic_t info = mop_basic[MDT_BUILTIN_INDEX(b->handle)];
    if (!(mop_allowed[p->pre] & info.group)) return MPI_ERR_OP;
    p->ctype = info.ctype;
    p->esize = (size_t)b->size;
    return MPI_SUCCESS;
}

/* Bytes spanned by count elements of t, and the offset of the buffer
 * address from the lowest byte (true bounds, any sign of extent). */
static size_t mop_span(const mdt_type_t *t, MPI_Count count, MPI_Aint *lo)
{
    MPI_Aint step = (MPI_Aint)(count - 1) * mdt_extent(t);
    MPI_Aint l = t->true_lb + (step < 0 ? step : 0), h = t->true_ub + (step > 0 ? step : 0);
    *lo = l;
    return (size_t)(h - l);
}

/* A user function on a layout that is not the packed stream: unpack both
 * operands into temporary layouts, call it, pack the result back. */

/* A user op's function on count elements (count fits the classic form's
 * int: the MPI layer refuses larger counts with user ops). */
static void mop_call(const mop_plan_t *p, void *in, void *inout, MPI_Count count)
{
    MPI_Datatype dt = p->dt;
    if (p->fn_c) {
        MPI_Count n = count;
        p->fn_c(in, inout, &n, &dt);
        return;
    }
    int n = (int)count;
    p->fn(in, inout, &n, &dt);
}

static int mop_user_unpacked(const mop_plan_t *p, const void *in, void *inout, MPI_Count count)
{
    MPI_Aint lo;
    size_t span = mop_span(p->type, count, &lo);
    char *ma = malloc(span ? span : 1), *mb = malloc(span ? span : 1);
    if (!ma || !mb) {
        free(ma);
        free(mb);
        return MPI_ERR_NO_MEM;
    }
    void *a = (void *)((uintptr_t)ma - (uintptr_t)lo), *b = (void *)((uintptr_t)mb - (uintptr_t)lo);
    mdt_unpack(p->type, a, count, in);
    mdt_unpack(p->type, b, count, inout);
    mop_call(p, a, b, count);
    mdt_pack(p->type, b, count, inout);
    free(ma);
    free(mb);
    return MPI_SUCCESS;
}

int mop_apply(const mop_plan_t *p, const void *in, void *inout, MPI_Count count)
{
    const mdt_type_t *t = p->type;
    if (count == 0 || t->size == 0) return MPI_SUCCESS;
    if (p->pre) {
        mop_kernel[p->ctype](p->pre, in, inout, (size_t)(count * t->size) / p->esize);
        return MPI_SUCCESS;
    }
    /* one contiguous piece: the stream is the layout, shifted by its offset */
    if (t->tree || !(t->dense || (count == 1 && t->npieces == 1)))
        return mop_user_unpacked(p, in, inout, count);
    uintptr_t off = (uintptr_t)t->pieces[0].off;
    mop_call(p, (void *)((uintptr_t)in - off), (void *)((uintptr_t)inout - off), count);
    return MPI_SUCCESS;
}

bool mop_atomic(const mop_plan_t *p, int *ptl_op, int *ptl_type)
{
    static const int ops[MOP_NPRE] = {
        [MOP_MAX] = PTL_MAX + 1, [MOP_MIN] = PTL_MIN + 1, [MOP_SUM] = PTL_SUM + 1,
        [MOP_PROD] = PTL_PROD + 1, [MOP_LAND] = PTL_LAND + 1, [MOP_BAND] = PTL_BAND + 1,
        [MOP_LOR] = PTL_LOR + 1, [MOP_BOR] = PTL_BOR + 1, [MOP_LXOR] = PTL_LXOR + 1,
        [MOP_BXOR] = PTL_BXOR + 1}; /* + 1: 0 is "none" */
    static const int types[MOP_NCT] = {
        [MOP_CT_I8] = PTL_INT8_T + 1, [MOP_CT_I16] = PTL_INT16_T + 1,
        [MOP_CT_I32] = PTL_INT32_T + 1, [MOP_CT_I64] = PTL_INT64_T + 1,
        [MOP_CT_U8] = PTL_UINT8_T + 1, [MOP_CT_U16] = PTL_UINT16_T + 1,
        [MOP_CT_U32] = PTL_UINT32_T + 1, [MOP_CT_U64] = PTL_UINT64_T + 1,
        [MOP_CT_F] = PTL_FLOAT + 1, [MOP_CT_D] = PTL_DOUBLE + 1};
    if (!p->pre || p->pre >= MOP_NPRE || p->ctype >= MOP_NCT) return false;
    if (!ops[p->pre] || !types[p->ctype]) return false;
    *ptl_op = ops[p->pre] - 1;
    *ptl_type = types[p->ctype] - 1;
    return true;
}
