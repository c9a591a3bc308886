/* Every MPI collective against a reference computed locally, element by
 * element: each variant of src/coll (forced through SLUICE_COLL_<KIND>,
 * which Sluice reads when a communicator first runs a call of a shape, so
 * each variant runs on a new communicator), counts 0, 1, odd and large, every
 * root, in place and not, a derived datatype with holes, a non-commutative
 * user op; blocking, non-blocking and persistent forms; many non-blocking
 * collectives in flight at once on two communicators with point-to-point
 * traffic on the same tags; error classes for bad arguments.
 *
 * Plain MPI: the same source builds with MPICH's mpicc (the setenv calls
 * then choose nothing).  Usage: mpi_colls [quick | large]  (quick: fewer
 * counts, for the sanitizer builds; large: every variant at 4 MiB only). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int me, size;
static char ctx[256];
#define MT_CONTEXT ctx
#define MT_RANK me
#include "mpi_expect.h"

static int quick;
static MPI_Comm cw; /* the communicator of the variant under test */
static MPI_Datatype holey; /* an int with a 4-byte hole after it (extent 8) */
static MPI_Datatype pair;  /* two unsigned: an affine map x -> m x + c */
static MPI_Op compose;     /* (m1, c1) then (m2, c2): non-commutative */

static int val(int r, int i)
{
    return (r * 131 + i * 7 + 3) % 1000 - 500;
}

static void compose_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        unsigned m = a[2 * i] * b[2 * i], c = a[2 * i + 1] * b[2 * i] + b[2 * i + 1];
        b[2 * i] = m;
        b[2 * i + 1] = c;
    }
}

static void pair_val(int r, int i, unsigned *p)
{
    p[0] = (unsigned)(r * 2 + 3 + i);
    p[1] = (unsigned)(r * 5 + 1 + 3 * i);
}

/* The composition of ranks lo..hi-1 in order, element i. */
static void pair_ref(int lo, int hi, int i, unsigned *p)
{
    p[0] = 1;
    p[1] = 0;
    for (int r = lo; r < hi; r++) {
        unsigned q[2];
        pair_val(r, i, q);
        unsigned m = p[0] * q[0], c = p[1] * q[0] + q[1];
        p[0] = m;
        p[1] = c;
    }
}

static void set_variant(const char *var, const char *v)
{
    setenv(var, v, 1);
}

#define OK(call) EXPECT((call) == MPI_SUCCESS)

/* ---- data movement ---------------------------------------------------------------------- */

static void check_bcast(int count)
{
    for (int root = 0; root < size; root++) {
        int *b = malloc(sizeof(int) * (size_t)(count + 1));
        for (int i = 0; i < count; i++) b[i] = me == root ? val(root, i) : -7;
        b[count] = 12345;
        OK(MPI_Bcast(b, count, MPI_INT, root, cw));
        for (int i = 0; i < count; i++) EXPECT(b[i] == val(root, i));
        EXPECT(b[count] == 12345);
        /* the holey type: only the ints move, the holes stay */
        int *h = malloc(sizeof(int) * 2 * (size_t)(count + 1));
        for (int i = 0; i < 2 * count; i++) h[i] = me == root || i % 2 ? val(root, i) : -7;
        OK(MPI_Bcast(h, count, holey, root, cw));
        for (int i = 0; i < 2 * count; i++) EXPECT(h[i] == val(root, i));
        free(b);
        free(h);
    }
}

static void check_gather_scatter(int count)
{
    int n = size;
    for (int root = 0; root < size; root++) {
        int *s = malloc(sizeof(int) * (size_t)(count + 1));
        int *r = malloc(sizeof(int) * (size_t)(count * n + 1));
        for (int i = 0; i < count; i++) s[i] = val(me, i);
        for (int i = 0; i <= count * n; i++) r[i] = -9;
        OK(MPI_Gather(s, count, MPI_INT, r, count, MPI_INT, root, cw));
        if (me == root)
            for (int p = 0; p < n; p++)
                for (int i = 0; i < count; i++) EXPECT(r[p * count + i] == val(p, i));
        EXPECT(r[count * n] == -9);
        /* in place at the root */
        if (me == root)
            for (int i = 0; i < count; i++) r[root * count + i] = val(root, i);
        OK(MPI_Gather(me == root ? MPI_IN_PLACE : s, count, MPI_INT, r, count, MPI_INT, root,
                      cw));
        if (me == root)
            for (int p = 0; p < n; p++)
                for (int i = 0; i < count; i++) EXPECT(r[p * count + i] == val(p, i));
        /* scatter back what each me should get: block p = val(p + 100, .) */
        if (me == root)
            for (int p = 0; p < n; p++)
                for (int i = 0; i < count; i++) r[p * count + i] = val(p + 100, i);
        for (int i = 0; i <= count; i++) s[i] = -3;
        OK(MPI_Scatter(r, count, MPI_INT, s, count, MPI_INT, root, cw));
        for (int i = 0; i < count; i++) EXPECT(s[i] == val(me + 100, i));
        EXPECT(s[count] == -3);
        OK(MPI_Scatter(r, count, MPI_INT, me == root ? MPI_IN_PLACE : s, count, MPI_INT, root,
                       cw));
        for (int i = 0; i < count; i++) EXPECT(s[i] == val(me + 100, i));
        /* holey receive side of a gather: the root's blocks land with gaps */
        int *h = malloc(sizeof(int) * 2 * (size_t)(count * n + 1));
        for (int i = 0; i < 2 * count * n; i++) h[i] = -5;
        for (int i = 0; i < count; i++) s[i] = val(me, i);
        OK(MPI_Gather(s, count, MPI_INT, h, count, holey, root, cw));
        if (me == root)
            for (int p = 0; p < n; p++)
                for (int i = 0; i < count; i++) {
                    EXPECT(h[2 * (p * count + i)] == val(p, i));
                    EXPECT(h[2 * (p * count + i) + 1] == -5);
                }
        free(h);
        free(s);
        free(r);
    }
}

