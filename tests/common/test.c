#include "test.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_long t_passes;

int t_env_rank(void)
{
    /* PMI-1 launchers set PMI_RANK; PMIx ones (mpirun, srun --mpi=pmix) PMIX_RANK */
    const char *r = getenv("PMI_RANK");
    if (!r) r = getenv("PMIX_RANK");
    return r ? atoi(r) : -1;
}

void t_fail(const char *file, int line, const char *expr, const char *fmt, ...)
{
    char msg[512] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
    }
    fprintf(stderr, "FAIL [rank %d] %s:%d: %s%s%s\n", t_env_rank(), file, line, expr,
            fmt ? ": " : "", msg);
    fflush(stderr);
    exit(1);
}

void t_pass_count_inc(void)
{
    atomic_fetch_add_explicit(&t_passes, 1, memory_order_relaxed);
}

void t_done(const char *name)
{
    if (t_env_rank() <= 0) printf("%s: %ld checks passed\n", name, atomic_load(&t_passes));
    fflush(stdout);
}

/* splitmix64-driven byte stream: cheap, and a shifted or swapped buffer never
 * verifies by accident. */
static uint64_t t_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void t_fill(void *buf, size_t len, uint64_t seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < len; i += 8) {
        uint64_t v = t_mix(seed * 0x100000001b3ull + i / 8);
        size_t n = len - i < 8 ? len - i : 8;
        memcpy(p + i, &v, n);
    }
}

size_t t_verify(const void *buf, size_t len, uint64_t seed)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < len; i += 8) {
        uint64_t v = t_mix(seed * 0x100000001b3ull + i / 8);
        size_t n = len - i < 8 ? len - i : 8;
        if (memcmp(p + i, &v, n) != 0) {
            const unsigned char *e = (const unsigned char *)&v;
            for (size_t j = 0; j < n; j++)
                if (p[i + j] != e[j]) return i + j;
        }
    }
    return (size_t)-1;
}

uint8_t t_byte(uint64_t seed, size_t j)
{
    uint64_t v = t_mix(seed * 0x100000001b3ull + j / 8);
    return (uint8_t)(v >> (8 * (j % 8)));
}

size_t t_verify_at(const void *buf, size_t len, uint64_t seed, size_t start)
{
    const unsigned char *p = buf;
    size_t i = 0;
    /* byte-wise up to a block boundary, then whole 8-byte blocks */
    for (; i < len && (start + i) % 8; i++)
        if (p[i] != t_byte(seed, start + i)) return i;
    for (; i + 8 <= len; i += 8) {
        uint64_t v = t_mix(seed * 0x100000001b3ull + (start + i) / 8);
        if (memcmp(p + i, &v, 8) != 0)
            for (size_t j = 0; j < 8; j++)
                if (p[i + j] != t_byte(seed, start + i + j)) return i + j;
    }
    for (; i < len; i++)
        if (p[i] != t_byte(seed, start + i)) return i;
    return (size_t)-1;
}
