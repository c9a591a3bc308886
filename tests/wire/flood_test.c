/* Many-to-one flood into a (tiny) mailbox: every rank but 0 sends M
 * messages of varying sizes, many larger than its credit quota, to rank 0.
 * Rank 0 checks that nothing is lost, that each sender's messages arrive in
 * order and that every byte is right; the wire's own overflow check
 * (SLUICE_WIRE_CHECK=1, set by ctest) aborts the job if a sender ever
 * reserves a slot that is still in use.
 * usage: flood_test [messages per sender] [largest message] [expect-stall 0|1] [burst] */
#include "util/status.h"
#include "wtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_DATA = 1, T_DONE = 2, T_ACK = 3 };

/* burst > 0: senders wait for rank 0's ack after every burst messages, so
 * its fastbox cells drain between bursts and short lazy messages really
 * alternate between cells and the ring */
static uint32_t burst;

typedef struct flood_hdr {
    uint32_t src, seq, len;
} flood_hdr_t;

static size_t msg_len(uint32_t seq, size_t max)
{
    /* a spread of sizes: empty, one slot, around the quota and up to max */
    static const size_t fixed[] = {0, 1, 40, 52, 53, 116, 117, 500};
    if (seq < sizeof fixed / sizeof fixed[0]) return fixed[seq] < max ? fixed[seq] : max;
    return ((size_t)seq * 7919u) % (max + 1);
}

static uint64_t seed_of(uint32_t src, uint32_t seq)
{
    return (uint64_t)src << 32 | seq;
}

static void sender(wt_ctx_t *c, uint32_t m, size_t max)
{
    char *buf = malloc(sizeof(flood_hdr_t) + max);
    CHECK(buf != NULL);
    for (uint32_t seq = 0; seq < m; seq++) {
        flood_hdr_t h = {(uint32_t)c->rank, seq, (uint32_t)msg_len(seq, max)};
        memcpy(buf, &h, sizeof h);
        t_fill(buf + sizeof h, h.len, seed_of(h.src, seq));
        /* never blocks: what finds no credits is parked.  Every other message
         * is lazy: only those may take fastbox cells, so short ones switch
         * between cells and the ring all the time. */
        if (seq % 2) {
            struct iovec iov = {buf, sizeof h + h.len};
            CHECK_OK(wire_send_lazy(c->wire, 0, T_DATA, &iov, 1));
        } else {
            wt_send(c, 0, T_DATA, buf, sizeof h + h.len);
        }
        if (seq % 16 == 0) wire_progress(c->wire); /* take credits back now and then */
        if (burst && (seq + 1) % burst == 0) free(wt_recv_from(c, 0, T_ACK));
    }
    free(buf);
    wt_msg_t *done = wt_recv_from(c, 0, T_DONE);
    free(done);
}

static void receiver(wt_ctx_t *c, uint32_t m)
{
    uint32_t *next = calloc((size_t)c->size, sizeof *next);
    CHECK(next != NULL);
    uint64_t total = (uint64_t)m * (uint64_t)(c->size - 1);
    for (uint64_t got = 0; got < total; got++) {
        wt_msg_t *msg = wt_recv(c);
        flood_hdr_t h;
        CHECK(msg->type == T_DATA && msg->len >= sizeof h);
        memcpy(&h, msg->data, sizeof h);
        CHECK_EQ(h.src, msg->src);
        CHECK_MSG(h.seq == next[h.src], "from %u: seq %u, expected %u", h.src, h.seq,
                  next[h.src]);
        next[h.src]++;
        if (burst && next[h.src] % burst == 0) wt_send(c, (int)h.src, T_ACK, NULL, 0);
        CHECK_EQ(msg->len, sizeof h + h.len);
        size_t bad = t_verify(msg->data + sizeof h, h.len, seed_of(h.src, h.seq));
        CHECK_MSG(bad == (size_t)-1, "from %u seq %u: byte %zu of %u wrong", h.src, h.seq, bad,
                  h.len);
        free(msg);
    }
    for (int r = 1; r < c->size; r++) CHECK_EQ(next[r], m);
    free(next);
    for (int r = 1; r < c->size; r++) wt_send(c, r, T_DONE, NULL, 0);
}

int main(int argc, char **argv)
{
    uint32_t m = argc > 1 ? (uint32_t)atoi(argv[1]) : 2000;
    size_t max = argc > 2 ? (size_t)atoi(argv[2]) : 3000;
    int expect_stall = argc > 3 ? atoi(argv[3]) : 1;
    burst = argc > 4 ? (uint32_t)atoi(argv[4]) : 0;
    wt_ctx_t c;
    CHECK_OK(wt_init(&c));
    CHECK(c.size >= 2);
    const wire_layout_t *l = wire_get_layout(c.wire);
    if (c.rank == 0)
        printf("flood: %d ranks, mailbox %u slots (quota %u, threshold %u, packet <= %zu B), "
               "%u messages of 0..%zu B per sender\n",
               c.size, l->slots, l->quota, l->threshold, l->pkt_payload, m, max);
    if (c.rank == 0) receiver(&c, m);
    else sender(&c, m, max);

    wire_stats_t s;
    wire_get_stats(c.wire, &s);
    if (c.rank == 0) {
        /* every message came through the ring (maybe in fragments) or a fastbox cell,
         * and short messages took cells unless fastboxes are off (SLUICE_FASTBOX=0) */
        CHECK(s.pkts_rx + s.fb_pkts_rx >= (uint64_t)m * (uint64_t)(c.size - 1));
        const char *fb = getenv("SLUICE_FASTBOX");
        if (fb && atoi(fb) == 0) CHECK_EQ(s.fb_pkts_rx, 0);
        else CHECK(s.fb_pkts_rx > 0);
        CHECK(s.credit_pkts_tx + s.piggy_pkts_tx > 0); /* credits did flow back */
    } else {
        CHECK_EQ(s.msgs_tx, m);
        if (expect_stall) {
            /* the mailbox is too small for the offered load: flow control acted */
            CHECK_MSG(s.stalled_msgs > 0, "no sends stalled for credits");
            CHECK(s.stalled_pkts > 0);
        }
        CHECK(s.credit_pkts_rx + s.piggy_pkts_rx > 0);
    }
    wt_fence(&c);
    wt_fini(&c);
    t_done("flood_test");
    return 0;
}
