/* A HYBRID copy whose pull fails is released all the same, and the failed
 * receive says so (issue 4).  Two ranks:
 *  1. Rank 0 sends 100,000 bytes before rank 1 posts its receive (HYBRID:
 *     a library copy whose reads the sender's engine counts).  Rank 1
 *     receives it into a read-only buffer: the sender's engine, which
 *     writes each chunk into the receiver's memory by cross-memory attach,
 *     is refused, so the gets fail.  Rank 1's MPI_Recv returns
 *     MPI_ERR_OTHER (under MPI_ERRORS_RETURN; it used to return
 *     MPI_SUCCESS) and rank 0's copy is released by FIN: hybrid_by_fin + 1,
 *     none held (it used to stay until MPI_Finalize, its count short).
 *  2. The same message into a writable buffer arrives whole, and its copy
 *     is released by its counter (hybrid_by_counter + 1, no FIN).
 * Run with triggered pulls (default) and host-chained ones
 * (SLUICE_RDRP_TRIGGERED=0).  Needs cross-memory attach between the ranks
 * (the staged fallback would write into the read-only buffer in the
 * receiver's own process): without it, exits 77 (skipped). */

#include "p2p/p2p.h"

#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "mpi_expect.h"

enum { N = 100000, TAG_BIG = 1, TAG_GO = 2, TAG_DONE = 3, SKIP = 77 };
static const MPI_Comm W = MPI_COMM_WORLD;

/* Can rank 0 read rank 1's memory (as the engine's copies will)? */
static int cma_works(int rank)
{
    const char *e = getenv("SLUICE_CMA");
    int ok = !(e && strcmp(e, "0") == 0);
    long probe = 0x5eed;
    struct {
        long pid;
        uintptr_t addr;
    } me = {(long)getpid(), (uintptr_t)&probe}, peer;
    MPI_Sendrecv(&me, sizeof me, MPI_BYTE, 1 - rank, 9, &peer, sizeof peer, MPI_BYTE, 1 - rank, 9,
                 W, MPI_STATUS_IGNORE);
    if (rank == 0 && ok) {
        long got = 0;
        struct iovec l = {&got, sizeof got}, r = {(void *)peer.addr, sizeof got};
        ok = process_vm_readv((pid_t)peer.pid, &l, 1, &r, 1, 0) == (ssize_t)sizeof got &&
             got == 0x5eed;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, W);
    return ok;
}

static unsigned char pat(size_t i, int seed)
{
    return (unsigned char)(i * 7u + (i >> 8) + (unsigned)seed * 31u);
}

static p2p_stats_t stats(void)
{
    p2p_stats_t s;
    p2p_get_stats(&s);
    return s;
}

/* Rank 0: send one HYBRID message, wait until its copy is released, and
 * check how. */
static void sender(int seed, int by_fin)
{
    static unsigned char buf[N];
    for (size_t i = 0; i < N; i++) buf[i] = pat(i, seed);
    p2p_stats_t s0 = stats();
    EXPECT(MPI_Send(buf, N, MPI_BYTE, 1, TAG_BIG, W) == MPI_SUCCESS);
    p2p_stats_t s1 = stats();
    EXPECT(s1.hybrid == s0.hybrid + 1 && s1.hybrid_held == s0.hybrid_held + 1);
    memset(buf, 0, N); /* the send is complete: the library has its own copy */
    EXPECT(MPI_Send(&seed, 1, MPI_INT, 1, TAG_GO, W) == MPI_SUCCESS);
    int done;
    EXPECT(MPI_Recv(&done, 1, MPI_INT, 1, TAG_DONE, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (int i = 0; i < 20000 && stats().hybrid_held > s0.hybrid_held; i++) p2p_wait_progress(1);
    s1 = stats();
    if (s1.hybrid_held != s0.hybrid_held || s1.hybrid_by_fin != s0.hybrid_by_fin + (unsigned)by_fin ||
        s1.hybrid_by_counter != s0.hybrid_by_counter + (unsigned)!by_fin)
        fprintf(stderr, "seed %d: held %lu (was %lu), by FIN %lu (was %lu), by counter %lu (%lu)\n",
                seed, s1.hybrid_held, s0.hybrid_held, s1.hybrid_by_fin, s0.hybrid_by_fin,
                s1.hybrid_by_counter, s0.hybrid_by_counter);
    EXPECT(s1.hybrid_held == s0.hybrid_held);
    EXPECT(s1.hybrid_by_fin == s0.hybrid_by_fin + (unsigned)by_fin);
    EXPECT(s1.hybrid_by_counter == s0.hybrid_by_counter + (unsigned)!by_fin);
}

/* Rank 1: receive it, into read-only memory when `ro`. */
static void receiver(int seed, int ro)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = (N + pg - 1) / pg * pg;
    unsigned char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT(buf != MAP_FAILED);
    memset(buf, 0xa5, len);
    int go;
    EXPECT(MPI_Recv(&go, 1, MPI_INT, 0, TAG_GO, W, MPI_STATUS_IGNORE) == MPI_SUCCESS && go == seed);
    if (ro) EXPECT(mprotect(buf, len, PROT_READ) == 0);
    MPI_Status st;
    st.MPI_ERROR = -1;
    int rc = MPI_Recv(buf, N, MPI_BYTE, 0, TAG_BIG, W, &st);
    if (ro) {
        int cls = -1;
        MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_OTHER) fprintf(stderr, "receive into read-only memory: class %d\n", cls);
        EXPECT(cls == MPI_ERR_OTHER);
        EXPECT(mprotect(buf, len, PROT_READ | PROT_WRITE) == 0);
        EXPECT_BYTES(buf, N, i, 0xa5); /* nothing landed */
    } else {
        EXPECT(rc == MPI_SUCCESS);
        int count = -1;
        EXPECT(MPI_Get_count(&st, MPI_BYTE, &count) == MPI_SUCCESS && count == N);
        EXPECT(st.MPI_SOURCE == 0 && st.MPI_TAG == TAG_BIG);
        EXPECT_BYTES(buf, N, i, pat(i, seed));
    }
    EXPECT(MPI_Send(&seed, 1, MPI_INT, 0, TAG_DONE, W) == MPI_SUCCESS);
    munmap(buf, len);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &size);
    EXPECT(size == 2);
    MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
    if (!cma_works(rank)) {
        if (rank == 0) printf("SKIP: no cross-memory attach between the ranks\n");
        MPI_Finalize();
        return SKIP;
    }
    for (int round = 0; round < 2; round++) {
        int ro = round == 0, seed = 10 + round;
        if (rank == 0) sender(seed, ro);
        else receiver(seed, ro);
    }
    MPI_Barrier(W);
    if (rank == 0) printf("hybrid_fail: OK\n");
    MPI_Finalize();
    return 0;
}
