/* The rest of what the OSU micro-benchmarks call besides point-to-point
 * and collectives, on any number of ranks (ctest: 1, 3, 4): group
 * constructors (incl, excl, ranges, union, intersection, difference) and
 * their error classes; communicators from groups (MPI_Comm_create with one
 * group and with disjoint groups, MPI_Comm_create_group called by members
 * only); MPI_Comm_split_type; communicator and datatype names;
 * MPI_Get_library_version; and, in Sluice, the one-sided calls failing
 * with MPI_ERR_UNSUPPORTED_OPERATION through the right error handler.
 * Sluice-only checks are under #ifdef SLUICE_MPI; the rest also runs under
 * MPICH. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank_ = -1;
#define MT_RANK rank_
#include "mpi_expect.h"

/* The class of an error code (MPICH returns codes that are not classes). */
static int err_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static int group_size(MPI_Group g)
{
    int n = -1;
    EXPECT(MPI_Group_size(g, &n) == MPI_SUCCESS);
    return n;
}

static int group_rank(MPI_Group g)
{
    int r = -2;
    EXPECT(MPI_Group_rank(g, &r) == MPI_SUCCESS);
    return r;
}

/* World rank of rank r of g. */
static int group_world(MPI_Group g, int r)
{
    MPI_Group world;
    int w = -2;
    EXPECT(MPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS);
    EXPECT(MPI_Group_translate_ranks(g, 1, &r, world, &w) == MPI_SUCCESS);
    EXPECT(MPI_Group_free(&world) == MPI_SUCCESS);
    return w;
}

static int compare(MPI_Group a, MPI_Group b)
{
    int res = -1;
    EXPECT(MPI_Group_compare(a, b, &res) == MPI_SUCCESS);
    return res;
}

