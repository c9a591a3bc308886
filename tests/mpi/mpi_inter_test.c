/* Intercommunicators (MPI 4.0 §7.6, §6.2.2): creation from two halves of
 * MPI_COMM_WORLD (even and uneven splits), the queries, point-to-point
 * with every byte and status field checked, merge with both `high`
 * orders, dup, split, and every intercommunicator collective (blocking and
 * non-blocking, several in flight at once) with each result compared
 * element by element against a reference computed here; MPI_ROOT and
 * MPI_PROC_NULL roles, whose buffers must stay untouched.  Plain MPI: the
 * same source runs under MPICH (label mpich); Sluice-only checks are under
 * SLUICE_MPI. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int wrank, wsize;
static char ctxbuf[160];
#define MT_CONTEXT ctxbuf
#define MT_RANK wrank
#include "mpi_expect.h"

#define CTX(...) snprintf(ctxbuf, sizeof ctxbuf, __VA_ARGS__)

/* One intercommunicator under test and what this rank knows of it. */
typedef struct tcase {
    MPI_Comm ic;
    int color;           /* my group, 0 or 1 */
    int nl, nr, rank;    /* local size, remote size, my local rank */
    int lw[64], rw[64];  /* world ranks of the local and remote ranks */
} tcase_t;

/* A value no two (a, b, c) share within the ranges used. */
static int val(int a, int b, int c)
{
    return a * 1000003 + b * 1009 + c;
}

static void members(int (*colorf)(int), int color, int *w, int *n)
{
    *n = 0;
    for (int r = 0; r < wsize; r++)
        if (colorf(r) == color) w[(*n)++] = r;
}

static int halves(int r)
{
    return r < wsize / 2 ? 0 : 1;
}

static int thirds(int r)
{
    return r % 3 == 0 ? 0 : 1;
}

static void make(tcase_t *t, int (*colorf)(int), int tag)
{
    MPI_Comm local;
    t->color = colorf(wrank);
    MPI_Comm_split(MPI_COMM_WORLD, t->color, wrank, &local);
    members(colorf, t->color, t->lw, &t->nl);
    members(colorf, !t->color, t->rw, &t->nr);
    EXPECT(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, t->rw[0], tag, &t->ic) == MPI_SUCCESS);
    MPI_Comm_free(&local);
    MPI_Comm_set_errhandler(t->ic, MPI_ERRORS_RETURN);
    MPI_Comm_rank(t->ic, &t->rank);
}

static void check_queries(const tcase_t *t)
{
    int flag = 0, n = -1, r = -1, cmp;
    CTX("queries color %d", t->color);
    EXPECT(MPI_Comm_test_inter(t->ic, &flag) == MPI_SUCCESS && flag == 1);
    EXPECT(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag) == MPI_SUCCESS && flag == 0);
    MPI_Comm_size(t->ic, &n);
    EXPECT(n == t->nl);
    MPI_Comm_remote_size(t->ic, &n);
    EXPECT(n == t->nr);
    MPI_Comm_rank(t->ic, &r);
    EXPECT(t->lw[r] == wrank);
    MPI_Group wg, lg, rg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_group(t->ic, &lg);
    MPI_Comm_remote_group(t->ic, &rg);
    int gs;
    MPI_Group_size(lg, &gs);
    EXPECT(gs == t->nl);
    MPI_Group_size(rg, &gs);
    EXPECT(gs == t->nr);
    MPI_Group_rank(rg, &gs);
    EXPECT(gs == MPI_UNDEFINED);
    for (int i = 0; i < t->nr; i++) {
        int w;
        MPI_Group_translate_ranks(rg, 1, &i, wg, &w);
        EXPECT(w == t->rw[i]);
    }
    for (int i = 0; i < t->nl; i++) {
        int w;
        MPI_Group_translate_ranks(lg, 1, &i, wg, &w);
        EXPECT(w == t->lw[i]);
    }
    MPI_Group_free(&wg);
    MPI_Group_free(&lg);
    MPI_Group_free(&rg);
    EXPECT(MPI_Comm_compare(t->ic, t->ic, &cmp) == MPI_SUCCESS && cmp == MPI_IDENT);
    EXPECT(MPI_Comm_compare(t->ic, MPI_COMM_WORLD, &cmp) == MPI_SUCCESS && cmp == MPI_UNEQUAL);
#ifdef SLUICE_MPI /* MPICH 4.0 answers this one without an error */
    /* remote queries on an intracommunicator: MPI_ERR_COMM */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int err = MPI_Comm_remote_size(MPI_COMM_WORLD, &n), cls;
    MPI_Error_class(err, &cls);
    EXPECT(cls == MPI_ERR_COMM);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif
}

