/* Protocol corner cases where one rank stays out of MPI for a while (it
 * waits on a flag file or on its buffer, never on a clock), found by review:
 *  1. MPI_Cancel of a receive whose message has already arrived (the engine
 *     matched it while the rank was outside MPI): the cancel must fail, the
 *     data must be there, and 600 further receive/cancel pairs must not be
 *     disturbed by the dead entry's recycled handle.
 *  2. A flood of RECEIVER_READY notices (thousands of large receives posted)
 *     while the sender is outside MPI with a synchronous send outstanding:
 *     the send's completion events must survive.
 *  3. 1000 HYBRID sends of 20 KB to a rank that is outside MPI: the sender
 *     completes them all, nothing is dropped, everything arrives intact.
 * Run with SLUICE_EAGER_LIMIT=1024 (part 2 stays small) and 64 KiB bounce
 * buffers (part 3 would overflow them if HYBRID put data there). */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi_expect.h"

static const MPI_Comm W = MPI_COMM_WORLD;
static int rank;

static void nap(void)
{
    struct timespec t = {0, 2000000};
    nanosleep(&t, NULL);
}

static void flag_path(char *p, size_t n, const char *what)
{
    const char *key = getenv("SLUICE_JOBKEY");
    snprintf(p, n, "/tmp/sluice-quiet-%s-%s", key ? key : "nokey", what);
}

static void flag_set(const char *what)
{
    char p[160];
    flag_path(p, sizeof p, what);
    FILE *f = fopen(p, "w");
    EXPECT(f && fclose(f) == 0);
}

/* Outside MPI until the flag exists (at most 30 s). */
static void flag_wait(const char *what)
{
    char p[160];
    flag_path(p, sizeof p, what);
    for (int i = 0; i < 15000 && access(p, F_OK) != 0; i++) nap();
    EXPECT(access(p, F_OK) == 0);
    unlink(p);
}

/* Engine writes while we look: not instrumented (see mpi_offload_test). */
__attribute__((no_sanitize_thread, noinline)) static int last_byte_is(const char *b, size_t n,
                                                                      char c)
{
    return b[n - 1] == c;
}

static void cancel_after_match(void)
{
    enum { BIG = 1 << 20 };
    char *buf = malloc(BIG);
    memset(buf, rank ? 'x' : 0, BIG);
    MPI_Request big;
    if (rank == 0) {
        EXPECT(MPI_Irecv(buf, BIG, MPI_CHAR, 1, 1, W, &big) == MPI_SUCCESS);
        MPI_Barrier(W);
        for (int i = 0; i < 15000 && !last_byte_is(buf, BIG, 'x'); i++) nap(); /* no MPI */
        EXPECT(last_byte_is(buf, BIG, 'x'));
        for (int i = 0; i < 600; i++) {
            MPI_Request s;
            MPI_Status st;
            int small = 0, flag = 0;
            EXPECT(MPI_Irecv(&small, 1, MPI_INT, 1, 5, W, &s) == MPI_SUCCESS);
            if (big != MPI_REQUEST_NULL) EXPECT(MPI_Cancel(&big) == MPI_SUCCESS);
            EXPECT(MPI_Cancel(&s) == MPI_SUCCESS);
            EXPECT(MPI_Test(&s, &flag, &st) == MPI_SUCCESS && flag);
            EXPECT(MPI_Test_cancelled(&st, &flag) == MPI_SUCCESS && flag);
        }
        MPI_Status st;
        int c = 1, count = 0;
        EXPECT(MPI_Wait(&big, &st) == MPI_SUCCESS);
        EXPECT(MPI_Test_cancelled(&st, &c) == MPI_SUCCESS && c == 0);
        EXPECT(MPI_Get_count(&st, MPI_CHAR, &count) == MPI_SUCCESS && count == BIG);
        for (int i = 0; i < BIG; i++) EXPECT(buf[i] == 'x');
        int t = 1;
        EXPECT(MPI_Send(&t, 1, MPI_INT, 1, 9, W) == MPI_SUCCESS);
    } else {
        MPI_Barrier(W);
        int t;
        EXPECT(MPI_Isend(buf, BIG, MPI_CHAR, 0, 1, W, &big) == MPI_SUCCESS);
        EXPECT(MPI_Recv(&t, 1, MPI_INT, 0, 9, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        EXPECT(MPI_Wait(&big, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    }
    free(buf);
}

static void rr_flood(void)
{
    enum { N = 20000, MSZ = 2048 };
    static char a[300000];
    if (rank == 1) {
        MPI_Request r;
        EXPECT(MPI_Issend(a, sizeof a, MPI_CHAR, 0, 20, W, &r) == MPI_SUCCESS);
        flag_wait("flood"); /* outside MPI while N notices arrive */
        EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        int t = 1;
        EXPECT(MPI_Send(&t, 1, MPI_INT, 0, 27, W) == MPI_SUCCESS);
    } else {
        EXPECT(MPI_Recv(a, sizeof a, MPI_CHAR, 1, 20, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        char *bufs = malloc((size_t)N * MSZ);
        MPI_Request *rq = malloc(N * sizeof *rq);
        EXPECT(bufs && rq);
        for (int i = 0; i < N; i++)
            EXPECT(MPI_Irecv(bufs + (size_t)i * MSZ, MSZ, MPI_CHAR, 1, 21, W, &rq[i]) ==
                   MPI_SUCCESS);
        flag_set("flood");
        int t;
        EXPECT(MPI_Recv(&t, 1, MPI_INT, 1, 27, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (int i = 0; i < N; i++) EXPECT(MPI_Cancel(&rq[i]) == MPI_SUCCESS);
        EXPECT(MPI_Waitall(N, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        free(bufs);
        free(rq);
    }
}

static void hybrid_flood(void)
{
    enum { N = 1000, SZ = 20000 };
    static char b[SZ];
    if (rank == 1) {
        for (int i = 0; i < N; i++) {
            memset(b, 'a' + i % 26, SZ);
            EXPECT(MPI_Send(b, SZ, MPI_CHAR, 0, 30, W) == MPI_SUCCESS);
        }
        flag_set("hybrid"); /* all sent while the receiver was outside MPI */
    } else {
        flag_wait("hybrid");
        for (int i = 0; i < N; i++) {
            MPI_Status st;
            int count = 0;
            EXPECT(MPI_Recv(b, SZ, MPI_CHAR, 1, 30, W, &st) == MPI_SUCCESS);
            EXPECT(MPI_Get_count(&st, MPI_CHAR, &count) == MPI_SUCCESS && count == SZ);
            EXPECT(b[0] == 'a' + i % 26 && b[SZ - 1] == 'a' + i % 26);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &size);
    EXPECT(size == 2);
    cancel_after_match();
    MPI_Barrier(W);
    rr_flood();
    MPI_Barrier(W);
    hybrid_flood();
    MPI_Barrier(W);
    if (rank == 0) printf("mpi_quiet_peer_test: ok\n");
    MPI_Finalize();
    return 0;
}
