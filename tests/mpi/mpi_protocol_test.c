/* The protocol suite (paper 003 Table 1) on 2 ranks, under whatever
 * SLUICE_PROTOCOL ctest sets: for medium (eager < n, under the hybrid limit
 * when SLUICE_HYBRID_LIMIT sets one) and
 * large messages, standard and synchronous sends, full-size and truncating
 * receives, in the three arrival orders (sender first, receiver first,
 * together), arranged by handshakes on another tag and never by sleeping.
 * Each case checks the data, the guard bytes after a truncating receive,
 * the status, and which protocol the sender used (p2p_get_stats deltas).
 * HYBRID copies are released by their byte counter after a full receive
 * and by FIN after a truncating one: the sender's counts of each must match
 * the cases.  Then: RECEIVER_READY suppressed for ANY_SOURCE, a RECEIVER_READY made
 * stale by an eager message on the same tag, a receive cancelled after
 * announcing itself (the direct put lands in the catcher and is pulled by
 * the next receive), and "both at once": after a stale RECEIVER_READY a
 * large send puts directly with none, into a posted wildcard receive (the
 * crossing is tried again until the hint did go stale), or,
 * when the sender is in fact first, into the catcher, after which the
 * next send is SEND_RNDV again. */
#include "p2p/p2p.h"

#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MT_CONTEXT g_case
#include "mpi_expect.h"

enum { SENDER_FIRST, RECEIVER_FIRST, TOGETHER };
enum { P_EAGER, P_HYBRID, P_SEND_RNDV, P_RECV_RNDV, P_TRADITIONAL, P_N };
static const char *const pname[] = {"eager", "hybrid", "send_rndv", "recv_rndv", "traditional"};
static const char *const oname[] = {"sender first", "receiver first", "together"};

static const MPI_Comm W = MPI_COMM_WORLD;
static char g_case[160];
static const char *g_mode = "auto";
static size_t g_medium, g_large, g_hybrid_limit;
#define GUARD 64
#define TOKEN_TAG 999

static unsigned char pat(size_t i, int seed)
{
    return (unsigned char)(i * 7u + (i >> 11) + (unsigned)seed * 13u);
}

static void proto_counts(unsigned long c[P_N])
{
    p2p_stats_t s;
    p2p_get_stats(&s);
    c[P_EAGER] = s.eager;
    c[P_HYBRID] = s.hybrid;
    c[P_SEND_RNDV] = s.send_rndv;
    c[P_RECV_RNDV] = s.recv_rndv;
    c[P_TRADITIONAL] = s.traditional;
}

/* The protocols the sender may legitimately pick for this case (bit mask). */
static unsigned expected(size_t n, int order, int sync)
{
    if (!strcmp(g_mode, "eager")) return 1u << P_EAGER;
    if (!strcmp(g_mode, "hybrid")) return 1u << (sync ? P_SEND_RNDV : P_HYBRID);
    if (!strcmp(g_mode, "send_rndv")) return 1u << P_SEND_RNDV;
    if (!strcmp(g_mode, "recv_rndv")) return 1u << P_RECV_RNDV;
    if (!strcmp(g_mode, "traditional")) return 1u << P_TRADITIONAL;
    unsigned first = (n <= g_hybrid_limit && !sync) ? 1u << P_HYBRID : 1u << P_SEND_RNDV;
    if (order == RECEIVER_FIRST) return 1u << P_RECV_RNDV;
    if (order == TOGETHER) return first | 1u << P_RECV_RNDV;
    /* a direct put when earlier RECEIVER_READYs went stale (seq.c); the
     * sender checks that it then found no receive */
    if (first == 1u << P_SEND_RNDV) return first | 1u << P_RECV_RNDV;
    return first;
}

static void direct_counts(unsigned long *direct, unsigned long *fallback)
{
    p2p_stats_t s;
    p2p_get_stats(&s);
    *direct = s.rdata_direct;
    *fallback = s.rdata_fallback;
}

/* Returns the protocol used (-1: eager). */
static int check_protocol(const unsigned long before[P_N], unsigned allowed)
{
    unsigned long after[P_N];
    proto_counts(after);
    int used = -1, n = 0;
    for (int p = P_HYBRID; p < P_N; p++)
        if (after[p] != before[p]) used = p, n += (int)(after[p] - before[p]);
    if (allowed == 1u << P_EAGER) {
        EXPECT(n == 0);
        return -1;
    }
    if (n != 1 || !(allowed & 1u << used))
        fprintf(stderr, "protocol used: %s (%d non-eager sends)\n", used < 0 ? "none" : pname[used],
                n);
    EXPECT(n == 1 && (allowed & 1u << used));
    return used;
}

