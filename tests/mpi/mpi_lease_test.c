/* Leased short-message channels (SLUICE_FAST_PEERS, src/p2p/short.c,
 * "Leases"): many senders towards one receiver that has fewer channels
 * than senders, so channels are asked back, given back with messages still
 * in them (taken back and sent again by Portals), freed and claimed again
 * while traffic flows.  Every message must arrive once, in order per
 * sender (wildcard receives) and per (sender, tag) (receives posted by tag
 * in reverse order), with every byte checked.  Sizes mix ring messages,
 * messages larger than the ring takes (Portals, rendezvous) and
 * synchronous sends, so the ring <-> Portals switches run too.
 *
 * Phases, rank 0 receiving from all others:
 *   turns:  a token passes from sender to sender; its holder sends a burst.
 *           The others wait for the token in the engine, so a receiver's
 *           request to give a channel back reaches them by a notice.
 *   flood:  every sender streams at once in windows; the receiver stalls
 *           now and then outside MPI so that rings hold unread messages
 *           when their owners are asked to give them back.
 *   tags:   as flood, the receiver's receives posted per (sender, tag),
 *           tags in reverse order.
 * With SLUICE_FAST_PEERS set, the sums over all ranks of the lease
 * counters must show channels asked back, given back, freed, and messages
 * taken back from a channel being given back. */
#include "p2p/p2p.h"

#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char g_case[160];
static int g_rank;
#define MT_CONTEXT g_case
#define MT_RANK g_rank
#include "mpi_expect.h"

static const MPI_Comm W = MPI_COMM_WORLD;
#define NTAGS 3
#define WIN 16
#define BIG 12000
#define MAXLEN 20000

/* Message j of sender s in phase ph: its size, tag, bytes, and whether it
 * is a synchronous send. */
static size_t msg_len(int j)
{
    static const size_t sizes[] = {8, 0, 64, 1, 200, 8, 1000, 24, 8, 2047, 8, 16, 4000, 8, 512};
    if (j % 37 == 36) return j % 74 == 73 ? MAXLEN : BIG;
    return sizes[(size_t)j % (sizeof sizes / sizeof *sizes)];
}

static int msg_tag(int s, int j)
{
    return (j * 7 + s) % NTAGS;
}

static unsigned char msg_byte(int s, int j, int ph, size_t i)
{
    return (unsigned char)(s * 31 + j * 17 + (int)i * 3 + ph * 101);
}

static bool msg_sync(int j)
{
    return j % 23 == 22;
}

static void fill(unsigned char *b, int s, int j, int ph)
{
    size_t n = msg_len(j);
    for (size_t i = 0; i < n; i++)
        b[i] = msg_byte(s, j, ph, i);
}

static void check(const unsigned char *b, const MPI_Status *st, int s, int j, int ph)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    snprintf(g_case, sizeof g_case, "phase %d: message %d of rank %d (source %d tag %d, %d B)", ph,
             j, s, st->MPI_SOURCE, st->MPI_TAG, count);
    EXPECT(st->MPI_SOURCE == s);
    EXPECT(st->MPI_TAG == msg_tag(s, j));
    EXPECT((size_t)count == msg_len(j));
    EXPECT_BYTES(b, count, i, msg_byte(s, j, ph, i));
}

