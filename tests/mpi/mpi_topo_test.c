/* Virtual topologies on any number of ranks (ctest: 1, 3, 4, 6):
 * MPI_Dims_create against the MPI standard's examples and other known
 * answers; a 2-D Cartesian grid (periodic in one dimension) with every
 * rank's coordinates and rank round trip, shifts at periodic and
 * non-periodic edges with messages along them, Cart_sub into rows and
 * columns, a grid smaller than the communicator, a 0-dimensional grid,
 * a 3-D grid, MPI_Comm_dup keeping the topology; a graph topology; distributed
 * graphs made by both creation calls (adjacent ring with weights, one rank
 * declaring everyone's edges, everyone declaring a full graph); and the
 * error classes of bad arguments.  Plain MPI: the same source runs under
 * MPICH (with reorder = 0 both keep the old ranks). */
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

static void check_dims(int nnodes, int ndims, const int *before, const int *after)
{
    int dims[8];
    memcpy(dims, before, sizeof(int) * (size_t)ndims);
    int rc = MPI_Dims_create(nnodes, ndims, dims);
    if (rc != MPI_SUCCESS) fprintf(stderr, "MPI_Dims_create(%d, %d): %d\n", nnodes, ndims, rc);
    EXPECT(rc == MPI_SUCCESS);
    for (int i = 0; i < ndims; i++)
        if (dims[i] != after[i]) {
            fprintf(stderr, "MPI_Dims_create(%d, %d): dim %d is %d, expected %d\n", nnodes, ndims,
                    i, dims[i], after[i]);
            EXPECT(0);
        }
}

static void test_dims(void)
{
    /* MPI 3.1 §7.5.2, Example 7.1 */
    check_dims(6, 2, (int[]){0, 0}, (int[]){3, 2});
    check_dims(7, 2, (int[]){0, 0}, (int[]){7, 1});
    check_dims(6, 3, (int[]){0, 3, 0}, (int[]){2, 3, 1});
    int d[3] = {0, 3, 0};
    EXPECT(err_class(MPI_Dims_create(7, 3, d)) == MPI_ERR_DIMS); /* "erroneous call" */
    /* more balanced answers */
    check_dims(1, 3, (int[]){0, 0, 0}, (int[]){1, 1, 1});
    check_dims(12, 3, (int[]){0, 0, 0}, (int[]){3, 2, 2});
    check_dims(16, 4, (int[]){0, 0, 0, 0}, (int[]){2, 2, 2, 2});
    check_dims(24, 2, (int[]){0, 0}, (int[]){6, 4});
    check_dims(32, 3, (int[]){0, 0, 0}, (int[]){4, 4, 2});
    check_dims(36, 2, (int[]){0, 0}, (int[]){6, 6});
    check_dims(60, 3, (int[]){0, 0, 0}, (int[]){5, 4, 3});
    check_dims(64, 3, (int[]){0, 0, 0}, (int[]){4, 4, 4});
    check_dims(100, 3, (int[]){0, 0, 0}, (int[]){5, 5, 4});
    check_dims(97, 2, (int[]){0, 0}, (int[]){97, 1});
#ifdef SLUICE_MPI /* MPICH 4.0 divides by zero here */
    check_dims(2147483647, 2, (int[]){0, 0}, (int[]){2147483647, 1}); /* prime */
#endif
    check_dims(1 << 30, 3, (int[]){0, 0, 0}, (int[]){1024, 1024, 1024});
    check_dims(30, 4, (int[]){0, 0, 0, 0}, (int[]){5, 3, 2, 1});
    check_dims(12, 3, (int[]){0, 2, 0}, (int[]){3, 2, 2});
    check_dims(8, 2, (int[]){8, 0}, (int[]){8, 1});
    check_dims(8, 2, (int[]){2, 4}, (int[]){2, 4});
    check_dims(5, 0, (int[]){0}, (int[]){0});
    /* errors */
    int e[2] = {0, 0};
    EXPECT(err_class(MPI_Dims_create(6, -1, e)) == MPI_ERR_ARG);
    e[0] = -2;
    EXPECT(err_class(MPI_Dims_create(6, 2, e)) == MPI_ERR_DIMS);
    e[0] = 4;
    e[1] = 0;
    EXPECT(err_class(MPI_Dims_create(6, 2, e)) == MPI_ERR_DIMS); /* 4 does not divide 6 */
    e[0] = 2;
    e[1] = 2;
    EXPECT(err_class(MPI_Dims_create(6, 2, e)) == MPI_ERR_DIMS); /* all fixed, product 4 */
}

