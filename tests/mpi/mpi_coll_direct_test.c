/* The direct path of small blocking collectives (src/coll/direct.c):
 * MPI_Barrier, Bcast, Reduce, Allreduce, Gather, Scatter, Allgather and
 * Alltoall up to
 * SLUICE_COLL_DIRECT_MAX bytes run their algorithm on p2p without a
 * schedule.
 *
 * Checked, on every communicator size it runs at (1-8, powers of two and
 * not): every root, counts 0, 1, odd and at the limit and one element past
 * it (a schedule), several types and ops, in place, every element against
 * a reference computed here; that the calls meant for the direct path took
 * it (coll_direct_calls) and the others did not (a non-commutative op, a
 * forced variant, a limit of -1 read by a new communicator, a non-blocking
 * collective in flight); ranks that describe the same data with dense and
 * strided datatypes (the strided sides are packed, the path is the same); results on a split
 * communicator whose ranks map to scattered world ranks; interleaving with
 * user messages of the same tags; and a bcast whose receivers expect fewer
 * elements than the root sends fails with MPI_ERR_TRUNCATE and writes
 * nothing past their count. */
#include "coll/coll.h"

#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char ctx[160];
static int me, size;
#define MT_CONTEXT ctx
#define MT_RANK me
#include "mpi_expect.h"

#define OK(call) EXPECT((call) == MPI_SUCCESS)
#define LIMIT 8192 /* bytes: SLUICE_COLL_DIRECT_MAX's default */

static int val(int rank, int i)
{
    return (rank * 7 + i * 13) % 1001 - 500;
}

/* factors for MPI_PROD: 1..4 with either sign (no overflow over 8 ranks) */
static long long pval(int rank, int i)
{
    return ((rank + i) % 3 ? 1 : -1) * ((rank * 3 + i) % 4 + 1);
}

/* The calls that took the direct path since the last look. */
static unsigned long direct_delta(void)
{
    static unsigned long seen;
    unsigned long now = coll_direct_calls(), d = now - seen;
    seen = now;
    return d;
}

static void check_bcast(MPI_Comm c, int n, int cme, int count)
{
    int *b = malloc(sizeof(int) * (size_t)(count + 1));
    for (int root = 0; root < n; root++) {
        snprintf(ctx, sizeof ctx, "bcast count %d root %d of %d", count, root, n);
        for (int i = 0; i < count; i++) b[i] = cme == root ? val(root, i) : -7;
        b[count] = 12345;
        OK(MPI_Bcast(b, count, MPI_INT, root, c));
        for (int i = 0; i < count; i++) EXPECT(b[i] == val(root, i));
        EXPECT(b[count] == 12345);
    }
    free(b);
}

static void check_allreduce(MPI_Comm c, int n, int cme, int count, bool inplace)
{
    int *s = malloc(sizeof(int) * (size_t)(count + 1)), *r = malloc(sizeof(int) * (size_t)(count + 1));
    snprintf(ctx, sizeof ctx, "allreduce count %d of %d%s", count, n, inplace ? " in place" : "");
    for (int i = 0; i < count; i++) s[i] = val(cme, i), r[i] = inplace ? s[i] : -7;
    r[count] = 12345;
    OK(MPI_Allreduce(inplace ? MPI_IN_PLACE : s, r, count, MPI_INT, MPI_SUM, c));
    for (int i = 0; i < count; i++) {
        int want = 0;
        for (int q = 0; q < n; q++) want += val(q, i);
        EXPECT(r[i] == want);
    }
    EXPECT(r[count] == 12345);
    /* MPI_MAX on doubles, and a bitwise op on bytes */
    double *ds = malloc(sizeof(double) * (size_t)(count + 1)), *dr = malloc(sizeof(double) * (size_t)(count + 1));
    for (int i = 0; i < count; i++) ds[i] = val(cme, i) * 0.5;
    OK(MPI_Allreduce(ds, dr, count, MPI_DOUBLE, MPI_MAX, c));
    for (int i = 0; i < count; i++) {
        double want = val(0, i) * 0.5;
        for (int q = 1; q < n; q++)
            if (val(q, i) * 0.5 > want) want = val(q, i) * 0.5;
        EXPECT(dr[i] == want);
    }
    unsigned char *us = (unsigned char *)s, *ur = (unsigned char *)r;
    for (int i = 0; i < count; i++) us[i] = (unsigned char)(0xff ^ (1u << ((cme + i) % 8)));
    OK(MPI_Allreduce(us, ur, count, MPI_UNSIGNED_CHAR, MPI_BAND, c));
    for (int i = 0; i < count; i++) {
        unsigned want = 0xff;
        for (int q = 0; q < n; q++) want &= 0xff ^ (1u << ((q + i) % 8));
        EXPECT(ur[i] == want);
    }
    free(ds);
    free(dr);
    free(s);
    free(r);
}

