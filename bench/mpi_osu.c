/* The three patterns the standard MPI micro-benchmarks (the OSU suite's
 * latency, bw and bibw) measure, with their buffers, run lengths and
 * synchronisation, so that what Sluice reports is what users see:
 *   lat   ping-pong of MPI_Send/MPI_Recv; 10,000 round trips (100 untimed)
 *         up to 8 KiB, 1,000 (10) above; one-way us = time / 2 / iterations.
 *   bw    rank 0 posts a window of 64 MPI_Isends, all from one page-aligned
 *         send buffer, rank 1 64 MPI_Irecvs, all into one page-aligned
 *         receive buffer, both MPI_Waitall, and a 4-byte ack closes the
 *         window; 100 windows (10 untimed) up to 8 KiB, 20 (2) above; MB/s.
 *   bibw  both ranks post 64 MPI_Irecvs, then 64 MPI_Isends, then wait for
 *         all 128; bytes of both directions / time, MB/s.
 *   xchg  both ranks MPI_Irecv, MPI_Isend and MPI_Waitall one message each
 *         way, as the pairwise steps of collectives do; 10,000 exchanges
 *         (1,000 above 8 KiB, the first tenth untimed); us per exchange.
 *   latmt the ping-pong from THREADS threads per rank at once (MPI_THREAD_
 *         MULTIPLE; thread t of one rank with thread t of the other, on tag
 *         t), the multithreaded latency benchmark's pattern; us: the span
 *         from the first thread's timed start to the last one's end / 2 /
 *         iterations (so that threads run one after another do not count
 *         as overlapping).
 * Every size from 1 B to the largest, by powers of two, in one process (as
 * the suite runs them: what warms up at small sizes stays warm), after a
 * barrier each.  Prints "SIZE VALUE" lines.  Plain MPI: every mpicc builds it.
 * usage: [THREADS=n] mpirun -n 2 mpi_osu lat|bw|bibw|xchg|latmt [largest (4 MiB)] [smallest (1)] */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WINDOW 64
#define LARGE 8192

static int rank;
static int nthreads = 2; /* latmt: threads per rank (THREADS) */

/* *t0 and *t1: when the timed iterations began and ended. */
static double pingpong(char *s, char *r, int len, int tag, double *t0, double *t1)
{
    int iters = len > LARGE ? 1000 : 10000, skip = len > LARGE ? 10 : 100;
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip) *t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(s, len, MPI_CHAR, 1, tag, MPI_COMM_WORLD);
            MPI_Recv(r, len, MPI_CHAR, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(r, len, MPI_CHAR, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(s, len, MPI_CHAR, 0, tag, MPI_COMM_WORLD);
        }
    }
    *t1 = MPI_Wtime();
    return (*t1 - *t0) * 1e6 / 2 / iters;
}

static double lat(char *s, char *r, int len)
{
    double t0, t1;
    return pingpong(s, r, len, 1, &t0, &t1);
}

typedef struct mt_arg {
    pthread_t id;
    char *s, *r;
    int len, tag;
    double t0, t1;
} mt_arg_t;

static void *mt_main(void *p)
{
    mt_arg_t *a = p;
    (void)pingpong(a->s, a->r, a->len, a->tag, &a->t0, &a->t1);
    return NULL;
}

/* Every thread its own ping-pong at once, each with its own buffers (the
 * caller's are thread 0's).  The latency is the span from the first
 * thread's timed start to the last one's end over the iterations: per-
 * thread times would reward a library that runs the threads one after the
 * other (a lock that its holder keeps re-taking) as if they overlapped. */
static double latmt(char *s, char *r, int len)
{
    mt_arg_t a[64];
    double first = 0, last = 0;
    int iters = len > LARGE ? 1000 : 10000;
    for (int t = 0; t < nthreads; t++) {
        a[t] = (mt_arg_t){.s = s, .r = r, .len = len, .tag = 10 + t};
        if (t) {
            a[t].s = malloc((size_t)len + 1);
            a[t].r = malloc((size_t)len + 1);
            if (!a[t].s || !a[t].r) MPI_Abort(MPI_COMM_WORLD, 1);
        }
        pthread_create(&a[t].id, NULL, mt_main, &a[t]);
    }
    for (int t = 0; t < nthreads; t++) {
        pthread_join(a[t].id, NULL);
        if (!t || a[t].t0 < first) first = a[t].t0;
        if (!t || a[t].t1 > last) last = a[t].t1;
        if (t) {
            free(a[t].s);
            free(a[t].r);
        }
    }
    return (last - first) * 1e6 / 2 / iters;
}