/* A 2-D grid of every rank: dims from MPI_Dims_create, periodic in
 * dimension 0 only. */
static void test_cart2d(int size)
{
    int dims[2] = {0, 0}, periods[2] = {1, 0}, t, nd, r;
    EXPECT(MPI_Dims_create(size, 2, dims) == MPI_SUCCESS && dims[0] * dims[1] == size);
    MPI_Comm cart;
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart) == MPI_SUCCESS);
    EXPECT(cart != MPI_COMM_NULL);
    EXPECT(MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    EXPECT(MPI_Topo_test(cart, &t) == MPI_SUCCESS && t == MPI_CART);
    EXPECT(MPI_Topo_test(MPI_COMM_WORLD, &t) == MPI_SUCCESS && t == MPI_UNDEFINED);
    EXPECT(MPI_Cartdim_get(cart, &nd) == MPI_SUCCESS && nd == 2);
    EXPECT(MPI_Comm_rank(cart, &r) == MPI_SUCCESS && r == rank_);

    int gd[2], gp[2], gc[2];
    EXPECT(MPI_Cart_get(cart, 2, gd, gp, gc) == MPI_SUCCESS);
    EXPECT(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0);
    EXPECT(gc[0] == rank_ / dims[1] && gc[1] == rank_ % dims[1]); /* row-major */

    /* coordinates and ranks, every rank, both ways */
    for (int q = 0; q < size; q++) {
        int c[2], back;
        EXPECT(MPI_Cart_coords(cart, q, 2, c) == MPI_SUCCESS);
        EXPECT(c[0] == q / dims[1] && c[1] == q % dims[1]);
        EXPECT(MPI_Cart_rank(cart, c, &back) == MPI_SUCCESS && back == q);
    }
    /* a periodic coordinate wraps; a non-periodic one out of range is an error */
    int wrap[2] = {-1, gc[1]}, w;
    EXPECT(MPI_Cart_rank(cart, wrap, &w) == MPI_SUCCESS && w == (dims[0] - 1) * dims[1] + gc[1]);
    wrap[0] = gc[0] + 3 * dims[0];
    EXPECT(MPI_Cart_rank(cart, wrap, &w) == MPI_SUCCESS && w == rank_);
    int bad[2] = {0, dims[1]};
    EXPECT(err_class(MPI_Cart_rank(cart, bad, &w)) == MPI_ERR_ARG);
    bad[1] = -1;
    EXPECT(err_class(MPI_Cart_rank(cart, bad, &w)) == MPI_ERR_ARG);

    /* shifts: dimension 0 is periodic, dimension 1 is not */
    for (int disp = -2; disp <= 2; disp++) {
        int src, dst;
        EXPECT(MPI_Cart_shift(cart, 0, disp, &src, &dst) == MPI_SUCCESS);
        int up = ((gc[0] - disp) % dims[0] + dims[0]) % dims[0];
        int down = ((gc[0] + disp) % dims[0] + dims[0]) % dims[0];
        EXPECT(src == up * dims[1] + gc[1] && dst == down * dims[1] + gc[1]);
        EXPECT(MPI_Cart_shift(cart, 1, disp, &src, &dst) == MPI_SUCCESS);
        int from = gc[1] - disp, to = gc[1] + disp;
        EXPECT(src == (from < 0 || from >= dims[1] ? MPI_PROC_NULL : gc[0] * dims[1] + from));
        EXPECT(dst == (to < 0 || to >= dims[1] ? MPI_PROC_NULL : gc[0] * dims[1] + to));
        /* a message along the shift: everyone hears from its source */
        int got = -5;
        EXPECT(MPI_Sendrecv(&rank_, 1, MPI_INT, dst, 40, &got, 1, MPI_INT, src, 40, cart,
                            MPI_STATUS_IGNORE) == MPI_SUCCESS);
        EXPECT(got == (src == MPI_PROC_NULL ? -5 : src));
    }

    /* sub-grids: rows (keep dimension 1) and columns (keep dimension 0) */
    int keep_row[2] = {0, 1}, keep_col[2] = {1, 0};
    MPI_Comm row, col;
    EXPECT(MPI_Cart_sub(cart, keep_row, &row) == MPI_SUCCESS);
    EXPECT(MPI_Cart_sub(cart, keep_col, &col) == MPI_SUCCESS);
    int n, sum;
    EXPECT(MPI_Comm_size(row, &n) == MPI_SUCCESS && n == dims[1]);
    EXPECT(MPI_Comm_rank(row, &r) == MPI_SUCCESS && r == gc[1]);
    EXPECT(MPI_Comm_size(col, &n) == MPI_SUCCESS && n == dims[0]);
    EXPECT(MPI_Comm_rank(col, &r) == MPI_SUCCESS && r == gc[0]);
    EXPECT(MPI_Topo_test(row, &t) == MPI_SUCCESS && t == MPI_CART);
    EXPECT(MPI_Cartdim_get(row, &nd) == MPI_SUCCESS && nd == 1);
    int sd, sp, sc;
    EXPECT(MPI_Cart_get(col, 1, &sd, &sp, &sc) == MPI_SUCCESS);
    EXPECT(sd == dims[0] && sp == 1 && sc == gc[0]);
    EXPECT(MPI_Cart_get(row, 1, &sd, &sp, &sc) == MPI_SUCCESS);
    EXPECT(sd == dims[1] && sp == 0 && sc == gc[1]);
    /* the members are the right ones: sums of world ranks */
    EXPECT(MPI_Allreduce(&rank_, &sum, 1, MPI_INT, MPI_SUM, row) == MPI_SUCCESS);
    EXPECT(sum == gc[0] * dims[1] * dims[1] + dims[1] * (dims[1] - 1) / 2);
    EXPECT(MPI_Allreduce(&rank_, &sum, 1, MPI_INT, MPI_SUM, col) == MPI_SUCCESS);
    EXPECT(sum == dims[0] * gc[1] + dims[1] * dims[0] * (dims[0] - 1) / 2);
    /* keeping nothing: each process is a 0-dimensional grid of one (MPI
     * 4.0 §8.5.7; MPICH 4.0 gives it to rank 0 only, MPI_COMM_NULL elsewhere) */
    int none[2] = {0, 0};
    MPI_Comm alone;
    EXPECT(MPI_Cart_sub(cart, none, &alone) == MPI_SUCCESS);
#ifdef SLUICE_MPI
    EXPECT(MPI_Comm_size(alone, &n) == MPI_SUCCESS && n == 1);
    EXPECT(MPI_Cartdim_get(alone, &nd) == MPI_SUCCESS && nd == 0);
#endif

    /* MPI_Comm_dup keeps the topology */
    MPI_Comm dup;
    EXPECT(MPI_Comm_dup(cart, &dup) == MPI_SUCCESS);
    EXPECT(MPI_Topo_test(dup, &t) == MPI_SUCCESS && t == MPI_CART);
    EXPECT(MPI_Cart_get(dup, 2, gd, gp, gc) == MPI_SUCCESS);
    EXPECT(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0);

    /* errors */
    int c2[2], s1, s2;
    EXPECT(err_class(MPI_Cart_coords(cart, size, 2, c2)) == MPI_ERR_RANK);
    EXPECT(err_class(MPI_Cart_coords(cart, -1, 2, c2)) == MPI_ERR_RANK);
    EXPECT(err_class(MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, c2)) == MPI_ERR_TOPOLOGY);
    EXPECT(err_class(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &s1, &s2)) == MPI_ERR_TOPOLOGY);
    EXPECT(err_class(MPI_Cartdim_get(MPI_COMM_NULL, &nd)) == MPI_ERR_COMM);

    if (alone != MPI_COMM_NULL) EXPECT(MPI_Comm_free(&alone) == MPI_SUCCESS);
    EXPECT(MPI_Comm_free(&dup) == MPI_SUCCESS);
    EXPECT(MPI_Comm_free(&row) == MPI_SUCCESS);
    EXPECT(MPI_Comm_free(&col) == MPI_SUCCESS);
    EXPECT(MPI_Comm_free(&cart) == MPI_SUCCESS);
}