/* Every rank sends to every remote rank n bytes (and receives from each,
 * by MPI_ANY_SOURCE/MPI_ANY_TAG and by name): payload, source, tag, count. */
static void check_p2p(const tcase_t *t, MPI_Comm ic, int n)
{
    unsigned char *out = malloc((size_t)n * (size_t)t->nr + 1);
    unsigned char *in = malloc((size_t)n + 1);
    MPI_Request *rq = malloc(sizeof *rq * (size_t)t->nr);
    for (int j = 0; j < t->nr; j++) {
        for (int i = 0; i < n; i++) out[(size_t)j * n + i] = (unsigned char)(val(t->rank, j, i) ^ t->color);
        MPI_Isend(out + (size_t)j * n, n, MPI_BYTE, j, 100 + t->rank, ic, &rq[j]);
    }
    unsigned seen = 0;
    for (int k = 0; k < t->nr; k++) {
        MPI_Status st;
        memset(in, 0xee, (size_t)n + 1);
        CTX("p2p any %d bytes color %d", n, t->color);
        EXPECT(MPI_Recv(in, n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &st) == MPI_SUCCESS);
        int src = st.MPI_SOURCE, cnt;
        EXPECT(src >= 0 && src < t->nr && !(seen & (1u << src)));
        seen |= 1u << src;
        EXPECT(st.MPI_TAG == 100 + src);
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        EXPECT(cnt == n);
        EXPECT_BYTES(in, n, i, (unsigned char)(val(src, t->rank, i) ^ !t->color));
        EXPECT(in[n] == 0xee);
    }
    MPI_Waitall(t->nr, rq, MPI_STATUSES_IGNORE);
    /* no rank sends the next round before every receive above has
     * matched (the wildcards would take its messages) */
    MPI_Barrier(ic);
    /* by name, and a receive larger than the message */
    for (int j = 0; j < t->nr; j++)
        MPI_Isend(out + (size_t)j * n, n, MPI_BYTE, j, 7, ic, &rq[j]);
    unsigned char *big = malloc((size_t)n + 16);
    for (int j = t->nr - 1; j >= 0; j--) {
        MPI_Status st;
        memset(big, 0xee, (size_t)n + 16);
        MPI_Recv(big, n + 16, MPI_BYTE, j, 7, ic, &st);
        int cnt;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CTX("p2p named %d bytes from %d", n, j);
        EXPECT(st.MPI_SOURCE == j && st.MPI_TAG == 7 && cnt == n);
        EXPECT_BYTES(big, n, i, (unsigned char)(val(j, t->rank, i) ^ !t->color));
        EXPECT(big[n] == 0xee);
    }
    MPI_Waitall(t->nr, rq, MPI_STATUSES_IGNORE);
    /* MPI_PROC_NULL */
    MPI_Status st;
    EXPECT(MPI_Recv(in, n, MPI_BYTE, MPI_PROC_NULL, 0, ic, &st) == MPI_SUCCESS);
    EXPECT(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
    /* a rank of the local group beyond the remote group's size */
    int bad = t->nr, err = MPI_Send(out, 1, MPI_BYTE, bad, 0, ic), cls;
    MPI_Error_class(err, &cls);
    CTX("p2p send to rank %d of a remote group of %d", bad, t->nr);
    EXPECT(cls == MPI_ERR_RANK);
    free(big);
    free(out);
    free(in);
    free(rq);
}

/* Merge with this group's `high` = high: the merged order, and that the
 * new intracommunicator works (an allgather of the world ranks). */
static void check_merge(const tcase_t *t, int high)
{
    MPI_Comm m;
    int mine = t->color == 0 ? high : !high;
    EXPECT(MPI_Intercomm_merge(t->ic, mine, &m) == MPI_SUCCESS);
    int n, r, *all = malloc(sizeof(int) * (size_t)wsize), flag;
    MPI_Comm_size(m, &n);
    MPI_Comm_rank(m, &r);
    MPI_Comm_test_inter(m, &flag);
    CTX("merge high %d color %d", high, t->color);
    EXPECT(n == t->nl + t->nr && !flag);
    /* the group with high false comes first */
    const int *first = mine ? t->rw : t->lw, *second = mine ? t->lw : t->rw;
    int nfirst = mine ? t->nr : t->nl;
    EXPECT(r == (mine ? t->nr + t->rank : t->rank));
    MPI_Allgather(&wrank, 1, MPI_INT, all, 1, MPI_INT, m);
    for (int i = 0; i < n; i++) EXPECT(all[i] == (i < nfirst ? first[i] : second[i - nfirst]));
    free(all);
    MPI_Comm_free(&m);
}

static void check_dup_split(const tcase_t *t)
{
    MPI_Comm d;
    int cmp;
    EXPECT(MPI_Comm_dup(t->ic, &d) == MPI_SUCCESS);
    EXPECT(MPI_Comm_compare(t->ic, d, &cmp) == MPI_SUCCESS && cmp == MPI_CONGRUENT);
    check_p2p(t, d, 33);
    /* messages on the original and the dup do not meet */
    int a = 1, b = 2, x = 0, y = 0;
    if (t->rank == 0) {
        MPI_Request q[4];
        MPI_Isend(&a, 1, MPI_INT, 0, 5, t->ic, &q[0]);
        MPI_Isend(&b, 1, MPI_INT, 0, 5, d, &q[1]);
        MPI_Irecv(&y, 1, MPI_INT, 0, 5, d, &q[2]);
        MPI_Irecv(&x, 1, MPI_INT, 0, 5, t->ic, &q[3]);
        MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
        CTX("dup separation");
        EXPECT(x == 1 && y == 2);
    }
    MPI_Comm_free(&d);
    /* split by local rank parity (key reverses the order) */
    MPI_Comm s;
    int color = t->rank % 2;
    EXPECT(MPI_Comm_split(t->ic, color, -t->rank, &s) == MPI_SUCCESS);
    int nl = (t->nl - color + 1) / 2, nr = (t->nr - color + 1) / 2;
    CTX("split color %d nl %d nr %d", color, nl, nr);
    if (nr == 0) {
        EXPECT(s == MPI_COMM_NULL);
        return;
    }
    EXPECT(s != MPI_COMM_NULL);
    int n, r, flag;
    MPI_Comm_test_inter(s, &flag);
    MPI_Comm_size(s, &n);
    MPI_Comm_rank(s, &r);
    EXPECT(flag && n == nl && r == (nl - 1 - t->rank / 2));
    MPI_Comm_remote_size(s, &n);
    EXPECT(n == nr);
    /* remote rank k of s is remote rank (last of my colour) - 2k of ic */
    int got = -1;
    for (int k = 0; k < nr; k++) MPI_Send(&t->rank, 1, MPI_INT, k, 9, s);
    for (int k = 0; k < nr; k++) {
        MPI_Recv(&got, 1, MPI_INT, k, 9, s, MPI_STATUS_IGNORE);
        EXPECT(got % 2 == color && (nr - 1 - got / 2) == k);
    }
    MPI_Comm_free(&s);
}

/* ---- collectives ---------------------------------------------------------------------------- */

#define SENT 0x5a5a5a5a

/* The three roles of a rooted call with the root at rank root of group
 * rgroup: MPI_ROOT, MPI_PROC_NULL, or the root's rank. */
static int role(const tcase_t *t, int rgroup, int root)
{
    if (t->color != rgroup) return root;
    return t->rank == root ? MPI_ROOT : MPI_PROC_NULL;
}

static int *ibuf(size_t n)
{
    int *b = malloc(sizeof(int) * (n ? n : 1));
    for (size_t i = 0; i < n; i++) b[i] = SENT;
    return b;
}

static void check_untouched(const int *b, size_t n)
{
    for (size_t i = 0; i < n; i++) EXPECT(b[i] == SENT);
}

static void coll_rooted(const tcase_t *t, MPI_Comm ic, int rgroup, int root, int cnt)
{
    int rl = role(t, rgroup, root), nl = t->nl, nr = t->nr;
    int is_root = rl == MPI_ROOT, idle = rl == MPI_PROC_NULL;
    size_t big = (size_t)cnt * (size_t)(nl > nr ? nl : nr) + 8;
    int *a = ibuf(big), *b = ibuf(big);
    /* Bcast */
    CTX("bcast cnt %d rgroup %d root %d color %d", cnt, rgroup, root, t->color);
    if (is_root) for (int i = 0; i < cnt; i++) a[i] = val(root, 1, i);
    EXPECT(MPI_Bcast(a, cnt, MPI_INT, rl, ic) == MPI_SUCCESS);
    if (is_root) for (int i = 0; i < cnt; i++) EXPECT(a[i] == val(root, 1, i));
    else if (idle) check_untouched(a, big);
    else {
        for (int i = 0; i < cnt; i++) EXPECT(a[i] == val(root, 1, i));
        check_untouched(a + cnt, big - (size_t)cnt);
    }
    /* Gather: the remote group's blocks at the root */
    free(a);
    a = ibuf(big);
    CTX("gather cnt %d rgroup %d root %d", cnt, rgroup, root);
    for (int i = 0; i < cnt; i++) b[i] = val(t->rank, 2, i);
    EXPECT(MPI_Gather(b, cnt, MPI_INT, a, cnt, MPI_INT, rl, ic) == MPI_SUCCESS);
    if (is_root) {
        for (int j = 0; j < nr; j++)
            for (int i = 0; i < cnt; i++) EXPECT(a[(size_t)j * cnt + i] == val(j, 2, i));
        check_untouched(a + (size_t)nr * cnt, big - (size_t)nr * cnt);
    } else check_untouched(a, big);
    /* Gatherv: remote rank j sends (j % 3) + cnt ints, placed with gaps */
    int *counts = malloc(sizeof(int) * 64), *displs = malloc(sizeof(int) * 64);
    size_t vtot = 0;
    for (int j = 0; j < nr; j++) {
        counts[j] = j % 3 + cnt;
        displs[j] = (int)vtot + 1;
        vtot += (size_t)counts[j] + 2;
    }
    int *v = ibuf(vtot + 8);
    int mine = t->rank % 3 + cnt;
    int *sb = ibuf((size_t)mine);
    for (int i = 0; i < mine; i++) sb[i] = val(t->rank, 3, i);
    CTX("gatherv cnt %d rgroup %d root %d", cnt, rgroup, root);
    EXPECT(MPI_Gatherv(sb, mine, MPI_INT, v, counts, displs, MPI_INT, rl, ic) == MPI_SUCCESS);
    if (is_root) {
        for (int j = 0; j < nr; j++) {
            for (int i = 0; i < counts[j]; i++) EXPECT(v[displs[j] + i] == val(j, 3, i));
            EXPECT(v[displs[j] - 1] == SENT && v[displs[j] + counts[j]] == SENT);
        }
    } else check_untouched(v, vtot + 8);
    /* Scatter: block j of the root's buffer to remote rank j */
    free(a);
    free(b);
    a = ibuf(big);
    b = ibuf(big);
    if (is_root)
        for (int j = 0; j < nr; j++)
            for (int i = 0; i < cnt; i++) a[(size_t)j * cnt + i] = val(j, 4, i);
    CTX("scatter cnt %d rgroup %d root %d", cnt, rgroup, root);
    EXPECT(MPI_Scatter(a, cnt, MPI_INT, b, cnt, MPI_INT, rl, ic) == MPI_SUCCESS);
    if (!is_root && !idle) {
        for (int i = 0; i < cnt; i++) EXPECT(b[i] == val(t->rank, 4, i));
        check_untouched(b + cnt, big - (size_t)cnt);
    } else check_untouched(b, big);
    /* Scatterv */
    free(v);
    v = ibuf(vtot + 8);
    if (is_root)
        for (int j = 0; j < nr; j++)
            for (int i = 0; i < counts[j]; i++) v[displs[j] + i] = val(j, 5, i);
    free(sb);
    sb = ibuf((size_t)mine + 1);
    CTX("scatterv cnt %d rgroup %d root %d", cnt, rgroup, root);
    EXPECT(MPI_Scatterv(v, counts, displs, MPI_INT, sb, mine, MPI_INT, rl, ic) == MPI_SUCCESS);
    if (!is_root && !idle) {
        for (int i = 0; i < mine; i++) EXPECT(sb[i] == val(t->rank, 5, i));
        EXPECT(sb[mine] == SENT);
    } else check_untouched(sb, (size_t)mine + 1);
    /* Reduce: the sum of the remote group's vectors at the root */
    free(a);
    free(b);
    a = ibuf(big);
    b = ibuf(big);
    for (int i = 0; i < cnt; i++) b[i] = val(t->rank, 6, i) + t->color;
    CTX("reduce cnt %d rgroup %d root %d", cnt, rgroup, root);
    EXPECT(MPI_Reduce(b, a, cnt, MPI_INT, MPI_SUM, rl, ic) == MPI_SUCCESS);
    if (is_root) {
        for (int i = 0; i < cnt; i++) {
            int want = 0;
            for (int j = 0; j < nr; j++) want += val(j, 6, i) + !t->color;
            EXPECT(a[i] == want);
        }
        check_untouched(a + cnt, big - (size_t)cnt);
    } else check_untouched(a, big);
    free(a);
    free(b);
    free(v);
    free(sb);
    free(counts);
    free(displs);
}

/* Non-commutative: (a, b) o (c, d) = (a*c, a*d + b) on pairs of ints mod
 * 2^32, the composition of affine maps; the operands must come in rank order. */
static void affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        unsigned a = x[2 * i], b = x[2 * i + 1], c = y[2 * i], d = y[2 * i + 1];
        y[2 * i] = a * c;
        y[2 * i + 1] = a * d + b;
    }
}

