/* Attributes, user error handlers, groups, MPI_Request_get_status and
 * MPI_Is_thread_main (ctest: 3 ranks; needs at least 2).
 *
 * - MPI_Comm_get_attr: the predefined keys on MPI_COMM_WORLD and a dup,
 *   MPI_ERR_KEYVAL for keys that do not exist.
 * - error handlers: a user handler set on a communicator runs, with that
 *   communicator and the error class, for failing collectives and
 *   point-to-point calls and for MPI_Comm_call_errhandler; a dup inherits
 *   it; it survives MPI_Errhandler_free while in use; errors on no
 *   communicator go to MPI_COMM_WORLD's handler.
 * - groups: sizes and ranks, translate_ranks (MPI_PROC_NULL, members
 *   missing from the other group), compare (IDENT, SIMILAR, UNEQUAL),
 *   MPI_GROUP_EMPTY, free.
 * - MPI_Request_get_status: flag 0 before the message, the status after,
 *   the request still there for MPI_Wait; MPI_REQUEST_NULL and inactive
 *   persistent requests give the empty status (MPI_ANY_SOURCE,
 *   MPI_ANY_TAG, count 0: MPI 3.1 §3.7.3). */
#include <mpi.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MT_RANK rank
#include "mpi_expect.h"

static int rank, size;

static int err_class(int rc)
{
    int cls;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* ---- attributes ----------------------------------------------------------------------- */

static void test_attrs(void)
{
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm comms[2] = {MPI_COMM_WORLD, dup};
    for (int k = 0; k < 2; k++) {
        int *val, flag = 0;
        EXPECT(MPI_Comm_get_attr(comms[k], MPI_TAG_UB, &val, &flag) == MPI_SUCCESS && flag);
        EXPECT(*val >= 32767);
        /* the bound is real: the largest tag works */
        int x = rank, y = -1, src = (rank + size - 1) % size;
        EXPECT(MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, *val, &y, 1, MPI_INT, src, *val,
                            comms[k], MPI_STATUS_IGNORE) == MPI_SUCCESS);
        EXPECT(y == src);
        EXPECT(MPI_Comm_get_attr(comms[k], MPI_HOST, &val, &flag) == MPI_SUCCESS && flag);
        EXPECT(*val == MPI_PROC_NULL || (*val >= 0 && *val < size));
        EXPECT(MPI_Comm_get_attr(comms[k], MPI_IO, &val, &flag) == MPI_SUCCESS && flag);
        EXPECT(*val == MPI_ANY_SOURCE || *val == MPI_PROC_NULL || (*val >= 0 && *val < size));
        EXPECT(MPI_Comm_get_attr(comms[k], MPI_WTIME_IS_GLOBAL, &val, &flag) == MPI_SUCCESS);
        EXPECT(flag && (*val == 0 || *val == 1));
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int *val, flag = 7;
    EXPECT(err_class(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &val, &flag)) ==
           MPI_ERR_KEYVAL);
    EXPECT(err_class(MPI_Comm_get_attr(MPI_COMM_NULL, MPI_TAG_UB, &val, &flag)) == MPI_ERR_COMM);
    MPI_Comm_free(&dup);
}

/* ---- error handlers ------------------------------------------------------------------- */

static int seen_calls, seen_code;
static MPI_Comm seen_comm;

static void record(MPI_Comm *comm, int *code, ...)
{
    seen_calls++;
    seen_comm = *comm;
    MPI_Error_class(*code, &seen_code);
}

static void expect_seen(MPI_Comm comm, int cls, int calls)
{
    int same;
    EXPECT(seen_calls == calls && seen_code == cls);
    EXPECT(MPI_Comm_compare(seen_comm, comm, &same) == MPI_SUCCESS && same == MPI_IDENT);
}

