/* Every rank sends to every other at once, into tiny mailboxes: each rank
 * is at the same time a sender out of credits (its messages parked) and a
 * receiver returning credits, so credits come back while parked packets
 * go out.  Rank r sends M messages of varying sizes to each peer,
 * round robin, and takes what has arrived every few sends (a send never
 * blocks: what finds no credits is parked).  Each rank checks that every
 * peer's messages arrive complete, in order, every byte right; the wire's
 * overflow check (SLUICE_WIRE_CHECK=1, set by ctest) aborts the job if a
 * packet ever takes a slot that is still in use.
 *
 * It found a lost credit packet: a receiver that spent the credits a
 * packet carried before freeing that packet's slot let its peer's answer,
 * a credit packet (which needs no credits), land one lap ahead in the slot
 * being freed; its header was cleared and both ranks waited for ever
 * (docs/WIRE.md, "Credits are spent after the slot is freed").
 * usage: exchange_test [messages per pair] [largest message] [sends between polls]
 *        [expect stalls 0|1 (1)] */
#include "util/status.h"
#include "wtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_DATA = 1 };

typedef struct xhdr {
    uint32_t src, dst, seq, len;
} xhdr_t;

static size_t msg_len(uint32_t seq, size_t max)
{
    return ((size_t)seq * 7919u + 13u) % (max + 1);
}

static uint64_t seed_of(uint32_t src, uint32_t dst, uint32_t seq)
{
    return (uint64_t)src << 48 | (uint64_t)dst << 32 | seq;
}

/* Check one arrived message against what its sender must have sent next. */
static void check_msg(wt_ctx_t *c, wt_msg_t *msg, uint32_t *next)
{
    xhdr_t h;
    CHECK(msg->type == T_DATA && msg->len >= sizeof h);
    memcpy(&h, msg->data, sizeof h);
    CHECK_EQ(h.src, msg->src);
    CHECK_EQ(h.dst, (uint32_t)c->rank);
    CHECK_MSG(h.seq == next[h.src], "from %u: seq %u, expected %u", h.src, h.seq, next[h.src]);
    next[h.src]++;
    CHECK_EQ(msg->len, sizeof h + h.len);
    size_t bad = t_verify(msg->data + sizeof h, h.len, seed_of(h.src, h.dst, h.seq));
    CHECK_MSG(bad == (size_t)-1, "from %u seq %u: byte %zu of %u wrong", h.src, h.seq, bad, h.len);
    free(msg);
}

int main(int argc, char **argv)
{
    uint32_t m = argc > 1 ? (uint32_t)atoi(argv[1]) : 3000;
    size_t max = argc > 2 ? (size_t)atoi(argv[2]) : 2000;
    uint32_t every = argc > 3 ? (uint32_t)atoi(argv[3]) : 4;
    int expect_stall = argc > 4 ? atoi(argv[4]) : 1;
    wt_ctx_t c;
    CHECK_OK(wt_init(&c));
    CHECK(c.size >= 2);
    const wire_layout_t *l = wire_get_layout(c.wire);
    if (c.rank == 0)
        printf("exchange: %d ranks, mailbox %u slots (quota %u, threshold %u), %u messages "
               "of 0..%zu B per pair\n",
               c.size, l->slots, l->quota, l->threshold, m, max);
    uint32_t *next = calloc((size_t)c.size, sizeof *next);
    char *buf = malloc(sizeof(xhdr_t) + max);
    CHECK(next && buf);
    uint64_t expect = (uint64_t)m * (uint64_t)(c.size - 1), got = 0;
    for (uint32_t seq = 0; seq < m; seq++) {
        for (int k = 1; k < c.size; k++) {
            int dst = (c.rank + k) % c.size;
            xhdr_t h = {(uint32_t)c.rank, (uint32_t)dst, seq, (uint32_t)msg_len(seq, max)};
            memcpy(buf, &h, sizeof h);
            t_fill(buf + sizeof h, h.len, seed_of(h.src, h.dst, seq));
            wt_send(&c, dst, T_DATA, buf, sizeof h + h.len);
        }
        if (seq % every == 0)
            for (wt_msg_t *msg; (msg = wt_poll(&c)) != NULL; got++) check_msg(&c, msg, next);
    }
    for (; got < expect; got++) check_msg(&c, wt_recv(&c), next);
    for (int r = 0; r < c.size; r++) CHECK_EQ(next[r], r == c.rank ? 0 : m);

    wire_stats_t s;
    wire_get_stats(c.wire, &s);
    /* small mailboxes: too small for the load, flow control acted both ways
     * (the default one may hold a whole burst: data and order only) */
    if (expect_stall) {
        CHECK_MSG(s.stalled_msgs > 0, "no sends stalled for credits");
        CHECK(s.credit_pkts_tx + s.piggy_pkts_tx > 0 && s.credit_pkts_rx + s.piggy_pkts_rx > 0);
    }
    free(buf);
    free(next);
    wt_fence(&c);
    wt_fini(&c);
    t_done("exchange_test");
    return 0;
}
