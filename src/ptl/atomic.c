/* Element-wise math of Portals atomics (PORTALS4_API.md §13.3, §13.4).
 *
 * T = target element, S = source element, O = *operand (first element only).
 * Every element is loaded and stored with memcpy, so buffers may be
 * unaligned.  Integer arithmetic runs on the unsigned type of the same width
 * (intN_t are two's complement without padding, so storing the unsigned bit
 * pattern gives the wrapped signed result with no undefined behaviour); only
 * MIN, MAX and the ordered CSWAPs look at the signed value.
 *
 * Per element the order is: load T and S, copy the old target bytes to fetch
 * (byte-exact, memmove: fetch may alias the target), compute, store.  A
 * conditional swap whose condition fails does not write the target. */
#include "ptl/ptl_int.h"

#include <complex.h>
#include <stdint.h>
#include <string.h>

typedef float _Complex ptl_fcx_t;
typedef double _Complex ptl_dcx_t;
typedef long double _Complex ptl_ldcx_t;

enum { CLS_NONE, CLS_INT, CLS_FLOAT, CLS_COMPLEX };

static int dt_class(ptl_datatype_t dt)
{
    switch (dt) {
    case PTL_INT8_T: case PTL_UINT8_T: case PTL_INT16_T: case PTL_UINT16_T:
    case PTL_INT32_T: case PTL_UINT32_T: case PTL_INT64_T: case PTL_UINT64_T:
        return CLS_INT;
    case PTL_FLOAT: case PTL_DOUBLE: case PTL_LONG_DOUBLE:
        return CLS_FLOAT;
    case PTL_FLOAT_COMPLEX: case PTL_DOUBLE_COMPLEX: case PTL_LONG_DOUBLE_COMPLEX:
        return CLS_COMPLEX;
    default:
        return CLS_NONE;
    }
}

size_t ptl_atom_size(ptl_datatype_t dt)
{
    switch (dt) {
    case PTL_INT8_T: case PTL_UINT8_T: return 1;
    case PTL_INT16_T: case PTL_UINT16_T: return 2;
    case PTL_INT32_T: case PTL_UINT32_T: return 4;
    case PTL_INT64_T: case PTL_UINT64_T: return 8;
    case PTL_FLOAT: return sizeof(float);
    case PTL_DOUBLE: return sizeof(double);
    case PTL_LONG_DOUBLE: return sizeof(long double);
    case PTL_FLOAT_COMPLEX: return sizeof(ptl_fcx_t);
    case PTL_DOUBLE_COMPLEX: return sizeof(ptl_dcx_t);
    case PTL_LONG_DOUBLE_COMPLEX: return sizeof(ptl_ldcx_t);
    default: return 0;
    }
}

/* Is op defined on this class of datatype (§13.4 table)? */
static bool op_valid_for_class(ptl_op_t op, int cls)
{
    switch (cls) {
    case CLS_INT:
        return op < PTL_OP_LAST;
    case CLS_FLOAT:  /* no logical/bitwise ops, no MSWAP */
        return op == PTL_MIN || op == PTL_MAX || op == PTL_SUM || op == PTL_PROD ||
               (op >= PTL_SWAP && op <= PTL_CSWAP_GT);
    case CLS_COMPLEX: /* no ordering */
        return op == PTL_SUM || op == PTL_PROD || op == PTL_SWAP || op == PTL_CSWAP ||
               op == PTL_CSWAP_NE;
    default:
        return false;
    }
}

int ptl_atom_check(ptl_op_t op, ptl_datatype_t dt, int family, ptl_size_t length)
{
    size_t size = ptl_atom_size(dt);
    if (size == 0 || op >= PTL_OP_LAST || !op_valid_for_class(op, dt_class(dt)))
        return PTL_ARG_INVALID;
    if (length % size != 0) return PTL_ARG_INVALID; /* whole elements only */
    switch (family) {
    case PTL_ATOM_FAMILY_ATOMIC:
    case PTL_ATOM_FAMILY_FETCH:
        return op < PTL_SWAP ? PTL_OK : PTL_ARG_INVALID;
    case PTL_ATOM_FAMILY_SWAP:
        if (op < PTL_SWAP) return PTL_ARG_INVALID;
        /* PTL_SWAP: any number of elements; CSWAP* and MSWAP: exactly one. */
        return (op == PTL_SWAP || length == size) ? PTL_OK : PTL_ARG_INVALID;
    default:
        return PTL_ARG_INVALID;
    }
}

