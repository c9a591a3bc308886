/* MPI_Type_create_subarray, MPI_Type_create_darray (MPI 4.0 §5.1.3-5.1.4)
 * and MPI_Type_get_envelope/get_contents (§5.1.13).  Subarray and darray
 * types pack an array whose element i holds i, and the packed stream must
 * be the elements the process owns in the array's order, found by brute
 * force from the definitions; lb is 0 and the extent the whole array's.
 * Darray types are built for every rank of the process grid (the call
 * takes size and rank as arguments), so one process checks them all.
 * Every kind of type is rebuilt from its envelope and contents and must
 * pack as the original.  Also built by MPICH's mpicc. */
#include "mpi_expect.h"

#include <stdint.h>
#include <string.h>

#define NMAX 4096

/* The owner coordinate of index x of a dimension. */
static int owner(int x, int g, int distrib, int darg, int p)
{
    if (distrib == MPI_DISTRIBUTE_NONE) return 0;
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        return x / blk;
    }
    int blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    return x / blk % p;
}

/* Index of dimension d within linear index L of the array, in order. */
static int index_of(long L, int nd, const int *g, int order, int d)
{
    long below = 1;
    if (order == MPI_ORDER_C)
        for (int i = d + 1; i < nd; i++)
            below *= g[i];
    else
        for (int i = 0; i < d; i++)
            below *= g[i];
    return (int)(L / below % g[d]);
}

static long total(int nd, const int *g)
{
    long n = 1;
    for (int i = 0; i < nd; i++)
        n *= g[i];
    return n;
}

/* Packs one element of t over an int array of n elements holding 0..n-1
 * and compares with want[0..nwant). */
static void check_pack(MPI_Datatype t, long n, const int *want, int nwant)
{
    static int arr[NMAX], packed[NMAX];
    for (long i = 0; i < n; i++)
        arr[i] = (int)i;
    int size;
    EXPECT(MPI_Type_size(t, &size) == MPI_SUCCESS && size == nwant * (int)sizeof(int));
    MPI_Aint lb, ext;
    EXPECT(MPI_Type_get_extent(t, &lb, &ext) == MPI_SUCCESS);
    EXPECT(lb == 0 && ext == n * (MPI_Aint)sizeof(int));
    int pos = 0;
    EXPECT(MPI_Pack(arr, 1, t, packed, (int)sizeof packed, &pos, MPI_COMM_SELF) == MPI_SUCCESS);
    EXPECT(pos == size);
    for (int i = 0; i < nwant; i++) {
        if (packed[i] != want[i])
            fprintf(stderr, "element %d: %d, expected %d\n", i, packed[i], want[i]);
        EXPECT(packed[i] == want[i]);
    }
}

static void check_subarray(int nd, const int *sz, const int *sub, const int *st, int order)
{
    static int want[NMAX];
    int nw = 0;
    long n = total(nd, sz);
    for (long L = 0; L < n; L++) {
        int in = 1;
        for (int d = 0; d < nd; d++) {
            int x = index_of(L, nd, sz, order, d);
            in &= x >= st[d] && x < st[d] + sub[d];
        }
        if (in) want[nw++] = (int)L;
    }
    MPI_Datatype t;
    EXPECT(MPI_Type_create_subarray(nd, sz, sub, st, order, MPI_INT, &t) == MPI_SUCCESS);
    EXPECT(MPI_Type_commit(&t) == MPI_SUCCESS);
    check_pack(t, n, want, nw);
    EXPECT(MPI_Type_free(&t) == MPI_SUCCESS);
}

static void check_darray(int nd, const int *g, const int *dist, const int *darg, const int *ps,
                         int order)
{
    static int want[NMAX];
    int size = 1;
    for (int d = 0; d < nd; d++)
        size *= ps[d];
    long n = total(nd, g), covered = 0;
    for (int r = 0; r < size; r++) {
        int nw = 0;
        for (long L = 0; L < n; L++) {
            int in = 1, below = size;
            for (int d = 0; d < nd; d++) {
                below /= ps[d];
                int coord = r / below % ps[d];
                in &= owner(index_of(L, nd, g, order, d), g[d], dist[d], darg[d], ps[d]) == coord;
            }
            if (in) want[nw++] = (int)L;
        }
        covered += nw;
        MPI_Datatype t;
        EXPECT(MPI_Type_create_darray(size, r, nd, g, dist, darg, ps, order, MPI_INT, &t) ==
               MPI_SUCCESS);
        EXPECT(MPI_Type_commit(&t) == MPI_SUCCESS);
        check_pack(t, n, want, nw);
        EXPECT(MPI_Type_free(&t) == MPI_SUCCESS);
    }
    EXPECT(covered == n);
}