/* HYBRID sends of the matrix whose copy a full receive (counter) or a
 * truncating one (FIN) must release. */
static unsigned long g_hybrid_full, g_hybrid_trunc;

/* Every copy released, each the expected way: the receiver has finished
 * them all; the counter is looked at in idle progress. */
static void check_hybrid_release(void)
{
    p2p_stats_t s;
    for (int i = 0; i < 10000; i++) {
        p2p_get_stats(&s);
        if (s.hybrid_by_counter + s.hybrid_by_fin >= g_hybrid_full + g_hybrid_trunc) break;
        p2p_wait_progress(1);
    }
    if (s.hybrid_by_counter != g_hybrid_full || s.hybrid_by_fin != g_hybrid_trunc)
        fprintf(stderr, "HYBRID copies released by counter %lu (expected %lu), by FIN %lu (%lu)\n",
                s.hybrid_by_counter, g_hybrid_full, s.hybrid_by_fin, g_hybrid_trunc);
    EXPECT(s.hybrid_by_counter == g_hybrid_full && s.hybrid_by_fin == g_hybrid_trunc);
}

/* allowed: the protocols the send may use (0: as the case's arrival order says) */
static void sender(size_t n, int order, int sync, int tag, unsigned allowed, int trunc)
{
    unsigned char *buf = malloc(n);
    EXPECT(buf);
    for (size_t i = 0; i < n; i++) buf[i] = pat(i, tag);
    unsigned long before[P_N];
    MPI_Request r;
    /* the receive is posted, its RR sent */
    if (order == RECEIVER_FIRST) MT_TOKEN_RECV(1, TOKEN_TAG);
    if (order == TOGETHER) MPI_Barrier(W);
    unsigned long direct0, fallback0, direct1, fallback1;
    proto_counts(before);
    direct_counts(&direct0, &fallback0);
    EXPECT((sync ? MPI_Issend : MPI_Isend)(buf, (int)n, MPI_BYTE, 1, tag, W, &r) == MPI_SUCCESS);
    int used = check_protocol(before, allowed ? allowed : expected(n, order, sync));
    if (used == P_HYBRID) *(trunc ? &g_hybrid_trunc : &g_hybrid_full) += 1;
    /* the header is there before the token */
    if (order == SENDER_FIRST) MT_TOKEN_SEND(1, TOKEN_TAG);
    EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    direct_counts(&direct1, &fallback1);
    /* receiver first: the put lands in the receive; announced (a specific
     * receive), the RECEIVER_READY was used, no guess */
    if (order == RECEIVER_FIRST && used == P_RECV_RNDV) EXPECT(fallback1 == fallback0);
    if (order == RECEIVER_FIRST && !allowed) EXPECT(direct1 == direct0);
    /* sender first, yet a direct put: it found no receive, the catcher took it */
    if (order == SENDER_FIRST && used == P_RECV_RNDV)
        EXPECT(direct1 == direct0 + 1 && fallback1 == fallback0 + 1);
    free(buf);
}

static void receiver(size_t n, int order, int tag, size_t cap)
{
    unsigned char *buf = malloc(cap + GUARD);
    EXPECT(buf);
    memset(buf, 0xEE, cap + GUARD);
    MPI_Request r;
    MPI_Status st;
    if (order == SENDER_FIRST) MT_TOKEN_RECV(0, TOKEN_TAG);
    if (order == TOGETHER) MPI_Barrier(W);
    EXPECT(MPI_Irecv(buf, (int)cap, MPI_BYTE, 0, tag, W, &r) == MPI_SUCCESS);
    if (order == RECEIVER_FIRST) MT_TOKEN_SEND(0, TOKEN_TAG);
    int rc = MPI_Wait(&r, &st);
    size_t got = n < cap ? n : cap;
    EXPECT(rc == (n > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS));
    EXPECT(st.MPI_SOURCE == 0 && st.MPI_TAG == tag);
    int count;
    EXPECT(MPI_Get_count(&st, MPI_BYTE, &count) == MPI_SUCCESS && (size_t)count == got);
    EXPECT_BYTES(buf, got, i, pat(i, tag));
    for (size_t i = cap; i < cap + GUARD; i++) EXPECT(buf[i] == 0xEE);
    free(buf);
}

