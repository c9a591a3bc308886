/* Element-wise math of Portals atomics (src/ptl/atomic.c) against
 * PORTALS4_API.md §13.3/§13.4: sizes, the validity rules of ptl_atom_check
 * (checked exhaustively against a table written from the spec), and the
 * values ptl_atom_apply produces for every valid (op, datatype) pair —
 * integers against a bit-pattern reference model over edge values, floating
 * and complex types against hand-computed results — with fetch, multi-element
 * arrays and unaligned buffers. */
#include "test.h"
#include "ptl/ptl_int.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- spec tables, written independently of atomic.c ----------------------- */
static size_t spec_size(int dt)
{
    static const size_t sz[14] = {1, 1, 2, 2, 4, 4, 4, 8, 8, 8, 8, 16,
                                  sizeof(long double), sizeof(long double _Complex)};
    return dt >= 0 && dt < 14 ? sz[dt] : 0;
}
static bool is_int(int dt) { return dt >= 0 && dt <= 8 && dt != 6; }
static bool is_flt(int dt) { return dt == 6 || dt == 9 || dt == 12; }
static bool is_cx(int dt) { return dt == 10 || dt == 11 || dt == 13; }

static bool spec_op_ok(int op, int dt)
{
    if (op < 0 || op > 17) return false;
    if (is_int(dt)) return true;
    if (is_flt(dt)) return op <= 3 || (op >= 10 && op <= 16); /* MIN MAX SUM PROD, SWAP..CSWAP_GT */
    if (is_cx(dt)) return op == 2 || op == 3 || op == 10 || op == 11 || op == 12;
    return false;
}

static bool spec_valid(int op, int dt, int fam, ptl_size_t len)
{
    size_t sz = spec_size(dt);
    if (!sz || !spec_op_ok(op, dt) || len % sz) return false;
    if (fam == PTL_ATOM_FAMILY_ATOMIC || fam == PTL_ATOM_FAMILY_FETCH) return op <= 9;
    if (fam == PTL_ATOM_FAMILY_SWAP) return op >= 10 && (op == 10 || len == sz);
    return false;
}

static void test_sizes(void)
{
    CHECK_EQ(ptl_atom_size(PTL_INT8_T), 1);
    CHECK_EQ(ptl_atom_size(PTL_UINT8_T), 1);
    CHECK_EQ(ptl_atom_size(PTL_INT16_T), 2);
    CHECK_EQ(ptl_atom_size(PTL_UINT16_T), 2);
    CHECK_EQ(ptl_atom_size(PTL_INT32_T), 4);
    CHECK_EQ(ptl_atom_size(PTL_UINT32_T), 4);
    CHECK_EQ(ptl_atom_size(PTL_FLOAT), 4);
    CHECK_EQ(ptl_atom_size(PTL_INT64_T), 8);
    CHECK_EQ(ptl_atom_size(PTL_UINT64_T), 8);
    CHECK_EQ(ptl_atom_size(PTL_DOUBLE), 8);
    CHECK_EQ(ptl_atom_size(PTL_FLOAT_COMPLEX), 8);
    CHECK_EQ(ptl_atom_size(PTL_DOUBLE_COMPLEX), 16);
    CHECK_EQ(ptl_atom_size(PTL_LONG_DOUBLE), sizeof(long double));
    CHECK_EQ(ptl_atom_size(PTL_LONG_DOUBLE_COMPLEX), sizeof(long double _Complex));
    CHECK_EQ(ptl_atom_size(PTL_DATATYPE_LAST), 0);
    CHECK_EQ(ptl_atom_size(255), 0);
}

