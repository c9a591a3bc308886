/* MPI-4 large-count (_c) forms.  Without arguments (any number of ranks):
 * every _c call of point-to-point, the collectives and the datatypes with
 * small counts, results checked element by element against the int forms'
 * meaning; datatype sizes and extents beyond 2^31 (no memory needed); bad
 * arguments (negative counts: MPI_ERR_COUNT).  With "big" (2 ranks): a
 * message of more than INT_MAX MPI_BYTEs by MPI_Send_c/MPI_Recv_c, one of
 * 2049 elements of a 1 MiB type (2^31 + 2^20 bytes) by MPI_Isend_c/
 * MPI_Irecv_c, and an MPI_Bcast_c of more than INT_MAX bytes, every byte
 * checked.  Plain MPI (MPICH runs it too); Sluice-only checks under
 * SLUICE_MPI. */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, size;
static char ctxbuf[128];
#define MT_CONTEXT ctxbuf
#define MT_RANK me
#include "mpi_expect.h"
#define CTX(...) snprintf(ctxbuf, sizeof ctxbuf, __VA_ARGS__)
#define OK(call) EXPECT((call) == MPI_SUCCESS)

static int val(int a, int b, MPI_Count i)
{
    return a * 1000003 + b * 1009 + (int)i;
}

static int errclass(int err)
{
    int cls;
    MPI_Error_class(err, &cls);
    return cls;
}

