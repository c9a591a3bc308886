/* The bad-argument table of mpi.h, continued over the MPI-4 large-count
 * (_c) functions (src/mpi/large_*.c): each row is one call with one bad
 * argument and the error class MPI 4.0 gives for it, under
 * MPI_ERRORS_RETURN; a singleton.  Besides the arguments the int forms
 * check (the _c functions hand them on), the rows aim at what only the _c
 * forms see: counts beyond INT_MAX with a bad communicator, datatype or
 * op (the made type must not hide the error), counts whose byte size
 * does not fit 64 bits, and count or displacement array entries beyond
 * int.  Fails when a row returns another class (KNOWN rows are reported,
 * not failed; docs/RELIABILITY.md lists them). */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_badarg.h"

#define BIG ((MPI_Count)1 << 40)        /* elements: no buffer behind it is ever touched */
#define HUGE_N (((MPI_Count)1 << 61) - 1) /* 8-byte elements: 2^64 bytes, past MPI_Count */

static void point_to_point(void)
{
    int b[8] = {0};
    MPI_Request q;
    MPI_Status st;
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Comm N = MPI_COMM_NULL, W = MPI_COMM_WORLD;
    T(MPI_ERR_COUNT, MPI_Send_c(b, -1, MPI_INT, 0, 0, W));
    T(MPI_ERR_COMM, MPI_Send_c(b, BIG, MPI_INT, 0, 0, N));
    T(MPI_ERR_TYPE, MPI_Send_c(b, BIG, MPI_DATATYPE_NULL, 0, 0, W));
    T(MPI_ERR_RANK, MPI_Send_c(b, BIG, MPI_INT, 5, 0, W));
    T(MPI_ERR_COUNT, MPI_Send_c(b, HUGE_N, MPI_DOUBLE, 0, 0, W));
    T(MPI_ERR_COUNT, MPI_Send_c(b, LLONG_MIN, MPI_INT, 0, 0, W));
    T(MPI_ERR_TAG, MPI_Recv_c(b, 1, MPI_INT, 0, -5, W, &st));
    T(MPI_ERR_COMM, MPI_Recv_c(b, BIG, MPI_INT, 0, 0, N, &st));
    T(MPI_ERR_COUNT, MPI_Recv_c(b, HUGE_N, MPI_DOUBLE, 0, 0, W, &st));
    T(MPI_ERR_RANK, MPI_Isend_c(b, 1, MPI_INT, 3, 0, W, &q));
    T(MPI_ERR_REQUEST, MPI_Isend_c(b, 1, MPI_INT, 0, 0, W, NULL));
    T(MPI_ERR_COMM, MPI_Irecv_c(b, BIG, MPI_INT, 0, 0, N, &q));
    T(MPI_ERR_COUNT, MPI_Irecv_c(b, -7, MPI_INT, 0, 0, W, &q));
    T(MPI_ERR_TYPE, MPI_Ssend_c(b, 1, MPI_DATATYPE_NULL, 0, 0, W));
    T(MPI_ERR_TAG, MPI_Issend_c(b, 1, MPI_INT, 0, -1, W, &q));
    T(MPI_ERR_COMM, MPI_Rsend_c(b, 1, MPI_INT, 0, 0, N));
    T(MPI_ERR_RANK, MPI_Irsend_c(b, 1, MPI_INT, 2, 0, W, &q));
    T(MPI_ERR_COUNT, MPI_Bsend_c(b, -1, MPI_INT, 0, 0, W));
    T(MPI_ERR_COMM, MPI_Ibsend_c(b, BIG, MPI_INT, 0, 0, N, &q));
    T(MPI_ERR_COMM, MPI_Send_init_c(b, 1, MPI_INT, 0, 0, N, &q));
    T(MPI_ERR_TYPE, MPI_Recv_init_c(b, BIG, MPI_DATATYPE_NULL, 0, 0, W, &q));
    T(MPI_ERR_COUNT, MPI_Ssend_init_c(b, -3, MPI_INT, 0, 0, W, &q));
    T(MPI_ERR_RANK, MPI_Rsend_init_c(b, 1, MPI_INT, 9, 0, W, &q));
    T(MPI_ERR_TAG, MPI_Bsend_init_c(b, 1, MPI_INT, 0, -9, W, &q));
    T(MPI_ERR_COMM, MPI_Sendrecv_c(b, 1, MPI_INT, 0, 0, b + 1, BIG, MPI_INT, 0, 0, N, &st));
    T(MPI_ERR_TYPE, MPI_Sendrecv_c(b, BIG, MPI_DATATYPE_NULL, 0, 0, b + 1, 1, MPI_INT, 0, 0, W, &st));
    T(MPI_ERR_COUNT, MPI_Sendrecv_c(b, 1, MPI_INT, 0, 0, b + 1, HUGE_N, MPI_DOUBLE, 0, 0, W, &st));
    T(MPI_ERR_COMM, MPI_Sendrecv_replace_c(b, BIG, MPI_INT, 0, 0, 0, 0, N, &st));
    T(MPI_ERR_RANK, MPI_Isendrecv_c(b, 1, MPI_INT, 4, 0, b + 1, 1, MPI_INT, 0, 0, W, &q));
    T(MPI_ERR_COUNT, MPI_Isendrecv_replace_c(b, -2, MPI_INT, 0, 0, 0, 0, W, &q));
    T(MPI_ERR_ARG, MPI_Mrecv_c(b, 1, MPI_INT, NULL, &st)); /* as MPI_Mrecv's */
    T(MPI_ERR_REQUEST, MPI_Imrecv_c(b, 1, MPI_INT, &m, &q)); /* MPI_MESSAGE_NULL: not receivable */
    T(MPI_ERR_REQUEST, MPI_Mrecv_c(b, BIG, MPI_INT, &m, &st));
    /* statuses */
    MPI_Count n;
    T(MPI_ERR_TYPE, MPI_Get_count_c(&st, MPI_DATATYPE_NULL, &n));
    T(MPI_ERR_ARG, MPI_Get_count_c(&st, MPI_INT, NULL));
    T(MPI_ERR_ARG, MPI_Get_count_c(NULL, MPI_INT, &n));
    T(MPI_ERR_TYPE, MPI_Get_elements_c(&st, MPI_DATATYPE_NULL, &n));
    T(MPI_ERR_ARG, MPI_Get_elements_c(&st, MPI_INT, NULL));
    /* the buffer of buffered mode */
    T(MPI_ERR_COUNT, MPI_Buffer_attach_c(b, BIG));
    T(MPI_ERR_BUFFER, MPI_Buffer_attach_c(NULL, 1024)); /* as MPI_Buffer_attach's */
    T(MPI_ERR_ARG, MPI_Buffer_attach_c(b, -1));
    T(MPI_ERR_ARG, MPI_Buffer_detach_c(b, NULL));
}

