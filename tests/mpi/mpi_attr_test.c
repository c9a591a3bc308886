/* Attribute caching (MPI 4.0 §7.7): keyvals on communicators and datatypes,
 * the copy and delete callbacks and their order on dup, free, set over an
 * existing value, delete and finalize (MPI_COMM_SELF's first, then
 * MPI_COMM_WORLD's), a keyval freed while in use, the MPI-1 names, the
 * predefined keys and the error classes of bad arguments.  Every rank runs
 * the same checks; any number of ranks.  Also built by MPICH's mpicc
 * (Sluice-only checks under SLUICE_MPI). */
#include "mpi_expect.h"

#include <stdint.h>
#include <string.h>

/* The callback log: one entry per call, "c" copy or "d" delete, the
 * keyval's tag (its extra_state) and the attribute value. */
typedef struct ev {
    char what;
    int tag;
    long val;
} ev_t;
static ev_t evlog[64];
static int nev;

static void ev_add(char what, void *extra, void *val)
{
    if (nev < 64) evlog[nev++] = (ev_t){what, *(int *)extra, (long)(intptr_t)val};
}

static int ev_is(int i, char what, int tag, long val)
{
    return i < nev && evlog[i].what == what && evlog[i].tag == tag && evlog[i].val == val;
}

/* Copies value + 1. */
static int copy_inc(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm;
    (void)keyval;
    ev_add('c', extra, in);
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int copy_fail(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    (void)in;
    (void)out;
    *flag = 0;
    return MPI_ERR_OTHER;
}

static int del_log(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    ev_add('d', extra, val);
    return MPI_SUCCESS;
}

static int tcopy_inc(MPI_Datatype t, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)t;
    return copy_inc(MPI_COMM_NULL, keyval, extra, in, out, flag);
}

static int tdel_log(MPI_Datatype t, int keyval, void *val, void *extra)
{
    (void)t;
    return del_log(MPI_COMM_NULL, keyval, val, extra);
}

/* Finalize: each delete records its order; the one on MPI_COMM_SELF also
 * checks that MPI still works inside it. */
static int fin_order[8], nfin;
static int fin_mpi_ok = 1;
static int del_fin(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)keyval;
    (void)extra;
    int f = 1, size = 0;
    if (MPI_Finalized(&f) != MPI_SUCCESS || f) fin_mpi_ok = 0;
    if (MPI_Comm_size(comm, &size) != MPI_SUCCESS || size < 1) fin_mpi_ok = 0;
    if (nfin < 8) fin_order[nfin++] = (int)(intptr_t)val;
    return MPI_SUCCESS;
}

static int tags[8] = {1, 2, 3, 4, 5, 6, 7, 8};

static void *V(long v)
{
    return (void *)(intptr_t)v;
}

static long get_comm(MPI_Comm c, int k, int *flag)
{
    void *v = NULL;
    EXPECT(MPI_Comm_get_attr(c, k, &v, flag) == MPI_SUCCESS);
    return (long)(intptr_t)v;
}

/* Order and counts of the callbacks on a communicator. */
static void test_comm_callbacks(void)
{
    int k1, k2, k3, flag;
    MPI_Comm c, d;
    EXPECT(MPI_Comm_create_keyval(copy_inc, del_log, &k1, &tags[0]) == MPI_SUCCESS);
    EXPECT(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_log, &k2, &tags[1]) == MPI_SUCCESS);
    EXPECT(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_log, &k3, &tags[2]) == MPI_SUCCESS);
    EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &c) == MPI_SUCCESS);
    get_comm(c, k1, &flag);
    EXPECT(!flag);
    EXPECT(MPI_Comm_set_attr(c, k1, V(10)) == MPI_SUCCESS);
    EXPECT(MPI_Comm_set_attr(c, k2, V(20)) == MPI_SUCCESS);
    EXPECT(MPI_Comm_set_attr(c, k3, V(30)) == MPI_SUCCESS);
    EXPECT(get_comm(c, k2, &flag) == 20 && flag);
    nev = 0;
    EXPECT(MPI_Comm_dup(c, &d) == MPI_SUCCESS);
    EXPECT(nev == 1 && ev_is(0, 'c', 1, 10)); /* DUP_FN and NULL_COPY_FN log nothing */
    EXPECT(get_comm(d, k1, &flag) == 11 && flag);
    EXPECT(get_comm(d, k2, &flag) == 20 && flag);
    get_comm(d, k3, &flag);
    EXPECT(!flag);
    /* set over an existing value: the old value's delete callback */
    nev = 0;
    EXPECT(MPI_Comm_set_attr(c, k1, V(12)) == MPI_SUCCESS);
    EXPECT(nev == 1 && ev_is(0, 'd', 1, 10));
    EXPECT(get_comm(c, k1, &flag) == 12 && flag);
    nev = 0;
    EXPECT(MPI_Comm_delete_attr(c, k2) == MPI_SUCCESS);
    EXPECT(nev == 1 && ev_is(0, 'd', 2, 20));
    get_comm(c, k2, &flag);
    EXPECT(!flag);
    EXPECT(MPI_Comm_delete_attr(c, k2) == MPI_SUCCESS); /* none there: no callback */
    EXPECT(nev == 1);
    /* free: newest first (k3, then k1 which was set before it) */
    nev = 0;
    EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);
    EXPECT(nev == 2 && ev_is(0, 'd', 3, 30) && ev_is(1, 'd', 1, 12));
    nev = 0;
    EXPECT(MPI_Comm_free(&d) == MPI_SUCCESS);
    EXPECT(nev == 2 && ev_is(0, 'd', 2, 20) && ev_is(1, 'd', 1, 11));
    EXPECT(MPI_Comm_free_keyval(&k1) == MPI_SUCCESS && k1 == MPI_KEYVAL_INVALID);
    EXPECT(MPI_Comm_free_keyval(&k2) == MPI_SUCCESS);
    EXPECT(MPI_Comm_free_keyval(&k3) == MPI_SUCCESS);
}

