/* The bad-argument table of mpi_badarg_test.c, continued over the calls it
 * does not reach: persistent, non-blocking and neighbourhood collectives,
 * the remaining send modes, type constructors and queries, attributes and
 * keyvals, errors, info, groups, topologies, statuses, the any/some
 * completions and the environment queries.  Each row is one call with one
 * bad argument and the error class MPI 4.0 gives for it, under
 * MPI_ERRORS_RETURN; a singleton.  Fails when a row returns another class
 * (KNOWN rows are reported, not failed; docs/RELIABILITY.md lists them).
 * (MPICH 4.0 cannot run it: it crashes on one of the rows.) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_badarg.h"

static void persistent_and_nonblocking(void)
{
    int b[8] = {0}, r[8] = {0}, c[1] = {1}, d[1] = {0};
    MPI_Datatype ts[1] = {MPI_INT};
    MPI_Request q;
    MPI_Info in = MPI_INFO_NULL;
    MPI_Comm N = MPI_COMM_NULL, W = MPI_COMM_WORLD;
    /* persistent collectives: the communicator, counts, roots, ops */
    T(MPI_ERR_COMM, MPI_Barrier_init(N, in, &q));
    T(MPI_ERR_COMM, MPI_Bcast_init(b, 1, MPI_INT, 0, N, in, &q));
    T(MPI_ERR_ROOT, MPI_Bcast_init(b, 1, MPI_INT, 3, W, in, &q));
    T(MPI_ERR_COUNT, MPI_Gather_init(b, -1, MPI_INT, r, 1, MPI_INT, 0, W, in, &q));
    T(MPI_ERR_COMM, MPI_Gatherv_init(b, 1, MPI_INT, r, c, d, MPI_INT, 0, N, in, &q));
    T(MPI_ERR_ROOT, MPI_Scatter_init(b, 1, MPI_INT, r, 1, MPI_INT, -4, W, in, &q));
    T(MPI_ERR_COMM, MPI_Scatterv_init(b, c, d, MPI_INT, r, 1, MPI_INT, 0, N, in, &q));
    T(MPI_ERR_TYPE, MPI_Allgather_init(b, 1, MPI_DATATYPE_NULL, r, 1, MPI_INT, W, in, &q));
    T(MPI_ERR_COMM, MPI_Allgatherv_init(b, 1, MPI_INT, r, c, d, MPI_INT, N, in, &q));
    T(MPI_ERR_OP, MPI_Allreduce_init(b, r, 1, MPI_INT, MPI_OP_NULL, W, in, &q));
    T(MPI_ERR_COUNT, MPI_Alltoall_init(b, -2, MPI_INT, r, 1, MPI_INT, W, in, &q));
    T(MPI_ERR_COMM, MPI_Alltoallv_init(b, c, d, MPI_INT, r, c, d, MPI_INT, N, in, &q));
    T(MPI_ERR_COMM, MPI_Alltoallw_init(b, c, d, ts, r, c, d, ts, N, in, &q));
    T(MPI_ERR_ROOT, MPI_Reduce_init(b, r, 1, MPI_INT, MPI_SUM, 9, W, in, &q));
    T(MPI_ERR_OP, MPI_Reduce_scatter_init(b, r, c, MPI_INT, MPI_OP_NULL, W, in, &q));
    T(MPI_ERR_COUNT, MPI_Reduce_scatter_block_init(b, r, -1, MPI_INT, MPI_SUM, W, in, &q));
    T(MPI_ERR_COMM, MPI_Scan_init(b, r, 1, MPI_INT, MPI_SUM, N, in, &q));
    T(MPI_ERR_OP, MPI_Exscan_init(b, r, 1, MPI_INT, MPI_OP_NULL, W, in, &q));
    T(MPI_ERR_REQUEST, MPI_Barrier_init(W, in, NULL)); /* as MPI_Isend's */
    /* non-blocking collectives */
    T(MPI_ERR_COMM, MPI_Iallgather(b, 1, MPI_INT, r, 1, MPI_INT, N, &q));
    T(MPI_ERR_COMM, MPI_Iallgatherv(b, 1, MPI_INT, r, c, d, MPI_INT, N, &q));
    T(MPI_ERR_COMM, MPI_Ialltoallv(b, c, d, MPI_INT, r, c, d, MPI_INT, N, &q));
    T(MPI_ERR_COMM, MPI_Ialltoallw(b, c, d, ts, r, c, d, ts, N, &q));
    T(MPI_ERR_OP, MPI_Iexscan(b, r, 1, MPI_INT, MPI_OP_NULL, W, &q));
    T(MPI_ERR_ROOT, MPI_Igather(b, 1, MPI_INT, r, 1, MPI_INT, 5, W, &q));
    T(MPI_ERR_COMM, MPI_Igatherv(b, 1, MPI_INT, r, c, d, MPI_INT, 0, N, &q));
    T(MPI_ERR_ROOT, MPI_Ireduce(b, r, 1, MPI_INT, MPI_SUM, -3, W, &q));
    T(MPI_ERR_OP, MPI_Ireduce_scatter(b, r, c, MPI_INT, MPI_OP_NULL, W, &q));
    T(MPI_ERR_COUNT, MPI_Ireduce_scatter_block(b, r, -1, MPI_INT, MPI_SUM, W, &q));
    T(MPI_ERR_COMM, MPI_Iscan(b, r, 1, MPI_INT, MPI_SUM, N, &q));
    T(MPI_ERR_ROOT, MPI_Iscatter(b, 1, MPI_INT, r, 1, MPI_INT, 2, W, &q));
    T(MPI_ERR_COMM, MPI_Iscatterv(b, c, d, MPI_INT, r, 1, MPI_INT, 0, N, &q));
    T(MPI_ERR_COMM, MPI_Alltoallw(b, c, d, ts, r, c, d, ts, N));
    T(MPI_ERR_REQUEST, MPI_Iallgather(b, 1, MPI_INT, r, 1, MPI_INT, W, NULL));
    /* neighbourhood collectives: on a communicator without a topology */
    T(MPI_ERR_TOPOLOGY, MPI_Neighbor_allgather(b, 1, MPI_INT, r, 1, MPI_INT, W));
    T(MPI_ERR_TOPOLOGY, MPI_Neighbor_allgatherv(b, 1, MPI_INT, r, c, d, MPI_INT, W));
    T(MPI_ERR_TOPOLOGY, MPI_Neighbor_alltoall(b, 1, MPI_INT, r, 1, MPI_INT, W));
    T(MPI_ERR_TOPOLOGY, MPI_Neighbor_alltoallv(b, c, d, MPI_INT, r, c, d, MPI_INT, W));
    T(MPI_ERR_COMM, MPI_Neighbor_alltoallw(b, c, (MPI_Aint[]){0}, ts, r, c, (MPI_Aint[]){0}, ts, N));
    T(MPI_ERR_TOPOLOGY, MPI_Ineighbor_allgather(b, 1, MPI_INT, r, 1, MPI_INT, W, &q));
    T(MPI_ERR_COMM, MPI_Ineighbor_allgatherv(b, 1, MPI_INT, r, c, d, MPI_INT, N, &q));
    T(MPI_ERR_TOPOLOGY, MPI_Ineighbor_alltoall(b, 1, MPI_INT, r, 1, MPI_INT, W, &q));
    T(MPI_ERR_COMM, MPI_Ineighbor_alltoallv(b, c, d, MPI_INT, r, c, d, MPI_INT, N, &q));
    T(MPI_ERR_COMM,
      MPI_Ineighbor_alltoallw(b, c, (MPI_Aint[]){0}, ts, r, c, (MPI_Aint[]){0}, ts, N, &q));
    T(MPI_ERR_COMM, MPI_Neighbor_allgather_init(b, 1, MPI_INT, r, 1, MPI_INT, N, in, &q));
    T(MPI_ERR_COMM, MPI_Neighbor_allgatherv_init(b, 1, MPI_INT, r, c, d, MPI_INT, N, in, &q));
    T(MPI_ERR_COMM, MPI_Neighbor_alltoall_init(b, 1, MPI_INT, r, 1, MPI_INT, N, in, &q));
    T(MPI_ERR_COMM, MPI_Neighbor_alltoallv_init(b, c, d, MPI_INT, r, c, d, MPI_INT, N, in, &q));
    T(MPI_ERR_COMM, MPI_Neighbor_alltoallw_init(b, c, (MPI_Aint[]){0}, ts, r, c, (MPI_Aint[]){0},
                                                ts, N, in, &q));
}

