/* The MPICH ABI seen from a program (docs/TOOLS.md, "MPICH binaries"):
 * built by MPICH's mpicc, it runs on MPICH itself (the expectations are
 * MPICH's) and on Sluice's libmpich.so.12 without a rebuild; built against
 * Sluice's mpi.h it checks the same answers natively.  With the argument
 * "sluice" it also checks that the library it runs on is Sluice, and the
 * few answers where Sluice is stricter than MPICH 4.0.
 *
 * Checked: every predefined datatype handle means the type it names (size,
 * extent, name), the pair types of MINLOC/MAXLOC by value, MPI_Status's
 * public fields and count, MPI_MESSAGE_NO_PROC/NULL, MPI_IN_PLACE,
 * MPI_BOTTOM, MPI_UNWEIGHTED, the predefined attribute MPI_TAG_UB,
 * comparison results, MPI_Op_commutative, MPI_Pcontrol, error classes of
 * bad arguments, MPI_Info (every
 * call and its errors), derived types never taking a predefined handle,
 * and, when built by MPICH, calls through the PMPI_ names. */
#include <mpi.h>
#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

static int me = -1;
static bool on_sluice; /* argument "sluice": the library must be Sluice */
static const char *ctx; /* the datatype being checked */
#define MT_CONTEXT ctx
#define MT_RANK me
#include "mpi_expect.h"

#define DT(h, ctype) {h, sizeof(ctype), #h}
static const struct {
    MPI_Datatype h;
    size_t size;
    const char *name;
} basic[] = {
    DT(MPI_CHAR, char), DT(MPI_SIGNED_CHAR, signed char), DT(MPI_UNSIGNED_CHAR, unsigned char),
    DT(MPI_BYTE, char), DT(MPI_WCHAR, wchar_t), DT(MPI_SHORT, short),
    DT(MPI_UNSIGNED_SHORT, unsigned short), DT(MPI_INT, int), DT(MPI_UNSIGNED, unsigned),
    DT(MPI_LONG, long), DT(MPI_UNSIGNED_LONG, unsigned long), DT(MPI_FLOAT, float),
    DT(MPI_DOUBLE, double), DT(MPI_LONG_DOUBLE, long double),
    DT(MPI_LONG_LONG_INT, long long), DT(MPI_UNSIGNED_LONG_LONG, unsigned long long),
    DT(MPI_PACKED, char), DT(MPI_INT8_T, int8_t), DT(MPI_INT16_T, int16_t),
    DT(MPI_INT32_T, int32_t), DT(MPI_INT64_T, int64_t), DT(MPI_UINT8_T, uint8_t),
    DT(MPI_UINT16_T, uint16_t), DT(MPI_UINT32_T, uint32_t), DT(MPI_UINT64_T, uint64_t),
    DT(MPI_C_BOOL, _Bool), DT(MPI_C_FLOAT_COMPLEX, float _Complex),
    DT(MPI_C_DOUBLE_COMPLEX, double _Complex),
    DT(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex), DT(MPI_AINT, MPI_Aint),
    DT(MPI_OFFSET, MPI_Offset), DT(MPI_COUNT, MPI_Count), DT(MPI_CXX_BOOL, _Bool),
    DT(MPI_CXX_FLOAT_COMPLEX, float _Complex), DT(MPI_CXX_DOUBLE_COMPLEX, double _Complex),
    DT(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex), DT(MPI_CHARACTER, char),
    DT(MPI_LOGICAL, int), DT(MPI_INTEGER, int), DT(MPI_REAL, float),
    DT(MPI_DOUBLE_PRECISION, double), DT(MPI_COMPLEX, float _Complex),
    DT(MPI_DOUBLE_COMPLEX, double _Complex), DT(MPI_INTEGER1, int8_t),
    DT(MPI_INTEGER2, int16_t), DT(MPI_INTEGER4, int32_t), DT(MPI_INTEGER8, int64_t),
    DT(MPI_REAL4, float), DT(MPI_REAL8, double), DT(MPI_COMPLEX8, float _Complex),
    DT(MPI_COMPLEX16, double _Complex), DT(MPI_2INTEGER, int[2]), DT(MPI_2REAL, float[2]),
    DT(MPI_2DOUBLE_PRECISION, double[2])};

/* The pairs: size is the members' sum, extent the struct's. */
#define PAIR(h, a) {h, sizeof(a) + sizeof(int), sizeof(struct { a v; int i; }), #h}
static const struct {
    MPI_Datatype h;
    size_t size, extent;
    const char *name;
} pairs[] = {PAIR(MPI_FLOAT_INT, float), PAIR(MPI_DOUBLE_INT, double), PAIR(MPI_LONG_INT, long),
             PAIR(MPI_SHORT_INT, short), PAIR(MPI_2INT, int),
             PAIR(MPI_LONG_DOUBLE_INT, long double)};