static void test_errhandlers(void)
{
    MPI_Errhandler eh, got;
    MPI_Comm dup, dup2;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    EXPECT(MPI_Comm_create_errhandler(record, &eh) == MPI_SUCCESS);
    EXPECT(MPI_Comm_set_errhandler(dup, eh) == MPI_SUCCESS);
    EXPECT(MPI_Comm_get_errhandler(dup, &got) == MPI_SUCCESS && got == eh);
    EXPECT(MPI_Errhandler_free(&got) == MPI_SUCCESS && got == MPI_ERRHANDLER_NULL);
    /* freed by the program, still set on dup: stays in force */
    EXPECT(MPI_Errhandler_free(&eh) == MPI_SUCCESS && eh == MPI_ERRHANDLER_NULL);
    int v = 1, o;
    EXPECT(err_class(MPI_Bcast(&v, 1, MPI_INT, size, dup)) == MPI_ERR_ROOT);
    expect_seen(dup, MPI_ERR_ROOT, 1);
    EXPECT(err_class(MPI_Allreduce(&v, &o, 1, MPI_INT, MPI_MAXLOC, dup)) == MPI_ERR_OP);
    expect_seen(dup, MPI_ERR_OP, 2);
    EXPECT(err_class(MPI_Send(&v, 1, MPI_INT, 0, -5, dup)) == MPI_ERR_TAG);
    expect_seen(dup, MPI_ERR_TAG, 3);
    EXPECT(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER) == MPI_SUCCESS);
    expect_seen(dup, MPI_ERR_OTHER, 4);
    /* a dup inherits the handler */
    EXPECT(MPI_Comm_dup(dup, &dup2) == MPI_SUCCESS);
    EXPECT(err_class(MPI_Recv(&v, 1, MPI_INT, size + 3, 0, dup2, MPI_STATUS_IGNORE)) ==
           MPI_ERR_RANK);
    expect_seen(dup2, MPI_ERR_RANK, 5);
    MPI_Comm_free(&dup);
    EXPECT(err_class(MPI_Reduce(&v, &o, 1, MPI_INT, MPI_SUM, -1, dup2)) == MPI_ERR_ROOT);
    expect_seen(dup2, MPI_ERR_ROOT, 6);
    MPI_Comm_free(&dup2);
    /* MPI_ERRORS_RETURN: no call; errors without a communicator go to
     * MPI_COMM_WORLD's handler */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER) == MPI_SUCCESS);
    EXPECT(MPI_Comm_create_errhandler(record, &eh) == MPI_SUCCESS);
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh) == MPI_SUCCESS);
    EXPECT(err_class(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_NULL)) == MPI_ERR_COMM);
    expect_seen(MPI_COMM_WORLD, MPI_ERR_COMM, 7);
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    EXPECT(MPI_Errhandler_free(&eh) == MPI_SUCCESS);
    EXPECT(seen_calls == 7);
    /* bad arguments */
    EXPECT(err_class(MPI_Comm_create_errhandler(NULL, &eh)) == MPI_ERR_ARG);
    eh = MPI_ERRHANDLER_NULL;
    EXPECT(err_class(MPI_Errhandler_free(&eh)) == MPI_ERR_ARG);
    EXPECT(err_class(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL)) == MPI_ERR_ARG);
    EXPECT(err_class(MPI_Comm_call_errhandler(MPI_COMM_NULL, MPI_ERR_OTHER)) == MPI_ERR_COMM);
}

/* ---- groups --------------------------------------------------------------------------- */

