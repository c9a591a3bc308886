/* MPI_Finalize releases what the library allocated (ctest: 2 ranks, under
 * valgrind, which fails the run on any block still allocated at exit,
 * reachable ones included: --errors-for-leak-kinds=all).
 *
 * The program touches what keeps memory between calls: requests of every
 * kind (immediate, persistent, a collective's, a completed send's), a
 * derived datatype, a duplicated and a split communicator, a group, an
 * info object, an attribute key, bounce buffers and the short path; it
 * frees every object it made, as MPI asks, and checks the data it moved. */
#include <mpi.h>

#include <stdlib.h>
#include <string.h>

#define MT_RANK rank
#include "mpi_expect.h"

static int rank, size;

static void pt2pt(MPI_Comm c)
{
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    enum { BIG = 1 << 20 };
    char *b = malloc(BIG);
    EXPECT(b != NULL);
    memset(b, rank, BIG);
    MPI_Sendrecv_replace(b, BIG, MPI_CHAR, peer, 0, from, 0, c, MPI_STATUS_IGNORE);
    EXPECT(b[0] == (char)from && b[BIG - 1] == (char)from);
    free(b);
    int v[8], w[8];
    MPI_Request q[16];
    for (int i = 0; i < 8; i++) {
        v[i] = rank * 100 + i;
        MPI_Irecv(&w[i], 1, MPI_INT, from, 1, c, &q[i]);
        MPI_Isend(&v[i], 1, MPI_INT, peer, 1, c, &q[8 + i]);
    }
    MPI_Waitall(16, q, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 8; i++) EXPECT(w[i] == from * 100 + i);
    MPI_Request p;
    int x = -1;
    MPI_Recv_init(&x, 1, MPI_INT, from, 2, c, &p);
    MPI_Start(&p);
    MPI_Send(&rank, 1, MPI_INT, peer, 2, c);
    MPI_Wait(&p, MPI_STATUS_IGNORE);
    MPI_Request_free(&p);
    EXPECT(x == from);
}

static void objects(MPI_Comm c)
{
    MPI_Datatype t;
    MPI_Type_vector(4, 2, 3, MPI_INT, &t);
    MPI_Type_commit(&t);
    int a[12];
    for (int i = 0; i < 12; i++) a[i] = rank == 0 ? i : -1;
    MPI_Bcast(a, 1, t, 0, c);
    EXPECT(a[0] == 0 && a[1] == 1 && a[3] == 3 && a[10] == 10);
    MPI_Type_free(&t);
    MPI_Group g;
    MPI_Comm_group(c, &g);
    MPI_Group_free(&g);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "key", "value");
    MPI_Info_free(&info);
    int key;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    MPI_Comm_set_attr(c, key, &key);
    MPI_Comm_delete_attr(c, key);
    MPI_Comm_free_keyval(&key);
    MPI_Comm half;
    MPI_Comm_split(c, rank % 2, rank, &half);
    double s = 1;
    MPI_Request q;
    MPI_Iallreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, half, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Comm_free(&half);
    MPI_Barrier(c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    pt2pt(d);
    objects(d);
    MPI_Comm_free(&d);
    double x = rank;
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(x == size * (size - 1) / 2.0);
    MPI_Finalize();
    return 0;
}