static void test_subarray(void)
{
    for (int order = MPI_ORDER_C; order <= MPI_ORDER_FORTRAN; order++) {
        int sz1[] = {10}, sub1[] = {4}, st1[] = {3};
        check_subarray(1, sz1, sub1, st1, order);
        int sz2[] = {6, 7}, sub2[] = {3, 2}, st2[] = {2, 5};
        check_subarray(2, sz2, sub2, st2, order);
        int sz3[] = {4, 5, 6}, sub3[] = {2, 5, 3}, st3[] = {1, 0, 3};
        check_subarray(3, sz3, sub3, st3, order);
        int full[] = {4, 5, 6}, zero[] = {0, 0, 0};
        check_subarray(3, full, full, zero, order);
    }
}

static void test_darray(void)
{
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE;
    const int D = MPI_DISTRIBUTE_DFLT_DARG;
    for (int order = MPI_ORDER_C; order <= MPI_ORDER_FORTRAN; order++) {
        int g1[] = {10}, b1[] = {B}, d1[] = {D}, p1[] = {3};
        check_darray(1, g1, b1, d1, p1, order);
        int c1[] = {C}, k1[] = {2};
        check_darray(1, g1, c1, k1, p1, order);
        int g2[] = {7, 9}, dist2[] = {B, C}, darg2[] = {D, 2}, p2[] = {2, 3};
        check_darray(2, g2, dist2, darg2, p2, order);
        int dist2b[] = {C, B}, darg2b[] = {3, 4}, p2b[] = {3, 3};
        check_darray(2, g2, dist2b, darg2b, p2b, order);
        int g3[] = {5, 6, 7}, dist3[] = {C, N, B}, darg3[] = {D, D, D}, p3[] = {2, 1, 3};
        check_darray(3, g3, dist3, darg3, p3, order);
        int dist3b[] = {B, C, C}, darg3b[] = {3, 2, D}, p3b[] = {2, 2, 2};
        check_darray(3, g3, dist3b, darg3b, p3b, order);
    }
}

/* ---- envelope and contents ----------------------------------------------------------- */

static int is_named(MPI_Datatype t)
{
    int ni, na, nd, comb;
    EXPECT(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS);
    return comb == MPI_COMBINER_NAMED;
}

/* t made again from its contents by the constructor its envelope names. */
static MPI_Datatype rebuild(MPI_Datatype t, int want_combiner)
{
    int ni, na, nd, comb;
    EXPECT(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS);
    EXPECT(comb == want_combiner);
    int I[64];
    MPI_Aint A[16];
    MPI_Datatype D[16], r = MPI_DATATYPE_NULL;
    EXPECT(ni <= 64 && na <= 16 && nd <= 16);
    EXPECT(MPI_Type_get_contents(t, ni, na, nd, I, A, D) == MPI_SUCCESS);
    int n = 0, rc = MPI_ERR_OTHER;
    switch (comb) {
    case MPI_COMBINER_DUP:
        rc = MPI_Type_dup(D[0], &r);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        rc = MPI_Type_contiguous(I[0], D[0], &r);
        break;
    case MPI_COMBINER_VECTOR:
        rc = MPI_Type_vector(I[0], I[1], I[2], D[0], &r);
        break;
    case MPI_COMBINER_HVECTOR:
        rc = MPI_Type_create_hvector(I[0], I[1], A[0], D[0], &r);
        break;
    case MPI_COMBINER_INDEXED:
        rc = MPI_Type_indexed(I[0], I + 1, I + 1 + I[0], D[0], &r);
        break;
    case MPI_COMBINER_HINDEXED:
        rc = MPI_Type_create_hindexed(I[0], I + 1, A, D[0], &r);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        rc = MPI_Type_create_indexed_block(I[0], I[1], I + 2, D[0], &r);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        rc = MPI_Type_create_hindexed_block(I[0], I[1], A, D[0], &r);
        break;
    case MPI_COMBINER_STRUCT:
        rc = MPI_Type_create_struct(I[0], I + 1, A, D, &r);
        break;
    case MPI_COMBINER_SUBARRAY:
        n = I[0];
        rc = MPI_Type_create_subarray(n, I + 1, I + 1 + n, I + 1 + 2 * n, I[1 + 3 * n], D[0], &r);
        break;
    case MPI_COMBINER_DARRAY:
        n = I[2];
        rc = MPI_Type_create_darray(I[0], I[1], n, I + 3, I + 3 + n, I + 3 + 2 * n, I + 3 + 3 * n,
                                    I[3 + 4 * n], D[0], &r);
        break;
    case MPI_COMBINER_RESIZED:
        rc = MPI_Type_create_resized(D[0], A[0], A[1], &r);
        break;
    default:
        break;
    }
    EXPECT(rc == MPI_SUCCESS);
    for (int i = 0; i < nd; i++)
        if (!is_named(D[i])) EXPECT(MPI_Type_free(&D[i]) == MPI_SUCCESS);
    return r;
}