static void send_modes_and_completion(void)
{
    int b[4] = {0};
    MPI_Request q, qs[2];
    MPI_Status st;
    int flag, idx, out, ind[2];
    MPI_Comm W = MPI_COMM_WORLD;
    T(MPI_ERR_COMM, MPI_Ibsend(b, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &q));
    T(MPI_ERR_RANK, MPI_Irsend(b, 1, MPI_INT, 4, 0, W, &q));
    T(MPI_ERR_TAG, MPI_Issend(b, 1, MPI_INT, 0, -2, W, &q));
    T(MPI_ERR_COUNT, MPI_Bsend_init(b, -1, MPI_INT, 0, 0, W, &q));
    T(MPI_ERR_TYPE, MPI_Rsend_init(b, 1, MPI_DATATYPE_NULL, 0, 0, W, &q));
    T(MPI_ERR_COMM, MPI_Ssend_init(b, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &q));
    T(MPI_ERR_COMM, MPI_Sendrecv_replace(b, 1, MPI_INT, 0, 0, 0, 0, MPI_COMM_NULL, &st));
    T(MPI_ERR_RANK, MPI_Sendrecv_replace(b, 1, MPI_INT, 3, 0, 0, 0, W, &st));
    T(MPI_ERR_COMM, MPI_Isendrecv(b, 1, MPI_INT, 0, 0, b + 1, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &q));
    T(MPI_ERR_COUNT, MPI_Isendrecv_replace(b, -1, MPI_INT, 0, 0, 0, 0, W, &q));
    /* the any/some completions: invalid handles, NULL outputs, counts */
    qs[0] = qs[1] = (MPI_Request)0x7abc0123;
    T(MPI_ERR_REQUEST, MPI_Testany(2, qs, &idx, &flag, &st));
    T(MPI_ERR_REQUEST, MPI_Testsome(2, qs, &out, ind, MPI_STATUSES_IGNORE));
    T(MPI_ERR_REQUEST, MPI_Waitsome(2, qs, &out, ind, MPI_STATUSES_IGNORE));
    qs[0] = qs[1] = MPI_REQUEST_NULL;
    T(MPI_ERR_ARG, MPI_Testany(2, qs, NULL, &flag, &st));
    T(MPI_ERR_ARG, MPI_Testsome(2, qs, NULL, ind, MPI_STATUSES_IGNORE));
    T(MPI_ERR_COUNT, MPI_Waitsome(-1, qs, &out, ind, MPI_STATUSES_IGNORE));
    q = (MPI_Request)0x7abc0123;
    T(MPI_ERR_REQUEST, MPI_Request_get_status(q, &flag, &st));
    T(MPI_ERR_ARG, MPI_Request_get_status(MPI_REQUEST_NULL, NULL, &st));
    /* statuses */
    T(MPI_ERR_TYPE, MPI_Get_elements(&st, MPI_DATATYPE_NULL, &flag));
    T(MPI_ERR_ARG, MPI_Get_elements(&st, MPI_INT, NULL));
    T(MPI_ERR_TYPE, MPI_Get_elements_x(&st, MPI_DATATYPE_NULL, &(MPI_Count){0}));
    T(MPI_ERR_ARG, MPI_Status_set_cancelled(NULL, 1));
    T(MPI_ERR_TYPE, MPI_Status_set_elements(&st, MPI_DATATYPE_NULL, 1));
    T(MPI_ERR_TYPE, MPI_Status_set_elements_x(&st, MPI_DATATYPE_NULL, 1));
}