static void rooted(void)
{
    char b[64] = {0}, r[64] = {0};
    MPI_Count c[1] = {1}, cbig[1] = {BIG};
    MPI_Aint d[1] = {0}, dbig[1] = {(MPI_Aint)1 << 40};
    MPI_Request q;
    MPI_Info in = MPI_INFO_NULL;
    MPI_Comm N = MPI_COMM_NULL, W = MPI_COMM_WORLD;
    T(MPI_ERR_ROOT, MPI_Bcast_c(b, 1, MPI_INT, 1, W));
    T(MPI_ERR_COMM, MPI_Bcast_c(b, BIG, MPI_INT, 0, N));
    T(MPI_ERR_COUNT, MPI_Ibcast_c(b, -1, MPI_INT, 0, W, &q));
    T(MPI_ERR_TYPE, MPI_Bcast_init_c(b, BIG, MPI_DATATYPE_NULL, 0, W, in, &q));
    T(MPI_ERR_COUNT, MPI_Bcast_c(b, HUGE_N, MPI_DOUBLE, 0, W));
    T(MPI_ERR_ROOT, MPI_Gather_c(b, 1, MPI_INT, r, 1, MPI_INT, -2, W));
    T(MPI_ERR_COMM, MPI_Igather_c(b, BIG, MPI_INT, r, BIG, MPI_INT, 0, N, &q));
    T(MPI_ERR_COUNT, MPI_Gather_init_c(b, -1, MPI_INT, r, 1, MPI_INT, 0, W, in, &q));
    T(MPI_ERR_TYPE, MPI_Scatter_c(b, 1, MPI_DATATYPE_NULL, r, 1, MPI_INT, 0, W));
    T(MPI_ERR_ROOT, MPI_Iscatter_c(b, 1, MPI_INT, r, 1, MPI_INT, 7, W, &q));
    T(MPI_ERR_COMM, MPI_Scatter_init_c(b, 1, MPI_INT, r, 1, MPI_INT, 0, N, in, &q));
    T(MPI_ERR_COMM, MPI_Gatherv_c(b, 1, MPI_CHAR, r, c, d, MPI_CHAR, 0, N));
    T(MPI_ERR_COUNT, MPI_Gatherv_c(b, 1, MPI_CHAR, r, cbig, d, MPI_CHAR, 0, W));
    T(MPI_ERR_COUNT, MPI_Igatherv_c(b, 1, MPI_CHAR, r, c, dbig, MPI_CHAR, 0, W, &q));
    T(MPI_ERR_ROOT, MPI_Gatherv_init_c(b, 1, MPI_CHAR, r, c, d, MPI_CHAR, 3, W, in, &q));
    T(MPI_ERR_ARG, MPI_Gatherv_c(b, 1, MPI_CHAR, r, NULL, d, MPI_CHAR, 0, W));
    T(MPI_ERR_COMM, MPI_Scatterv_c(b, c, d, MPI_CHAR, r, 1, MPI_CHAR, 0, N));
    T(MPI_ERR_COUNT, MPI_Iscatterv_c(b, cbig, d, MPI_CHAR, r, 1, MPI_CHAR, 0, W, &q));
    T(MPI_ERR_ROOT, MPI_Scatterv_init_c(b, c, d, MPI_CHAR, r, 1, MPI_CHAR, -9, W, in, &q));
    T(MPI_ERR_ARG, MPI_Scatterv_c(b, c, NULL, MPI_CHAR, r, 1, MPI_CHAR, 0, W));
    T(MPI_ERR_ROOT, MPI_Reduce_c(b, r, 1, MPI_INT, MPI_SUM, 2, W));
    T(MPI_ERR_OP, MPI_Reduce_c(b, r, BIG, MPI_INT, MPI_OP_NULL, 0, W));
    T(MPI_ERR_COMM, MPI_Ireduce_c(b, r, BIG, MPI_INT, MPI_SUM, 0, N, &q));
    T(MPI_ERR_COUNT, MPI_Reduce_init_c(b, r, -1, MPI_INT, MPI_SUM, 0, W, in, &q));
}