static void test_check(void)
{
    static const int ops[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                              18, 19, 128, 255};
    static const int fams[] = {-1, 0, 1, 2, 3, 100};
    int accepted[3] = {0, 0, 0}, total = 0;
    for (size_t oi = 0; oi < sizeof ops / sizeof *ops; oi++)
        for (int dt = 0; dt <= 16; dt++)
            for (size_t fi = 0; fi < sizeof fams / sizeof *fams; fi++) {
                size_t sz = spec_size(dt) ? spec_size(dt) : 4;
                const ptl_size_t lens[] = {0, 1, sz - 1, sz, sz + 1, 2 * sz, 2 * sz + 1,
                                           3 * sz, 1000 * sz, (ptl_size_t)1 << 40, UINT64_MAX};
                for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
                    int op = ops[oi], fam = fams[fi];
                    ptl_size_t len = lens[li];
                    int got = ptl_atom_check((ptl_op_t)op, (ptl_datatype_t)dt, fam, len);
                    bool want = spec_valid(op, dt, fam, len);
                    CHECK_MSG(got == (want ? PTL_OK : PTL_ARG_INVALID),
                              "op %d dt %d family %d length %llu: got %d", op, dt, fam,
                              (unsigned long long)len, got);
                    if (got == PTL_OK && li == 3) accepted[fam]++; /* lens[3] == one element */
                    total++;
                }
            }
    /* §13.4: per family, the number of valid (op, datatype) pairs.
     * ATOMIC/FETCH: 8 int types x 10 ops + 3 real x 4 + 3 complex x 2 = 98.
     * SWAP: 8 x 8 + 3 x 7 + 3 x 3 = 94. */
    CHECK_EQ(accepted[0], 98);
    CHECK_EQ(accepted[1], 98);
    CHECK_EQ(accepted[2], 94);
    CHECK(total > 20000);
    CHECK_EQ(ptl_atom_check(PTL_MIN, 255, 0, 0), PTL_ARG_INVALID);

    /* The rules of §13.3/§13.4 spelled out one by one. */
    CHECK_EQ(ptl_atom_check(PTL_SUM, PTL_INT32_T, PTL_ATOM_FAMILY_ATOMIC, 0), PTL_OK);
    CHECK_EQ(ptl_atom_check(PTL_SUM, PTL_INT32_T, PTL_ATOM_FAMILY_FETCH, 400), PTL_OK);
    CHECK_EQ(ptl_atom_check(PTL_SUM, PTL_INT32_T, PTL_ATOM_FAMILY_ATOMIC, 6), PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_SWAP, PTL_INT32_T, PTL_ATOM_FAMILY_ATOMIC, 4), PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_CSWAP, PTL_INT64_T, PTL_ATOM_FAMILY_FETCH, 8), PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_MSWAP, PTL_UINT64_T, PTL_ATOM_FAMILY_ATOMIC, 8), PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_SUM, PTL_INT32_T, PTL_ATOM_FAMILY_SWAP, 4), PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_BXOR, PTL_UINT8_T, PTL_ATOM_FAMILY_SWAP, 1), PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_SWAP, PTL_INT32_T, PTL_ATOM_FAMILY_SWAP, 64), PTL_OK);
    CHECK_EQ(ptl_atom_check(PTL_SWAP, PTL_DOUBLE_COMPLEX, PTL_ATOM_FAMILY_SWAP, 48), PTL_OK);
    CHECK_EQ(ptl_atom_check(PTL_SWAP, PTL_DOUBLE, PTL_ATOM_FAMILY_SWAP, 12), PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_CSWAP, PTL_INT32_T, PTL_ATOM_FAMILY_SWAP, 4), PTL_OK);
    CHECK_EQ(ptl_atom_check(PTL_CSWAP, PTL_INT32_T, PTL_ATOM_FAMILY_SWAP, 8), PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_CSWAP, PTL_INT32_T, PTL_ATOM_FAMILY_SWAP, 0), PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_CSWAP_GT, PTL_UINT16_T, PTL_ATOM_FAMILY_SWAP, 2), PTL_OK);
    CHECK_EQ(ptl_atom_check(PTL_MSWAP, PTL_UINT64_T, PTL_ATOM_FAMILY_SWAP, 16), PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_MSWAP, PTL_UINT64_T, PTL_ATOM_FAMILY_SWAP, 8), PTL_OK);
    /* Real floating types: no logical/bitwise ops, no MSWAP. */
    CHECK_EQ(ptl_atom_check(PTL_MIN, PTL_DOUBLE, PTL_ATOM_FAMILY_ATOMIC, 8), PTL_OK);
    CHECK_EQ(ptl_atom_check(PTL_LOR, PTL_FLOAT, PTL_ATOM_FAMILY_ATOMIC, 4), PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_BAND, PTL_DOUBLE, PTL_ATOM_FAMILY_FETCH, 8), PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_BXOR, PTL_LONG_DOUBLE, PTL_ATOM_FAMILY_ATOMIC, 0),
             PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_MSWAP, PTL_FLOAT, PTL_ATOM_FAMILY_SWAP, 4), PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_CSWAP_LT, PTL_LONG_DOUBLE, PTL_ATOM_FAMILY_SWAP,
                            sizeof(long double)), PTL_OK);
    /* Complex: SUM, PROD, SWAP, CSWAP, CSWAP_NE only. */
    CHECK_EQ(ptl_atom_check(PTL_PROD, PTL_FLOAT_COMPLEX, PTL_ATOM_FAMILY_ATOMIC, 8), PTL_OK);
    CHECK_EQ(ptl_atom_check(PTL_MIN, PTL_FLOAT_COMPLEX, PTL_ATOM_FAMILY_ATOMIC, 8),
             PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_MAX, PTL_LONG_DOUBLE_COMPLEX, PTL_ATOM_FAMILY_FETCH, 0),
             PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_CSWAP_NE, PTL_DOUBLE_COMPLEX, PTL_ATOM_FAMILY_SWAP, 16), PTL_OK);
    CHECK_EQ(ptl_atom_check(PTL_CSWAP_GE, PTL_DOUBLE_COMPLEX, PTL_ATOM_FAMILY_SWAP, 16),
             PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_MSWAP, PTL_LONG_DOUBLE_COMPLEX, PTL_ATOM_FAMILY_SWAP,
                            sizeof(long double _Complex)), PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_OP_LAST, PTL_INT8_T, PTL_ATOM_FAMILY_ATOMIC, 1), PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_SUM, PTL_DATATYPE_LAST, PTL_ATOM_FAMILY_ATOMIC, 1),
             PTL_ARG_INVALID);
    CHECK_EQ(ptl_atom_check(PTL_SUM, PTL_INT8_T, 3, 1), PTL_ARG_INVALID);
}

