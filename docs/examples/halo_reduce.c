/* A collective MPI does not have, written as a schedule (include/sluice.h):
 * a halo exchange on a periodic 2D grid of ranks followed by a global sum
 * of what every rank received, as one non-blocking operation that the
 * application starts, computes beside, and waits for.
 *
 *   1. every rank sends its four edges (N, S, E, W) to its neighbours and
 *      receives theirs into four halo buffers;
 *   2. it adds the four halos into acc (a copy and three reductions, each
 *      after its receive);
 *   3. acc goes to rank 0, which sums all of them into total and sends
 *      total back to everyone.
 *
 * Build: mpicc -o halo_reduce docs/examples/halo_reduce.c
 * Run:   sluicerun -n 4 ./halo_reduce [iterations] [host|offload]
 * Exits 0 when every rank's result is right in every iteration. */
#include <mpi.h>
#include <sluice.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 256, DIRS = 4 }; /* doubles per edge */

#define CHECK(call)                                                                            \
    do {                                                                                       \
        if ((call) != MPI_SUCCESS) {                                                           \
            fprintf(stderr, "%s failed\n", #call);                                             \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                      \
        }                                                                                      \
    } while (0)

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 20;
    int exec = argc > 2 && !strcmp(argv[2], "offload") ? SLUICE_EXEC_OFFLOAD
               : argc > 2 && !strcmp(argv[2], "host")  ? SLUICE_EXEC_HOST
                                                       : SLUICE_EXEC_AUTO;
    MPI_Init(&argc, &argv);
    int rank, size, dims[2] = {0, 0}, periods[2] = {1, 1}, nb[DIRS];
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Comm grid;
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid));
    MPI_Comm_rank(grid, &rank);
    MPI_Cart_shift(grid, 0, 1, &nb[0], &nb[1]); /* N, S */
    MPI_Cart_shift(grid, 1, 1, &nb[2], &nb[3]); /* W, E */

    static double edge[DIRS][N], halo[DIRS][N], acc[N], total[N];
    double *slot = malloc(sizeof(double) * N * (size_t)size);
    SLUICE_Sched s;
    CHECK(SLUICE_Sched_create(grid, &s));
    /* 1-2: the halo exchange and the local sum.  The edge sent towards
     * direction d arrives at that neighbour as its halo from direction
     * d ^ 1 (my N edge is my northern neighbour's S halo): the tag says
     * which halo a message fills. */
    int rv[DIRS], last = -1, v;
    for (int d = 0; d < DIRS; d++) {
        CHECK(SLUICE_Sched_send(s, edge[d], sizeof edge[d], nb[d], d ^ 1, NULL));
        CHECK(SLUICE_Sched_recv(s, halo[d], sizeof halo[d], nb[d], d, &rv[d]));
    }
    CHECK(SLUICE_Sched_copy(s, halo[0], acc, sizeof acc, &last));
    CHECK(SLUICE_Sched_dep(s, rv[0], last));
    for (int d = 1; d < DIRS; d++) {
        CHECK(SLUICE_Sched_reduce(s, halo[d], acc, N, MPI_DOUBLE, MPI_SUM, &v));
        CHECK(SLUICE_Sched_dep(s, rv[d], v));
        CHECK(SLUICE_Sched_dep(s, last, v));
        last = v;
    }
    /* 3: the global sum through rank 0 */
    if (rank == 0) {
        int sum;
        CHECK(SLUICE_Sched_copy(s, acc, total, sizeof total, &sum));
        CHECK(SLUICE_Sched_dep(s, last, sum));
        for (int r = 1; r < size; r++) {
            int in, add;
            CHECK(SLUICE_Sched_recv(s, slot + (size_t)r * N, sizeof acc, r, 10, &in));
            CHECK(SLUICE_Sched_reduce(s, slot + (size_t)r * N, total, N, MPI_DOUBLE, MPI_SUM,
                                      &add));
            CHECK(SLUICE_Sched_dep(s, in, add));
            CHECK(SLUICE_Sched_dep(s, sum, add));
            sum = add;
        }
        for (int r = 1; r < size; r++) {
            int out;
            CHECK(SLUICE_Sched_send(s, total, sizeof total, r, 11, &out));
            CHECK(SLUICE_Sched_dep(s, sum, out));
        }
    } else {
        int out;
        CHECK(SLUICE_Sched_send(s, acc, sizeof acc, 0, 10, &out));
        CHECK(SLUICE_Sched_dep(s, last, out));
        CHECK(SLUICE_Sched_recv(s, total, sizeof total, 0, 11, &v));
    }
    MPI_Request req;
    CHECK(SLUICE_Sched_commit(s, exec, &req));
    if (getenv("HALO_DOT")) CHECK(SLUICE_Sched_dot(s, getenv("HALO_DOT")));
    CHECK(SLUICE_Sched_free(&s));

    int bad = 0;
    for (int it = 0; it < iters; it++) {
        /* every edge element i of rank r in iteration it: (r + 1) * (i + 1) + it */
        for (int d = 0; d < DIRS; d++)
            for (int i = 0; i < N; i++) edge[d][i] = (double)(rank + 1) * (i + 1) + it;
        CHECK(MPI_Start(&req));
        /* ... the application computes here; the schedule moves meanwhile ... */
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        /* each rank's edges reach its four neighbours once each */
        for (int i = 0; i < N; i++) {
            double want = 0;
            for (int r = 0; r < size; r++) want += DIRS * ((double)(r + 1) * (i + 1) + it);
            if (total[i] != want && bad++ < 5)
                fprintf(stderr, "rank %d iteration %d: total[%d] = %g, want %g\n", rank, it, i,
                        total[i], want);
        }
    }
    CHECK(MPI_Request_free(&req));
    free(slot);
    MPI_Comm_free(&grid);
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("halo_reduce: %d ranks, %d iterations, %s\n", size, iters, all ? "WRONG" : "ok");
    MPI_Finalize();
    return all != 0;
}