static void test_groups(void)
{
    MPI_Group world, rev, half, wdup;
    MPI_Comm crev, chalf, cdup;
    int n, r, res;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    EXPECT(MPI_Group_size(world, &n) == MPI_SUCCESS && n == size);
    EXPECT(MPI_Group_rank(world, &r) == MPI_SUCCESS && r == rank);
    /* reversed order, and the even ranks (reversed too) */
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &crev);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &chalf);
    MPI_Comm_dup(MPI_COMM_WORLD, &cdup);
    MPI_Comm_group(crev, &rev);
    MPI_Comm_group(chalf, &half);
    MPI_Comm_group(cdup, &wdup);
    EXPECT(MPI_Group_rank(rev, &r) == MPI_SUCCESS && r == size - 1 - rank);
    EXPECT(MPI_Group_compare(world, wdup, &res) == MPI_SUCCESS && res == MPI_IDENT);
    EXPECT(MPI_Group_compare(world, world, &res) == MPI_SUCCESS && res == MPI_IDENT);
    EXPECT(MPI_Group_compare(world, rev, &res) == MPI_SUCCESS &&
           res == (size > 1 ? MPI_SIMILAR : MPI_IDENT));
    EXPECT(MPI_Group_compare(world, half, &res) == MPI_SUCCESS &&
           res == (size > 1 ? MPI_UNEQUAL : MPI_IDENT));
    /* world ranks into the reversed group and into my half */
    int in[4] = {0, size - 1, MPI_PROC_NULL, 1 % size}, out[4];
    EXPECT(MPI_Group_translate_ranks(world, 4, in, rev, out) == MPI_SUCCESS);
    EXPECT(out[0] == size - 1 && out[1] == 0 && out[2] == MPI_PROC_NULL &&
           out[3] == size - 1 - 1 % size);
    EXPECT(MPI_Group_translate_ranks(world, 4, in, half, out) == MPI_SUCCESS);
    int hn;
    MPI_Group_size(half, &hn);
    for (int k = 0; k < 4; k++) {
        if (in[k] == MPI_PROC_NULL)
            EXPECT(out[k] == MPI_PROC_NULL);
        else if (in[k] % 2 != rank % 2)
            EXPECT(out[k] == MPI_UNDEFINED);
        else
            EXPECT(out[k] == hn - 1 - in[k] / 2); /* reversed: highest first */
    }
    EXPECT(MPI_Group_translate_ranks(world, 0, NULL, half, NULL) == MPI_SUCCESS);
    /* the empty group */
    EXPECT(MPI_Group_size(MPI_GROUP_EMPTY, &n) == MPI_SUCCESS && n == 0);
    EXPECT(MPI_Group_rank(MPI_GROUP_EMPTY, &r) == MPI_SUCCESS && r == MPI_UNDEFINED);
    EXPECT(MPI_Group_compare(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY, &res) == 0 && res == MPI_IDENT);
    EXPECT(MPI_Group_compare(MPI_GROUP_EMPTY, world, &res) == 0 && res == MPI_UNEQUAL);
    EXPECT(MPI_Group_translate_ranks(world, 1, in, MPI_GROUP_EMPTY, out) == 0 &&
           out[0] == MPI_UNDEFINED);
    /* errors */
    int bad = size;
    EXPECT(err_class(MPI_Group_translate_ranks(world, 1, &bad, rev, out)) == MPI_ERR_RANK);
    EXPECT(err_class(MPI_Group_size(MPI_GROUP_NULL, &n)) == MPI_ERR_GROUP);
    EXPECT(err_class(MPI_Group_compare(world, MPI_GROUP_NULL, &res)) == MPI_ERR_GROUP);
    MPI_Group freed = wdup;
    EXPECT(MPI_Group_free(&wdup) == MPI_SUCCESS && wdup == MPI_GROUP_NULL);
#ifdef SLUICE_MPI /* generation-checked handles */
    EXPECT(err_class(MPI_Group_rank(freed, &r)) == MPI_ERR_GROUP);
#endif
    (void)freed;
    EXPECT(err_class(MPI_Group_free(&wdup)) == MPI_ERR_GROUP);
    MPI_Group_free(&world);
    MPI_Group_free(&rev);
    MPI_Group_free(&half);
    MPI_Comm_free(&crev);
    MPI_Comm_free(&chalf);
    MPI_Comm_free(&cdup);
}

/* ---- MPI_Request_get_status ----------------------------------------------------------- */

static void expect_empty(const MPI_Status *st)
{
    int count;
    EXPECT(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG);
    EXPECT(MPI_Get_count(st, MPI_INT, &count) == MPI_SUCCESS && count == 0);
}

