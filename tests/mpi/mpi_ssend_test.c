/* Send modes on 3 ranks.  Synchronous sends complete only when a receive
 * has matched: the message is made to wait unexpected at the receiver
 * (seen by MPI_Probe) while the sender tests, and only the later receive
 * releases it; also receive-first, ANY_SOURCE with two synchronous senders,
 * zero bytes, MPI_PROC_NULL, a truncating receive, persistent Ssend_init,
 * ready mode against a posted receive, and buffered mode (MPI_Bsend/
 * Ibsend/Bsend_init out of an attached buffer, data copied at the call,
 * messages held until the receiver posts, space reused, detach).  Orders come from handshakes,
 * never from sleeping. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_expect.h"

static const MPI_Comm W = MPI_COMM_WORLD;

/* The message waits unexpected: the synchronous send must not complete. */
static void unexpected_first(int rank)
{
    double v[5] = {1.5, 2.5, 3.5, 4.5, 5.5}, w[5] = {0};
    MPI_Status st;
    if (rank == 0) {
        MPI_Request r;
        int flag = 1;
        EXPECT(MPI_Issend(v, 5, MPI_DOUBLE, 1, 1, W, &r) == MPI_SUCCESS);
        MT_TOKEN_RECV(1, 2); /* rank 1 has the message in its unexpected queue */
        for (int i = 0; i < 100; i++) {
            EXPECT(MPI_Test(&r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            EXPECT(!flag && r != MPI_REQUEST_NULL);
        }
        MT_TOKEN_SEND(1, 3); /* now receive it */
        EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS && r == MPI_REQUEST_NULL);
    } else if (rank == 1) {
        EXPECT(MPI_Probe(0, 1, W, &st) == MPI_SUCCESS && st.MPI_SOURCE == 0);
        MT_TOKEN_SEND(0, 2);
        MT_TOKEN_RECV(0, 3);
        EXPECT(MPI_Recv(w, 5, MPI_DOUBLE, 0, 1, W, &st) == MPI_SUCCESS);
        EXPECT(memcmp(v, w, sizeof v) == 0 && st.MPI_TAG == 1);
    }
}

/* The receive is posted first: the send completes by itself. */
static void receive_first(int rank)
{
    int v[3] = {7, 8, 9}, w[3] = {0};
    MPI_Request r;
    if (rank == 1) {
        EXPECT(MPI_Irecv(w, 3, MPI_INT, 0, 4, W, &r) == MPI_SUCCESS);
        MT_TOKEN_SEND(0, 5);
        EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS && w[0] == 7 && w[2] == 9);
    } else if (rank == 0) {
        MT_TOKEN_RECV(1, 5);
        EXPECT(MPI_Ssend(v, 3, MPI_INT, 1, 4, W) == MPI_SUCCESS);
        /* ready mode, the same way round */
        MT_TOKEN_RECV(1, 7);
        EXPECT(MPI_Rsend(v, 3, MPI_INT, 1, 6, W) == MPI_SUCCESS);
    }
    if (rank == 1) {
        memset(w, 0, sizeof w);
        EXPECT(MPI_Irecv(w, 3, MPI_INT, 0, 6, W, &r) == MPI_SUCCESS);
        MT_TOKEN_SEND(0, 7);
        EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS && w[1] == 8);
    }
}

/* Ranks 1 and 2 send synchronously to ANY_SOURCE receives; zero-byte and
 * PROC_NULL synchronous sends; a truncated match still releases its sender. */
static void any_source_and_edges(int rank)
{
    MPI_Status st;
    int v = 10 * rank, seen = 0, big[4] = {1, 2, 3, 4}, small[2] = {0};
    EXPECT(MPI_Ssend(&v, 1, MPI_INT, MPI_PROC_NULL, 0, W) == MPI_SUCCESS);
    if (rank == 0) {
        for (int k = 0; k < 2; k++) {
            EXPECT(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 8, W, &st) == MPI_SUCCESS);
            EXPECT((st.MPI_SOURCE == 1 || st.MPI_SOURCE == 2) && v == 10 * st.MPI_SOURCE);
            seen |= 1 << st.MPI_SOURCE;
        }
        EXPECT(seen == 6);
        EXPECT(MPI_Recv(NULL, 0, MPI_INT, 2, 9, W, &st) == MPI_SUCCESS);
        int n = -1;
        EXPECT(MPI_Get_count(&st, MPI_INT, &n) == MPI_SUCCESS && n == 0);
        EXPECT(MPI_Recv(small, 2, MPI_INT, 1, 10, W, &st) == MPI_ERR_TRUNCATE);
        EXPECT(small[0] == 1 && small[1] == 2);
    } else {
        EXPECT(MPI_Ssend(&v, 1, MPI_INT, 0, 8, W) == MPI_SUCCESS);
        if (rank == 2) EXPECT(MPI_Ssend(NULL, 0, MPI_INT, 0, 9, W) == MPI_SUCCESS);
        if (rank == 1) EXPECT(MPI_Ssend(big, 4, MPI_INT, 0, 10, W) == MPI_SUCCESS);
    }
}

/* Persistent synchronous sends, three rounds, each one held until the
 * receiver has posted (rank 2 receives only after a token). */