static void unrooted(void)
{
    char b[64] = {0}, r[64] = {0};
    MPI_Count c[1] = {1}, cbig[1] = {BIG}, cneg[1] = {-1};
    MPI_Aint d[1] = {0};
    MPI_Datatype ts[1] = {MPI_CHAR}, tnull[1] = {MPI_DATATYPE_NULL};
    MPI_Request q;
    MPI_Info in = MPI_INFO_NULL;
    MPI_Comm N = MPI_COMM_NULL, W = MPI_COMM_WORLD;
    T(MPI_ERR_COMM, MPI_Allgather_c(b, BIG, MPI_INT, r, BIG, MPI_INT, N));
    T(MPI_ERR_COUNT, MPI_Iallgather_c(b, -1, MPI_INT, r, 1, MPI_INT, W, &q));
    T(MPI_ERR_TYPE, MPI_Allgather_init_c(b, 1, MPI_DATATYPE_NULL, r, 1, MPI_INT, W, in, &q));
    T(MPI_ERR_COMM, MPI_Alltoall_c(b, 1, MPI_INT, r, 1, MPI_INT, N));
    T(MPI_ERR_TYPE, MPI_Ialltoall_c(b, BIG, MPI_INT, r, BIG, MPI_DATATYPE_NULL, W, &q));
    T(MPI_ERR_COUNT, MPI_Alltoall_init_c(b, 1, MPI_INT, r, -4, MPI_INT, W, in, &q));
    T(MPI_ERR_COMM, MPI_Allgatherv_c(b, 1, MPI_CHAR, r, c, d, MPI_CHAR, N));
    T(MPI_ERR_COUNT, MPI_Iallgatherv_c(b, 1, MPI_CHAR, r, cbig, d, MPI_CHAR, W, &q));
    T(MPI_ERR_COUNT, MPI_Allgatherv_init_c(b, 1, MPI_CHAR, r, cneg, d, MPI_CHAR, W, in, &q));
    T(MPI_ERR_COMM, MPI_Alltoallv_c(b, c, d, MPI_CHAR, r, c, d, MPI_CHAR, N));
    T(MPI_ERR_COUNT, MPI_Ialltoallv_c(b, cbig, d, MPI_CHAR, r, c, d, MPI_CHAR, W, &q));
    T(MPI_ERR_TYPE, MPI_Alltoallv_init_c(b, c, d, MPI_DATATYPE_NULL, r, c, d, MPI_CHAR, W, in, &q));
    T(MPI_ERR_ARG, MPI_Alltoallv_c(b, NULL, d, MPI_CHAR, r, c, d, MPI_CHAR, W));
    T(MPI_ERR_COMM, MPI_Alltoallw_c(b, c, d, ts, r, c, d, ts, N));
    T(MPI_ERR_TYPE, MPI_Ialltoallw_c(b, c, d, tnull, r, c, d, ts, W, &q));
    T(MPI_ERR_COUNT, MPI_Alltoallw_init_c(b, c, d, ts, r, cbig, d, ts, W, in, &q));
    T(MPI_ERR_OP, MPI_Allreduce_c(b, r, 1, MPI_INT, MPI_OP_NULL, W));
    T(MPI_ERR_COMM, MPI_Iallreduce_c(b, r, BIG, MPI_INT, MPI_SUM, N, &q));
    T(MPI_ERR_COUNT, MPI_Allreduce_init_c(b, r, -1, MPI_INT, MPI_SUM, W, in, &q));
    T(MPI_ERR_COUNT, MPI_Allreduce_c(b, r, HUGE_N, MPI_DOUBLE, MPI_SUM, W));
    T(MPI_ERR_COMM, MPI_Scan_c(b, r, 1, MPI_INT, MPI_SUM, N));
    T(MPI_ERR_OP, MPI_Iscan_c(b, r, BIG, MPI_INT, MPI_OP_NULL, W, &q));
    T(MPI_ERR_TYPE, MPI_Scan_init_c(b, r, 1, MPI_DATATYPE_NULL, MPI_SUM, W, in, &q));
    T(MPI_ERR_COUNT, MPI_Exscan_c(b, r, -1, MPI_INT, MPI_SUM, W));
    T(MPI_ERR_COMM, MPI_Iexscan_c(b, r, BIG, MPI_INT, MPI_SUM, N, &q));
    T(MPI_ERR_OP, MPI_Exscan_init_c(b, r, 1, MPI_INT, MPI_OP_NULL, W, in, &q));
    T(MPI_ERR_COUNT, MPI_Reduce_scatter_block_c(b, r, -1, MPI_INT, MPI_SUM, W));
    T(MPI_ERR_COMM, MPI_Ireduce_scatter_block_c(b, r, BIG, MPI_INT, MPI_SUM, N, &q));
    T(MPI_ERR_OP, MPI_Reduce_scatter_block_init_c(b, r, 1, MPI_INT, MPI_OP_NULL, W, in, &q));
    T(MPI_ERR_COMM, MPI_Reduce_scatter_c(b, r, c, MPI_INT, MPI_SUM, N));
    T(MPI_ERR_COUNT, MPI_Ireduce_scatter_c(b, r, cbig, MPI_INT, MPI_SUM, W, &q));
    T(MPI_ERR_ARG, MPI_Reduce_scatter_init_c(b, r, NULL, MPI_INT, MPI_SUM, W, in, &q));
    T(MPI_ERR_OP, MPI_Reduce_local_c(b, r, 1, MPI_INT, MPI_OP_NULL));
    T(MPI_ERR_COUNT, MPI_Reduce_local_c(b, r, -1, MPI_INT, MPI_SUM));
    T(MPI_ERR_TYPE, MPI_Reduce_local_c(b, r, BIG, MPI_DATATYPE_NULL, MPI_SUM));
    T(MPI_ERR_COUNT, MPI_Reduce_local_c(b, r, HUGE_N, MPI_DOUBLE, MPI_SUM));
}