/* ---- integers: reference model on bit patterns ----------------------------- */
static uint64_t wmask(unsigned w) { return w == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * w)) - 1; }

static int cmp_int(uint64_t a, uint64_t b, unsigned w, bool sgn)
{
    if (sgn) {
        uint64_t sign = UINT64_C(1) << (8 * w - 1);
        bool na = a & sign, nb = b & sign;
        if (na != nb) return na ? -1 : 1;
    }
    return a < b ? -1 : a > b ? 1 : 0; /* same sign: bit-pattern order is value order */
}

static uint64_t ref_int(int op, unsigned w, bool sgn, uint64_t t, uint64_t s, uint64_t o)
{
    uint64_t m = wmask(w);
    switch (op) {
    case PTL_MIN: return cmp_int(s, t, w, sgn) < 0 ? s : t;
    case PTL_MAX: return cmp_int(s, t, w, sgn) > 0 ? s : t;
    case PTL_SUM: return (t + s) & m;
    case PTL_PROD: return (t * s) & m;
    case PTL_LOR: return t != 0 || s != 0;
    case PTL_LAND: return t != 0 && s != 0;
    case PTL_BOR: return t | s;
    case PTL_BAND: return t & s;
    case PTL_LXOR: return (t == 0) != (s == 0);
    case PTL_BXOR: return t ^ s;
    case PTL_SWAP: return s;
    case PTL_CSWAP: return o == t ? s : t;
    case PTL_CSWAP_NE: return o != t ? s : t;
    case PTL_CSWAP_LE: return cmp_int(o, t, w, sgn) <= 0 ? s : t;
    case PTL_CSWAP_LT: return cmp_int(o, t, w, sgn) < 0 ? s : t;
    case PTL_CSWAP_GE: return cmp_int(o, t, w, sgn) >= 0 ? s : t;
    case PTL_CSWAP_GT: return cmp_int(o, t, w, sgn) > 0 ? s : t;
    case PTL_MSWAP: return ((s & o) | (t & ~o)) & m;
    }
    abort();
}

static void put_w(unsigned char *p, unsigned w, uint64_t v)
{
    uint8_t a = (uint8_t)v; uint16_t b = (uint16_t)v; uint32_t c = (uint32_t)v;
    memcpy(p, w == 1 ? (void *)&a : w == 2 ? (void *)&b : w == 4 ? (void *)&c : (void *)&v, w);
}

static uint64_t get_w(const unsigned char *p, unsigned w)
{
    uint8_t a; uint16_t b; uint32_t c; uint64_t d;
    switch (w) {
    case 1: memcpy(&a, p, 1); return a;
    case 2: memcpy(&b, p, 2); return b;
    case 4: memcpy(&c, p, 4); return c;
    default: memcpy(&d, p, 8); return d;
    }
}

#define NV 16
static void int_values(uint64_t *v, unsigned w)
{
    uint64_t m = wmask(w), top = UINT64_C(1) << (8 * w - 1), x = 0x9E3779B97F4A7C15u;
    uint64_t fixed[] = {0, 1, 2, 3, top - 1 /* MAX signed */, top /* MIN signed */,
                        m /* -1 */, m - 1 /* -2 */, 0x5555555555555555u & m,
                        0xAAAAAAAAAAAAAAAAu & m, top | 1, top >> 1};
    size_t k = 0;
    for (; k < sizeof fixed / sizeof *fixed; k++) v[k] = fixed[k];
    for (; k < NV; k++) { /* xorshift: arbitrary bit mixes */
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        v[k] = x & m;
    }
}

static long n_cond_taken, n_cond_not_taken;

/* Every op on every (T, S) pair of edge values as one NV*NV-element array,
 * for each operand when the op uses one; buffers misaligned; fetch on
 * alternate runs. */
