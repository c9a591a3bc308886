/* A virtual host killed mid-transfer (host_kill_test.sh runs it under
 * sluicerun --hosts a:2,b:2 --grace 30): ranks 2 and 3 (host b) start
 * sending 64 MiB to ranks 0 and 1 (host a) and kill themselves with SIGKILL
 * 300 ms later, while the data moves.  The survivors ignore SIGTERM (the
 * launcher's tear-down) so that they show what the library does: their
 * receive fails with an MPI error within 5 s of the kill, and they exit 3.
 * A survivor that got no error, or got it late, says FAIL. */
#include <mpi.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BIG (64u << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts); /* both hosts share this machine's clock */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (size != 4) {
        fprintf(stderr, "FAIL: run with 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char *buf = malloc(BIG);
    memset(buf, rank, BIG);
    double t_kill = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    if (rank >= 2) { /* host b: start the transfer, then die in the middle of it */
        MPI_Request r;
        MPI_Isend(buf, BIG, MPI_BYTE, rank - 2, 1, MPI_COMM_WORLD, &r);
        while (now() - t0 < 0.3) {
            int done = 0;
            MPI_Test(&r, &done, MPI_STATUS_IGNORE); /* keeps the transfer moving */
            if (done) MPI_Isend(buf, BIG, MPI_BYTE, rank - 2, 1, MPI_COMM_WORLD, &r);
        }
        printf("rank %d: killing itself at %.3f\n", rank, now());
        fflush(stdout);
        raise(SIGKILL);
    }
    signal(SIGTERM, SIG_IGN);
    t_kill = t0 + 0.3;
    int rc = MPI_SUCCESS;
    for (int i = 0; rc == MPI_SUCCESS && now() - t0 < 30; i++)
        rc = MPI_Recv(buf, BIG, MPI_BYTE, rank + 2, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double late = now() - t_kill;
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS) MPI_Error_string(rc, msg, &len);
    if (rc == MPI_SUCCESS)
        printf("FAIL rank %d: no error 30 s after its peer's host was killed\n", rank);
    else if (late > 5.0)
        printf("FAIL rank %d: error %.2f s after the kill (more than 5 s): %s\n", rank, late, msg);
    else
        printf("rank %d: receive failed %.2f s after the kill: %s\n", rank, late, msg);
    fflush(stdout);
    _exit(3); /* MPI_Finalize would wait for the dead ranks */
}