/* On WORLD, which has no topology: MPI_ERR_TOPOLOGY; on a null
 * communicator MPI_ERR_COMM. */
static void neighbourhood(void)
{
    char b[8] = {0}, r[8] = {0};
    MPI_Count c[1] = {1};
    MPI_Aint d[1] = {0};
    MPI_Datatype ts[1] = {MPI_CHAR};
    MPI_Request q;
    MPI_Info in = MPI_INFO_NULL;
    MPI_Comm N = MPI_COMM_NULL, W = MPI_COMM_WORLD;
    T(MPI_ERR_TOPOLOGY, MPI_Neighbor_allgather_c(b, 1, MPI_CHAR, r, 1, MPI_CHAR, W));
    T(MPI_ERR_COMM, MPI_Ineighbor_allgather_c(b, BIG, MPI_CHAR, r, BIG, MPI_CHAR, N, &q));
    T(MPI_ERR_TOPOLOGY, MPI_Neighbor_allgather_init_c(b, 1, MPI_CHAR, r, 1, MPI_CHAR, W, in, &q));
    T(MPI_ERR_COMM, MPI_Neighbor_allgatherv_c(b, 1, MPI_CHAR, r, c, d, MPI_CHAR, N));
    T(MPI_ERR_TOPOLOGY, MPI_Ineighbor_allgatherv_c(b, 1, MPI_CHAR, r, c, d, MPI_CHAR, W, &q));
    T(MPI_ERR_COMM, MPI_Neighbor_allgatherv_init_c(b, 1, MPI_CHAR, r, c, d, MPI_CHAR, N, in, &q));
    T(MPI_ERR_TOPOLOGY, MPI_Neighbor_alltoall_c(b, 1, MPI_CHAR, r, 1, MPI_CHAR, W));
    T(MPI_ERR_COMM, MPI_Ineighbor_alltoall_c(b, 1, MPI_CHAR, r, 1, MPI_CHAR, N, &q));
    T(MPI_ERR_TOPOLOGY, MPI_Neighbor_alltoall_init_c(b, 1, MPI_CHAR, r, 1, MPI_CHAR, W, in, &q));
    T(MPI_ERR_COMM, MPI_Neighbor_alltoallv_c(b, c, d, MPI_CHAR, r, c, d, MPI_CHAR, N));
    T(MPI_ERR_TOPOLOGY, MPI_Ineighbor_alltoallv_c(b, c, d, MPI_CHAR, r, c, d, MPI_CHAR, W, &q));
    T(MPI_ERR_COMM,
      MPI_Neighbor_alltoallv_init_c(b, c, d, MPI_CHAR, r, c, d, MPI_CHAR, N, in, &q));
    T(MPI_ERR_TOPOLOGY, MPI_Neighbor_alltoallw_c(b, c, d, ts, r, c, d, ts, W));
    T(MPI_ERR_COMM, MPI_Ineighbor_alltoallw_c(b, c, d, ts, r, c, d, ts, N, &q));
    T(MPI_ERR_TOPOLOGY, MPI_Neighbor_alltoallw_init_c(b, c, d, ts, r, c, d, ts, W, in, &q));
}