/* Gatherv/Scatterv/Allgatherv: me p's block has count + p elements, the
 * blocks in reverse order with a gap of 3 between them. */
static void v_layout(int count, int *counts, int *displs, int *total)
{
    int at = 0;
    for (int p = size - 1; p >= 0; p--) {
        counts[p] = count ? count + p : 0;
        displs[p] = at;
        at += counts[p] + 3;
    }
    *total = at;
}

static void check_v(int count)
{
    int n = size, counts[64], displs[64], total;
    v_layout(count, counts, displs, &total);
    int mine = counts[me];
    int *s = malloc(sizeof(int) * (size_t)(mine + 1)), *r = malloc(sizeof(int) * (size_t)(total + 1));
    for (int i = 0; i < mine; i++) s[i] = val(me, i);
    for (int root = 0; root < n; root++) {
        for (int i = 0; i <= total; i++) r[i] = -1;
        OK(MPI_Gatherv(s, mine, MPI_INT, r, counts, displs, MPI_INT, root, cw));
        if (me == root)
            for (int p = 0; p < n; p++) {
                for (int i = 0; i < counts[p]; i++) EXPECT(r[displs[p] + i] == val(p, i));
                if (counts[p]) EXPECT(r[displs[p] + counts[p]] == -1); /* the gap */
            }
        int *t = malloc(sizeof(int) * (size_t)(mine + 1));
        for (int i = 0; i <= mine; i++) t[i] = -2;
        OK(MPI_Scatterv(r, counts, displs, MPI_INT, t, mine, MPI_INT, root, cw));
        /* the root's r holds the blocks just gathered */
        for (int i = 0; i < mine; i++) EXPECT(t[i] == val(me, i));
        EXPECT(t[mine] == -2);
        free(t);
    }
    for (int i = 0; i <= total; i++) r[i] = -1;
    OK(MPI_Allgatherv(s, mine, MPI_INT, r, counts, displs, MPI_INT, cw));
    for (int p = 0; p < n; p++) {
        for (int i = 0; i < counts[p]; i++) EXPECT(r[displs[p] + i] == val(p, i));
        if (counts[p]) EXPECT(r[displs[p] + counts[p]] == -1);
    }
    for (int i = 0; i <= total; i++) r[i] = -1;
    for (int i = 0; i < mine; i++) r[displs[me] + i] = val(me, i);
    OK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, counts, displs, MPI_INT,
                      cw));
    for (int p = 0; p < n; p++)
        for (int i = 0; i < counts[p]; i++) EXPECT(r[displs[p] + i] == val(p, i));
    free(s);
    free(r);
}

static void check_scatterv_data(int count)
{
    int n = size, counts[64], displs[64], total;
    v_layout(count, counts, displs, &total);
    for (int root = 0; root < n; root++) {
        int *src = malloc(sizeof(int) * (size_t)(total + 1)), mine = counts[me];
        int *t = malloc(sizeof(int) * (size_t)(mine + 1));
        for (int p = 0; p < n; p++)
            for (int i = 0; i < counts[p]; i++) src[displs[p] + i] = val(p + 7 * root, i);
        for (int i = 0; i <= mine; i++) t[i] = -2;
        OK(MPI_Scatterv(src, counts, displs, MPI_INT, t, mine, MPI_INT, root, cw));
        for (int i = 0; i < mine; i++) EXPECT(t[i] == val(me + 7 * root, i));
        EXPECT(t[mine] == -2);
        free(src);
        free(t);
    }
}