/* Spin for us microseconds without entering MPI: rings fill meanwhile. */
static void stall(int us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

/* Send messages [from, to) of phase ph to rank 0, in windows. */
static void send_range(int from, int to, int ph, unsigned char (*bufs)[MAXLEN])
{
    MPI_Request rq[WIN];
    int n = 0;
    for (int j = from; j < to; j++) {
        fill(bufs[n], g_rank, j, ph);
        int len = (int)msg_len(j), tag = msg_tag(g_rank, j);
        int rc = msg_sync(j) ? MPI_Issend(bufs[n], len, MPI_BYTE, 0, tag, W, &rq[n])
                             : MPI_Isend(bufs[n], len, MPI_BYTE, 0, tag, W, &rq[n]);
        snprintf(g_case, sizeof g_case, "phase %d: send %d", ph, j);
        EXPECT(rc == MPI_SUCCESS);
        if (++n == WIN || j + 1 == to) {
            EXPECT(MPI_Waitall(n, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
            n = 0;
        }
    }
}

/* Rank 0: receive count messages from each sender with wildcards; each
 * must be that sender's next one. */
static void recv_any(int size, int count, int ph, unsigned char *buf)
{
    int *next = calloc((size_t)size, sizeof *next);
    EXPECT(next);
    for (int k = 0; k < (size - 1) * count; k++) {
        MPI_Status st;
        EXPECT(MPI_Recv(buf, MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, W, &st) == MPI_SUCCESS);
        int s = st.MPI_SOURCE;
        snprintf(g_case, sizeof g_case, "phase %d: source %d", ph, s);
        EXPECT(s > 0 && s < size && next[s] < count);
        check(buf, &st, s, next[s]++, ph);
        if (k % 97 == 96) stall(150);
    }
    free(next);
}

static void phase_turns(int size, int rounds, int burst, unsigned char (*bufs)[MAXLEN])
{
    const int ph = 1, token = 77;
    if (g_rank == 0) {
        recv_any(size, rounds * burst, ph, bufs[0]);
        return;
    }
    int prev = g_rank == 1 ? size - 1 : g_rank - 1, next = g_rank == size - 1 ? 1 : g_rank + 1;
    for (int r = 0; r < rounds; r++) {
        int t;
        if (r > 0 || g_rank != 1)
            EXPECT(MPI_Recv(&t, 1, MPI_INT, prev, token, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        send_range(r * burst, (r + 1) * burst, ph, bufs);
        t = r;
        if (r + 1 < rounds || g_rank != size - 1)
            EXPECT(MPI_Send(&t, 1, MPI_INT, next, token, W) == MPI_SUCCESS);
    }
}

static void phase_flood(int size, int count, unsigned char (*bufs)[MAXLEN])
{
    const int ph = 2;
    if (g_rank == 0)
        recv_any(size, count, ph, bufs[0]);
    else
        send_range(0, count, ph, bufs);
}

/* Receives per (sender, tag), posted tag 2 first: each must get that
 * sender's next message with that tag. */
static void phase_tags(int size, int count, unsigned char (*bufs)[MAXLEN])
{
    const int ph = 3;
    if (g_rank != 0) {
        send_range(0, count, ph, bufs);
        return;
    }
    int n = (size - 1) * count;
    MPI_Request *rq = malloc((size_t)n * sizeof *rq);
    MPI_Status *st = malloc((size_t)n * sizeof *st);
    int *who = malloc((size_t)n * sizeof *who), *idx = malloc((size_t)n * sizeof *idx);
    unsigned char *mem = malloc((size_t)n * MAXLEN);
    EXPECT(rq && st && who && idx && mem);
    int k = 0;
    for (int tag = NTAGS - 1; tag >= 0; tag--)
        for (int s = 1; s < size; s++)
            for (int j = 0; j < count; j++) {
                if (msg_tag(s, j) != tag) continue;
                who[k] = s;
                idx[k] = j;
                EXPECT(MPI_Irecv(mem + (size_t)k * MAXLEN, MAXLEN, MPI_BYTE, s, tag, W, &rq[k]) ==
                       MPI_SUCCESS);
                k++;
            }
    EXPECT(k == n);
    /* complete them in random order of the program's calls, stalling now
     * and then so that rings hold messages */
    for (int done = 0; done < n;) {
        int i, flag = 0;
        EXPECT(MPI_Testany(n, rq, &i, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        if (flag && i != MPI_UNDEFINED) {
            done++;
            if (done % 97 == 96) stall(150);
        }
    }
    for (int i = 0; i < n; i++) {
        /* Testany discarded the statuses: take them again from the buffers */
        MPI_Status s = {.MPI_SOURCE = who[i], .MPI_TAG = msg_tag(who[i], idx[i])};
        MPI_Status_set_elements(&s, MPI_BYTE, (int)msg_len(idx[i]));
        check(mem + (size_t)i * MAXLEN, &s, who[i], idx[i], ph);
    }
    free(rq);
    free(st);
    free(who);
    free(idx);
    free(mem);
}

/* A channel taken away with a message in it, for certain: every sender
 * sends to rank 0 (the first ones claim its channels) and then stays
 * outside MPI; rank 0 asks every owner to give its channel back
 * (p2p_lease_ask_all) and stays outside MPI itself while the senders send
 * K more messages each.  An owner's first one goes into its ring, where it
 * sees the request and gives the channel back, taking that message back
 * (nobody reads the ring meanwhile) and sending it again by Portals before
 * the rest.  Files, not MPI calls, say when to go on (an MPI call would
 * poll the rings and answer the request early).  Returns the number of
 * messages taken back from channels given back, summed over the ranks. */
static unsigned long phase_inflight(int size, int attempt, unsigned char (*bufs)[MAXLEN])
{
    enum { K = 6 };
    const int ph = 10 + attempt, token = 78;
    long pid = (long)getpid();
    MPI_Bcast(&pid, 1, MPI_LONG, 0, W);
    char asked[96], sent[96];
    snprintf(asked, sizeof asked, "/tmp/sluice-lease-test-%ld-%d-asked", pid, attempt);
    p2p_stats_t s0, s1;
    p2p_get_stats(&s0);
    if (g_rank == 0) {
        MPI_Status st;
        for (int k = 0; k < (size - 1) * 22; k++) { /* 21 messages, then a token, from each */
            EXPECT(MPI_Recv(bufs[0], MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, W, &st) ==
                   MPI_SUCCESS);
        }
        int n = p2p_lease_ask_all();
        FILE *f = fopen(asked, "w");
        EXPECT(f);
        fclose(f);
        for (int s = 1; s < size; s++) { /* outside MPI until every sender has sent */
            snprintf(sent, sizeof sent, "/tmp/sluice-lease-test-%ld-%d-sent-%d", pid, attempt, s);
            while (access(sent, F_OK) != 0)
                usleep(500);
            unlink(sent);
        }
        unlink(asked);
        for (int s = 1; s < size; s++)
            for (int j = 0; j < K; j++) {
                EXPECT(MPI_Recv(bufs[0], MAXLEN, MPI_BYTE, s, MPI_ANY_TAG, W, &st) == MPI_SUCCESS);
                check(bufs[0], &st, s, j, ph);
            }
        snprintf(g_case, sizeof g_case, "in flight, attempt %d: %d owners asked", attempt, n);
    } else {
        unsigned char one = 1;
        int t = 0;
        /* synchronous sends (by Portals: each claim attempt, and all of
         * them matched when they return), then one that may go by a ring */
        for (int k = 0; k < 20; k++)
            EXPECT(MPI_Ssend(&one, 1, MPI_BYTE, 0, 5, W) == MPI_SUCCESS);
        EXPECT(MPI_Send(&one, 1, MPI_BYTE, 0, 5, W) == MPI_SUCCESS);
        EXPECT(MPI_Send(&t, 1, MPI_INT, 0, token, W) == MPI_SUCCESS);
        while (access(asked, F_OK) != 0)
            usleep(500); /* outside MPI */
        MPI_Request rq[K];
        for (int j = 0; j < K; j++) {
            fill(bufs[j], g_rank, j, ph);
            EXPECT(MPI_Isend(bufs[j], (int)msg_len(j), MPI_BYTE, 0, msg_tag(g_rank, j), W,
                             &rq[j]) == MPI_SUCCESS);
        }
        snprintf(sent, sizeof sent, "/tmp/sluice-lease-test-%ld-%d-sent-%d", pid, attempt, g_rank);
        FILE *f = fopen(sent, "w");
        EXPECT(f);
        fclose(f);
        EXPECT(MPI_Waitall(K, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    }
    MPI_Barrier(W);
    p2p_get_stats(&s1);
    unsigned long mine = s1.lease_taken - s0.lease_taken, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG, MPI_SUM, W);
    return all;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(W, &g_rank);
    MPI_Comm_size(W, &size);
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    EXPECT(size >= 3 && scale >= 1);
    unsigned char(*bufs)[MAXLEN] = malloc(WIN * sizeof *bufs);
    EXPECT(bufs);
    phase_turns(size, 6 * scale, 150, bufs);
    MPI_Barrier(W);
    phase_flood(size, 1500 * scale, bufs);
    MPI_Barrier(W);
    phase_tags(size, 300 * scale, bufs);
    MPI_Barrier(W);
    const char *fast = getenv("SLUICE_FAST_PEERS");
    unsigned long inflight = 0;
    /* a channel is leased when rank 0 asks only if the senders' claims and
     * idle reclaims fell that way (SLUICE_FAST_IDLE_US): 1 to 21 attempts
     * were seen, so up to 60 (each a few milliseconds) */
    for (int attempt = 0; attempt < 60 && !inflight; attempt++)
        inflight = phase_inflight(size, attempt, bufs);
    free(bufs);

    p2p_stats_t s;
    p2p_get_stats(&s);
    unsigned long mine[6] = {s.lease_claims, s.lease_asked, s.lease_given,
                             s.lease_freed,  s.lease_taken, s.short_msgs},
                  all[6];
    MPI_Allreduce(mine, all, 6, MPI_UNSIGNED_LONG, MPI_SUM, W);
    if (g_rank == 0)
        printf("mpi_lease_test: %d ranks, SLUICE_FAST_PEERS=%s: claims %lu, asked %lu, given "
               "back %lu, freed %lu, messages taken back %lu (%lu in the in-flight phase), ring "
               "messages %lu\n",
               size, fast ? fast : "(unset)", all[0], all[1], all[2], all[3], all[4], inflight,
               all[5]);
    if (fast && atoi(fast) > 0) {
        snprintf(g_case, sizeof g_case, "channels were leased, asked back, given back, freed");
        EXPECT(all[0] > 0 && all[1] > 0 && all[2] > 0 && all[3] > 0 && all[5] > 0);
        snprintf(g_case, sizeof g_case, "messages in flight were taken back from a channel");
        EXPECT(all[4] > 0 && inflight > 0);
    }
    MPI_Finalize();
    if (g_rank == 0) printf("mpi_lease_test: all phases passed\n");
    return 0;
}