/* t and its rebuilt copy have the same size, bounds and packed stream of
 * two elements over distinct bytes. */
static void check_roundtrip(MPI_Datatype t, int combiner)
{
    static unsigned char buf[8192], p1[8192], p2[8192];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 7 + 1);
    MPI_Datatype r = rebuild(t, combiner);
    EXPECT(MPI_Type_commit(&t) == MPI_SUCCESS && MPI_Type_commit(&r) == MPI_SUCCESS);
    int s1, s2;
    MPI_Aint lb1, ex1, lb2, ex2;
    MPI_Type_size(t, &s1);
    MPI_Type_size(r, &s2);
    MPI_Type_get_extent(t, &lb1, &ex1);
    MPI_Type_get_extent(r, &lb2, &ex2);
    EXPECT(s1 == s2 && lb1 == lb2 && ex1 == ex2);
    EXPECT(lb1 >= 0 && 2 * ex1 + lb1 <= (MPI_Aint)sizeof buf / 2);
    int q1 = 0, q2 = 0;
    EXPECT(MPI_Pack(buf, 2, t, p1, (int)sizeof p1, &q1, MPI_COMM_SELF) == MPI_SUCCESS);
    EXPECT(MPI_Pack(buf, 2, r, p2, (int)sizeof p2, &q2, MPI_COMM_SELF) == MPI_SUCCESS);
    EXPECT(q1 == q2 && q1 == 2 * s1 && memcmp(p1, p2, (size_t)q1) == 0);
    EXPECT(MPI_Type_free(&r) == MPI_SUCCESS);
}

/* t[k] made by call, with combiner comb. */
#define MK(call, comb)                                                                             \
    do {                                                                                           \
        EXPECT((call) == MPI_SUCCESS);                                                             \
        comb_of[k++] = (comb);                                                                     \
    } while (0)

