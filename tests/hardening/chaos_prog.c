/* The job scripts/chaos.sh kills a rank of (issue 26, docs/RELIABILITY.md):
 * loops until killed (or for ITERS rounds when given an argument) over
 * point-to-point floods of every size class (short, eager, hybrid-sized,
 * rendezvous), rendezvous transfers with Sendrecv, blocking collectives and
 * non-blocking collectives overlapped with point-to-point traffic. Every
 * rank prints "chaos rank R pid P" once MPI_Init returned, so the script
 * knows which pid is which rank and that the job runs.
 *   chaos_prog [ITERS (-1: until killed)] [allreduce]
 * With "allreduce", the loop is an MPI_Allreduce of one long, checked
 * (scripts/chaos_launcher.sh: the launcher killed, a rank stopped). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FLOOD 16
#define BIG (1 << 20)

static void fail(const char *what, int rank, long iter)
{
    fprintf(stderr, "chaos_prog: rank %d: %s wrong in round %ld\n", rank, what, iter);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

int main(int argc, char **argv)
{
    int rank, size;
    long iters = argc > 1 ? atol(argv[1]) : -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("chaos rank %d pid %d\n", rank, (int)getpid());
    fflush(stdout);
    if (argc > 2 && !strcmp(argv[2], "allreduce")) {
        for (long it = 0; iters < 0 || it < iters; it++) {
            long v = rank + it, sum = 0;
            MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            if (sum != (long)size * it + (long)size * (size - 1) / 2) fail("allreduce", rank, it);
        }
        MPI_Finalize();
        return 0;
    }

    static const int sizes[] = {0, 8, 1024, 32768, 200000, BIG};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    char *sbuf = malloc((size_t)FLOOD * BIG), *rbuf = malloc((size_t)FLOOD * BIG);
    int *a2a_s = malloc(sizeof(int) * (size_t)size * 64), *a2a_r = malloc(sizeof(int) * (size_t)size * 64);
    if (!sbuf || !rbuf || !a2a_s || !a2a_r) MPI_Abort(MPI_COMM_WORLD, 2);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request req[2 * FLOOD + 2];

    for (long it = 0; iters < 0 || it < iters; it++) {
        /* Floods: FLOOD messages of one size to the right, from the left. */
        int sz = sizes[it % nsizes];
        int n = sz >= BIG ? 4 : FLOOD;
        for (int i = 0; i < n; i++)
            MPI_Irecv(rbuf + (size_t)i * (size_t)sz, sz, MPI_CHAR, left, i, MPI_COMM_WORLD, &req[i]);
        for (int i = 0; i < n; i++) {
            if (sz > 0) memset(sbuf + (size_t)i * (size_t)sz, (char)(rank + i), (size_t)sz);
            MPI_Isend(sbuf + (size_t)i * (size_t)sz, sz, MPI_CHAR, right, i, MPI_COMM_WORLD, &req[n + i]);
        }
        MPI_Waitall(2 * n, req, MPI_STATUSES_IGNORE);
        for (int i = 0; i < n; i++)
            if (sz > 0 && (rbuf[(size_t)i * (size_t)sz] != (char)(left + i) ||
                           rbuf[(size_t)i * (size_t)sz + (size_t)sz - 1] != (char)(left + i)))
                fail("flood data", rank, it);

        /* A rendezvous transfer both ways, and a synchronous send. */
        MPI_Sendrecv(sbuf, BIG, MPI_CHAR, right, 100, rbuf, BIG, MPI_CHAR, left, 100, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (rank % 2 == 0) {
            MPI_Ssend(sbuf, 4096, MPI_CHAR, right, 101, MPI_COMM_WORLD);
            MPI_Recv(rbuf, 4096, MPI_CHAR, left, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, 4096, MPI_CHAR, left, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Ssend(sbuf, 4096, MPI_CHAR, right, 101, MPI_COMM_WORLD);
        }

        /* Blocking collectives. */
        long v = rank + it, sum = 0;
        MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (sum != (long)size * it + (long)size * (size - 1) / 2) fail("allreduce", rank, it);
        MPI_Bcast(rbuf, 65536, MPI_CHAR, (int)(it % size), MPI_COMM_WORLD);
        for (int i = 0; i < size * 64; i++) a2a_s[i] = rank * 1000 + i / 64;
        MPI_Alltoall(a2a_s, 64, MPI_INT, a2a_r, 64, MPI_INT, MPI_COMM_WORLD);
        for (int i = 0; i < size; i++)
            if (a2a_r[i * 64] != i * 1000 + rank) fail("alltoall", rank, it);
        MPI_Barrier(MPI_COMM_WORLD);

        /* Non-blocking collectives overlapped with point-to-point. */
        long s2 = 0;
        MPI_Iallreduce(&v, &s2, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &req[0]);
        MPI_Ibcast(sbuf, BIG / 4, MPI_CHAR, 0, MPI_COMM_WORLD, &req[1]);
        MPI_Irecv(rbuf, 32768, MPI_CHAR, left, 102, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(sbuf + BIG, 32768, MPI_CHAR, right, 102, MPI_COMM_WORLD, &req[3]);
        MPI_Ibarrier(MPI_COMM_WORLD, &req[4]);
        MPI_Waitall(5, req, MPI_STATUSES_IGNORE);
        if (s2 != sum) fail("iallreduce", rank, it);
    }
    free(sbuf);
    free(rbuf);
    free(a2a_s);
    free(a2a_r);
    MPI_Finalize();
    return 0;
}