static void types(void)
{
    MPI_Datatype t;
    MPI_Count bl[2] = {1, 1}, di[2] = {0, 4}, bigl[2] = {1, BIG}, sz[1] = {4}, sub[1] = {5};
    MPI_Count st0[1] = {0}, c1, c2;
    MPI_Datatype ts[2] = {MPI_INT, MPI_DATATYPE_NULL};
    T(MPI_ERR_TYPE, MPI_Type_size_c(MPI_DATATYPE_NULL, &c1));
    T(MPI_ERR_ARG, MPI_Type_size_c(MPI_INT, NULL));
    T(MPI_ERR_TYPE, MPI_Type_get_extent_c(MPI_DATATYPE_NULL, &c1, &c2));
    T(MPI_ERR_ARG, MPI_Type_get_extent_c(MPI_INT, NULL, &c2));
    T(MPI_ERR_TYPE, MPI_Type_get_true_extent_c(MPI_DATATYPE_NULL, &c1, &c2));
    T(MPI_ERR_ARG, MPI_Type_get_true_extent_c(MPI_INT, &c1, NULL));
    T(MPI_ERR_COUNT, MPI_Type_contiguous_c(-1, MPI_INT, &t));
    T(MPI_ERR_TYPE, MPI_Type_contiguous_c(BIG, MPI_DATATYPE_NULL, &t));
    T(MPI_ERR_ARG, MPI_Type_contiguous_c(BIG, MPI_INT, NULL));
    T(MPI_ERR_COUNT, MPI_Type_contiguous_c(HUGE_N, MPI_DOUBLE, &t));
    T(MPI_ERR_COUNT, MPI_Type_contiguous_c(LLONG_MIN, MPI_INT, &t));
    T(MPI_ERR_COUNT, MPI_Type_vector_c(-1, 1, 1, MPI_INT, &t));
    T(MPI_ERR_COUNT, MPI_Type_vector_c(2, BIG, 1, MPI_INT, &t));
    T(MPI_ERR_TYPE, MPI_Type_vector_c(2, 1, 1, MPI_DATATYPE_NULL, &t));
    T(MPI_ERR_COUNT, MPI_Type_create_hvector_c(BIG, 1, 8, MPI_INT, &t));
    T(MPI_ERR_ARG, MPI_Type_create_hvector_c(1, 1, 8, MPI_INT, NULL));
    T(MPI_ERR_COUNT, MPI_Type_indexed_c(-1, bl, di, MPI_INT, &t));
    T(MPI_ERR_COUNT, MPI_Type_indexed_c(2, bigl, di, MPI_INT, &t));
    T(MPI_ERR_ARG, MPI_Type_indexed_c(2, NULL, di, MPI_INT, &t));
    T(MPI_ERR_ARG, MPI_Type_indexed_c(2, bl, NULL, MPI_INT, &t));
    T(MPI_ERR_TYPE, MPI_Type_create_hindexed_c(2, bl, di, MPI_DATATYPE_NULL, &t));
    T(MPI_ERR_ARG, MPI_Type_create_hindexed_c(2, bl, NULL, MPI_INT, &t));
    T(MPI_ERR_COUNT, MPI_Type_create_indexed_block_c(2, BIG, di, MPI_INT, &t));
    T(MPI_ERR_ARG, MPI_Type_create_indexed_block_c(2, 1, NULL, MPI_INT, &t));
    T(MPI_ERR_COUNT, MPI_Type_create_hindexed_block_c(-2, 1, di, MPI_INT, &t));
    T(MPI_ERR_TYPE, MPI_Type_create_hindexed_block_c(2, 1, di, MPI_DATATYPE_NULL, &t));
    T(MPI_ERR_TYPE, MPI_Type_create_struct_c(2, bl, di, ts, &t));
    T(MPI_ERR_COUNT, MPI_Type_create_struct_c(2, bigl, di, (MPI_Datatype[]){MPI_INT, MPI_INT}, &t));
    T(MPI_ERR_ARG, MPI_Type_create_struct_c(2, bl, di, NULL, &t));
    T(MPI_ERR_TYPE, MPI_Type_create_resized_c(MPI_DATATYPE_NULL, 0, 8, &t));
    T(MPI_ERR_ARG, MPI_Type_create_resized_c(MPI_INT, 0, 8, NULL));
    T(MPI_ERR_ARG, MPI_Type_create_subarray_c(1, sz, sub, st0, MPI_ORDER_C, MPI_INT, &t));
    T(MPI_ERR_TYPE, MPI_Type_create_subarray_c(1, sz, sz, st0, MPI_ORDER_C, MPI_DATATYPE_NULL, &t));
    T(MPI_ERR_TYPE, MPI_Type_create_darray_c(1, 0, 1, sz, (int[]){MPI_DISTRIBUTE_BLOCK},
                                             (int[]){MPI_DISTRIBUTE_DFLT_DARG}, (int[]){1},
                                             MPI_ORDER_C, MPI_DATATYPE_NULL, &t));
    T(MPI_ERR_ARG, MPI_Type_create_darray_c(1, 0, 1, sz, (int[]){MPI_DISTRIBUTE_BLOCK},
                                            (int[]){MPI_DISTRIBUTE_DFLT_DARG}, (int[]){1}, 777,
                                            MPI_INT, &t));
    MPI_Count ni, na, nl, nd;
    int comb;
    T(MPI_ERR_TYPE, MPI_Type_get_envelope_c(MPI_DATATYPE_NULL, &ni, &na, &nl, &nd, &comb));
    T(MPI_ERR_ARG, MPI_Type_get_envelope_c(MPI_INT, &ni, &na, &nl, &nd, NULL));
    T(MPI_ERR_TYPE, MPI_Type_get_contents_c(MPI_INT, 0, 0, 0, 0, NULL, NULL, NULL, NULL));
    T(MPI_ERR_TYPE, MPI_Type_get_contents_c(MPI_DATATYPE_NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL));
    MPI_Op op;
    T(MPI_ERR_ARG, MPI_Op_create_c(NULL, 1, &op));
}