static void test_groups(int size)
{
    MPI_Group world, g, evens, odds, u, x;
    EXPECT(MPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS);

    /* incl: the last rank, then rank 0 */
    int two[2] = {size - 1, 0}, ntwo = size > 1 ? 2 : 1;
    EXPECT(MPI_Group_incl(world, ntwo, two, &g) == MPI_SUCCESS);
    EXPECT(group_size(g) == ntwo);
    EXPECT(group_world(g, 0) == size - 1);
    if (size > 1) EXPECT(group_world(g, 1) == 0);
    EXPECT(group_rank(g) == (rank_ == size - 1 ? 0 : rank_ == 0 ? 1 : MPI_UNDEFINED));
    EXPECT(MPI_Group_free(&g) == MPI_SUCCESS && g == MPI_GROUP_NULL);
    /* n = 0: the empty group */
    EXPECT(MPI_Group_incl(world, 0, two, &g) == MPI_SUCCESS);
    EXPECT(group_size(g) == 0 && compare(g, MPI_GROUP_EMPTY) == MPI_IDENT);
    EXPECT(MPI_Group_free(&g) == MPI_SUCCESS);
    /* excl rank 0: the others in order */
    int zero = 0;
    EXPECT(MPI_Group_excl(world, 1, &zero, &g) == MPI_SUCCESS);
    EXPECT(group_size(g) == size - 1);
    EXPECT(group_rank(g) == (rank_ == 0 ? MPI_UNDEFINED : rank_ - 1));
    for (int r = 0; r < size - 1; r++)
        EXPECT(group_world(g, r) == r + 1);
    EXPECT(MPI_Group_free(&g) == MPI_SUCCESS);

    /* ranges: evens, odds, and everyone backwards */
    int ev[1][3] = {{0, size - 1 - (size - 1) % 2, 2}};
    EXPECT(MPI_Group_range_incl(world, 1, ev, &evens) == MPI_SUCCESS);
    EXPECT(MPI_Group_range_excl(world, 1, ev, &odds) == MPI_SUCCESS);
    EXPECT(group_size(evens) == (size + 1) / 2 && group_size(odds) == size / 2);
    for (int r = 0; r < (size + 1) / 2; r++)
        EXPECT(group_world(evens, r) == 2 * r);
    for (int r = 0; r < size / 2; r++)
        EXPECT(group_world(odds, r) == 2 * r + 1);
    EXPECT(group_rank(evens) == (rank_ % 2 ? MPI_UNDEFINED : rank_ / 2));
    int back[1][3] = {{size - 1, 0, -1}};
    EXPECT(MPI_Group_range_incl(world, 1, back, &g) == MPI_SUCCESS);
    EXPECT(group_size(g) == size && group_rank(g) == size - 1 - rank_);
    EXPECT(compare(g, world) == (size > 1 ? MPI_SIMILAR : MPI_IDENT));
    EXPECT(MPI_Group_free(&g) == MPI_SUCCESS);

    /* set operations */
    EXPECT(MPI_Group_union(evens, odds, &u) == MPI_SUCCESS);
    EXPECT(group_size(u) == size);
    for (int r = 0; r < (size + 1) / 2; r++)
        EXPECT(group_world(u, r) == 2 * r); /* evens first */
    EXPECT(compare(u, world) == (size > 2 ? MPI_SIMILAR : MPI_IDENT));
    EXPECT(MPI_Group_free(&u) == MPI_SUCCESS);
    EXPECT(MPI_Group_union(world, evens, &u) == MPI_SUCCESS && compare(u, world) == MPI_IDENT);
    EXPECT(MPI_Group_free(&u) == MPI_SUCCESS);
    EXPECT(MPI_Group_intersection(world, evens, &x) == MPI_SUCCESS);
    EXPECT(compare(x, evens) == MPI_IDENT);
    EXPECT(MPI_Group_free(&x) == MPI_SUCCESS);
    EXPECT(MPI_Group_intersection(evens, odds, &x) == MPI_SUCCESS && group_size(x) == 0);
    EXPECT(MPI_Group_free(&x) == MPI_SUCCESS);
    EXPECT(MPI_Group_difference(world, evens, &x) == MPI_SUCCESS);
    EXPECT(compare(x, odds) == MPI_IDENT);
    EXPECT(MPI_Group_free(&x) == MPI_SUCCESS);
    EXPECT(MPI_Group_difference(evens, world, &x) == MPI_SUCCESS && group_size(x) == 0);
    EXPECT(MPI_Group_free(&x) == MPI_SUCCESS);

    /* errors */
    int dup2[2] = {0, 0}, out1 = size, badr[1][3] = {{0, size - 1, 0}};
#ifdef SLUICE_MPI /* MPICH does not look for ranks given twice */
    if (size > 1) EXPECT(err_class(MPI_Group_incl(world, 2, dup2, &g)) == MPI_ERR_RANK);
#endif
    EXPECT(err_class(MPI_Group_incl(world, 1, &out1, &g)) == MPI_ERR_RANK);
    EXPECT(err_class(MPI_Group_excl(world, 1, &out1, &g)) == MPI_ERR_RANK);
    EXPECT(err_class(MPI_Group_range_incl(world, 1, badr, &g)) == MPI_ERR_ARG); /* stride 0 */
    EXPECT(err_class(MPI_Group_incl(MPI_GROUP_NULL, 1, &zero, &g)) == MPI_ERR_GROUP);
    EXPECT(err_class(MPI_Group_union(world, MPI_GROUP_NULL, &g)) == MPI_ERR_GROUP);

    /* MPI_Comm_create with one group: evens get a communicator */
    MPI_Comm c;
    int n, r, sum;
    EXPECT(MPI_Comm_create(MPI_COMM_WORLD, evens, &c) == MPI_SUCCESS);
    if (rank_ % 2) {
        EXPECT(c == MPI_COMM_NULL);
    } else {
        EXPECT(MPI_Comm_size(c, &n) == MPI_SUCCESS && n == (size + 1) / 2);
        EXPECT(MPI_Comm_rank(c, &r) == MPI_SUCCESS && r == rank_ / 2);
        EXPECT(MPI_Allreduce(&rank_, &sum, 1, MPI_INT, MPI_SUM, c) == MPI_SUCCESS);
        EXPECT(sum == n * (n - 1)); /* 0 + 2 + ... + 2(n-1) */
        EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);
    }
    /* ... with disjoint groups: everyone gets its parity's communicator */
    EXPECT(MPI_Comm_create(MPI_COMM_WORLD, rank_ % 2 ? odds : evens, &c) == MPI_SUCCESS);
    EXPECT(MPI_Comm_size(c, &n) == MPI_SUCCESS && n == (rank_ % 2 ? size / 2 : (size + 1) / 2));
    EXPECT(MPI_Comm_rank(c, &r) == MPI_SUCCESS && r == rank_ / 2);
    EXPECT(MPI_Barrier(c) == MPI_SUCCESS);
#ifdef SLUICE_MPI /* MPICH does not check */
    /* a group that is not in the communicator */
    if (size > 1) {
        MPI_Group other = rank_ % 2 ? evens : odds;
        MPI_Comm bad;
        EXPECT(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN) == MPI_SUCCESS);
        EXPECT(err_class(MPI_Comm_create(c, other, &bad)) == MPI_ERR_GROUP);
    }
