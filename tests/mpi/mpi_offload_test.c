/* Progress without the host (DESIGN.md §4: the rendezvous pull chained as
 * triggered gets).  Rank 0 sends a large message first; rank 1 posts the
 * receive and then makes no MPI call at all: it sleeps in nanosleep and
 * looks at its buffer.  The whole message must arrive while it sleeps (the
 * engine's progress thread runs the triggered gets), and rank 0's MPI_Wait
 * must return (the triggered FIN), which rank 0 announces through a file,
 * not through MPI.  Then the same for RECV_RNDV (receive first: the sender
 * puts straight into the buffer).  With SLUICE_RDRP_TRIGGERED=0 the first
 * part fails: nothing moves until rank 1 calls MPI again. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi_expect.h"

#define N (8u << 20) /* 8 MiB: 4 chunks of the default 2 MiB, the last 2 triggered gets */
static const MPI_Comm W = MPI_COMM_WORLD;

static unsigned char pat(size_t i, int seed)
{
    return (unsigned char)(i * 11u + (i >> 13) + (unsigned)seed);
}

static void nap_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void flag_path(char *p, size_t n, int round)
{
    const char *key = getenv("SLUICE_JOBKEY");
    snprintf(p, n, "/tmp/sluice-offload-%s-%d", key ? key : "nokey", round);
}

/* Peeks at a buffer the engine is writing: a race by design (the test's
 * point is to watch the data arrive without MPI), so TSan must not
 * instrument it; MPI_Wait orders everything afterwards. */
__attribute__((no_sanitize_thread, noinline)) static int all_there(const unsigned char *b,
                                                                   int seed)
{
    for (size_t i = 0; i < N; i += 4093)
        if (b[i] != pat(i, seed)) return 0;
    return b[N - 1] == pat(N - 1, seed);
}

static void sender(int round, int receiver_first)
{
    unsigned char *b = malloc(N);
    EXPECT(b);
    for (size_t i = 0; i < N; i++) b[i] = pat(i, round);
    int t = 0;
    MPI_Request r;
    if (receiver_first)
        EXPECT(MPI_Recv(&t, 1, MPI_INT, 1, 99, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    EXPECT(MPI_Isend(b, N, MPI_BYTE, 1, round, W, &r) == MPI_SUCCESS);
    if (!receiver_first) EXPECT(MPI_Send(&t, 1, MPI_INT, 1, 99, W) == MPI_SUCCESS);
    EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    char path[128];
    flag_path(path, sizeof path, round);
    FILE *f = fopen(path, "w");
    EXPECT(f && fclose(f) == 0);
    free(b);
}

static void receiver(int round, int receiver_first)
{
    unsigned char *b = calloc(1, N);
    EXPECT(b);
    int t = 0;
    MPI_Request r;
    MPI_Status st;
    if (!receiver_first) /* the header is here before the token */
        EXPECT(MPI_Recv(&t, 1, MPI_INT, 0, 99, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    EXPECT(MPI_Irecv(b, N, MPI_BYTE, 0, round, W, &r) == MPI_SUCCESS);
    if (receiver_first) EXPECT(MPI_Send(&t, 1, MPI_INT, 0, 99, W) == MPI_SUCCESS);
    /* no MPI call from here until both the data and the sender's flag are there */
    char path[128];
    flag_path(path, sizeof path, round);
    int data = 0, flag = 0;
    for (int ms = 0; ms < 20000 && !(data && flag); ms += 2) {
        nap_ms(2);
        data = data || all_there(b, round);
        flag = flag || access(path, F_OK) == 0;
    }
    if (!data || !flag)
        fprintf(stderr, "round %d: data %s, sender %s while the receiver slept\n", round,
                data ? "arrived" : "did NOT arrive", flag ? "completed" : "did NOT complete");
    EXPECT(data && flag);
    unlink(path);
    EXPECT(MPI_Wait(&r, &st) == MPI_SUCCESS);
    for (size_t i = 0; i < N; i++) EXPECT(b[i] == pat(i, round));
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &size);
    EXPECT(size == 2);
    for (int round = 0; round < 2; round++) {
        if (rank == 0) sender(round, round == 1);
        else receiver(round, round == 1);
        MPI_Barrier(W);
    }
    if (rank == 0) printf("mpi_offload_test: ok\n");
    MPI_Finalize();
    return 0;
}