/* ---- kernels ---------------------------------------------------------------
 * Inside LOOP(T, COND, VAL): t, s are the element's T and S as type T, i the
 * element index; when COND holds the target becomes VAL.  Needs in scope:
 * tp, sp, fp (byte pointers), n (elements). */
#define LOOP(T, COND, VAL)                                                           \
    for (size_t i = 0; i < n; i++) {                                                 \
        T t, s;                                                                      \
        unsigned char *tgt_ = tp + i * sizeof(T);                                    \
        memcpy(&t, tgt_, sizeof(T));                                                 \
        memcpy(&s, sp + i * sizeof(T), sizeof(T));                                   \
        if (fp) memmove(fp + i * sizeof(T), tgt_, sizeof(T));                        \
        if (COND) {                                                                  \
            T r_ = (VAL);                                                            \
            memcpy(tgt_, &r_, sizeof(T));                                            \
        }                                                                            \
    }                                                                                \
    break

#define KERNEL_PARAMS                                                                \
    ptl_op_t op, unsigned char *tp, const unsigned char *sp, const void *operand,    \
        size_t n, unsigned char *fp

/* Integers: ST signed view (== UT for unsigned types), UT unsigned view.
 * Products go through uintmax_t so that narrow types are not promoted to a
 * signed int that could overflow. */
#define DEF_INT_KERNEL(NAME, ST, UT)                                                 \
    static void NAME(KERNEL_PARAMS)                                                  \
    {                                                                                \
        UT uo = 0;                                                                   \
        ST so;                                                                       \
        if (operand) memcpy(&uo, operand, sizeof uo);                                \
        memcpy(&so, &uo, sizeof so);                                                 \
        switch (op) {                                                                \
        case PTL_MIN: LOOP(ST, 1, s < t ? s : t);                                    \
        case PTL_MAX: LOOP(ST, 1, s > t ? s : t);                                    \
        case PTL_SUM: LOOP(UT, 1, (UT)((uintmax_t)t + s));                           \
        case PTL_PROD: LOOP(UT, 1, (UT)((uintmax_t)t * s));                          \
        case PTL_LOR: LOOP(UT, 1, (UT)(t || s));                                     \
        case PTL_LAND: LOOP(UT, 1, (UT)(t && s));                                    \
        case PTL_BOR: LOOP(UT, 1, (UT)(t | s));                                      \
        case PTL_BAND: LOOP(UT, 1, (UT)(t & s));                                     \
        case PTL_LXOR: LOOP(UT, 1, (UT)(!t != !s));                                  \
        case PTL_BXOR: LOOP(UT, 1, (UT)(t ^ s));                                     \
        case PTL_SWAP: LOOP(UT, 1, s);                                               \
        case PTL_CSWAP: LOOP(UT, uo == t, s);                                        \
        case PTL_CSWAP_NE: LOOP(UT, uo != t, s);                                     \
        case PTL_CSWAP_LE: LOOP(ST, so <= t, s);                                     \
        case PTL_CSWAP_LT: LOOP(ST, so < t, s);                                      \
        case PTL_CSWAP_GE: LOOP(ST, so >= t, s);                                     \
        case PTL_CSWAP_GT: LOOP(ST, so > t, s);                                      \
        case PTL_MSWAP: LOOP(UT, 1, (UT)((s & uo) | (t & ~(uintmax_t)uo)));          \
        default: LOOP(UT, 0, t); /* not defined on integers: fetch only */           \
        }                                                                            \
    }

/* Real floating types.  MIN/MAX keep T unless S compares strictly
 * smaller/greater (so a NaN in S never replaces T). */
