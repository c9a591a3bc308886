/* Datatype engine through the MPI calls: every constructor, nesting, bounds
 * and true bounds against hand-computed values, MPICH's struct padding,
 * resized (sticky) bounds, Get_count/Get_elements (partial elements),
 * Status_set_elements, freed and stale handles, error classes. */
#include <mpi.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "mpi/datatype.h"
#include "test.h"

#define OK(expr) CHECK_EQ((expr), MPI_SUCCESS)

/* size, lb, extent, true lb, true extent of a type. */
static void expect(MPI_Datatype t, MPI_Count size, MPI_Aint lb, MPI_Aint extent, MPI_Aint tlb,
                   MPI_Aint textent)
{
    int isize;
    MPI_Count xsize, xlb, xext;
    MPI_Aint alb, aext, atlb, atext, ub;
    OK(MPI_Type_size(t, &isize));
    CHECK_EQ(isize, size);
    OK(MPI_Type_size_x(t, &xsize));
    CHECK_EQ(xsize, size);
    OK(MPI_Type_get_extent(t, &alb, &aext));
    CHECK_EQ(alb, lb);
    CHECK_EQ(aext, extent);
    OK(MPI_Type_get_extent_x(t, &xlb, &xext));
    CHECK(xlb == lb && xext == extent);
    OK(MPI_Type_get_true_extent(t, &atlb, &atext));
    CHECK_EQ(atlb, tlb);
    CHECK_EQ(atext, textent);
    OK(MPI_Type_get_true_extent_x(t, &xlb, &xext));
    CHECK(xlb == tlb && xext == textent);
    OK(MPI_Type_extent(t, &aext));
    CHECK_EQ(aext, extent);
    OK(MPI_Type_lb(t, &alb));
    CHECK_EQ(alb, lb);
    OK(MPI_Type_ub(t, &ub));
    CHECK_EQ(ub, lb + extent);
}

static void set_bytes(MPI_Status *s, MPI_Count bytes)
{
    OK(MPI_Status_set_elements_x(s, MPI_BYTE, bytes));
    CHECK_EQ(mdt_status_bytes(s), bytes);
}

static int count_of(MPI_Datatype t, MPI_Count bytes)
{
    MPI_Status s = {0};
    int n = -1;
    set_bytes(&s, bytes);
    OK(MPI_Get_count(&s, t, &n));
    return n;
}

static int elements_of(MPI_Datatype t, MPI_Count bytes)
{
    MPI_Status s = {0};
    int n = -1;
    MPI_Count x = -1;
    set_bytes(&s, bytes);
    OK(MPI_Get_elements(&s, t, &n));
    OK(MPI_Get_elements_x(&s, t, &x));
    CHECK_EQ(n, x);
    return n;
}

static void test_predefined(void)
{
    expect(MPI_INT, 4, 0, 4, 0, 4);
    expect(MPI_DOUBLE, 8, 0, 8, 0, 8);
    expect(MPI_LONG_DOUBLE, 16, 0, 16, 0, 16);
    expect(MPI_C_DOUBLE_COMPLEX, 16, 0, 16, 0, 16);
    /* Pairs: struct { T v; int i; } (MPICH: size of the members, extent of the struct). */
    expect(MPI_FLOAT_INT, 8, 0, 8, 0, 8);
    expect(MPI_DOUBLE_INT, 12, 0, 16, 0, 12);
    expect(MPI_LONG_INT, 12, 0, 16, 0, 12);
    expect(MPI_SHORT_INT, 6, 0, 8, 0, 8);
    expect(MPI_2INT, 8, 0, 8, 0, 8);
    expect(MPI_LONG_DOUBLE_INT, 20, 0, 32, 0, 20);
    expect(MPI_2DOUBLE_PRECISION, 16, 0, 16, 0, 16);
    /* Pairs are two basic elements. */
    CHECK_EQ(count_of(MPI_DOUBLE_INT, 24), 2);
    CHECK_EQ(elements_of(MPI_DOUBLE_INT, 24), 4);
    CHECK_EQ(elements_of(MPI_DOUBLE_INT, 20), 3);
    CHECK_EQ(elements_of(MPI_DOUBLE_INT, 14), MPI_UNDEFINED);
    CHECK_EQ(count_of(MPI_DOUBLE_INT, 20), MPI_UNDEFINED);
    /* Committing a predefined type is allowed and changes nothing. */
    MPI_Datatype t = MPI_INT;
    OK(MPI_Type_commit(&t));
    CHECK_EQ(t, MPI_INT);
}