static double bw(char *s, char *r, int len, int both)
{
    int iters = len > LARGE ? 20 : 100, skip = len > LARGE ? 2 : 10;
    MPI_Request rq[2 * WINDOW];
    MPI_Status st[2 * WINDOW]; /* not MPI_STATUSES_IGNORE: gcc warns on MPICH's prototype */
    double t0 = 0;
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip) t0 = MPI_Wtime();
        if (both) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(r, len, MPI_CHAR, 1 - rank, 10, MPI_COMM_WORLD, &rq[w]);
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(s, len, MPI_CHAR, 1 - rank, 10, MPI_COMM_WORLD, &rq[WINDOW + w]);
            MPI_Waitall(2 * WINDOW, rq, st);
        } else if (rank == 0) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(s, len, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &rq[w]);
            MPI_Waitall(WINDOW, rq, st);
            MPI_Recv(r, 4, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(r, len, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &rq[w]);
            MPI_Waitall(WINDOW, rq, st);
            MPI_Send(s, 4, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
        }
    }
    double t = MPI_Wtime() - t0;
    return (double)len * WINDOW * iters * (both ? 2 : 1) / t / 1e6;
}

static double xchg(char *s, char *r, int len)
{
    int iters = len > LARGE ? 1000 : 10000, skip = iters / 10;
    MPI_Request rq[2];
    MPI_Status st[2];
    double t0 = 0;
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip) t0 = MPI_Wtime();
        MPI_Irecv(r, len, MPI_CHAR, 1 - rank, 20, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(s, len, MPI_CHAR, 1 - rank, 20, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, st);
    }
    return (MPI_Wtime() - t0) * 1e6 / iters;
}

int main(int argc, char **argv)
{
    int size;
    const char *mode = argc > 1 ? argv[1] : "bw";
    long largest = argc > 2 ? atol(argv[2]) : 4l << 20, smallest = argc > 3 ? atol(argv[3]) : 1;
    int kind = !strcmp(mode, "lat")    ? 0
               : !strcmp(mode, "bw")   ? 1
               : !strcmp(mode, "bibw") ? 2
               : !strcmp(mode, "latmt") ? 3
               : !strcmp(mode, "xchg") ? 4
                                        : -1;
    int provided = MPI_THREAD_SINGLE;
    if (getenv("THREADS")) nthreads = atoi(getenv("THREADS"));
    if (kind == 3) MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (kind == 3 && (provided != MPI_THREAD_MULTIPLE || nthreads < 1 || nthreads > 64)) kind = -1;
    long page = sysconf(_SC_PAGESIZE);
    void *s = NULL, *r = NULL;
    if (size != 2 || kind < 0 || largest < 1 || smallest < 1 ||
        posix_memalign(&s, (size_t)page, (size_t)largest) ||
        posix_memalign(&r, (size_t)page, (size_t)largest)) {
        if (rank == 0)
            fprintf(stderr, "usage: [THREADS=n] mpirun -n 2 mpi_osu lat|bw|bibw|xchg|latmt [largest] "
                            "[smallest]\n(latmt needs MPI_THREAD_MULTIPLE, 1 <= n <= 64)\n");
        MPI_Finalize();
        return 1;
    }
    for (long len = smallest; len <= largest; len *= 2) {
        memset(s, 'a', (size_t)len);
        memset(r, 'b', (size_t)len);
        MPI_Barrier(MPI_COMM_WORLD);
        double v = kind == 0 ? lat(s, r, (int)len)
                   : kind == 3 ? latmt(s, r, (int)len)
                   : kind == 4 ? xchg(s, r, (int)len)
                               : bw(s, r, (int)len, kind == 2);
        if (rank == 0) printf("%ld %.3f\n", len, v);
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