static void test_int_type(ptl_datatype_t dt, unsigned w, bool sgn, unsigned char *raw)
{
    uint64_t v[NV];
    int_values(v, w);
    const size_t n = NV * NV, bytes = n * w;
    unsigned char *tg = raw + 1, *sr = tg + bytes + 2, *fe = sr + bytes + 2, *ob = fe + bytes + 1;
    for (int op = 0; op < PTL_OP_LAST; op++) {
        bool uses_o = op >= PTL_CSWAP;
        for (int oi = 0; oi < (uses_o ? NV : 1); oi++) {
            uint64_t o = v[oi];
            put_w(ob, w, o);
            for (size_t i = 0; i < n; i++) {
                put_w(tg + i * w, w, v[i / NV]);
                put_w(sr + i * w, w, v[i % NV]);
                put_w(fe + i * w, w, 0x3c3c3c3c3c3c3c3cu);
            }
            bool fetch = (oi + op) % 2 == 0;
            ptl_atom_apply((ptl_op_t)op, dt, tg, sr, uses_o ? ob : NULL, bytes,
                           fetch ? fe : NULL);
            for (size_t i = 0; i < n; i++) {
                uint64_t t = v[i / NV], s = v[i % NV], want = ref_int(op, w, sgn, t, s, o);
                uint64_t got = get_w(tg + i * w, w);
                CHECK_MSG(got == want, "dt %d op %d T %#llx S %#llx O %#llx: got %#llx want %#llx",
                          dt, op, (unsigned long long)t, (unsigned long long)s,
                          (unsigned long long)o, (unsigned long long)got,
                          (unsigned long long)want);
                CHECK(get_w(sr + i * w, w) == s); /* source untouched */
                CHECK(get_w(fe + i * w, w) == (fetch ? t : (0x3c3c3c3c3c3c3c3cu & wmask(w))));
                if (op >= PTL_CSWAP && op <= PTL_CSWAP_GT && s != t) {
                    if (want == s) n_cond_taken++;
                    else n_cond_not_taken++;
                }
            }
            /* The engine's single-element PtlSwap call for this operand. */
            if (uses_o) {
                unsigned char one[9];
                put_w(one + 1, w, v[5]);
                put_w(fe, w, 0);
                ptl_atom_apply((ptl_op_t)op, dt, one + 1, sr + 7 * w, ob, w, fe);
                CHECK(get_w(one + 1, w) == ref_int(op, w, sgn, v[5], v[7], o));
                CHECK(get_w(fe, w) == v[5]);
            }
        }
    }
}

