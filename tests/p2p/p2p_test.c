/* MPI point-to-point semantics of src/p2p on 3 ranks (EAGER protocol):
 * expected and unexpected arrival, non-overtaking with ANY_TAG, the MPI row
 * of paper 000 Table 1 that the paper gets wrong (recv(t2); recv(*): s2->r1,
 * s1->r2), ANY_SOURCE with concurrent senders keeping per-source order,
 * truncation with guard bytes, probe, cancel, context isolation, sizes up to
 * the eager limit. */
#include "boot/boot.h"
#include "p2p/p2p.h"
#include "test.h"
#include "util/status.h"

#include <stdlib.h>
#include <string.h>

static boot_t *boot;
static int rank, size;

static void barrier(void)
{
    p2p_progress();
    CHECK_OK(boot_fence(boot));
}

static void send_wait(const void *buf, size_t len, int dst, int tag, unsigned ctx)
{
    p2p_req_t *r;
    CHECK_OK(p2p_isend(buf, len, dst, tag, ctx, &r));
    CHECK_OK(p2p_wait(r, NULL));
}

static p2p_status_t recv_wait(void *buf, size_t len, int src, int tag, unsigned ctx)
{
    p2p_req_t *r;
    p2p_status_t st;
    CHECK_OK(p2p_irecv(buf, len, src, tag, ctx, &r));
    CHECK_OK(p2p_wait(r, &st));
    return st;
}

/* Sizes, both arrival orders: rank 0 -> rank 1. */
static void test_sizes(void)
{
    static const size_t sizes[] = {0, 1, 52, 1000, 8192, 8193, 65536};
    char *buf = malloc(65536 + 16);
    CHECK(buf != NULL);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int expected = 0; expected < 2; expected++) {
            size_t len = sizes[i];
            p2p_req_t *r = NULL;
            if (rank == 1) memset(buf, 0, len + 16); /* before the data can arrive */
            if (rank == 1 && expected) CHECK_OK(p2p_irecv(buf, 65536, 0, 3, 0, &r));
            barrier(); /* expected: the receive is posted before the send */
            if (rank == 0) {
                t_fill(buf, len, 10 * i + (size_t)expected);
                send_wait(buf, len, 1, 3, 0);
            }
            barrier(); /* unexpected: the message is there before the receive */
            if (rank == 1) {
                p2p_status_t st;
                if (!expected) CHECK_OK(p2p_irecv(buf, 65536, 0, 3, 0, &r));
                CHECK_OK(p2p_wait(r, &st));
                CHECK_EQ(st.source, 0);
                CHECK_EQ(st.tag, 3);
                CHECK_EQ(st.bytes, len);
                CHECK_EQ(st.error, SL_OK);
                CHECK_MSG(t_verify(buf, len, 10 * i + (size_t)expected) == (size_t)-1,
                          "%zu bytes, %s", len, expected ? "expected" : "unexpected");
            }
        }
    if (rank == 0) {
        p2p_req_t *r;
        CHECK_EQ(p2p_isend(buf, (size_t)1 << 48, 1, 3, 0, &r), SL_ERR_INVALID); /* over 2^48-1 */
        CHECK_EQ(p2p_isend(buf, 1, size, 3, 0, &r), SL_ERR_INVALID);
        CHECK_EQ(p2p_isend(buf, 1, 1, -5, 0, &r), SL_ERR_INVALID);
    }
    free(buf);
    barrier();
}

/* Non-overtaking: the oldest matching message wins, whatever the tags. */
static void test_order(void)
{
    int tags[] = {5, 6, 5, 7}, v;
    if (rank == 0)
        for (int i = 0; i < 4; i++) send_wait(&i, sizeof i, 1, tags[i], 0);
    barrier();
    if (rank == 1) {
        p2p_status_t st = recv_wait(&v, sizeof v, 0, 5, 0);
        CHECK_EQ(v, 0); /* first tag-5 message */
        st = recv_wait(&v, sizeof v, 0, P2P_ANY_TAG, 0);
        CHECK_EQ(v, 1);
        CHECK_EQ(st.tag, 6);
        st = recv_wait(&v, sizeof v, 0, P2P_ANY_TAG, 0);
        CHECK_EQ(v, 2);
        CHECK_EQ(st.tag, 5);
        st = recv_wait(&v, sizeof v, P2P_ANY_SOURCE, P2P_ANY_TAG, 0);
        CHECK_EQ(v, 3);
        CHECK_EQ(st.tag, 7);
    }
    barrier();
    /* recv(t2); recv(*) posted first, then s1 (tag 1), s2 (tag 2): MPI gives
     * s2 -> r1 and s1 -> r2 (paper 000's Table 1 lists the reverse). */
    int a = -1, b = -1;
    p2p_req_t *r1 = NULL, *r2 = NULL;
    if (rank == 1) {
        CHECK_OK(p2p_irecv(&a, sizeof a, 0, 2, 0, &r1));
        CHECK_OK(p2p_irecv(&b, sizeof b, 0, P2P_ANY_TAG, 0, &r2));
    }
    barrier();
    if (rank == 0) {
        int s1 = 111, s2 = 222;
        send_wait(&s1, sizeof s1, 1, 1, 0);
        send_wait(&s2, sizeof s2, 1, 2, 0);
    }
    if (rank == 1) {
        CHECK_OK(p2p_wait(r1, NULL));
        CHECK_OK(p2p_wait(r2, NULL));
        CHECK_EQ(a, 222);
        CHECK_EQ(b, 111);
    }
    barrier();
}

