/* Piggybacked credits (paper 001 §5.4) measurably replace explicit credit
 * packets: the same symmetric ping-pong, first with piggybacking off, then
 * on, counting explicit credit packets each rank sent. */
#include "util/status.h"
#include "wtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_PING = 1 };

static uint64_t credit_pkts(wt_ctx_t *c)
{
    wire_stats_t s;
    wire_get_stats(c->wire, &s);
    return s.credit_pkts_tx;
}

static void pingpong(wt_ctx_t *c, int iters, size_t len)
{
    char buf[256];
    int peer = 1 - c->rank;
    for (int i = 0; i < iters; i++) {
        if (c->rank == 0) {
            t_fill(buf, len, (uint64_t)i);
            wt_send(c, peer, T_PING, buf, len);
        }
        wt_msg_t *m = wt_recv_from(c, peer, T_PING);
        CHECK_EQ(m->len, len);
        CHECK(t_verify(m->data, len, (uint64_t)i) == (size_t)-1);
        if (c->rank == 1) wt_send(c, peer, T_PING, m->data, m->len);
        free(m);
    }
}

int main(void)
{
    wt_ctx_t c;
    CHECK_OK(wt_init(&c));
    CHECK_EQ(c.size, 2);
    const int iters = 3000;
    const size_t len = 100; /* two slots, spare room for the credit field */

    wire_set_piggyback(c.wire, false);
    wt_fence(&c);
    uint64_t before = credit_pkts(&c);
    pingpong(&c, iters, len);
    uint64_t off = credit_pkts(&c) - before;

    wire_set_piggyback(c.wire, true);
    wt_fence(&c);
    before = credit_pkts(&c);
    wire_stats_t s0;
    wire_get_stats(c.wire, &s0);
    pingpong(&c, iters, len);
    uint64_t on = credit_pkts(&c) - before;
    wire_stats_t s1;
    wire_get_stats(c.wire, &s1);

    const wire_layout_t *l = wire_get_layout(c.wire);
    printf("rank %d: %d round trips of %zu B, threshold %u: explicit credit packets %llu "
           "without piggybacking, %llu with (%llu packets carried %llu credits)\n",
           c.rank, iters, len, l->threshold, (unsigned long long)off, (unsigned long long)on,
           (unsigned long long)(s1.piggy_pkts_tx - s0.piggy_pkts_tx),
           (unsigned long long)(s1.piggy_credits_tx - s0.piggy_credits_tx));
    /* Without piggybacking every `threshold` packets cost a credit packet. */
    uint32_t k = (uint32_t)((12 + len + 63) / 64);
    CHECK(off >= (uint64_t)iters * k / l->threshold - 1);
    CHECK(s1.piggy_pkts_tx > s0.piggy_pkts_tx);
    CHECK_MSG(on * 10 <= off, "piggybacking saved too little: %llu vs %llu",
              (unsigned long long)on, (unsigned long long)off);
    wt_fence(&c);
    wt_fini(&c);
    t_done("piggy_test");
    return 0;
}