static void test_constructors(void)
{
    MPI_Datatype t;

    /* contiguous(3, int) */
    OK(MPI_Type_contiguous(3, MPI_INT, &t));
    expect(t, 12, 0, 12, 0, 12);
    OK(MPI_Type_free(&t));
    CHECK_EQ(t, MPI_DATATYPE_NULL);

    /* vector(3, 2, 4, int): blocks of 8 bytes at 0, 16, 32 */
    OK(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
    expect(t, 24, 0, 40, 0, 40);
    OK(MPI_Type_free(&t));

    /* vector with negative stride: ints at 0, -8, -16 */
    OK(MPI_Type_vector(3, 1, -2, MPI_INT, &t));
    expect(t, 12, -16, 20, -16, 20);
    OK(MPI_Type_free(&t));

    /* hvector(2, 3, 100, double): 24 bytes at 0 and 100 */
    OK(MPI_Type_create_hvector(2, 3, 100, MPI_DOUBLE, &t));
    expect(t, 48, 0, 124, 0, 124);
    OK(MPI_Type_free(&t));
    OK(MPI_Type_hvector(2, 3, 100, MPI_DOUBLE, &t));
    expect(t, 48, 0, 124, 0, 124);
    OK(MPI_Type_free(&t));

    /* indexed({2,1,3}, {4,0,10}, int): 8 B at 16, 4 B at 0, 12 B at 40 */
    int bl[] = {2, 1, 3}, d[] = {4, 0, 10};
    OK(MPI_Type_indexed(3, bl, d, MPI_INT, &t));
    expect(t, 24, 0, 52, 0, 52);
    OK(MPI_Type_free(&t));

    /* hindexed({1,2}, {-8,24}, double) */
    int hbl[] = {1, 2};
    MPI_Aint hd[] = {-8, 24};
    OK(MPI_Type_create_hindexed(2, hbl, hd, MPI_DOUBLE, &t));
    expect(t, 24, -8, 48, -8, 48);
    OK(MPI_Type_free(&t));
    OK(MPI_Type_hindexed(2, hbl, hd, MPI_DOUBLE, &t));
    expect(t, 24, -8, 48, -8, 48);
    OK(MPI_Type_free(&t));

    /* indexed_block(2, {5, 1}, short): 4 B at 10 and at 2 */
    int bd[] = {5, 1};
    OK(MPI_Type_create_indexed_block(2, 2, bd, MPI_SHORT, &t));
    expect(t, 8, 2, 12, 2, 12);
    OK(MPI_Type_free(&t));
    MPI_Aint hbd[] = {7, 1};
    OK(MPI_Type_create_hindexed_block(2, 1, hbd, MPI_SHORT, &t));
    expect(t, 4, 1, 8, 1, 8);
    OK(MPI_Type_free(&t));

    /* zero counts: empty types */
    OK(MPI_Type_contiguous(0, MPI_INT, &t));
    expect(t, 0, 0, 0, 0, 0);
    CHECK_EQ(count_of(t, 0), 0);
    CHECK_EQ(count_of(t, 4), MPI_UNDEFINED);
    OK(MPI_Type_free(&t));
    OK(MPI_Type_vector(0, 5, 9, MPI_INT, &t));
    expect(t, 0, 0, 0, 0, 0);
    OK(MPI_Type_free(&t));
}

static void test_struct_padding(void)
{
    MPI_Datatype t;
    int bl[] = {1, 1};
    /* { double at 0, char at 8 }: size 9, extent padded to 16, true extent 9 */
    MPI_Aint d1[] = {0, 8};
    MPI_Datatype ty1[] = {MPI_DOUBLE, MPI_CHAR};
    OK(MPI_Type_create_struct(2, bl, d1, ty1, &t));
    expect(t, 9, 0, 16, 0, 9);
    OK(MPI_Type_free(&t));
    /* { int at 0, char at 4 }: extent 8 */
    MPI_Datatype ty2[] = {MPI_INT, MPI_CHAR};
    MPI_Aint d2[] = {0, 4};
    OK(MPI_Type_create_struct(2, bl, d2, ty2, &t));
    expect(t, 5, 0, 8, 0, 5);
    OK(MPI_Type_free(&t));
    /* chars only: no padding */
    MPI_Datatype ty3[] = {MPI_CHAR, MPI_CHAR};
    MPI_Aint d3[] = {0, 2};
    OK(MPI_Type_create_struct(2, bl, d3, ty3, &t));
    expect(t, 2, 0, 3, 0, 3);
    OK(MPI_Type_free(&t));
    /* { long double at 0, char at 16 }: extent 32 */
    MPI_Datatype ty4[] = {MPI_LONG_DOUBLE, MPI_CHAR};
    MPI_Aint d4[] = {0, 16};
    OK(MPI_Type_create_struct(2, bl, d4, ty4, &t));
    expect(t, 17, 0, 32, 0, 17);
    OK(MPI_Type_free(&t));
    /* deprecated MPI_Type_struct, zero-length block ignored for bounds */
    int bl5[] = {1, 0, 2};
    MPI_Aint d5[] = {4, 1000, 8};
    MPI_Datatype ty5[] = {MPI_INT, MPI_DOUBLE, MPI_SHORT};
    OK(MPI_Type_struct(3, bl5, d5, ty5, &t));
    expect(t, 8, 4, 8, 4, 8);
    OK(MPI_Type_free(&t));
    /* a struct of one basic type at 0 equals that type */
    int one = 1;
    MPI_Aint zero = 0;
    MPI_Datatype dbl = MPI_DOUBLE;
    OK(MPI_Type_create_struct(1, &one, &zero, &dbl, &t));
    expect(t, 8, 0, 8, 0, 8);
    OK(MPI_Type_free(&t));
}

static void test_resized_dup(void)
{
    MPI_Datatype r, c, s, dup;
    /* resized(int, -4, 12): data at 0..4 */
    OK(MPI_Type_create_resized(MPI_INT, -4, 12, &r));
    expect(r, 4, -4, 12, 0, 4);
    /* contiguous(2, r): ints at 0 and 12 */
    OK(MPI_Type_contiguous(2, r, &c));
    expect(c, 8, -4, 24, 0, 16);
    /* sticky bounds (MPI 3.1 §4.1.7: only explicit lb/ub markers set the
     * bounds): struct { r at 0, double at 100 } keeps r's bounds, no padding.
     * MPICH 4.0 dropped the rule and gives lb -4, extent 112 here. */
    int bl[] = {1, 1};
    MPI_Aint d[] = {0, 100};
    MPI_Datatype ty[] = {r, MPI_DOUBLE};
    OK(MPI_Type_create_struct(2, bl, d, ty, &s));
    expect(s, 12, -4, 12, 0, 108);
    /* dup keeps everything, including committed state */
    OK(MPI_Type_commit(&c));
    OK(MPI_Type_dup(c, &dup));
    expect(dup, 8, -4, 24, 0, 16);
    mdt_type_t *dt = mdt_get(dup);
    CHECK(dt && dt->committed && dt->combiner == MPI_COMBINER_DUP);
    MPI_Datatype dups;
    OK(MPI_Type_dup(s, &dups));
    expect(dups, 12, -4, 12, 0, 108);
    CHECK(!mdt_get(dups)->committed);
    /* a struct containing a dup of a sticky type is sticky too */
    MPI_Datatype ty2[] = {dups, MPI_CHAR};
    MPI_Aint d2[] = {0, 200};
    MPI_Datatype s2;
    OK(MPI_Type_create_struct(2, bl, d2, ty2, &s2));
    expect(s2, 13, -4, 12, 0, 201);
    /* negative extent: resized(int, 0, -8) */
    MPI_Datatype neg, nv;
    OK(MPI_Type_create_resized(MPI_INT, 0, -8, &neg));
    OK(MPI_Type_contiguous(3, neg, &nv));
    /* copies at 0, -8, -16 */
    expect(nv, 12, -16, 8, -16, 20);
    MPI_Datatype all[] = {r, c, s, dup, dups, s2, neg, nv};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) OK(MPI_Type_free(&all[i]));
}