static void types(void)
{
    MPI_Datatype t;
    int bl[2] = {1, 1}, di[2] = {0, 4}, sizes[1] = {4}, sub[1] = {5}, st0[1] = {0};
    MPI_Aint ad[2] = {0, 8}, a, b;
    MPI_Count c1, c2;
    T(MPI_ERR_COUNT, MPI_Type_create_hvector(-1, 1, 8, MPI_INT, &t));
    T(MPI_ERR_TYPE, MPI_Type_create_hvector(1, 1, 8, MPI_DATATYPE_NULL, &t));
    T(MPI_ERR_COUNT, MPI_Type_create_hindexed(-1, bl, ad, MPI_INT, &t));
    T(MPI_ERR_TYPE, MPI_Type_create_hindexed(2, bl, ad, MPI_DATATYPE_NULL, &t));
    T(MPI_ERR_COUNT, MPI_Type_create_indexed_block(-2, 1, di, MPI_INT, &t));
    T(MPI_ERR_TYPE, MPI_Type_create_hindexed_block(2, 1, ad, MPI_DATATYPE_NULL, &t));
    T(MPI_ERR_TYPE, MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 8, &t));
    T(MPI_ERR_ARG, MPI_Type_create_resized(MPI_INT, 0, 8, NULL));
    T(MPI_ERR_ARG, MPI_Type_create_subarray(1, sizes, sub, st0, MPI_ORDER_C, MPI_INT, &t));
    T(MPI_ERR_ARG, MPI_Type_create_subarray(1, sizes, sizes, st0, 12345, MPI_INT, &t));
    T(MPI_ERR_TYPE, MPI_Type_create_darray(1, 0, 1, sizes, (int[]){MPI_DISTRIBUTE_BLOCK},
                                           (int[]){MPI_DISTRIBUTE_DFLT_DARG}, (int[]){1},
                                           MPI_ORDER_C, MPI_DATATYPE_NULL, &t));
    T(MPI_ERR_TYPE, MPI_Type_get_true_extent(MPI_DATATYPE_NULL, &a, &b));
    T(MPI_ERR_ARG, MPI_Type_get_true_extent(MPI_INT, NULL, &b));
    T(MPI_ERR_TYPE, MPI_Type_get_true_extent_x(MPI_DATATYPE_NULL, &c1, &c2));
    T(MPI_ERR_TYPE, MPI_Type_get_extent_x(MPI_DATATYPE_NULL, &c1, &c2));
    T(MPI_ERR_TYPE, MPI_Type_size_x(MPI_DATATYPE_NULL, &c1));
    T(MPI_ERR_ARG, MPI_Type_size_x(MPI_INT, NULL));
    int ni, na, nd, comb;
    T(MPI_ERR_TYPE, MPI_Type_get_envelope(MPI_DATATYPE_NULL, &ni, &na, &nd, &comb));
    T(MPI_ERR_ARG, MPI_Type_get_envelope(MPI_INT, NULL, &na, &nd, &comb));
    /* contents of a predefined type: MPI says erroneous (MPI_ERR_TYPE in MPICH) */
    T(MPI_ERR_TYPE, MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL));
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    T(MPI_ERR_TYPE, MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len));
    T(MPI_ERR_ARG, MPI_Type_get_name(MPI_INT, NULL, &len));
    T(MPI_ERR_TYPE, MPI_Type_set_name(MPI_DATATYPE_NULL, "x"));
    T(MPI_ERR_ARG, MPI_Type_set_name(MPI_INT, NULL));
    T(MPI_ERR_ARG, MPI_Type_match_size(12345, 4, &t));
    T(MPI_ERR_ARG, MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t));
    int ibuf[4] = {0}, pos = 0;
    T(MPI_ERR_TYPE, MPI_Unpack(ibuf, 16, &pos, ibuf, 1, MPI_DATATYPE_NULL, MPI_COMM_WORLD));
    T(MPI_ERR_COUNT, MPI_Unpack(ibuf, 16, &pos, ibuf, -1, MPI_INT, MPI_COMM_WORLD));
    T(MPI_ERR_COMM, MPI_Unpack(ibuf, 16, &pos, ibuf, 1, MPI_INT, MPI_COMM_NULL));
    T(MPI_ERR_COMM, MPI_Pack(ibuf, 1, MPI_INT, ibuf, 16, &pos, MPI_COMM_NULL));
    T(MPI_ERR_COMM, MPI_Pack_size(1, MPI_INT, MPI_COMM_NULL, &pos));
    T(MPI_ERR_ARG, MPI_Get_address(ibuf, NULL));
}

