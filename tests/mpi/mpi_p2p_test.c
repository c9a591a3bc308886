/* MPI point-to-point through include/mpi.h only, on 3 ranks: statuses and
 * counts, a vector datatype against a contiguous receive, truncation under
 * MPI_ERRORS_RETURN, ANY_SOURCE with Isend/Waitall, probe, cancel,
 * MPI_PROC_NULL, and the error classes of bad arguments. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_expect.h"

int main(int argc, char **argv)
{
    int rank, size, flag, n, res;
    MPI_Status st;
    EXPECT(MPI_Init(&argc, &argv) == MPI_SUCCESS);
    EXPECT(MPI_Initialized(&flag) == MPI_SUCCESS && flag);
    EXPECT(MPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS);
    EXPECT(MPI_Comm_size(MPI_COMM_WORLD, &size) == MPI_SUCCESS && size >= 3);
    EXPECT(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res) == MPI_SUCCESS && res == MPI_IDENT);
    EXPECT(MPI_Comm_size(MPI_COMM_SELF, &n) == MPI_SUCCESS && n == 1);

    /* ping-pong with statuses */
    int v[4] = {rank, 10, 20, 30}, w[4] = {0};
    if (rank == 0) {
        EXPECT(MPI_Send(v, 4, MPI_INT, 1, 7, MPI_COMM_WORLD) == MPI_SUCCESS);
        EXPECT(MPI_Recv(w, 4, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        EXPECT(st.MPI_SOURCE == 1 && st.MPI_TAG == 8 && w[0] == 1 && w[3] == 30);
        EXPECT(MPI_Get_count(&st, MPI_INT, &n) == MPI_SUCCESS && n == 4);
    } else if (rank == 1) {
        EXPECT(MPI_Recv(w, 4, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        EXPECT(st.MPI_SOURCE == 0 && st.MPI_TAG == 7 && w[0] == 0);
        EXPECT(MPI_Send(v, 4, MPI_INT, 0, 8, MPI_COMM_WORLD) == MPI_SUCCESS);
    }

    /* every other double of 10, sent as a vector, arrives contiguous */
    double src[20], dst[10] = {0};
    for (int i = 0; i < 20; i++) src[i] = i * 1.5;
    MPI_Datatype vec;
    EXPECT(MPI_Type_vector(10, 1, 2, MPI_DOUBLE, &vec) == MPI_SUCCESS);
    EXPECT(MPI_Type_commit(&vec) == MPI_SUCCESS);
    if (rank == 0) EXPECT(MPI_Send(src, 1, vec, 2, 1, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 2) {
        EXPECT(MPI_Recv(dst, 10, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        for (int i = 0; i < 10; i++) EXPECT(dst[i] == i * 3.0);
        EXPECT(MPI_Get_count(&st, MPI_DOUBLE, &n) == MPI_SUCCESS && n == 10);
    }
    EXPECT(MPI_Type_free(&vec) == MPI_SUCCESS);

    /* errors are returned, not fatal, from here on */
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    char big[100], small[48];
    memset(big, 'x', sizeof big);
    if (rank == 1) EXPECT(MPI_Send(big, 100, MPI_CHAR, 2, 3, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 2) {
        memset(small, 0, sizeof small);
        EXPECT(MPI_Recv(small, 40, MPI_CHAR, 1, 3, MPI_COMM_WORLD, &st) == MPI_ERR_TRUNCATE);
        EXPECT(MPI_Get_count(&st, MPI_CHAR, &n) == MPI_SUCCESS && n == 40);
        EXPECT(small[39] == 'x' && small[40] == 0); /* nothing past the buffer */
    }

    /* ANY_SOURCE: ranks 1 and 2 send 50 numbered messages each to rank 0 */
    if (rank != 0) {
        MPI_Request req[50];
        int msg[50][2];
        for (int i = 0; i < 50; i++) {
            msg[i][0] = rank;
            msg[i][1] = i;
            EXPECT(MPI_Isend(msg[i], 2, MPI_INT, 0, 11, MPI_COMM_WORLD, &req[i]) == MPI_SUCCESS);
        }
        MPI_Status sts[50];
        EXPECT(MPI_Waitall(50, req, sts) == MPI_SUCCESS);
        for (int i = 0; i < 50; i++) EXPECT(req[i] == MPI_REQUEST_NULL);
    } else {
        int next[3] = {0, 0, 0};
        for (int i = 0; i < 100; i++) {
            int msg[2];
            EXPECT(MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
            EXPECT(st.MPI_SOURCE == msg[0] && msg[1] == next[msg[0]]++);
        }
        EXPECT(next[1] == 50 && next[2] == 50);
    }

    /* probe, then receive; cancel; PROC_NULL */
    if (rank == 2) EXPECT(MPI_Send(v, 3, MPI_INT, 0, 21, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0) {
        EXPECT(MPI_Probe(2, 21, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        EXPECT(st.MPI_SOURCE == 2 && st.MPI_TAG == 21);
        EXPECT(MPI_Get_count(&st, MPI_INT, &n) == MPI_SUCCESS && n == 3);
        EXPECT(MPI_Iprobe(MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS && flag);
        EXPECT(MPI_Recv(w, 4, MPI_INT, 2, 21, MPI_COMM_WORLD, &st) == MPI_SUCCESS && w[0] == 2);
        EXPECT(MPI_Iprobe(2, 21, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS && !flag);
        MPI_Request r;
        EXPECT(MPI_Irecv(w, 4, MPI_INT, 1, 999, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
        EXPECT(MPI_Cancel(&r) == MPI_SUCCESS);
        EXPECT(MPI_Wait(&r, &st) == MPI_SUCCESS);
        EXPECT(MPI_Test_cancelled(&st, &flag) == MPI_SUCCESS && flag);
        EXPECT(MPI_Recv(w, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        EXPECT(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
        EXPECT(MPI_Get_count(&st, MPI_INT, &n) == MPI_SUCCESS && n == 0);
        EXPECT(MPI_Send(v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    }

    /* bad arguments give their classes */
    MPI_Request r = 12345;
    EXPECT(MPI_Send(v, 1, MPI_INT, size, 0, MPI_COMM_WORLD) == MPI_ERR_RANK);
    EXPECT(MPI_Send(v, 1, MPI_INT, 0, -3, MPI_COMM_WORLD) == MPI_ERR_TAG);
    EXPECT(MPI_Send(v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_COUNT);
    EXPECT(MPI_Send(v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE);
    EXPECT(MPI_Send(NULL, 1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
    EXPECT(MPI_Recv(w, 1, MPI_INT, 0, 0, (MPI_Comm)777, &st) == MPI_ERR_COMM);
    EXPECT(MPI_Wait(&r, &st) == MPI_ERR_REQUEST);
    char s[MPI_MAX_ERROR_STRING];
    EXPECT(MPI_Error_string(MPI_ERR_TRUNCATE, s, &n) == MPI_SUCCESS && strstr(s, "truncated"));

    /* a barrier orders: everything rank 0 does after it happens after every
     * rank entered it */
    double t0 = MPI_Wtime();
    for (int i = 0; i < 20; i++) EXPECT(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    EXPECT(MPI_Barrier(MPI_COMM_SELF) == MPI_SUCCESS);
    EXPECT(MPI_Barrier((MPI_Comm)777) == MPI_ERR_COMM);
    if (rank == 2) EXPECT(MPI_Send(v, 1, MPI_INT, 0, 31, MPI_COMM_WORLD) == MPI_SUCCESS);
    EXPECT(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0) { /* rank 2 sent before the barrier: its message can be probed now */
        EXPECT(MPI_Probe(2, 31, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        EXPECT(MPI_Recv(w, 1, MPI_INT, 2, 31, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
    }
    EXPECT(MPI_Wtime() >= t0);
    EXPECT(MPI_Finalize() == MPI_SUCCESS);
    EXPECT(MPI_Finalized(&flag) == MPI_SUCCESS && flag);
    if (rank == 0) printf("mpi_p2p_test: ok (%d ranks)\n", size);
    return 0;
}