/* vector(3, 2, 3) of struct { indexed shorts at 0, 2 ints at 11 }:
 * I = indexed({1,2}, {0,3}, short): 2 B at 0, 4 B at 6; size 6, extent 10
 * S = struct({1,2}, {0,11}, {I, int}): size 14, ub 19 padded to 20
 * V = vector(3, 2, 3, S): blocks of two S at 0, 60, 120; size 84, extent 160,
 *     true extent 159; 30 basic elements */
static void test_nesting(void)
{
    MPI_Datatype I, S, V, C;
    int ibl[] = {1, 2}, idp[] = {0, 3};
    OK(MPI_Type_indexed(2, ibl, idp, MPI_SHORT, &I));
    expect(I, 6, 0, 10, 0, 10);
    int sbl[] = {1, 2};
    MPI_Aint sdp[] = {0, 11};
    MPI_Datatype sty[] = {I, MPI_INT};
    OK(MPI_Type_create_struct(2, sbl, sdp, sty, &S));
    expect(S, 14, 0, 20, 0, 19);
    OK(MPI_Type_vector(3, 2, 3, S, &V));
    expect(V, 84, 0, 160, 0, 159);
    /* freeing the inner handles does not affect V */
    OK(MPI_Type_free(&I));
    OK(MPI_Type_free(&S));
    OK(MPI_Type_commit(&V));
    expect(V, 84, 0, 160, 0, 159);
    mdt_type_t *v = mdt_get(V);
    CHECK(v != NULL);
    CHECK_EQ(v->nelem, 30);
    /* flattened: per S: (0,2) (6,4+9 merged? no: 6..10 then int at 11) */
    CHECK_EQ(v->npieces, 18); /* 6 S copies x 3 pieces (0,2) (6,4) (11,8) */
    CHECK(!v->dense);

    /* counts and elements */
    CHECK_EQ(count_of(V, 84), 1);
    CHECK_EQ(count_of(V, 168), 2);
    CHECK_EQ(count_of(V, 94), MPI_UNDEFINED);
    CHECK_EQ(elements_of(V, 84), 30);
    CHECK_EQ(elements_of(V, 14), 5);
    CHECK_EQ(elements_of(V, 6), 3);
    CHECK_EQ(elements_of(V, 2), 1);
    CHECK_EQ(elements_of(V, 3), MPI_UNDEFINED);
    CHECK_EQ(elements_of(V, 84 + 10), 34); /* I (3) and one int */
    CHECK_EQ(elements_of(V, 84 + 12), MPI_UNDEFINED);
    CHECK_EQ(elements_of(V, 0), 0);
    /* Status_set_elements is the inverse */
    MPI_Status st = {0};
    OK(MPI_Status_set_elements(&st, V, 34));
    CHECK_EQ(mdt_status_bytes(&st), 94);
    OK(MPI_Status_set_elements(&st, V, 60));
    CHECK_EQ(mdt_status_bytes(&st), 168);
    OK(MPI_Status_set_elements(&st, V, 2));
    CHECK_EQ(mdt_status_bytes(&st), 4);

    /* contiguous(2, V) and a struct of V and a pair */
    OK(MPI_Type_contiguous(2, V, &C));
    expect(C, 168, 0, 320, 0, 319);
    int bl2[] = {2, 1};
    MPI_Aint d2[] = {0, 400};
    MPI_Datatype ty2[] = {C, MPI_DOUBLE_INT};
    MPI_Datatype S2;
    OK(MPI_Type_create_struct(2, bl2, d2, ty2, &S2));
    /* C twice: 0..640 (data to 639); DOUBLE_INT at 400 overlaps, ub 416; align 8 */
    expect(S2, 336 + 12, 0, 640, 0, 639);
    CHECK_EQ(elements_of(S2, 336 + 8), 120 + 1);
    OK(MPI_Type_free(&S2));
    OK(MPI_Type_free(&C));
    OK(MPI_Type_free(&V));
}

