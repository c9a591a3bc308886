/* A message that cannot be kept is never lost silently.  Eager messages
 * carry no acks, so the receiver is the one that knows: rank 0 sends, with
 * every message forced eager (SLUICE_PROTOCOL=eager), one message larger
 * than a bounce buffer (SLUICE_BOUNCE_SIZE=65536) that rank 1 has not
 * posted a receive for.  Its engine disables the message portal, and
 * rank 1's next MPI call must end the job with status 75 and the reason
 * (ctest checks both). */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

#define MT_RANK me
static int me;
#include "mpi_expect.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int rank = me;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    EXPECT(size == 2);
    enum { LEN = 128 * 1024 };
    char *buf = calloc(1, LEN);
    EXPECT(buf != NULL);
    char ack;
    if (rank == 0) {
        /* completes locally: the data left in packets, nobody acks them */
        EXPECT(MPI_Send(buf, LEN, MPI_CHAR, 1, 7, MPI_COMM_WORLD) == MPI_SUCCESS);
        EXPECT(MPI_Send(&ack, 1, MPI_CHAR, 1, 9, MPI_COMM_WORLD) == MPI_SUCCESS);
        MPI_Recv(&ack, 1, MPI_CHAR, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        /* the tag-9 message comes after the big one on the same channel:
         * the probe sees the drop (and then it is dropped too, so a drop
         * that goes unnoticed hangs here until sluicerun's timeout) */
        MPI_Probe(0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(buf, LEN, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&ack, 1, MPI_CHAR, 0, 8, MPI_COMM_WORLD);
    }
    fprintf(stderr, "FAIL rank %d: the message was not dropped\n", rank);
    return 1;
}
