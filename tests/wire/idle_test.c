/* A rank with nothing to do sleeps instead of polling: rank 1 waits 600 ms
 * for a message rank 0 sends only after computing that long, and must use
 * well under that much CPU time; rank 0 pays a wake-up because rank 1 was
 * asleep, and none in a ping-pong where the peer answers while polling.
 * Over libfabric (SLUICE_WIRE=ofi, test ofi_idle_sleeps) the sender issues
 * no futex wake: the sleeper's waker thread, on the provider's wait fd,
 * wakes it (ofi_wakeups, a few times, not once per millisecond), and its
 * CPU time includes that thread's. */
#include "util/status.h"
#include "util/sys.h"
#include "wtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

enum { T_MSG = 1 };

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

int main(void)
{
    wt_ctx_t c;
    CHECK_OK(wt_init(&c));
    CHECK_EQ(c.size, 2);
    wt_fence(&c);
    wire_stats_t s0, s1;
    wire_get_stats(c.wire, &s0);
    if (c.rank == 0) {
        wt_compute_ms(600); /* keeps this rank's core: the peer must not */
        wt_send(&c, 1, T_MSG, "wake", 4);
        free(wt_recv_from(&c, 1, T_MSG));
        wire_get_stats(c.wire, &s1);
        printf("rank 0: %llu wake-ups issued for the idle peer\n",
               (unsigned long long)(s1.wakeups_tx - s0.wakeups_tx));
        if (!strcmp(wire_peer_transport(c.wire, 1), "shm"))
            CHECK(s1.wakeups_tx - s0.wakeups_tx >= 1);
    } else {
        double cpu0 = cpu_seconds();
        uint64_t t0 = sl_now_ns();
        wt_msg_t *m = wt_recv_from(&c, 0, T_MSG);
        double waited = (double)(sl_now_ns() - t0) * 1e-9, cpu = cpu_seconds() - cpu0;
        free(m);
        wire_get_stats(c.wire, &s1);
        printf("rank 1: waited %.3f s using %.3f s of CPU, slept %llu times\n", waited, cpu,
               (unsigned long long)(s1.sleeps - s0.sleeps));
        CHECK(waited >= 0.5);
        CHECK_MSG(cpu < 0.15 * waited, "idle wait burned %.3f s CPU in %.3f s", cpu, waited);
        CHECK(s1.sleeps > s0.sleeps);
        if (!strcmp(wire_peer_transport(c.wire, 0), "ofi")) {
            printf("rank 1: woken %llu times by the libfabric wait object\n",
                   (unsigned long long)(s1.ofi_wakeups - s0.ofi_wakeups));
            CHECK(s1.ofi_wakeups > s0.ofi_wakeups);
            /* the message, and not one per refusal of fi_trywait: those
             * were 115-145 in this wait before the waker drove the provider
             * itself (docs/WIRE.md, "Idle wake-ups") */
            CHECK_MSG(s1.ofi_wakeups - s0.ofi_wakeups <= 20, "woken %llu times while idle",
                      (unsigned long long)(s1.ofi_wakeups - s0.ofi_wakeups));
        }
        wt_send(&c, 0, T_MSG, "ack", 3);
    }
    wt_fence(&c);
    wt_fini(&c);
    t_done("idle_test");
    return 0;
}
