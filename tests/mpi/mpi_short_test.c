/* The short-message path (src/p2p/short.c) against MPI order.  Messages of
 * one pair switch between the short ring and Portals whenever sizes mix; every
 * case checks that receives still match in send order, with the receives
 * posted first and last, wildcards, probes, cancel and truncation.  The
 * switch that takes messages back is forced by a receiver that stays outside
 * MPI (a file handshake, not a sleep: it must not poll its rings) and is
 * checked in the counters.  3 ranks; run with SLUICE_SHORT_RING=4096 (64
 * lines: 64 messages of 8 bytes, 3 of 1,024) and SLUICE_SHORT_MAX=1024. */
#include "p2p/p2p.h"

#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_case[128];
static int g_rank;
#define MT_CONTEXT g_case
#define MT_RANK g_rank
#include "mpi_expect.h"

#define TOKEN 999
#define GUARD 32
static const MPI_Comm W = MPI_COMM_WORLD;

/* A mixed sequence: short, rendezvous and medium sizes, one tag or two. */
static const size_t sizes[] = {8,    1,  1024, 200000, 8, 0,  3000, 16, 1200000,
                               1025, 64, 8,    70000,  8, 33, 8,    8,  100000};
#define NSEQ (sizeof sizes / sizeof sizes[0])

static unsigned char pat(size_t i, unsigned k)
{
    return (unsigned char)(i * 13u + (i >> 8) + k * 71u + 1u);
}

static void fill(unsigned char *b, size_t n, unsigned k)
{
    for (size_t i = 0; i < n; i++) b[i] = pat(i, k);
    if (n >= 4) memcpy(b, &k, 4); /* which message this is */
}

static void check(const unsigned char *b, size_t n, unsigned k, const MPI_Status *st, int src)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    EXPECT(count == (int)n);
    EXPECT(st->MPI_SOURCE == src);
    if (n >= 4) {
        unsigned got;
        memcpy(&got, b, 4);
        if (got != k) fprintf(stderr, "message %u arrived where %u was expected\n", got, k);
        EXPECT(got == k);
    }
    for (size_t i = 4; i < n; i++) EXPECT(b[i] == pat(i, k));
}

static unsigned char *bufs[NSEQ];