/* Literal spot checks: the edge cases spelled out. */
static void test_int_literals(void)
{
    int8_t a8, b8; uint8_t u8, v8; int16_t a16, b16; int32_t a32, b32, o32;
    int64_t a64, b64, o64, f64; uint64_t u64, v64, o_u64; uint32_t u32, v32, o_u32;
#define AP(op, dt, t, s, o) ptl_atom_apply(op, dt, &(t), &(s), o, sizeof(t), NULL)
    a8 = 127; b8 = 1; AP(PTL_SUM, PTL_INT8_T, a8, b8, NULL); CHECK_EQ(a8, -128);
    a8 = -128; b8 = -1; AP(PTL_SUM, PTL_INT8_T, a8, b8, NULL); CHECK_EQ(a8, 127);
    a8 = -128; b8 = -1; AP(PTL_PROD, PTL_INT8_T, a8, b8, NULL); CHECK_EQ(a8, -128);
    u8 = 255; v8 = 1; AP(PTL_SUM, PTL_UINT8_T, u8, v8, NULL); CHECK_EQ(u8, 0);
    u8 = 16; v8 = 17; AP(PTL_PROD, PTL_UINT8_T, u8, v8, NULL); CHECK_EQ(u8, 16);
    a16 = 300; b16 = 300; AP(PTL_PROD, PTL_INT16_T, a16, b16, NULL); CHECK_EQ(a16, 24464);
    uint16_t u16 = 65535, v16 = 65535;
    AP(PTL_PROD, PTL_UINT16_T, u16, v16, NULL); CHECK_EQ(u16, 1);
    a32 = INT32_MAX; b32 = 2; AP(PTL_PROD, PTL_INT32_T, a32, b32, NULL); CHECK_EQ(a32, -2);
    a32 = INT32_MIN; b32 = -1; AP(PTL_PROD, PTL_INT32_T, a32, b32, NULL); CHECK_EQ(a32, INT32_MIN);
    a64 = INT64_MAX; b64 = 1; AP(PTL_SUM, PTL_INT64_T, a64, b64, NULL); CHECK(a64 == INT64_MIN);
    u64 = UINT64_MAX; v64 = UINT64_MAX; AP(PTL_PROD, PTL_UINT64_T, u64, v64, NULL); CHECK(u64 == 1);
    /* MIN/MAX: signed types order negatives first, unsigned types do not. */
    a32 = -5; b32 = 3; AP(PTL_MIN, PTL_INT32_T, a32, b32, NULL); CHECK_EQ(a32, -5);
    a32 = 3; b32 = -5; AP(PTL_MIN, PTL_INT32_T, a32, b32, NULL); CHECK_EQ(a32, -5);
    a32 = -5; b32 = 3; AP(PTL_MAX, PTL_INT32_T, a32, b32, NULL); CHECK_EQ(a32, 3);
    u32 = 0xFFFFFFFBu; v32 = 3; AP(PTL_MIN, PTL_UINT32_T, u32, v32, NULL); CHECK_EQ(u32, 3);
    a8 = -128; b8 = 127; AP(PTL_MAX, PTL_INT8_T, a8, b8, NULL); CHECK_EQ(a8, 127);
    u8 = 128; v8 = 127; AP(PTL_MAX, PTL_UINT8_T, u8, v8, NULL); CHECK_EQ(u8, 128);
    a64 = INT64_MIN; b64 = INT64_MAX; AP(PTL_MIN, PTL_INT64_T, a64, b64, NULL);
    CHECK(a64 == INT64_MIN);
    /* Logical ops yield exactly 0/1, unlike the bitwise ones. */
    a32 = 2; b32 = 4; AP(PTL_LAND, PTL_INT32_T, a32, b32, NULL); CHECK_EQ(a32, 1);
    a32 = 2; b32 = 4; AP(PTL_BAND, PTL_INT32_T, a32, b32, NULL); CHECK_EQ(a32, 0);
    a32 = -7; b32 = 0; AP(PTL_LOR, PTL_INT32_T, a32, b32, NULL); CHECK_EQ(a32, 1);
    a32 = 0; b32 = 0; AP(PTL_LOR, PTL_INT32_T, a32, b32, NULL); CHECK_EQ(a32, 0);
    a32 = 2; b32 = 4; AP(PTL_LXOR, PTL_INT32_T, a32, b32, NULL); CHECK_EQ(a32, 0);
    a32 = 0; b32 = -4; AP(PTL_LXOR, PTL_INT32_T, a32, b32, NULL); CHECK_EQ(a32, 1);
    a32 = 0; b32 = 7; AP(PTL_LAND, PTL_INT32_T, a32, b32, NULL); CHECK_EQ(a32, 0);
    u8 = 0x0F; v8 = 0x3C; AP(PTL_BXOR, PTL_UINT8_T, u8, v8, NULL); CHECK_EQ(u8, 0x33);
    u8 = 0x0F; v8 = 0x30; AP(PTL_BOR, PTL_UINT8_T, u8, v8, NULL); CHECK_EQ(u8, 0x3F);
    /* CSWAP family: S replaces T when "O <op> T" holds (O on the left). */
    o32 = 5; a32 = 3; b32 = 99; AP(PTL_CSWAP_GT, PTL_INT32_T, a32, b32, &o32); CHECK_EQ(a32, 99);
    o32 = 3; a32 = 5; b32 = 99; AP(PTL_CSWAP_GT, PTL_INT32_T, a32, b32, &o32); CHECK_EQ(a32, 5);
    o32 = 5; a32 = 5; b32 = 99; AP(PTL_CSWAP_GT, PTL_INT32_T, a32, b32, &o32); CHECK_EQ(a32, 5);
    o32 = 5; a32 = 5; b32 = 99; AP(PTL_CSWAP_GE, PTL_INT32_T, a32, b32, &o32); CHECK_EQ(a32, 99);
    o32 = -1; a32 = 0; b32 = 99; AP(PTL_CSWAP_LT, PTL_INT32_T, a32, b32, &o32); CHECK_EQ(a32, 99);
    o32 = 0; a32 = -1; b32 = 99; AP(PTL_CSWAP_LT, PTL_INT32_T, a32, b32, &o32); CHECK_EQ(a32, -1);
    o32 = 0; a32 = -1; b32 = 99; AP(PTL_CSWAP_LE, PTL_INT32_T, a32, b32, &o32); CHECK_EQ(a32, -1);
    o32 = -1; a32 = -1; b32 = 99; AP(PTL_CSWAP_LE, PTL_INT32_T, a32, b32, &o32); CHECK_EQ(a32, 99);
    o_u32 = 0xFFFFFFFFu; u32 = 0; v32 = 9; /* unsigned: 0xFFFFFFFF > 0 */
    AP(PTL_CSWAP_GT, PTL_UINT32_T, u32, v32, &o_u32); CHECK_EQ(u32, 9);
    o64 = 7; a64 = 7; b64 = -3; AP(PTL_CSWAP, PTL_INT64_T, a64, b64, &o64); CHECK_EQ(a64, -3);
    o64 = 7; a64 = 8; b64 = -3; AP(PTL_CSWAP, PTL_INT64_T, a64, b64, &o64); CHECK_EQ(a64, 8);
    o64 = 7; a64 = 8; b64 = -3; AP(PTL_CSWAP_NE, PTL_INT64_T, a64, b64, &o64); CHECK_EQ(a64, -3);
    o64 = 7; a64 = 7; b64 = -3; AP(PTL_CSWAP_NE, PTL_INT64_T, a64, b64, &o64); CHECK_EQ(a64, 7);
    /* MSWAP: bits of S where O is 1, bits of T where O is 0. */
    o_u64 = 0x00FF00FF00FF00FFu; u64 = 0x1111111111111111u; v64 = 0xEEEEEEEEEEEEEEEEu;
    AP(PTL_MSWAP, PTL_UINT64_T, u64, v64, &o_u64); CHECK(u64 == 0x11EE11EE11EE11EEu);
    u8 = 0xA5; v8 = 0x5A; uint8_t o8 = 0xF0;
    AP(PTL_MSWAP, PTL_UINT8_T, u8, v8, &o8); CHECK_EQ(u8, 0x55);
    a16 = -1; b16 = 0; int16_t o16 = 0x0FF0;
    AP(PTL_MSWAP, PTL_INT16_T, a16, b16, &o16); CHECK_EQ(a16, (int16_t)0xF00F);
    /* Fetch returns the old values; operand ignored (NULL) outside CSWAP/MSWAP. */
    int64_t arr[4] = {1, -2, 3, INT64_MAX}, add[4] = {10, 10, -10, 1}, old[4];
    ptl_atom_apply(PTL_SUM, PTL_INT64_T, arr, add, NULL, sizeof arr, old);
    CHECK(arr[0] == 11 && arr[1] == 8 && arr[2] == -7 && arr[3] == INT64_MIN);
    CHECK(old[0] == 1 && old[1] == -2 && old[2] == 3 && old[3] == INT64_MAX);
    /* PTL_SWAP over several elements, fetch aliasing the source buffer. */
    int32_t t3[3] = {1, 2, 3}, s3[3] = {7, 8, 9};
    ptl_atom_apply(PTL_SWAP, PTL_INT32_T, t3, s3, NULL, sizeof t3, s3);
    CHECK(t3[0] == 7 && t3[1] == 8 && t3[2] == 9 && s3[0] == 1 && s3[1] == 2 && s3[2] == 3);
    /* fetch == target: old value returned, then the target updated. */
    f64 = 40; b64 = 2; ptl_atom_apply(PTL_SUM, PTL_INT64_T, &f64, &b64, NULL, 8, &f64);
    CHECK_EQ(f64, 42);
    /* Length 0 touches nothing; a trailing partial element is left alone. */
    a32 = 1; b32 = 1; ptl_atom_apply(PTL_SUM, PTL_INT32_T, &a32, &b32, NULL, 0, NULL);
    CHECK_EQ(a32, 1);
    int16_t p3[3] = {1, 2, 3}, q3[3] = {10, 20, 30};
    ptl_atom_apply(PTL_SUM, PTL_INT16_T, p3, q3, NULL, 5, NULL);
    CHECK(p3[0] == 11 && p3[1] == 22 && p3[2] == 3);
}