static void test_envelope(void)
{
    int ni, na, nd, comb;
    EXPECT(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb) == MPI_SUCCESS);
    EXPECT(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0);
    MPI_Datatype t[14];
    int comb_of[14], k = 0;
    int bl[] = {2, 1, 3}, di[] = {5, 0, 9};
    MPI_Aint da[] = {40, 0, 88};
    MPI_Datatype ty[] = {MPI_DOUBLE, MPI_CHAR, MPI_INT};
    MK(MPI_Type_contiguous(3, MPI_INT, &t[k]), MPI_COMBINER_CONTIGUOUS);
    MK(MPI_Type_vector(3, 2, 5, MPI_SHORT, &t[k]), MPI_COMBINER_VECTOR);
    MK(MPI_Type_create_hvector(2, 3, 24, MPI_INT, &t[k]), MPI_COMBINER_HVECTOR);
    MK(MPI_Type_indexed(3, bl, di, MPI_INT, &t[k]), MPI_COMBINER_INDEXED);
    MK(MPI_Type_create_hindexed(3, bl, da, MPI_SHORT, &t[k]), MPI_COMBINER_HINDEXED);
    MK(MPI_Type_create_indexed_block(3, 2, di, MPI_CHAR, &t[k]), MPI_COMBINER_INDEXED_BLOCK);
    MK(MPI_Type_create_hindexed_block(3, 2, da, MPI_INT, &t[k]), MPI_COMBINER_HINDEXED_BLOCK);
    MK(MPI_Type_create_struct(3, bl, da, ty, &t[k]), MPI_COMBINER_STRUCT);
    MK(MPI_Type_create_resized(t[1], 4, 64, &t[k]), MPI_COMBINER_RESIZED);
    MK(MPI_Type_dup(t[7], &t[k]), MPI_COMBINER_DUP);
    int sz[] = {5, 6}, sub[] = {2, 3}, st[] = {1, 2};
    MK(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &t[k]),
       MPI_COMBINER_SUBARRAY);
    int g[] = {6, 5}, dist[] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
        darg[] = {2, MPI_DISTRIBUTE_DFLT_DARG}, ps[] = {2, 2};
    MK(MPI_Type_create_darray(4, 3, 2, g, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_SHORT, &t[k]),
       MPI_COMBINER_DARRAY);
    /* derived children: a vector of the struct, a struct of derived types */
    MK(MPI_Type_vector(2, 1, 2, t[7], &t[k]), MPI_COMBINER_VECTOR);
    MPI_Datatype kids[] = {t[3], t[8], t[11]};
    MPI_Aint kd[] = {0, 100, 300};
    MK(MPI_Type_create_struct(3, bl, kd, kids, &t[k]), MPI_COMBINER_STRUCT);
    for (int i = 0; i < k; i++)
        check_roundtrip(t[i], comb_of[i]);
    /* contents as given */
    int I[8];
    MPI_Aint A[4];
    MPI_Datatype Dt[4];
    EXPECT(MPI_Type_get_envelope(t[1], &ni, &na, &nd, &comb) == MPI_SUCCESS);
    EXPECT(ni == 3 && na == 0 && nd == 1 && comb == MPI_COMBINER_VECTOR);
    EXPECT(MPI_Type_get_contents(t[1], 8, 4, 4, I, A, Dt) == MPI_SUCCESS);
    EXPECT(I[0] == 3 && I[1] == 2 && I[2] == 5 && Dt[0] == MPI_SHORT);
    EXPECT(MPI_Type_get_contents(t[8], 8, 4, 4, I, A, Dt) == MPI_SUCCESS);
    EXPECT(A[0] == 4 && A[1] == 64);
    EXPECT(MPI_Type_free(&Dt[0]) == MPI_SUCCESS); /* t[1] again, a handle of its own */
    EXPECT(MPI_Type_get_contents(t[1], 2, 4, 4, I, A, Dt) != MPI_SUCCESS); /* too few ints */
    EXPECT(MPI_Type_get_contents(MPI_INT, 8, 4, 4, I, A, Dt) != MPI_SUCCESS);
    for (int i = k - 1; i >= 0; i--)
        EXPECT(MPI_Type_free(&t[i]) == MPI_SUCCESS);
}

/* MPICH 4.0 checks only the order and the old type here (it accepts a
 * subarray larger than the array, and divides by zero on a darray whose
 * grid does not match the size): the rest is Sluice's. */
static int cls(int code)
{
    int c = -1;
    MPI_Error_class(code, &c);
    return c;
}

static void test_errors(void)
{
    MPI_Datatype t;
    int sz[] = {5, 6}, st[] = {0, 0}, ok[] = {2, 3};
    EXPECT(cls(MPI_Type_create_subarray(2, sz, ok, st, 3, MPI_INT, &t)) == MPI_ERR_ARG);
    EXPECT(cls(MPI_Type_create_subarray(2, sz, ok, st, MPI_ORDER_C, MPI_DATATYPE_NULL, &t)) ==
           MPI_ERR_TYPE);
#ifdef SLUICE_MPI
    int sub[] = {2, 7}, far[] = {4, 0};
    EXPECT(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG);
    EXPECT(MPI_Type_create_subarray(2, sz, ok, far, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG);
    int g[] = {6, 5}, dist[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
    int darg[] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, ps[] = {2, 2};
    EXPECT(MPI_Type_create_darray(3, 0, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t) ==
           MPI_ERR_ARG); /* 2 x 2 grid for 3 processes */
    int small[] = {2, MPI_DISTRIBUTE_DFLT_DARG};
    EXPECT(MPI_Type_create_darray(4, 0, 2, g, dist, small, ps, MPI_ORDER_C, MPI_INT, &t) ==
           MPI_ERR_ARG); /* blocks of 2 on 2 processes cannot hold 6 */
    int none[] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK};
    EXPECT(MPI_Type_create_darray(4, 0, 2, g, none, darg, ps, MPI_ORDER_C, MPI_INT, &t) ==
           MPI_ERR_ARG); /* NONE over 2 processes */
#endif
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_subarray();
    test_darray();
    test_envelope();
    test_errors();
    MPI_Finalize();
    return 0;
}