/* Ranks 1 and 2 each send N numbered messages to rank 0 at once; ANY_SOURCE
 * receives keep every source's order. */
static void test_any_source(void)
{
    enum { N = 300 };
    if (rank != 0) {
        for (int i = 0; i < N; i++) {
            int msg[2] = {rank, i};
            send_wait(msg, sizeof msg, 0, 9, 0);
        }
    } else {
        int *next = calloc((size_t)size, sizeof *next);
        CHECK(next != NULL);
        for (int i = 0; i < N * (size - 1); i++) {
            int msg[2];
            p2p_status_t st = recv_wait(msg, sizeof msg, P2P_ANY_SOURCE, 9, 0);
            CHECK(st.source == msg[0] && msg[0] >= 1 && msg[0] < size);
            CHECK_MSG(msg[1] == next[msg[0]], "from %d: %d, expected %d", msg[0], msg[1],
                      next[msg[0]]);
            next[msg[0]]++;
        }
        for (int s = 1; s < size; s++) CHECK_EQ(next[s], N);
        free(next);
    }
    barrier();
}

static void test_truncate_probe_cancel_ctx(void)
{
    unsigned char big[100], small[48];
    if (rank == 0) {
        t_fill(big, sizeof big, 77);
        send_wait(big, sizeof big, 1, 4, 0);
        int x = 1, y = 2;
        send_wait(&x, sizeof x, 1, 8, 1); /* same tag, two contexts */
        send_wait(&y, sizeof y, 1, 8, 0);
    }
    barrier();
    if (rank == 1) {
        p2p_status_t st;
        CHECK_OK(p2p_probe(0, 4, 0, &st)); /* waits until it is there; not consumed */
        CHECK_EQ(st.sent, 100);
        CHECK_EQ(st.tag, 4);
        CHECK(p2p_iprobe(P2P_ANY_SOURCE, 4, 0, &st)); /* arrived: now iprobe sees it */
        CHECK(!p2p_iprobe(0, 99, 0, &st));
        memset(small, 0xab, sizeof small);
        st = recv_wait(small, 40, 0, 4, 0);
        CHECK_EQ(st.error, SL_ERR_TRUNCATE);
        CHECK_EQ(st.bytes, 40);
        CHECK_EQ(st.sent, 100);
        CHECK(t_verify(small, 40, 77) == (size_t)-1);
        for (size_t i = 40; i < sizeof small; i++) CHECK_EQ(small[i], 0xab); /* guard */
        CHECK(!p2p_iprobe(0, 4, 0, &st)); /* consumed */
        int v = 0;
        st = recv_wait(&v, sizeof v, 0, 8, 0); /* context 0 first, though sent second */
        CHECK_EQ(v, 2);
        st = recv_wait(&v, sizeof v, 0, 8, 1);
        CHECK_EQ(v, 1);
        /* a receive nothing matches can be cancelled; a matched one cannot */
        p2p_req_t *r;
        CHECK_OK(p2p_irecv(&v, sizeof v, 2, 1234, 0, &r));
        CHECK(p2p_cancel(r));
        CHECK_OK(p2p_wait(r, &st));
        CHECK(st.cancelled);
    }
    barrier();
}

int main(void)
{
    CHECK_OK(p2p_init(&rank, &size));
    CHECK_OK(boot_init(&boot));
    CHECK(size >= 3);
    test_sizes();
    test_order();
    test_any_source();
    test_truncate_probe_cancel_ctx();
    CHECK_OK(boot_fini(boot));
    CHECK_OK(p2p_fini());
    t_done("p2p_test");
    return 0;
}