#define N_(a) (sizeof(a) / sizeof((a)[0]))

static void check_types(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len, size;
    MPI_Aint lb, ext;
    for (size_t i = 0; i < N_(basic); i++) {
        ctx = basic[i].name;
        EXPECT(MPI_Type_size(basic[i].h, &size) == MPI_SUCCESS && (size_t)size == basic[i].size);
        EXPECT(MPI_Type_get_extent(basic[i].h, &lb, &ext) == MPI_SUCCESS && lb == 0 &&
               (size_t)ext == basic[i].size);
        EXPECT(MPI_Type_get_name(basic[i].h, name, &len) == MPI_SUCCESS);
        /* MPICH names MPI_C_FLOAT_COMPLEX by its synonym */
        EXPECT(strcmp(name, basic[i].name) == 0 ||
               (basic[i].h == MPI_C_FLOAT_COMPLEX && strcmp(name, "MPI_C_COMPLEX") == 0));
    }
    for (size_t i = 0; i < N_(pairs); i++) {
        ctx = pairs[i].name;
        EXPECT(MPI_Type_size(pairs[i].h, &size) == MPI_SUCCESS && (size_t)size == pairs[i].size);
        EXPECT(MPI_Type_get_extent(pairs[i].h, &lb, &ext) == MPI_SUCCESS && lb == 0 &&
               (size_t)ext == pairs[i].extent);
        EXPECT(MPI_Type_get_name(pairs[i].h, name, &len) == MPI_SUCCESS &&
               strcmp(name, pairs[i].name) == 0);
    }
    ctx = NULL;
    /* Derived types never take a predefined handle (Sluice: run-time
     * handles have a generation of 1 or more; MPICH's pair handles are
     * kind-2 handles of generation 0).  Enough of them to turn the 8-bit
     * generation of every slot of the first page (256 slots, reused in
     * FIFO order) over once. */
    for (int k = 0; k < 256 * 257; k++) {
        MPI_Datatype t;
        EXPECT(MPI_Type_contiguous(2, MPI_INT, &t) == MPI_SUCCESS);
        for (size_t i = 0; i < N_(pairs); i++) EXPECT(t != pairs[i].h);
        for (size_t i = 0; i < N_(basic); i++) EXPECT(t != basic[i].h);
        EXPECT(MPI_Type_free(&t) == MPI_SUCCESS && t == MPI_DATATYPE_NULL);
    }
}

/* MINLOC and MAXLOC over the pair types: the value is the rank's, so the
 * minimum is at rank 0 and the maximum at the last rank. */
static void check_pairs(int n)
{
    struct { double v; int i; } d = {(double)me, me}, dr;
    struct { short v; int i; } s = {(short)(me * 3), me}, sr;
    struct { long double v; int i; } ld = {(long double)me, me}, ldr;
    int ii[2] = {me * 5, me}, iir[2];
    EXPECT(MPI_Allreduce(&d, &dr, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD) == MPI_SUCCESS);
    EXPECT(dr.v == 0.0 && dr.i == 0);
    EXPECT(MPI_Allreduce(&s, &sr, 1, MPI_SHORT_INT, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_SUCCESS);
    EXPECT(sr.v == (short)((n - 1) * 3) && sr.i == n - 1);
    EXPECT(MPI_Allreduce(&ld, &ldr, 1, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD) ==
           MPI_SUCCESS);
    EXPECT(ldr.v == (long double)(n - 1) && ldr.i == n - 1);
    EXPECT(MPI_Allreduce(ii, iir, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD) == MPI_SUCCESS);
    EXPECT(iir[0] == 0 && iir[1] == 0);
    /* MPI_IN_PLACE: the sum of the ranks */
    long sum = me;
    EXPECT(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD) ==
           MPI_SUCCESS);
    EXPECT(sum == (long)n * (n - 1) / 2);
}

/* Status fields, counts, MPI_BOTTOM with absolute addresses, the message
 * handles of a matched probe from MPI_PROC_NULL. */
