/* The libfabric transport's registration cache against memory that is
 * unmapped and mapped again at the same address (2 ranks, the peer reached
 * by libfabric with SLUICE_OFI_RMA=on; rank 1 is the target that registers).
 *  1. Rank 0 reads 4 pages of a fresh mapping (registered, then cached).
 *  2. Rank 1 unmaps them and maps new pages at the same address with other
 *     bytes: rank 0's read returns the new bytes, a put lands in the new
 *     pages (rank 1 checks), never in or from the old ones.
 *  3. Mapped again as 1 read-only page: a read of 4 pages and a write of 1
 *     are refused (SL_ERR_SYS) although the cache holds registrations for
 *     both accesses over those 4 pages; a read of the 1 page returns it.
 *  4. Six separate mappings read once each: at most SLUICE_OFI_MR_CACHE
 *     unused registrations stay (the least recently used are closed).
 * With the default bound, step 2 reuses the registration of step 1 (a hit);
 * with SLUICE_OFI_MR_CACHE=0 nothing is reused (one registration per copy,
 * the policy for providers that pin pages).  docs/WIRE.md, "Registration
 * cache". */
#include "util/status.h"
#include "wtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { T_ADDR = 1, T_STEP = 2, T_FIN = 3 };
#define PAGES 4
#define SPREAD 6

static long g_page;

static sl_status_t bulk_now(wt_ctx_t *c, bool get, uint64_t raddr, void *laddr, size_t len)
{
    wire_bulk_t op;
    sl_status_t st = get ? wire_get(c->wire, 1, raddr, laddr, len, &op)
                         : wire_put(c->wire, 1, raddr, laddr, len, &op);
    return st == SL_INPROGRESS ? wire_bulk_wait(c->wire, &op) : st;
}

static bool all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v) return false;
    return true;
}

/* pages of anonymous memory filled with v, at want (exactly) or anywhere */
static unsigned char *map_at(void *want, size_t pages, unsigned char v, int prot)
{
    size_t n = pages * (size_t)g_page;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | (want ? MAP_FIXED_NOREPLACE : 0);
    unsigned char *p = mmap(want, n, PROT_READ | PROT_WRITE, flags, -1, 0);
    CHECK_MSG(p != MAP_FAILED && (!want || p == want), "mmap at %p gave %p", want, (void *)p);
    memset(p, v, n);
    CHECK_EQ(mprotect(p, n, prot), 0);
    return p;
}

static void step(wt_ctx_t *c, int to)
{
    wt_send(c, to, T_STEP, NULL, 0);
}

static void await(wt_ctx_t *c, int from)
{
    free(wt_recv_from(c, from, T_STEP));
}

static void target(wt_ctx_t *c)
{
    size_t n = PAGES * (size_t)g_page;
    unsigned char *a = map_at(NULL, PAGES, 0x11, PROT_READ | PROT_WRITE);
    uint64_t addr[1 + SPREAD] = {(uint64_t)(uintptr_t)a};
    unsigned char *spread[SPREAD];
    for (int i = 0; i < SPREAD; i++) {
        spread[i] = map_at(NULL, 1, (unsigned char)(0x60 + i), PROT_READ);
        addr[1 + i] = (uint64_t)(uintptr_t)spread[i];
    }
    wt_send(c, 0, T_ADDR, addr, sizeof addr);
    await(c, 0); /* 1 done */
    CHECK_EQ(munmap(a, n), 0);
    map_at(a, PAGES, 0x22, PROT_READ | PROT_WRITE);
    step(c, 0);
    await(c, 0); /* 2 done: the put went into the new pages */
    CHECK_MSG(all_bytes(a, n, 0x33), "the put did not land in the pages mapped now");
    CHECK_EQ(munmap(a, n), 0);
    map_at(a, 1, 0x44, PROT_READ);
    step(c, 0);
    free(wt_recv_from(c, 0, T_FIN)); /* 3 and 4 done (served meanwhile) */
    CHECK(all_bytes(a, (size_t)g_page, 0x44)); /* the refused put wrote nothing */
    wire_stats_t s;
    wire_get_stats(c->wire, &s);
    const char *cache = getenv("SLUICE_OFI_MR_CACHE");
    long bound = cache ? atol(cache) : 256;
    /* copies served: 1 + 2 (read, put) + 1 (the 1-page read) + SPREAD */
    CHECK_EQ(s.ofi_mr_regs + s.ofi_mr_hits, 4 + SPREAD);
    if (bound == 0) CHECK_EQ(s.ofi_mr_hits, 0);
    else CHECK(s.ofi_mr_hits >= 1); /* step 2's read reused step 1's registration */
    CHECK((long)(s.ofi_mr_regs - s.ofi_mr_drops) <= bound); /* none in use now */
    if (bound >= 4 + SPREAD) CHECK_EQ(s.ofi_mr_drops, 0);
    printf("target: %llu registrations, %llu reused, %llu closed (bound %ld)\n",
           (unsigned long long)s.ofi_mr_regs, (unsigned long long)s.ofi_mr_hits,
           (unsigned long long)s.ofi_mr_drops, bound);
    munmap(a, (size_t)g_page);
    for (int i = 0; i < SPREAD; i++) munmap(spread[i], (size_t)g_page);
}

static void requester(wt_ctx_t *c)
{
    size_t n = PAGES * (size_t)g_page;
    unsigned char *buf = malloc(n);
    CHECK(buf);
    wt_msg_t *m = wt_recv_from(c, 1, T_ADDR);
    uint64_t addr[1 + SPREAD];
    memcpy(addr, m->data, sizeof addr);
    free(m);
    CHECK_OK(bulk_now(c, true, addr[0], buf, n));
    CHECK_MSG(all_bytes(buf, n, 0x11), "step 1: wrong bytes");
    step(c, 1);
    await(c, 1); /* mapped again */
    memset(buf, 0, n);
    CHECK_OK(bulk_now(c, true, addr[0], buf, n));
    CHECK_MSG(all_bytes(buf, n, 0x22), "step 2: read the unmapped pages' bytes, not the new ones");
    memset(buf, 0x33, n);
    CHECK_OK(bulk_now(c, false, addr[0], buf, n));
    step(c, 1);
    await(c, 1); /* 1 read-only page now */
    CHECK_EQ(bulk_now(c, true, addr[0], buf, n), SL_ERR_SYS);
    memset(buf, 0x55, n);
    CHECK_EQ(bulk_now(c, false, addr[0], buf, (size_t)g_page), SL_ERR_SYS);
    CHECK_OK(bulk_now(c, true, addr[0], buf, (size_t)g_page));
    CHECK_MSG(all_bytes(buf, (size_t)g_page, 0x44), "step 3: wrong bytes");
    for (int i = 0; i < SPREAD; i++) {
        CHECK_OK(bulk_now(c, true, addr[1 + i], buf, (size_t)g_page));
        CHECK(all_bytes(buf, (size_t)g_page, (unsigned char)(0x60 + i)));
    }
    wt_send(c, 1, T_FIN, NULL, 0);
    free(buf);
}

int main(void)
{
    g_page = sysconf(_SC_PAGESIZE);
    wt_ctx_t c;
    CHECK_OK(wt_init(&c));
    CHECK_EQ(c.size, 2);
    CHECK_MSG(!strcmp(wire_peer_transport(c.wire, 1 - c.rank), "ofi"),
              "run with the peer on libfabric (--hosts or SLUICE_WIRE=ofi)");
    if (c.rank == 0) requester(&c);
    else target(&c);
    wt_fence(&c);
    wt_fini(&c);
    t_done("ofi_mr_stale_test");
    return 0;
}