#endif
    EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);
    /* MPI_Comm_create_group: only the odd ranks call */
    if (rank_ % 2) {
        EXPECT(MPI_Comm_create_group(MPI_COMM_WORLD, odds, 7, &c) == MPI_SUCCESS);
        EXPECT(MPI_Comm_size(c, &n) == MPI_SUCCESS && n == size / 2);
        EXPECT(MPI_Comm_rank(c, &r) == MPI_SUCCESS && r == rank_ / 2);
        EXPECT(MPI_Allreduce(&rank_, &sum, 1, MPI_INT, MPI_SUM, c) == MPI_SUCCESS);
        EXPECT(sum == n * n); /* 1 + 3 + ... + (2n-1) */
        EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);
    }
    /* ... a non-member gets MPI_COMM_NULL at once */
    EXPECT(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, 8, &c) == MPI_SUCCESS);
    EXPECT(c == MPI_COMM_NULL);

    EXPECT(MPI_Group_free(&evens) == MPI_SUCCESS);
    EXPECT(MPI_Group_free(&odds) == MPI_SUCCESS);
    EXPECT(MPI_Group_free(&world) == MPI_SUCCESS);
    EXPECT(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
}

static void test_split_type(int size)
{
    MPI_Comm c;
    int n, r;
    /* every rank of the job is on this host */
    EXPECT(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank_, MPI_INFO_NULL, &c) ==
           MPI_SUCCESS);
    EXPECT(MPI_Comm_size(c, &n) == MPI_SUCCESS && n == size);
    EXPECT(MPI_Comm_rank(c, &r) == MPI_SUCCESS && r == size - 1 - rank_); /* keys reversed */
    EXPECT(MPI_Barrier(c) == MPI_SUCCESS);
    EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);
    /* MPI_UNDEFINED on the odd ranks leaves them out */
    EXPECT(MPI_Comm_split_type(MPI_COMM_WORLD, rank_ % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                               MPI_INFO_NULL, &c) == MPI_SUCCESS);
    if (rank_ % 2) {
        EXPECT(c == MPI_COMM_NULL);
    } else {
        EXPECT(MPI_Comm_size(c, &n) == MPI_SUCCESS && n == (size + 1) / 2);
        EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);
    }
#ifdef SLUICE_MPI
    /* a type Sluice does not know */
    EXPECT(err_class(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c)) ==
           MPI_ERR_ARG);
#endif
}

static void expect_comm_name(MPI_Comm c, const char *want)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    EXPECT(MPI_Comm_get_name(c, name, &len) == MPI_SUCCESS);
    EXPECT(strcmp(name, want) == 0 && len == (int)strlen(want));
}

static void expect_type_name(MPI_Datatype t, const char *want)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    EXPECT(MPI_Type_get_name(t, name, &len) == MPI_SUCCESS);
    if (strcmp(name, want) != 0) fprintf(stderr, "type name '%s', expected '%s'\n", name, want);
    EXPECT(strcmp(name, want) == 0 && len == (int)strlen(want));
}

static void test_names(void)
{
    expect_comm_name(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    expect_comm_name(MPI_COMM_SELF, "MPI_COMM_SELF");
    MPI_Comm dup;
    EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    EXPECT(MPI_Comm_set_name(dup, "my dup") == MPI_SUCCESS);
    expect_comm_name(dup, "my dup");
    /* a name longer than MPI_MAX_OBJECT_NAME - 1 is cut */
    char longname[300];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    EXPECT(MPI_Comm_set_name(dup, longname) == MPI_SUCCESS);
    longname[MPI_MAX_OBJECT_NAME - 1] = '\0';
    expect_comm_name(dup, longname);
    EXPECT(MPI_Comm_free(&dup) == MPI_SUCCESS);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    EXPECT(err_class(MPI_Comm_get_name(MPI_COMM_NULL, name, &len)) == MPI_ERR_COMM);

    expect_type_name(MPI_INT, "MPI_INT");
    expect_type_name(MPI_DOUBLE, "MPI_DOUBLE");
    expect_type_name(MPI_CHAR, "MPI_CHAR");
    expect_type_name(MPI_BYTE, "MPI_BYTE");
    expect_type_name(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG");
    expect_type_name(MPI_FLOAT_INT, "MPI_FLOAT_INT");
    MPI_Datatype vec;
    EXPECT(MPI_Type_contiguous(3, MPI_INT, &vec) == MPI_SUCCESS);
    expect_type_name(vec, "");
    EXPECT(MPI_Type_set_name(vec, "vec3") == MPI_SUCCESS);
    expect_type_name(vec, "vec3");
    EXPECT(MPI_Type_set_name(vec, "vec3 again") == MPI_SUCCESS);
    expect_type_name(vec, "vec3 again");
    EXPECT(MPI_Type_free(&vec) == MPI_SUCCESS);
    EXPECT(err_class(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len)) == MPI_ERR_TYPE);
}

static void test_version(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = -1;
    EXPECT(MPI_Get_library_version(v, &len) == MPI_SUCCESS);
    EXPECT(len == (int)strlen(v) && len > 0);
#ifdef SLUICE_MPI
    EXPECT(strncmp(v, "Sluice ", 7) == 0 && v[7] >= '0' && v[7] <= '9'); /* "Sluice <version>" */
#endif
}

#ifdef SLUICE_MPI
static int handler_calls, handler_code;

static void record_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_code = *code;
}