static void coll_all(const tcase_t *t, MPI_Comm ic, int cnt)
{
    int nl = t->nl, nr = t->nr;
    size_t big = (size_t)cnt * (size_t)(nl > nr ? nl : nr) + 8;
    int *a = ibuf(big), *b = ibuf(big);
    /* Allgather */
    for (int i = 0; i < cnt; i++) b[i] = val(t->rank, 7, i) + t->color;
    CTX("allgather cnt %d color %d", cnt, t->color);
    EXPECT(MPI_Allgather(b, cnt, MPI_INT, a, cnt, MPI_INT, ic) == MPI_SUCCESS);
    for (int j = 0; j < nr; j++)
        for (int i = 0; i < cnt; i++) EXPECT(a[(size_t)j * cnt + i] == val(j, 7, i) + !t->color);
    check_untouched(a + (size_t)nr * cnt, big - (size_t)nr * cnt);
    /* Allgatherv: remote rank j gives (j % 2) + cnt ints */
    int counts[64], displs[64], sc[64], sd[64];
    size_t tot = 0;
    for (int j = 0; j < nr; j++) {
        counts[j] = j % 2 + cnt;
        displs[j] = (int)tot + 1;
        tot += (size_t)counts[j] + 1;
    }
    int *v = ibuf(tot + 8), mine = t->rank % 2 + cnt, *sb = ibuf((size_t)mine);
    for (int i = 0; i < mine; i++) sb[i] = val(t->rank, 8, i) - t->color;
    CTX("allgatherv cnt %d", cnt);
    EXPECT(MPI_Allgatherv(sb, mine, MPI_INT, v, counts, displs, MPI_INT, ic) == MPI_SUCCESS);
    for (int j = 0; j < nr; j++) {
        for (int i = 0; i < counts[j]; i++) EXPECT(v[displs[j] + i] == val(j, 8, i) - !t->color);
        EXPECT(v[displs[j] - 1] == SENT);
    }
    /* Alltoall: block j to remote rank j */
    free(a);
    free(b);
    a = ibuf((size_t)cnt * nr + 8);
    b = ibuf((size_t)cnt * nr + 8);
    for (int j = 0; j < nr; j++)
        for (int i = 0; i < cnt; i++) b[(size_t)j * cnt + i] = val(t->rank * 16 + j, 9 + t->color, i);
    CTX("alltoall cnt %d", cnt);
    EXPECT(MPI_Alltoall(b, cnt, MPI_INT, a, cnt, MPI_INT, ic) == MPI_SUCCESS);
    for (int j = 0; j < nr; j++)
        for (int i = 0; i < cnt; i++) EXPECT(a[(size_t)j * cnt + i] == val(j * 16 + t->rank, 9 + !t->color, i));
    check_untouched(a + (size_t)cnt * nr, 8);
    /* Alltoallv: the block from i to j has (i + j) % 3 + cnt ints (both sides know it) */
    size_t stot = 0, rtot = 0;
    for (int j = 0; j < nr; j++) {
        sc[j] = (t->rank + j) % 3 + cnt;
        sd[j] = (int)stot;
        stot += (size_t)sc[j];
        counts[j] = (j + t->rank) % 3 + cnt;
        displs[j] = (int)rtot + 1;
        rtot += (size_t)counts[j] + 1;
    }
    free(a);
    free(b);
    a = ibuf(rtot + 8);
    b = ibuf(stot + 1);
    for (int j = 0; j < nr; j++)
        for (int i = 0; i < sc[j]; i++) b[sd[j] + i] = val(t->rank * 16 + j, 11 + t->color, i);
    CTX("alltoallv cnt %d", cnt);
    EXPECT(MPI_Alltoallv(b, sc, sd, MPI_INT, a, counts, displs, MPI_INT, ic) == MPI_SUCCESS);
    for (int j = 0; j < nr; j++) {
        for (int i = 0; i < counts[j]; i++)
            EXPECT(a[displs[j] + i] == val(j * 16 + t->rank, 11 + !t->color, i));
        EXPECT(a[displs[j] - 1] == SENT);
    }
    /* Alltoallw: the same blocks, byte displacements, MPI_INT everywhere */
    MPI_Datatype ty[64];
    int sdb[64], rdb[64];
    for (int j = 0; j < nr; j++) {
        ty[j] = MPI_INT;
        sdb[j] = sd[j] * (int)sizeof(int);
        rdb[j] = displs[j] * (int)sizeof(int);
    }
    free(a);
    a = ibuf(rtot + 8);
    CTX("alltoallw cnt %d", cnt);
    EXPECT(MPI_Alltoallw(b, sc, sdb, ty, a, counts, rdb, ty, ic) == MPI_SUCCESS);
    for (int j = 0; j < nr; j++)
        for (int i = 0; i < counts[j]; i++)
            EXPECT(a[displs[j] + i] == val(j * 16 + t->rank, 11 + !t->color, i));
    /* Allreduce: the remote group's sum */
    free(a);
    free(b);
    a = ibuf(big);
    b = ibuf(big);
    for (int i = 0; i < cnt; i++) b[i] = val(t->rank, 13, i) * (t->color + 1);
    CTX("allreduce cnt %d", cnt);
    EXPECT(MPI_Allreduce(b, a, cnt, MPI_INT, MPI_SUM, ic) == MPI_SUCCESS);
    for (int i = 0; i < cnt; i++) {
        int want = 0;
        for (int j = 0; j < nr; j++) want += val(j, 13, i) * (!t->color + 1);
        EXPECT(a[i] == want);
    }
    check_untouched(a + cnt, big - (size_t)cnt);
    /* Allreduce with a non-commutative op: the remote ranks' maps composed in rank order */
    MPI_Datatype pair;
    MPI_Op op;
    MPI_Type_contiguous(2, MPI_UNSIGNED, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(affine, 0, &op);
    unsigned *p = malloc(sizeof(unsigned) * 2 * (size_t)(cnt + 1)), *q = malloc(sizeof(unsigned) * 2 * (size_t)(cnt + 1));
    for (int i = 0; i < cnt; i++) {
        p[2 * i] = (unsigned)(2 * t->rank + 3 + i + t->color);
        p[2 * i + 1] = (unsigned)(t->rank * 7 + i + 1);
    }
    CTX("allreduce affine cnt %d", cnt);
    EXPECT(MPI_Allreduce(p, q, cnt, pair, op, ic) == MPI_SUCCESS);
    for (int i = 0; i < cnt; i++) {
        unsigned wa = 1, wb = 0; /* x -> f_0(f_1(...f_{n-1}(x))): in o inout with in the lower rank */
        for (int j = nr - 1; j >= 0; j--) {
            unsigned a2 = (unsigned)(2 * j + 3 + i + !t->color), b2 = (unsigned)(j * 7 + i + 1);
            unsigned na = a2 * wa, nb = a2 * wb + b2;
            wa = na;
            wb = nb;
        }
        EXPECT(q[2 * i] == wa && q[2 * i + 1] == wb);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&pair);
    free(p);
    free(q);
    /* Reduce_scatter_block and Reduce_scatter: vectors of L elements in both groups */
    int L = 2 * nl * nr + cnt * nl * nr, rc = L / nl;
    free(a);
    free(b);
    a = ibuf((size_t)L + 8);
    b = ibuf((size_t)L + 8);
    for (int i = 0; i < L; i++) b[i] = val(t->rank, 14, i) + 3 * t->color;
    CTX("reduce_scatter_block cnt %d", cnt);
    EXPECT(MPI_Reduce_scatter_block(b, a, rc, MPI_INT, MPI_SUM, ic) == MPI_SUCCESS);
    for (int i = 0; i < rc; i++) {
        int want = 0, e = t->rank * rc + i;
        for (int j = 0; j < nr; j++) want += val(j, 14, e) + 3 * !t->color;
        EXPECT(a[i] == want);
    }
    check_untouched(a + rc, 8);
    int L2 = L + 1, rcs[64], off = 0;
    for (int i = 0; i < nl; i++) rcs[i] = i == 0 ? L2 - (nl - 1) * (L2 / nl) : L2 / nl;
    for (int i = 0; i < t->rank; i++) off += rcs[i];
    free(a);
    free(b);
    a = ibuf((size_t)L2 + 8);
    b = ibuf((size_t)L2 + 8);
    for (int i = 0; i < L2; i++) b[i] = val(t->rank, 15, i) - t->color;
    CTX("reduce_scatter cnt %d", cnt);
    EXPECT(MPI_Reduce_scatter(b, a, rcs, MPI_INT, MPI_SUM, ic) == MPI_SUCCESS);
    for (int i = 0; i < rcs[t->rank]; i++) {
        int want = 0;
        for (int j = 0; j < nr; j++) want += val(j, 15, off + i) - !t->color;
        EXPECT(a[i] == want);
    }
    check_untouched(a + rcs[t->rank], 8);
    free(a);
    free(b);
    free(v);
    free(sb);
}

/* The barrier waits for the remote group: group 1 enters 150 ms late, and
 * no rank may leave before the last rank of the other group has entered.
 * Times are CLOCK_MONOTONIC, one clock for every process of the host (the
 * ranks run on one host), compared afterwards, so a rank that is merely
 * descheduled cannot fail the check. */
static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void coll_barrier(const tcase_t *t, MPI_Comm ic)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (t->color == 1) {
        struct timespec ts = {0, 150 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    double times[2];
    times[0] = mono();
    EXPECT(MPI_Barrier(ic) == MPI_SUCCESS);
    times[1] = mono();
    double *all = malloc(sizeof(double) * 2 * (size_t)wsize);
    int *colors = malloc(sizeof(int) * (size_t)wsize);
    MPI_Allgather(times, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Allgather(&t->color, 1, MPI_INT, colors, 1, MPI_INT, MPI_COMM_WORLD);
    CTX("barrier waits for the remote group");
    for (int w = 0; w < wsize; w++)
        if (colors[w] != t->color) EXPECT(times[1] >= all[2 * w]); /* left after they entered */
    free(all);
    free(colors);
}

/* Many non-blocking collectives in flight at once on ic and on a dup,
 * then completed together; results checked as above. */
static void coll_nb(const tcase_t *t, int cnt)
{
    MPI_Comm d;
    MPI_Comm_dup(t->ic, &d);
    int nl = t->nl, nr = t->nr;
    enum { NB = 8 };
    MPI_Request rq[NB];
    size_t big = (size_t)cnt * (size_t)(nl > nr ? nl : nr) + 8;
    int *bc = ibuf(big), *ar = ibuf(big), *ag = ibuf(big), *at = ibuf((size_t)cnt * nr + 8);
    int *src = ibuf(big), *src2 = ibuf((size_t)cnt * nr + 8), *ga = ibuf(big), *rd = ibuf(big);
    int rl = role(t, 0, 0);
    for (int i = 0; i < cnt; i++) src[i] = val(t->rank, 20, i) + t->color;
    for (int j = 0; j < nr; j++)
        for (int i = 0; i < cnt; i++) src2[(size_t)j * cnt + i] = val(t->rank * 16 + j, 21 + t->color, i);
    if (rl == MPI_ROOT) for (int i = 0; i < cnt; i++) bc[i] = val(99, 22, i);
    MPI_Ibcast(bc, cnt, MPI_INT, rl, t->ic, &rq[0]);
    MPI_Iallreduce(src, ar, cnt, MPI_INT, MPI_SUM, d, &rq[1]);
    MPI_Iallgather(src, cnt, MPI_INT, ag, cnt, MPI_INT, t->ic, &rq[2]);
    MPI_Ialltoall(src2, cnt, MPI_INT, at, cnt, MPI_INT, d, &rq[3]);
    int g1last = t->color == 1 ? nl - 1 : nr - 1; /* the gather's root: group 1's last rank */
    MPI_Igather(src, cnt, MPI_INT, ga, cnt, MPI_INT, role(t, 1, g1last), t->ic, &rq[4]);
    MPI_Ireduce(src, rd, cnt, MPI_INT, MPI_SUM, role(t, 0, 0), d, &rq[5]);
    MPI_Ibarrier(t->ic, &rq[6]);
    MPI_Ibarrier(d, &rq[7]);
    CTX("nb cnt %d color %d", cnt, t->color);
    EXPECT(MPI_Waitall(NB, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    if (rl != MPI_PROC_NULL) for (int i = 0; i < cnt; i++) EXPECT(bc[i] == val(99, 22, i));
    for (int i = 0; i < cnt; i++) {
        int want = 0;
        for (int j = 0; j < nr; j++) want += val(j, 20, i) + !t->color;
        EXPECT(ar[i] == want);
        for (int j = 0; j < nr; j++) {
            EXPECT(ag[(size_t)j * cnt + i] == val(j, 20, i) + !t->color);
            EXPECT(at[(size_t)j * cnt + i] == val(j * 16 + t->rank, 21 + !t->color, i));
        }
    }
    int groot = t->color == 1 ? nl - 1 : -1; /* gather's root: last rank of group 1 */
    if (t->rank == groot)
        for (int j = 0; j < nr; j++)
            for (int i = 0; i < cnt; i++) EXPECT(ga[(size_t)j * cnt + i] == val(j, 20, i) + 0);
    if (t->color == 0 && t->rank == 0)
        for (int i = 0; i < cnt; i++) {
            int want = 0;
            for (int j = 0; j < nr; j++) want += val(j, 20, i) + 1;
            EXPECT(rd[i] == want);
        }
    /* persistent: an allreduce and a bcast from group 1 started three times
     * with new contents */
    MPI_Request pq[2];
    int rl1 = role(t, 1, 0);
    MPI_Allreduce_init(src, ar, cnt, MPI_INT, MPI_MAX, t->ic, MPI_INFO_NULL, &pq[0]);
    MPI_Bcast_init(bc, cnt, MPI_INT, rl1, d, MPI_INFO_NULL, &pq[1]);
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < cnt; i++) src[i] = val(t->rank, 23 + k, i) + t->color;
        if (rl1 == MPI_ROOT) for (int i = 0; i < cnt; i++) bc[i] = val(77, k, i);
        CTX("persistent cnt %d start %d", cnt, k);
        EXPECT(MPI_Startall(2, pq) == MPI_SUCCESS);
        EXPECT(MPI_Waitall(2, pq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        for (int i = 0; i < cnt; i++) {
            EXPECT(ar[i] == val(nr - 1, 23 + k, i) + !t->color);
            if (rl1 != MPI_PROC_NULL) EXPECT(bc[i] == val(77, k, i));
        }
    }
    MPI_Request_free(&pq[0]);
    MPI_Request_free(&pq[1]);
    free(bc);
    free(ar);
    free(ag);
    free(at);
    free(src);
    free(src2);
    free(ga);
    free(rd);
    MPI_Comm_free(&d);
}

static void bad_args(const tcase_t *t)
{
    int x = 0, cls, err;
    CTX("bad args");
    err = MPI_Bcast(&x, 1, MPI_INT, t->nr + 5, t->ic);
    MPI_Error_class(err, &cls);
    EXPECT(cls == MPI_ERR_ROOT);
#ifdef SLUICE_MPI
    MPI_Group lg;
    MPI_Comm nc;
    MPI_Comm_group(t->ic, &lg);
    err = MPI_Comm_create_group(t->ic, lg, 0, &nc); /* MPI: intracommunicators only */
    MPI_Error_class(err, &cls);
    EXPECT(cls == MPI_ERR_COMM);
    MPI_Group_free(&lg);
    int y;
    err = MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, t->ic);
    MPI_Error_class(err, &cls);
    EXPECT(cls == MPI_ERR_COMM);
    err = MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, t->ic);
    MPI_Error_class(err, &cls);
    EXPECT(cls == MPI_ERR_BUFFER);
#endif
}

static void run(int (*colorf)(int), int tag, const char *name)
{
    tcase_t t;
    make(&t, colorf, tag);
    if (wrank == 0) printf("%s: %d + %d ranks\n", name, colorf(0) == 0 ? t.nl : t.nr,
                           colorf(0) == 0 ? t.nr : t.nl);
    check_queries(&t);
    check_p2p(&t, t.ic, 0);
    check_p2p(&t, t.ic, 1);
    check_p2p(&t, t.ic, 1000);
    check_p2p(&t, t.ic, 200000); /* beyond the eager limit */
    check_merge(&t, 0);
    check_merge(&t, 1);
    check_dup_split(&t);
    static const int cnts[] = {0, 1, 7, 1000, 70000};
    for (unsigned c = 0; c < sizeof cnts / sizeof cnts[0]; c++) {
        for (int g = 0; g < 2; g++) {
            int gsize = t.color == g ? t.nl : t.nr;
            coll_rooted(&t, t.ic, g, 0, cnts[c]);
            if (gsize > 1) coll_rooted(&t, t.ic, g, gsize - 1, cnts[c]);
        }
        coll_all(&t, t.ic, cnts[c]);
        coll_nb(&t, cnts[c]);
    }
    coll_barrier(&t, t.ic);
    bad_args(&t);
    MPI_Comm_free(&t.ic);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2 || wsize > 32) {
        if (wrank == 0) printf("needs 2..32 ranks\n");
        MPI_Finalize();
        return wsize < 2 ? 0 : 1;
    }
    run(halves, 11, "halves");
    run(thirds, 12, "thirds");
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0) printf("mpi_inter: all passed\n");
    MPI_Finalize();
    return 0;
}