/* ---- real floating types ---------------------------------------------------- */
#define FLOAT_TYPE_TEST(NAME, FT, DT)                                                     \
    static void NAME(unsigned char *raw)                                                  \
    {                                                                                     \
        static const FT v[] = {-3.5, -1, -0.0, 0, 0.5, 1, 2.25, 1e6};                     \
        enum { N = sizeof v / sizeof *v };                                                \
        const size_t w = sizeof(FT), n = N * N;                                           \
        unsigned char *tg = raw + 3, *sr = tg + n * w + 1, *fe = sr + n * w + 1,          \
                      *ob = fe + n * w + 3;                                               \
        const int ops[] = {PTL_MIN, PTL_MAX, PTL_SUM, PTL_PROD, PTL_SWAP, PTL_CSWAP,      \
                           PTL_CSWAP_NE, PTL_CSWAP_LE, PTL_CSWAP_LT, PTL_CSWAP_GE,        \
                           PTL_CSWAP_GT};                                                 \
        for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {                           \
            int op = ops[k];                                                              \
            for (int oi = 0; oi < (op >= PTL_CSWAP ? N : 1); oi++) {                      \
                FT o = v[oi], t, s, r;                                                    \
                memcpy(ob, &o, w);                                                        \
                for (size_t i = 0; i < n; i++) {                                          \
                    memcpy(tg + i * w, &v[i / N], w);                                     \
                    memcpy(sr + i * w, &v[i % N], w);                                     \
                }                                                                         \
                ptl_atom_apply((ptl_op_t)op, DT, tg, sr, ob, n * w, fe);                  \
                for (size_t i = 0; i < n; i++) {                                          \
                    FT want;                                                              \
                    t = v[i / N]; s = v[i % N];                                           \
                    switch (op) {                                                         \
                    case PTL_MIN: want = s < t ? s : t; break;                            \
                    case PTL_MAX: want = s > t ? s : t; break;                            \
                    case PTL_SUM: want = t + s; break;                                    \
                    case PTL_PROD: want = t * s; break;                                   \
                    case PTL_SWAP: want = s; break;                                       \
                    case PTL_CSWAP: want = o == t ? s : t; break;                         \
                    case PTL_CSWAP_NE: want = o != t ? s : t; break;                      \
                    case PTL_CSWAP_LE: want = o <= t ? s : t; break;                      \
                    case PTL_CSWAP_LT: want = o < t ? s : t; break;                       \
                    case PTL_CSWAP_GE: want = o >= t ? s : t; break;                      \
                    default: want = o > t ? s : t; break;                                 \
                    }                                                                     \
                    memcpy(&r, tg + i * w, w);                                            \
                    CHECK_MSG(r == want && signbit(r) == signbit(want),                   \
                              "dt %d op %d T %Lg S %Lg O %Lg: got %Lg", DT, op,           \
                              (long double)t, (long double)s, (long double)o,             \
                              (long double)r);                                            \
                    memcpy(&r, fe + i * w, w);                                            \
                    CHECK(r == t && signbit(r) == signbit(t));                            \
                }                                                                         \
            }                                                                             \
        }                                                                                 \
        /* Literal checks. */                                                             \
        FT a, b, o, old;                                                                  \
        a = 1.5; b = 2.25; ptl_atom_apply(PTL_SUM, DT, &a, &b, NULL, w, &old);            \
        CHECK(a == 3.75 && old == 1.5);                                                   \
        a = -1.5; b = 4; ptl_atom_apply(PTL_PROD, DT, &a, &b, NULL, w, NULL);             \
        CHECK(a == -6);                                                                   \
        a = -2; b = 1; ptl_atom_apply(PTL_MIN, DT, &a, &b, NULL, w, NULL);                \
        CHECK(a == -2);                                                                   \
        a = -2; b = 1; ptl_atom_apply(PTL_MAX, DT, &a, &b, NULL, w, NULL);                \
        CHECK(a == 1);                                                                    \
        o = 3; a = 2; b = 9; ptl_atom_apply(PTL_CSWAP_GT, DT, &a, &b, &o, w, &old);       \
        CHECK(a == 9 && old == 2);                                                        \
        o = 1; a = 2; b = 9; ptl_atom_apply(PTL_CSWAP_GT, DT, &a, &b, &o, w, &old);       \
        CHECK(a == 2 && old == 2);                                                        \
        o = -0.0; a = 0; b = 9; /* comparison by value: -0 == +0 */                       \
        ptl_atom_apply(PTL_CSWAP, DT, &a, &b, &o, w, NULL);                               \
        CHECK(a == 9);                                                                    \
        o = NAN; a = NAN; b = 9; /* NaN equals nothing */                                 \
        ptl_atom_apply(PTL_CSWAP, DT, &a, &b, &o, w, NULL);                               \
        CHECK(isnan(a));                                                                  \
        ptl_atom_apply(PTL_CSWAP_NE, DT, &a, &b, &o, w, NULL);                            \
        CHECK(a == 9);                                                                    \
    }