/* Grids that leave ranks out, 0 and 3 dimensions, and bad grids. */
static void test_cart_other(int size)
{
    MPI_Comm c;
    int n, nd, r;
    /* a line of size - 1 (periodic): the last rank is left out */
    if (size > 1) {
        int d = size - 1, p = 1;
        EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 1, &d, &p, 0, &c) == MPI_SUCCESS);
        if (rank_ == size - 1) {
            EXPECT(c == MPI_COMM_NULL);
        } else {
            EXPECT(MPI_Comm_size(c, &n) == MPI_SUCCESS && n == size - 1);
            int src, dst;
            EXPECT(MPI_Cart_shift(c, 0, 1, &src, &dst) == MPI_SUCCESS);
            EXPECT(src == (rank_ + d - 1) % d && dst == (rank_ + 1) % d);
            EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);
        }
    }
    /* 0 dimensions: a grid of one point, rank 0 */
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &c) == MPI_SUCCESS);
    if (rank_ == 0) {
        EXPECT(c != MPI_COMM_NULL);
        EXPECT(MPI_Comm_size(c, &n) == MPI_SUCCESS && n == 1);
        EXPECT(MPI_Cartdim_get(c, &nd) == MPI_SUCCESS && nd == 0);
        EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);
    } else {
        EXPECT(c == MPI_COMM_NULL);
    }
    /* 3 dimensions, none periodic */
    int dims[3] = {0, 0, 0}, per[3] = {0, 0, 0}, co[3], back;
    EXPECT(MPI_Dims_create(size, 3, dims) == MPI_SUCCESS);
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 3, dims, per, 0, &c) == MPI_SUCCESS);
    EXPECT(MPI_Comm_rank(c, &r) == MPI_SUCCESS);
    EXPECT(MPI_Cart_coords(c, r, 3, co) == MPI_SUCCESS);
    EXPECT(co[0] == r / (dims[1] * dims[2]) && co[1] == r / dims[2] % dims[1] &&
           co[2] == r % dims[2]);
    EXPECT(MPI_Cart_rank(c, co, &back) == MPI_SUCCESS && back == r);
    int src, dst;
    EXPECT(MPI_Cart_shift(c, 2, 1, &src, &dst) == MPI_SUCCESS);
    EXPECT(dst == (co[2] + 1 < dims[2] ? r + 1 : MPI_PROC_NULL));
    EXPECT(src == (co[2] > 0 ? r - 1 : MPI_PROC_NULL));
    EXPECT(MPI_Cart_shift(c, 3, 1, &src, &dst) != MPI_SUCCESS); /* no such direction */
    EXPECT(MPI_Cart_shift(c, -1, 1, &src, &dst) != MPI_SUCCESS);
    EXPECT(MPI_Cart_coords(c, r, 2, co) != MPI_SUCCESS); /* maxdims too small */
    EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);
    /* bad grids */
    int big = size + 1, zero = 0, neg = -1, p = 0;
    EXPECT(err_class(MPI_Cart_create(MPI_COMM_WORLD, 1, &big, &p, 0, &c)) == MPI_ERR_ARG);