static void check_allgather(int count)
{
    int n = size;
    int *s = malloc(sizeof(int) * (size_t)(count + 1)), *r = malloc(sizeof(int) * (size_t)(count * n + 1));
    for (int i = 0; i < count; i++) s[i] = val(me, i);
    for (int i = 0; i <= count * n; i++) r[i] = -1;
    OK(MPI_Allgather(s, count, MPI_INT, r, count, MPI_INT, cw));
    for (int p = 0; p < n; p++)
        for (int i = 0; i < count; i++) EXPECT(r[p * count + i] == val(p, i));
    EXPECT(r[count * n] == -1);
    for (int i = 0; i < count * n; i++) r[i] = i / (count ? count : 1) == me ? val(me, i % count) : -1;
    OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, count, MPI_INT, cw));
    for (int p = 0; p < n; p++)
        for (int i = 0; i < count; i++) EXPECT(r[p * count + i] == val(p, i));
    free(s);
    free(r);
}

static void check_alltoall(int count)
{
    int n = size;
    size_t tot = (size_t)count * (size_t)n;
    int *s = malloc(sizeof(int) * (tot + 1)), *r = malloc(sizeof(int) * (tot + 1));
    /* block for p from me: val(me * 64 + p, i); the spare element set too,
     * so that no byte the call may read is undefined (count 0) */
    s[tot] = -1;
    for (int p = 0; p < n; p++)
        for (int i = 0; i < count; i++) s[p * count + i] = val(me * 64 + p, i);
    for (size_t i = 0; i <= tot; i++) r[i] = -1;
    OK(MPI_Alltoall(s, count, MPI_INT, r, count, MPI_INT, cw));
    for (int p = 0; p < n; p++)
        for (int i = 0; i < count; i++) EXPECT(r[p * count + i] == val(p * 64 + me, i));
    EXPECT(r[tot] == -1);
    memcpy(r, s, sizeof(int) * tot);
    OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, count, MPI_INT, cw));
    for (int p = 0; p < n; p++)
        for (int i = 0; i < count; i++) EXPECT(r[p * count + i] == val(p * 64 + me, i));
    /* v: me sends count + p + me elements to p */
    int sc[64], sd[64], rc[64], rd[64], st = 0, rt = 0;
    for (int p = 0; p < n; p++) {
        sc[p] = count ? count + p + me : 0;
        rc[p] = count ? count + p + me : 0; /* what p sends to us: count + me + p */
        sd[p] = st;
        rd[p] = rt + 1;
        st += sc[p];
        rt += rc[p] + 1;
    }
    int *vs = malloc(sizeof(int) * (size_t)(st + 1)), *vr = malloc(sizeof(int) * (size_t)(rt + 2));
    for (int p = 0; p < n; p++)
        for (int i = 0; i < sc[p]; i++) vs[sd[p] + i] = val(me * 64 + p, i);
    for (int i = 0; i <= rt; i++) vr[i] = -1;
    OK(MPI_Alltoallv(vs, sc, sd, MPI_INT, vr, rc, rd, MPI_INT, cw));
    for (int p = 0; p < n; p++) {
        for (int i = 0; i < rc[p]; i++) EXPECT(vr[rd[p] + i] == val(p * 64 + me, i));
        EXPECT(vr[rd[p] - 1] == -1);
    }
    /* w: block p as bytes displacements, ints to even ranks, holey ints to odd */
    int wsd[64], wrd[64];
    MPI_Datatype wst[64], wrt[64];
    for (int p = 0; p < n; p++) {
        wsd[p] = sd[p] * (int)sizeof(int);
        wrd[p] = rd[p] * (int)sizeof(int) * 2;
        wst[p] = MPI_INT;
        wrt[p] = holey;
    }
    int *wr = malloc(sizeof(int) * 2 * (size_t)(rt + 2));
    for (int i = 0; i < 2 * (rt + 1); i++) wr[i] = -4;
    OK(MPI_Alltoallw(vs, sc, wsd, wst, wr, rc, wrd, wrt, cw));
    for (int p = 0; p < n; p++)
        for (int i = 0; i < rc[p]; i++) {
            EXPECT(wr[2 * (rd[p] + i)] == val(p * 64 + me, i));
            EXPECT(wr[2 * (rd[p] + i) + 1] == -4);
        }
    free(wr);
    free(vs);
    free(vr);
    free(s);
    free(r);
}

/* ---- reductions ------------------------------------------------------------------------- */

static int sum_ref(int lo, int hi, int i)
{
    int t = 0;
    for (int r = lo; r < hi; r++) t += val(r, i);
    return t;
}