static void check_status(int n)
{
    int to = (me + 1) % n, from = (me + n - 1) % n;
    int out[5] = {me, 1, 2, 3, 4}, in[8];
    MPI_Status st;
    memset(&st, 0xff, sizeof st);
    EXPECT(MPI_Sendrecv(out, 5, MPI_INT, to, 42, in, 8, MPI_INT, from, MPI_ANY_TAG,
                        MPI_COMM_WORLD, &st) == MPI_SUCCESS);
    EXPECT(in[0] == from && st.MPI_SOURCE == from && st.MPI_TAG == 42);
    int count;
    EXPECT(MPI_Get_count(&st, MPI_INT, &count) == MPI_SUCCESS && count == 5);
    EXPECT(MPI_Get_elements(&st, MPI_BYTE, &count) == MPI_SUCCESS &&
           count == 5 * (int)sizeof(int));
    /* MPI_BOTTOM: a struct type of absolute addresses */
    double a = me + 0.5, b = 0;
    MPI_Aint addr;
    int one = 1;
    MPI_Datatype abs_t, t = MPI_DOUBLE;
    EXPECT(MPI_Get_address(&a, &addr) == MPI_SUCCESS);
    EXPECT(MPI_Type_create_struct(1, &one, &addr, &t, &abs_t) == MPI_SUCCESS &&
           MPI_Type_commit(&abs_t) == MPI_SUCCESS);
    EXPECT(MPI_Sendrecv(MPI_BOTTOM, 1, abs_t, to, 7, &b, 1, MPI_DOUBLE, from, 7, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE) == MPI_SUCCESS);
    EXPECT(b == from + 0.5 && MPI_Type_free(&abs_t) == MPI_SUCCESS);
    /* MPI_PROC_NULL */
    MPI_Message msg = MPI_MESSAGE_NULL;
    EXPECT(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st) == MPI_SUCCESS);
    EXPECT(msg == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL &&
           st.MPI_TAG == MPI_ANY_TAG);
    EXPECT(MPI_Mrecv(in, 1, MPI_INT, &msg, &st) == MPI_SUCCESS && msg == MPI_MESSAGE_NULL);
    MPI_Request r;
    EXPECT(MPI_Irecv(in, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
    EXPECT(MPI_Wait(&r, &st) == MPI_SUCCESS && r == MPI_REQUEST_NULL);
    EXPECT(MPI_Get_count(&st, MPI_INT, &count) == MPI_SUCCESS && count == 0);
}

/* A non-commutative op: keeps the first operand. */
static void first_of(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
}

/* Constants the library reads: attributes, comparisons, topologies with
 * MPI_UNWEIGHTED, error classes of bad arguments. */
static void check_constants(int n)
{
    int *ub, flag, res;
    EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag) == MPI_SUCCESS && flag &&
           *ub >= 32767);
    MPI_Comm dup;
    EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    EXPECT(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res) == MPI_SUCCESS &&
           res == MPI_IDENT);
    EXPECT(MPI_Comm_compare(MPI_COMM_WORLD, dup, &res) == MPI_SUCCESS && res == MPI_CONGRUENT);
    /* MPICH 4.0.2 fails an assertion on its own MPI_ERRORS_ABORT */
    MPI_Errhandler eh;
    if (on_sluice) {
        EXPECT(MPI_Comm_set_errhandler(dup, MPI_ERRORS_ABORT) == MPI_SUCCESS);
        EXPECT(MPI_Comm_get_errhandler(dup, &eh) == MPI_SUCCESS && eh == MPI_ERRORS_ABORT);
    }
    EXPECT(MPI_Comm_free(&dup) == MPI_SUCCESS && dup == MPI_COMM_NULL);
    int to = (me + 1) % n, from = (me + n - 1) % n, indeg, outdeg, weighted;
    MPI_Comm g;
    EXPECT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &from, MPI_UNWEIGHTED, 1, &to,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g) == MPI_SUCCESS);
    EXPECT(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted) == MPI_SUCCESS &&
           indeg == 1 && outdeg == 1 && !weighted);
    EXPECT(MPI_Topo_test(g, &res) == MPI_SUCCESS && res == MPI_DIST_GRAPH);
    EXPECT(MPI_Comm_free(&g) == MPI_SUCCESS);
    MPI_Op op;
    EXPECT(MPI_Op_commutative(MPI_SUM, &res) == MPI_SUCCESS && res);
    EXPECT(MPI_Op_create(first_of, 0, &op) == MPI_SUCCESS);
    EXPECT(MPI_Op_commutative(op, &res) == MPI_SUCCESS && !res);
    EXPECT(MPI_Op_free(&op) == MPI_SUCCESS && op == MPI_OP_NULL);
    EXPECT(MPI_Pcontrol(1) == MPI_SUCCESS && MPI_Pcontrol(0, "more") == MPI_SUCCESS);
    int provided;
    EXPECT(MPI_Query_thread(&provided) == MPI_SUCCESS && provided >= MPI_THREAD_SINGLE &&
           provided <= MPI_THREAD_MULTIPLE);
    /* error classes (MPICH returns codes: compare their classes) */
    int x = 0, err, cls;
    err = MPI_Send(&x, 1, MPI_INT, n, 0, MPI_COMM_WORLD);
    EXPECT(MPI_Error_class(err, &cls) == MPI_SUCCESS && cls == MPI_ERR_RANK);
    err = MPI_Send(&x, 1, MPI_DATATYPE_NULL, to, 0, MPI_COMM_WORLD);
    EXPECT(MPI_Error_class(err, &cls) == MPI_SUCCESS && cls == MPI_ERR_TYPE);
    err = MPI_Send(&x, -1, MPI_INT, to, 0, MPI_COMM_WORLD);
    EXPECT(MPI_Error_class(err, &cls) == MPI_SUCCESS && cls == MPI_ERR_COUNT);
    err = MPI_Allreduce(&x, &res, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
    EXPECT(MPI_Error_class(err, &cls) == MPI_SUCCESS && cls == MPI_ERR_OP);
}