#ifdef SLUICE_MPI /* MPICH 4.0 accepts them */
    EXPECT(err_class(MPI_Cart_create(MPI_COMM_WORLD, 1, &zero, &p, 0, &c)) == MPI_ERR_DIMS);
    EXPECT(err_class(MPI_Cart_create(MPI_COMM_WORLD, 1, &neg, &p, 0, &c)) == MPI_ERR_DIMS);
#else
    (void)zero;
    (void)neg;
#endif
    EXPECT(err_class(MPI_Cart_create(MPI_COMM_WORLD, -1, &big, &p, 0, &c)) == MPI_ERR_ARG);
}

/* A ring as a graph: node i's neighbours are i - 1 and i + 1. */
static void test_graph(int size)
{
    int *index = malloc(sizeof(int) * (size_t)size),
        *edges = malloc(sizeof(int) * 2 * (size_t)size);
    EXPECT(index && edges);
    for (int i = 0; i < size; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + size - 1) % size;
        edges[2 * i + 1] = (i + 1) % size;
    }
    MPI_Comm g;
    int t, nn, ne, cnt, nb[2];
    EXPECT(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g) == MPI_SUCCESS);
    EXPECT(MPI_Topo_test(g, &t) == MPI_SUCCESS && t == MPI_GRAPH);
    EXPECT(MPI_Graphdims_get(g, &nn, &ne) == MPI_SUCCESS && nn == size && ne == 2 * size);
    EXPECT(MPI_Graph_neighbors_count(g, rank_, &cnt) == MPI_SUCCESS && cnt == 2);
    EXPECT(MPI_Graph_neighbors(g, rank_, 2, nb) == MPI_SUCCESS);
    EXPECT(nb[0] == (rank_ + size - 1) % size && nb[1] == (rank_ + 1) % size);
    int *gi = malloc(sizeof(int) * (size_t)size), *ge = malloc(sizeof(int) * 2 * (size_t)size);
    EXPECT(gi && ge && MPI_Graph_get(g, size, 2 * size, gi, ge) == MPI_SUCCESS);
    EXPECT(memcmp(gi, index, sizeof(int) * (size_t)size) == 0);
    EXPECT(memcmp(ge, edges, sizeof(int) * 2 * (size_t)size) == 0);
    EXPECT(err_class(MPI_Graph_neighbors_count(g, size, &cnt)) == MPI_ERR_RANK);
    EXPECT(err_class(MPI_Graphdims_get(MPI_COMM_WORLD, &nn, &ne)) == MPI_ERR_TOPOLOGY);
    int dims[1];
    EXPECT(err_class(MPI_Cartdim_get(g, dims)) == MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Comm_free(&g) == MPI_SUCCESS);