static void check_reduce(MPI_Comm c, int n, int cme, int count, bool inplace)
{
    long long *s = malloc(sizeof(long long) * (size_t)(count + 1));
    long long *r = malloc(sizeof(long long) * (size_t)(count + 1));
    for (int root = 0; root < n; root++) {
        snprintf(ctx, sizeof ctx, "reduce count %d root %d of %d%s", count, root, n,
                 inplace ? " in place" : "");
        bool ip = inplace && cme == root;
        for (int i = 0; i < count; i++) s[i] = pval(cme, i), r[i] = ip ? s[i] : -7;
        r[count] = 12345;
        OK(MPI_Reduce(ip ? MPI_IN_PLACE : s, r, count, MPI_LONG_LONG, MPI_PROD, root, c));
        /* the input is untouched on every rank */
        if (!ip)
            for (int i = 0; i < count; i++) EXPECT(s[i] == pval(cme, i));
        if (cme == root) {
            for (int i = 0; i < count; i++) {
                long long want = 1;
                for (int q = 0; q < n; q++) want *= pval(q, i);
                EXPECT(r[i] == want);
            }
        } else {
            for (int i = 0; i < count; i++) EXPECT(r[i] == -7);
        }
        EXPECT(r[count] == 12345);
    }
    free(s);
    free(r);
}

/* Allgather and alltoall of count ints per block, both not in place and in
 * place; block i of the result comes from rank i. */
static void check_moves(MPI_Comm c, int n, int cme, int count)
{
    size_t all = (size_t)count * (size_t)n;
    int *s = malloc(sizeof(int) * (all + 1)), *r = malloc(sizeof(int) * (all + 1));
    for (int ip = 0; ip < 2; ip++) {
        snprintf(ctx, sizeof ctx, "allgather count %d of %d%s", count, n, ip ? " in place" : "");
        for (int i = 0; i < count; i++) s[i] = val(cme, i);
        for (size_t i = 0; i < all; i++) r[i] = -7;
        if (ip) memcpy(r + (size_t)cme * count, s, sizeof(int) * (size_t)count);
        r[all] = 12345;
        OK(MPI_Allgather(ip ? MPI_IN_PLACE : s, count, MPI_INT, r, count, MPI_INT, c));
        for (int q = 0; q < n; q++)
            for (int i = 0; i < count; i++) EXPECT(r[(size_t)q * count + i] == val(q, i));
        EXPECT(r[all] == 12345);

        snprintf(ctx, sizeof ctx, "alltoall count %d of %d%s", count, n, ip ? " in place" : "");
        /* block for rank q: val(me * n + q, i) */
        for (int q = 0; q < n; q++)
            for (int i = 0; i < count; i++) s[(size_t)q * count + i] = val(cme * n + q, i);
        if (ip) memcpy(r, s, sizeof(int) * all);
        else
            for (size_t i = 0; i < all; i++) r[i] = -7;
        OK(MPI_Alltoall(ip ? MPI_IN_PLACE : s, count, MPI_INT, r, count, MPI_INT, c));
        for (int q = 0; q < n; q++)
            for (int i = 0; i < count; i++) EXPECT(r[(size_t)q * count + i] == val(q * n + cme, i));
        EXPECT(r[all] == 12345);
    }
    free(s);
    free(r);
}