/* A keyval freed while an attribute uses it keeps working for it. */
static void test_keyval_lifetime(void)
{
    int k, kept, flag;
    MPI_Comm e, f;
    EXPECT(MPI_Comm_create_keyval(copy_inc, del_log, &k, &tags[3]) == MPI_SUCCESS);
    kept = k;
    EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &e) == MPI_SUCCESS);
    EXPECT(MPI_Comm_set_attr(e, k, V(40)) == MPI_SUCCESS);
    EXPECT(MPI_Comm_free_keyval(&k) == MPI_SUCCESS && k == MPI_KEYVAL_INVALID);
    nev = 0;
    EXPECT(MPI_Comm_dup(e, &f) == MPI_SUCCESS);
    EXPECT(nev == 1 && ev_is(0, 'c', 4, 40));
    EXPECT(get_comm(f, kept, &flag) == 41 && flag);
    nev = 0;
    EXPECT(MPI_Comm_free(&e) == MPI_SUCCESS);
    EXPECT(MPI_Comm_free(&f) == MPI_SUCCESS);
    EXPECT(nev == 2 && ev_is(0, 'd', 4, 40) && ev_is(1, 'd', 4, 41));
}

/* A failing copy callback fails the dup. */
static void test_copy_failure(void)
{
    int k;
    MPI_Comm c, d = MPI_COMM_NULL;
    EXPECT(MPI_Comm_create_keyval(copy_fail, MPI_COMM_NULL_DELETE_FN, &k, NULL) == MPI_SUCCESS);
    EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &c) == MPI_SUCCESS);
    EXPECT(MPI_Comm_set_attr(c, k, V(1)) == MPI_SUCCESS);
    EXPECT(MPI_Comm_dup(c, &d) != MPI_SUCCESS);
    EXPECT(MPI_Comm_delete_attr(c, k) == MPI_SUCCESS);
    EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);
    EXPECT(MPI_Comm_free_keyval(&k) == MPI_SUCCESS);
}

static void test_predefined(void)
{
    int *v, flag, k;
    EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag) == MPI_SUCCESS);
    EXPECT(flag && *v >= 32767);
    MPI_Comm c;
    EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &c) == MPI_SUCCESS);
    EXPECT(MPI_Comm_get_attr(c, MPI_TAG_UB, &v, &flag) == MPI_SUCCESS && flag);
    EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);
    EXPECT(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag) == MPI_SUCCESS && flag);
    /* errors */
    int rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, V(1));
    EXPECT(rc != MPI_SUCCESS);
    EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &flag) != MPI_SUCCESS);
    k = MPI_KEYVAL_INVALID;
    EXPECT(MPI_Comm_free_keyval(&k) != MPI_SUCCESS);
    EXPECT(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL) ==
           MPI_SUCCESS);
    void *p;
    rc = MPI_Type_get_attr(MPI_INT, k, &p, &flag); /* a communicator keyval on a type */
    EXPECT(rc != MPI_SUCCESS);
    int cls;
    MPI_Error_class(rc, &cls);
    EXPECT(cls == MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_set_attr(MPI_COMM_NULL, k, V(1)) != MPI_SUCCESS);
    EXPECT(MPI_Comm_free_keyval(&k) == MPI_SUCCESS);
#ifdef SLUICE_MPI
    EXPECT(rc == MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, V(1)) == MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_set_attr(MPI_COMM_NULL, MPI_TAG_UB, V(1)) == MPI_ERR_COMM);
    int wk;
    EXPECT(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &wk, NULL) ==
           MPI_ERR_UNSUPPORTED_OPERATION);
#endif
}