static void test_get_count(void)
{
    MPI_Datatype two;
    OK(MPI_Type_contiguous(2, MPI_FLOAT, &two));
    /* MPI 3.1 Example 4.12: 3 floats received with a 2-float type */
    CHECK_EQ(count_of(two, 12), MPI_UNDEFINED);
    CHECK_EQ(elements_of(two, 12), 3);
    CHECK_EQ(count_of(two, 16), 2);
    CHECK_EQ(elements_of(two, 16), 4);
    CHECK_EQ(elements_of(two, 13), MPI_UNDEFINED);
    OK(MPI_Type_free(&two));
    CHECK_EQ(count_of(MPI_INT, 12), 3);
    CHECK_EQ(count_of(MPI_INT, 13), MPI_UNDEFINED);
    CHECK_EQ(count_of(MPI_BYTE, 0), 0);

    /* more than INT_MAX bytes: Get_count is MPI_UNDEFINED, _x is exact;
     * the cancelled bit is independent of the count */
    MPI_Status s = {0};
    MPI_Count big = (MPI_Count)5 << 31;
    mdt_status_set_bytes(&s, big);
    int n, flag = -1;
    OK(MPI_Test_cancelled(&s, &flag));
    CHECK_EQ(flag, 0);
    OK(MPI_Status_set_cancelled(&s, 1));
    CHECK_EQ(mdt_status_bytes(&s), big);
    OK(MPI_Test_cancelled(&s, &flag));
    CHECK_EQ(flag, 1);
    OK(MPI_Get_count(&s, MPI_BYTE, &n));
    CHECK_EQ(n, MPI_UNDEFINED);
    MPI_Count x;
    OK(MPI_Get_elements_x(&s, MPI_BYTE, &x));
    CHECK_EQ(x, big);
    OK(MPI_Get_count(&s, MPI_DOUBLE, &n));
    CHECK_EQ(n, big / 8);
    OK(MPI_Status_set_cancelled(&s, 0));
    CHECK_EQ(mdt_status_bytes(&s), big);
    OK(MPI_Test_cancelled(&s, &flag));
    CHECK_EQ(flag, 0);
}

