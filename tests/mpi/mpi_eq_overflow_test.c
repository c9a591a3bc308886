/* More message completions than the point-to-point event queue holds
 * (run with SLUICE_P2P_EQ_SIZE=16): rank 1 posts N receives and stays out
 * of MPI while rank 0 sends N small messages; when rank 1 drains them, the
 * matches overflow its event queue, Portals flow control disables the
 * message table and rank 1 must abort with the reason and exit status 75
 * (mpi_eq_overflow.sh checks both), not hang or lose messages silently.
 * Rank 0 announces "all sent" through a file; rank 1 then waits, still
 * outside MPI, until its other threads (the engine's progress thread) have
 * been asleep for 20 ms running: the engine has taken every message.
 * Entering MPI_Waitall at once can let the application thread take them
 * from the wire itself, draining the queue as it goes: the suspected cause
 * of rare ends "never overflowed" under CPU load (1 run in 7 beside a busy
 * loop once; not reproduced in 12 runs since, so not confirmed). */
#include <mpi.h>

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "mpi_expect.h"
#include "util/sys.h"

#define N 300

static void flag_path(char *p, size_t n)
{
    const char *key = getenv("SLUICE_JOBKEY");
    snprintf(p, n, "/tmp/sluice-eqov-%s", key ? key : "nokey");
}

/* Are all threads but this one asleep (state S in /proc)? */
static bool others_asleep(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return true;
    bool asleep = true;
    pid_t me = getpid();
    for (struct dirent *e; asleep && (e = readdir(d));) {
        pid_t tid = (pid_t)atoi(e->d_name);
        if (e->d_name[0] == '.' || tid == me) continue;
        char st = sl_proc_state(me, tid);
        if (st && st != 'S') asleep = false; /* (0: the thread has gone) */
    }
    closedir(d);
    return asleep;
}

int main(int argc, char **argv)
{
    int rank, size;
    static char bufs[N][8];
    MPI_Request r[N];
    EXPECT(MPI_Init(&argc, &argv) == MPI_SUCCESS);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    EXPECT(size == 2);
    char path[128];
    flag_path(path, sizeof path);
    if (rank == 1)
        for (int i = 0; i < N; i++)
            EXPECT(MPI_Irecv(bufs[i], 8, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &r[i]) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < N; i++)
            EXPECT(MPI_Send(bufs[i], 8, MPI_BYTE, 1, 5, MPI_COMM_WORLD) == MPI_SUCCESS);
        FILE *f = fopen(path, "w");
        EXPECT(f && fclose(f) == 0);
        int t;
        MPI_Recv(&t, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* never comes */
        return 1;
    }
    struct timespec ms = {0, 1000000};
    while (access(path, F_OK) != 0) nanosleep(&ms, NULL); /* outside MPI */
    unlink(path);
    for (int quiet = 0, i = 0; quiet < 20 && i < 10000; i++) {
        quiet = others_asleep() ? quiet + 1 : 0;
        nanosleep(&ms, NULL);
    }
    MPI_Waitall(N, r, MPI_STATUSES_IGNORE);
    fprintf(stderr, "rank 1: all %d messages completed, the event queue never overflowed\n", N);
    return 1;
}