/* Gather and scatter of count ints per block from every root, not in
 * place and in place (the root's own block stays where it is). */
static void check_rooted(MPI_Comm c, int n, int cme, int count)
{
    size_t all = (size_t)count * (size_t)n;
    int *v = malloc(sizeof(int) * (all + 1)), *o = malloc(sizeof(int) * ((size_t)count + 1));
    for (int root = 0; root < n; root++)
        for (int ip = 0; ip < 2; ip++) {
            bool inplace = ip && cme == root;
            snprintf(ctx, sizeof ctx, "gather count %d root %d of %d%s", count, root, n,
                     ip ? " in place" : "");
            for (int i = 0; i < count; i++) o[i] = val(cme + 10, i);
            for (size_t i = 0; i <= all; i++) v[i] = -7;
            v[all] = 12345;
            if (inplace) memcpy(v + (size_t)root * count, o, sizeof(int) * (size_t)count);
            OK(MPI_Gather(inplace ? MPI_IN_PLACE : o, count, MPI_INT, v, count, MPI_INT, root, c));
            if (cme == root)
                for (int q = 0; q < n; q++)
                    for (int i = 0; i < count; i++) EXPECT(v[(size_t)q * count + i] == val(q + 10, i));
            EXPECT(v[all] == 12345);

            snprintf(ctx, sizeof ctx, "scatter count %d root %d of %d%s", count, root, n,
                     ip ? " in place" : "");
            for (int q = 0; q < n; q++)
                for (int i = 0; i < count; i++) v[(size_t)q * count + i] = val(root * n + q, i);
            for (int i = 0; i <= count; i++) o[i] = -7;
            o[count] = 12345;
            OK(MPI_Scatter(v, count, MPI_INT, inplace ? MPI_IN_PLACE : o, count, MPI_INT, root, c));
            const int *mine = inplace ? v + (size_t)root * count : o;
            for (int i = 0; i < count; i++) EXPECT(mine[i] == val(root * n + cme, i));
            EXPECT(o[count] == 12345);
        }
    free(v);
    free(o);
}

/* Everything on communicator c (n ranks, this one cme); direct says whether
 * calls up to LIMIT bytes should have taken the direct path there. */
static void run_on(MPI_Comm c, bool direct)
{
    int n, cme;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &cme);
    const int counts[] = {0, 1, 7, 100, LIMIT / 8, LIMIT / 4, LIMIT / 4 + 1};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        int count = counts[k];
        bool small = count * 4 <= LIMIT;
        direct_delta();
        OK(MPI_Barrier(c));
        check_bcast(c, n, cme, count);
        check_allreduce(c, n, cme, count, false);
        check_allreduce(c, n, cme, count, true);
        check_moves(c, n, cme, count);
        check_rooted(c, n, cme, count);
        snprintf(ctx, sizeof ctx, "direct path taken, count %d of %d", count, n);
        /* a barrier, n bcasts of ints, 2 x 3 allreduces (ints, doubles, bytes) */
        unsigned long want = 1 + (small ? (unsigned long)n : 0) +
                             2 * ((small ? 1 : 0) + (count * 8 <= LIMIT ? 1 : 0) + 1) +
                             /* allgathers, alltoalls; gathers and scatters from each root */
                             (count * 4 * n <= LIMIT ? 4 + 4 * (unsigned long)n : 0);
        EXPECT(direct_delta() == (direct ? want : 0));
        if (count * 8 <= LIMIT) { /* long longs */
            check_reduce(c, n, cme, count, false);
            check_reduce(c, n, cme, count, true);
            snprintf(ctx, sizeof ctx, "direct reduce taken, count %d of %d", count, n);
            EXPECT(direct_delta() == (direct ? 2ul * (unsigned long)n : 0));
        }
    }
}