static int copy_fn(MPI_Comm c, int k, void *x, void *in, void *out, int *f)
{
    (void)c, (void)k, (void)x, (void)in, (void)out;
    *f = 0;
    return MPI_SUCCESS;
}

static void attributes_and_errors(void)
{
    int key = MPI_KEYVAL_INVALID, v = 1, flag, n;
    MPI_Comm W = MPI_COMM_WORLD;
    T(MPI_ERR_ARG, MPI_Comm_create_keyval(copy_fn, NULL, NULL, NULL));
    T(MPI_ERR_KEYVAL, MPI_Comm_set_attr(W, MPI_KEYVAL_INVALID, &v));
    T(MPI_ERR_COMM, MPI_Comm_set_attr(MPI_COMM_NULL, MPI_TAG_UB, &v));
    T(MPI_ERR_KEYVAL, MPI_Comm_set_attr(W, MPI_TAG_UB, &v)); /* predefined: read-only */
    T(MPI_ERR_KEYVAL, MPI_Comm_delete_attr(W, MPI_KEYVAL_INVALID));
    T(MPI_ERR_KEYVAL, MPI_Comm_free_keyval(&key));
    T(MPI_ERR_ARG, MPI_Comm_free_keyval(NULL));
    T(MPI_ERR_ARG, MPI_Type_create_keyval(NULL, NULL, NULL, NULL));
    T(MPI_ERR_KEYVAL, MPI_Type_set_attr(MPI_INT, MPI_KEYVAL_INVALID, &v));
    T(MPI_ERR_TYPE, MPI_Type_get_attr(MPI_DATATYPE_NULL, 0, &v, &flag));
    T(MPI_ERR_KEYVAL, MPI_Type_delete_attr(MPI_INT, MPI_KEYVAL_INVALID));
    T(MPI_ERR_KEYVAL, MPI_Type_free_keyval(&key));
    T(MPI_ERR_ARG, MPI_Keyval_create(copy_fn, NULL, NULL, NULL));
    T(MPI_ERR_KEYVAL, MPI_Keyval_free(&key));
    T(MPI_ERR_KEYVAL, MPI_Attr_put(W, MPI_KEYVAL_INVALID, &v));
    T(MPI_ERR_COMM, MPI_Attr_get(MPI_COMM_NULL, MPI_TAG_UB, &v, &flag));
    T(MPI_ERR_KEYVAL, MPI_Attr_delete(W, MPI_KEYVAL_INVALID));
    /* errors: classes, codes, strings */
    T(MPI_ERR_ARG, MPI_Add_error_class(NULL));
    T(MPI_ERR_ARG, MPI_Add_error_code(MPI_ERR_LASTCODE + 7, &n));
    T(MPI_ERR_ARG, MPI_Add_error_code(MPI_ERR_ARG, NULL));
    T(MPI_ERR_ARG, MPI_Add_error_string(MPI_ERR_ARG, "predefined codes keep their text"));
    T(MPI_ERR_COMM, MPI_Comm_call_errhandler(MPI_COMM_NULL, MPI_ERR_ARG));
    MPI_Errhandler eh;
    T(MPI_ERR_COMM, MPI_Comm_get_errhandler(MPI_COMM_NULL, &eh));
    T(MPI_ERR_ARG, MPI_Comm_get_errhandler(W, NULL));
    T(MPI_ERR_ARG, MPI_Errhandler_create(NULL, &eh));
    T(MPI_ERR_COMM, MPI_Errhandler_set(MPI_COMM_NULL, MPI_ERRORS_RETURN));
    T(MPI_ERR_ARG, MPI_Errhandler_get(W, NULL));
}