static void check_reduce(int count)
{
    int *s = malloc(sizeof(int) * (size_t)(count + 1)), *r = malloc(sizeof(int) * (size_t)(count + 1));
    unsigned *ps = malloc(sizeof(unsigned) * 2 * (size_t)(count + 1));
    unsigned *pr = malloc(sizeof(unsigned) * 2 * (size_t)(count + 1));
    for (int i = 0; i < count; i++) {
        s[i] = val(me, i);
        pair_val(me, i, ps + 2 * i);
    }
    for (int root = 0; root < size; root++) {
        for (int i = 0; i <= count; i++) r[i] = -1;
        OK(MPI_Reduce(s, r, count, MPI_INT, MPI_SUM, root, cw));
        if (me == root)
            for (int i = 0; i < count; i++) EXPECT(r[i] == sum_ref(0, size, i));
        EXPECT(r[count] == -1);
        if (me == root) memcpy(r, s, sizeof(int) * (size_t)count);
        OK(MPI_Reduce(me == root ? MPI_IN_PLACE : s, r, count, MPI_INT, MPI_MAX, root,
                      cw));
        if (me == root)
            for (int i = 0; i < count; i++) {
                int m = val(0, i);
                for (int p = 1; p < size; p++) m = val(p, i) > m ? val(p, i) : m;
                EXPECT(r[i] == m);
            }
        OK(MPI_Reduce(ps, pr, count, pair, compose, root, cw));
        if (me == root)
            for (int i = 0; i < count; i++) {
                unsigned want[2];
                pair_ref(0, size, i, want);
                EXPECT(pr[2 * i] == want[0] && pr[2 * i + 1] == want[1]);
            }
    }
    for (int i = 0; i <= count; i++) r[i] = -1;
    OK(MPI_Allreduce(s, r, count, MPI_INT, MPI_SUM, cw));
    for (int i = 0; i < count; i++) EXPECT(r[i] == sum_ref(0, size, i));
    EXPECT(r[count] == -1);
    memcpy(r, s, sizeof(int) * (size_t)count);
    OK(MPI_Allreduce(MPI_IN_PLACE, r, count, MPI_INT, MPI_SUM, cw));
    for (int i = 0; i < count; i++) EXPECT(r[i] == sum_ref(0, size, i));
    OK(MPI_Allreduce(ps, pr, count, pair, compose, cw));
    for (int i = 0; i < count; i++) {
        unsigned want[2];
        pair_ref(0, size, i, want);
        EXPECT(pr[2 * i] == want[0] && pr[2 * i + 1] == want[1]);
    }
    memcpy(pr, ps, sizeof(unsigned) * 2 * (size_t)count);
    OK(MPI_Allreduce(MPI_IN_PLACE, pr, count, pair, compose, cw));
    for (int i = 0; i < count; i++) {
        unsigned want[2];
        pair_ref(0, size, i, want);
        EXPECT(pr[2 * i] == want[0] && pr[2 * i + 1] == want[1]);
    }
    /* scans */
    OK(MPI_Scan(s, r, count, MPI_INT, MPI_SUM, cw));
    for (int i = 0; i < count; i++) EXPECT(r[i] == sum_ref(0, me + 1, i));
    memcpy(r, s, sizeof(int) * (size_t)count);
    OK(MPI_Scan(MPI_IN_PLACE, r, count, MPI_INT, MPI_SUM, cw));
    for (int i = 0; i < count; i++) EXPECT(r[i] == sum_ref(0, me + 1, i));
    for (int i = 0; i <= count; i++) r[i] = -1;
    OK(MPI_Exscan(s, r, count, MPI_INT, MPI_SUM, cw));
    if (me > 0)
        for (int i = 0; i < count; i++) EXPECT(r[i] == sum_ref(0, me, i));
    EXPECT(r[count] == -1);
    memcpy(r, s, sizeof(int) * (size_t)count);
    OK(MPI_Exscan(MPI_IN_PLACE, r, count, MPI_INT, MPI_SUM, cw));
    if (me > 0)
        for (int i = 0; i < count; i++) EXPECT(r[i] == sum_ref(0, me, i));
    OK(MPI_Scan(ps, pr, count, pair, compose, cw));
    for (int i = 0; i < count; i++) {
        unsigned want[2];
        pair_ref(0, me + 1, i, want);
        EXPECT(pr[2 * i] == want[0] && pr[2 * i + 1] == want[1]);
    }
    OK(MPI_Exscan(ps, pr, count, pair, compose, cw));
    for (int i = 0; me > 0 && i < count; i++) {
        unsigned want[2];
        pair_ref(0, me, i, want);
        EXPECT(pr[2 * i] == want[0] && pr[2 * i + 1] == want[1]);
    }
    free(s);
    free(r);
    free(ps);
    free(pr);
}