static int err_class(int err)
{
    int cls = -1;
    EXPECT(MPI_Error_class(err, &cls) == MPI_SUCCESS);
    return cls;
}

/* MPI_Info: every call, order of keys, truncation, errors. */
static void check_info(void)
{
    MPI_Info info, dup;
    char val[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 1];
    int flag, len, nkeys;
    EXPECT(MPI_Info_create(&info) == MPI_SUCCESS && info != MPI_INFO_NULL);
    EXPECT(MPI_Info_get_nkeys(info, &nkeys) == MPI_SUCCESS && nkeys == 0);
    EXPECT(MPI_Info_set(info, "alpha", "one") == MPI_SUCCESS);
    EXPECT(MPI_Info_set(info, "beta", "two, longer") == MPI_SUCCESS);
    EXPECT(MPI_Info_set(info, "alpha", "uno") == MPI_SUCCESS); /* replaces, keeps place */
    EXPECT(MPI_Info_get_nkeys(info, &nkeys) == MPI_SUCCESS && nkeys == 2);
    EXPECT(MPI_Info_get_nthkey(info, 0, key) == MPI_SUCCESS && strcmp(key, "alpha") == 0);
    EXPECT(MPI_Info_get_nthkey(info, 1, key) == MPI_SUCCESS && strcmp(key, "beta") == 0);
    EXPECT(MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL, val, &flag) == MPI_SUCCESS && flag &&
           strcmp(val, "uno") == 0);
    /* cut to valuelen: silently as MPI 3.1 says (Sluice), or with
     * MPI_ERR_INFO_VALUE (MPICH 4.0) */
    int err = MPI_Info_get(info, "beta", 3, val, &flag);
    EXPECT((err == MPI_SUCCESS || err_class(err) == MPI_ERR_INFO_VALUE) && flag &&
           strcmp(val, "two") == 0);
    EXPECT(MPI_Info_get(info, "gamma", MPI_MAX_INFO_VAL, val, &flag) == MPI_SUCCESS && !flag);
    EXPECT(MPI_Info_get_valuelen(info, "beta", &len, &flag) == MPI_SUCCESS && flag &&
           len == 11);
    EXPECT(MPI_Info_get_valuelen(info, "gamma", &len, &flag) == MPI_SUCCESS && !flag);
    EXPECT(MPI_Info_dup(info, &dup) == MPI_SUCCESS && dup != info);
    EXPECT(MPI_Info_delete(info, "alpha") == MPI_SUCCESS);
    EXPECT(MPI_Info_get_nkeys(info, &nkeys) == MPI_SUCCESS && nkeys == 1);
    EXPECT(MPI_Info_get_nthkey(info, 0, key) == MPI_SUCCESS && strcmp(key, "beta") == 0);
    EXPECT(MPI_Info_get_nkeys(dup, &nkeys) == MPI_SUCCESS && nkeys == 2);
    EXPECT(MPI_Info_get(dup, "alpha", MPI_MAX_INFO_VAL, val, &flag) == MPI_SUCCESS && flag &&
           strcmp(val, "uno") == 0);
    /* the longest key and value are taken */
    memset(key, 'k', MPI_MAX_INFO_KEY);
    key[MPI_MAX_INFO_KEY] = '\0';
    memset(val, 'v', MPI_MAX_INFO_VAL);
    val[MPI_MAX_INFO_VAL] = '\0';
    EXPECT(MPI_Info_set(info, key, val) == MPI_SUCCESS);
    EXPECT(MPI_Info_get_valuelen(info, key, &len, &flag) == MPI_SUCCESS && flag &&
           len == MPI_MAX_INFO_VAL);
    /* errors (MPI_ERRORS_RETURN is set on MPI_COMM_WORLD) */
    EXPECT(err_class(MPI_Info_delete(info, "alpha")) == MPI_ERR_INFO_NOKEY);
    EXPECT(err_class(MPI_Info_get_nthkey(info, 2, key)) == MPI_ERR_ARG);
    EXPECT(err_class(MPI_Info_get_nthkey(info, -1, key)) == MPI_ERR_ARG);
    /* MPI_INFO_NULL: MPI_ERR_INFO (Sluice) or MPI_ERR_ARG (MPICH 4.0) */
    int cls = err_class(MPI_Info_set(MPI_INFO_NULL, "a", "b"));
    EXPECT(cls == MPI_ERR_INFO || (!on_sluice && cls == MPI_ERR_ARG));
    cls = err_class(MPI_Info_get_nkeys(MPI_INFO_NULL, &nkeys));
    EXPECT(cls == MPI_ERR_INFO || (!on_sluice && cls == MPI_ERR_ARG));
    char longkey[MPI_MAX_INFO_KEY + 2];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    EXPECT(err_class(MPI_Info_set(info, longkey, "b")) == MPI_ERR_INFO_KEY);
    EXPECT(err_class(MPI_Info_set(info, "", "b")) == MPI_ERR_INFO_KEY);
    static char longval[MPI_MAX_INFO_VAL + 2];
    memset(longval, 'v', sizeof longval - 1);
    EXPECT(err_class(MPI_Info_set(info, "a", longval)) == MPI_ERR_INFO_VALUE);
    EXPECT(MPI_Info_free(&info) == MPI_SUCCESS && info == MPI_INFO_NULL);
    MPI_Info stale = dup;
    EXPECT(MPI_Info_free(&dup) == MPI_SUCCESS && dup == MPI_INFO_NULL);
    /* a freed handle (MPICH 4.0 does not notice) */
    if (on_sluice) EXPECT(err_class(MPI_Info_get_nkeys(stale, &nkeys)) == MPI_ERR_INFO);
    /* MPI_INFO_ENV can be read and copied */
    EXPECT(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys) == MPI_SUCCESS && nkeys >= 0);
    EXPECT(MPI_Info_dup(MPI_INFO_ENV, &dup) == MPI_SUCCESS && MPI_Info_free(&dup) == MPI_SUCCESS);
    /* communicator hints */
    MPI_Comm c;
    EXPECT(MPI_Info_create(&info) == MPI_SUCCESS && MPI_Info_set(info, "x", "y") == MPI_SUCCESS);
    EXPECT(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c) == MPI_SUCCESS);
    EXPECT(MPI_Comm_set_info(c, info) == MPI_SUCCESS);
    EXPECT(MPI_Comm_get_info(c, &dup) == MPI_SUCCESS && dup != MPI_INFO_NULL);
    EXPECT(MPI_Info_free(&dup) == MPI_SUCCESS && MPI_Info_free(&info) == MPI_SUCCESS);
    EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);
}

