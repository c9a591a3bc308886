/* A rank that dies turns into errors on the survivor, never a hang
 * (ctest: 2 ranks through mpi_dead_peer_test.sh, with the collectives on
 * the host and on the offload executor).  Rank 1 kills itself with SIGKILL
 * after a barrier; rank 0 (which ignores the launcher's SIGTERM so that
 * it can show what its calls return) then:
 * - MPI_Recv from rank 1: an error (MPI_ERR_OTHER), not a hang;
 * - MPI_Irecv + MPI_Wait from rank 1: the same;
 * - MPI_Recv from MPI_ANY_SOURCE on WORLD: an error (ULFM's rule: a
 *   possible sender has ended), while an MPI_Irecv from MPI_ANY_SOURCE on
 *   SELF, posted before all this, stays pending (no sender of it ended)
 *   and then receives what rank 0 sends itself;
 * - MPI_Ibcast rooted at rank 1, MPI_Wait: an error;
 * - MPI_Allreduce over both: an error;
 * - MPI_Finalize: returns (no closing fence with a dead rank).
 * Each prints one line the script checks; a call that succeeds fails the
 * test. */
#include <mpi.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void expect_error(const char *what, int rc, double t0)
{
    int cls = rc;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    printf("rank 0: %s: class %d after %.1f s\n", what, cls, now() - t0);
    fflush(stdout);
    if (rc == MPI_SUCCESS) {
        printf("FAIL rank 0: %s succeeded with its peer dead\n", what);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    int rank, x[16] = {0};
    signal(SIGTERM, SIG_IGN);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) raise(SIGKILL);
    MPI_Request q, qself;
    int self_in = -1, self_out = 42, flag = 1;
    MPI_Irecv(&self_in, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_SELF, &qself);
    double t0 = now();
    expect_error("recv", MPI_Recv(x, 16, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), t0);
    t0 = now();
    int rc = MPI_Irecv(x, 16, MPI_INT, 1, 1, MPI_COMM_WORLD, &q);
    expect_error("irecv", rc ? rc : MPI_Wait(&q, MPI_STATUS_IGNORE), t0);
    t0 = now();
    expect_error("anyrecv",
                 MPI_Recv(x, 16, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE), t0);
    t0 = now();
    rc = MPI_Ibcast(x, 16, MPI_INT, 1, MPI_COMM_WORLD, &q);
    expect_error("ibcast", rc ? rc : MPI_Wait(&q, MPI_STATUS_IGNORE), t0);
    t0 = now();
    expect_error("allreduce", MPI_Allreduce(MPI_IN_PLACE, x, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                 t0);
    MPI_Test(&qself, &flag, MPI_STATUS_IGNORE);
    if (flag || MPI_Send(&self_out, 1, MPI_INT, 0, 5, MPI_COMM_SELF) ||
        MPI_Wait(&qself, MPI_STATUS_IGNORE) || self_in != 42) {
        printf("FAIL rank 0: the any-source receive on SELF %s\n",
               flag ? "completed before its message" : "did not get its message");
        exit(1);
    }
    printf("rank 0: selfany: pending until its message, then received\n");
    MPI_Finalize();
    printf("rank 0: finalized\n");
    return 0;
}