static void p2p_small(void)
{
    enum { N = 1000 };
    int out[N], in[N + 1];
    int to = (me + 1) % size, from = (me + size - 1) % size;
    MPI_Status st;
    MPI_Count c;
    for (int i = 0; i < N; i++) out[i] = val(me, 1, i);
    /* Sendrecv_c around the ring */
    in[N] = -7;
    CTX("Sendrecv_c");
    OK(MPI_Sendrecv_c(out, N, MPI_INT, to, 3, in, N + 1, MPI_INT, from, 3, MPI_COMM_WORLD, &st));
    for (int i = 0; i < N; i++) EXPECT(in[i] == val(from, 1, i));
    EXPECT(in[N] == -7 && st.MPI_SOURCE == from && st.MPI_TAG == 3);
    OK(MPI_Get_count_c(&st, MPI_INT, &c));
    EXPECT(c == N);
    OK(MPI_Get_elements_c(&st, MPI_INT, &c));
    EXPECT(c == N);
    OK(MPI_Get_count_c(&st, MPI_DOUBLE, &c)); /* 4000 bytes are 500 doubles */
    EXPECT(c == N / 2);
    /* Isend_c / Irecv_c, Issend_c, persistent */
    MPI_Request rq[2];
    memset(in, 0, sizeof in);
    CTX("Isend_c/Irecv_c");
    OK(MPI_Irecv_c(in, N, MPI_INT, from, 4, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Issend_c(out, N, MPI_INT, to, 4, MPI_COMM_WORLD, &rq[1]));
    OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++) EXPECT(in[i] == val(from, 1, i));
    CTX("Send_init_c/Recv_init_c");
    OK(MPI_Recv_init_c(in, N, MPI_INT, from, 5, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Send_init_c(out, N, MPI_INT, to, 5, MPI_COMM_WORLD, &rq[1]));
    for (int k = 0; k < 3; k++) {
        out[0] = val(me, 1, 0) + k;
        memset(in, 0, sizeof in);
        OK(MPI_Startall(2, rq));
        OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        EXPECT(in[0] == val(from, 1, 0) + k && in[N - 1] == val(from, 1, N - 1));
    }
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    out[0] = val(me, 1, 0);
    /* blocking Send_c/Recv_c with a derived type, and Sendrecv_replace_c */
    MPI_Datatype pair;
    OK(MPI_Type_contiguous_c(2, MPI_INT, &pair));
    OK(MPI_Type_commit(&pair));
    memset(in, 0, sizeof in);
    CTX("Send_c/Recv_c pairs");
    if (me % 2 == 0) {
        OK(MPI_Send_c(out, N / 2, pair, to, 6, MPI_COMM_WORLD));
        OK(MPI_Recv_c(in, N / 2, pair, from, 6, MPI_COMM_WORLD, &st));
    } else {
        OK(MPI_Recv_c(in, N / 2, pair, from, 6, MPI_COMM_WORLD, &st));
        OK(MPI_Send_c(out, N / 2, pair, to, 6, MPI_COMM_WORLD));
    }
    for (int i = 0; i < N; i++) EXPECT(in[i] == val(from, 1, i));
    OK(MPI_Get_count_c(&st, pair, &c));
    EXPECT(c == N / 2);
    memcpy(in, out, sizeof out);
    CTX("Sendrecv_replace_c");
    OK(MPI_Sendrecv_replace_c(in, N, MPI_INT, to, 7, from, 7, MPI_COMM_WORLD, &st));
    for (int i = 0; i < N; i++) EXPECT(in[i] == val(from, 1, i));
    MPI_Type_free(&pair);
}

static void coll_small(void)
{
    enum { N = 37 };
    int n = size;
    int *s = malloc(sizeof(int) * (size_t)(N * n + 1)), *r = malloc(sizeof(int) * (size_t)(N * n + 1));
    MPI_Comm cw = MPI_COMM_WORLD;
    /* Bcast_c from the last me */
    for (int i = 0; i < N; i++) r[i] = me == n - 1 ? val(9, 1, i) : 0;
    CTX("Bcast_c");
    OK(MPI_Bcast_c(r, N, MPI_INT, n - 1, cw));
    for (int i = 0; i < N; i++) EXPECT(r[i] == val(9, 1, i));
    /* Allreduce_c, Reduce_c, Scan_c, Exscan_c: sums */
    for (int i = 0; i < N; i++) s[i] = val(me, 2, i);
    CTX("Allreduce_c");
    OK(MPI_Allreduce_c(s, r, N, MPI_INT, MPI_SUM, cw));
    for (int i = 0; i < N; i++) {
        int w = 0;
        for (int p = 0; p < n; p++) w += val(p, 2, i);
        EXPECT(r[i] == w);
    }
    memset(r, 0, sizeof(int) * N);
    CTX("Reduce_c");
    OK(MPI_Reduce_c(s, r, N, MPI_INT, MPI_MAX, 0, cw));
    if (me == 0) for (int i = 0; i < N; i++) EXPECT(r[i] == val(n - 1, 2, i));
    CTX("Scan_c");
    OK(MPI_Scan_c(s, r, N, MPI_INT, MPI_SUM, cw));
    for (int i = 0; i < N; i++) {
        int w = 0;
        for (int p = 0; p <= me; p++) w += val(p, 2, i);
        EXPECT(r[i] == w);
    }
    CTX("Exscan_c");
    OK(MPI_Exscan_c(s, r, N, MPI_INT, MPI_SUM, cw));
    if (me > 0)
        for (int i = 0; i < N; i++) {
            int w = 0;
            for (int p = 0; p < me; p++) w += val(p, 2, i);
            EXPECT(r[i] == w);
        }
    /* Gather_c, Scatter_c, Allgather_c, Alltoall_c */
    CTX("Gather_c");
    OK(MPI_Gather_c(s, N, MPI_INT, r, N, MPI_INT, 0, cw));
    if (me == 0)
        for (int p = 0; p < n; p++)
            for (int i = 0; i < N; i++) EXPECT(r[p * N + i] == val(p, 2, i));
    for (int p = 0; p < n; p++)
        for (int i = 0; i < N; i++) s[p * N + i] = val(me * 16 + p, 3, i);
    CTX("Scatter_c");
    OK(MPI_Scatter_c(s, N, MPI_INT, r, N, MPI_INT, 0, cw));
    for (int i = 0; i < N; i++) EXPECT(r[i] == val(me, 3, i));
    CTX("Alltoall_c");
    OK(MPI_Alltoall_c(s, N, MPI_INT, r, N, MPI_INT, cw));
    for (int p = 0; p < n; p++)
        for (int i = 0; i < N; i++) EXPECT(r[p * N + i] == val(p * 16 + me, 3, i));
    CTX("Allgather_c");
    OK(MPI_Allgather_c(s, N, MPI_INT, r, N, MPI_INT, cw));
    for (int p = 0; p < n; p++)
        for (int i = 0; i < N; i++) EXPECT(r[p * N + i] == val(p * 16, 3, i));
    /* v forms: me p's block has p + 1 elements */
    MPI_Count *cnt = malloc(sizeof(MPI_Count) * (size_t)n);
    MPI_Aint *dsp = malloc(sizeof(MPI_Aint) * (size_t)n), *bdsp = malloc(sizeof(MPI_Aint) * (size_t)n);
    MPI_Datatype *tys = malloc(sizeof(MPI_Datatype) * (size_t)n);
    MPI_Aint at = 0;
    for (int p = 0; p < n; p++) {
        cnt[p] = p + 1;
        dsp[p] = at;
        bdsp[p] = at * (MPI_Aint)sizeof(int);
        tys[p] = MPI_INT;
        at += p + 1;
    }
    for (int i = 0; i <= me; i++) s[i] = val(me, 4, i);
    CTX("Allgatherv_c");
    OK(MPI_Allgatherv_c(s, me + 1, MPI_INT, r, cnt, dsp, MPI_INT, cw));
    for (int p = 0; p < n; p++)
        for (int i = 0; i <= p; i++) EXPECT(r[dsp[p] + i] == val(p, 4, i));
    memset(r, 0, sizeof(int) * (size_t)at);
    CTX("Gatherv_c");
    OK(MPI_Gatherv_c(s, me + 1, MPI_INT, r, me == 0 ? cnt : NULL, me == 0 ? dsp : NULL,
                     MPI_INT, 0, cw));
    if (me == 0)
        for (int p = 0; p < n; p++)
            for (int i = 0; i <= p; i++) EXPECT(r[dsp[p] + i] == val(p, 4, i));
    /* Alltoallv_c / Alltoallw_c: every block to p has p + 1 elements; from p, me + 1 */
    MPI_Count *rc = malloc(sizeof(MPI_Count) * (size_t)n);
    MPI_Aint *rd = malloc(sizeof(MPI_Aint) * (size_t)n), *rbd = malloc(sizeof(MPI_Aint) * (size_t)n);
    for (int p = 0; p < n; p++) {
        rc[p] = me + 1;
        rd[p] = (MPI_Aint)p * (me + 1);
        rbd[p] = rd[p] * (MPI_Aint)sizeof(int);
        for (int i = 0; i <= p; i++) s[dsp[p] + i] = val(me * 16 + p, 5, i);
    }
    CTX("Alltoallv_c");
    OK(MPI_Alltoallv_c(s, cnt, dsp, MPI_INT, r, rc, rd, MPI_INT, cw));
    for (int p = 0; p < n; p++)
        for (int i = 0; i <= me; i++) EXPECT(r[rd[p] + i] == val(p * 16 + me, 5, i));
    memset(r, 0, sizeof(int) * (size_t)(n * (me + 1)));
    CTX("Alltoallw_c");
    OK(MPI_Alltoallw_c(s, cnt, bdsp, tys, r, rc, rbd, tys, cw));
    for (int p = 0; p < n; p++)
        for (int i = 0; i <= me; i++) EXPECT(r[rd[p] + i] == val(p * 16 + me, 5, i));
    /* Reduce_scatter_c (me p gets p + 1 elements) and _block_c */
    for (int i = 0; i < at; i++) s[i] = val(me, 6, i);
    CTX("Reduce_scatter_c");
    OK(MPI_Reduce_scatter_c(s, r, cnt, MPI_INT, MPI_SUM, cw));
    for (int i = 0; i <= me; i++) {
        int w = 0;
        for (int p = 0; p < n; p++) w += val(p, 6, dsp[me] + i);
        EXPECT(r[i] == w);
    }
    CTX("Reduce_scatter_block_c");
    OK(MPI_Reduce_scatter_block_c(s, r, 1, MPI_INT, MPI_SUM, cw));
    {
        int w = 0;
        for (int p = 0; p < n; p++) w += val(p, 6, me);
        EXPECT(r[0] == w);
    }
    /* non-blocking and persistent forms */
    MPI_Request rq[3];
    int *r2 = malloc(sizeof(int) * N), *r3 = malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++) s[i] = val(me, 7, i);
    for (int i = 0; i < N; i++) r2[i] = me == 0 ? val(8, 8, i) : 0;
    CTX("Iallreduce_c/Ibcast_c/Allreduce_init_c");
    OK(MPI_Iallreduce_c(s, r, N, MPI_INT, MPI_SUM, cw, &rq[0]));
    OK(MPI_Ibcast_c(r2, N, MPI_INT, 0, cw, &rq[1]));
    OK(MPI_Allreduce_init_c(s, r3, N, MPI_INT, MPI_MAX, cw, MPI_INFO_NULL, &rq[2]));
    OK(MPI_Start(&rq[2]));
    OK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++) {
        int w = 0;
        for (int p = 0; p < n; p++) w += val(p, 7, i);
        EXPECT(r[i] == w && r2[i] == val(8, 8, i) && r3[i] == val(n - 1, 7, i));
    }
    MPI_Request_free(&rq[2]);
    /* Reduce_local_c */
    int a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
    OK(MPI_Reduce_local_c(a, b, 3, MPI_INT, MPI_SUM));
    EXPECT(b[0] == 11 && b[1] == 22 && b[2] == 33);
    free(r2);
    free(r3);
    free(rc);
    free(rd);
    free(rbd);
    free(cnt);
    free(dsp);
    free(bdsp);
    free(tys);
    free(s);
    free(r);
}

