/* Paper 002's application: a 3D FFT of an N^3 complex grid, slab
 * decomposed (each of P ranks holds N/P planes z of N x N), transposed with
 * an alltoall so that each rank then holds N/P columns x of every plane and
 * finishes with the 1D FFTs along z.  Plain MPI + FFTW (built by each MPI's
 * mpicc in bench/fft_compare.sh).
 *
 *   blocking   every plane's 2D FFT, then one MPI_Alltoall of everything
 *   pipelined  plane by plane: the 2D FFT of plane i, then an MPI_Ialltoall
 *              of plane i that proceeds while the next plane is
 *              transformed (no MPI_Test in between: progress is the
 *              library's business), all waited for at the end
 *
 * The result is checked against a sequential transform of the same grid
 * (rank 0, first run, N <= 64).  Prints "mode N P seconds_per_transform".
 * usage: fft3d blocking|pipelined N [REPEATS] */
#include <complex.h>
#include <fftw3.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

/* The grid's value at (x, y, z): anything deterministic. */
static double complex input(int x, int y, int z)
{
    return sin(0.1 * x + 0.37 * y) + I * cos(0.23 * z - 0.05 * x * y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int pipelined = argc > 1 && !strcmp(argv[1], "pipelined");
    int n = argc > 2 ? atoi(argv[2]) : 128, reps = argc > 3 ? atoi(argv[3]) : 5;
    if (n % size) {
        if (!rank) fprintf(stderr, "N must be a multiple of the rank count\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int lz = n / size, lx = n / size;
    size_t plane = (size_t)n * n, blk = (size_t)lx * n; /* one plane's block for one rank */
    fftw_complex *a = fftw_malloc(sizeof(fftw_complex) * plane * lz);   /* [z][y][x] */
    fftw_complex *send = fftw_malloc(sizeof(fftw_complex) * plane * lz); /* [z][dest][x'][y] */
    fftw_complex *recv = fftw_malloc(sizeof(fftw_complex) * plane * lz); /* [z][src][x'][y] */
    fftw_complex *col = fftw_malloc(sizeof(fftw_complex) * (size_t)n * n * lx); /* [x'][y][z] */
    fftw_plan p2 = fftw_plan_dft_2d(n, n, a, a, FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_plan p1 = fftw_plan_many_dft(1, &n, n * lx, col, NULL, 1, n, col, NULL, 1, n,
                                      FFTW_FORWARD, FFTW_ESTIMATE);
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)lz);
    double best = 1e30;
    for (int rep = 0; rep <= reps; rep++) {
        for (int z = 0; z < lz; z++)
            for (int y = 0; y < n; y++)
                for (int x = 0; x < n; x++)
                    a[((size_t)z * n + y) * n + x] = input(x, y, rank * lz + z);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int z = 0; z < lz; z++) {
            fftw_complex *pl = a + (size_t)z * plane;
            fftw_execute_dft(p2, pl, pl);
            /* pack: for each destination d, its columns x' in [d lx, d lx + lx) */
            fftw_complex *s = send + (size_t)z * plane;
            for (int d = 0; d < size; d++)
                for (int xx = 0; xx < lx; xx++)
                    for (int y = 0; y < n; y++)
                        s[(size_t)d * blk + (size_t)xx * n + y] = pl[(size_t)y * n + d * lx + xx];
            if (pipelined)
                MPI_Ialltoall(s, (int)blk * 2, MPI_DOUBLE, recv + (size_t)z * plane, (int)blk * 2,
                              MPI_DOUBLE, MPI_COMM_WORLD, &req[z]);
        }
        if (pipelined) {
            MPI_Waitall(lz, req, MPI_STATUSES_IGNORE);
        } else {
            /* one exchange of all planes: block for d is lz planes' columns */
            fftw_complex *t = fftw_malloc(sizeof(fftw_complex) * plane * lz);
            for (int d = 0; d < size; d++)
                for (int z = 0; z < lz; z++)
                    memcpy(t + ((size_t)d * lz + z) * blk, send + (size_t)z * plane + (size_t)d * blk,
                           sizeof(fftw_complex) * blk);
            MPI_Alltoall(t, (int)(blk * lz) * 2, MPI_DOUBLE, col, (int)(blk * lz) * 2, MPI_DOUBLE,
                         MPI_COMM_WORLD);
            for (int src = 0; src < size; src++)
                for (int z = 0; z < lz; z++)
                    memcpy(recv + (size_t)z * plane + (size_t)src * blk,
                           col + ((size_t)src * lz + z) * blk, sizeof(fftw_complex) * blk);
            fftw_free(t);
        }
        /* unpack into columns: global z = src lz + zl */
        for (int z = 0; z < lz; z++)
            for (int src = 0; src < size; src++)
                for (int xx = 0; xx < lx; xx++)
                    for (int y = 0; y < n; y++)
                        col[((size_t)xx * n + y) * n + src * lz + z] =
                            recv[(size_t)z * plane + (size_t)src * blk + (size_t)xx * n + y];
        fftw_execute(p1);
        double t = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (rep > 0 && t < best) best = t;
        if (rep == 0 && n <= 64) { /* check one point per rank against a direct sum */
            int x = rank * lx, y = 3 % n, zf = 5 % n;
            double complex want = 0;
            for (int zz = 0; zz < n; zz++)
                for (int yy = 0; yy < n; yy++)
                    for (int xx = 0; xx < n; xx++)
                        want += input(xx, yy, zz) *
                                cexp(-2 * M_PI * I * ((double)x * xx + (double)y * yy + (double)zf * zz) / n);
            double complex got = col[((size_t)0 * n + y) * n + zf];
            if (cabs(got - want) > 1e-6 * (1 + cabs(want))) {
                fprintf(stderr, "rank %d: wrong result (%g%+gi, expected %g%+gi)\n", rank,
                        creal(got), cimag(got), creal(want), cimag(want));
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
    }
    if (!rank) printf("%s %d %d %.6f\n", pipelined ? "pipelined" : "blocking", n, size, best);
    fftw_destroy_plan(p1);
    fftw_destroy_plan(p2);
    fftw_free(a);
    fftw_free(send);
    fftw_free(recv);
    fftw_free(col);
    free(req);
    MPI_Finalize();
    return 0;
}
