/* MPI_Bcast, MPI_Reduce and MPI_Allreduce on any number of ranks (ctest:
 * 1, 3 and 4): exact results of every predefined op on each family of
 * basic types and the MINLOC/MAXLOC pairs, every root, derived datatypes
 * (results land only where the type map says), MPI_IN_PLACE, count 0,
 * large messages, user ops (commutative and not, on contiguous and strided
 * types), dup/split/self communicators with point-to-point traffic pending
 * on the same communicator, and the error classes of bad arguments.
 *
 * Plain MPI: it also builds with MPICH's mpicc and runs under mpiexec, to
 * check the test itself. */
#include <mpi.h>

#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MT_RANK rank
#include "mpi_expect.h"

static int rank, size;

/* ---- predefined ops on basic types -------------------------------------------------- */

/* Operand of rank r, element i: arithmetic, logical (one rank holds 0) and
 * bit pattern flavours. */
static long long val_arith(int r, int i)
{
    return r % 3 + 1 + i;
}
static long long val_logic(int r, int i)
{
    return (r + i) % 3 != 1;
}
static long long val_bits(int r, int i)
{
    return (1 << (r % 6)) | (i ? 0x40 : 0x20);
}

/* Expected op over ranks 0..n-1, computed in long long. */
static long long expect_int(MPI_Op op, int n, int i)
{
    long long acc = op == MPI_SUM ? 0 : op == MPI_PROD ? 1 : 0;
    for (int r = 0; r < n; r++) {
        long long a = val_arith(r, i), l = val_logic(r, i), b = val_bits(r, i);
        if (op == MPI_SUM)
            acc += a;
        else if (op == MPI_PROD)
            acc *= a;
        else if (op == MPI_MAX)
            acc = r == 0 || a > acc ? a : acc;
        else if (op == MPI_MIN)
            acc = r == 0 || a < acc ? a : acc;
        else if (op == MPI_LAND)
            acc = r == 0 ? l : (acc && l);
        else if (op == MPI_LOR)
            acc = r == 0 ? l : (acc || l);
        else if (op == MPI_LXOR)
            acc = r == 0 ? l : (!acc != !l);
        else if (op == MPI_BAND)
            acc = r == 0 ? b : (acc & b);
        else if (op == MPI_BOR)
            acc = r == 0 ? b : (acc | b);
        else if (op == MPI_BXOR)
            acc = r == 0 ? b : (acc ^ b);
    }
    return acc;
}

static long long operand(MPI_Op op, int r, int i)
{
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return val_logic(r, i);
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) return val_bits(r, i);
    return val_arith(r, i);
}

#define NI 3

/* Allreduce, and Reduce to root, of NI elements of C type T. */
#define CHECK_INT_OP(T, dt, op, root)                                                              \
    do {                                                                                           \
        T s[NI], out[NI], red[NI];                                                                 \
        for (int i = 0; i < NI; i++)                                                               \
            s[i] = (T)operand(op, rank, i), red[i] = (T)99;                                        \
        EXPECT(MPI_Allreduce(s, out, NI, dt, op, MPI_COMM_WORLD) == MPI_SUCCESS);                  \
        EXPECT(MPI_Reduce(s, red, NI, dt, op, root, MPI_COMM_WORLD) == MPI_SUCCESS);               \
        for (int i = 0; i < NI; i++) {                                                             \
            EXPECT(out[i] == (T)expect_int(op, size, i));                                          \
            EXPECT(red[i] == (rank == root ? (T)expect_int(op, size, i) : (T)99));                 \
        }                                                                                          \
    } while (0)

static const MPI_Op arith_ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
static const MPI_Op logic_ops[] = {MPI_LAND, MPI_LOR, MPI_LXOR};
static const MPI_Op bit_ops[] = {MPI_BAND, MPI_BOR, MPI_BXOR};

/* C integers take every op but MINLOC/MAXLOC. */
#define CHECK_C_INTEGER(T, dt)                                                                     \
    do {                                                                                           \
        for (int k = 0; k < 4; k++)                                                                \
            CHECK_INT_OP(T, dt, arith_ops[k], k % size);                                           \
        for (int k = 0; k < 3; k++)                                                                \
            CHECK_INT_OP(T, dt, logic_ops[k], (k + 1) % size);                                     \
        for (int k = 0; k < 3; k++)                                                                \
            CHECK_INT_OP(T, dt, bit_ops[k], (k + 2) % size);                                       \
    } while (0)