/* Every one-sided call fails with MPI_ERR_UNSUPPORTED_OPERATION and writes
 * nothing. */
static void test_win_stubs(void)
{
    const int U = MPI_ERR_UNSUPPORTED_OPERATION;
    MPI_Win win = MPI_WIN_NULL;
    void *base = NULL;
    int buf[4] = {0}, res[4] = {0}, cls;
    EXPECT(MPI_Win_create(buf, sizeof buf, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win) == U);
    EXPECT(win == MPI_WIN_NULL);
    EXPECT(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) == U);
    EXPECT(win == MPI_WIN_NULL && base == NULL);
    EXPECT(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win) == U);
    EXPECT(MPI_Win_attach(win, buf, sizeof buf) == U);
    EXPECT(MPI_Win_detach(win, buf) == U);
    EXPECT(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == U);
    EXPECT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, MPI_MODE_NOCHECK, win) == U);
    EXPECT(MPI_Win_unlock(0, win) == U);
    EXPECT(MPI_Win_lock_all(0, win) == U);
    EXPECT(MPI_Win_unlock_all(win) == U);
    EXPECT(MPI_Win_flush(0, win) == U);
    EXPECT(MPI_Win_flush_local(0, win) == U);
    EXPECT(MPI_Win_post(MPI_GROUP_EMPTY, MPI_MODE_NOPUT, win) == U);
    EXPECT(MPI_Win_start(MPI_GROUP_EMPTY, 0, win) == U);
    EXPECT(MPI_Win_complete(win) == U);
    EXPECT(MPI_Win_wait(win) == U);
    EXPECT(MPI_Put(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, win) == U);
    EXPECT(MPI_Get(res, 1, MPI_INT, 0, 0, 1, MPI_INT, win) == U);
    EXPECT(MPI_Accumulate(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win) == U);
    EXPECT(MPI_Get_accumulate(buf, 1, MPI_INT, res, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win) ==
           U);
    EXPECT(MPI_Fetch_and_op(buf, res, MPI_INT, 0, 0, MPI_SUM, win) == U);
    EXPECT(MPI_Compare_and_swap(buf, buf, res, MPI_INT, 0, 0, win) == U);
    EXPECT(MPI_Win_free(&win) == U);
    EXPECT(res[0] == 0 && win == MPI_WIN_NULL);
    EXPECT(MPI_Error_class(U, &cls) == MPI_SUCCESS && cls == U);
    char s[MPI_MAX_ERROR_STRING];
    int len;
    EXPECT(MPI_Error_string(U, s, &len) == MPI_SUCCESS && strstr(s, "not supported"));
    (void)MPI_MODE_NOSTORE;
    (void)MPI_MODE_NOSUCCEED;
    (void)MPI_LOCK_SHARED;

    /* the error goes through the named communicator's handler */
    MPI_Comm dup;
    MPI_Errhandler eh;
    EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    EXPECT(MPI_Comm_create_errhandler(record_error, &eh) == MPI_SUCCESS);
    EXPECT(MPI_Comm_set_errhandler(dup, eh) == MPI_SUCCESS);
    EXPECT(MPI_Win_create_dynamic(MPI_INFO_NULL, dup, &win) == U);
    EXPECT(handler_calls == 1 && handler_code == U && win == MPI_WIN_NULL);
    EXPECT(MPI_Win_fence(0, win) == U && handler_calls == 1); /* world's: returns */
    EXPECT(MPI_Errhandler_free(&eh) == MPI_SUCCESS);
    EXPECT(MPI_Comm_free(&dup) == MPI_SUCCESS);
}
#endif

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_groups(size);
    test_split_type(size);
    test_names();
    test_version();
#ifdef SLUICE_MPI
    test_win_stubs();
#endif
    EXPECT(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank_ == 0) printf("mpi_compat_test: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
