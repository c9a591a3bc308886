/* Senders that change all the time (issue 24's flood): phases of different
 * patterns, none separated by a fence, so one phase's traffic overlaps the
 * next: many-to-one into a hot rank, all-to-all, random bursts from a random
 * subset of ranks, and one hot receiver under light background traffic.
 * Every rank derives the same schedule from one seed, so each knows what it
 * must receive; it checks that every message arrives, in its sender's order,
 * with every byte right.  SLUICE_WIRE_CHECK=1 (set by ctest) makes every
 * packet check the mailbox for overflow and, with dynamic flow control,
 * credit conservation and the threshold invariant after every packet.
 * usage: churn_test [phases] [messages per active pair] [largest message]
 *        [expect-dynamic-activity 0|1] */
#include "util/status.h"
#include "wtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_DATA = 1, T_STATS = 2 };

typedef struct churn_hdr {
    uint32_t src, seq, len;
} churn_hdr_t;

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((rng >> 33) % n);
}

/* count[s * size + d]: messages s sends d in this phase. */
static void plan_phase(int phase, int size, uint32_t per_pair, uint32_t *count)
{
    memset(count, 0, (size_t)size * size * sizeof *count);
    int hot = (int)rnd((uint32_t)size);
    for (int s = 0; s < size; s++) {
        bool active = rnd(100) < 30;
        for (int d = 0; d < size; d++) {
            if (s == d) continue;
            uint32_t n = 0;
            switch (phase % 4) {
            case 0: n = d == hot ? per_pair : 0; break;               /* many-to-one */
            case 1: n = 1 + rnd(per_pair / 4 + 1); break;             /* all-to-all */
            case 2: n = active && rnd(3) == 0 ? rnd(2 * per_pair) : 0; break; /* bursts */
            default: n = d == hot ? per_pair : rnd(4) == 0; break;    /* hot + background */
            }
            count[s * size + d] = n;
        }
    }
}

static size_t msg_len(uint32_t seq, size_t max)
{
    return ((size_t)seq * 2654435761u) % (max + 1);
}

static uint64_t seed_of(uint32_t src, uint32_t dst, uint32_t seq)
{
    return (uint64_t)src << 48 | (uint64_t)dst << 32 | seq;
}

static void check_msg(wt_ctx_t *c, wt_msg_t *m, uint32_t *next)
{
    churn_hdr_t h;
    CHECK(m->type == T_DATA && m->len >= sizeof h);
    memcpy(&h, m->data, sizeof h);
    CHECK_EQ(h.src, m->src);
    CHECK_MSG(h.seq == next[h.src], "from %u: message %u, expected %u", h.src, h.seq, next[h.src]);
    next[h.src]++;
    CHECK_EQ(m->len, sizeof h + h.len);
    size_t bad = t_verify(m->data + sizeof h, h.len, seed_of(h.src, (uint32_t)c->rank, h.seq));
    CHECK_MSG(bad == (size_t)-1, "from %u message %u: byte %zu of %u wrong", h.src, h.seq, bad,
              h.len);
}

/* Send this rank's messages of a phase, round robin over destinations,
 * taking what has arrived meanwhile. */
static uint64_t send_phase(wt_ctx_t *c, const uint32_t *count, uint32_t *sent, char *buf,
                           size_t max, uint32_t *next)
{
    uint64_t got = 0;
    int size = c->size;
    uint32_t left[1024];
    uint32_t todo = 0;
    for (int d = 0; d < size; d++) todo += left[d] = count[c->rank * size + d];
    for (uint32_t i = 0; todo; i++) {
        int d = (int)(i % (uint32_t)size);
        if (!left[d]) continue;
        left[d]--;
        todo--;
        churn_hdr_t h = {(uint32_t)c->rank, sent[d], (uint32_t)msg_len(sent[d], max)};
        memcpy(buf, &h, sizeof h);
        t_fill(buf + sizeof h, h.len, seed_of(h.src, (uint32_t)d, h.seq));
        struct iovec iov = {buf, sizeof h + h.len};
        if (h.seq % 2) CHECK_OK(wire_send_lazy(c->wire, d, T_DATA, &iov, 1));
        else CHECK_OK(wire_send(c->wire, d, T_DATA, &iov, 1));
        sent[d]++;
        if (i % 8 == 0) {
            wt_msg_t *m;
            while ((m = wt_poll(c)) != NULL) {
                check_msg(c, m, next);
                free(m);
                got++;
            }
        }
    }
    return got;
}

int main(int argc, char **argv)
{
    int phases = argc > 1 ? atoi(argv[1]) : 24;
    uint32_t per_pair = argc > 2 ? (uint32_t)atoi(argv[2]) : 40;
    size_t max = argc > 3 ? (size_t)atoi(argv[3]) : 2000;
    int expect_dyn = argc > 4 ? atoi(argv[4]) : 0;
    wt_ctx_t c;
    CHECK_OK(wt_init(&c));
    CHECK(c.size >= 2 && c.size <= 1024);
    int size = c.size;
    const wire_layout_t *l = wire_get_layout(c.wire);
    if (c.rank == 0)
        printf("churn: %d ranks, %s flow control, mailbox %u slots (%u data), %d phases\n", size,
               l->dynamic ? "dynamic" : "static", l->slots, l->data_slots, phases);
    uint32_t *count = malloc((size_t)size * size * sizeof *count);
    uint32_t *sent = calloc((size_t)size, sizeof *sent), *next = calloc((size_t)size, sizeof *next);
    char *buf = malloc(sizeof(churn_hdr_t) + max);
    CHECK(count && sent && next && buf);
    uint64_t expect = 0, got = 0;
    for (int p = 0; p < phases; p++) {
        plan_phase(p, size, per_pair, count);
        for (int s = 0; s < size; s++) expect += count[s * size + c.rank];
        got += send_phase(&c, count, sent, buf, max, next);
    }
    for (; got < expect; got++) {
        wt_msg_t *m = wt_recv(&c);
        check_msg(&c, m, next);
        free(m);
    }
    wt_fence(&c);

    wire_stats_t st;
    wire_get_stats(c.wire, &st);
    uint64_t mine[4] = {st.fc_steals, st.fc_requests_tx, st.fc_responses_tx, st.stalled_msgs};
    if (c.rank) {
        wt_send(&c, 0, T_STATS, mine, sizeof mine);
    } else {
        uint64_t sum[4] = {mine[0], mine[1], mine[2], mine[3]};
        for (int r = 1; r < size; r++) {
            wt_msg_t *m = wt_recv_from(&c, r, T_STATS);
            CHECK_EQ(m->len, sizeof sum);
            for (int i = 0; i < 4; i++) sum[i] += ((uint64_t *)m->data)[i];
            free(m);
        }
        printf("churn: %llu messages to rank 0; all ranks: %llu steals, %llu compulsory requests, "
               "%llu responses, %llu sends parked\n", (unsigned long long)expect,
               (unsigned long long)sum[0], (unsigned long long)sum[1], (unsigned long long)sum[2],
               (unsigned long long)sum[3]);
        /* a request may still wait in its victim's mailbox: answered later */
        CHECK(sum[2] <= sum[1]);
        if (!l->dynamic) CHECK_EQ(sum[0] + sum[1], 0);
        if (expect_dyn) CHECK(sum[0] > 0 && sum[2] > 0);
    }
    wt_fence(&c);
    free(count);
    free(sent);
    free(next);
    free(buf);
    wt_fini(&c);
    t_done("churn_test");
    return 0;
}