#ifdef MPICH
/* The profiling names resolve to the same implementation. */
static void check_pmpi(int n)
{
    int rank, size, sum = 1;
    EXPECT(PMPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS && rank == me);
    EXPECT(PMPI_Comm_size(MPI_COMM_WORLD, &size) == MPI_SUCCESS && size == n);
    EXPECT(PMPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
           MPI_SUCCESS && sum == n);
    EXPECT(PMPI_Wtime() > 0.0 && PMPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
}
#endif

int main(int argc, char **argv)
{
    int n;
    EXPECT(MPI_Init(&argc, &argv) == MPI_SUCCESS);
    EXPECT(MPI_Comm_rank(MPI_COMM_WORLD, &me) == MPI_SUCCESS);
    EXPECT(MPI_Comm_size(MPI_COMM_WORLD, &n) == MPI_SUCCESS);
    on_sluice = argc > 1 && strcmp(argv[1], "sluice") == 0;
    if (on_sluice) {
        char v[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        EXPECT(MPI_Get_library_version(v, &len) == MPI_SUCCESS && strstr(v, "Sluice"));
    }
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    check_types();
    check_pairs(n);
    check_status(n);
    check_constants(n);
    check_info();
#ifdef MPICH
    check_pmpi(n);
#endif
    EXPECT(MPI_Finalize() == MPI_SUCCESS);
    if (me == 0) printf("mpi_mpichabi_test: ok (%d ranks)\n", n);
    return 0;
}
