/* Every kind of bad argument the MPI standard names, on the calls of
 * include/mpi.h, with MPI_ERRORS_RETURN: each row is one call and the error
 * class the standard gives for it (issue 26, docs/RELIABILITY.md). A
 * singleton (rank 0 of 1): rank 1 is out of range. Handles: null, freed
 * (stale), of another type (a datatype passed as a communicator...), and
 * never created. Prints every row that returned another class and the
 * count; fails when a row not listed as known (KNOWN) mismatches. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_badarg.h"

static int noop_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
    return 0;
}
static void user_op(void *in, void *inout, int *len, MPI_Datatype *dt) { noop_fn(in, inout, len, dt); }

int main(int argc, char **argv)
{
    badarg_init(&argc, &argv, "mpi_badarg_test");

    /* Stale handles: created and freed. */
    MPI_Comm dead_comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &dead_comm);
    MPI_Comm_free(&dead_comm); /* sets it to MPI_COMM_NULL: keep the value */
    MPI_Comm stale_comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &stale_comm);
    MPI_Comm keep_c = stale_comm;
    MPI_Comm_free(&stale_comm);
    stale_comm = keep_c;
    MPI_Datatype stale_type;
    MPI_Type_contiguous(4, MPI_INT, &stale_type);
    MPI_Type_commit(&stale_type);
    MPI_Datatype keep_t = stale_type;
    MPI_Type_free(&stale_type);
    stale_type = keep_t;
    MPI_Datatype uncommitted;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    MPI_Op stale_op;
    MPI_Op_create(user_op, 1, &stale_op);
    MPI_Op keep_o = stale_op;
    MPI_Op_free(&stale_op);
    stale_op = keep_o;
    MPI_Group world_group, stale_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Comm_group(MPI_COMM_WORLD, &stale_group);
    MPI_Group keep_g = stale_group;
    MPI_Group_free(&stale_group);
    stale_group = keep_g;
    MPI_Info stale_info;
    MPI_Info_create(&stale_info);
    MPI_Info keep_i = stale_info;
    MPI_Info_free(&stale_info);
    stale_info = keep_i;
    MPI_Info info;
    MPI_Info_create(&info);

    /* Wrong-type handles: a valid handle of one kind passed as another. */
    MPI_Comm type_as_comm = (MPI_Comm)MPI_INT;
    MPI_Datatype comm_as_type = (MPI_Datatype)MPI_COMM_WORLD;
    MPI_Op type_as_op = (MPI_Op)MPI_INT;
    MPI_Group comm_as_group = (MPI_Group)MPI_COMM_WORLD;
    MPI_Comm garbage_comm = (MPI_Comm)0x7abcdef1;

    int buf[64] = {0}, rbuf[64] = {0}, flag, n, cnts[1] = {1}, displs[1] = {0};
    MPI_Request req;
    MPI_Status st;
    MPI_Comm newcomm;
    MPI_Datatype newtype;
    MPI_Group newgroup;
    MPI_Message msg;
    MPI_Op op;

    /* ---- point to point ---- */
    /* the communicator */
    T(MPI_ERR_COMM, MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL));
    T(MPI_ERR_COMM, MPI_Send(buf, 1, MPI_INT, 0, 0, stale_comm));
    T(MPI_ERR_COMM, MPI_Send(buf, 1, MPI_INT, 0, 0, type_as_comm));
    T(MPI_ERR_COMM, MPI_Send(buf, 1, MPI_INT, 0, 0, garbage_comm));
    T(MPI_ERR_COMM, MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st));
    T(MPI_ERR_COMM, MPI_Isend(buf, 1, MPI_INT, 0, 0, stale_comm, &req));
    T(MPI_ERR_COMM, MPI_Irecv(buf, 1, MPI_INT, 0, 0, type_as_comm, &req));
    T(MPI_ERR_COMM, MPI_Ssend(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL));
    T(MPI_ERR_COMM, MPI_Rsend(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL));
    T(MPI_ERR_COMM, MPI_Bsend(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL));
    T(MPI_ERR_COMM, MPI_Probe(0, 0, MPI_COMM_NULL, &st));
    T(MPI_ERR_COMM, MPI_Iprobe(0, 0, stale_comm, &flag, &st));
    T(MPI_ERR_COMM, MPI_Mprobe(0, 0, MPI_COMM_NULL, &msg, &st));
    T(MPI_ERR_COMM, MPI_Improbe(0, 0, MPI_COMM_NULL, &flag, &msg, &st));
    T(MPI_ERR_COMM, MPI_Send_init(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &req));
    T(MPI_ERR_COMM, MPI_Recv_init(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &req));
    T(MPI_ERR_COMM, MPI_Sendrecv(buf, 1, MPI_INT, 0, 0, rbuf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st));
    /* counts */
    T(MPI_ERR_COUNT, MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    T(MPI_ERR_COUNT, MPI_Recv(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st));
    T(MPI_ERR_COUNT, MPI_Isend(buf, -5, MPI_INT, 0, 0, MPI_COMM_WORLD, &req));
    T(MPI_ERR_COUNT, MPI_Irecv(buf, -5, MPI_INT, 0, 0, MPI_COMM_WORLD, &req));
    T(MPI_ERR_COUNT, MPI_Ssend(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    T(MPI_ERR_COUNT, MPI_Send_init(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req));
    T(MPI_ERR_COUNT, MPI_Sendrecv(buf, -1, MPI_INT, 0, 0, rbuf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st));
    T(MPI_ERR_COUNT, MPI_Sendrecv(buf, 1, MPI_INT, 0, 0, rbuf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st));
    /* datatypes */
    T(MPI_ERR_TYPE, MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD));
    T(MPI_ERR_TYPE, MPI_Send(buf, 1, stale_type, 0, 0, MPI_COMM_WORLD));
    T(MPI_ERR_TYPE, MPI_Send(buf, 1, uncommitted, 0, 0, MPI_COMM_WORLD));
    T(MPI_ERR_TYPE, MPI_Send(buf, 1, comm_as_type, 0, 0, MPI_COMM_WORLD));
    T(MPI_ERR_TYPE, MPI_Recv(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, &st));
    T(MPI_ERR_TYPE, MPI_Irecv(buf, 1, stale_type, 0, 0, MPI_COMM_WORLD, &req));
    T(MPI_ERR_TYPE, MPI_Isend(buf, 1, uncommitted, 0, 0, MPI_COMM_WORLD, &req));
    /* tags */
    T(MPI_ERR_TAG, MPI_Send(buf, 1, MPI_INT, 0, -1, MPI_COMM_WORLD));
    T(MPI_ERR_TAG, MPI_Send(buf, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD));
    T(MPI_ERR_TAG, MPI_Isend(buf, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, &req));
    T(MPI_ERR_TAG, MPI_Recv(buf, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, &st));
    T(MPI_ERR_TAG, MPI_Irecv(buf, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, &req));
    T(MPI_ERR_TAG, MPI_Probe(0, -7, MPI_COMM_WORLD, &st));
    T(MPI_ERR_TAG, MPI_Iprobe(0, -7, MPI_COMM_WORLD, &flag, &st));
    {
        int *ub, f = 0;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &f);
        if (f && *ub < 0x7fffffff) T(MPI_ERR_TAG, MPI_Send(buf, 1, MPI_INT, 0, *ub + 1, MPI_COMM_WORLD));
    }
    /* ranks */
    T(MPI_ERR_RANK, MPI_Send(buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
    T(MPI_ERR_RANK, MPI_Send(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD));
    T(MPI_ERR_RANK, MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD));
    T(MPI_ERR_RANK, MPI_Isend(buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req));
    T(MPI_ERR_RANK, MPI_Recv(buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &st));
    T(MPI_ERR_RANK, MPI_Irecv(buf, 1, MPI_INT, 7, 0, MPI_COMM_WORLD, &req));
    T(MPI_ERR_RANK, MPI_Probe(1, 0, MPI_COMM_WORLD, &st));
    T(MPI_ERR_RANK, MPI_Iprobe(-9, 0, MPI_COMM_WORLD, &flag, &st));
    T(MPI_ERR_RANK, MPI_Ssend(buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
    T(MPI_ERR_RANK, MPI_Send_init(buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req));
    T(MPI_ERR_RANK, MPI_Sendrecv(buf, 1, MPI_INT, 1, 0, rbuf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st));
    /* buffers */
    T(MPI_ERR_BUFFER, MPI_Send(NULL, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    T(MPI_ERR_BUFFER, MPI_Recv(NULL, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st));
    T(MPI_ERR_BUFFER, MPI_Isend(NULL, 3, MPI_INT, 0, 0, MPI_COMM_WORLD, &req));
    /* null out-pointers */
    T(MPI_ERR_REQUEST, MPI_Isend(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL));
    T(MPI_ERR_REQUEST, MPI_Irecv(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL));
    T(MPI_ERR_ARG, MPI_Iprobe(0, 0, MPI_COMM_WORLD, NULL, &st));
    /* requests */
    T(MPI_ERR_REQUEST, MPI_Wait(NULL, &st));
    T(MPI_ERR_REQUEST, MPI_Test(NULL, &flag, &st));
    req = (MPI_Request)0x7abc0123;
    T(MPI_ERR_REQUEST, MPI_Wait(&req, &st));
    req = (MPI_Request)0x7abc0123;
    T(MPI_ERR_REQUEST, MPI_Test(&req, &flag, &st));
    req = (MPI_Request)0x7abc0123;
    T(MPI_ERR_REQUEST, MPI_Cancel(&req));
    req = (MPI_Request)0x7abc0123;
    T(MPI_ERR_REQUEST, MPI_Request_free(&req));
    req = (MPI_Request)0x7abc0123;
    T(MPI_ERR_REQUEST, MPI_Start(&req));
    req = MPI_REQUEST_NULL;
    T(MPI_ERR_REQUEST, MPI_Start(&req));
    T(MPI_ERR_REQUEST, MPI_Request_free(&req)); /* MPI_REQUEST_NULL */
    T(MPI_ERR_REQUEST, MPI_Cancel(NULL));
#ifndef BADARG_NO_STALE_REQUESTS /* MPICH asserts on these (-DBADARG_NO_STALE_REQUESTS to compare) */
    {
        MPI_Request r2;
        MPI_Irecv(rbuf, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &r2); /* a stale request afterwards */
        MPI_Request keep = r2;
        MPI_Cancel(&r2);
        MPI_Wait(&r2, &st);
        r2 = keep;
        T(MPI_ERR_REQUEST, MPI_Wait(&r2, &st));
        r2 = keep;
        T(MPI_ERR_REQUEST, MPI_Cancel(&r2));
        MPI_Request arr[2] = {keep, MPI_REQUEST_NULL};
        T(MPI_ERR_REQUEST, MPI_Waitall(2, arr, MPI_STATUSES_IGNORE));
    }
#endif
    T(MPI_ERR_COUNT, MPI_Waitall(-1, &req, MPI_STATUSES_IGNORE));
    T(MPI_ERR_COUNT, MPI_Waitany(-1, &req, &n, &st));
    T(MPI_ERR_COUNT, MPI_Testall(-1, &req, &flag, MPI_STATUSES_IGNORE));
    T(MPI_ERR_COUNT, MPI_Startall(-1, &req));
    T(MPI_ERR_ARG, MPI_Waitall(1, NULL, MPI_STATUSES_IGNORE));
    T(MPI_ERR_ARG, MPI_Test_cancelled(NULL, &flag));
    T(MPI_ERR_ARG, MPI_Get_count(NULL, MPI_INT, &n));
    T(MPI_ERR_TYPE, MPI_Get_count(&st, MPI_DATATYPE_NULL, &n));
    /* messages */
    msg = MPI_MESSAGE_NULL;
    T(MPI_ERR_REQUEST, MPI_Mrecv(buf, 1, MPI_INT, &msg, &st));
    T(MPI_ERR_ARG, MPI_Mrecv(buf, 1, MPI_INT, NULL, &st));
    msg = (MPI_Message)0x7abc0001;
    T(MPI_ERR_REQUEST, MPI_Imrecv(buf, 1, MPI_INT, &msg, &req));

    /* ---- collectives ---- */
    T(MPI_ERR_COMM, MPI_Barrier(MPI_COMM_NULL));
    T(MPI_ERR_COMM, MPI_Barrier(stale_comm));
    T(MPI_ERR_COMM, MPI_Barrier(type_as_comm));
    T(MPI_ERR_COMM, MPI_Ibarrier(MPI_COMM_NULL, &req));
    T(MPI_ERR_COMM, MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_NULL));
    T(MPI_ERR_ROOT, MPI_Bcast(buf, 1, MPI_INT, 1, MPI_COMM_WORLD));
    T(MPI_ERR_ROOT, MPI_Bcast(buf, 1, MPI_INT, -1, MPI_COMM_WORLD));
    T(MPI_ERR_ROOT, MPI_Ibcast(buf, 1, MPI_INT, 5, MPI_COMM_WORLD, &req));
    T(MPI_ERR_COUNT, MPI_Bcast(buf, -1, MPI_INT, 0, MPI_COMM_WORLD));
    T(MPI_ERR_TYPE, MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD));
    T(MPI_ERR_TYPE, MPI_Bcast(buf, 1, stale_type, 0, MPI_COMM_WORLD));
    T(MPI_ERR_BUFFER, MPI_Bcast(NULL, 1, MPI_INT, 0, MPI_COMM_WORLD));
    T(MPI_ERR_ROOT, MPI_Reduce(buf, rbuf, 1, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD));
    T(MPI_ERR_OP, MPI_Reduce(buf, rbuf, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD));
    T(MPI_ERR_OP, MPI_Reduce(buf, rbuf, 1, MPI_INT, stale_op, 0, MPI_COMM_WORLD));
    T(MPI_ERR_OP, MPI_Reduce(buf, rbuf, 1, MPI_INT, type_as_op, 0, MPI_COMM_WORLD));
    T(MPI_ERR_COUNT, MPI_Reduce(buf, rbuf, -1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    T(MPI_ERR_TYPE, MPI_Reduce(buf, rbuf, 1, MPI_DATATYPE_NULL, MPI_SUM, 0, MPI_COMM_WORLD));
    T(MPI_ERR_OP, MPI_Allreduce(buf, rbuf, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD));
    T(MPI_ERR_OP, MPI_Allreduce(buf, rbuf, 1, MPI_FLOAT, MPI_BAND, MPI_COMM_WORLD));
    T(MPI_ERR_OP, MPI_Iallreduce(buf, rbuf, 1, MPI_INT, stale_op, MPI_COMM_WORLD, &req));
    T(MPI_ERR_COUNT, MPI_Allreduce(buf, rbuf, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    T(MPI_ERR_COMM, MPI_Allreduce(buf, rbuf, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL));
    T(MPI_ERR_TYPE, MPI_Allreduce(buf, rbuf, 1, uncommitted, MPI_SUM, MPI_COMM_WORLD));
    T(MPI_ERR_REQUEST, MPI_Iallreduce(buf, rbuf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL));
    T(MPI_ERR_OP, MPI_Scan(buf, rbuf, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD));
    T(MPI_ERR_OP, MPI_Exscan(buf, rbuf, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD));
    T(MPI_ERR_OP, MPI_Reduce_scatter_block(buf, rbuf, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD));
    T(MPI_ERR_ARG, MPI_Reduce_scatter(buf, rbuf, NULL, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    T(MPI_ERR_ROOT, MPI_Gather(buf, 1, MPI_INT, rbuf, 1, MPI_INT, 1, MPI_COMM_WORLD));
    T(MPI_ERR_COUNT, MPI_Gather(buf, -1, MPI_INT, rbuf, 1, MPI_INT, 0, MPI_COMM_WORLD));
    T(MPI_ERR_TYPE, MPI_Gather(buf, 1, MPI_DATATYPE_NULL, rbuf, 1, MPI_INT, 0, MPI_COMM_WORLD));
    T(MPI_ERR_ROOT, MPI_Gatherv(buf, 1, MPI_INT, rbuf, cnts, displs, MPI_INT, 2, MPI_COMM_WORLD));
    T(MPI_ERR_ROOT, MPI_Scatter(buf, 1, MPI_INT, rbuf, 1, MPI_INT, 1, MPI_COMM_WORLD));
    T(MPI_ERR_COUNT, MPI_Scatter(buf, 1, MPI_INT, rbuf, -1, MPI_INT, 0, MPI_COMM_WORLD));
    T(MPI_ERR_ROOT, MPI_Scatterv(buf, cnts, displs, MPI_INT, rbuf, 1, MPI_INT, 1, MPI_COMM_WORLD));
    T(MPI_ERR_COUNT, MPI_Allgather(buf, -1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_WORLD));
    T(MPI_ERR_TYPE, MPI_Allgather(buf, 1, MPI_INT, rbuf, 1, stale_type, MPI_COMM_WORLD));
    T(MPI_ERR_COMM, MPI_Allgather(buf, 1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_NULL));
    T(MPI_ERR_ARG, MPI_Allgatherv(buf, 1, MPI_INT, rbuf, NULL, displs, MPI_INT, MPI_COMM_WORLD));
    T(MPI_ERR_COUNT, MPI_Alltoall(buf, -1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_WORLD));
    T(MPI_ERR_TYPE, MPI_Alltoall(buf, 1, MPI_DATATYPE_NULL, rbuf, 1, MPI_INT, MPI_COMM_WORLD));
    T(MPI_ERR_ARG, MPI_Alltoallv(buf, NULL, displs, MPI_INT, rbuf, cnts, displs, MPI_INT, MPI_COMM_WORLD));
    T(MPI_ERR_COMM, MPI_Ialltoall(buf, 1, MPI_INT, rbuf, 1, MPI_INT, stale_comm, &req));
    T(MPI_ERR_COUNT, MPI_Reduce_local(buf, rbuf, -1, MPI_INT, MPI_SUM));
    T(MPI_ERR_OP, MPI_Reduce_local(buf, rbuf, 1, MPI_INT, MPI_OP_NULL));
    T(MPI_ERR_TYPE, MPI_Reduce_local(buf, rbuf, 1, MPI_DATATYPE_NULL, MPI_SUM));
    T(MPI_ERR_BUFFER, MPI_Allreduce(buf, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)); /* aliased */
    T(MPI_ERR_BUFFER, MPI_Allreduce(buf, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));

    /* ---- communicators ---- */
    T(MPI_ERR_COMM, MPI_Comm_rank(MPI_COMM_NULL, &n));
    T(MPI_ERR_COMM, MPI_Comm_rank(stale_comm, &n));
    T(MPI_ERR_COMM, MPI_Comm_size(type_as_comm, &n));
    T(MPI_ERR_ARG, MPI_Comm_rank(MPI_COMM_WORLD, NULL));
    T(MPI_ERR_ARG, MPI_Comm_size(MPI_COMM_WORLD, NULL));
    T(MPI_ERR_COMM, MPI_Comm_dup(MPI_COMM_NULL, &newcomm));
    T(MPI_ERR_ARG, MPI_Comm_dup(MPI_COMM_WORLD, NULL));
    T(MPI_ERR_COMM, MPI_Comm_split(MPI_COMM_NULL, 0, 0, &newcomm));
    T(MPI_ERR_COMM, MPI_Comm_free(&dead_comm)); /* MPI_COMM_NULL */
    newcomm = MPI_COMM_WORLD;
    T(MPI_ERR_COMM, MPI_Comm_free(&newcomm));
    newcomm = stale_comm;
    T(MPI_ERR_COMM, MPI_Comm_free(&newcomm));
    KNOWN(MPI_ERR_ARG, MPI_Comm_free(NULL));
    T(MPI_ERR_COMM, MPI_Comm_compare(MPI_COMM_NULL, MPI_COMM_WORLD, &n));
    T(MPI_ERR_COMM, MPI_Comm_group(MPI_COMM_NULL, &newgroup));
    T(MPI_ERR_GROUP, MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &newcomm));
    T(MPI_ERR_GROUP, MPI_Comm_create(MPI_COMM_WORLD, stale_group, &newcomm));
    T(MPI_ERR_COMM, MPI_Comm_set_errhandler(MPI_COMM_NULL, MPI_ERRORS_RETURN));
    T(MPI_ERR_ARG, MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL));
    T(MPI_ERR_COMM, MPI_Comm_set_name(MPI_COMM_NULL, "x"));
    T(MPI_ERR_ARG, MPI_Comm_set_name(MPI_COMM_WORLD, NULL));
    T(MPI_ERR_COMM, MPI_Comm_get_attr(MPI_COMM_NULL, MPI_TAG_UB, &n, &flag));
    T(MPI_ERR_KEYVAL, MPI_Comm_get_attr(MPI_COMM_WORLD, 0x12345, &n, &flag));

    /* ---- groups ---- */
    T(MPI_ERR_GROUP, MPI_Group_size(MPI_GROUP_NULL, &n));
    T(MPI_ERR_GROUP, MPI_Group_size(stale_group, &n));
    T(MPI_ERR_GROUP, MPI_Group_rank(comm_as_group, &n));
    T(MPI_ERR_ARG, MPI_Group_size(world_group, NULL));
    {
        int ranks[1] = {1};
        T(MPI_ERR_RANK, MPI_Group_incl(world_group, 1, ranks, &newgroup));
        T(MPI_ERR_RANK, MPI_Group_excl(world_group, 1, ranks, &newgroup));
        T(MPI_ERR_ARG, MPI_Group_incl(world_group, 2, ranks, &newgroup)); /* n > group size */
        T(MPI_ERR_RANK, MPI_Group_translate_ranks(world_group, 1, ranks, world_group, rbuf));
        int range[1][3] = {{0, 3, 1}};
        KNOWN(MPI_ERR_RANK, MPI_Group_range_incl(world_group, 1, range, &newgroup));
        int range0[1][3] = {{0, 0, 0}};
        T(MPI_ERR_ARG, MPI_Group_range_incl(world_group, 1, range0, &newgroup)); /* stride 0 */
    }
    T(MPI_ERR_GROUP, MPI_Group_union(MPI_GROUP_NULL, world_group, &newgroup));
    T(MPI_ERR_GROUP, MPI_Group_compare(world_group, stale_group, &n));
    newgroup = MPI_GROUP_NULL;
    T(MPI_ERR_GROUP, MPI_Group_free(&newgroup));

    /* ---- datatypes ---- */
    T(MPI_ERR_COUNT, MPI_Type_contiguous(-1, MPI_INT, &newtype));
    T(MPI_ERR_TYPE, MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &newtype));
    T(MPI_ERR_TYPE, MPI_Type_contiguous(2, stale_type, &newtype));
    T(MPI_ERR_ARG, MPI_Type_contiguous(2, MPI_INT, NULL));
    T(MPI_ERR_COUNT, MPI_Type_vector(-1, 1, 1, MPI_INT, &newtype));
    T(MPI_ERR_ARG, MPI_Type_vector(2, -1, 1, MPI_INT, &newtype));
    T(MPI_ERR_TYPE, MPI_Type_vector(2, 1, 1, MPI_DATATYPE_NULL, &newtype));
    T(MPI_ERR_COUNT, MPI_Type_indexed(-1, cnts, displs, MPI_INT, &newtype));
    T(MPI_ERR_ARG, MPI_Type_indexed(1, NULL, displs, MPI_INT, &newtype));
    T(MPI_ERR_COUNT, MPI_Type_create_struct(-1, cnts, NULL, NULL, &newtype));
    T(MPI_ERR_ARG, MPI_Type_commit(NULL));
    newtype = MPI_DATATYPE_NULL;
    T(MPI_ERR_TYPE, MPI_Type_commit(&newtype));
    newtype = MPI_INT;
    T(MPI_ERR_TYPE, MPI_Type_free(&newtype)); /* a predefined type */
    newtype = stale_type;
    T(MPI_ERR_TYPE, MPI_Type_free(&newtype));
    T(MPI_ERR_TYPE, MPI_Type_size(MPI_DATATYPE_NULL, &n));
    T(MPI_ERR_TYPE, MPI_Type_size(stale_type, &n));
    T(MPI_ERR_ARG, MPI_Type_size(MPI_INT, NULL));
    {
        MPI_Aint lb, ext;
        T(MPI_ERR_TYPE, MPI_Type_get_extent(MPI_DATATYPE_NULL, &lb, &ext));
        T(MPI_ERR_ARG, MPI_Type_get_extent(MPI_INT, NULL, &ext));
    }
    T(MPI_ERR_TYPE, MPI_Type_dup(stale_type, &newtype));
    T(MPI_ERR_COUNT, MPI_Pack(buf, -1, MPI_INT, rbuf, 64, &n, MPI_COMM_WORLD));
    n = 0;
    T(MPI_ERR_TRUNCATE, MPI_Pack(buf, 8, MPI_INT, rbuf, 4, &n, MPI_COMM_WORLD));
    T(MPI_ERR_TYPE, MPI_Pack_size(1, MPI_DATATYPE_NULL, MPI_COMM_WORLD, &n));

    /* ---- operations ---- */
    T(MPI_ERR_ARG, MPI_Op_create(NULL, 1, &op));
    T(MPI_ERR_ARG, MPI_Op_create(user_op, 1, NULL));
    op = MPI_SUM;
    T(MPI_ERR_OP, MPI_Op_free(&op)); /* predefined */
    op = MPI_OP_NULL;
    T(MPI_ERR_OP, MPI_Op_free(&op));
    op = stale_op;
    T(MPI_ERR_OP, MPI_Op_free(&op));
    T(MPI_ERR_OP, MPI_Op_commutative(MPI_OP_NULL, &n));

    /* ---- info ---- */
    T(MPI_ERR_INFO, MPI_Info_set(MPI_INFO_NULL, "k", "v"));
    T(MPI_ERR_INFO, MPI_Info_set(stale_info, "k", "v"));
    T(MPI_ERR_INFO_KEY, MPI_Info_set(info, "", "v"));
    {
        char longkey[MPI_MAX_INFO_KEY + 8];
        memset(longkey, 'k', sizeof longkey - 1);
        longkey[sizeof longkey - 1] = 0;
        T(MPI_ERR_INFO_KEY, MPI_Info_set(info, longkey, "v"));
    }
    {
        char longval[MPI_MAX_INFO_VAL + 8];
        memset(longval, 'v', sizeof longval - 1);
        longval[sizeof longval - 1] = 0;
        T(MPI_ERR_INFO_VALUE, MPI_Info_set(info, "k", longval));
    }
    T(MPI_ERR_INFO_NOKEY, MPI_Info_delete(info, "absent"));
    T(MPI_ERR_ARG, MPI_Info_get_nthkey(info, 5, (char[MPI_MAX_INFO_KEY + 1]){0}));
    T(MPI_ERR_INFO, MPI_Info_free(&stale_info));
    T(MPI_ERR_ARG, MPI_Info_create(NULL));

    /* ---- topologies ---- */
    {
        int dims[2] = {2, 2}, periods[2] = {0, 0}, coords[2];
        T(MPI_ERR_ARG, MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &newcomm)); /* 4 > 1 */
        KNOWN(MPI_ERR_DIMS, MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &newcomm));
        T(MPI_ERR_COMM, MPI_Cart_create(MPI_COMM_NULL, 1, dims, periods, 0, &newcomm));
        T(MPI_ERR_TOPOLOGY, MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, coords));
        T(MPI_ERR_TOPOLOGY, MPI_Cart_rank(MPI_COMM_WORLD, coords, &n));
        T(MPI_ERR_TOPOLOGY, MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &n, &n));
        T(MPI_ERR_TOPOLOGY, MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &n));
        KNOWN(MPI_ERR_DIMS, MPI_Dims_create(4, -1, dims));
        int dd[2] = {3, 0};
        T(MPI_ERR_DIMS, MPI_Dims_create(4, 2, dd)); /* 4 is not a multiple of 3 */
        MPI_Comm cart;
        int one = 1, per = 0;
        if (MPI_Cart_create(MPI_COMM_WORLD, 1, &one, &per, 0, &cart) == MPI_SUCCESS) {
            T(MPI_ERR_RANK, MPI_Cart_coords(cart, 1, 1, coords));
            T(MPI_ERR_ARG, MPI_Cart_shift(cart, 3, 1, &n, &n));
            MPI_Comm_free(&cart);
        }
    }

    /* ---- environment, errors, memory ---- */
    T(MPI_ERR_ARG, MPI_Error_class(-1, &n));
    T(MPI_ERR_ARG, MPI_Error_string(MPI_ERR_LASTCODE + 1, (char[MPI_MAX_ERROR_STRING]){0}, &n));
    T(MPI_ERR_ARG, MPI_Initialized(NULL));
    T(MPI_ERR_ARG, MPI_Get_processor_name(NULL, &n));
    KNOWN(MPI_ERR_ARG, MPI_Alloc_mem(-1, MPI_INFO_NULL, &req));
    T(MPI_ERR_BASE, MPI_Free_mem(buf)); /* not from MPI_Alloc_mem */
    T(MPI_ERR_ARG, MPI_Comm_create_errhandler(NULL, NULL));
    {
        MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
        T(MPI_ERR_ARG, MPI_Errhandler_free(&eh));
    }
    T(MPI_ERR_BUFFER, MPI_Buffer_attach(NULL, 100));
    T(MPI_ERR_ARG, MPI_Buffer_attach(buf, -1));

    /* ---- one-sided ---- */
    /* Not implemented: every MPI_Win_* / RMA call returns
     * MPI_ERR_UNSUPPORTED_OPERATION (docs/RELIABILITY.md). */
    {
        MPI_Win win;
        KNOWN(MPI_ERR_COMM, MPI_Win_create(buf, sizeof buf, 4, MPI_INFO_NULL, MPI_COMM_NULL, &win));
        KNOWN(MPI_ERR_SIZE, MPI_Win_create(buf, -1, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        KNOWN(MPI_ERR_DISP, MPI_Win_create(buf, sizeof buf, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        KNOWN(MPI_ERR_WIN, MPI_Win_fence(0, MPI_WIN_NULL));
        KNOWN(MPI_ERR_WIN, MPI_Put(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL));
    }

    MPI_Type_free(&uncommitted);
    MPI_Group_free(&world_group);
    MPI_Info_free(&info);
    printf("mpi_badarg: %d calls, %d returned the class the standard gives, %d unexpected\n", tried,
           matched, unexpected);
    MPI_Finalize();
    return unexpected ? 1 : 0;
}