static void test_errors(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, old;
    int bl[] = {1, -1}, d[] = {0, 1};
    MPI_Aint ad[] = {0, 1};
    MPI_Datatype ty[] = {MPI_INT, MPI_DATATYPE_NULL};

    /* count < 0 */
    CHECK_EQ(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_EQ(MPI_Type_vector(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_EQ(MPI_Type_create_hvector(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_EQ(MPI_Type_indexed(-1, bl, d, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_EQ(MPI_Type_create_hindexed(-1, bl, ad, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_EQ(MPI_Type_create_indexed_block(-1, 1, d, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_EQ(MPI_Type_create_hindexed_block(-1, 1, ad, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_EQ(MPI_Type_create_struct(-1, bl, ad, ty, &t), MPI_ERR_COUNT);
    /* negative block lengths */
    CHECK_EQ(MPI_Type_vector(1, -1, 1, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_EQ(MPI_Type_indexed(2, bl, d, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_EQ(MPI_Type_create_hindexed(2, bl, ad, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_EQ(MPI_Type_create_indexed_block(1, -2, d, MPI_INT, &t), MPI_ERR_ARG);
    /* bad types */
    CHECK_EQ(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    CHECK_EQ(MPI_Type_vector(1, 1, 1, (MPI_Datatype)0x4c0004ff, &t), MPI_ERR_TYPE);
    CHECK_EQ(MPI_Type_contiguous(1, (MPI_Datatype)0x4c000805, &t), MPI_ERR_TYPE); /* bad size */
    CHECK_EQ(MPI_Type_contiguous(1, (MPI_Datatype)0x8c000005, &t), MPI_ERR_TYPE); /* no pair */
    CHECK_EQ(MPI_Type_contiguous(1, (MPI_Datatype)0x8c0000ff, &t), MPI_ERR_TYPE);
    CHECK_EQ(MPI_Type_contiguous(1, MPI_COMM_WORLD, &t), MPI_ERR_TYPE);
    CHECK_EQ(MPI_Type_contiguous(1, 12345, &t), MPI_ERR_TYPE);
    CHECK_EQ(MPI_Type_contiguous(1, -1, &t), MPI_ERR_TYPE);
    int bl1[] = {1, 1};
    CHECK_EQ(MPI_Type_create_struct(2, bl1, ad, ty, &t), MPI_ERR_TYPE);
    CHECK_EQ(MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 4, &t), MPI_ERR_TYPE);
    CHECK_EQ(MPI_Type_dup(MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    /* NULL pointers */
    CHECK_EQ(MPI_Type_contiguous(1, MPI_INT, NULL), MPI_ERR_ARG);
    CHECK_EQ(MPI_Type_indexed(1, NULL, d, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_EQ(MPI_Type_create_struct(1, bl1, ad, NULL, &t), MPI_ERR_ARG);
    CHECK_EQ(MPI_Type_commit(NULL), MPI_ERR_ARG);
    CHECK_EQ(MPI_Type_free(NULL), MPI_ERR_ARG);
    CHECK_EQ(MPI_Type_size(MPI_INT, NULL), MPI_ERR_ARG);
    CHECK_EQ(MPI_Type_get_extent(MPI_INT, NULL, NULL), MPI_ERR_ARG);
    CHECK_EQ(MPI_Type_get_true_extent(MPI_INT, NULL, NULL), MPI_ERR_ARG);
    CHECK_EQ(t, MPI_DATATYPE_NULL); /* never written on failure */
    int n;
    MPI_Status st = {0};
    CHECK_EQ(MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &n), MPI_ERR_ARG);
    CHECK_EQ(MPI_Get_count(NULL, MPI_INT, &n), MPI_ERR_ARG);
    CHECK_EQ(MPI_Get_count(&st, MPI_INT, NULL), MPI_ERR_ARG);
    CHECK_EQ(MPI_Get_count(&st, MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE);
    CHECK_EQ(MPI_Get_elements(&st, MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE);
    CHECK_EQ(MPI_Status_set_elements(&st, MPI_INT, -1), MPI_ERR_COUNT);
    /* predefined types cannot be freed */
    old = MPI_INT;
    CHECK_EQ(MPI_Type_free(&old), MPI_ERR_TYPE);
    CHECK_EQ(old, MPI_INT);
    old = MPI_DATATYPE_NULL;
    CHECK_EQ(MPI_Type_free(&old), MPI_ERR_TYPE);

    /* freed handles: every call refuses them */
    OK(MPI_Type_contiguous(2, MPI_INT, &t));
    MPI_Datatype stale = t;
    OK(MPI_Type_free(&t));
    MPI_Aint a, b;
    CHECK_EQ(MPI_Type_size(stale, &n), MPI_ERR_TYPE);
    CHECK_EQ(MPI_Type_get_extent(stale, &a, &b), MPI_ERR_TYPE);
    CHECK_EQ(MPI_Type_get_true_extent(stale, &a, &b), MPI_ERR_TYPE);
    CHECK_EQ(MPI_Type_commit(&stale), MPI_ERR_TYPE);
    CHECK_EQ(MPI_Type_free(&stale), MPI_ERR_TYPE);
    CHECK_EQ(MPI_Type_contiguous(1, stale, &t), MPI_ERR_TYPE);
    CHECK_EQ(MPI_Get_count(&st, stale, &n), MPI_ERR_TYPE);
    int pos = 0;
    char buf[16];
    CHECK_EQ(MPI_Pack(buf, 1, stale, buf, 16, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK(mdt_get(stale) == NULL);

    /* stale handles after many reuses of the table slots stay invalid */
    enum { ROUNDS = 3000 };
    static MPI_Datatype old_handles[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        OK(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
        old_handles[i] = t;
        OK(MPI_Type_free(&t));
    }
    OK(MPI_Type_contiguous(5, MPI_CHAR, &t));
    int stale_ok = 1;
    for (int i = 0; i < ROUNDS; i++)
        if (old_handles[i] == t || mdt_get(old_handles[i]) != NULL) stale_ok = 0;
    CHECK(stale_ok);
    CHECK_EQ(MPI_Type_size(t, &n), MPI_SUCCESS);
    CHECK_EQ(n, 5);
    /* uncommitted types cannot be packed; committed ones can */
    pos = 0;
    CHECK_EQ(MPI_Pack(buf, 1, t, buf + 8, 8, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK(mdt_get_committed(t, &n) == NULL && n == MPI_ERR_TYPE);
    OK(MPI_Type_commit(&t));
    OK(MPI_Type_commit(&t)); /* twice is fine */
    OK(MPI_Pack(buf, 1, t, buf + 8, 8, &pos, MPI_COMM_WORLD));
    CHECK_EQ(pos, 5);
    CHECK_EQ(MPI_Pack(buf, 1, t, buf + 8, 8, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    CHECK_EQ(pos, 5);
    CHECK_EQ(MPI_Pack(buf, -1, t, buf + 8, 8, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
    CHECK_EQ(MPI_Pack(buf, 1, t, buf + 8, 8, NULL, MPI_COMM_WORLD), MPI_ERR_ARG);
    pos = 4;
    CHECK_EQ(MPI_Unpack(buf + 8, 8, &pos, buf, 1, t, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    OK(MPI_Pack_size(3, t, MPI_COMM_WORLD, &n));
    CHECK_EQ(n, 15);
    CHECK_EQ(MPI_Pack_size(-3, t, MPI_COMM_WORLD, &n), MPI_ERR_COUNT);
    OK(MPI_Type_free(&t));
}

static void test_addresses(void)
{
    double arr[4];
    MPI_Aint a0, a2;
    OK(MPI_Get_address(&arr[0], &a0));
    OK(MPI_Get_address(&arr[2], &a2));
    CHECK_EQ(MPI_Aint_diff(a2, a0), 16);
    CHECK_EQ(MPI_Aint_add(a0, 16), a2);
    OK(MPI_Address(&arr[2], &a0));
    CHECK_EQ(a0, a2);
    CHECK_EQ(MPI_Get_address(arr, NULL), MPI_ERR_ARG);
}

int main(void)
{
    uint32_t live = mdt_live_count();
    test_predefined();
    test_constructors();
    test_struct_padding();
    test_resized_dup();
    test_nesting();
    test_get_count();
    test_errors();
    test_addresses();
    CHECK_EQ(mdt_live_count(), live); /* every derived type freed */
    t_done("mpi_datatype");
    return 0;
}