static void matrix(int rank)
{
    int tag = 1;
    const size_t sizes[] = {g_medium, g_large};
    for (int s = 0; s < 2; s++)
        for (int order = 0; order < 3; order++)
            for (int sync = 0; sync < 2; sync++)
                for (int trunc = 0; trunc < 2; trunc++, tag++) {
                    size_t n = sizes[s], cap = trunc ? n - 1001 : n + 3;
                    snprintf(g_case, sizeof g_case, "%s: %zu bytes, %s, %s, %s", g_mode, n,
                             oname[order], sync ? "Issend" : "Isend",
                             trunc ? "truncating" : "full receive");
                    if (rank == 0) sender(n, order, sync, tag, 0, trunc);
                    else receiver(n, order, tag, cap);
                }
    MPI_Barrier(W); /* every receive has finished */
    snprintf(g_case, sizeof g_case, "%s: HYBRID copies released", g_mode);
    if (rank == 0) check_hybrid_release();
}

static unsigned long rr_sent(void)
{
    p2p_stats_t s;
    p2p_get_stats(&s);
    return s.rr_sent;
}

static int announcing(void)
{
    return !strcmp(g_mode, "auto") || !strcmp(g_mode, "recv_rndv");
}

/* ANY_SOURCE posted first: no RECEIVER_READY; data still right. */
static void any_source(int rank)
{
    snprintf(g_case, sizeof g_case, "%s: ANY_SOURCE receive first", g_mode);
    size_t n = g_large;
    if (rank == 0) {
        /* no RECEIVER_READY: chosen as if the sender were first */
        sender(n, RECEIVER_FIRST, 0, 500, expected(n, SENDER_FIRST, 0), 0);
        return;
    }
    unsigned char *buf = malloc(n);
    MPI_Request r;
    MPI_Status st;
    unsigned long rr0 = rr_sent();
    EXPECT(MPI_Irecv(buf, (int)n, MPI_BYTE, MPI_ANY_SOURCE, 500, W, &r) == MPI_SUCCESS);
    EXPECT(rr_sent() == rr0);
    MT_TOKEN_SEND(0, TOKEN_TAG);
    EXPECT(MPI_Wait(&r, &st) == MPI_SUCCESS && st.MPI_SOURCE == 0);
    for (size_t i = 0; i < n; i++) EXPECT(buf[i] == pat(i, 500));
    free(buf);
}

/* Two large receives posted on one tag (two RECEIVER_READYs, numbers k and
 * k+1); the first send is small (eager), so RR k is stale and the second,
 * large send must use RR k+1 for itself. */
static void stale_rr(int rank)
{
    snprintf(g_case, sizeof g_case, "%s: stale RECEIVER_READY", g_mode);
    size_t n = g_large;
    unsigned char *a = malloc(n), *b = malloc(n);
    for (size_t i = 0; i < n; i++) a[i] = pat(i, 600), b[i] = pat(i, 601);
    if (rank == 0) {
        unsigned long before[P_N];
        MT_TOKEN_RECV(1, TOKEN_TAG);
        EXPECT(MPI_Send(a, 100, MPI_BYTE, 1, 600, W) == MPI_SUCCESS);
        proto_counts(before);
        EXPECT(MPI_Send(b, (int)n, MPI_BYTE, 1, 600, W) == MPI_SUCCESS);
        if (!strcmp(g_mode, "auto")) check_protocol(before, 1u << P_RECV_RNDV);
    } else {
        MPI_Request r[2];
        MPI_Status st[2];
        unsigned long rr0 = rr_sent();
        memset(a, 0, n);
        memset(b, 0, n);
        EXPECT(MPI_Irecv(a, (int)n, MPI_BYTE, 0, 600, W, &r[0]) == MPI_SUCCESS);
        EXPECT(MPI_Irecv(b, (int)n, MPI_BYTE, 0, 600, W, &r[1]) == MPI_SUCCESS);
        EXPECT(rr_sent() - rr0 == (announcing() ? 2u : 0u));
        MT_TOKEN_SEND(0, TOKEN_TAG);
        EXPECT(MPI_Waitall(2, r, st) == MPI_SUCCESS);
        int c0, c1;
        MPI_Get_count(&st[0], MPI_BYTE, &c0);
        MPI_Get_count(&st[1], MPI_BYTE, &c1);
        EXPECT(c0 == 100 && (size_t)c1 == n);
        for (size_t i = 0; i < 100; i++) EXPECT(a[i] == pat(i, 600));
        for (size_t i = 0; i < n; i++) EXPECT(b[i] == pat(i, 601));
    }
    free(a);
    free(b);
}

/* A receive announces itself and is cancelled; the send it announced lands
 * in the catcher and the next matching receive pulls it. */