static void test_mpi1_names(void)
{
    int k, flag;
    long *v;
    EXPECT(MPI_Keyval_create(MPI_DUP_FN, del_log, &k, &tags[4]) == MPI_SUCCESS);
    EXPECT(MPI_Attr_put(MPI_COMM_SELF, k, V(50)) == MPI_SUCCESS);
    EXPECT(MPI_Attr_get(MPI_COMM_SELF, k, &v, &flag) == MPI_SUCCESS && flag &&
           (long)(intptr_t)v == 50);
    nev = 0;
    EXPECT(MPI_Attr_delete(MPI_COMM_SELF, k) == MPI_SUCCESS);
    EXPECT(nev == 1 && ev_is(0, 'd', 5, 50));
    EXPECT(MPI_Keyval_free(&k) == MPI_SUCCESS && k == MPI_KEYVAL_INVALID);
}

static void test_type_attrs(void)
{
    int k, flag;
    void *v;
    MPI_Datatype t, u;
    EXPECT(MPI_Type_create_keyval(tcopy_inc, tdel_log, &k, &tags[5]) == MPI_SUCCESS);
    EXPECT(MPI_Type_contiguous(3, MPI_INT, &t) == MPI_SUCCESS);
    EXPECT(MPI_Type_get_attr(t, k, &v, &flag) == MPI_SUCCESS && !flag);
    EXPECT(MPI_Type_set_attr(t, k, V(60)) == MPI_SUCCESS);
    nev = 0;
    EXPECT(MPI_Type_dup(t, &u) == MPI_SUCCESS);
    EXPECT(nev == 1 && ev_is(0, 'c', 6, 60));
    EXPECT(MPI_Type_get_attr(u, k, &v, &flag) == MPI_SUCCESS && flag && (long)(intptr_t)v == 61);
    nev = 0;
    EXPECT(MPI_Type_set_attr(u, k, V(62)) == MPI_SUCCESS);
    EXPECT(nev == 1 && ev_is(0, 'd', 6, 61));
    EXPECT(MPI_Type_free_keyval(&k) == MPI_SUCCESS && k == MPI_KEYVAL_INVALID);
    EXPECT(MPI_Type_delete_attr(u, k) != MPI_SUCCESS); /* the handle is gone */
    /* u first: MPICH deletes a type's attributes when the object goes, and
     * u holds t */
    nev = 0;
    EXPECT(MPI_Type_free(&u) == MPI_SUCCESS);
    EXPECT(nev == 1 && ev_is(0, 'd', 6, 62));
    nev = 0;
    EXPECT(MPI_Type_free(&t) == MPI_SUCCESS);
    EXPECT(nev == 1 && ev_is(0, 'd', 6, 60));
    /* attributes on a predefined type */
    EXPECT(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, tdel_log, &k, &tags[6]) == MPI_SUCCESS);
    EXPECT(MPI_Type_set_attr(MPI_INT, k, V(70)) == MPI_SUCCESS);
    EXPECT(MPI_Type_dup(MPI_INT, &u) == MPI_SUCCESS);
    EXPECT(MPI_Type_get_attr(u, k, &v, &flag) == MPI_SUCCESS && flag && (long)(intptr_t)v == 70);
    nev = 0;
    EXPECT(MPI_Type_free(&u) == MPI_SUCCESS);
    EXPECT(MPI_Type_delete_attr(MPI_INT, k) == MPI_SUCCESS);
    EXPECT(nev == 2 && ev_is(0, 'd', 7, 70) && ev_is(1, 'd', 7, 70));
    EXPECT(MPI_Type_free_keyval(&k) == MPI_SUCCESS);
}

/* Attributes left for MPI_Finalize: two on MPI_COMM_SELF, one on
 * MPI_COMM_WORLD. */
static void set_finalize_attrs(void)
{
    int kw, ks;
    EXPECT(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_fin, &kw, NULL) == MPI_SUCCESS);
    EXPECT(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_fin, &ks, NULL) == MPI_SUCCESS);
    EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, kw, V(3)) == MPI_SUCCESS);
    EXPECT(MPI_Comm_set_attr(MPI_COMM_SELF, kw, V(2)) == MPI_SUCCESS);
    EXPECT(MPI_Comm_set_attr(MPI_COMM_SELF, ks, V(1)) == MPI_SUCCESS);
    EXPECT(MPI_Comm_free_keyval(&kw) == MPI_SUCCESS);
    EXPECT(MPI_Comm_free_keyval(&ks) == MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_comm_callbacks();
    test_keyval_lifetime();
    test_copy_failure();
    test_predefined();
    test_mpi1_names();
    test_type_attrs();
    set_finalize_attrs();
    EXPECT(MPI_Finalize() == MPI_SUCCESS);
    /* MPI_COMM_SELF's in reverse order of setting, then MPI_COMM_WORLD's */
    EXPECT(nfin == 3 && fin_order[0] == 1 && fin_order[1] == 2 && fin_order[2] == 3);
    EXPECT(fin_mpi_ok);
    return 0;
}