FLOAT_TYPE_TEST(test_float, float, PTL_FLOAT)
FLOAT_TYPE_TEST(test_double, double, PTL_DOUBLE)
FLOAT_TYPE_TEST(test_long_double, long double, PTL_LONG_DOUBLE)

static void test_float_precision(void)
{
    /* Each type computes at its own precision. */
    float f = 16777216.0f, g = 1.0f; /* 2^24 + 1 rounds back in float */
    ptl_atom_apply(PTL_SUM, PTL_FLOAT, &f, &g, NULL, 4, NULL);
    CHECK(f == 16777216.0f);
    double d = 16777216.0, e = 1.0;
    ptl_atom_apply(PTL_SUM, PTL_DOUBLE, &d, &e, NULL, 8, NULL);
    CHECK(d == 16777217.0);
    long double x = 1.0L, y = 0x1p-60L;
    ptl_atom_apply(PTL_SUM, PTL_LONG_DOUBLE, &x, &y, NULL, sizeof x, NULL);
    CHECK(x == 1.0L + 0x1p-60L);
    if (LDBL_MANT_DIG > 61) CHECK(x != 1.0L);
    /* Multi-element double MIN with negatives, unaligned. */
    unsigned char buf[3 * 8 * 3 + 8];
    double t[3] = {-1, 5, -7}, s[3] = {-2, 6, 0}, r[3];
    memcpy(buf + 1, t, sizeof t);
    memcpy(buf + 30, s, sizeof s);
    ptl_atom_apply(PTL_MIN, PTL_DOUBLE, buf + 1, buf + 30, NULL, sizeof t, buf + 55);
    memcpy(r, buf + 1, sizeof r);
    CHECK(r[0] == -2 && r[1] == 5 && r[2] == -7);
    memcpy(r, buf + 55, sizeof r);
    CHECK(r[0] == -1 && r[1] == 5 && r[2] == -7);
}