static void cancelled_rr(int rank)
{
    snprintf(g_case, sizeof g_case, "%s: cancelled announced receive", g_mode);
    size_t n = g_large;
    unsigned char *buf = malloc(n);
    if (rank == 0) {
        for (size_t i = 0; i < n; i++) buf[i] = pat(i, 700);
        MPI_Request r;
        MT_TOKEN_RECV(1, TOKEN_TAG); /* posted and cancelled */
        EXPECT(MPI_Isend(buf, (int)n, MPI_BYTE, 1, 700, W, &r) == MPI_SUCCESS);
        MT_TOKEN_SEND(1, TOKEN_TAG);
        EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    } else {
        MPI_Request r;
        MPI_Status st;
        int flag = 0;
        EXPECT(MPI_Irecv(buf, (int)n, MPI_BYTE, 0, 700, W, &r) == MPI_SUCCESS);
        EXPECT(MPI_Cancel(&r) == MPI_SUCCESS && MPI_Wait(&r, &st) == MPI_SUCCESS);
        EXPECT(MPI_Test_cancelled(&st, &flag) == MPI_SUCCESS && flag);
        MT_TOKEN_SEND(0, TOKEN_TAG);
        MT_TOKEN_RECV(0, TOKEN_TAG); /* the message has arrived, with no receive posted */
        memset(buf, 0, n);
        EXPECT(MPI_Recv(buf, (int)n, MPI_BYTE, 0, 700, W, &st) == MPI_SUCCESS);
        for (size_t i = 0; i < n; i++) EXPECT(buf[i] == pat(i, 700));
    }
    free(buf);
    if (rank == 0 && !strcmp(g_mode, "auto")) {
        p2p_stats_t s;
        p2p_get_stats(&s);
        EXPECT(s.rdata_fallback >= 1);
    }
}

/* Both at once (DESIGN.md §4 third column; seq.c).  A RECEIVER_READY
 * made stale (an eager message takes its receive) is the evidence; the
 * next large send with no RECEIVER_READY for it puts directly: into a
 * posted ANY_TAG receive (which sends none), the ack from the priority
 * list completing it without FIN.  Then the sender is first for real:
 * each direct put lands in the catcher, is pulled, and lowers the
 * evidence, so within TOGETHER_MAX / 2 + 1 sends they are SEND_RNDV again
 * (how many depends on the evidence earlier cases left). */
static unsigned long rr_stale_count(void)
{
    p2p_stats_t s;
    p2p_get_stats(&s);
    return s.rr_stale;
}

/* Make a RECEIVER_READY go stale: rank 1 announces a large receive on tag,
 * rank 0 sends 10 bytes on it, rank 1 posts an ANY_TAG receive, rank 0
 * sends n bytes on tag + 1.  The hint goes stale (crossed the small send)
 * when rank 0 reads it only at the large send; when rank 0 happened to read
 * it earlier (housekeeping while it waited for the token), the small send
 * used it and nothing is stale: then only the data is checked, and the
 * caller tries again.  Returns (on rank 0) whether it went stale. */
