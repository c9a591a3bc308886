/* Packet latency of the wire by size, next to its floor measured in the
 * same run: the cross-core round trip of one cache line between the same
 * two processes.  Ranks are paired (0,1), (2,3)...; all pairs run at once
 * and every pair leader prints its table.
 * usage: sluicerun -n 2 wire_pingpong [--quick] */
#include "bench_common.h"
#include "util/sys.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRIALS 7

/* Round trip of one cache line: the leader writes an odd value, the peer
 * answers with the next even one.  Spinning yields now and then so that an
 * oversubscribed pair still makes progress. */
static double line_rtt(bench_t *b, volatile uint64_t *line, int iters)
{
    double t0 = bench_now();
    for (uint64_t i = 0; i < (uint64_t)iters; i++) {
        uint64_t mine = 2 * i + (b->leader ? 1 : 2), want = b->leader ? mine + 1 : mine - 1;
        if (b->leader) __atomic_store_n(line, mine, __ATOMIC_RELEASE);
        for (unsigned spin = 0; __atomic_load_n(line, __ATOMIC_ACQUIRE) != want; spin++) {
            sl_cpu_relax();
            if ((spin & 0xfff) == 0xfff) sched_yield();
        }
        if (!b->leader) __atomic_store_n(line, mine, __ATOMIC_RELEASE);
    }
    return (bench_now() - t0) / iters;
}

static double packet_rtt(bench_t *b, char *buf, size_t len, int iters)
{
    double t0 = bench_now();
    for (int i = 0; i < iters; i++) {
        if (b->leader) {
            sl_status_t st = wire_send_buf(b->wire, b->peer, 1, buf, len);
            if (st) bench_die("wire_send", st);
            bench_wait_next(b);
        } else {
            bench_wait_next(b);
            sl_status_t st = wire_send_buf(b->wire, b->peer, 1, buf, len);
            if (st) bench_die("wire_send", st);
        }
    }
    double t = (bench_now() - t0) / iters;
    /* A reply larger than the credit quota may still be partly parked: send
     * it before leaving the wire alone (the line floor does not progress). */
    sl_status_t st = wire_flush(b->wire, -1);
    if (st) bench_die("wire_flush", st);
    return t;
}

int main(int argc, char **argv)
{
    bench_t b;
    bench_init(&b, argc, argv);
    const wire_layout_t *l = wire_get_layout(b.wire);
    volatile uint64_t *line = bench_pair_page(&b);
    int line_iters = b.quick ? 1000 : 20000;
    line_rtt(&b, line, line_iters);

    size_t sizes[] = {0, 8, 52, 116, 244, 1012, 4084, 16384, 65536};
    char *buf = calloc(1, 65536);
    if (b.leader) {
        printf("# wire packet ping-pong, %d ranks (%d pairs at once), mailbox %u slots, "
               "quota %u, packet <= %zu B\n",
               b.size, b.size / 2, l->slots, l->quota, l->pkt_payload);
        printf("# floor: round trip of one cache line between the same two processes, "
               "measured in trials alternating with the packet trials of each row; "
               "medians of %d\n", TRIALS);
        printf("%10s %7s %12s %12s %14s %16s\n", "bytes", "packets", "one-way us",
               "half-line us", "vs half-line", "MB/s (one-way)");
    }
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t len = sizes[s];
        int iters = b.quick ? 50 : (len <= 4096 ? 20000 : 3000);
        double v[TRIALS], f[TRIALS];
        packet_rtt(&b, buf, len, iters / 10);
        for (int t = 0; t < TRIALS; t++) {
            f[t] = line_rtt(&b, line, line_iters);
            v[t] = packet_rtt(&b, buf, len, iters);
        }
        double rtt = bench_median(v, TRIALS), floor_rtt = bench_median(f, TRIALS);
        if (b.leader) {
            size_t pkts = len == 0 ? 1 : (len + l->pkt_payload - 1) / l->pkt_payload;
            printf("%10zu %7zu %12.3f %12.3f %13.2fx %16.1f\n", len, pkts, rtt * 0.5e6,
                   floor_rtt * 0.5e6, rtt / floor_rtt, (double)len / (rtt * 0.5) / 1e6);
        }
    }
    if (b.leader) fflush(stdout);
    free(buf);
    bench_fini(&b);
    return 0;
}
