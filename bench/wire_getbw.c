/* Bandwidth of the wire's one-sided get, next to its floors measured in the
 * same run: single-thread memcpy between two local buffers of the same size,
 * and one raw process_vm_readv of the peer's buffer (the cross-memory-attach
 * system call the wire uses, without anything around it).  The get column
 * reads the peer's ordinary (malloc) memory: cross-memory attach, or the
 * staged path with SLUICE_CMA=0; the heap column reads the peer's shared
 * heap (wire_heap_alloc), which the wire copies with memcpy.
 * usage: sluicerun -n 2 wire_getbw [--quick] */
#include "bench_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define TRIALS 5
#define MAXLEN (64u << 20)

typedef struct peer_buf {
    uint64_t addr, heap;
    int64_t pid;
} peer_buf_t;

static double time_memcpy(char *dst, const char *src, size_t len, int reps)
{
    double t0 = bench_now();
    for (int i = 0; i < reps; i++) {
        memcpy(dst, src, len);
        __asm__ __volatile__("" ::"r"(dst) : "memory");
    }
    return (bench_now() - t0) / reps;
}

static double time_cma(pid_t pid, char *dst, uint64_t raddr, size_t len, int reps)
{
    double t0 = bench_now();
    for (int i = 0; i < reps; i++) {
        struct iovec l = {dst, len}, r = {(void *)(uintptr_t)raddr, len};
        if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)len) return -1;
    }
    return (bench_now() - t0) / reps;
}

static double time_get(bench_t *b, char *dst, uint64_t raddr, size_t len, int reps)
{
    double t0 = bench_now();
    for (int i = 0; i < reps; i++) {
        wire_bulk_t op;
        sl_status_t st = wire_get(b->wire, b->peer, raddr, dst, len, &op);
        if (st != SL_OK && st != SL_INPROGRESS) bench_die("wire_get", st);
        if ((st = wire_bulk_wait(b->wire, &op)) != SL_OK) bench_die("wire_bulk_wait", st);
    }
    return (bench_now() - t0) / reps;
}

typedef double (*timer_fn)(void *ctx, size_t len, int reps);

int main(int argc, char **argv)
{
    bench_t b;
    bench_init(&b, argc, argv);
    char *src = malloc(MAXLEN), *dst = malloc(MAXLEN);
    if (!src || !dst) bench_die("malloc", SL_ERR_NOMEM);
    memset(src, 0x5a, MAXLEN);
    char *hsrc = wire_heap_alloc(b.wire, MAXLEN);
    if (hsrc) memset(hsrc, 0x3c, MAXLEN);
    memset(dst, 0xa5, MAXLEN);
    /* three messages: our buffer's address, our pid, our heap buffer's
     * address (the callback keeps the first 8 bytes of each by arrival) */
    peer_buf_t mine = {(uint64_t)(uintptr_t)src, (uint64_t)(uintptr_t)hsrc, (int64_t)getpid()};
    peer_buf_t theirs;
    wire_send_buf(b.wire, b.peer, 1, &mine.addr, sizeof mine.addr);
    wire_send_buf(b.wire, b.peer, 1, &mine.pid, sizeof mine.pid);
    wire_send_buf(b.wire, b.peer, 1, &mine.heap, sizeof mine.heap);
    bench_wait_msgs(&b, 3);
    theirs.addr = b.first8[0];
    theirs.pid = (int64_t)b.first8[1];
    theirs.heap = b.first8[2];

    bool cma = wire_peer_uses_cma(b.wire, b.peer);
    if (b.leader) {
        printf("# wire get bandwidth, %d ranks (%d pairs at once); wire path: %s\n", b.size,
               b.size / 2, cma ? "cross-memory attach" : "staged copy through shared memory");
        printf("%10s %12s %12s %10s %10s %10s %10s %11s\n", "bytes", "memcpy GB/s",
               "raw CMA GB/s", "get GB/s", "get/memcpy", "get/CMA", "heap GB/s", "heap/memcpy");
        double v[TRIALS];
        for (size_t len = 4096; len <= MAXLEN; len *= 4) {
            int reps = (int)((b.quick ? (8u << 20) : (512u << 20)) / len);
            if (reps < 3) reps = 3;
            double t_mem, t_cma = -1, t_get, t_heap = -1;
            time_memcpy(dst, src, len, 2);
            for (int t = 0; t < TRIALS; t++) v[t] = time_memcpy(dst, src, len, reps);
            t_mem = bench_median(v, TRIALS);
            if (time_cma((pid_t)theirs.pid, dst, theirs.addr, len, 1) > 0) {
                for (int t = 0; t < TRIALS; t++)
                    v[t] = time_cma((pid_t)theirs.pid, dst, theirs.addr, len, reps);
                t_cma = bench_median(v, TRIALS);
            }
            time_get(&b, dst, theirs.addr, len, 2);
            for (int t = 0; t < TRIALS; t++) v[t] = time_get(&b, dst, theirs.addr, len, reps);
            t_get = bench_median(v, TRIALS);
            if (theirs.heap) {
                time_get(&b, dst, theirs.heap, len, 2);
                for (int t = 0; t < TRIALS; t++) v[t] = time_get(&b, dst, theirs.heap, len, reps);
                t_heap = bench_median(v, TRIALS);
            }
            double g_mem = (double)len / t_mem / 1e9, g_get = (double)len / t_get / 1e9;
            double g_cma = t_cma > 0 ? (double)len / t_cma / 1e9 : 0;
            printf("%10zu %12.2f ", len, g_mem);
            if (t_cma > 0) printf("%12.2f ", g_cma);
            else printf("%12s ", "refused");
            printf("%10.2f %9.0f%% ", g_get, 100 * g_get / g_mem);
            if (t_cma > 0) printf("%9.0f%% ", 100 * g_get / g_cma);
            else printf("%10s ", "-");
            if (t_heap > 0) {
                double g_heap = (double)len / t_heap / 1e9;
                printf("%10.2f %10.0f%%\n", g_heap, 100 * g_heap / g_mem);
            } else {
                printf("%10s %11s\n", "no heap", "-");
            }
        }
        fflush(stdout);
        wire_send_buf(b.wire, b.peer, 2, NULL, 0);
    } else {
        bench_wait_msgs(&b, 4); /* serve (staged path) until the leader is done */
    }
    free(src);
    free(dst);
    if (hsrc) wire_heap_free(b.wire, hsrc);
    bench_fini(&b);
    return 0;
}
