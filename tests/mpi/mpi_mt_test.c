/* MPI_THREAD_MULTIPLE: T threads per rank send, receive, probe, test and
 * wait at once, on MPI_COMM_WORLD (a tag range per thread) and on a
 * communicator of their own (the same tags: contexts keep them apart).
 * Thread t of a rank talks to thread t of its neighbours in a ring (sends
 * to rank+1, receives from rank-1).  Every byte of every message is
 * checked, and so are statuses and MPI's order per thread: each thread's
 * messages on a (communicator, tag) arrive in the order that thread sent
 * them.  Sizes cross the short ring, eager, HYBRID and rendezvous.  The
 * threads also create communicators at once, each from its own parent.
 * usage: mpi_mt_test [threads] [rounds] */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank = -1, g_size;
static __thread char t_case[96];
#define MT_CONTEXT t_case
#define MT_RANK g_rank
#include "mpi_expect.h"

enum { W = 16 };
static const int sizes[] = {0, 8, 200, 1000, 8192, 8193, 70000, 140000, 300000};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

typedef struct thr {
    pthread_t id;
    int t, rounds;
    MPI_Comm own; /* this thread's communicator (a dup of WORLD) */
} thr_t;

static int next_rank(void)
{
    return (g_rank + 1) % g_size;
}
static int prev_rank(void)
{
    return (g_rank + g_size - 1) % g_size;
}

/* Message k of thread t from rank src: a header (src, t, k) and a pattern. */
static void fill(unsigned char *b, int len, int src, int t, int k)
{
    for (int i = 0; i < len; i++) b[i] = (unsigned char)(src * 29 + t * 17 + k * 7 + i * 3 + (i >> 8));
    if (len >= 12) {
        int h[3] = {src, t, k};
        memcpy(b, h, sizeof h);
    }
}
static void check(const unsigned char *b, int len, int src, int t, int k)
{
    unsigned char *want = malloc(len ? (size_t)len : 1);
    EXPECT(want != NULL);
    fill(want, len, src, t, k);
    for (int i = 0; i < len; i++)
        if (b[i] != want[i]) {
            fprintf(stderr, "byte %d of %d: %u, expected %u\n", i, len, b[i], want[i]);
            EXPECT(0);
        }
    free(want);
}

static void expect_status(const MPI_Status *st, int src, int tag, int len)
{
    int n = -1;
    EXPECT(MPI_Get_count(st, MPI_BYTE, &n) == MPI_SUCCESS);
    EXPECT(st->MPI_SOURCE == src && st->MPI_TAG == tag && n == len);
}

/* A stream of messages on one tag: blocking receives, non-blocking sends;
 * order is the thread's send order. */