#ifdef SLUICE_MPI /* MPICH 4.0 does not check */
    edges[0] = size; /* an edge out of the graph */
    EXPECT(err_class(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g)) == MPI_ERR_ARG);
#endif
    free(gi);
    free(ge);
    free(index);
    free(edges);
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* The four neighbour arrays of a distributed graph communicator. */
static void dg_get(MPI_Comm c, int *in, int *out, int *wt, int *src, int *sw, int *dst, int *dw,
                   int max)
{
    EXPECT(MPI_Dist_graph_neighbors_count(c, in, out, wt) == MPI_SUCCESS);
    EXPECT(*in <= max && *out <= max);
    EXPECT(MPI_Dist_graph_neighbors(c, max, src, *wt ? sw : MPI_UNWEIGHTED, max, dst,
                                    *wt ? dw : MPI_UNWEIGHTED) == MPI_SUCCESS);
}

static void test_dist_graph(int size)
{
    int left = (rank_ + size - 1) % size, right = (rank_ + 1) % size, t;
    int in, out, wt, src[64], sw[64], dst[64], dw[64];
    EXPECT(size <= 64);
    MPI_Comm c;

    /* adjacent, weighted: a ring, weights name the edge */
    int sweight = 100 * left + rank_, dweight = 100 * rank_ + right;
    EXPECT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, &sweight, 1, &right, &dweight,
                                          MPI_INFO_NULL, 0, &c) == MPI_SUCCESS);
    EXPECT(MPI_Topo_test(c, &t) == MPI_SUCCESS && t == MPI_DIST_GRAPH);
    dg_get(c, &in, &out, &wt, src, sw, dst, dw, 64);
    EXPECT(in == 1 && out == 1 && wt);
    EXPECT(src[0] == left && sw[0] == sweight && dst[0] == right && dw[0] == dweight);
    int got = -1;
    EXPECT(MPI_Sendrecv(&rank_, 1, MPI_INT, right, 41, &got, 1, MPI_INT, left, 41, c,
                        MPI_STATUS_IGNORE) == MPI_SUCCESS &&
           got == left);
    MPI_Comm dup;
    EXPECT(MPI_Comm_dup(c, &dup) == MPI_SUCCESS);
    dg_get(dup, &in, &out, &wt, src, sw, dst, dw, 64);
    EXPECT(in == 1 && out == 1 && wt && src[0] == left && dw[0] == dweight);
    EXPECT(MPI_Comm_free(&dup) == MPI_SUCCESS);
    EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);

    /* adjacent, unweighted, rank 0 with no edges at all */
    int nin = rank_ ? 1 : 0;
    EXPECT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, &left, MPI_UNWEIGHTED, nin, &left,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c) == MPI_SUCCESS);