static int stale_then_large(int rank, int tag, unsigned char *a, size_t n)
{
    MPI_Request r;
    MPI_Status st;
    int stale = 0;
    if (rank == 0) {
        MT_TOKEN_RECV(1, TOKEN_TAG); /* a large receive on tag is posted and announced */
        EXPECT(MPI_Send(a, 10, MPI_BYTE, 1, tag, W) == MPI_SUCCESS);
        MT_TOKEN_RECV(1, TOKEN_TAG); /* taken; an ANY_TAG receive is posted */
        for (size_t i = 0; i < n; i++) a[i] = pat(i, tag + 1);
        unsigned long before[P_N], d0, f0, d1, f1, s0 = rr_stale_count();
        proto_counts(before);
        direct_counts(&d0, &f0);
        EXPECT(MPI_Send(a, (int)n, MPI_BYTE, 1, tag + 1, W) == MPI_SUCCESS);
        stale = rr_stale_count() > s0;
        /* stale: a direct put, which found the posted receive */
        check_protocol(before, stale ? 1u << P_RECV_RNDV : 1u << P_RECV_RNDV | 1u << P_SEND_RNDV);
        direct_counts(&d1, &f1);
        EXPECT(!stale || (d1 == d0 + 1 && f1 == f0));
        EXPECT(MPI_Send(&stale, 1, MPI_INT, 1, TOKEN_TAG, W) == MPI_SUCCESS);
    } else {
        EXPECT(MPI_Irecv(a, (int)n, MPI_BYTE, 0, tag, W, &r) == MPI_SUCCESS);
        MT_TOKEN_SEND(0, TOKEN_TAG);
        EXPECT(MPI_Wait(&r, &st) == MPI_SUCCESS && st.MPI_TAG == tag);
        memset(a, 0, n);
        EXPECT(MPI_Irecv(a, (int)n, MPI_BYTE, 0, MPI_ANY_TAG, W, &r) == MPI_SUCCESS);
        MT_TOKEN_SEND(0, TOKEN_TAG);
        EXPECT(MPI_Wait(&r, &st) == MPI_SUCCESS && st.MPI_TAG == tag + 1);
        EXPECT_BYTES(a, n, i, pat(i, tag + 1));
        EXPECT(MPI_Recv(&stale, 1, MPI_INT, 0, TOKEN_TAG, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    }
    return stale;
}

static void both_at_once(int rank)
{
    if (strcmp(g_mode, "auto") != 0) return;
    size_t n = g_large;
    unsigned char *a = malloc(n), *b = malloc(n);
    EXPECT(a && b);
    MPI_Request r;
    MPI_Status st;
    int more = 1;
    snprintf(g_case, sizeof g_case, "auto: both at once, direct put into a wildcard receive");
    int tries = 0;
    while (!stale_then_large(rank, 900 + 2 * tries, a, n)) EXPECT(++tries < 20);
    if (rank == 0) {
        unsigned long before[P_N], d0, f0, d1, f1;
        for (size_t i = 0; i < n; i++) b[i] = pat(i, 802);
        for (int k = 0; more; k++) {
            snprintf(g_case, sizeof g_case, "auto: both at once, sender first, send %d", k);
            EXPECT(k <= 9);
            proto_counts(before);
            direct_counts(&d0, &f0);
            EXPECT(MPI_Isend(b, (int)n, MPI_BYTE, 1, 802, W, &r) == MPI_SUCCESS);
            /* the first certainly direct: the put before it landed */
            int used = check_protocol(before, k ? 1u << P_RECV_RNDV | 1u << P_SEND_RNDV
                                                : 1u << P_RECV_RNDV);
            more = used == P_RECV_RNDV;
            EXPECT(MPI_Send(&more, 1, MPI_INT, 1, TOKEN_TAG, W) == MPI_SUCCESS);
            EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            direct_counts(&d1, &f1);
            EXPECT(d1 == d0 + (unsigned long)more && f1 == f0 + (unsigned long)more);
        }
    } else {
        snprintf(g_case, sizeof g_case, "auto: both at once (receiver)");
        while (more) {
            /* the header is here before this */
            EXPECT(MPI_Recv(&more, 1, MPI_INT, 0, TOKEN_TAG, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            memset(b, 0, n);
            EXPECT(MPI_Recv(b, (int)n, MPI_BYTE, 0, 802, W, &st) == MPI_SUCCESS);
            EXPECT_BYTES(b, n, i, pat(i, 802));
        }
    }
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &size);
    snprintf(g_case, sizeof g_case, "setup");
    EXPECT(size == 2);
    MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
    const char *m = getenv("SLUICE_PROTOCOL");
    if (m && *m) g_mode = m;
    const char *e = getenv("SLUICE_EAGER_LIMIT"), *h = getenv("SLUICE_HYBRID_LIMIT");
    size_t eager = e ? strtoul(e, NULL, 10) : 65536;
    /* the library's default is no HYBRID range (SLUICE_HYBRID_LIMIT=0) */
    g_hybrid_limit = h && strtoul(h, NULL, 10) > eager ? strtoul(h, NULL, 10) : eager;
    /* odd, over the eager limit, under the hybrid limit where there is one */
    g_medium = eager + 1 + 2047;
    g_large = (g_hybrid_limit > g_medium ? g_hybrid_limit : g_medium) + 1024 * 1024 + 333;
    EXPECT(g_medium > 1100);
    matrix(rank);
    any_source(rank);
    stale_rr(rank);
    cancelled_rr(rank);
    MPI_Barrier(W);
    both_at_once(rank);
    MPI_Barrier(W);
    /* only the announcing protocols number receives and sends */
    snprintf(g_case, sizeof g_case, "%s: sequence table", g_mode);
    p2p_stats_t s;
    p2p_get_stats(&s);
    EXPECT(announcing() ? s.seq_keys > 0 : s.seq_keys == 0);
    if (rank == 0)
        printf("mpi_protocol_test: ok (%s; HYBRID copies released by counter %lu, by FIN %lu)\n",
               g_mode, g_hybrid_full, g_hybrid_trunc);
    MPI_Finalize();
    return 0;
}
