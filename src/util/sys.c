#include "util/sys.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

uint64_t sl_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

sl_status_t sl_futex_wait(_Atomic uint32_t *word, uint32_t expected, int64_t timeout_ns)
{
    struct timespec ts, *tsp = NULL;
    if (timeout_ns >= 0) {
        ts.tv_sec = (time_t)(timeout_ns / 1000000000);
        ts.tv_nsec = (long)(timeout_ns % 1000000000);
        tsp = &ts;
    }
    long rc = syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, expected, tsp, NULL, 0);
    if (rc == -1 && errno == ETIMEDOUT) return SL_ERR_TIMEOUT;
    return SL_OK; /* woken, value changed (EAGAIN) or interrupted (EINTR) */
}

int sl_futex_wake_all(_Atomic uint32_t *word)
{
    long rc = syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    return rc < 0 ? 0 : (int)rc;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

void sl_mem_populate(void *addr, size_t len)
{
    uintptr_t page = 4096, start = (uintptr_t)addr & ~(page - 1);
    (void)madvise((void *)start, (uintptr_t)addr + len - start, MADV_POPULATE_WRITE);
}

void sl_mem_zero_lazy(void *addr, size_t len)
{
    uintptr_t page = 4096, a = (uintptr_t)addr, end = a + len;
    uintptr_t lo = (a + page - 1) & ~(page - 1), hi = end & ~(page - 1);
    if (hi <= lo || madvise((void *)lo, hi - lo, MADV_REMOVE) != 0) {
        memset(addr, 0, len);
        return;
    }
    memset(addr, 0, lo - a);
    memset((void *)hi, 0, end - hi);
}

sl_status_t sl_random_bytes(void *buf, size_t len)
{
    unsigned char *p = buf;
    while (len > 0) {
        ssize_t n = getrandom(p, len, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            return SL_ERR_SYS;
        }
        p += n;
        len -= (size_t)n;
    }
    return SL_OK;
}
