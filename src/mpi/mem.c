/* MPI_Alloc_mem / MPI_Free_mem (MPI 3.1 §8.2).
 *
 * Between MPI_Init and MPI_Finalize the memory comes from the engine's
 * shared heap (SLUICE_SHM_HEAP, p2p_mem_alloc): every peer on the host has
 * it mapped, so the rendezvous protocols, which move user buffers directly,
 * move it with one memcpy instead of a cross-memory-attach system call.
 * When the heap is exhausted (or disabled, or MPI is not running) it is
 * ordinary cache-line aligned memory.  Shared blocks live until
 * MPI_Finalize, which unmaps the heap.  Every block is recorded so that
 * MPI_Free_mem can refuse a pointer it did not hand out (MPI_ERR_BASE)
 * instead of corrupting either heap. */
#include "mpi/mpi_int.h"
#include "p2p/p2p.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define MEM_ALIGN 64

typedef struct mem_block {
    void *ptr;
    bool shared; /* from p2p_mem_alloc */
} mem_block_t;

static struct {
    mem_block_t *b; /* live allocations, unordered; Alloc_mem is not a hot path */
    size_t n, cap;
} M;

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    MPI_ENTER();
    (void)info; /* no hints are understood; MPI lets them be ignored */
    if (size < 0) return mpi_err(NULL, MPI_ERR_SIZE, "MPI_Alloc_mem", "negative size");
    if (!baseptr) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Alloc_mem", "baseptr is NULL");
    if (M.n == M.cap) {
        size_t cap = M.cap ? 2 * M.cap : 16;
        mem_block_t *b = realloc(M.b, cap * sizeof *b);
        if (!b) return mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Alloc_mem", NULL);
        M.b = b;
        M.cap = cap;
    }
    void *mem = NULL;
    bool shared = mpi_state == 1 && p2p_mem_alloc((size_t)size, &mem) == SL_OK;
    if (!shared && posix_memalign(&mem, MEM_ALIGN, size ? (size_t)size : 1) != 0)
        return mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Alloc_mem", "out of memory");
    M.b[M.n++] = (mem_block_t){mem, shared};
    *(void **)baseptr = mem;
    return MPI_SUCCESS;
}

int MPI_Free_mem(void *base)
{
    MPI_ENTER();
    for (size_t i = 0; i < M.n; i++) {
        if (M.b[i].ptr != base) continue;
        bool shared = M.b[i].shared;
        M.b[i] = M.b[--M.n];
        if (!shared) free(base);
        else if (mpi_state == 1) (void)p2p_mem_free(base); /* after finalize: unmapped */
        if (!M.n) { /* nothing live: give the table back too */
            free(M.b);
            M.b = NULL;
            M.cap = 0;
        }
        return MPI_SUCCESS;
    }
    return mpi_err(NULL, MPI_ERR_BASE, "MPI_Free_mem", "not memory from MPI_Alloc_mem");
}
