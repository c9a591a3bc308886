/* Forced eager (SLUICE_PROTOCOL=eager) with a message larger than a bounce
 * buffer (SLUICE_BOUNCE_SIZE=65536): unexpected, such a message could never
 * be kept, so the send fails with a clear error instead (before, the
 * receiver dropped it and the job aborted); messages that fit still go.
 * Rank 0 sends 128 KiB under MPI_ERRORS_RETURN (must fail, and must not
 * reach rank 1), then 32 KiB (must arrive intact). */
#include <mpi.h>

#include <stdlib.h>
#include <string.h>

#define MT_RANK me
static int me;
#include "mpi_expect.h"

enum { BIG = 128 * 1024, SMALL = 32 * 1024 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    EXPECT(size == 2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned char *buf = malloc(BIG);
    EXPECT(buf != NULL);
    if (me == 0) {
        memset(buf, 0x5a, BIG);
        int err = MPI_Send(buf, BIG, MPI_BYTE, 1, 7, MPI_COMM_WORLD), cls;
        EXPECT(err != MPI_SUCCESS);
        MPI_Error_class(err, &cls);
        EXPECT(cls == MPI_ERR_OTHER);
        for (int k = 0; k < SMALL; k++) buf[k] = (unsigned char)(k * 13);
        EXPECT(MPI_Send(buf, SMALL, MPI_BYTE, 1, 7, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else {
        MPI_Status st;
        int n;
        memset(buf, 0, BIG);
        EXPECT(MPI_Recv(buf, BIG, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        MPI_Get_count(&st, MPI_BYTE, &n);
        EXPECT(n == SMALL); /* the refused message never came */
        for (int k = 0; k < SMALL; k++) EXPECT(buf[k] == (unsigned char)(k * 13));
    }
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) printf("mpi_eager_big_test: ok\n");
    MPI_Finalize();
    return 0;
}