static void stream(thr_t *th, MPI_Comm comm, int tag)
{
    int n = NSIZES * 2;
    unsigned char *sb = malloc((size_t)n * 300000), *rb = malloc(300000);
    MPI_Request *rq = malloc((size_t)n * sizeof *rq);
    EXPECT(sb && rb && rq);
    for (int k = 0; k < n; k++) {
        int len = sizes[k % NSIZES];
        fill(sb + (size_t)k * 300000, len, g_rank, th->t, k);
        EXPECT(MPI_Isend(sb + (size_t)k * 300000, len, MPI_BYTE, next_rank(), tag, comm, &rq[k]) ==
               MPI_SUCCESS);
    }
    for (int k = 0; k < n; k++) {
        int len = sizes[k % NSIZES];
        MPI_Status st;
        EXPECT(MPI_Recv(rb, 300000, MPI_BYTE, prev_rank(), tag, comm, &st) == MPI_SUCCESS);
        expect_status(&st, prev_rank(), tag, len);
        check(rb, len, prev_rank(), th->t, k);
    }
    EXPECT(MPI_Waitall(n, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    free(sb);
    free(rb);
    free(rq);
}

/* A window: W receives, W sends, completed by one of the completion calls. */
static void window(thr_t *th, MPI_Comm comm, int tag, int len, int how)
{
    unsigned char *sb = malloc((size_t)W * (len + 1)), *rb = malloc((size_t)W * (len + 1));
    MPI_Request rq[2 * W];
    MPI_Status st[2 * W];
    EXPECT(sb && rb);
    for (int i = 0; i < W; i++)
        EXPECT(MPI_Irecv(rb + (size_t)i * len, len, MPI_BYTE, prev_rank(), tag + i, comm, &rq[i]) ==
               MPI_SUCCESS);
    for (int i = 0; i < W; i++) {
        fill(sb + (size_t)i * len, len, g_rank, th->t, 1000 + i);
        if (i % 4 == 3)
            EXPECT(MPI_Issend(sb + (size_t)i * len, len, MPI_BYTE, next_rank(), tag + i, comm,
                              &rq[W + i]) == MPI_SUCCESS);
        else
            EXPECT(MPI_Isend(sb + (size_t)i * len, len, MPI_BYTE, next_rank(), tag + i, comm,
                             &rq[W + i]) == MPI_SUCCESS);
    }
    int done = 0, flag = 0, idx, outc, outs[2 * W];
    switch (how) {
    case 0: EXPECT(MPI_Waitall(2 * W, rq, st) == MPI_SUCCESS); break;
    case 1:
        while (!flag) EXPECT(MPI_Testall(2 * W, rq, &flag, st) == MPI_SUCCESS);
        break;
    case 2:
        for (; done < 2 * W; done++) {
            MPI_Status s;
            EXPECT(MPI_Waitany(2 * W, rq, &idx, &s) == MPI_SUCCESS && idx != MPI_UNDEFINED);
            st[idx] = s;
        }
        break;
    default:
        while (done < 2 * W) {
            MPI_Status ss[2 * W];
            EXPECT(MPI_Waitsome(2 * W, rq, &outc, outs, ss) == MPI_SUCCESS);
            for (int j = 0; j < outc; j++) st[outs[j]] = ss[j];
            done += outc;
        }
    }
    for (int i = 0; i < W; i++) {
        expect_status(&st[i], prev_rank(), tag + i, len);
        check(rb + (size_t)i * len, len, prev_rank(), th->t, 1000 + i);
    }
    free(sb);
    free(rb);
}

/* Probes: the receiver learns source, tag and size first (Probe, Iprobe,
 * Mprobe), then receives exactly that. */
static void probes(thr_t *th, MPI_Comm comm, int tag)
{
    unsigned char *sb = malloc(300000), *rb = malloc(300000);
    EXPECT(sb && rb);
    for (int k = 0; k < NSIZES; k++) {
        int len = sizes[k];
        MPI_Request rq;
        fill(sb, len, g_rank, th->t, 2000 + k);
        EXPECT(MPI_Isend(sb, len, MPI_BYTE, next_rank(), tag + k, comm, &rq) == MPI_SUCCESS);
        MPI_Status st;
        int n = -1;
        if (k % 3 == 0) {
            EXPECT(MPI_Probe(prev_rank(), tag + k, comm, &st) == MPI_SUCCESS);
        } else if (k % 3 == 1) {
            int flag = 0;
            while (!flag) EXPECT(MPI_Iprobe(prev_rank(), tag + k, comm, &flag, &st) == MPI_SUCCESS);
        } else {
            MPI_Message msg;
            EXPECT(MPI_Mprobe(prev_rank(), tag + k, comm, &msg, &st) == MPI_SUCCESS);
            expect_status(&st, prev_rank(), tag + k, len);
            EXPECT(MPI_Mrecv(rb, len, MPI_BYTE, &msg, &st) == MPI_SUCCESS);
            expect_status(&st, prev_rank(), tag + k, len);
            check(rb, len, prev_rank(), th->t, 2000 + k);
            EXPECT(MPI_Wait(&rq, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            continue;
        }
        expect_status(&st, prev_rank(), tag + k, len);
        EXPECT(MPI_Get_count(&st, MPI_BYTE, &n) == MPI_SUCCESS);
        EXPECT(MPI_Recv(rb, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, comm, &st) == MPI_SUCCESS);
        expect_status(&st, prev_rank(), tag + k, len);
        check(rb, len, prev_rank(), th->t, 2000 + k);
        EXPECT(MPI_Wait(&rq, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    }
    free(sb);
    free(rb);
}

/* On the thread's own communicator: ANY_TAG keeps the thread's order, and
 * an allreduce (collectives on different communicators may overlap). */
static void own_comm(thr_t *th)
{
    int v[4], sum[4];
    for (int i = 0; i < 4; i++) v[i] = g_rank + th->t * 100 + i;
    EXPECT(MPI_Allreduce(v, sum, 4, MPI_INT, MPI_SUM, th->own) == MPI_SUCCESS);
    for (int i = 0; i < 4; i++)
        EXPECT(sum[i] == g_size * (g_size - 1) / 2 + g_size * (th->t * 100 + i));
    int out[8], in;
    MPI_Request rq[8];
    for (int k = 0; k < 8; k++) {
        out[k] = th->t * 1000 + k;
        EXPECT(MPI_Isend(&out[k], 1, MPI_INT, next_rank(), 50 + k % 3, th->own, &rq[k]) ==
               MPI_SUCCESS);
    }
    for (int k = 0; k < 8; k++) {
        MPI_Status st;
        EXPECT(MPI_Recv(&in, 1, MPI_INT, prev_rank(), MPI_ANY_TAG, th->own, &st) == MPI_SUCCESS);
        EXPECT(in == th->t * 1000 + k && st.MPI_TAG == 50 + k % 3);
    }
    EXPECT(MPI_Waitall(8, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
}

/* Communicators made by several threads at once, each from its own parent
 * (MPI allows that): each must get a context of its own on every rank.  A
 * message on tag 9 of each new communicator carries its thread: with two
 * threads' communicators on one context, one would take the other's. */
static void new_comms(thr_t *th)
{
    MPI_Comm d, s;
    EXPECT(MPI_Comm_dup(th->own, &d) == MPI_SUCCESS);
    EXPECT(MPI_Comm_split(th->own, 0, -g_rank, &s) == MPI_SUCCESS);
    int sr = -1, ss = -1;
    EXPECT(MPI_Comm_rank(s, &sr) == MPI_SUCCESS && MPI_Comm_size(s, &ss) == MPI_SUCCESS);
    EXPECT(ss == g_size && sr == g_size - 1 - g_rank); /* keys reverse the order */
    MPI_Comm cs[2] = {d, s};
    for (int i = 0; i < 2; i++) {
        int me, n, out[2] = {th->t, i}, in[2] = {-1, -1};
        MPI_Comm_rank(cs[i], &me);
        MPI_Comm_size(cs[i], &n);
        MPI_Request rq;
        EXPECT(MPI_Isend(out, 2, MPI_INT, (me + 1) % n, 9, cs[i], &rq) == MPI_SUCCESS);
        EXPECT(MPI_Recv(in, 2, MPI_INT, (me + n - 1) % n, 9, cs[i], MPI_STATUS_IGNORE) ==
               MPI_SUCCESS);
        EXPECT(in[0] == th->t && in[1] == i);
        EXPECT(MPI_Wait(&rq, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    }
    EXPECT(MPI_Comm_free(&d) == MPI_SUCCESS && MPI_Comm_free(&s) == MPI_SUCCESS);
}

static void *thread_main(void *arg)
{
    thr_t *th = arg;
    for (int r = 0; r < th->rounds; r++) {
        int tag = th->t * 1000; /* WORLD: a tag range per thread */
        snprintf(t_case, sizeof t_case, "thread %d round %d: stream", th->t, r);
        stream(th, MPI_COMM_WORLD, tag);
        stream(th, th->own, 7); /* the same tag on every thread's own comm */
        for (int s = 0; s < NSIZES; s++) {
            snprintf(t_case, sizeof t_case, "thread %d round %d: window of %d B", th->t, r,
                     sizes[s]);
            window(th, (s & 1) ? th->own : MPI_COMM_WORLD, tag + 100, sizes[s], (th->t + s + r) % 4);
        }
        snprintf(t_case, sizeof t_case, "thread %d round %d: probes", th->t, r);
        probes(th, MPI_COMM_WORLD, tag + 500);
        snprintf(t_case, sizeof t_case, "thread %d round %d: own comm", th->t, r);
        own_comm(th);
        snprintf(t_case, sizeof t_case, "thread %d round %d: new communicators", th->t, r);
        new_comms(th);
    }
    return NULL;
}

/* ---- a cancel while another thread waits -------------------------------------------- */

static MPI_Request cancel_req;
static int cancel_flag;

static void *cancel_waiter(void *arg)
{
    (void)arg;
    MPI_Status st;
    EXPECT(MPI_Wait(&cancel_req, &st) == MPI_SUCCESS);
    EXPECT(MPI_Test_cancelled(&st, &cancel_flag) == MPI_SUCCESS);
    EXPECT(cancel_req == MPI_REQUEST_NULL);
    return NULL;
}

/* A thread waits on a receive nobody sends; the main thread cancels it:
 * the wait returns, cancelled, and the request is collected once (twice
 * corrupted the request pool: the next operations would share a request). */
static void cancel_while_waiting(void)
{
    static char buf[64];
    for (int i = 0; i < 50; i++) {
        snprintf(t_case, sizeof t_case, "cancel while another thread waits, %d", i);
        cancel_flag = 0;
        EXPECT(MPI_Irecv(buf, 64, MPI_BYTE, prev_rank(), 99999, MPI_COMM_WORLD, &cancel_req) ==
               MPI_SUCCESS);
        MPI_Request mine = cancel_req;
        pthread_t w;
        EXPECT(pthread_create(&w, NULL, cancel_waiter, NULL) == 0);
        if (i % 2) sched_yield(); /* sometimes the waiter is asleep by now */
        EXPECT(MPI_Cancel(&mine) == MPI_SUCCESS);
        EXPECT(pthread_join(w, NULL) == 0);
        EXPECT(cancel_flag);
    }
    /* the pool is sound: a window of operations, each its own request */
    thr_t th = {.t = 0, .rounds = 1, .own = MPI_COMM_WORLD};
    window(&th, MPI_COMM_WORLD, 40000, 1000, 0);
}

/* ---- matched probes from several threads ---------------------------------------------- */

enum { MP_MSGS = 300 };
static int mp_taken; /* messages claimed so far (under mp_lock) */
static unsigned char mp_seen[MP_MSGS];
static pthread_mutex_t mp_lock = PTHREAD_MUTEX_INITIALIZER;

static int mp_len(int k)
{
    return sizes[k % NSIZES] % 70001; /* up to the eager range and over it */
}

static void *mprobe_worker(void *arg)
{
    MPI_Comm comm = *(MPI_Comm *)arg;
    unsigned char *buf = malloc(300000);
    EXPECT(buf != NULL);
    for (;;) {
        pthread_mutex_lock(&mp_lock);
        int left = MP_MSGS - mp_taken;
        pthread_mutex_unlock(&mp_lock);
        if (left <= 0) break;
        int flag = 0;
        MPI_Message m;
        MPI_Status st;
        EXPECT(MPI_Improbe(prev_rank(), MPI_ANY_TAG, comm, &flag, &m, &st) == MPI_SUCCESS);
        if (!flag) continue;
        int k = st.MPI_TAG, n = -1;
        EXPECT(k >= 0 && k < MP_MSGS && MPI_Get_count(&st, MPI_BYTE, &n) == MPI_SUCCESS);
        EXPECT(n == mp_len(k));
        EXPECT(MPI_Mrecv(buf, n, MPI_BYTE, &m, &st) == MPI_SUCCESS);
        EXPECT(st.MPI_TAG == k);
        check(buf, n, prev_rank(), 0, 5000 + k);
        pthread_mutex_lock(&mp_lock);
        EXPECT(!mp_seen[k]); /* each message claimed once */
        mp_seen[k] = 1;
        mp_taken++;
        pthread_mutex_unlock(&mp_lock);
    }
    free(buf);
    return NULL;
}

/* Every rank sends MP_MSGS messages (tags 0..MP_MSGS-1, sizes across the
 * protocols) to the next; on the receiving side nt threads claim them with
 * MPI_Improbe(ANY_TAG) + MPI_Mrecv at once.  Each message must be claimed
 * by exactly one thread with its own size and data (a receive posted by
 * another thread between a probe and its claim took the probed message). */
static void mprobe_threads(int nt)
{
    snprintf(t_case, sizeof t_case, "matched probes from %d threads", nt);
    MPI_Comm comm;
    EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &comm) == MPI_SUCCESS);
    unsigned char *sb = malloc((size_t)MP_MSGS * 70001);
    MPI_Request *rq = malloc(MP_MSGS * sizeof *rq);
    EXPECT(sb && rq);
    for (int k = 0; k < MP_MSGS; k++) {
        fill(sb + (size_t)k * 70001, mp_len(k), g_rank, 0, 5000 + k);
        EXPECT(MPI_Isend(sb + (size_t)k * 70001, mp_len(k), MPI_BYTE, next_rank(), k, comm,
                         &rq[k]) == MPI_SUCCESS);
    }
    pthread_t w[8];
    for (int t = 0; t < nt; t++) EXPECT(pthread_create(&w[t], NULL, mprobe_worker, &comm) == 0);
    for (int t = 0; t < nt; t++) EXPECT(pthread_join(w[t], NULL) == 0);
    for (int k = 0; k < MP_MSGS; k++) EXPECT(mp_seen[k]);
    EXPECT(MPI_Waitall(MP_MSGS, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    EXPECT(MPI_Comm_free(&comm) == MPI_SUCCESS);
    free(sb);
    free(rq);
}

int main(int argc, char **argv)
{
    int nt = argc > 1 ? atoi(argv[1]) : 4, rounds = argc > 2 ? atoi(argv[2]) : 3;
    int provided = -1, q = -1, flag = 0;
    snprintf(t_case, sizeof t_case, "init");
    EXPECT(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    EXPECT(provided == MPI_THREAD_MULTIPLE);
    EXPECT(MPI_Query_thread(&q) == MPI_SUCCESS && q == MPI_THREAD_MULTIPLE);
    EXPECT(MPI_Is_thread_main(&flag) == MPI_SUCCESS && flag);
    thr_t *th = calloc((size_t)nt, sizeof *th);
    EXPECT(th != NULL);
    for (int t = 0; t < nt; t++) {
        th[t] = (thr_t){.t = t, .rounds = rounds};
        EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &th[t].own) == MPI_SUCCESS);
    }
    for (int t = 0; t < nt; t++) EXPECT(pthread_create(&th[t].id, NULL, thread_main, &th[t]) == 0);
    for (int t = 0; t < nt; t++) EXPECT(pthread_join(th[t].id, NULL) == 0);
    cancel_while_waiting();
    mprobe_threads(nt < 8 ? nt : 8);
    snprintf(t_case, sizeof t_case, "end");
    for (int t = 0; t < nt; t++) EXPECT(MPI_Comm_free(&th[t].own) == MPI_SUCCESS);
    EXPECT(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    if (g_rank == 0)
        printf("mpi_mt_test: %d ranks x %d threads x %d rounds passed\n", g_size, nt, rounds);
    free(th);
    MPI_Finalize();
    return 0;
}
