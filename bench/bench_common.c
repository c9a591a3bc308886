#include "bench_common.h"

#include "util/sys.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void bench_die(const char *what, sl_status_t st)
{
    fprintf(stderr, "benchmark: %s: %s\n", what, sl_status_string(st));
    exit(1);
}

static void bench_cb(void *arg, const wire_frag_t *f)
{
    bench_t *b = arg;
    uint64_t n = atomic_load_explicit(&b->msgs, memory_order_relaxed);
    if (f->first && f->len >= 8 && n < 16) memcpy(&b->first8[n], f->data, 8);
    if (f->last) atomic_fetch_add_explicit(&b->msgs, 1, memory_order_relaxed);
}

void bench_init(bench_t *b, int argc, char **argv)
{
    memset(b, 0, sizeof *b);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--quick")) b->quick = true;
    sl_status_t st = boot_init(&b->boot);
    if (st) bench_die("boot_init", st);
    const boot_info_t *bi = boot_get_info(b->boot);
    b->rank = bi->rank;
    b->size = bi->size;
    if (b->size < 2 || b->size % 2) {
        fprintf(stderr, "benchmark: run it on an even number of ranks (pairs)\n");
        exit(2);
    }
    b->peer = b->rank ^ 1;
    b->leader = b->rank % 2 == 0;
    st = wire_init(b->boot, bench_cb, b, &b->wire);
    if (st) bench_die("wire_init", st);
}

void bench_fini(bench_t *b)
{
    sl_status_t st = wire_flush(b->wire, -1);
    if (st) bench_die("wire_flush", st);
    boot_fence(b->boot);
    wire_fini(b->wire);
    boot_fini(b->boot);
}

void bench_wait_msgs(bench_t *b, uint64_t target)
{
    while (atomic_load_explicit(&b->msgs, memory_order_relaxed) < target) {
        if (wire_progress(b->wire) > 0) continue;
        sl_status_t st = wire_wait(b->wire, -1);
        if (st) bench_die("wire_wait", st);
    }
}

void bench_wait_next(bench_t *b)
{
    bench_wait_msgs(b, ++b->consumed);
}

volatile void *bench_pair_page(bench_t *b)
{
    char name[96];
    const boot_info_t *bi = boot_get_info(b->boot);
    snprintf(name, sizeof name, "/sluice-%s-bench%d", bi->jobkey, b->rank & ~1);
    int fd = -1;
    if (b->leader) {
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0 || ftruncate(fd, 4096)) bench_die("shm_open (bench page)", SL_ERR_SYS);
    }
    boot_fence(b->boot);
    if (!b->leader) fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) bench_die("shm_open (bench page)", SL_ERR_SYS);
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) bench_die("mmap (bench page)", SL_ERR_SYS);
    boot_fence(b->boot);
    if (b->leader) shm_unlink(name);
    return p;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double bench_now(void)
{
    return (double)sl_now_ns() * 1e-9;
}