static void comms_groups_info(void)
{
    MPI_Comm W = MPI_COMM_WORLD, nc;
    MPI_Group g, ng;
    MPI_Info inf, ni;
    MPI_Request q;
    int n, flag, range[1][3] = {{0, 5, 1}};
    char name[MPI_MAX_OBJECT_NAME], val[8];
    MPI_Comm_group(W, &g);
    T(MPI_ERR_COMM, MPI_Comm_dup_with_info(MPI_COMM_NULL, MPI_INFO_NULL, &nc));
    T(MPI_ERR_INFO, MPI_Comm_dup_with_info(W, (MPI_Info)0x7abcdef1, &nc));
    T(MPI_ERR_COMM, MPI_Comm_idup(MPI_COMM_NULL, &nc, &q));
    T(MPI_ERR_COMM, MPI_Comm_get_info(MPI_COMM_NULL, &inf));
    T(MPI_ERR_INFO, MPI_Comm_set_info(W, (MPI_Info)0x7abcdef1));
    T(MPI_ERR_COMM, MPI_Comm_get_name(MPI_COMM_NULL, name, &n));
    T(MPI_ERR_ARG, MPI_Comm_get_name(W, NULL, &n));
    T(MPI_ERR_COMM, MPI_Comm_split_type(MPI_COMM_NULL, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &nc));
    T(MPI_ERR_ARG, MPI_Comm_split_type(W, 12345, 0, MPI_INFO_NULL, &nc));
    T(MPI_ERR_COMM, MPI_Comm_test_inter(MPI_COMM_NULL, &flag));
    T(MPI_ERR_ARG, MPI_Comm_test_inter(W, NULL));
    T(MPI_ERR_COMM, MPI_Comm_create_group(MPI_COMM_NULL, g, 0, &nc));
    T(MPI_ERR_GROUP, MPI_Comm_create_group(W, MPI_GROUP_NULL, 0, &nc));
    T(MPI_ERR_GROUP, MPI_Group_difference(MPI_GROUP_NULL, g, &ng));
    T(MPI_ERR_GROUP, MPI_Group_intersection(g, MPI_GROUP_NULL, &ng));
    T(MPI_ERR_ARG, MPI_Group_range_excl(g, 1, range, &ng)); /* ranks 0..5 of a 1-rank group */
    T(MPI_ERR_GROUP, MPI_Group_range_excl(MPI_GROUP_NULL, 1, range, &ng));
    T(MPI_ERR_INFO, MPI_Info_dup(MPI_INFO_NULL, &ni));
    T(MPI_ERR_INFO, MPI_Info_get(MPI_INFO_NULL, "k", 8, val, &flag));
    T(MPI_ERR_INFO, MPI_Info_get_nkeys(MPI_INFO_NULL, &n));
    T(MPI_ERR_INFO, MPI_Info_get_string(MPI_INFO_NULL, "k", &n, val, &flag));
    T(MPI_ERR_INFO, MPI_Info_get_valuelen(MPI_INFO_NULL, "k", &n, &flag));
    MPI_Info_create(&inf);
    T(MPI_ERR_INFO_KEY, MPI_Info_get(inf, "", 8, val, &flag));
    T(MPI_ERR_ARG, MPI_Info_get(inf, "k", -1, val, &flag));
    T(MPI_ERR_ARG, MPI_Info_get_nkeys(inf, NULL));
    MPI_Info_free(&inf);
    MPI_Group_free(&g);
}