static void test_request_status(void)
{
    MPI_Status st;
    int flag = -1, v = -1, count;
    MPI_Request req = MPI_REQUEST_NULL;
    EXPECT(MPI_Request_get_status(req, &flag, &st) == MPI_SUCCESS && flag == 1);
    expect_empty(&st);
    /* rank 1 sends to rank 0 only after rank 0 has looked once */
    if (rank == 0) {
        EXPECT(MPI_Irecv(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
        EXPECT(MPI_Request_get_status(req, &flag, &st) == MPI_SUCCESS && flag == 0);
        MPI_Barrier(MPI_COMM_WORLD);
        do
            EXPECT(MPI_Request_get_status(req, &flag, &st) == MPI_SUCCESS);
        while (!flag);
        EXPECT(st.MPI_SOURCE == 1 && st.MPI_TAG == 5 && v == 55);
        EXPECT(MPI_Get_count(&st, MPI_INT, &count) == MPI_SUCCESS && count == 1);
        /* not freed: the request is still there, with the same status */
        EXPECT(req != MPI_REQUEST_NULL);
        EXPECT(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag);
        EXPECT(MPI_Wait(&req, &st) == MPI_SUCCESS && req == MPI_REQUEST_NULL);
        EXPECT(st.MPI_SOURCE == 1 && st.MPI_TAG == 5);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            v = 55;
            MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
        }
    }
    /* persistent: inactive, then started, then inactive again */
    int pv = rank, pin = -1;
    MPI_Request preq;
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Request sreq;
    EXPECT(MPI_Recv_init(&pin, 1, MPI_INT, from, 6, MPI_COMM_WORLD, &preq) == MPI_SUCCESS);
    EXPECT(MPI_Request_get_status(preq, &flag, &st) == MPI_SUCCESS && flag == 1);
    expect_empty(&st);
    EXPECT(MPI_Start(&preq) == MPI_SUCCESS);
    MPI_Isend(&pv, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, &sreq);
    do
        EXPECT(MPI_Request_get_status(preq, &flag, &st) == MPI_SUCCESS);
    while (!flag);
    EXPECT(st.MPI_SOURCE == from && pin == from);
    EXPECT(MPI_Wait(&preq, &st) == MPI_SUCCESS && preq != MPI_REQUEST_NULL);
    EXPECT(MPI_Request_get_status(preq, &flag, &st) == MPI_SUCCESS && flag == 1);
    expect_empty(&st);
    /* (not sreq: an MPI_Isend that completed as it started shares one
     * predefined handle, docs/P2P.md "Message rate") */
    MPI_Request stale = preq;
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    EXPECT(MPI_Request_free(&preq) == MPI_SUCCESS);
    /* a freed handle, a NULL flag */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#ifdef SLUICE_MPI /* generation-checked handles */
    EXPECT(err_class(MPI_Request_get_status(stale, &flag, &st)) == MPI_ERR_REQUEST);
    EXPECT(err_class(MPI_Request_get_status(MPI_REQUEST_NULL, NULL, &st)) == MPI_ERR_ARG);
#endif
    (void)stale;
}

/* ---- MPI_Is_thread_main --------------------------------------------------------------- */

static void *other_thread(void *arg)
{
    MPI_Is_thread_main((int *)arg);
    return NULL;
}

static void test_thread_main(void)
{
    int flag = 0, other = -1;
    EXPECT(MPI_Is_thread_main(&flag) == MPI_SUCCESS && flag == 1);
    pthread_t t;
    pthread_create(&t, NULL, other_thread, &other);
    pthread_join(t, NULL);
    EXPECT(other == 0);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    EXPECT(size >= 2);
    test_attrs();
    test_errhandlers();
    test_groups();
    test_request_status();
    if (provided >= MPI_THREAD_SERIALIZED) test_thread_main();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0) printf("mpi_objects_test: ok (%d ranks)\n", size);
    return 0;
}
