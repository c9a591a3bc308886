/* sl_mem_accessible: the kernel's answer on ordinary, untouched, read-only,
 * PROT_NONE, unmapped and wrapping ranges (util/sys.c).  The madvise answers
 * here (Linux 5.14+); the per-page probe, its fallback on older kernels, is
 * asked the same questions. */
#include "test.h"
#include "util/sys.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGES 8

static void check_all(bool (*ok)(const void *, size_t, bool))
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = PAGES * pg;
    unsigned char *rw = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(rw != MAP_FAILED);
    memset(rw, 0x5a, n);
    CHECK(ok(rw, n, true));
    CHECK(ok(rw + 1, n - 2, false)); /* unaligned ends */
    CHECK(ok(rw + 3, 1, true));
    CHECK(ok(NULL, 0, true)); /* nothing to touch */
    for (size_t i = 0; i < n; i++) CHECK_EQ(rw[i], 0x5a); /* the check wrote nothing */

    /* untouched memory is accessible (the check maps it) and reads zero */
    unsigned char *fresh = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(fresh != MAP_FAILED);
    CHECK(ok(fresh, n, true));
    CHECK_EQ(fresh[0], 0);
    CHECK_EQ(fresh[n - 1], 0);

    /* read-only: readable, not writable; one read-only page in the middle
     * of a writable range makes the whole range unwritable */
    CHECK_EQ(mprotect(rw + 3 * pg, pg, PROT_READ), 0);
    CHECK(ok(rw, n, false));
    CHECK(!ok(rw, n, true));
    CHECK(!ok(rw + 3 * pg + 100, 10, true));
    CHECK(ok(rw, 3 * pg, true)); /* up to it */
    CHECK(ok(rw + 4 * pg, 4 * pg, true)); /* after it */

    /* no access at all */
    CHECK_EQ(mprotect(rw + 5 * pg, pg, PROT_NONE), 0);
    CHECK(!ok(rw + 5 * pg, 1, false));
    CHECK(!ok(rw + 4 * pg, 2 * pg, false));

    /* unmapped: the last page of the range, and all of it */
    CHECK_EQ(munmap(rw + 7 * pg, pg), 0);
    CHECK(!ok(rw + 6 * pg, 2 * pg, false));
    CHECK(!ok(rw + 7 * pg, pg, true));
    CHECK(ok(rw + 6 * pg, pg, true));

    /* ranges that wrap around the address space */
    CHECK(!ok((void *)(UINTPTR_MAX - 10), 100, false));
    CHECK(!ok(rw, SIZE_MAX, false));

    /* string literals and code are readable, not writable */
    static const char lit[] = "read-only data";
    CHECK(ok(lit, sizeof lit, false));
    CHECK(!ok(lit, sizeof lit, true));
    munmap(rw, 7 * pg);
    munmap(fresh, n);
}

int main(void)
{
    check_all(sl_mem_accessible);
    check_all(sl_mem_accessible_probe);
    t_done("mem_accessible_test");
    return 0;
}
