/* Lazy messages (wire_send_lazy): they wake a receiver's application thread
 * sleeping in a wait, never its progress thread (wire_wait_idle), and still
 * arrive.  Rank 1 sleeps, first as a progress thread would, then as an
 * application thread; rank 0 computes 300 ms (so rank 1 is surely asleep)
 * and sends one lazy message each time.  The wake-up counters must show
 * the first skipped and the second issued. */
#include "util/status.h"
#include "wtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_MSG = 1 };

static void send_lazy(wt_ctx_t *c, int to, const char *s)
{
    struct iovec iov = {(void *)s, strlen(s)};
    CHECK_OK(wire_send_lazy(c->wire, to, T_MSG, &iov, 1));
}

int main(void)
{
    wt_ctx_t c;
    CHECK_OK(wt_init(&c));
    CHECK_EQ(c.size, 2);
    wt_fence(&c);
    wire_stats_t s0, s1;
    for (int app = 0; app < 2; app++) {
        wire_get_stats(c.wire, &s0);
        if (c.rank == 0) {
            wt_compute_ms(300);
            send_lazy(&c, 1, app ? "app" : "idle");
            free(wt_recv_from(&c, 1, T_MSG)); /* rank 1 got it */
            wire_get_stats(c.wire, &s1);
            unsigned long long woke = s1.wakeups_tx - s0.wakeups_tx,
                               skipped = s1.lazy_skips - s0.lazy_skips;
            printf("rank 0, peer asleep as %s thread: %llu wake-up(s), %llu skipped\n",
                   app ? "an application" : "the progress", woke, skipped);
            if (app) CHECK(woke >= 1 && skipped == 0);
            else CHECK(skipped == 1);
        } else {
            if (!app) /* as the progress thread: not woken, sees it at its slice */
                CHECK_OK(wire_wait_idle(c.wire, 3000000000ll));
            wt_msg_t *m = wt_recv_from(&c, 0, T_MSG); /* as an application thread */
            CHECK(m && m->len == (app ? 3u : 4u) && !memcmp(m->data, app ? "app" : "idle", m->len));
            free(m);
            wt_send(&c, 0, T_MSG, "ok", 2);
        }
        wt_fence(&c);
    }
    wt_fini(&c);
    t_done("lazy_test");
    return 0;
}