static void types(void)
{
    MPI_Datatype t, v;
    MPI_Count sz, lb, ext;
    const MPI_Count big = (MPI_Count)INT_MAX + 5;
    CTX("Type_contiguous_c beyond INT_MAX");
    OK(MPI_Type_contiguous_c(big, MPI_BYTE, &t));
    OK(MPI_Type_commit(&t));
    OK(MPI_Type_size_c(t, &sz));
    OK(MPI_Type_get_extent_c(t, &lb, &ext));
    EXPECT(sz == big && lb == 0 && ext == big);
    OK(MPI_Type_get_true_extent_c(t, &lb, &ext));
    EXPECT(lb == 0 && ext == big);
    int isz;
    OK(MPI_Type_size(t, &isz));
    EXPECT(isz == MPI_UNDEFINED); /* the int form cannot say it */
    MPI_Type_free(&t);
    OK(MPI_Type_contiguous_c(3 * (MPI_Count)INT_MAX, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    OK(MPI_Type_size_c(t, &sz));
    EXPECT(sz == 12 * (MPI_Count)INT_MAX);
    MPI_Type_free(&t);
    CTX("Type_vector_c");
    OK(MPI_Type_vector_c(3, 2, 5, MPI_INT, &v));
    OK(MPI_Type_commit(&v));
    OK(MPI_Type_size_c(v, &sz));
    OK(MPI_Type_get_extent_c(v, &lb, &ext));
    EXPECT(sz == 24 && lb == 0 && ext == 48);
    MPI_Count psz;
    OK(MPI_Pack_size_c(big, MPI_BYTE, MPI_COMM_WORLD, &psz));
    EXPECT(psz >= big);
    /* Pack_c / Unpack_c of the vector */
    int src[15], dst[15] = {0};
    char packed[64];
    MPI_Count pos = 0;
    for (int i = 0; i < 15; i++) src[i] = i + 1;
    OK(MPI_Pack_c(src, 1, v, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    EXPECT(pos == 24);
    pos = 0;
    OK(MPI_Unpack_c(packed, 24, &pos, dst, 1, v, MPI_COMM_WORLD));
    for (int i = 0; i < 15; i++) EXPECT(dst[i] == (i % 5 < 2 ? i + 1 : 0));
    MPI_Type_free(&v);
    /* indexed, hindexed, struct, resized */
    MPI_Count bl[2] = {1, 2}, d[2] = {0, 3}, bd[2] = {0, 12};
    MPI_Datatype ts[2] = {MPI_INT, MPI_INT};
    CTX("indexed/struct _c");
    OK(MPI_Type_indexed_c(2, bl, d, MPI_INT, &t));
    OK(MPI_Type_size_c(t, &sz));
    EXPECT(sz == 12);
    MPI_Type_free(&t);
    OK(MPI_Type_create_hindexed_c(2, bl, bd, MPI_INT, &t));
    OK(MPI_Type_get_extent_c(t, &lb, &ext));
    EXPECT(ext == 20);
    MPI_Type_free(&t);
    OK(MPI_Type_create_struct_c(2, bl, bd, ts, &t));
    OK(MPI_Type_size_c(t, &sz));
    EXPECT(sz == 12);
    MPI_Type_free(&t);
    OK(MPI_Type_create_indexed_block_c(2, 2, d, MPI_INT, &t));
    OK(MPI_Type_size_c(t, &sz));
    EXPECT(sz == 16);
    MPI_Type_free(&t);
    OK(MPI_Type_create_hindexed_block_c(2, 2, bd, MPI_INT, &t));
    OK(MPI_Type_get_extent_c(t, &lb, &ext));
    EXPECT(ext == 20);
    MPI_Type_free(&t);
    OK(MPI_Type_create_hvector_c(2, 1, 16, MPI_INT, &t));
    OK(MPI_Type_get_extent_c(t, &lb, &ext));
    EXPECT(ext == 20);
    MPI_Type_free(&t);
    OK(MPI_Type_create_resized_c(MPI_INT, -4, 16, &t));
    OK(MPI_Type_get_extent_c(t, &lb, &ext));
    EXPECT(lb == -4 && ext == 16);
    MPI_Type_free(&t);
}

static void never(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
    abort();
}

/* x -> a x + b maps, composed: (a, b) o (c, d) = (a c, a d + b), the lower
 * rank's map applied last; MPI_Count len (MPI_Op_create_c). */
static void affine_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *x = in, *y = inout;
    for (MPI_Count i = 0; i < *len; i++) {
        unsigned a = x[2 * i], b = x[2 * i + 1], c = y[2 * i], d = y[2 * i + 1];
        y[2 * i] = a * c;
        y[2 * i + 1] = a * d + b;
    }
}

/* Neighbour collectives on a periodic ring, MPI_Op_create_c, buffered mode,
 * envelopes, subarrays and darrays. */
static void more(void)
{
    MPI_Comm ring;
    int dims[1] = {size}, per[1] = {1};
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &ring));
    int left = (me + size - 1) % size, right = (me + 1) % size;
    int s[8], r[8];
    for (int i = 0; i < 8; i++) s[i] = val(me, 30, i);
    /* allgather: from left then right, 4 ints each */
    CTX("Neighbor_allgather_c");
    OK(MPI_Neighbor_allgather_c(s, 4, MPI_INT, r, 4, MPI_INT, ring));
    for (int i = 0; i < 4; i++) EXPECT(r[i] == val(left, 30, i) && r[4 + i] == val(right, 30, i));
    MPI_Count cnt[2] = {3, 4};
    MPI_Aint dsp[2] = {4, 0}, bdsp[2] = {16, 0};
    MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
    memset(r, 0, sizeof r);
    CTX("Neighbor_allgatherv_c");
    if (size > 2) { /* with 1 or 2 ranks left and right are one rank: the blocks differ in size */
        MPI_Count c2[2] = {3, 3};
        OK(MPI_Neighbor_allgatherv_c(s, 3, MPI_INT, r, c2, dsp, MPI_INT, ring));
        for (int i = 0; i < 3; i++) EXPECT(r[4 + i] == val(left, 30, i) && r[i] == val(right, 30, i));
    }
    /* alltoall: block 0 to the left, block 1 to the right */
    for (int i = 0; i < 8; i++) s[i] = val(me * 16 + (i < 4 ? 0 : 1), 31, i % 4);
    CTX("Neighbor_alltoall_c");
    OK(MPI_Neighbor_alltoall_c(s, 4, MPI_INT, r, 4, MPI_INT, ring));
    for (int i = 0; i < 4; i++)
        EXPECT(r[i] == val(left * 16 + 1, 31, i) && r[4 + i] == val(right * 16, 31, i));
    /* alltoallv / alltoallw: 3 ints to the left, 4 to the right; 4 from the left, 3 from the right */
    MPI_Count sc[2] = {3, 4}, rc[2] = {4, 3};
    MPI_Aint sd[2] = {0, 4}, rd[2] = {0, 4}, sbd[2] = {0, 16}, rbd[2] = {0, 16};
    (void)cnt, (void)bdsp;
    memset(r, 0, sizeof r);
    CTX("Neighbor_alltoallv_c");
    OK(MPI_Neighbor_alltoallv_c(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, ring));
    for (int i = 0; i < 4; i++) EXPECT(r[i] == val(left * 16 + 1, 31, i));
    for (int i = 0; i < 3; i++) EXPECT(r[4 + i] == val(right * 16, 31, i));
    memset(r, 0, sizeof r);
    CTX("Neighbor_alltoallw_c");
    MPI_Request rq;
    OK(MPI_Ineighbor_alltoallw_c(s, sc, sbd, ty, r, rc, rbd, ty, ring, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++) EXPECT(r[i] == val(left * 16 + 1, 31, i));
    for (int i = 0; i < 3; i++) EXPECT(r[4 + i] == val(right * 16, 31, i));
    MPI_Comm_free(&ring);
    /* MPI_Op_create_c: a non-commutative op through Allreduce_c */
    MPI_Datatype pair;
    MPI_Op op;
    MPI_Type_contiguous(2, MPI_UNSIGNED, &pair);
    MPI_Type_commit(&pair);
    OK(MPI_Op_create_c(affine_c, 0, &op));
    unsigned p[6], q[6];
    for (int i = 0; i < 3; i++) {
        p[2 * i] = (unsigned)(2 * me + 3 + i);
        p[2 * i + 1] = (unsigned)(me * 5 + i + 1);
    }
    CTX("Op_create_c");
    OK(MPI_Allreduce_c(p, q, 3, pair, op, MPI_COMM_WORLD));
    for (int i = 0; i < 3; i++) {
        unsigned wa = 1, wb = 0;
        for (int j = size - 1; j >= 0; j--) {
            unsigned a2 = (unsigned)(2 * j + 3 + i), b2 = (unsigned)(j * 5 + i + 1);
            wb = a2 * wb + b2;
            wa = a2 * wa;
        }
        EXPECT(q[2 * i] == wa && q[2 * i + 1] == wb);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&pair);
    /* buffered mode with a _c attach */
    int bsz = 4096;
    void *buf = malloc((size_t)bsz), *got;
    MPI_Count gsz;
    CTX("Buffer_attach_c/Bsend_c");
    OK(MPI_Buffer_attach_c(buf, bsz));
    int x = val(me, 32, 0), y = 0;
    OK(MPI_Bsend_c(&x, 1, MPI_INT, right, 9, MPI_COMM_WORLD));
    OK(MPI_Recv_c(&y, 1, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    EXPECT(y == val(left, 32, 0));
    OK(MPI_Buffer_detach_c(&got, &gsz));
    EXPECT(got == buf && gsz == bsz);
    free(buf);
    /* envelope and contents of a vector made by a _c constructor */
    MPI_Datatype v;
    OK(MPI_Type_vector_c(3, 2, 5, MPI_INT, &v));
    MPI_Count ni, na, nl, nd;
    int comb, ints[3];
    MPI_Aint addrs[3];
    MPI_Count lcs[3];
    MPI_Datatype inner[1];
    CTX("Type_get_envelope_c/contents_c");
    OK(MPI_Type_get_envelope_c(v, &ni, &na, &nl, &nd, &comb));
    EXPECT(comb == MPI_COMBINER_VECTOR && nd == 1);
    EXPECT((ni == 3 && na == 0 && nl == 0) || (ni == 0 && na == 0 && nl == 3));
    /* MPI 4.0 lets the arguments come back as ints or as large counts */
    OK(MPI_Type_get_contents_c(v, ni, na, nl, nd, ints, addrs, lcs, inner));
    if (nl == 0) EXPECT(ints[0] == 3 && ints[1] == 2 && ints[2] == 5);
    else EXPECT(lcs[0] == 3 && lcs[1] == 2 && lcs[2] == 5);
    EXPECT(inner[0] == MPI_INT);
    MPI_Type_free(&v);
    /* subarray and darray */
    MPI_Count sizes[2] = {6, 8}, subs[2] = {2, 3}, starts[2] = {1, 2};
    MPI_Count sz, lb, ext;
    CTX("Type_create_subarray_c/darray_c");
    OK(MPI_Type_create_subarray_c(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &v));
    OK(MPI_Type_commit(&v));
    OK(MPI_Type_size_c(v, &sz));
    OK(MPI_Type_get_extent_c(v, &lb, &ext));
    EXPECT(sz == 24 && lb == 0 && ext == 6 * 8 * 4);
    MPI_Type_free(&v);
    MPI_Count gs[1] = {10};
    int dist[1] = {MPI_DISTRIBUTE_BLOCK}, darg[1] = {MPI_DISTRIBUTE_DFLT_DARG}, ps[1] = {2};
    OK(MPI_Type_create_darray_c(2, 1, 1, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &v));
    OK(MPI_Type_commit(&v));
    OK(MPI_Type_size_c(v, &sz));
    OK(MPI_Type_get_extent_c(v, &lb, &ext));
    EXPECT(sz == 20 && ext == 40);
    MPI_Type_free(&v);
}

static void bad_args(void)
{
    int x[4] = {0};
    MPI_Datatype t;
    MPI_Request rq;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CTX("negative counts");
    EXPECT(errclass(MPI_Send_c(x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD)) == MPI_ERR_COUNT);
    EXPECT(errclass(MPI_Send_c(x, -((MPI_Count)1 << 40), MPI_INT, 0, 0, MPI_COMM_WORLD)) == MPI_ERR_COUNT);
    EXPECT(errclass(MPI_Irecv_c(x, -3, MPI_INT, 0, 0, MPI_COMM_WORLD, &rq)) == MPI_ERR_COUNT);
    EXPECT(errclass(MPI_Bcast_c(x, -1, MPI_INT, 0, MPI_COMM_WORLD)) == MPI_ERR_COUNT);
    EXPECT(errclass(MPI_Type_contiguous_c(-1, MPI_INT, &t)) == MPI_ERR_COUNT);
#ifdef SLUICE_MPI
    /* MPICH 4.0.2 does not check this one: it crashes in its pack code */
    EXPECT(errclass(MPI_Allreduce_c(x, x + 2, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD)) == MPI_ERR_COUNT);
    /* what Sluice does not support beyond int says so (never truncates) */
    MPI_Count *big = malloc(sizeof(MPI_Count) * (size_t)size);
    MPI_Aint *dz = calloc((size_t)size, sizeof(MPI_Aint));
    for (int p = 0; p < size; p++) big[p] = (MPI_Count)INT_MAX + 1;
    CTX("v form beyond int");
    EXPECT(errclass(MPI_Allgatherv_c(x, 1, MPI_INT, x, big, dz, MPI_INT, MPI_COMM_WORLD)) == MPI_ERR_COUNT);
    MPI_Op op;
    MPI_Op_create(never, 1, &op);
    CTX("user op beyond int");
    EXPECT(errclass(MPI_Allreduce_c(x, x, (MPI_Count)INT_MAX + 1, MPI_INT, op, MPI_COMM_WORLD)) == MPI_ERR_COUNT);
    MPI_Op_free(&op);
    CTX("vector beyond int");
    EXPECT(errclass(MPI_Type_vector_c((MPI_Count)INT_MAX + 1, 1, 1, MPI_INT, &t)) == MPI_ERR_COUNT);
    free(big);
    free(dz);
#endif
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static unsigned char pat(size_t i, int salt)
{
    return (unsigned char)(i * 7 + (i >> 20) + (size_t)salt);
}

static void check_all(const unsigned char *b, size_t n, int salt)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pat(i, salt)) {
            fprintf(stderr, "byte %zu of %zu: %u, expected %u\n", i, n, b[i], pat(i, salt));
            EXPECT(0);
        }
}

/* More than INT_MAX bytes, two ranks. */
static void big(void)
{
    const MPI_Count n = (MPI_Count)INT_MAX + 4099, m = (MPI_Count)2049 << 20;
    size_t cap = (size_t)(n > m ? n : m) + 64;
    unsigned char *b = malloc(cap);
    EXPECT(b != NULL);
    MPI_Status st;
    MPI_Count c;
    double t0 = MPI_Wtime();
    /* Send_c / Recv_c of n MPI_BYTEs */
    CTX("big Send_c/Recv_c");
    if (me == 0) {
        for (size_t i = 0; i < (size_t)n; i++) b[i] = pat(i, 1);
        OK(MPI_Send_c(b, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD));
    } else {
        memset(b + n - 8, 0, 72);
        OK(MPI_Recv_c(b, n + 64, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st));
        OK(MPI_Get_count_c(&st, MPI_BYTE, &c));
        EXPECT(c == n && st.MPI_SOURCE == 0 && st.MPI_TAG == 1);
        int ic;
        MPI_Get_count(&st, MPI_BYTE, &ic);
        EXPECT(ic == MPI_UNDEFINED);
        check_all(b, (size_t)n, 1);
        EXPECT(b[n] == 0);
    }
    /* Isend_c / Irecv_c of 2049 elements of a 1 MiB type */
    MPI_Datatype mib;
    MPI_Type_contiguous(1 << 20, MPI_BYTE, &mib);
    MPI_Type_commit(&mib);
    MPI_Request rq;
    CTX("big Isend_c/Irecv_c of a 1 MiB type");
    if (me == 1) {
        for (size_t i = 0; i < (size_t)m; i++) b[i] = pat(i, 2);
        OK(MPI_Isend_c(b, 2049, mib, 0, 2, MPI_COMM_WORLD, &rq));
        OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else {
        OK(MPI_Irecv_c(b, 2049, mib, 1, 2, MPI_COMM_WORLD, &rq));
        OK(MPI_Wait(&rq, &st));
        OK(MPI_Get_count_c(&st, mib, &c));
        EXPECT(c == 2049);
        OK(MPI_Get_count_c(&st, MPI_BYTE, &c));
        EXPECT(c == m);
        check_all(b, (size_t)m, 2);
    }
    MPI_Type_free(&mib);
    /* Bcast_c of n bytes from me 0 */
    CTX("big Bcast_c");
    if (me == 0) for (size_t i = 0; i < (size_t)n; i++) b[i] = pat(i, 3);
    else memset(b, 0, (size_t)n);
    OK(MPI_Bcast_c(b, n, MPI_BYTE, 0, MPI_COMM_WORLD));
    check_all(b, (size_t)n, 3);
    free(b);
    if (me == 0) printf("big: %.1f s\n", MPI_Wtime() - t0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "big") == 0) {
        if (size != 2) {
            if (me == 0) fprintf(stderr, "big needs 2 ranks\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        big();
    } else {
        p2p_small();
        coll_small();
        types();
        more();
        bad_args();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("mpi_large: all passed\n");
    MPI_Finalize();
    return 0;
}
