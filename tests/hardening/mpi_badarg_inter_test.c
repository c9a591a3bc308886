/* The bad-argument table of mpi.h, continued over the intercommunicator
 * functions: MPI_Intercomm_create and _merge, MPI_Comm_test_inter,
 * MPI_Comm_remote_size and _remote_group, and collectives on an
 * intercommunicator with bad roots (MPI_ROOT and MPI_PROC_NULL on an
 * intracommunicator, ranks outside the remote group) and MPI_IN_PLACE.
 * Each row is one call with one bad argument that every rank can see
 * locally (no row reaches communication) and the class MPI 4.0 gives for
 * it, MPICH 4.0's where the standard names none; under MPI_ERRORS_RETURN.
 * Three ranks: group A = {0}, group B = {1, 2}, joined by an
 * intercommunicator over WORLD.  Fails when a row returns another class
 * (KNOWN rows are reported, not failed; docs/RELIABILITY.md lists them). */
#include <mpi.h>
#include <stdio.h>

#include "mpi_badarg.h"

static MPI_Comm local, inter;
static int wrank;

/* The groups and the intercommunicator every row uses (valid calls). */
static void setup(void)
{
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        fprintf(stderr, "mpi_badarg_inter_test: run it on 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int a = wrank == 0;
    if (MPI_Comm_split(MPI_COMM_WORLD, a, wrank, &local) ||
        MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, a ? 1 : 0, 77, &inter)) {
        fprintf(stderr, "mpi_badarg_inter_test: cannot build the intercommunicator\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
}

static void create_and_merge(void)
{
    MPI_Comm out, N = MPI_COMM_NULL, W = MPI_COMM_WORLD, S = MPI_COMM_SELF;
    int rl = wrank == 0 ? 1 : 0;
    T(MPI_ERR_COMM, MPI_Intercomm_create(N, 0, W, rl, 5, &out));
    T(MPI_ERR_COMM, MPI_Intercomm_create(inter, 0, W, rl, 5, &out));
    T(MPI_ERR_RANK, MPI_Intercomm_create(local, 7, W, rl, 5, &out));
    T(MPI_ERR_RANK, MPI_Intercomm_create(local, -1, W, rl, 5, &out));
    T(MPI_ERR_ARG, MPI_Intercomm_create(local, 0, W, rl, 5, NULL));
    /* on SELF every rank is its own leader: the leader's arguments */
    T(MPI_ERR_COMM, MPI_Intercomm_create(S, 0, N, rl, 5, &out));
    T(MPI_ERR_RANK, MPI_Intercomm_create(S, 0, W, 3, 5, &out));
    T(MPI_ERR_RANK, MPI_Intercomm_create(S, 0, W, -1, 5, &out));
    T(MPI_ERR_TAG, MPI_Intercomm_create(S, 0, W, rl, -1, &out));
    /* the remote leader is this rank: the two groups overlap (MPICH's class) */
    T(MPI_ERR_RANK, MPI_Intercomm_create(S, 0, W, wrank, 5, &out));
    T(MPI_ERR_COMM, MPI_Intercomm_merge(N, 0, &out));
    T(MPI_ERR_COMM, MPI_Intercomm_merge(W, 0, &out));
    T(MPI_ERR_ARG, MPI_Intercomm_merge(inter, 0, NULL));
}

static void queries(void)
{
    int n, flag;
    MPI_Group g;
    MPI_Comm dead, N = MPI_COMM_NULL, W = MPI_COMM_WORLD;
    /* a freed intercommunicator (dup and free: both collective, valid) */
    if (MPI_Comm_dup(inter, &dead)) {
        fprintf(stderr, "mpi_badarg_inter_test: dup failed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm stale = dead;
    MPI_Comm_free(&dead);
    T(MPI_ERR_COMM, MPI_Comm_test_inter(N, &flag));
    T(MPI_ERR_ARG, MPI_Comm_test_inter(inter, NULL));
    T(MPI_ERR_COMM, MPI_Comm_test_inter(stale, &flag));
    T(MPI_ERR_COMM, MPI_Comm_remote_size(N, &n));
    T(MPI_ERR_COMM, MPI_Comm_remote_size(W, &n));
    T(MPI_ERR_COMM, MPI_Comm_remote_size(stale, &n));
    T(MPI_ERR_ARG, MPI_Comm_remote_size(inter, NULL));
    T(MPI_ERR_COMM, MPI_Comm_remote_group(N, &g));
    T(MPI_ERR_COMM, MPI_Comm_remote_group(local, &g));
    T(MPI_ERR_COMM, MPI_Comm_remote_group(stale, &g));
    T(MPI_ERR_ARG, MPI_Comm_remote_group(inter, NULL));
    T(MPI_ERR_COMM, MPI_Intercomm_merge(stale, 1, &(MPI_Comm){0}));
}

/* Roots: on an intercommunicator MPI_ROOT, MPI_PROC_NULL or a rank of the
 * remote group (its size is 2 in group A, 1 in group B); on an
 * intracommunicator neither MPI_ROOT nor MPI_PROC_NULL. */
static void roots(void)
{
    int b[8] = {0}, r[8] = {0}, c[2] = {1, 1}, d[2] = {0, 1};
    MPI_Request q;
    MPI_Info in = MPI_INFO_NULL;
    MPI_Comm W = MPI_COMM_WORLD, I = inter;
    T(MPI_ERR_ROOT, MPI_Bcast(b, 1, MPI_INT, 2, I));
    T(MPI_ERR_ROOT, MPI_Bcast(b, 1, MPI_INT, -7, I));
    T(MPI_ERR_ROOT, MPI_Bcast(b, 1, MPI_INT, MPI_ANY_SOURCE, I));
    T(MPI_ERR_ROOT, MPI_Ibcast(b, 1, MPI_INT, 2, I, &q));
    T(MPI_ERR_ROOT, MPI_Bcast_init(b, 1, MPI_INT, 5, I, in, &q));
    T(MPI_ERR_ROOT, MPI_Gather(b, 1, MPI_INT, r, 1, MPI_INT, 2, I));
    T(MPI_ERR_ROOT, MPI_Igatherv(b, 1, MPI_INT, r, c, d, MPI_INT, 3, I, &q));
    T(MPI_ERR_ROOT, MPI_Scatter(b, 1, MPI_INT, r, 1, MPI_INT, -4, I));
    T(MPI_ERR_ROOT, MPI_Scatterv_init(b, c, d, MPI_INT, r, 1, MPI_INT, 4, I, in, &q));
    T(MPI_ERR_ROOT, MPI_Reduce(b, r, 1, MPI_INT, MPI_SUM, 2, I));
    T(MPI_ERR_ROOT, MPI_Ireduce(b, r, 1, MPI_INT, MPI_SUM, -9, I, &q));
    T(MPI_ERR_ROOT, MPI_Bcast(b, 1, MPI_INT, MPI_ROOT, W));
    T(MPI_ERR_ROOT, MPI_Bcast(b, 1, MPI_INT, MPI_PROC_NULL, W));
    T(MPI_ERR_ROOT, MPI_Gather(b, 1, MPI_INT, r, 1, MPI_INT, MPI_ROOT, W));
    T(MPI_ERR_ROOT, MPI_Scatterv(b, c, d, MPI_INT, r, 1, MPI_INT, MPI_PROC_NULL, W));
    T(MPI_ERR_ROOT, MPI_Reduce(b, r, 1, MPI_INT, MPI_SUM, MPI_ROOT, W));
    T(MPI_ERR_ROOT, MPI_Ireduce(b, r, 1, MPI_INT, MPI_SUM, MPI_PROC_NULL, local, &q));
    T(MPI_ERR_ROOT, MPI_Igather(b, 1, MPI_INT, r, 1, MPI_INT, MPI_ROOT, local, &q));
    /* the root's own arguments are still checked */
    T(MPI_ERR_COUNT, MPI_Bcast(b, -1, MPI_INT, MPI_ROOT, I));
    T(MPI_ERR_TYPE, MPI_Bcast(b, 1, MPI_DATATYPE_NULL, MPI_ROOT, I));
    T(MPI_ERR_OP, MPI_Reduce(b, r, 1, MPI_INT, MPI_OP_NULL, MPI_ROOT, I));
    T(MPI_ERR_COUNT, MPI_Gather(b, 1, MPI_INT, r, -1, MPI_INT, MPI_ROOT, I));
    T(MPI_ERR_COUNT, MPI_Scatter(b, -2, MPI_INT, r, 1, MPI_INT, MPI_ROOT, I));
}

/* MPI_IN_PLACE is not defined on an intercommunicator (MPI 4.0 §6.2.2);
 * MPICH: MPI_ERR_BUFFER.  At the root (MPI_ROOT) for rooted calls, at
 * every rank for the others. */
static void in_place(void)
{
    int b[8] = {0}, r[8] = {0}, c[2] = {1, 1}, d[2] = {0, 1};
    MPI_Request q;
    MPI_Comm I = inter;
    void *IP = MPI_IN_PLACE;
    T(MPI_ERR_BUFFER, MPI_Gather(b, 1, MPI_INT, IP, 1, MPI_INT, MPI_ROOT, I));
    T(MPI_ERR_BUFFER, MPI_Gatherv(b, 1, MPI_INT, IP, c, d, MPI_INT, MPI_ROOT, I));
    T(MPI_ERR_BUFFER, MPI_Scatter(IP, 1, MPI_INT, r, 1, MPI_INT, MPI_ROOT, I));
    T(MPI_ERR_BUFFER, MPI_Iscatterv(IP, c, d, MPI_INT, r, 1, MPI_INT, MPI_ROOT, I, &q));
    T(MPI_ERR_BUFFER, MPI_Reduce(IP, r, 1, MPI_INT, MPI_SUM, 0, I)); /* a contributor */
    T(MPI_ERR_BUFFER, MPI_Allreduce(IP, r, 1, MPI_INT, MPI_SUM, I));
    T(MPI_ERR_BUFFER, MPI_Iallreduce(IP, r, 1, MPI_INT, MPI_SUM, I, &q));
    T(MPI_ERR_BUFFER, MPI_Allgather(IP, 1, MPI_INT, r, 1, MPI_INT, I));
    T(MPI_ERR_BUFFER, MPI_Allgatherv(IP, 1, MPI_INT, r, c, d, MPI_INT, I));
    T(MPI_ERR_BUFFER, MPI_Alltoall(IP, 1, MPI_INT, r, 1, MPI_INT, I));
    T(MPI_ERR_BUFFER, MPI_Reduce_scatter_block(IP, r, 1, MPI_INT, MPI_SUM, I));
    T(MPI_ERR_BUFFER, MPI_Reduce_scatter(IP, r, c, MPI_INT, MPI_SUM, I));
    /* scans are not defined on intercommunicators at all */
    T(MPI_ERR_COMM, MPI_Scan(b, r, 1, MPI_INT, MPI_SUM, I));
    T(MPI_ERR_COMM, MPI_Exscan(b, r, 1, MPI_INT, MPI_SUM, I));
    T(MPI_ERR_COMM, MPI_Iscan(b, r, 1, MPI_INT, MPI_SUM, I, &q));
    /* nor are topologies */
    MPI_Comm cart;
    T(MPI_ERR_COMM, MPI_Cart_create(I, 1, (int[]){1}, (int[]){0}, 0, &cart));
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    setup();
    create_and_merge();
    queries();
    roots();
    in_place();
    printf("mpi_badarg_inter (rank %d): %d calls, %d returned the class the standard gives, "
           "%d unexpected\n", wrank, tried, matched, unexpected);
    int bad = unexpected;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return bad ? 1 : 0;
}