static void check_reduce_scatter(int count)
{
    int n = size, counts[64], total = 0, off = 0;
    for (int p = 0; p < n; p++) total += counts[p] = count ? count + p % 3 : 0;
    for (int p = 0; p < me; p++) off += counts[p];
    int *s = malloc(sizeof(int) * (size_t)(total + 1)), *r = malloc(sizeof(int) * (size_t)(total + 1));
    for (int i = 0; i < total; i++) s[i] = val(me, i);
    for (int i = 0; i <= total; i++) r[i] = -1;
    OK(MPI_Reduce_scatter(s, r, counts, MPI_INT, MPI_SUM, cw));
    for (int i = 0; i < counts[me]; i++) EXPECT(r[i] == sum_ref(0, n, off + i));
    EXPECT(r[counts[me]] == -1);
    memcpy(r, s, sizeof(int) * (size_t)total);
    OK(MPI_Reduce_scatter(MPI_IN_PLACE, r, counts, MPI_INT, MPI_SUM, cw));
    for (int i = 0; i < counts[me]; i++) EXPECT(r[i] == sum_ref(0, n, off + i));
    /* block form, non-commutative */
    unsigned *ps = malloc(sizeof(unsigned) * 2 * (size_t)(count * n + 1));
    unsigned *pr = malloc(sizeof(unsigned) * 2 * (size_t)(count + 1));
    for (int i = 0; i < count * n; i++) pair_val(me, i, ps + 2 * i);
    OK(MPI_Reduce_scatter_block(ps, pr, count, pair, compose, cw));
    for (int i = 0; i < count; i++) {
        unsigned want[2];
        pair_ref(0, n, me * count + i, want);
        EXPECT(pr[2 * i] == want[0] && pr[2 * i + 1] == want[1]);
    }
    free(ps);
    free(pr);
    free(s);
    free(r);
}

/* ---- the drivers -------------------------------------------------------------------------- */

typedef struct {
    const char *var;
#define SUITE_MAXV 10
    const char *variants[SUITE_MAXV];
    void (*check)(int count);
} suite_t;

static void barrier_check(int count)
{
    (void)count;
    /* a barrier orders: a message sent after it never overtakes one sent
     * before it to the same me with another tag - checked by the
     * p2p suite; here: it completes, repeatedly */
    for (int i = 0; i < 3; i++) OK(MPI_Barrier(cw));
}

static const suite_t suites[] = {
    {"SLUICE_COLL_BARRIER", {"dissemination", "butterfly", "pairwise", "reduce_bcast",
                             "reduce_bcast:k=3"}, barrier_check},
    {"SLUICE_COLL_BCAST", {"knomial", "knomial:k=3", "kary:k=2,seg=64,window=2", "kary:k=3",
                           "chain:seg=128", "flat", "scatter_allgather", "roundopt:seg=64", "roundopt:seg=4000",
                           "roundopt"}, check_bcast},
    {"SLUICE_COLL_REDUCE", {"knomial", "knomial:k=4", "kary:k=3,seg=40", "chain", "flat"},
     check_reduce},
    {"SLUICE_COLL_ALLREDUCE", {"butterfly", "dissemination", "reduce_bcast",
                               "reduce_bcast:k=3,seg=64", "ring"}, check_reduce},
    {"SLUICE_COLL_GATHER", {"knomial", "knomial:k=3", "kary:k=2", "chain", "flat"},
     check_gather_scatter},
    {"SLUICE_COLL_SCATTER", {"knomial", "knomial:k=3", "kary:k=2", "chain", "flat"},
     check_gather_scatter},
    {"SLUICE_COLL_ALLGATHER", {"ring", "butterfly", "pairwise", "dissemination", "gather_bcast"},
     check_allgather},
    {"SLUICE_COLL_ALLGATHER", {"ring", "butterfly", "pairwise", "dissemination"}, check_v},
    {"SLUICE_COLL_SCATTER", {"flat"}, check_scatterv_data},
    {"SLUICE_COLL_ALLTOALL", {"pairwise", "pairwise:window=1", "bruck"}, check_alltoall},
    {"SLUICE_COLL_REDUCE_SCATTER", {"pairwise", "reduce_scatterv"}, check_reduce_scatter},
    {"SLUICE_COLL_SCAN", {"linear", "linear:seg=12"}, check_reduce},
};

static int large; /* argument "large": every variant at 1 Mi elements (4 MiB) only */

static void run_suites(void)
{
    static const int counts_full[] = {0, 1, 7, 1000};
    static const int counts_quick[] = {0, 1, 7, 130};
    static const int counts_large[] = {1 << 20, 1 << 20, 1 << 20, 1 << 20};
    const int *counts = large ? counts_large : quick ? counts_quick : counts_full;
    int ncounts = large ? 1 : 4;
    for (size_t s = 0; s < sizeof suites / sizeof suites[0]; s++)
        for (int v = 0; v < SUITE_MAXV && suites[s].variants[v]; v++) {
            /* Sluice reads SLUICE_COLL_<KIND> when a communicator first runs a
             * call of a shape (its schedules are cached): a new one per variant */
            set_variant(suites[s].var, suites[s].variants[v]);
            OK(MPI_Comm_dup(MPI_COMM_WORLD, &cw));
            for (int c = 0; c < ncounts; c++) {
                snprintf(ctx, sizeof ctx, "%s=%s count %d, %d ranks", suites[s].var,
                         suites[s].variants[v], counts[c], size);
                suites[s].check(counts[c]);
            }
            OK(MPI_Comm_free(&cw));
            unsetenv(suites[s].var);
        }
}