static void persistent_ssend(int rank)
{
    int x = -1;
    if (rank == 0) {
        MPI_Request r;
        int flag = 1;
        EXPECT(MPI_Ssend_init(&x, 1, MPI_INT, 2, 11, W, &r) == MPI_SUCCESS);
        for (int round = 0; round < 3; round++) {
            x = 500 + round;
            EXPECT(MPI_Start(&r) == MPI_SUCCESS);
            MT_TOKEN_RECV(2, 12); /* the message has arrived (rank 2 probed it) */
            EXPECT(MPI_Test(&r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag);
            MT_TOKEN_SEND(2, 13);
            EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS && r != MPI_REQUEST_NULL);
        }
        EXPECT(MPI_Request_free(&r) == MPI_SUCCESS && r == MPI_REQUEST_NULL);
    } else if (rank == 2) {
        for (int round = 0; round < 3; round++) {
            EXPECT(MPI_Probe(0, 11, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            MT_TOKEN_SEND(0, 12);
            MT_TOKEN_RECV(0, 13);
            EXPECT(MPI_Recv(&x, 1, MPI_INT, 0, 11, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            EXPECT(x == 500 + round);
        }
    }
}

/* Rank 0 sends 6 buffered messages of 100 ints through a buffer that holds
 * 3, overwriting its data after each call; rank 1 receives only after all
 * the calls have returned. */
static void buffered(int rank)
{
    enum { N = 100, MSGS = 6 };
    int data[4 * N] = {0}, got[N], sz = 3 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    if (rank == 0) {
        char *mem = malloc((size_t)sz), *back = NULL;
        int back_size = -1;
        MPI_Request r;
        EXPECT(MPI_Bsend(data, N, MPI_INT, 1, 20, W) == MPI_ERR_BUFFER); /* none attached */
        EXPECT(MPI_Buffer_attach(mem, sz) == MPI_SUCCESS);
        EXPECT(MPI_Buffer_attach(mem, sz) == MPI_ERR_BUFFER);
        EXPECT(MPI_Bsend(data, 4 * N, MPI_INT, 1, 20, W) == MPI_ERR_BUFFER); /* too big */
        for (int m = 0; m < MSGS; m++) {
            for (int i = 0; i < N; i++) data[i] = m * 1000 + i;
            if (m == 4) {
                EXPECT(MPI_Ibsend(data, N, MPI_INT, 1, 20, W, &r) == MPI_SUCCESS);
                EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            } else {
                EXPECT(MPI_Bsend(data, N, MPI_INT, 1, 20, W) == MPI_SUCCESS);
            }
            for (int i = 0; i < N; i++) data[i] = -1; /* the message was copied */
        }
        /* persistent buffered send of a strided vector, twice */
        MPI_Datatype vec;
        EXPECT(MPI_Type_vector(N / 2, 1, 2, MPI_INT, &vec) == MPI_SUCCESS);
        EXPECT(MPI_Type_commit(&vec) == MPI_SUCCESS);
        EXPECT(MPI_Bsend_init(data, 1, vec, 1, 21, W, &r) == MPI_SUCCESS);
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < N; i++) data[i] = round * 7 + i;
            EXPECT(MPI_Start(&r) == MPI_SUCCESS);
            EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        }
        EXPECT(MPI_Request_free(&r) == MPI_SUCCESS && MPI_Type_free(&vec) == MPI_SUCCESS);
        EXPECT(MPI_Bsend(data, N, MPI_INT, MPI_PROC_NULL, 20, W) == MPI_SUCCESS);
        MT_TOKEN_SEND(1, 22);
        EXPECT(MPI_Buffer_detach(&back, &back_size) == MPI_SUCCESS);
        EXPECT(back == mem && back_size == sz);
        EXPECT(MPI_Bsend(data, 1, MPI_INT, 1, 20, W) == MPI_ERR_BUFFER); /* detached */
        free(mem);
    } else if (rank == 1) {
        MT_TOKEN_RECV(0, 22);
        for (int m = 0; m < MSGS; m++) {
            EXPECT(MPI_Recv(got, N, MPI_INT, 0, 20, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            for (int i = 0; i < N; i++) EXPECT(got[i] == m * 1000 + i);
        }
        for (int round = 0; round < 2; round++) {
            EXPECT(MPI_Recv(got, N / 2, MPI_INT, 0, 21, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            for (int i = 0; i < N / 2; i++) EXPECT(got[i] == round * 7 + 2 * i);
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    EXPECT(MPI_Init(&argc, &argv) == MPI_SUCCESS);
    EXPECT(MPI_Comm_rank(W, &rank) == MPI_SUCCESS);
    EXPECT(MPI_Comm_size(W, &size) == MPI_SUCCESS && size == 3);
    EXPECT(MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    unexpected_first(rank);
    receive_first(rank);
    any_source_and_edges(rank);
    persistent_ssend(rank);
    buffered(rank);
    EXPECT(MPI_Ssend(&rank, 1, MPI_INT, 5, 0, W) == MPI_ERR_RANK);
    EXPECT(MPI_Issend(&rank, 1, MPI_INT, 1, -1, W, NULL) == MPI_ERR_TAG);
    EXPECT(MPI_Barrier(W) == MPI_SUCCESS);
    if (rank == 0) printf("mpi_ssend_test: ok (%d ranks)\n", size);
    EXPECT(MPI_Finalize() == MPI_SUCCESS);
    return 0;
}
