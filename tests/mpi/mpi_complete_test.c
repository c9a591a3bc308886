/* Completion calls on 4 ranks: Waitany/Testany and Waitsome/Testsome with
 * arrival orders forced by handshakes (never sleeps), MPI_REQUEST_NULL
 * entries and all-inactive arrays (MPI_UNDEFINED), truncation reported per
 * status with MPI_ERR_IN_STATUS, 1,000 outstanding requests per pair
 * completed in a scrambled order (receives posted first, and sends first),
 * MPI_Sendrecv_replace around a ring with a vector type, persistent
 * requests (Send_init/Recv_init/Start/Startall, inactive semantics), matched
 * probe (a wildcard receive posted between Mprobe and Mrecv never takes the
 * probed message), MPI_Request_free of active operations, and the error
 * classes of bad arguments. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_expect.h"

enum { NMANY = 1000, GO = 99 };

/* Rank 0 lets one peer at a time send; Waitany must name exactly that one. */
static void waitany_order(int rank)
{
    static const int order[3] = {3, 1, 2};
    int got[4] = {0}, token = 1, indx, flag;
    MPI_Request rq[5];
    MPI_Status st;
    if (rank != 0) {
        int v = 1000 + rank;
        EXPECT(MPI_Recv(&token, 1, MPI_INT, 0, GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == 0);
        EXPECT(MPI_Send(&v, 1, MPI_INT, 0, rank, MPI_COMM_WORLD) == MPI_SUCCESS);
        return;
    }
    rq[0] = MPI_REQUEST_NULL; /* inactive entries are skipped */
    for (int p = 1; p <= 3; p++)
        EXPECT(MPI_Irecv(&got[p], 1, MPI_INT, p, p, MPI_COMM_WORLD, &rq[p]) == MPI_SUCCESS);
    rq[4] = MPI_REQUEST_NULL;
    EXPECT(MPI_Testany(5, rq, &indx, &flag, &st) == MPI_SUCCESS);
    EXPECT(!flag && indx == MPI_UNDEFINED);
    for (int k = 0; k < 3; k++) {
        EXPECT(MPI_Send(&token, 1, MPI_INT, order[k], GO, MPI_COMM_WORLD) == MPI_SUCCESS);
        EXPECT(MPI_Waitany(5, rq, &indx, &st) == MPI_SUCCESS);
        EXPECT(indx == order[k] && rq[indx] == MPI_REQUEST_NULL);
        EXPECT(st.MPI_SOURCE == order[k] && st.MPI_TAG == order[k]);
        EXPECT(got[order[k]] == 1000 + order[k]);
    }
    /* nothing active any more */
    EXPECT(MPI_Waitany(5, rq, &indx, &st) == MPI_SUCCESS && indx == MPI_UNDEFINED);
    EXPECT(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG); /* empty status */
    EXPECT(MPI_Testany(5, rq, &indx, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    EXPECT(flag && indx == MPI_UNDEFINED);
    EXPECT(MPI_Testany(0, NULL, &indx, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag);
}

/* Every peer sends two messages; the second is too long for its buffer.
 * Waitsome returns each completion once, with per-status errors. */
static void waitsome_all(int rank)
{
    if (rank != 0) {
        int a[2] = {rank, 7 * rank}, b[4] = {1, 2, 3, 4};
        EXPECT(MPI_Send(a, 2, MPI_INT, 0, 10, MPI_COMM_WORLD) == MPI_SUCCESS);
        EXPECT(MPI_Send(b, 4, MPI_INT, 0, 11, MPI_COMM_WORLD) == MPI_SUCCESS);
        return;
    }
    int a[4][2], b[4][3], seen[6] = {0}, total = 0, out, idx[6], trunc = 0;
    MPI_Request rq[6];
    MPI_Status sts[6];
    for (int p = 1; p <= 3; p++) {
        EXPECT(MPI_Irecv(a[p], 2, MPI_INT, p, 10, MPI_COMM_WORLD, &rq[2 * (p - 1)]) == 0);
        EXPECT(MPI_Irecv(b[p], 3, MPI_INT, p, 11, MPI_COMM_WORLD, &rq[2 * p - 1]) == 0);
    }
    for (;;) {
        int rc = MPI_Waitsome(6, rq, &out, idx, sts);
        if (out == MPI_UNDEFINED) break;
        EXPECT(out > 0 && (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS));
        for (int k = 0; k < out; k++) {
            int i = idx[k], p = i / 2 + 1;
            EXPECT(i >= 0 && i < 6 && !seen[i] && rq[i] == MPI_REQUEST_NULL);
            seen[i] = 1;
            total++;
            EXPECT(sts[k].MPI_SOURCE == p);
            if (i % 2 == 0) {
                EXPECT(sts[k].MPI_ERROR == MPI_SUCCESS && a[p][0] == p && a[p][1] == 7 * p);
            } else {
                EXPECT(sts[k].MPI_ERROR == MPI_ERR_TRUNCATE && rc == MPI_ERR_IN_STATUS);
                EXPECT(b[p][0] == 1 && b[p][2] == 3);
                trunc++;
            }
        }
    }
    EXPECT(total == 6 && trunc == 3);
    EXPECT(MPI_Testsome(6, rq, &out, idx, MPI_STATUSES_IGNORE) == 0 && out == MPI_UNDEFINED);
}

/* A permutation of 0..n-1 from a fixed seed. */
static void scramble(int *perm, int n, unsigned seed)
{
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        int j = (int)((seed >> 8) % (unsigned)(i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* 1,000 messages 0 -> 1 with distinct tags, sent in one scrambled order and
 * received in another; completed with Testsome (recv_first) or Waitany. */
static void many_outstanding(int rank, int recv_first)
{
    static int buf[NMANY][3], perm[NMANY];
    static MPI_Request rq[NMANY];
    if (rank > 1) {
        EXPECT(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
        return;
    }
    scramble(perm, NMANY, rank == 0 ? 7u + (unsigned)recv_first : 1234u);
    if (rank == 0) {
        if (recv_first) EXPECT(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int k = 0; k < NMANY; k++) {
            int t = perm[k];
            buf[t][0] = t, buf[t][1] = -t, buf[t][2] = t * 3;
            EXPECT(MPI_Isend(buf[t], 3, MPI_INT, 1, t, MPI_COMM_WORLD, &rq[k]) == MPI_SUCCESS);
        }
        EXPECT(MPI_Waitall(NMANY, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        if (!recv_first) EXPECT(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
        return;
    }
    if (!recv_first) EXPECT(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS); /* all sent */
    memset(buf, 0, sizeof buf);
    for (int k = 0; k < NMANY; k++)
        EXPECT(MPI_Irecv(buf[perm[k]], 3, MPI_INT, 0, perm[k], MPI_COMM_WORLD, &rq[k]) == 0);
    if (recv_first) EXPECT(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    int done = 0, out, idx[NMANY], indx;
    MPI_Status st;
    static MPI_Status sts[NMANY];
    while (done < NMANY) {
        if (recv_first) {
            EXPECT(MPI_Testsome(NMANY, rq, &out, idx, sts) == MPI_SUCCESS && out >= 0);
            for (int k = 0; k < out; k++) EXPECT(sts[k].MPI_TAG == perm[idx[k]]);
            done += out;
        } else {
            EXPECT(MPI_Waitany(NMANY, rq, &indx, &st) == MPI_SUCCESS);
            EXPECT(indx >= 0 && st.MPI_TAG == perm[indx] && st.MPI_SOURCE == 0);
            done++;
        }
    }
    for (int t = 0; t < NMANY; t++) EXPECT(buf[t][0] == t && buf[t][1] == -t && buf[t][2] == 3 * t);
}

/* Each rank sends its column (stride 2) right and takes its left
 * neighbour's in place. */
static void ring_replace(int rank, int size)
{
    MPI_Datatype vec;
    double v[8];
    MPI_Status st;
    int n;
    for (int i = 0; i < 8; i++) v[i] = i % 2 ? -1.0 : rank * 100 + i;
    EXPECT(MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &vec) == MPI_SUCCESS);
    EXPECT(MPI_Type_commit(&vec) == MPI_SUCCESS);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    EXPECT(MPI_Sendrecv_replace(v, 1, vec, right, 5, left, 5, MPI_COMM_WORLD, &st) == 0);
    EXPECT(st.MPI_SOURCE == left && st.MPI_TAG == 5);
    EXPECT(MPI_Get_count(&st, vec, &n) == MPI_SUCCESS && n == 1);
    for (int i = 0; i < 8; i++) EXPECT(v[i] == (i % 2 ? -1.0 : left * 100 + i));
    EXPECT(MPI_Type_free(&vec) == MPI_SUCCESS);
}

/* Rank 0 sends a strided block and a scalar to 1 through persistent
 * requests, 5 rounds, new data each round; rank 1 receives them the same
 * way (one of its receives completes through Waitany). */
static void persistent(int rank)
{
    double col[8];
    int x = -1, flag, indx;
    MPI_Datatype vec;
    MPI_Request rq[2];
    MPI_Status st;
    if (rank > 1) return;
    EXPECT(MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &vec) == MPI_SUCCESS);
    EXPECT(MPI_Type_commit(&vec) == MPI_SUCCESS);
    if (rank == 0) {
        EXPECT(MPI_Send_init(col, 1, vec, 1, 3, MPI_COMM_WORLD, &rq[0]) == MPI_SUCCESS);
        EXPECT(MPI_Send_init(&x, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &rq[1]) == MPI_SUCCESS);
    } else {
        EXPECT(MPI_Recv_init(col, 1, vec, 0, 3, MPI_COMM_WORLD, &rq[0]) == MPI_SUCCESS);
        EXPECT(MPI_Recv_init(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                             &rq[1]) == MPI_SUCCESS);
    }
    /* inactive: wait and test return at once with the empty status */
    EXPECT(MPI_Wait(&rq[0], &st) == MPI_SUCCESS && rq[0] != MPI_REQUEST_NULL);
    EXPECT(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG); /* empty status */
    EXPECT(MPI_Test(&rq[1], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag);
    EXPECT(MPI_Waitany(2, rq, &indx, MPI_STATUS_IGNORE) == 0 && indx == MPI_UNDEFINED);
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 8; i++) col[i] = rank == 0 ? round * 10 + i : -1.0;
        x = rank == 0 ? 100 + round : -1;
        EXPECT(MPI_Startall(2, rq) == MPI_SUCCESS);
        EXPECT(MPI_Start(&rq[0]) == MPI_ERR_REQUEST); /* already active */
        if (rank == 0) {
            EXPECT(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
            EXPECT(rq[0] != MPI_REQUEST_NULL && rq[1] != MPI_REQUEST_NULL);
            continue;
        }
        EXPECT(MPI_Waitany(2, rq, &indx, &st) == MPI_SUCCESS && (indx == 0 || indx == 1));
        EXPECT(MPI_Wait(&rq[1 - indx], MPI_STATUS_IGNORE) == MPI_SUCCESS);
        if (indx == 1) EXPECT(st.MPI_SOURCE == 0 && st.MPI_TAG == 4);
        EXPECT(x == 100 + round);
        for (int i = 0; i < 8; i++) EXPECT(col[i] == (i % 2 ? -1.0 : round * 10 + i));
    }
    EXPECT(MPI_Request_free(&rq[0]) == MPI_SUCCESS && rq[0] == MPI_REQUEST_NULL);
    EXPECT(MPI_Request_free(&rq[1]) == MPI_SUCCESS && rq[1] == MPI_REQUEST_NULL);
    EXPECT(MPI_Start(&rq[0]) == MPI_ERR_REQUEST);
    EXPECT(MPI_Type_free(&vec) == MPI_SUCCESS);
}

/* Ranks 1-3 send 2 messages each (value = 10 * rank + seq).  Rank 0 takes
 * each one by Mprobe, posts a competing ANY_SOURCE receive, and only then
 * Mrecvs: the probed message must come out of Mrecv. */
static void matched_probe(int rank)
{
    enum { TAG = 30 };
    if (rank != 0) {
        for (int seq = 0; seq < 2; seq++) {
            int v = 10 * rank + seq;
            EXPECT(MPI_Send(&v, 1, MPI_INT, 0, TAG, MPI_COMM_WORLD) == MPI_SUCCESS);
        }
        int five[5] = {1, 2, 3, 4, 5};
        EXPECT(MPI_Send(five, 5, MPI_INT, 0, TAG + rank, MPI_COMM_WORLD) == MPI_SUCCESS);
        return;
    }
    int seen[4][2] = {{0}}, flag = 1, got = 0;
    MPI_Message msg;
    MPI_Status ps, st;
    EXPECT(MPI_Improbe(1, 77, MPI_COMM_WORLD, &flag, &msg, &st) == MPI_SUCCESS && !flag);
    for (int k = 0; k < 3; k++) {
        int a = -1, b = -1;
        MPI_Request r;
        EXPECT(MPI_Mprobe(MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &msg, &ps) == MPI_SUCCESS);
        EXPECT(msg != MPI_MESSAGE_NULL && ps.MPI_TAG == TAG);
        EXPECT(MPI_Irecv(&b, 1, MPI_INT, MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &r) == 0);
        EXPECT(MPI_Mrecv(&a, 1, MPI_INT, &msg, &st) == MPI_SUCCESS && msg == MPI_MESSAGE_NULL);
        EXPECT(st.MPI_SOURCE == ps.MPI_SOURCE && a / 10 == ps.MPI_SOURCE);
        EXPECT(MPI_Wait(&r, &st) == MPI_SUCCESS && b / 10 == st.MPI_SOURCE);
        /* per-source order: the probed one is the earlier of a pair */
        if (a / 10 == b / 10) EXPECT(a % 10 == 0 && b % 10 == 1);
        EXPECT(!seen[a / 10][a % 10] && !seen[b / 10][b % 10]);
        seen[a / 10][a % 10] = seen[b / 10][b % 10] = 1;
        got += 2;
    }
    EXPECT(got == 6);
    for (int p = 1; p <= 3; p++) EXPECT(seen[p][0] && seen[p][1]);
    /* Imrecv with truncation: 5 ints into 3 */
    int three[3] = {0}, cnt = -1;
    MPI_Request r;
    EXPECT(MPI_Mprobe(2, TAG + 2, MPI_COMM_WORLD, &msg, &ps) == MPI_SUCCESS);
    EXPECT(MPI_Get_count(&ps, MPI_INT, &cnt) == MPI_SUCCESS && cnt == 5);
    EXPECT(MPI_Imrecv(three, 3, MPI_INT, &msg, &r) == MPI_SUCCESS && msg == MPI_MESSAGE_NULL);
    EXPECT(MPI_Wait(&r, &st) == MPI_ERR_TRUNCATE && st.MPI_SOURCE == 2);
    EXPECT(three[0] == 1 && three[2] == 3);
    EXPECT(MPI_Mrecv(three, 3, MPI_INT, &msg, &st) == MPI_ERR_REQUEST); /* used up */
    for (int p = 1; p <= 3; p += 2) {
        int five[5];
        EXPECT(MPI_Mprobe(p, TAG + p, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE) == 0);
        EXPECT(MPI_Mrecv(five, 5, MPI_INT, &msg, MPI_STATUS_IGNORE) == 0 && five[4] == 5);
    }
    /* MPI_PROC_NULL: the no-proc message, received as an empty status */
    EXPECT(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &msg, &st) == 0 && flag);
    EXPECT(msg == MPI_MESSAGE_NO_PROC);
    EXPECT(MPI_Mrecv(three, 3, MPI_INT, &msg, &st) == MPI_SUCCESS && msg == MPI_MESSAGE_NULL);
    EXPECT(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
}

/* MPI_Request_free on active operations: the send still arrives, and the
 * freed receive (a strided type, so unpacked) has its data once a later
 * message from the same sender has been received. */
static void freed_active(int rank)
{
    int v[8] = {0}, last = 0;
    MPI_Request r;
    if (rank == 0) {
        for (int i = 0; i < 4; i++) v[i] = 40 + i;
        EXPECT(MPI_Isend(v, 4, MPI_INT, 1, 40, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
        EXPECT(MPI_Request_free(&r) == MPI_SUCCESS && r == MPI_REQUEST_NULL);
        EXPECT(MPI_Recv(&last, 1, MPI_INT, 1, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == 0);
        EXPECT(MPI_Send(&last, 1, MPI_INT, 1, 41, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else if (rank == 1) {
        MPI_Datatype vec;
        EXPECT(MPI_Type_vector(4, 1, 2, MPI_INT, &vec) == MPI_SUCCESS);
        EXPECT(MPI_Type_commit(&vec) == MPI_SUCCESS);
        EXPECT(MPI_Irecv(v, 1, vec, 0, 40, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
        EXPECT(MPI_Request_free(&r) == MPI_SUCCESS && r == MPI_REQUEST_NULL);
        EXPECT(MPI_Type_free(&vec) == MPI_SUCCESS); /* the request keeps its type */
        EXPECT(MPI_Send(&last, 1, MPI_INT, 0, 42, MPI_COMM_WORLD) == MPI_SUCCESS);
        EXPECT(MPI_Recv(&last, 1, MPI_INT, 0, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == 0);
        for (int i = 0; i < 8; i++) EXPECT(v[i] == (i % 2 ? 0 : 40 + i / 2));
    }
}

static void bad_arguments(void)
{
    MPI_Request bogus[2] = {MPI_REQUEST_NULL, (MPI_Request)0x7abc1234};
    int indx, flag, out, idx[2], cls;
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    EXPECT(MPI_Waitany(2, bogus, &indx, MPI_STATUS_IGNORE) == MPI_ERR_REQUEST);
    EXPECT(MPI_Testany(2, bogus, &indx, &flag, MPI_STATUS_IGNORE) == MPI_ERR_REQUEST);
    EXPECT(MPI_Waitsome(2, bogus, &out, idx, MPI_STATUSES_IGNORE) == MPI_ERR_REQUEST);
    EXPECT(MPI_Testsome(2, bogus, &out, idx, MPI_STATUSES_IGNORE) == MPI_ERR_REQUEST);
    EXPECT(MPI_Testany(1, bogus, &indx, NULL, MPI_STATUS_IGNORE) == MPI_ERR_ARG);
    EXPECT(MPI_Waitany(-1, bogus, &indx, MPI_STATUS_IGNORE) == MPI_ERR_COUNT);
    EXPECT(MPI_Testsome(1, bogus, NULL, idx, MPI_STATUSES_IGNORE) == MPI_ERR_ARG);
    EXPECT(MPI_Sendrecv_replace(idx, 1, MPI_INT, 99, 0, 0, 0, MPI_COMM_WORLD,
                                MPI_STATUS_IGNORE) == MPI_ERR_RANK);
    MPI_Request r, nul = MPI_REQUEST_NULL;
    EXPECT(MPI_Request_free(&nul) == MPI_ERR_REQUEST);
    EXPECT(MPI_Startall(-1, bogus) == MPI_ERR_COUNT);
    EXPECT(MPI_Send_init(idx, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, &r) == MPI_ERR_TAG);
    EXPECT(MPI_Recv_init(idx, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, &r) == MPI_ERR_TYPE);
    EXPECT(MPI_Irecv(idx, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
    EXPECT(MPI_Start(&r) == MPI_ERR_REQUEST); /* not persistent */
    EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS && r == MPI_REQUEST_NULL);
    /* MPI_Alloc_mem: aligned, usable, freed once; foreign pointers refused */
    double *mem = NULL, *zero = NULL;
    EXPECT(MPI_Alloc_mem(1000 * sizeof(double), MPI_INFO_NULL, &mem) == MPI_SUCCESS && mem);
    EXPECT(((unsigned long)mem & 63) == 0);
    for (int i = 0; i < 1000; i++) mem[i] = i;
    EXPECT(MPI_Alloc_mem(0, MPI_INFO_NULL, &zero) == MPI_SUCCESS && zero);
    EXPECT(MPI_Alloc_mem(-1, MPI_INFO_NULL, &zero) == MPI_ERR_SIZE);
    EXPECT(MPI_Free_mem(mem + 1) == MPI_ERR_BASE);
    EXPECT(mem[999] == 999.0);
    EXPECT(MPI_Free_mem(mem) == MPI_SUCCESS);
    EXPECT(MPI_Free_mem(mem) == MPI_ERR_BASE); /* twice */
    EXPECT(MPI_Free_mem(zero) == MPI_SUCCESS);
    EXPECT(MPI_Error_class(MPI_ERR_IN_STATUS, &cls) == MPI_SUCCESS && cls == MPI_ERR_IN_STATUS);
}

int main(int argc, char **argv)
{
    int rank, size;
    EXPECT(MPI_Init(&argc, &argv) == MPI_SUCCESS);
    EXPECT(MPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS);
    EXPECT(MPI_Comm_size(MPI_COMM_WORLD, &size) == MPI_SUCCESS && size == 4);
    waitany_order(rank);
    /* truncation is an error: returned, not fatal, from here on */
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    waitsome_all(rank);
    many_outstanding(rank, 1);
    many_outstanding(rank, 0);
    ring_replace(rank, size);
    persistent(rank);
    matched_probe(rank);
    freed_active(rank);
    bad_arguments();
    EXPECT(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0) printf("mpi_complete_test: ok (%d ranks)\n", size);
    EXPECT(MPI_Finalize() == MPI_SUCCESS);
    return 0;
}
