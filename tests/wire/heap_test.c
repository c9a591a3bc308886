/* The shared heap's allocator: alignment, exhaustion, coalescing, and
 * SL_ERR_INVALID for pointers that are not live blocks.  Run with
 * SLUICE_SHM_HEAP=1 MiB. */
#include "util/status.h"
#include "wtest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    wt_ctx_t c;
    CHECK_OK(wt_init(&c));
    size_t size = wire_heap_size(c.wire);
    CHECK_EQ(size, 1u << 20);
    void *a = wire_heap_alloc(c.wire, 1);
    void *b = wire_heap_alloc(c.wire, 100);
    void *d = wire_heap_alloc(c.wire, 4096);
    CHECK(a && b && d);
    CHECK((uintptr_t)a % 64 == 0 && (uintptr_t)b % 64 == 0 && (uintptr_t)d % 64 == 0);
    CHECK((char *)b >= (char *)a + 64 && (char *)d >= (char *)b + 128);
    memset(d, 0x77, 4096);
    CHECK(wire_heap_alloc(c.wire, size) == NULL); /* does not fit any more */
    CHECK(wire_heap_alloc(c.wire, 0) == NULL);
    CHECK_EQ(wire_heap_free(c.wire, (char *)b + 64), SL_ERR_INVALID); /* inside a block */
    CHECK_EQ(wire_heap_free(c.wire, NULL), SL_ERR_INVALID);
    int local;
    CHECK_EQ(wire_heap_free(c.wire, &local), SL_ERR_INVALID);
    CHECK_OK(wire_heap_free(c.wire, b));
    CHECK_EQ(wire_heap_free(c.wire, b), SL_ERR_INVALID); /* twice */
    CHECK_OK(wire_heap_free(c.wire, a));
    CHECK_OK(wire_heap_free(c.wire, d));
    /* everything coalesced again: the whole heap is one block */
    void *all = wire_heap_alloc(c.wire, size);
    CHECK(all == a);
    CHECK_OK(wire_heap_free(c.wire, all));
    /* many blocks, freed out of order, coalesce back to one */
    void *blk[64];
    for (int i = 0; i < 64; i++) CHECK((blk[i] = wire_heap_alloc(c.wire, 1000 + (size_t)i)));
    for (int i = 0; i < 64; i += 2) CHECK_OK(wire_heap_free(c.wire, blk[i]));
    for (int i = 63; i > 0; i -= 2) CHECK_OK(wire_heap_free(c.wire, blk[i]));
    all = wire_heap_alloc(c.wire, size);
    CHECK(all != NULL);
    CHECK_OK(wire_heap_free(c.wire, all));
    wt_fence(&c);
    wt_fini(&c);
    t_done("heap_test");
    return 0;
}
