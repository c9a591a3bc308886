/* MPI_Alloc_mem / MPI_Free_mem (MPI 3.1 §8.2).
 *
 * Cache-line aligned heap memory, recorded so that MPI_Free_mem can refuse
 * a pointer it did not hand out (MPI_ERR_BASE) instead of corrupting the
 * heap.  The wire's shared heap (SLUICE_SHM_HEAP, where a peer's get is one
 * memcpy) is the intended source once the rendezvous protocols move user
 * buffers directly; the eager protocol copies through bounce buffers, so it
 * would gain nothing yet, and p2p sees only the Portals API. */
#include "mpi/mpi_int.h"

#include <stdint.h>
#include <stdlib.h>

#define MEM_ALIGN 64

static struct {
    void **ptr; /* live allocations, unordered; Alloc_mem is not a hot path */
    size_t n, cap;
} M;

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    (void)info; /* no hints are understood; MPI lets them be ignored */
    if (size < 0) return mpi_err(NULL, MPI_ERR_SIZE, "MPI_Alloc_mem", "negative size");
    if (!baseptr) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Alloc_mem", "baseptr is NULL");
    if (M.n == M.cap) {
        size_t cap = M.cap ? 2 * M.cap : 16;
        void **p = realloc(M.ptr, cap * sizeof *p);
        if (!p) return mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Alloc_mem", NULL);
        M.ptr = p;
        M.cap = cap;
    }
    void *mem = NULL;
    if (posix_memalign(&mem, MEM_ALIGN, size ? (size_t)size : 1) != 0)
        return mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Alloc_mem", "out of memory");
    M.ptr[M.n++] = mem;
    *(void **)baseptr = mem;
    return MPI_SUCCESS;
}

int MPI_Free_mem(void *base)
{
    for (size_t i = 0; i < M.n; i++) {
        if (M.ptr[i] != base) continue;
        M.ptr[i] = M.ptr[--M.n];
        free(base);
        if (!M.n) { /* nothing live: give the table back too */
            free(M.ptr);
            M.ptr = NULL;
            M.cap = 0;
        }
        return MPI_SUCCESS;
    }
    return mpi_err(NULL, MPI_ERR_BASE, "MPI_Free_mem", "not memory from MPI_Alloc_mem");
}