/* a * b, not commutative: 2x2 integer matrices as 4 ints */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k < *len; k++) {
        int *a = (int *)in + 4 * k, *b = (int *)inout + 4 * k, c[4];
        c[0] = a[0] * b[0] + a[1] * b[2];
        c[1] = a[0] * b[1] + a[1] * b[3];
        c[2] = a[2] * b[0] + a[3] * b[2];
        c[3] = a[2] * b[1] + a[3] * b[3];
        memcpy(b, c, sizeof c);
    }
}

/* Calls the direct path must leave to schedules, with their results. */
static void run_not_direct(void)
{
    snprintf(ctx, sizeof ctx, "non-commutative op, %d ranks", size);
    MPI_Op op;
    MPI_Datatype quad;
    OK(MPI_Op_create(matmul, 0, &op));
    OK(MPI_Type_contiguous(4, MPI_INT, &quad));
    OK(MPI_Type_commit(&quad));
    int m[4] = {1, me + 1, 0, 1}, r[4]; /* upper triangular: the product sums the ranks */
    direct_delta();
    OK(MPI_Allreduce(m, r, 1, quad, op, MPI_COMM_WORLD));
    EXPECT(r[0] == 1 && r[1] == size * (size + 1) / 2 && r[2] == 0 && r[3] == 1);
    EXPECT(direct_delta() == 0);
    OK(MPI_Op_free(&op));
    OK(MPI_Type_free(&quad));

    snprintf(ctx, sizeof ctx, "a non-blocking collective in flight, %d ranks", size);
    MPI_Request req;
    int x = me == 0 ? 42 : 0, s = me, t = 0;
    OK(MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &req));
    OK(MPI_Allreduce(&s, &t, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    EXPECT(x == 42 && t == size * (size - 1) / 2);

    snprintf(ctx, sizeof ctx, "a forced variant, %d ranks", size);
    setenv("SLUICE_COLL_ALLREDUCE", "butterfly", 1);
    MPI_Comm c;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    direct_delta();
    OK(MPI_Allreduce(&s, &t, 1, MPI_INT, MPI_SUM, c));
    EXPECT(t == size * (size - 1) / 2);
    OK(MPI_Barrier(c)); /* not forced: direct */
    EXPECT(direct_delta() == 1);
    OK(MPI_Comm_free(&c));
    unsetenv("SLUICE_COLL_ALLREDUCE");

    snprintf(ctx, sizeof ctx, "SLUICE_COLL_DIRECT_MAX=-1, %d ranks", size);
    setenv("SLUICE_COLL_DIRECT_MAX", "-1", 1);
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    run_on(c, false);
    OK(MPI_Comm_free(&c));
    unsetenv("SLUICE_COLL_DIRECT_MAX");
}

/* Ranks describe the same data with different datatypes (MPI allows any
 * with the same type signature): a dense layout on some, a strided one on
 * others.  The path must not depend on a rank's own layout, or ranks would
 * take different ones: the strided sides are packed. */
static void run_layouts(void)
{
    snprintf(ctx, sizeof ctx, "mixed layouts, %d ranks", size);
    MPI_Datatype holey;
    OK(MPI_Type_vector(3, 1, 2, MPI_INT, &holey));
    OK(MPI_Type_commit(&holey));
    bool strided = me % 2 == 1;
    int b[6];
    for (int i = 0; i < 6; i++) b[i] = me == 0 ? 10 + i : -1;
    direct_delta();
    /* the root sends 3 dense ints; odd ranks receive them strided */
    OK(MPI_Bcast(b, strided ? 1 : 3, strided ? holey : MPI_INT, 0, MPI_COMM_WORLD));
    if (strided) EXPECT(b[0] == 10 && b[2] == 11 && b[4] == 12 && b[1] == -1 && b[3] == -1);
    else EXPECT(b[0] == 10 && b[1] == 11 && b[2] == 12);
    /* a gather whose root receives blocks of 3 strided ints (every other
     * int of 6 per block), while the ranks send 3 dense ints (or strided
     * on odd ranks); an allreduce on a strided in/out pair */
    int mine[6] = {me, -5, me * 2, -5, me * 3, -5}, *all = malloc(sizeof(int) * 6 * (size_t)size);
    for (int i = 0; i < 6 * size; i++) all[i] = -9;
    MPI_Datatype blk;
    OK(MPI_Type_create_resized(holey, 0, 6 * (MPI_Aint)sizeof(int), &blk));
    OK(MPI_Type_commit(&blk));
    int dense3[3] = {me, me * 2, me * 3};
    OK(MPI_Gather(strided ? (void *)mine : (void *)dense3, strided ? 1 : 3, strided ? holey : MPI_INT,
                  all, 1, blk, 0, MPI_COMM_WORLD));
    if (me == 0)
        for (int q = 0; q < size; q++)
            EXPECT(all[6 * q] == q && all[6 * q + 2] == 2 * q && all[6 * q + 4] == 3 * q &&
                   all[6 * q + 1] == -9);
    int red[6] = {1, -5, me, -5, 2, -5}, out[6] = {-3, -3, -3, -3, -3, -3};
    OK(MPI_Allreduce(red, out, 1, holey, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(out[0] == size && out[2] == size * (size - 1) / 2 && out[4] == 2 * size && out[1] == -3);
    EXPECT(direct_delta() == 3);
    free(all);
    OK(MPI_Type_free(&blk));
    OK(MPI_Type_free(&holey));
}

/* User messages on the same communicator with the tags the collectives
 * use inside (0, 1, 63): posted before, matched after; nothing crosses. */
static void run_interleaved(void)
{
    snprintf(ctx, sizeof ctx, "user messages around collectives, %d ranks", size);
    if (size < 2) return;
    int to = (me + 1) % size, from = (me + size - 1) % size;
    int tags[3] = {0, 1, 63}, in[3], out[3];
    MPI_Request rq[6];
    for (int i = 0; i < 3; i++) {
        out[i] = me * 100 + i;
        OK(MPI_Irecv(&in[i], 1, MPI_INT, from, tags[i], MPI_COMM_WORLD, &rq[i]));
        OK(MPI_Isend(&out[i], 1, MPI_INT, to, tags[i], MPI_COMM_WORLD, &rq[3 + i]));
    }
    int s = 1, t = 0;
    for (int k = 0; k < 50; k++) {
        OK(MPI_Allreduce(&s, &t, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        EXPECT(t == size);
        OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    OK(MPI_Waitall(6, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 3; i++) EXPECT(in[i] == from * 100 + i);
}

/* The receivers expect 4 ints, the root sends 8: MPI_ERR_TRUNCATE there,
 * nothing written past 4. */
static void run_truncate(void)
{
    snprintf(ctx, sizeof ctx, "truncated bcast, %d ranks", size);
    if (size < 2) return;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int b[9];
    for (int i = 0; i < 9; i++) b[i] = me ? -1 : i;
    direct_delta();
    int rc = MPI_Bcast(b, me ? 4 : 8, MPI_INT, 0, MPI_COMM_WORLD), cls = MPI_SUCCESS;
    EXPECT(direct_delta() == 1);
    MPI_Error_class(rc, &cls);
    if (me == 1) EXPECT(cls == MPI_ERR_TRUNCATE); /* a direct child of the root */
    if (me) {
        for (int i = 4; i < 9; i++) EXPECT(b[i] == -1);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    run_on(MPI_COMM_WORLD, true);
    /* scattered world ranks: odd ranks first, in reverse */
    MPI_Comm rev;
    OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, size - me, &rev));
    run_on(rev, true);
    OK(MPI_Comm_free(&rev));
    run_not_direct();
    run_layouts();
    run_interleaved();
    run_truncate();
    OK(MPI_Finalize());
    if (me == 0) printf("mpi_coll_direct: %d ranks ok\n", size);
    return 0;
}