#ifndef SLUICE_MPI /* MPICH 4.0 crashes asking a node without edges */
    if (nin)
#endif
    {
        dg_get(c, &in, &out, &wt, src, sw, dst, dw, 64);
        EXPECT(in == nin && out == nin && !wt);
        if (nin) EXPECT(src[0] == left && dst[0] == left);
    }
    EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);

    /* general: rank 0 declares the whole ring i -> i + 1, weight i */
    int n = rank_ == 0 ? size : 0;
    int *sources = malloc(sizeof(int) * (size_t)size),
        *degrees = malloc(sizeof(int) * (size_t)size);
    int *dests = malloc(sizeof(int) * (size_t)size), *weights = malloc(sizeof(int) * (size_t)size);
    EXPECT(sources && degrees && dests && weights);
    for (int i = 0; i < size; i++) {
        sources[i] = i;
        degrees[i] = 1;
        dests[i] = (i + 1) % size;
        weights[i] = i;
    }
    EXPECT(MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests,
                                 rank_ == 0 ? weights : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0,
                                 &c) == MPI_SUCCESS);
    dg_get(c, &in, &out, &wt, src, sw, dst, dw, 64);
    EXPECT(in == 1 && out == 1 && wt);
    EXPECT(src[0] == left && sw[0] == left && dst[0] == right && dw[0] == rank_);
    EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);

    /* general, unweighted: every rank declares its own in-edge from the
     * right and the full fan-out from itself */
    int s2[2] = {right, rank_}, d2[2] = {1, size};
    int *e2 = malloc(sizeof(int) * ((size_t)size + 1));
    EXPECT(e2);
    e2[0] = rank_;
    for (int i = 0; i < size; i++)
        e2[1 + i] = i;
    EXPECT(MPI_Dist_graph_create(MPI_COMM_WORLD, 2, s2, d2, e2, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                 &c) == MPI_SUCCESS);
    dg_get(c, &in, &out, &wt, src, sw, dst, dw, 64);
    EXPECT(!wt && in == size + 1 && out == size + 1);
    /* in: everyone (fan-outs) and my right neighbour once more; out: everyone
     * and my left neighbour (it declared right(left) = me -> it) */
    qsort(src, (size_t)in, sizeof(int), cmp_int);
    qsort(dst, (size_t)out, sizeof(int), cmp_int);
    for (int i = 0, k = 0; i < size; i++) {
        EXPECT(src[k++] == i);
        if (i == right) EXPECT(src[k++] == i);
    }
    for (int i = 0, k = 0; i < size; i++) {
        EXPECT(dst[k++] == i);
        if (i == left) EXPECT(dst[k++] == i);
    }
    EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);

#ifdef SLUICE_MPI /* MPICH 4.0 (Debian) checks none of these */
    /* errors */
    int neg = -1, far = size;
    EXPECT(err_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, neg, &left, MPI_UNWEIGHTED, 0,
                                                    &left, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c)) ==
           MPI_ERR_ARG);
    EXPECT(err_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &far, MPI_UNWEIGHTED, 0,
                                                    &left, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c)) ==
           MPI_ERR_RANK);
    EXPECT(err_class(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank_, &neg, dests, MPI_UNWEIGHTED,
                                           MPI_INFO_NULL, 0, &c)) == MPI_ERR_ARG);
    EXPECT(err_class(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &far, degrees, dests, MPI_UNWEIGHTED,
                                           MPI_INFO_NULL, 0, &c)) == MPI_ERR_RANK);
    EXPECT(err_class(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &in, &out, &wt)) ==
           MPI_ERR_TOPOLOGY);
#endif
    free(e2);
    free(sources);
    free(degrees);
    free(dests);
    free(weights);
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_dims();
    test_cart2d(size);
    test_cart_other(size);
    test_graph(size);
    test_dist_graph(size);
    EXPECT(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank_ == 0) printf("mpi_topo_test: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
