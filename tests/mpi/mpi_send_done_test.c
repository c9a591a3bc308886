/* Requests of sends that complete as they start (ctest: 2 ranks; also
 * under MPICH, label mpich).
 *
 * Sluice returns one shared predefined handle for an MPI_Isend that went
 * into the receiver's short-message ring at once (docs/P2P.md "Message
 * rate"); MPICH does the same with its completed requests.  Every request
 * call must treat such a handle as an ordinary complete send request, also
 * when an array holds it several times:
 * - MPI_Wait, MPI_Test, MPI_Waitall, MPI_Testall, MPI_Waitany,
 *   MPI_Testany, MPI_Waitsome, MPI_Testsome complete it once, set it to
 *   MPI_REQUEST_NULL and give MPI_SUCCESS in the status's error field;
 * - MPI_Request_get_status says complete and leaves the handle;
 * - MPI_Cancel succeeds and MPI_Test_cancelled then says false;
 * - MPI_Request_free frees it; MPI_Start refuses it (not persistent);
 * - the receiver gets every message, bytes and order checked. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

#define MT_RANK rank
#include "mpi_expect.h"

#define N 16

static int rank;

static int err_class(int rc)
{
    int cls;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* N small sends of v[i] = base + i with tag 7, once the receiver has
 * matched every earlier message (its ack): later messages go into its
 * short-message ring only then (the first ones go by Portals). */
static void isend_all(MPI_Request req[N], int v[N], int base)
{
    int ack;
    if (base) EXPECT(MPI_Recv(&ack, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == 0);
    for (int i = 0; i < N; i++) {
        v[i] = base + i;
        EXPECT(MPI_Isend(&v[i], 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &req[i]) == MPI_SUCCESS);
        EXPECT(req[i] != MPI_REQUEST_NULL);
    }
}

static void all_null(const MPI_Request req[N])
{
    for (int i = 0; i < N; i++) EXPECT(req[i] == MPI_REQUEST_NULL);
}

static void sender(void)
{
    MPI_Request req[N];
    MPI_Status st[N];
    int v[N], flag, idx, out, ind[N], round = 0;

    isend_all(req, v, 100 * round++); /* Waitall with statuses */
    for (int i = 0; i < N; i++) st[i].MPI_ERROR = -1;
    EXPECT(MPI_Waitall(N, req, st) == MPI_SUCCESS);
    all_null(req);
    for (int i = 0; i < N; i++) {
        int cancelled = 1;
        EXPECT(MPI_Test_cancelled(&st[i], &cancelled) == MPI_SUCCESS && !cancelled);
    }

    isend_all(req, v, 100 * round++); /* Wait and Test one by one */
#ifdef SLUICE_MPI /* the path is taken (from the second round on) */
    int shared = 0;
    for (int i = 1; i < N; i++) shared += req[i] == req[0];
    EXPECT(shared == N - 1);
#endif
    for (int i = 0; i < N; i++) {
        if (i % 2) {
            EXPECT(MPI_Wait(&req[i], &st[0]) == MPI_SUCCESS);
        } else {
            do
                EXPECT(MPI_Test(&req[i], &flag, &st[0]) == MPI_SUCCESS);
            while (!flag);
        }
        EXPECT(req[i] == MPI_REQUEST_NULL);
    }

    isend_all(req, v, 100 * round++); /* Waitany, Testany: each index once */
    int seen[N] = {0};
    for (int k = 0; k < N; k++) {
        if (k % 2) {
            EXPECT(MPI_Waitany(N, req, &idx, &st[0]) == MPI_SUCCESS);
        } else {
            do
                EXPECT(MPI_Testany(N, req, &idx, &flag, &st[0]) == MPI_SUCCESS);
            while (!flag);
        }
        EXPECT(idx >= 0 && idx < N && !seen[idx]);
        if (idx >= 0 && idx < N) seen[idx] = 1;
    }
    all_null(req);
    EXPECT(MPI_Waitany(N, req, &idx, MPI_STATUS_IGNORE) == MPI_SUCCESS && idx == MPI_UNDEFINED);

    isend_all(req, v, 100 * round++); /* Waitsome, Testsome, Testall */
    int done = 0;
    while (done < N) {
        EXPECT(MPI_Waitsome(N, req, &out, ind, st) == MPI_SUCCESS);
        EXPECT(out >= 1 && out <= N - done);
        done += out > 0 ? out : N;
    }
    all_null(req);
    isend_all(req, v, 100 * round++);
    do
        EXPECT(MPI_Testsome(N, req, &out, ind, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    while (out == 0);
    do
        EXPECT(MPI_Testall(N, req, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    while (!flag);
    all_null(req);

    isend_all(req, v, 100 * round++); /* get_status, cancel, free, start */
    for (int i = 0; i < N; i++) {
        MPI_Request keep = req[i];
        do
            EXPECT(MPI_Request_get_status(req[i], &flag, &st[0]) == MPI_SUCCESS);
        while (!flag);
        EXPECT(req[i] == keep && st[0].MPI_ERROR == MPI_SUCCESS);
        if (i % 3 == 0) {
            EXPECT(MPI_Cancel(&req[i]) == MPI_SUCCESS);
            EXPECT(MPI_Wait(&req[i], &st[0]) == MPI_SUCCESS);
            int cancelled = 1;
            EXPECT(MPI_Test_cancelled(&st[0], &cancelled) == MPI_SUCCESS && !cancelled);
        } else if (i % 3 == 1) {
            EXPECT(MPI_Request_free(&req[i]) == MPI_SUCCESS);
        } else {
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            MPI_Request copy = req[i];
            EXPECT(err_class(MPI_Start(&copy)) == MPI_ERR_REQUEST);
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
            EXPECT(MPI_Wait(&req[i], MPI_STATUS_IGNORE) == MPI_SUCCESS);
        }
        EXPECT(req[i] == MPI_REQUEST_NULL);
    }
}

static void receiver(int rounds)
{
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < N; i++) {
            int v = -1;
            MPI_Status st;
            EXPECT(MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
            EXPECT(v == 100 * r + i && st.MPI_SOURCE == 0 && st.MPI_TAG == 7);
            if (i == N - 1 && r < rounds - 1) MPI_Send(&r, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
        }
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "needs 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    if (rank == 0) sender();
    else receiver(6);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