static void topologies(void)
{
    MPI_Comm W = MPI_COMM_WORLD, nc;
    int n, dims[2], periods[2], coords[2], nb[4], w[4];
    T(MPI_ERR_TOPOLOGY, MPI_Cart_get(W, 2, dims, periods, coords));
    T(MPI_ERR_TOPOLOGY, MPI_Cart_sub(W, (int[]){1}, &nc));
    T(MPI_ERR_TOPOLOGY, MPI_Cartdim_get(W, &n));
    T(MPI_ERR_COMM, MPI_Cart_map(MPI_COMM_NULL, 1, (int[]){1}, (int[]){0}, &n));
    KNOWN(MPI_ERR_DIMS, MPI_Cart_map(W, -1, (int[]){1}, (int[]){0}, &n)); /* MPI_ERR_ARG, as MPICH */
    T(MPI_ERR_COMM, MPI_Graph_create(MPI_COMM_NULL, 1, (int[]){0}, NULL, 0, &nc));
    T(MPI_ERR_ARG, MPI_Graph_create(W, -1, (int[]){0}, NULL, 0, &nc));
    T(MPI_ERR_TOPOLOGY, MPI_Graph_get(W, 1, 1, nb, w));
    T(MPI_ERR_TOPOLOGY, MPI_Graph_neighbors(W, 0, 4, nb));
    T(MPI_ERR_TOPOLOGY, MPI_Graphdims_get(W, &n, &n));
    T(MPI_ERR_COMM, MPI_Graph_map(MPI_COMM_NULL, 1, (int[]){0}, NULL, &n));
    T(MPI_ERR_COMM, MPI_Topo_test(MPI_COMM_NULL, &n));
    T(MPI_ERR_ARG, MPI_Topo_test(W, NULL));
    T(MPI_ERR_COMM, MPI_Dist_graph_create_adjacent(MPI_COMM_NULL, 0, NULL, MPI_UNWEIGHTED, 0, NULL,
                                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &nc));
    T(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(W, -1, NULL, MPI_UNWEIGHTED, 0, NULL,
                                                  MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &nc));
    T(MPI_ERR_COMM, MPI_Dist_graph_create(MPI_COMM_NULL, 0, NULL, NULL, NULL, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &nc));
    T(MPI_ERR_ARG, MPI_Dist_graph_create(W, -1, NULL, NULL, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                         &nc));
    T(MPI_ERR_TOPOLOGY, MPI_Dist_graph_neighbors_count(W, &n, &n, &n));
    T(MPI_ERR_TOPOLOGY, MPI_Dist_graph_neighbors(W, 1, nb, w, 1, nb, w));
}

static void environment(void)
{
    int a, b, len;
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    T(MPI_ERR_ARG, MPI_Finalized(NULL));
    T(MPI_ERR_ARG, MPI_Get_version(NULL, &b));
    T(MPI_ERR_ARG, MPI_Get_library_version(NULL, &len));
    T(MPI_ERR_ARG, MPI_Get_library_version(v, NULL));
    T(MPI_ERR_ARG, MPI_Query_thread(NULL));
    T(MPI_ERR_ARG, MPI_Is_thread_main(NULL));
    int sz;
    void *p;
    T(MPI_ERR_ARG, MPI_Buffer_detach(NULL, &sz)); /* nothing attached */
    (void)a, (void)p;
}

int main(int argc, char **argv)
{
    badarg_init(&argc, &argv, "mpi_badarg_more_test");
    persistent_and_nonblocking();
    send_modes_and_completion();
    types();
    attributes_and_errors();
    comms_groups_info();
    topologies();
    environment();
    printf("mpi_badarg_more: %d calls, %d returned the class the standard gives, %d unexpected\n",
           tried, matched, unexpected);
    MPI_Finalize();
    return unexpected ? 1 : 0;
}
