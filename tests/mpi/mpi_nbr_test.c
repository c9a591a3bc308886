/* The neighbour collectives: Neighbor_allgather(v) and Neighbor_alltoall(v,w)
 * on Cartesian (periodic, where one neighbour can be both the -1 and the
 * +1 one, and not periodic, with MPI_PROC_NULL edges), graph and
 * distributed-graph communicators (on Sluice also with two edges between
 * one pair),
 * blocking, non-blocking and persistent; every received block checked
 * against what its neighbour sent, untouched blocks where there is no
 * neighbour, and MPI_ERR_TOPOLOGY without a topology.  Plain MPI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, size;
static char ctx[160];
#define MT_CONTEXT ctx
#define MT_RANK me
#include "mpi_expect.h"

#define OK(call) EXPECT((call) == MPI_SUCCESS)
#define C 5 /* ints per block */

/* What rank r sends on its out-edge j: distinct per (r, j, i). */
static int val(int r, int j, int i)
{
    return r * 1000 + j * 10 + i;
}

/* One communicator: the in- and out-neighbour lists as MPI defines them
 * (the test's own computation), and every form checked against them. */
static void check(MPI_Comm comm, int nin, const int *in, const int *inj, int nout, const int *out,
                  const char *what)
{
    /* inj[i]: the index of the out-edge of in[i] that arrives as block i */
    int *s = malloc(sizeof(int) * (size_t)(nout * C + 1)), *r = malloc(sizeof(int) * (size_t)(nin * C + 1));
    for (int j = 0; j < nout; j++)
        for (int i = 0; i < C; i++) s[j * C + i] = val(me, j, i);
    /* alltoall, blocking */
    snprintf(ctx, sizeof ctx, "%s: Neighbor_alltoall, %d ranks", what, size);
    for (int i = 0; i < nin * C; i++) r[i] = -1;
    OK(MPI_Neighbor_alltoall(s, C, MPI_INT, r, C, MPI_INT, comm));
    for (int b = 0; b < nin; b++)
        for (int i = 0; i < C; i++) EXPECT(r[b * C + i] == (in[b] < 0 ? -1 : val(in[b], inj[b], i)));
    /* non-blocking */
    snprintf(ctx, sizeof ctx, "%s: Ineighbor_alltoall, %d ranks", what, size);
    MPI_Request q;
    for (int i = 0; i < nin * C; i++) r[i] = -1;
    OK(MPI_Ineighbor_alltoall(s, C, MPI_INT, r, C, MPI_INT, comm, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int b = 0; b < nin; b++)
        for (int i = 0; i < C; i++) EXPECT(r[b * C + i] == (in[b] < 0 ? -1 : val(in[b], inj[b], i)));
    /* allgather, persistent, restarted with new contents */
    snprintf(ctx, sizeof ctx, "%s: Neighbor_allgather_init, %d ranks", what, size);
    int g[C];
    OK(MPI_Neighbor_allgather_init(g, C, MPI_INT, r, C, MPI_INT, comm, MPI_INFO_NULL, &q));
    for (int it = 0; it < 10; it++) {
        for (int i = 0; i < C; i++) g[i] = val(me, it, i);
        for (int i = 0; i < nin * C; i++) r[i] = -1;
        OK(MPI_Start(&q));
        OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        for (int b = 0; b < nin; b++)
            for (int i = 0; i < C; i++) EXPECT(r[b * C + i] == (in[b] < 0 ? -1 : val(in[b], it, i)));
    }
    OK(MPI_Request_free(&q));
    /* v: block b of the receive buffer at (nin - 1 - b) * (C + 1), a gap of one */
    snprintf(ctx, sizeof ctx, "%s: Neighbor_alltoallv, %d ranks", what, size);
    int *rc = malloc(sizeof(int) * (size_t)(nin + 1)), *rd = malloc(sizeof(int) * (size_t)(nin + 1));
    int *sc = malloc(sizeof(int) * (size_t)(nout + 1)), *sd = malloc(sizeof(int) * (size_t)(nout + 1));
    int *rv = malloc(sizeof(int) * (size_t)(nin * (C + 1) + 1));
    for (int b = 0; b < nin; b++) {
        rc[b] = C;
        rd[b] = (nin - 1 - b) * (C + 1);
    }
    for (int j = 0; j < nout; j++) {
        sc[j] = C;
        sd[j] = j * C;
    }
    for (int i = 0; i < nin * (C + 1); i++) rv[i] = -1;
    OK(MPI_Neighbor_alltoallv(s, sc, sd, MPI_INT, rv, rc, rd, MPI_INT, comm));
    for (int b = 0; b < nin; b++) {
        for (int i = 0; i < C; i++) EXPECT(rv[rd[b] + i] == (in[b] < 0 ? -1 : val(in[b], inj[b], i)));
        EXPECT(rv[rd[b] + C] == -1);
    }
    /* w: byte displacements, MPI_INT blocks */
    snprintf(ctx, sizeof ctx, "%s: Neighbor_alltoallw, %d ranks", what, size);
    MPI_Aint *ra = malloc(sizeof(MPI_Aint) * (size_t)(nin + 1)), *sa = malloc(sizeof(MPI_Aint) * (size_t)(nout + 1));
    MPI_Datatype *rt = malloc(sizeof(MPI_Datatype) * (size_t)(nin + 1));
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * (size_t)(nout + 1));
    for (int b = 0; b < nin; b++) {
        ra[b] = (MPI_Aint)rd[b] * (MPI_Aint)sizeof(int);
        rt[b] = MPI_INT;
    }
    for (int j = 0; j < nout; j++) {
        sa[j] = (MPI_Aint)sd[j] * (MPI_Aint)sizeof(int);
        st[j] = MPI_INT;
    }
    for (int i = 0; i < nin * (C + 1); i++) rv[i] = -1;
    OK(MPI_Neighbor_alltoallw(s, sc, sa, st, rv, rc, ra, rt, comm));
    for (int b = 0; b < nin; b++)
        for (int i = 0; i < C; i++) EXPECT(rv[rd[b] + i] == (in[b] < 0 ? -1 : val(in[b], inj[b], i)));
    free(ra);
    free(sa);
    free(rt);
    free(st);
    free(rc);
    free(rd);
    free(sc);
    free(sd);
    free(rv);
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* a periodic ring: in/out = (left, right); what arrives from the left is
     * its message to its right (out-edge 1), from the right its edge 0 */
    {
        MPI_Comm ring;
        int dims[1] = {size}, periods[1] = {1};
        OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
        int l = (me - 1 + size) % size, r = (me + 1) % size;
        int in[2] = {l, r}, inj[2] = {1, 0}, out[2] = {l, r};
        check(ring, 2, in, inj, 2, out, "periodic ring");
        OK(MPI_Comm_free(&ring));
    }
    /* a non-periodic 2D grid: MPI_PROC_NULL at its edges */
    {
        MPI_Comm grid;
        int dims[2] = {0, 0}, periods[2] = {0, 0};
        OK(MPI_Dims_create(size, 2, dims));
        OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid));
        int in[4], inj[4];
        for (int d = 0; d < 2; d++) {
            int lo, hi;
            OK(MPI_Cart_shift(grid, d, 1, &lo, &hi));
            in[2 * d] = lo;
            in[2 * d + 1] = hi;
            inj[2 * d] = 2 * d + 1;
            inj[2 * d + 1] = 2 * d;
        }
        check(grid, 4, in, inj, 4, in, "non-periodic grid");
        OK(MPI_Comm_free(&grid));
    }
    /* a distributed graph: left and itself in, right and itself out */
    {
        MPI_Comm dg;
        int l = (me - 1 + size) % size, r = (me + 1) % size;
        int src[2] = {l, me}, dst[2] = {r, me}, inj[2] = {0, 1};
        OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
        check(dg, 2, src, inj, 2, dst, "distributed graph");
        OK(MPI_Comm_free(&dg));
    }
    /* two edges between one pair: Sluice pairs the j-th edge of the sender
     * with the j-th of the receiver (MPI 3.1 leaves it open; MPICH 4.0
     * pairs them the other way round), so only on Sluice */
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    if (strstr(lib, "Sluice")) {
        MPI_Comm dg;
        int l = (me - 1 + size) % size, r = (me + 1) % size;
        int src[3] = {l, l, me}, dst[3] = {r, r, me}, inj[3] = {0, 1, 2};
        OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, src, MPI_UNWEIGHTED, 3, dst,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
        check(dg, 3, src, inj, 3, dst, "distributed graph, two edges per pair");
        OK(MPI_Comm_free(&dg));
    }
    /* no topology */
    snprintf(ctx, sizeof ctx, "no topology, %d ranks", size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int a = 0, b = 0, cls;
    MPI_Error_class(MPI_Neighbor_allgather(&a, 1, MPI_INT, &b, 1, MPI_INT, MPI_COMM_WORLD), &cls);
    EXPECT(cls == MPI_ERR_TOPOLOGY);
    OK(MPI_Finalize());
    if (me == 0) printf("mpi_nbr: %d ranks ok\n", size);
    return 0;
}