/* Large messages (4 MiB per me) with the default variants. */
static void run_large(void)
{
    int count = quick ? 65536 : 1 << 20;
    snprintf(ctx, sizeof ctx, "large: %d ints, %d ranks", count, size);
    int *s = malloc(sizeof(int) * (size_t)count), *r = malloc(sizeof(int) * (size_t)count);
    for (int i = 0; i < count; i++) s[i] = val(me, i);
    OK(MPI_Allreduce(s, r, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < count; i++) EXPECT(r[i] == sum_ref(0, size, i));
    for (int root = 0; root < size; root += size > 2 ? size - 1 : 1) {
        for (int i = 0; i < count; i++) r[i] = me == root ? val(root, i) : 0;
        OK(MPI_Bcast(r, count, MPI_INT, root, MPI_COMM_WORLD));
        for (int i = 0; i < count; i++) EXPECT(r[i] == val(root, i));
        OK(MPI_Reduce(s, r, count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
        if (me == root)
            for (int i = 0; i < count; i++) EXPECT(r[i] == sum_ref(0, size, i));
    }
    int per = count / size;
    OK(MPI_Alltoall(s, per, MPI_INT, r, per, MPI_INT, MPI_COMM_WORLD));
    for (int p = 0; p < size; p++)
        for (int i = 0; i < per; i++) EXPECT(r[p * per + i] == val(p, me * per + i));
    free(s);
    free(r);
}

/* Many non-blocking collectives at once on two communicators, with user
 * messages on the same tags in between: nothing crosses. */
static void run_nonblocking(void)
{
    MPI_Comm dup;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    enum { K = 6, C = 257 };
    int in[K][C], out[K][C], bc[K][C], a2s[K][C * 8], a2r[K][C * 8], p2p_in[K], p2p_out[K];
    MPI_Request req[6 * K];
    int nr = 0;
    for (int k = 0; k < K; k++) {
        MPI_Comm c = k % 2 ? dup : MPI_COMM_WORLD;
        for (int i = 0; i < C; i++) {
            in[k][i] = val(me + k, i);
            bc[k][i] = me == k % size ? val(k % size + 10 * k, i) : -1;
        }
        for (int p = 0; p < size; p++)
            for (int i = 0; i < C; i++) a2s[k][p * C + i] = val(me * 64 + p + k, i);
        OK(MPI_Iallreduce(in[k], out[k], C, MPI_INT, MPI_SUM, c, &req[nr++]));
        OK(MPI_Ibcast(bc[k], C, MPI_INT, k % size, c, &req[nr++]));
        OK(MPI_Ialltoall(a2s[k], C, MPI_INT, a2r[k], C, MPI_INT, c, &req[nr++]));
        /* a ring of user messages on the same communicator, tags 0..K-1 */
        p2p_out[k] = me * 1000 + k;
        OK(MPI_Irecv(&p2p_in[k], 1, MPI_INT, (me - 1 + size) % size, k, c, &req[nr++]));
        OK(MPI_Isend(&p2p_out[k], 1, MPI_INT, (me + 1) % size, k, c, &req[nr++]));
        OK(MPI_Ibarrier(c, &req[nr++]));
    }
    snprintf(ctx, sizeof ctx, "%d non-blocking collectives in flight, %d ranks", nr, size);
    OK(MPI_Waitall(nr, req, MPI_STATUSES_IGNORE));
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < C; i++) {
            int want = 0;
            for (int p = 0; p < size; p++) want += val(p + k, i);
            EXPECT(out[k][i] == want);
            EXPECT(bc[k][i] == val(k % size + 10 * k, i));
        }
        for (int p = 0; p < size; p++)
            for (int i = 0; i < C; i++) EXPECT(a2r[k][p * C + i] == val(p * 64 + me + k, i));
        EXPECT(p2p_in[k] == ((me - 1 + size) % size) * 1000 + k);
    }
    OK(MPI_Comm_free(&dup));
}

/* A persistent collective started after the communicator's collective
 * numbering has come round since its init, together with a non-blocking
 * call: their messages must not cross.  16,382 calls in between: had
 * persistent requests shared the calls' 14-bit numbering (1..16383), the
 * Iallreduce would now get the persistent request's number. */
static void run_wraparound(void)
{
    snprintf(ctx, sizeof ctx, "persistent after 16382 calls, %d ranks", size);
    MPI_Comm c;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    int pin = me, pout = -1, nin = 100 * (me + 1), nout = -1;
    MPI_Request req[2];
    OK(MPI_Allreduce_init(&pin, &pout, 1, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &req[0]));
    for (int i = 0; i < 16382; i++) OK(MPI_Barrier(c));
    for (int k = 0; k < 3; k++) {
        OK(MPI_Start(&req[0]));
        OK(MPI_Iallreduce(&nin, &nout, 1, MPI_INT, MPI_SUM, c, &req[1]));
        OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        EXPECT(pout == size * (size - 1) / 2);
        EXPECT(nout == 100 * size * (size + 1) / 2);
        OK(MPI_Barrier(c));
    }
    OK(MPI_Request_free(&req[0]));
    OK(MPI_Comm_free(&c));
}

/* MPI_Comm_free with operations pending on the communicator (MPI allows
 * it): they complete, then the communicator goes. */
static void run_free_pending(void)
{
    snprintf(ctx, sizeof ctx, "communicator freed with operations pending, %d ranks", size);
    MPI_Comm c;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    int in = me + 1, out = 0, token = me, got = -1;
    MPI_Request req[3];
    OK(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, c, &req[0]));
    OK(MPI_Irecv(&got, 1, MPI_INT, (me - 1 + size) % size, 7, c, &req[1]));
    OK(MPI_Isend(&token, 1, MPI_INT, (me + 1) % size, 7, c, &req[2]));
    OK(MPI_Comm_free(&c));
    EXPECT(c == MPI_COMM_NULL);
    OK(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
    EXPECT(out == size * (size + 1) / 2);
    EXPECT(got == (me - 1 + size) % size);
}

/* Persistent collectives started many times with changing contents. */
static void run_persistent(void)
{
    enum { C = 33 };
    int in[C] = {0}, out[C], bc[C];
    MPI_Request req[3];
    OK(MPI_Allreduce_init(in, out, C, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
    OK(MPI_Bcast_init(bc, C, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
    OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req[2]));
    int iters = quick ? 100 : 1000;
    for (int it = 0; it < iters; it++) {
        snprintf(ctx, sizeof ctx, "persistent, start %d, %d ranks", it, size);
        for (int i = 0; i < C; i++) {
            in[i] = val(me + it, i);
            bc[i] = me == size - 1 ? val(it, i) : -1;
        }
        OK(MPI_Startall(3, req));
        OK(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
        for (int i = 0; i < C; i++) {
            int want = 0;
            for (int p = 0; p < size; p++) want += val(p + it, i);
            EXPECT(out[i] == want);
            EXPECT(bc[i] == val(it, i));
        }
    }
    for (int i = 0; i < 3; i++) OK(MPI_Request_free(&req[i]));
}

/* Non-blocking collectives (Iallreduce, Ialltoall, Ibarrier, Ibcast)
 * complete while every rank sleeps without MPI
 * calls (Sluice's progress thread; MPICH and Open MPI do not do this, so
 * the check runs only on Sluice).  One MPI_Testall afterwards must find
 * them complete: a single progress pass cannot finish schedules of
 * several dependent rounds on every rank. */
static void run_async(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    if (!strstr(lib, "Sluice")) return;
    enum { C = 3000 };
    int *in = malloc(sizeof(int) * C), *out = malloc(sizeof(int) * C);
    int *a2s = malloc(sizeof(int) * C * (size_t)size), *a2r = malloc(sizeof(int) * C * (size_t)size);
    for (int i = 0; i < C; i++) in[i] = val(me, i);
    for (int i = 0; i < C * size; i++) a2s[i] = val(me, i);
    MPI_Request req[4];
    int *bc = malloc(sizeof(int) * C);
    for (int i = 0; i < C; i++) bc[i] = me == size - 1 ? val(size - 1, i) : -1;
    OK(MPI_Iallreduce(in, out, C, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]));
    OK(MPI_Ialltoall(a2s, C, MPI_INT, a2r, C, MPI_INT, MPI_COMM_WORLD, &req[1]));
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &req[2]));
    OK(MPI_Ibcast(bc, C, MPI_INT, size - 1, MPI_COMM_WORLD, &req[3]));
    struct timespec nap = {.tv_sec = quick ? 2 : 0, .tv_nsec = quick ? 0 : 500000000L};
    while (nanosleep(&nap, &nap) != 0) {}
    int flag = 0;
    snprintf(ctx, sizeof ctx, "progress while every rank sleeps, %d ranks", size);
    OK(MPI_Testall(4, req, &flag, MPI_STATUSES_IGNORE));
    EXPECT(flag);
    if (!flag) OK(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < C; i++) EXPECT(out[i] == sum_ref(0, size, i));
    for (int i = 0; i < C; i++) EXPECT(bc[i] == val(size - 1, i));
    free(bc);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < C; i++) EXPECT(a2r[p * C + i] == val(p, me * C + i));
    free(in);
    free(out);
    free(a2s);
    free(a2r);
}