static void send_seq(int to, int tag_base, unsigned key, void (*after)(void))
{
    MPI_Request rq[NSEQ];
    for (unsigned k = 0; k < NSEQ; k++) {
        bufs[k] = malloc(sizes[k] + 1);
        fill(bufs[k], sizes[k], key + k);
        EXPECT(MPI_Isend(bufs[k], (int)sizes[k], MPI_BYTE, to, tag_base + (int)(k % 2), W,
                         &rq[k]) == MPI_SUCCESS);
    }
    if (after) after();
    EXPECT(MPI_Waitall(NSEQ, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    for (unsigned k = 0; k < NSEQ; k++) free(bufs[k]);
}

/* Receive the sequence: tags as sent, or MPI_ANY_TAG; posted all at once
 * (early) or one by one. */
static void recv_seq(int from, int tag_base, unsigned key, int any_tag, int all_at_once,
                     void (*between)(void))
{
    MPI_Request rq[NSEQ];
    for (unsigned k = 0; k < NSEQ; k++) {
        bufs[k] = malloc(sizes[k] + 1);
        int tag = any_tag ? MPI_ANY_TAG : tag_base + (int)(k % 2);
        EXPECT(MPI_Irecv(bufs[k], (int)sizes[k], MPI_BYTE, from, tag, W, &rq[k]) == MPI_SUCCESS);
        if (!all_at_once) {
            MPI_Status st;
            EXPECT(MPI_Wait(&rq[k], &st) == MPI_SUCCESS);
            check(bufs[k], sizes[k], key + k, &st, from);
            EXPECT(st.MPI_TAG == tag_base + (int)(k % 2));
        }
    }
    if (between) between();
    if (all_at_once) {
        MPI_Status st[NSEQ];
        EXPECT(MPI_Waitall(NSEQ, rq, st) == MPI_SUCCESS);
        for (unsigned k = 0; k < NSEQ; k++) {
            check(bufs[k], sizes[k], key + k, &st[k], from);
            EXPECT(st[k].MPI_TAG == tag_base + (int)(k % 2));
        }
    }
    for (unsigned k = 0; k < NSEQ; k++) free(bufs[k]);
}

static void token_to_0(void)
{
    MT_TOKEN_SEND(0, TOKEN);
}

static void token_to_1(void)
{
    MT_TOKEN_SEND(1, TOKEN);
}

/* Order across switches: receiver first, sender first, one by one. */
static void order_cases(void)
{
    for (int any = 0; any < 2; any++) {
        snprintf(g_case, sizeof g_case, "receives posted first, any_tag %d", any);
        if (g_rank == 0) {
            MT_TOKEN_RECV(1, TOKEN);
            send_seq(1, 10, 100, NULL);
        } else if (g_rank == 1) {
            recv_seq(0, 10, 100, any, 1, token_to_0);
        }
        snprintf(g_case, sizeof g_case, "sends first, any_tag %d", any);
        if (g_rank == 0) {
            /* the token follows the whole sequence */
            send_seq(1, 20, 200, token_to_1);
        } else if (g_rank == 1) {
            MT_TOKEN_RECV(0, TOKEN);
            recv_seq(0, 20, 200, any, 1, NULL);
        }
        snprintf(g_case, sizeof g_case, "one receive at a time, any_tag %d", any);
        if (g_rank == 0) send_seq(1, 30, 300, NULL);
        else if (g_rank == 1) recv_seq(0, 30, 300, any, 0, NULL);
        MPI_Barrier(W);
    }
}

/* Two senders, ANY_SOURCE receives: each source's messages in its order. */
static void any_source_case(void)
{
    snprintf(g_case, sizeof g_case, "ANY_SOURCE, two mixed senders");
    if (g_rank == 1 || g_rank == 2) {
        send_seq(0, 40, 1000u * (unsigned)g_rank, NULL);
    } else {
        unsigned next[3] = {0, 0, 0};
        size_t cap = 1200000;
        unsigned char *b = malloc(cap);
        for (unsigned i = 0; i < 2 * NSEQ; i++) {
            MPI_Status st;
            EXPECT(MPI_Recv(b, (int)cap, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, W, &st) ==
                   MPI_SUCCESS);
            int s = st.MPI_SOURCE;
            EXPECT(s == 1 || s == 2);
            EXPECT(next[s] < NSEQ);
            unsigned k = next[s]++;
            check(b, sizes[k], 1000u * (unsigned)s + k, &st, s);
            EXPECT(st.MPI_TAG == 40 + (int)(k % 2));
        }
        free(b);
    }
    MPI_Barrier(W);
}

/* Probe sees the short message before the rendezvous one behind it; Mprobe
 * and Mrecv take it; truncation of a short message leaves the guard. */
static void probe_truncate_case(void)
{
    snprintf(g_case, sizeof g_case, "probe, mprobe, truncation");
    if (g_rank == 0) {
        unsigned char s[100], *big = malloc(300000);
        fill(s, sizeof s, 7);
        fill(big, 300000, 8);
        MPI_Request rq[3];
        EXPECT(MPI_Isend(s, 100, MPI_BYTE, 1, 50, W, &rq[0]) == MPI_SUCCESS);
        EXPECT(MPI_Isend(big, 300000, MPI_BYTE, 1, 50, W, &rq[1]) == MPI_SUCCESS);
        EXPECT(MPI_Isend(s, 100, MPI_BYTE, 1, 51, W, &rq[2]) == MPI_SUCCESS);
        MT_TOKEN_SEND(1, TOKEN);
        EXPECT(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        free(big);
    } else if (g_rank == 1) {
        MT_TOKEN_RECV(0, TOKEN);
        MPI_Status st;
        int count = -1, flag = 0;
        EXPECT(MPI_Iprobe(0, MPI_ANY_TAG, W, &flag, &st) == MPI_SUCCESS && flag);
        MPI_Get_count(&st, MPI_BYTE, &count);
        EXPECT(count == 100 && st.MPI_TAG == 50);
        MPI_Message m;
        EXPECT(MPI_Mprobe(0, 50, W, &m, &st) == MPI_SUCCESS);
        MPI_Get_count(&st, MPI_BYTE, &count);
        EXPECT(count == 100);
        unsigned char b[100 + GUARD];
        memset(b, 0xee, sizeof b);
        EXPECT(MPI_Mrecv(b, 100, MPI_BYTE, &m, &st) == MPI_SUCCESS);
        check(b, 100, 7, &st, 0);
        EXPECT(b[100] == 0xee);
        unsigned char *big = malloc(300000);
        EXPECT(MPI_Probe(0, MPI_ANY_TAG, W, &st) == MPI_SUCCESS);
        MPI_Get_count(&st, MPI_BYTE, &count);
        EXPECT(count == 300000 && st.MPI_TAG == 50);
        EXPECT(MPI_Recv(big, 300000, MPI_BYTE, 0, 50, W, &st) == MPI_SUCCESS);
        check(big, 300000, 8, &st, 0);
        free(big);
        /* truncated: 100 bytes into 40, the rest of the buffer untouched */
        MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
        memset(b, 0xee, sizeof b);
        int rc = MPI_Recv(b, 40, MPI_BYTE, 0, 51, W, &st);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        EXPECT(cls == MPI_ERR_TRUNCATE);
        for (size_t i = 4; i < 40; i++) EXPECT(b[i] == pat(i, 7));
        for (size_t i = 40; i < sizeof b; i++) EXPECT(b[i] == 0xee);
        MPI_Comm_set_errhandler(W, MPI_ERRORS_ARE_FATAL);
    }
    MPI_Barrier(W);
}

/* A cancelled receive is not claimed by a short message that comes later. */
static void cancel_case(void)
{
    snprintf(g_case, sizeof g_case, "cancel");
    if (g_rank == 1) {
        unsigned char a[16], b[16];
        memset(a, 0xee, sizeof a);
        MPI_Request r;
        MPI_Status st;
        int c = 0;
        EXPECT(MPI_Irecv(a, 16, MPI_BYTE, 0, 60, W, &r) == MPI_SUCCESS);
        EXPECT(MPI_Cancel(&r) == MPI_SUCCESS);
        EXPECT(MPI_Wait(&r, &st) == MPI_SUCCESS);
        EXPECT(MPI_Test_cancelled(&st, &c) == MPI_SUCCESS && c);
        MT_TOKEN_SEND(0, TOKEN);
        EXPECT(MPI_Recv(b, 16, MPI_BYTE, 0, 60, W, &st) == MPI_SUCCESS);
        check(b, 16, 9, &st, 0);
        for (size_t i = 0; i < sizeof a; i++) EXPECT(a[i] == 0xee);
    } else if (g_rank == 0) {
        unsigned char s[16];
        fill(s, 16, 9);
        MT_TOKEN_RECV(1, TOKEN);
        EXPECT(MPI_Send(s, 16, MPI_BYTE, 1, 60, W) == MPI_SUCCESS);
    }
    MPI_Barrier(W);
}

static void counts(unsigned long *shrt, unsigned long *resent)
{
    p2p_stats_t s;
    p2p_get_stats(&s);
    *shrt = s.short_msgs;
    *resent = s.short_resent;
}

static unsigned long backs(void)
{
    p2p_stats_t s;
    p2p_get_stats(&s);
    return s.short_back;
}

/* Two senders send messages of 1 to 1,024 bytes (1 to 17 lines) to rank
 * 1 through a 64-line ring, in windows of 1 to 4 messages that rank 1
 * acknowledges: messages wrap round the ring (skip heads over its tail)
 * many times, windows of 3 and 4 sometimes fill it and are taken back
 * while rank 1 receives, and every message must arrive whole, in order. */
enum { WRAP_M = 600, WRAP_MAXB = 1024 };

static size_t wrap_len(unsigned k, int src)
{
    return (k * 389u + (unsigned)src * 7u) % WRAP_MAXB + 1;
}

static void wrap_send(void)
{
    unsigned long s0, r0, s1, r1;
    counts(&s0, &r0);
    unsigned char *b = malloc((size_t)WRAP_M * WRAP_MAXB);
    MPI_Request rq[4];
    for (unsigned k = 0, w = 0; k < WRAP_M; w++) {
        unsigned n = 0;
        for (; n < 1 + w % 4 && k < WRAP_M; n++, k++) {
            size_t len = wrap_len(k, g_rank);
            fill(b + (size_t)k * WRAP_MAXB, len, 3000 + k);
            EXPECT(MPI_Isend(b + (size_t)k * WRAP_MAXB, (int)len, MPI_BYTE, 1, 80, W, &rq[n]) ==
                   MPI_SUCCESS);
        }
        EXPECT(MPI_Waitall((int)n, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        MT_TOKEN_RECV(1, TOKEN);
    }
    counts(&s1, &r1);
    if (s1 - s0 < WRAP_M / 2)
        fprintf(stderr, "rank %d: %lu of %d messages by the ring\n", g_rank, s1 - s0, WRAP_M);
    EXPECT(s1 - s0 >= WRAP_M / 2); /* windows of 1 and 2 always fit */
    free(b);
}

static void wrap_recv(void)
{
    unsigned char *b = malloc(WRAP_MAXB + GUARD);
    unsigned next[3] = {0}, win[3] = {0}, inwin[3] = {0};
    for (unsigned i = 0; i < 2 * WRAP_M; i++) {
        memset(b, 0xee, WRAP_MAXB + GUARD);
        MPI_Status st;
        EXPECT(MPI_Recv(b, WRAP_MAXB, MPI_BYTE, MPI_ANY_SOURCE, 80, W, &st) == MPI_SUCCESS);
        int src = st.MPI_SOURCE;
        EXPECT(src == 0 || src == 2);
        if (src != 0 && src != 2) break;
        unsigned k = next[src]++;
        size_t len = wrap_len(k, src);
        check(b, len, 3000 + k, &st, src);
        for (size_t j = len; j < WRAP_MAXB + GUARD; j++) EXPECT(b[j] == 0xee);
        if (++inwin[src] == 1 + win[src] % 4 || next[src] == WRAP_M) {
            MT_TOKEN_SEND(src, TOKEN);
            inwin[src] = 0;
            win[src]++;
        }
    }
    EXPECT(next[0] == WRAP_M && next[2] == WRAP_M);
    free(b);
}

static void wrap_case(void)
{
    snprintf(g_case, sizeof g_case, "ring wrap, mixed sizes");
    if (g_rank == 0 || g_rank == 2) wrap_send();
    else if (g_rank == 1) wrap_recv();
    MPI_Barrier(W);
}

/* Rank 1 stays outside MPI while rank 0 sends: a file handshake, not a
 * sleep inside MPI (which would poll the rings).  Rank 0 calls away_begin
 * (rank 1 is away when it returns), then away_end (rank 1 may come back),
 * and removes the file once rank 1 has said it is back; rank 1 calls away,
 * which returns at away_end.  tag: of the message naming the file. */
static char g_away[64];

static void away_begin(int tag)
{
    snprintf(g_away, sizeof g_away, "/tmp/sluice-short-test-%d", (int)getpid());
    unlink(g_away);
    EXPECT(MPI_Send(g_away, sizeof g_away, MPI_CHAR, 1, tag, W) == MPI_SUCCESS);
    MT_TOKEN_RECV(1, TOKEN); /* rank 1 is outside MPI from now on */
}

static void away_end(void)
{
    FILE *f = fopen(g_away, "w");
    EXPECT(f);
    fclose(f);
}

static void away(int tag)
{
    EXPECT(MPI_Recv(g_away, sizeof g_away, MPI_CHAR, 0, tag, W, MPI_STATUS_IGNORE) ==
           MPI_SUCCESS);
    MT_TOKEN_SEND(0, TOKEN); /* completes without polling: nothing taken from the ring after it */
    while (access(g_away, F_OK) != 0) usleep(1000);
}

/* Rank 1 stays out of MPI while rank 0 fills its ring and then sends a
 * rendezvous message: rank 0 must take every message back and send those by
 * Portals first.  Once rank 1 has matched everything, rank 0 is back on
 * the ring. */
static void take_back_case(void)
{
    snprintf(g_case, sizeof g_case, "ring taken back");
    enum { N = 70, LINES = 64 }; /* LINES 8-byte messages fill the ring */
    if (g_rank == 0) {
        away_begin(70);
        unsigned long s0, r0, s1, r1;
        counts(&s0, &r0);
        unsigned char small[N][8], *big = malloc(500000);
        MPI_Request rq[N + 1];
        for (unsigned k = 0; k < N; k++) {
            fill(small[k], 8, 500 + k);
            EXPECT(MPI_Isend(small[k], 8, MPI_BYTE, 1, 71, W, &rq[k]) == MPI_SUCCESS);
        }
        fill(big, 500000, 500 + N);
        EXPECT(MPI_Isend(big, 500000, MPI_BYTE, 1, 71, W, &rq[N]) == MPI_SUCCESS);
        counts(&s1, &r1);
        /* the ring filled, the next send found it full: all taken back */
        if (s1 - s0 != LINES || r1 - r0 != LINES)
            fprintf(stderr, "short %lu, taken back %lu (want %d, %d)\n", s1 - s0, r1 - r0,
                    LINES, LINES);
        EXPECT(s1 - s0 == LINES && r1 - r0 == LINES);
        away_end();
        EXPECT(MPI_Waitall(N + 1, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        free(big);
        MT_TOKEN_RECV(1, TOKEN); /* rank 1 has matched all of it */
        unlink(g_away);
        counts(&s0, &r0);
        EXPECT(MPI_Send(small[0], 8, MPI_BYTE, 1, 72, W) == MPI_SUCCESS);
        counts(&s1, &r1);
        EXPECT(s1 - s0 == 1 && r1 == r0);
    } else if (g_rank == 1) {
        away(70);
        unsigned char b[8], *big = malloc(500000);
        MPI_Status st;
        for (unsigned k = 0; k < N; k++) {
            EXPECT(MPI_Recv(b, 8, MPI_BYTE, 0, 71, W, &st) == MPI_SUCCESS);
            check(b, 8, 500 + k, &st, 0);
        }
        EXPECT(MPI_Recv(big, 500000, MPI_BYTE, 0, 71, W, &st) == MPI_SUCCESS);
        check(big, 500000, 500 + N, &st, 0);
        free(big);
        MT_TOKEN_SEND(0, TOKEN);
        EXPECT(MPI_Recv(b, 8, MPI_BYTE, 0, 72, W, &st) == MPI_SUCCESS);
        check(b, 8, 500, &st, 0);
    }
    MPI_Barrier(W);
}

/* Lines of the ring and of its hot start, as short.c derives them from
 * the same settings. */
static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    return v ? atol(v) : dflt;
}

static void ring_geometry(unsigned *lines, unsigned *hot)
{
    unsigned l = 1;
    while (l * 2 <= (unsigned)(env_long("SLUICE_SHORT_RING", 65536) / 64)) l *= 2;
    long h = env_long("SLUICE_SHORT_HOT", 8192) / 64;
    *lines = l;
    *hot = h > 0 && h < (long)l ? (unsigned)h : l;
}

/* The hot start (SLUICE_SHORT_HOT).  A ping-pong of 1,000-byte messages
 * (16 lines) empties the ring before every send, so each message that would
 * pass the hot start goes back to the ring's start; with a hot start as
 * large as the ring nothing goes back.  An 8-byte round trip then leaves
 * rank 0 within the hot start (at most 17 lines in), and rank 1 stays
 * outside MPI while rank 0 sends 8-byte messages past the hot start: the
 * ring is not empty, so none goes back, and all but two lines of the ring
 * fill (a skip left unread would have cut that to the hot start).  Every
 * message is checked, in order. */
static void hot_case(void)
{
    snprintf(g_case, sizeof g_case, "hot start");
    enum { M = 40, LEN = 1000 };
    unsigned lines, hot;
    ring_geometry(&lines, &hot);
    unsigned char b[LEN];
    MPI_Status st;
    unsigned long b0 = backs(), s0, r0, s1, r1;
    for (unsigned k = 0; k < M && g_rank < 2; k++) {
        if (g_rank == 0) {
            fill(b, LEN, 7000 + k);
            EXPECT(MPI_Send(b, LEN, MPI_BYTE, 1, 90, W) == MPI_SUCCESS);
            EXPECT(MPI_Recv(b, LEN, MPI_BYTE, 1, 91, W, &st) == MPI_SUCCESS);
            check(b, LEN, 8000 + k, &st, 1);
        } else {
            EXPECT(MPI_Recv(b, LEN, MPI_BYTE, 0, 90, W, &st) == MPI_SUCCESS);
            check(b, LEN, 7000 + k, &st, 0);
            fill(b, LEN, 8000 + k);
            EXPECT(MPI_Send(b, LEN, MPI_BYTE, 0, 91, W) == MPI_SUCCESS);
        }
    }
    unsigned long went = backs() - b0;
    if (g_rank < 2 && hot < lines && hot <= 2 * 16) /* at most two messages a pass */
        EXPECT(went >= M / 2 - 1);
    if (hot == lines) EXPECT(went == 0);
    if (g_rank == 0) {
        EXPECT(MPI_Send(b, 8, MPI_BYTE, 1, 94, W) == MPI_SUCCESS);
        EXPECT(MPI_Recv(b, 8, MPI_BYTE, 1, 94, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    } else if (g_rank == 1) {
        EXPECT(MPI_Recv(b, 8, MPI_BYTE, 0, 94, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        EXPECT(MPI_Send(b, 8, MPI_BYTE, 0, 94, W) == MPI_SUCCESS);
    }
    MPI_Barrier(W);

    unsigned n = lines - 2; /* 8-byte messages: one line each */
    if (g_rank == 0) {
        away_begin(92);
        counts(&s0, &r0);
        b0 = backs();
        for (unsigned k = 0; k < n; k++) {
            fill(b, 8, 9000 + k);
            EXPECT(MPI_Send(b, 8, MPI_BYTE, 1, 93, W) == MPI_SUCCESS);
        }
        counts(&s1, &r1);
        if (s1 - s0 != n || r1 != r0 || backs() != b0)
            fprintf(stderr, "short %lu of %u, taken back %lu, went back %lu\n", s1 - s0, n,
                    r1 - r0, backs() - b0);
        EXPECT(s1 - s0 == n && r1 == r0 && backs() == b0);
        away_end();
        MT_TOKEN_RECV(1, TOKEN);
        unlink(g_away);
    } else if (g_rank == 1) {
        away(92);
        for (unsigned k = 0; k < n; k++) {
            EXPECT(MPI_Recv(b, 8, MPI_BYTE, 0, 93, W, &st) == MPI_SUCCESS);
            check(b, 8, 9000 + k, &st, 0);
        }
        MT_TOKEN_SEND(0, TOKEN);
    }
    MPI_Barrier(W);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(W, &g_rank);
    MPI_Comm_size(W, &size);
    EXPECT(size == 3);
    order_cases();
    any_source_case();
    probe_truncate_case();
    cancel_case();
    wrap_case();
    /* its exact count assumes a ring that did not just go back to its
     * start, which a hot start smaller than the ring may do */
    unsigned lines, hot;
    ring_geometry(&lines, &hot);
    if (hot == lines) take_back_case();
    hot_case();
    unsigned long s, r;
    counts(&s, &r);
    snprintf(g_case, sizeof g_case, "the short path was used");
    EXPECT(s > 0);
    MPI_Finalize();
    if (g_rank == 0) printf("mpi_short_test: all cases passed\n");
    return 0;
}