/* MPI_CHAR: MPI 3.1 §5.9.2 gives it no op, but MPICH and Open MPI reduce
 * it as a signed char and the standard collective benchmarks use it by
 * default; so does Sluice.  Signed: the maximum of -5 and 3 is 3 (251 and
 * 3 as unsigned), the minimum -5. */
static void reduce_char(void)
{
    CHECK_C_INTEGER(char, MPI_CHAR);
    char c = rank == 0 ? -5 : 3, mx = 0, mn = 0, sum = 0;
    EXPECT(MPI_Allreduce(&c, &mx, 1, MPI_CHAR, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS);
    EXPECT(MPI_Allreduce(&c, &mn, 1, MPI_CHAR, MPI_MIN, MPI_COMM_WORLD) == MPI_SUCCESS);
    EXPECT(MPI_Allreduce(&c, &sum, 1, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    EXPECT(mx == (size > 1 ? 3 : -5) && mn == -5 && sum == (char)(-5 + 3 * (size - 1)));
}

static void test_integers(void)
{
    reduce_char();
    CHECK_C_INTEGER(signed char, MPI_SIGNED_CHAR);
    CHECK_C_INTEGER(unsigned char, MPI_UNSIGNED_CHAR);
    CHECK_C_INTEGER(short, MPI_SHORT);
    CHECK_C_INTEGER(unsigned short, MPI_UNSIGNED_SHORT);
    CHECK_C_INTEGER(int, MPI_INT);
    CHECK_C_INTEGER(unsigned, MPI_UNSIGNED);
    CHECK_C_INTEGER(long, MPI_LONG);
    CHECK_C_INTEGER(unsigned long, MPI_UNSIGNED_LONG);
    CHECK_C_INTEGER(long long, MPI_LONG_LONG);
    CHECK_C_INTEGER(unsigned long long, MPI_UNSIGNED_LONG_LONG);
    CHECK_C_INTEGER(int8_t, MPI_INT8_T);
    CHECK_C_INTEGER(int16_t, MPI_INT16_T);
    CHECK_C_INTEGER(int32_t, MPI_INT32_T);
    CHECK_C_INTEGER(int64_t, MPI_INT64_T);
    CHECK_C_INTEGER(uint8_t, MPI_UINT8_T);
    CHECK_C_INTEGER(uint16_t, MPI_UINT16_T);
    CHECK_C_INTEGER(uint32_t, MPI_UINT32_T);
    CHECK_C_INTEGER(uint64_t, MPI_UINT64_T);
    /* multi-language types: arithmetic and bits */
    for (int k = 0; k < 4; k++)
        CHECK_INT_OP(MPI_Aint, MPI_AINT, arith_ops[k], 0);
    for (int k = 0; k < 3; k++)
        CHECK_INT_OP(MPI_Offset, MPI_OFFSET, bit_ops[k], size - 1);
    for (int k = 0; k < 4; k++)
        CHECK_INT_OP(MPI_Count, MPI_COUNT, arith_ops[k], 0);
    /* byte: bits only; C bool: logical only */
    for (int k = 0; k < 3; k++)
        CHECK_INT_OP(unsigned char, MPI_BYTE, bit_ops[k], k % size);
    for (int k = 0; k < 3; k++)
        CHECK_INT_OP(_Bool, MPI_C_BOOL, logic_ops[k], k % size);
    /* Fortran integer (arithmetic, bits) and LOGICAL (logical ops), from C */
    for (int k = 0; k < 4; k++)
        CHECK_INT_OP(int, MPI_INTEGER, arith_ops[k], k % size);
    for (int k = 0; k < 3; k++)
        CHECK_INT_OP(int, MPI_INTEGER, bit_ops[k], k % size);
    for (int k = 0; k < 3; k++)
        CHECK_INT_OP(int, MPI_LOGICAL, logic_ops[k], k % size);
}

/* Floating point: arithmetic on small integers is exact. */
#define CHECK_FLOAT(T, dt)                                                                         \
    for (int k = 0; k < 4; k++)                                                                    \
    CHECK_INT_OP(T, dt, arith_ops[k], (k + 1) % size)

static void test_floats(void)
{
    CHECK_FLOAT(float, MPI_FLOAT);
    CHECK_FLOAT(double, MPI_DOUBLE);
    CHECK_FLOAT(long double, MPI_LONG_DOUBLE);
    CHECK_FLOAT(float, MPI_REAL);
    CHECK_FLOAT(double, MPI_DOUBLE_PRECISION);
    /* complex: sum and product of (r+1) + (i+1)i, exact in small integers */
    double complex s[2], out[2], want[2] = {0, 0}, prod[2] = {1, 1};
    for (int i = 0; i < 2; i++)
        s[i] = (rank % 3 + 1) + (i + 1) * I;
    for (int r = 0; r < size; r++)
        for (int i = 0; i < 2; i++) {
            double complex v = (r % 3 + 1) + (i + 1) * I;
            want[i] += v;
            prod[i] *= v;
        }
    EXPECT(MPI_Allreduce(s, out, 2, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD) == 0);
    EXPECT(out[0] == want[0] && out[1] == want[1]);
    EXPECT(MPI_Allreduce(s, out, 2, MPI_C_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD) == 0);
    EXPECT(out[0] == prod[0] && out[1] == prod[1]);
    float complex fs = (float)(rank + 1) - 1.0f * I, fo;
    EXPECT(MPI_Allreduce(&fs, &fo, 1, MPI_C_FLOAT_COMPLEX, MPI_SUM, MPI_COMM_WORLD) == 0);
    EXPECT(crealf(fo) == size * (size + 1) / 2 && cimagf(fo) == -size);
    long double complex ls = (long double)rank + 2.0L * I, lo;
    EXPECT(MPI_Allreduce(&ls, &lo, 1, MPI_C_LONG_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD) == 0);
    EXPECT(creall(lo) == size * (size - 1) / 2 && cimagl(lo) == 2.0L * size);
}

/* ---- MINLOC and MAXLOC ---------------------------------------------------------------- */

/* Element 0: values 3 (even ranks) and 5 (odd ranks), ties broken by the
 * lower index; element 1: value -r, all distinct. */
#define CHECK_PAIR(V, dt)                                                                          \
    do {                                                                                           \
        struct {                                                                                   \
            V v;                                                                                   \
            int i;                                                                                 \
        } s[2], mn[2], mx[2];                                                                      \
        s[0].v = (V)(rank % 2 ? 5 : 3), s[0].i = rank;                                             \
        s[1].v = (V)(-rank), s[1].i = rank;                                                        \
        EXPECT(MPI_Allreduce(s, mn, 2, dt, MPI_MINLOC, MPI_COMM_WORLD) == MPI_SUCCESS);            \
        EXPECT(MPI_Reduce(s, mx, 2, dt, MPI_MAXLOC, size - 1, MPI_COMM_WORLD) == 0);               \
        EXPECT(mn[0].v == (V)3 && mn[0].i == 0);                                                   \
        EXPECT(mn[1].v == (V)(1 - size) && mn[1].i == size - 1);                                   \
        if (rank == size - 1) {                                                                    \
            EXPECT(mx[0].v == (V)(size > 1 ? 5 : 3) && mx[0].i == (size > 1 ? 1 : 0));             \
            EXPECT(mx[1].v == (V)0 && mx[1].i == 0);                                               \
        }                                                                                          \
    } while (0)

static void test_pairs(void)
{
    CHECK_PAIR(float, MPI_FLOAT_INT);
    CHECK_PAIR(double, MPI_DOUBLE_INT);
    CHECK_PAIR(long, MPI_LONG_INT);
    CHECK_PAIR(short, MPI_SHORT_INT);
    CHECK_PAIR(int, MPI_2INT);
    CHECK_PAIR(long double, MPI_LONG_DOUBLE_INT);
}

/* ---- broadcast ------------------------------------------------------------------------ */

static void test_bcast(void)
{
    for (int root = 0; root < size; root++) {
        int v[5];
        for (int i = 0; i < 5; i++)
            v[i] = rank == root ? 100 * root + i : -1;
        EXPECT(MPI_Bcast(v, 5, MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int i = 0; i < 5; i++)
            EXPECT(v[i] == 100 * root + i);
        EXPECT(MPI_Bcast(NULL, 0, MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS);
    }
    /* a struct with holes: only the members arrive, the padding stays */
    struct rec {
        int a;
        double b;
        char c[3];
    } recs[3];
    int bl[3] = {1, 1, 3};
    MPI_Aint disp[3] = {offsetof(struct rec, a), offsetof(struct rec, b), offsetof(struct rec, c)};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, rt, rtr;
    MPI_Type_create_struct(3, bl, disp, types, &rt);
    MPI_Type_create_resized(rt, 0, sizeof(struct rec), &rtr);
    MPI_Type_commit(&rtr);
    memset(recs, 0x5a, sizeof recs);
    int root = size / 2;
    if (rank == root)
        for (int k = 0; k < 3; k++)
            recs[k].a = k, recs[k].b = k + 0.5, memcpy(recs[k].c, "xyz", 3);
    EXPECT(MPI_Bcast(recs, 3, rtr, root, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int k = 0; k < 3; k++) {
        EXPECT(recs[k].a == k && recs[k].b == k + 0.5 && memcmp(recs[k].c, "xyz", 3) == 0);
        if (rank != root) EXPECT(((unsigned char *)&recs[k])[sizeof(int)] == 0x5a); /* hole */
    }
    MPI_Type_free(&rt);
    MPI_Type_free(&rtr);
    /* large: past the eager limit, through the rendezvous */
    int n = 1 << 18;
    int *big = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        big[i] = rank == size - 1 ? i ^ 0x1234 : 0;
    EXPECT(MPI_Bcast(big, n, MPI_INT, size - 1, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int i = 0; i < n; i++)
        EXPECT(big[i] == (i ^ 0x1234));
    free(big);
}

/* ---- derived datatypes, in place, count 0, large -------------------------------------- */

/* Predefined ops on derived types whose basic elements are all one type:
 * MPI 3.1 allows predefined ops only on basic types in reductions (§5.9.2;
 * MPICH refuses these), and on such derived types in accumulates (§11.3.4);
 * Sluice extends the latter rule to reductions. */
static void test_derived(void)
{
#ifdef SLUICE_MPI
    /* a vector of doubles: elements 0, 2, 4 of every 5 (extent 5 doubles) */
    MPI_Datatype vec;
    MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    double s[10], out[10];
    for (int i = 0; i < 10; i++)
        s[i] = rank + i, out[i] = -1;
    EXPECT(MPI_Allreduce(s, out, 2, vec, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int i = 0; i < 10; i++) {
        bool in_map = i % 5 == 0 || i % 5 == 2 || i % 5 == 4;
        EXPECT(out[i] == (in_map ? size * (size - 1) / 2.0 + size * i : -1));
    }
    MPI_Type_free(&vec);
    /* contiguous pairs with MINLOC, to a root in the middle */
    MPI_Datatype pairs;
    MPI_Type_contiguous(2, MPI_2INT, &pairs);
    MPI_Type_commit(&pairs);
    int p[4] = {10 - rank, rank, rank, rank}, q[4] = {0, 0, 0, 0};
    EXPECT(MPI_Reduce(p, q, 1, pairs, MPI_MINLOC, size / 2, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == size / 2) EXPECT(q[0] == 11 - size && q[1] == size - 1 && q[2] == 0 && q[3] == 0);
    MPI_Type_free(&pairs);
#endif
}

static void test_in_place_and_zero(void)
{
    int v[4];
    for (int i = 0; i < 4; i++)
        v[i] = rank * i;
    EXPECT(MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int i = 0; i < 4; i++)
        EXPECT(v[i] == i * size * (size - 1) / 2);
    for (int root = 0; root < size; root++) {
        double d = rank == root ? 0.5 : rank * 2.0, r = 7;
        const void *sb = rank == root ? MPI_IN_PLACE : (const void *)&d;
        void *rb = rank == root ? (void *)&d : (void *)&r;
        EXPECT(MPI_Reduce(sb, rb, 1, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD) == MPI_SUCCESS);
        double want = 0.5;
        for (int k = 0; k < size; k++)
            if (k != root && k * 2.0 > want) want = k * 2.0;
        if (rank == root)
            EXPECT(d == want);
        else
            EXPECT(r == 7);
    }
    int z = 5;
    EXPECT(MPI_Allreduce(&z, &z + 1, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    EXPECT(MPI_Reduce(NULL, NULL, 0, MPI_INT, MPI_PROD, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    EXPECT(z == 5);
    /* large Allreduce (packed streams past the eager limit) */
    int n = 100000;
    double *a = malloc(sizeof(double) * (size_t)n), *b = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++)
        a[i] = (double)(i % 1000) + rank;
    EXPECT(MPI_Allreduce(a, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int i = 0; i < n; i++)
        EXPECT(b[i] == size * (double)(i % 1000) + size * (size - 1) / 2.0);
    free(a);
    free(b);
}

/* ---- user ops ------------------------------------------------------------------------- */

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

/* 2x2 integer matrices, row major: inout = in x inout (not commutative). */
static void mat_mul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k < *len; k++) {
        const int *a = (int *)in + 4 * k;
        int *b = (int *)inout + 4 * k, c[4];
        c[0] = a[0] * b[0] + a[1] * b[2];
        c[1] = a[0] * b[1] + a[1] * b[3];
        c[2] = a[2] * b[0] + a[3] * b[2];
        c[3] = a[2] * b[1] + a[3] * b[3];
        memcpy(b, c, sizeof c);
    }
}

static void mat_of(int r, int m[4])
{
    m[0] = r + 1, m[1] = 1, m[2] = r % 2, m[3] = 2;
}

/* On a strided type (3 ints at stride 2, extent 5 ints): keep the left
 * operand (associative, not commutative: the result is rank 0's). */
static void keep_left(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k < *len; k++)
        for (int j = 0; j < 3; j++)
            ((int *)inout)[5 * k + 2 * j] = ((int *)in)[5 * k + 2 * j];
}

static void test_user_ops(void)
{
    MPI_Op sum, mul, left;
    EXPECT(MPI_Op_create(user_sum, 1, &sum) == MPI_SUCCESS);
    EXPECT(MPI_Op_create(mat_mul, 0, &mul) == MPI_SUCCESS);
    EXPECT(MPI_Op_create(keep_left, 0, &left) == MPI_SUCCESS);
    int v[3] = {rank, 1, -rank}, o[3];
    EXPECT(MPI_Allreduce(v, o, 3, MPI_INT, sum, MPI_COMM_WORLD) == MPI_SUCCESS);
    EXPECT(o[0] == size * (size - 1) / 2 && o[1] == size && o[2] == -o[0]);
    /* matrices: the product in rank order, for every root */
    MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    int want[4] = {1, 0, 0, 1}, m[4], res[4];
    for (int r = 0; r < size; r++) {
        int x[4];
        mat_of(r, x);
        mat_mul(want, x, &(int){1}, &mat); /* x = want x x */
        memcpy(want, x, sizeof x);
    }
    mat_of(rank, m);
    for (int root = 0; root < size; root++) {
        memset(res, 0, sizeof res);
        EXPECT(MPI_Reduce(m, res, 1, mat, mul, root, MPI_COMM_WORLD) == MPI_SUCCESS);
        if (rank == root) EXPECT(memcmp(res, want, sizeof want) == 0);
    }
    EXPECT(MPI_Allreduce(m, res, 1, mat, mul, MPI_COMM_WORLD) == MPI_SUCCESS);
    EXPECT(memcmp(res, want, sizeof want) == 0);
    MPI_Type_free(&mat);
    /* strided layout: the user function sees the type's layout */
    MPI_Datatype str;
    MPI_Type_vector(3, 1, 2, MPI_INT, &str);
    MPI_Type_commit(&str);
    int sv[10], so[10];
    for (int i = 0; i < 10; i++)
        sv[i] = 1000 * rank + i, so[i] = -1;
    int root = size - 1;
    EXPECT(MPI_Reduce(sv, so, 2, str, left, root, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == root)
        for (int i = 0; i < 10; i++)
            EXPECT(so[i] == (i % 5 % 2 == 0 ? i : -1));
    MPI_Type_free(&str);
    EXPECT(MPI_Op_free(&sum) == MPI_SUCCESS && sum == MPI_OP_NULL);
    EXPECT(MPI_Op_free(&mul) == MPI_SUCCESS);
    EXPECT(MPI_Op_free(&left) == MPI_SUCCESS);
}

/* ---- other communicators, with point-to-point pending --------------------------------- */

/* Collectives on comm while a wildcard receive waits on it: the receive
 * must see only the user message sent afterwards. */
static void coll_beside_p2p(MPI_Comm comm)
{
    int me, n, in = -1, flag;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    MPI_Request rr, sr;
    MPI_Status st;
    EXPECT(MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &rr) == MPI_SUCCESS);
    int v = me + 1, sum = 0, b = me == n - 1 ? 42 : 0, mx = -1;
    EXPECT(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
    EXPECT(sum == n * (n + 1) / 2);
    EXPECT(MPI_Bcast(&b, 1, MPI_INT, n - 1, comm) == MPI_SUCCESS && b == 42);
    EXPECT(MPI_Reduce(&v, &mx, 1, MPI_INT, MPI_MAX, 0, comm) == MPI_SUCCESS);
    if (me == 0) EXPECT(mx == n);
    EXPECT(MPI_Barrier(comm) == MPI_SUCCESS);
    /* the receive may only ever match the user message (another rank may
     * have sent it already) */
    EXPECT(MPI_Test(&rr, &flag, &st) == MPI_SUCCESS);
    if (flag) EXPECT(in == 1000 + (me + n - 1) % n && st.MPI_TAG == 7);
    int out = 1000 + me;
    EXPECT(MPI_Isend(&out, 1, MPI_INT, (me + 1) % n, 7, comm, &sr) == MPI_SUCCESS);
    if (!flag) EXPECT(MPI_Wait(&rr, &st) == MPI_SUCCESS);
    EXPECT(in == 1000 + (me + n - 1) % n && st.MPI_TAG == 7);
    EXPECT(MPI_Wait(&sr, MPI_STATUS_IGNORE) == MPI_SUCCESS);
}

static void test_comms(void)
{
    MPI_Comm dup, split;
    EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &split) == MPI_SUCCESS);
    coll_beside_p2p(dup);
    coll_beside_p2p(split);
    coll_beside_p2p(MPI_COMM_SELF);
    coll_beside_p2p(MPI_COMM_WORLD);
    /* interleaved on two communicators sharing members */
    int a = rank, b = 1, sa, sb;
    EXPECT(MPI_Allreduce(&a, &sa, 1, MPI_INT, MPI_SUM, split) == MPI_SUCCESS);
    EXPECT(MPI_Allreduce(&b, &sb, 1, MPI_INT, MPI_SUM, dup) == MPI_SUCCESS);
    EXPECT(sb == size);
    int want = 0;
    for (int r = rank % 2; r < size; r += 2)
        want += r;
    EXPECT(sa == want);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&split);
}

/* ---- error classes -------------------------------------------------------------------- */

static int err_class(int rc)
{
    int cls;
    MPI_Error_class(rc, &cls);
    return cls;
}

static void test_errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int v[2] = {1, 2}, o[2];
    EXPECT(err_class(MPI_Bcast(v, 2, MPI_INT, size, MPI_COMM_WORLD)) == MPI_ERR_ROOT);
    EXPECT(err_class(MPI_Bcast(v, 2, MPI_INT, -1, MPI_COMM_WORLD)) == MPI_ERR_ROOT);
    EXPECT(err_class(MPI_Reduce(v, o, 2, MPI_INT, MPI_SUM, size, MPI_COMM_WORLD)) == MPI_ERR_ROOT);
#ifdef SLUICE_MPI /* MPICH 4.0 smashes its own stack reporting this one */
    EXPECT(err_class(MPI_Allreduce(v, o, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)) == MPI_ERR_COUNT);
#endif
    EXPECT(err_class(MPI_Bcast(v, -2, MPI_INT, 0, MPI_COMM_WORLD)) == MPI_ERR_COUNT);
    EXPECT(err_class(MPI_Bcast(v, 2, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD)) == MPI_ERR_TYPE);
#ifdef SLUICE_MPI /* MPICH checks the op against the type first: MPI_ERR_OP */
    EXPECT(err_class(MPI_Allreduce(v, o, 2, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD)) ==
           MPI_ERR_TYPE);
#endif
    MPI_Datatype unc;
    MPI_Type_contiguous(2, MPI_INT, &unc);
    EXPECT(err_class(MPI_Bcast(v, 1, unc, 0, MPI_COMM_WORLD)) == MPI_ERR_TYPE);
    MPI_Type_free(&unc);
    EXPECT(err_class(MPI_Allreduce(v, o, 2, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD)) == MPI_ERR_OP);
    EXPECT(err_class(MPI_Allreduce(v, o, 1, MPI_2INT, MPI_SUM, MPI_COMM_WORLD)) == MPI_ERR_OP);
    EXPECT(err_class(MPI_Allreduce(v, o, 2, MPI_INT, MPI_MINLOC, MPI_COMM_WORLD)) == MPI_ERR_OP);
    double d = 1, e;
    EXPECT(err_class(MPI_Allreduce(&d, &e, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD)) == MPI_ERR_OP);
    EXPECT(err_class(MPI_Reduce(&d, &e, 1, MPI_DOUBLE, MPI_BXOR, 0, MPI_COMM_WORLD)) == MPI_ERR_OP);
    double complex z = 1, zo;
    EXPECT(err_class(MPI_Allreduce(&z, &zo, 1, MPI_C_DOUBLE_COMPLEX, MPI_MAX, MPI_COMM_WORLD)) ==
           MPI_ERR_OP);
    EXPECT(err_class(MPI_Allreduce(v, o, 2, MPI_INT, MPI_SUM, MPI_COMM_NULL)) == MPI_ERR_COMM);
    EXPECT(err_class(MPI_Bcast(v, 2, MPI_INT, 0, MPI_COMM_NULL)) == MPI_ERR_COMM);
    MPI_Op op = MPI_SUM;
    EXPECT(err_class(MPI_Op_free(&op)) == MPI_ERR_OP);
    EXPECT(MPI_Op_create(user_sum, 1, &op) == MPI_SUCCESS);
    MPI_Op stale = op;
    (void)stale;
    MPI_Op_free(&op);
#ifdef SLUICE_MPI
    /* a freed handle is refused (generation-checked; MPICH uses it) */
    EXPECT(err_class(MPI_Allreduce(v, o, 2, MPI_INT, stale, MPI_COMM_WORLD)) == MPI_ERR_OP);
    /* Stricter than MPICH 4, which accepts these as extensions: MPI 3.1
     * §5.9.2 gives logical ops no floating point types and MPI_REPLACE
     * to accumulates only; a derived type of mixed basic types takes no
     * predefined op.  (MPI_CHAR, which §5.9.2 leaves out too, is reduced
     * as a signed char, as MPICH and Open MPI do: reduce_char below.) */
    EXPECT(err_class(MPI_Allreduce(&d, &e, 1, MPI_DOUBLE, MPI_LAND, MPI_COMM_WORLD)) == MPI_ERR_OP);
    EXPECT(err_class(MPI_Allreduce(v, o, 2, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD)) == MPI_ERR_OP);
    struct {
        int i;
        double x;
    } mixed[1] = {{1, 2}}, mixed_out[1];
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, sizeof(double)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, mt;
    MPI_Type_create_struct(2, bl, disp, types, &mt);
    MPI_Type_commit(&mt);
    EXPECT(err_class(MPI_Allreduce(mixed, mixed_out, 1, mt, MPI_SUM, MPI_COMM_WORLD)) ==
           MPI_ERR_OP);
    MPI_Type_free(&mt);
    /* aliased buffers and MPI_IN_PLACE where MPI has none */
    EXPECT(err_class(MPI_Allreduce(v, v, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD)) == MPI_ERR_BUFFER);
    EXPECT(err_class(MPI_Bcast(MPI_IN_PLACE, 2, MPI_INT, 0, MPI_COMM_WORLD)) == MPI_ERR_BUFFER);
    if (size > 1)
        EXPECT(err_class(MPI_Reduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, (rank + 1) % size,
                                    MPI_COMM_WORLD)) == MPI_ERR_BUFFER);
#endif
    /* still in step after all the refused calls */
    int x = 1, sx;
    EXPECT(MPI_Allreduce(&x, &sx, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    EXPECT(sx == size);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_integers();
    test_floats();
    test_pairs();
    test_bcast();
    test_derived();
    test_in_place_and_zero();
    test_user_ops();
    test_comms();
    test_errors();
    MPI_Finalize();
    if (rank == 0) printf("mpi_coll_test: ok (%d ranks)\n", size);
    return 0;
}
