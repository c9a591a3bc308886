/* The two patterns of paper 001 §5.3 and §7.1 (Figs. 4-7, 16-17) that
 * stress receive buffers, plain MPI (bench/fc_overhead.sh runs it under
 * mailbox sizes; any MPI's mpicc builds it):
 *
 *   alltoall   every rank posts a receive from every other rank, sends one
 *              BYTES message to every other rank (starting with rank+1, so
 *              that the senders spread over the receivers) and waits for
 *              all: the paper's all-to-all with the optimised collective
 *              disabled.  Prints "alltoall BYTES us" per operation.
 *   mpingpong  multi-ping-pong: rank i < P/2 ping-pongs BYTES with rank
 *              i + P/2, all pairs at once (the paper's 16+16 processes of
 *              two nodes).  Prints "mpingpong BYTES us" per round trip.
 *
 * The time is the slowest rank's over ITERS operations (after a tenth of
 * them, at least 2, as warm-up), divided by ITERS; ranks start together
 * after a barrier.  Received data is checked.
 *
 * usage: mpi_fc alltoall|mpingpong [BYTES (2048)] [ITERS (auto)] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void fill(char *b, int bytes, int from, int it)
{
    for (int i = 0; i < bytes; i += 64) b[i] = (char)(from * 7 + it + i);
}

static int check(const char *b, int bytes, int from, int it)
{
    for (int i = 0; i < bytes; i += 64)
        if (b[i] != (char)(from * 7 + it + i)) return 0;
    return 1;
}

static void die(const char *what, int from)
{
    fprintf(stderr, "mpi_fc: rank %d: wrong data from %d (%s)\n", rank, from, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static double alltoall(int bytes, int iters, int warm)
{
    char *sbuf = malloc((size_t)bytes * size), *rbuf = malloc((size_t)bytes * size);
    MPI_Request *req = malloc(sizeof *req * 2 * (size_t)size);
    double t0 = 0;
    for (int it = -warm; it < iters; it++) {
        if (it == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        int n = 0;
        for (int i = 1; i < size; i++) {
            int from = (rank - i + size) % size;
            MPI_Irecv(rbuf + (size_t)from * bytes, bytes, MPI_BYTE, from, 1, MPI_COMM_WORLD,
                      &req[n++]);
        }
        for (int i = 1; i < size; i++) {
            int to = (rank + i) % size;
            fill(sbuf + (size_t)to * bytes, bytes, rank, it & 0xff);
            MPI_Isend(sbuf + (size_t)to * bytes, bytes, MPI_BYTE, to, 1, MPI_COMM_WORLD, &req[n++]);
        }
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
        for (int from = 0; from < size; from++)
            if (from != rank && !check(rbuf + (size_t)from * bytes, bytes, from, it & 0xff))
                die("alltoall", from);
    }
    double t = MPI_Wtime() - t0;
    free(sbuf);
    free(rbuf);
    free(req);
    return t;
}

static double mpingpong(int bytes, int iters, int warm)
{
    char *sbuf = malloc((size_t)bytes), *rbuf = malloc((size_t)bytes);
    int half = size / 2, peer = rank < half ? rank + half : rank - half;
    int active = rank < 2 * half; /* an odd rank out waits */
    double t0 = 0;
    for (int it = -warm; it < iters; it++) {
        if (it == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        if (!active) continue;
        if (rank < half) {
            fill(sbuf, bytes, rank, it & 0xff);
            MPI_Send(sbuf, bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
            MPI_Recv(rbuf, bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            fill(sbuf, bytes, rank, it & 0xff);
            MPI_Send(sbuf, bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
        }
        if (!check(rbuf, bytes, peer, it & 0xff)) die("mpingpong", peer);
    }
    double t = MPI_Wtime() - t0;
    free(sbuf);
    free(rbuf);
    return t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "alltoall";
    int bytes = argc > 2 ? atoi(argv[2]) : 2048;
    int a2a = strcmp(mode, "alltoall") == 0;
    if (!a2a && strcmp(mode, "mpingpong") != 0) {
        if (rank == 0) fprintf(stderr, "usage: mpi_fc alltoall|mpingpong [BYTES] [ITERS]\n");
        MPI_Finalize();
        return 2;
    }
    /* about the same number of messages per run whatever the job's size */
    int iters = argc > 3 ? atoi(argv[3]) : a2a ? 4000 / size + 20 : 2000;
    int warm = iters / 10 > 2 ? iters / 10 : 2;
    double t = a2a ? alltoall(bytes, iters, warm) : mpingpong(bytes, iters, warm), tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("%s %d %.3f\n", mode, bytes, tmax / iters * 1e6);
    MPI_Finalize();
    return 0;
}