/* ---- complex types ------------------------------------------------------------ */
#define COMPLEX_TYPE_TEST(NAME, CT, RT, DT)                                               \
    static void NAME(unsigned char *raw)                                                  \
    {                                                                                     \
        const size_t w = sizeof(CT);                                                      \
        /* (1+2i)+(3+4i), (1+2i)(3+4i) = -5+10i, (-1.5+0.5i)(2-4i) = -1+7i */             \
        const RT tr[3] = {1, 1, -1.5}, ti[3] = {2, 2, 0.5};                               \
        const RT sr_[3] = {3, 3, 2}, si[3] = {4, 4, -4};                                  \
        unsigned char *tg = raw + 1, *sb = raw + 2 + 3 * w, *fe = raw + 3 + 6 * w;        \
        for (int k = 0; k < 3; k++) {                                                     \
            CT t = tr[k] + ti[k] * (CT)I, s = sr_[k] + si[k] * (CT)I;                      \
            memcpy(tg + k * w, &t, w);                                                    \
            memcpy(sb + k * w, &s, w);                                                    \
        }                                                                                 \
        ptl_atom_apply(PTL_PROD, DT, tg, sb, NULL, 3 * w, fe);                            \
        for (int k = 0; k < 3; k++) {                                                     \
            CT r, f;                                                                      \
            memcpy(&r, tg + k * w, w);                                                    \
            memcpy(&f, fe + k * w, w);                                                    \
            RT wr = tr[k] * sr_[k] - ti[k] * si[k], wi = tr[k] * si[k] + ti[k] * sr_[k];   \
            CHECK(creall(r) == wr && cimagl(r) == wi);                                    \
            CHECK(creall(f) == tr[k] && cimagl(f) == ti[k]);                              \
        }                                                                                 \
        ptl_atom_apply(PTL_SUM, DT, tg, sb, NULL, 3 * w, NULL); /* (-5+10i)+(3+4i) */     \
        CT r;                                                                             \
        memcpy(&r, tg, w);                                                                \
        CHECK(creall(r) == -2 && cimagl(r) == 14);                                        \
        memcpy(&r, tg + 2 * w, w); /* (-1+7i)+(2-4i) */                                   \
        CHECK(creall(r) == 1 && cimagl(r) == 3);                                          \
        /* SWAP over 2 elements; CSWAP/CSWAP_NE compare both parts. */                    \
        CT a[2] = {1 + 1 * (CT)I, 2 + 2 * (CT)I}, b[2] = {5 + 6 * (CT)I, 7 + 8 * (CT)I};  \
        CT old[2], o;                                                                     \
        ptl_atom_apply(PTL_SWAP, DT, a, b, NULL, sizeof a, old);                          \
        CHECK(a[0] == b[0] && a[1] == b[1] && old[0] == 1 + 1 * (CT)I &&                  \
              old[1] == 2 + 2 * (CT)I);                                                   \
        CT t1 = 1 + 2 * (CT)I, s1 = 9 - 9 * (CT)I;                                        \
        o = 1 + 3 * (CT)I; /* real parts equal, imaginary differ */                       \
        ptl_atom_apply(PTL_CSWAP, DT, &t1, &s1, &o, w, old);                              \
        CHECK(t1 == 1 + 2 * (CT)I && old[0] == t1);                                       \
        ptl_atom_apply(PTL_CSWAP_NE, DT, &t1, &s1, &o, w, old);                           \
        CHECK(t1 == s1 && old[0] == 1 + 2 * (CT)I);                                       \
        o = 9 - 9 * (CT)I;                                                                \
        ptl_atom_apply(PTL_CSWAP_NE, DT, &t1, &a[0], &o, w, NULL);                        \
        CHECK(t1 == 9 - 9 * (CT)I);                                                       \
        ptl_atom_apply(PTL_CSWAP, DT, &t1, &a[0], &o, w, NULL);                           \
        CHECK(t1 == a[0]);                                                                \
    }

COMPLEX_TYPE_TEST(test_float_complex, float _Complex, float, PTL_FLOAT_COMPLEX)
COMPLEX_TYPE_TEST(test_double_complex, double _Complex, double, PTL_DOUBLE_COMPLEX)
COMPLEX_TYPE_TEST(test_long_double_complex, long double _Complex, long double,
                  PTL_LONG_DOUBLE_COMPLEX)

int main(void)
{
    unsigned char *raw = malloc(1 << 16);
    CHECK(raw != NULL);
    test_sizes();
    test_check();
    static const struct { ptl_datatype_t dt; unsigned w; bool sgn; } ints[] = {
        {PTL_INT8_T, 1, true},   {PTL_UINT8_T, 1, false}, {PTL_INT16_T, 2, true},
        {PTL_UINT16_T, 2, false}, {PTL_INT32_T, 4, true}, {PTL_UINT32_T, 4, false},
        {PTL_INT64_T, 8, true},  {PTL_UINT64_T, 8, false}};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        test_int_type(ints[i].dt, ints[i].w, ints[i].sgn, raw);
    CHECK(n_cond_taken > 1000 && n_cond_not_taken > 1000);
    test_int_literals();
    test_float(raw);
    test_double(raw);
    test_long_double(raw);
    test_float_precision();
    test_float_complex(raw);
    test_double_complex(raw);
    test_long_double_complex(raw);
    free(raw);
    t_done("ptl_atomic_test");
    return 0;
}