#define DEF_FLOAT_KERNEL(NAME, FT)                                                   \
    static void NAME(KERNEL_PARAMS)                                                  \
    {                                                                                \
        FT o = 0;                                                                    \
        if (operand) memcpy(&o, operand, sizeof o);                                  \
        switch (op) {                                                                \
        case PTL_MIN: LOOP(FT, s < t, s);                                            \
        case PTL_MAX: LOOP(FT, s > t, s);                                            \
        case PTL_SUM: LOOP(FT, 1, t + s);                                            \
        case PTL_PROD: LOOP(FT, 1, t * s);                                           \
        case PTL_SWAP: LOOP(FT, 1, s);                                               \
        case PTL_CSWAP: LOOP(FT, o == t, s);                                         \
        case PTL_CSWAP_NE: LOOP(FT, o != t, s);                                      \
        case PTL_CSWAP_LE: LOOP(FT, o <= t, s);                                      \
        case PTL_CSWAP_LT: LOOP(FT, o < t, s);                                       \
        case PTL_CSWAP_GE: LOOP(FT, o >= t, s);                                      \
        case PTL_CSWAP_GT: LOOP(FT, o > t, s);                                       \
        default: LOOP(FT, 0, t);                                                     \
        }                                                                            \
    }

#define DEF_COMPLEX_KERNEL(NAME, CT)                                                 \
    static void NAME(KERNEL_PARAMS)                                                  \
    {                                                                                \
        CT o = 0;                                                                    \
        if (operand) memcpy(&o, operand, sizeof o);                                  \
        switch (op) {                                                                \
        case PTL_SUM: LOOP(CT, 1, t + s);                                            \
        case PTL_PROD: LOOP(CT, 1, t * s);                                           \
        case PTL_SWAP: LOOP(CT, 1, s);                                               \
        case PTL_CSWAP: LOOP(CT, o == t, s);                                         \
        case PTL_CSWAP_NE: LOOP(CT, o != t, s);                                      \
        default: LOOP(CT, 0, t);                                                     \
        }                                                                            \
    }

DEF_INT_KERNEL(k_i8, int8_t, uint8_t)
DEF_INT_KERNEL(k_u8, uint8_t, uint8_t)
DEF_INT_KERNEL(k_i16, int16_t, uint16_t)
DEF_INT_KERNEL(k_u16, uint16_t, uint16_t)
DEF_INT_KERNEL(k_i32, int32_t, uint32_t)
DEF_INT_KERNEL(k_u32, uint32_t, uint32_t)
DEF_INT_KERNEL(k_i64, int64_t, uint64_t)
DEF_INT_KERNEL(k_u64, uint64_t, uint64_t)
DEF_FLOAT_KERNEL(k_flt, float)
DEF_FLOAT_KERNEL(k_dbl, double)
DEF_FLOAT_KERNEL(k_ldbl, long double)
DEF_COMPLEX_KERNEL(k_fcx, ptl_fcx_t)
DEF_COMPLEX_KERNEL(k_dcx, ptl_dcx_t)
DEF_COMPLEX_KERNEL(k_ldcx, ptl_ldcx_t)

void ptl_atom_apply(ptl_op_t op, ptl_datatype_t dt, void *target, const void *src,
                    const void *operand, size_t len, void *fetch)
{
    static void (*const kernels[PTL_DATATYPE_LAST])(KERNEL_PARAMS) = {
        [PTL_INT8_T] = k_i8,   [PTL_UINT8_T] = k_u8,   [PTL_INT16_T] = k_i16,
        [PTL_UINT16_T] = k_u16, [PTL_INT32_T] = k_i32, [PTL_UINT32_T] = k_u32,
        [PTL_FLOAT] = k_flt,   [PTL_INT64_T] = k_i64,  [PTL_UINT64_T] = k_u64,
        [PTL_DOUBLE] = k_dbl,  [PTL_FLOAT_COMPLEX] = k_fcx,
        [PTL_DOUBLE_COMPLEX] = k_dcx, [PTL_LONG_DOUBLE] = k_ldbl,
        [PTL_LONG_DOUBLE_COMPLEX] = k_ldcx,
    };
    size_t size = ptl_atom_size(dt);
    if (size == 0 || len < size) return;
    kernels[dt](op, target, src, operand, len / size, fetch);
}