/* SLUICE_COLL_DOT: the schedule of a call, as a Graphviz file per rank. */
static void run_dot(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    if (!strstr(lib, "Sluice")) return;
    snprintf(ctx, sizeof ctx, "SLUICE_COLL_DOT, %d ranks", size);
    char dir[] = "/tmp/mpi_colls_dot.XXXXXX";
    EXPECT(mkdtemp(dir) != NULL);
    setenv("SLUICE_COLL_DOT", dir, 1);
    setenv("SLUICE_COLL_ALLREDUCE", "butterfly", 1);
    MPI_Comm c;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    int in = 1, out = 0;
    OK(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, c));
    EXPECT(out == size);
    OK(MPI_Comm_free(&c));
    unsetenv("SLUICE_COLL_DOT");
    unsetenv("SLUICE_COLL_ALLREDUCE");
    char path[512];
    snprintf(path, sizeof path, "%s/allreduce-butterfly-n%d-r%d-1.dot", dir, size, me);
    FILE *f = fopen(path, "r");
    EXPECT(f != NULL);
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    EXPECT(strstr(text, "digraph") != NULL);
    /* more than one rank: a send and a receive, joined by edges */
    if (size > 1) EXPECT(strstr(text, "send 4 B") && strstr(text, "recv 4 B") && strstr(text, "->"));
    remove(path);
    rmdir(dir);
}