static void packing(void)
{
    int ibuf[4] = {0};
    char out[16];
    MPI_Count pos = 0, sz;
    MPI_Comm N = MPI_COMM_NULL, W = MPI_COMM_WORLD;
    T(MPI_ERR_COMM, MPI_Pack_c(ibuf, 1, MPI_INT, out, 16, &pos, N));
    T(MPI_ERR_COUNT, MPI_Pack_c(ibuf, -1, MPI_INT, out, 16, &pos, W));
    T(MPI_ERR_TYPE, MPI_Pack_c(ibuf, 1, MPI_DATATYPE_NULL, out, 16, &pos, W));
    T(MPI_ERR_ARG, MPI_Pack_c(ibuf, 1, MPI_INT, out, 16, NULL, W));
    T(MPI_ERR_TRUNCATE, MPI_Pack_c(ibuf, 4, MPI_INT, out, 8, &pos, W));
    pos = -1;
    T(MPI_ERR_ARG, MPI_Pack_c(ibuf, 1, MPI_INT, out, 16, &pos, W));
    pos = 0;
    T(MPI_ERR_COMM, MPI_Unpack_c(out, 16, &pos, ibuf, 1, MPI_INT, N));
    T(MPI_ERR_COUNT, MPI_Unpack_c(out, 16, &pos, ibuf, -1, MPI_INT, W));
    T(MPI_ERR_TYPE, MPI_Unpack_c(out, 16, &pos, ibuf, 1, MPI_DATATYPE_NULL, W));
    T(MPI_ERR_TRUNCATE, MPI_Unpack_c(out, 4, &pos, ibuf, 4, MPI_INT, W));
    T(MPI_ERR_COMM, MPI_Pack_size_c(1, MPI_INT, N, &sz));
    T(MPI_ERR_COUNT, MPI_Pack_size_c(-1, MPI_INT, W, &sz));
    T(MPI_ERR_TYPE, MPI_Pack_size_c(BIG, MPI_DATATYPE_NULL, W, &sz));
    T(MPI_ERR_ARG, MPI_Pack_size_c(1, MPI_INT, W, NULL));
    T(MPI_ERR_COUNT, MPI_Pack_size_c(HUGE_N, MPI_DOUBLE, W, &sz));
}

int main(int argc, char **argv)
{
    badarg_init(&argc, &argv, "mpi_badarg_large_test");
    point_to_point();
    rooted();
    unrooted();
    neighbourhood();
    types();
    packing();
    printf("mpi_badarg_large: %d calls, %d returned the class the standard gives, %d unexpected\n",
           tried, matched, unexpected);
    MPI_Finalize();
    return unexpected ? 1 : 0;
}
