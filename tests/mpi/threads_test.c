/* Datatypes from several threads at once: constructors, commit, pack,
 * queries and free, lookups of handles other threads have freed while
 * slots are being reused (refused), and a shared type kept alive by mdt_retain while
 * its handle is freed.  Meant for the TSan build as much as the plain one. */
#include <mpi.h>

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "mpi/datatype.h"
#include "test.h"

enum { NTHREADS = 4, ROUNDS = 3000, RECENT = 64 };

static int recent[RECENT]; /* handles recently created or freed, read racily */
static mdt_type_t *shared;

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg, bad = 0;
    int src[64], dst[64];
    unsigned char packed[256];
    for (int i = 0; i < 64; i++) src[i] = id * 1000 + i;
    for (int r = 0; r < ROUNDS; r++) {
        MPI_Datatype v, s;
        int stride = 1 + (r + id) % 4, size;
        if (MPI_Type_vector(4, 2, stride, MPI_INT, &v) != MPI_SUCCESS) bad++;
        int bl[] = {1, 1};
        MPI_Aint d[] = {0, 40};
        MPI_Datatype ty[] = {v, MPI_DOUBLE};
        if (MPI_Type_create_struct(2, bl, d, ty, &s) != MPI_SUCCESS) bad++;
        if (MPI_Type_free(&v) != MPI_SUCCESS) bad++;
        if (MPI_Type_commit(&s) != MPI_SUCCESS) bad++;
        if (MPI_Type_size(s, &size) != MPI_SUCCESS || size != 40) bad++;
        int pos = 0;
        if (MPI_Pack(src, 1, s, packed, sizeof packed, &pos, MPI_COMM_SELF) != MPI_SUCCESS ||
            pos != 40)
            bad++;
        for (int b = 0; b < 4; b++)
            if (memcmp(packed + 8 * b, src + b * stride, 8) != 0) bad++;
        memset(dst, 0, sizeof dst);
        pos = 0;
        if (MPI_Unpack(packed, 40, &pos, dst, 1, s, MPI_COMM_SELF) != MPI_SUCCESS) bad++;
        for (int b = 0; b < 4; b++)
            if (memcmp(dst + b * stride, src + b * stride, 8) != 0) bad++;
        /* a handle another thread has freed (its slot maybe reused meanwhile):
         * refused.  (Using a handle while another thread frees it is an
         * erroneous program that no check can make safe.) */
        int other = __atomic_load_n(&recent[(r * 7 + id * 13) % RECENT], __ATOMIC_RELAXED);
        int osize;
        if (other && MPI_Type_size(other, &osize) != MPI_ERR_TYPE) bad++;
        /* the shared type, whose handle is gone */
        MPI_Count from = r % 24, to = from + 8;
        mdt_pack_range(shared, src, from, to, packed);
        if (memcmp(packed, (unsigned char *)src + from, 8) != 0) bad++;
        MPI_Datatype gone = s;
        if (MPI_Type_free(&s) != MPI_SUCCESS) bad++;
        __atomic_store_n(&recent[(r * NTHREADS + id) % RECENT], gone, __ATOMIC_RELAXED);
    }
    return (void *)(intptr_t)bad;
}

int main(void)
{
    uint32_t live = mdt_live_count();
    MPI_Datatype c;
    CHECK_EQ(MPI_Type_contiguous(8, MPI_INT, &c), MPI_SUCCESS);
    CHECK_EQ(MPI_Type_commit(&c), MPI_SUCCESS);
    shared = mdt_get(c);
    mdt_retain(shared);
    CHECK_EQ(MPI_Type_free(&c), MPI_SUCCESS);
    pthread_t th[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        CHECK_EQ(pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i), 0);
    for (int i = 0; i < NTHREADS; i++) {
        void *bad;
        CHECK_EQ(pthread_join(th[i], &bad), 0);
        CHECK_EQ((intptr_t)bad, 0);
    }
    mdt_release(shared);
    CHECK_EQ(mdt_live_count(), live);
    for (int i = 0; i < RECENT; i++) CHECK(mdt_get(recent[i]) == NULL);
    t_done("mpi_threads");
    return 0;
}