/* Bad arguments: the documented classes, never a crash or a write past a
 * buffer. */
static void run_errors(void)
{
    snprintf(ctx, sizeof ctx, "bad arguments, %d ranks", size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int b[4] = {0}, cls;
    MPI_Error_class(MPI_Bcast(b, 1, MPI_INT, size, MPI_COMM_WORLD), &cls);
    EXPECT(cls == MPI_ERR_ROOT);
    MPI_Error_class(MPI_Bcast(b, -1, MPI_INT, 0, MPI_COMM_WORLD), &cls);
    EXPECT(cls == MPI_ERR_COUNT);
    MPI_Error_class(MPI_Bcast(b, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), &cls);
    EXPECT(cls == MPI_ERR_TYPE);
    MPI_Error_class(MPI_Allreduce(b, b + 2, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), &cls);
    EXPECT(cls == MPI_ERR_OP);
    MPI_Error_class(MPI_Allreduce(b, NULL, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), &cls);
    EXPECT(cls == MPI_ERR_BUFFER);
    MPI_Error_class(MPI_Barrier(MPI_COMM_NULL), &cls);
    EXPECT(cls == MPI_ERR_COMM);
    MPI_Request r;
    MPI_Error_class(MPI_Ibarrier(MPI_COMM_NULL, &r), &cls);
    EXPECT(cls == MPI_ERR_COMM);
    /* a root that expects less than the ranks send: an error, and nothing
     * past the root's buffer */
    if (size > 1) {
        int *g = malloc(sizeof(int) * (size_t)(size + 1));
        for (int i = 0; i <= size; i++) g[i] = -1;
        int sb[2] = {5, 6};
        int rc = MPI_Gather(sb, me == 0 ? 1 : 2, MPI_INT, g, 1, MPI_INT, 0, MPI_COMM_WORLD);
        /* the root's receives are too short on either executor: truncation
         * there (docs/OFFLOAD.md), the senders succeed */
        MPI_Error_class(rc, &cls);
        EXPECT(cls == (me == 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS));
        EXPECT(g[size] == -1);
        free(g);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    /* the progress thread even where ranks oversubscribe the CPUs (its
     * default there is off): run_async needs it */
    setenv("SLUICE_COLL_PROGRESS", "1", 0);
    OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    quick = argc > 1 && !strcmp(argv[1], "quick");
    large = argc > 1 && !strcmp(argv[1], "large");
    MPI_Type_create_resized(MPI_INT, 0, 8, &holey);
    MPI_Type_commit(&holey);
    MPI_Type_contiguous(2, MPI_UNSIGNED, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(compose_fn, 0, &compose);
    run_suites();
    if (large) {
        OK(MPI_Finalize());
        if (me == 0) printf("mpi_colls large: %d ranks ok\n", size);
        return 0;
    }
    run_large();
    run_nonblocking();
    run_free_pending();
    if (!quick) run_wraparound();
    run_persistent();
    run_async();
    run_dot();
    run_errors();
    MPI_Op_free(&compose);
    MPI_Type_free(&pair);
    MPI_Type_free(&holey);
    OK(MPI_Finalize());
    if (me == 0) printf("mpi_colls: %d ranks ok\n", size);
    return 0;
}
