/* The memory sluice_info --memory and SLUICE_STATS report is the memory a
 * job really maps: each rank finds its own segment in /proc/self/maps and
 * compares its length with wire_memory_plan() for the job's size and
 * settings (run with SLUICE_SHM_HEAP=0, so the segment has no heap, whose
 * size depends on /dev/shm's free space).  Also the mailbox geometry, and
 * that the dynamic scheme's mailbox does not grow with the job under the
 * automatic size while the static one does. */
#include "util/status.h"
#include "wtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the mapping of our own segment in this process: created
 * unnamed where /dev/shm allows it (its mapping reads /dev/shm/#<inode>),
 * named /dev/shm/sluice-*-<rank> otherwise (the peers' segments keep their
 * names in our maps, since they were mapped by name). */
static uint64_t own_segment_len(int rank)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    char line[512], want[32];
    snprintf(want, sizeof want, "-%d (deleted)", rank);
    uint64_t len = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (!strstr(line, "/dev/shm/#") && (!strstr(line, "/sluice-") || !strstr(line, want)))
            continue;
        CHECK(sscanf(line, "%lx-%lx", &lo, &hi) == 2);
        len += hi - lo;
    }
    fclose(f);
    return len;
}

int main(void)
{
    wt_ctx_t c;
    CHECK_OK(wt_init(&c));
    wire_mem_t m;
    CHECK_OK(wire_memory_plan(c.size, WIRE_FC_SETTING, &m));
    const wire_layout_t *l = wire_get_layout(c.wire);
    CHECK_EQ(m.dynamic, l->dynamic);
    CHECK_EQ(wire_memory_plan(c.size, 7, &m), SL_ERR_INVALID);
    CHECK_OK(wire_memory_plan(c.size, WIRE_FC_SETTING, &m));
    CHECK_EQ(m.slots, l->slots);
    CHECK_EQ(m.ring, (uint64_t)l->slots * 64);
    CHECK_EQ(m.credit_region + m.static_region + m.dynamic_region, m.ring);
    uint64_t mapped = own_segment_len(c.rank);
    CHECK_MSG(mapped == m.segment, "segment mapped %llu B, plan %llu B",
              (unsigned long long)mapped, (unsigned long long)m.segment);
    if (l->dynamic) CHECK_EQ(m.static_region, m.credit_region);
    /* grow the job on paper: the automatic dynamic mailbox stays flat up to
     * thousands of ranks, the static one grows with the senders */
    if (!getenv("SLUICE_MAILBOX_SLOTS")) {
        wire_mem_t big;
        CHECK_OK(wire_memory_plan(1024, WIRE_FC_SETTING, &big));
        if (l->dynamic) CHECK_EQ(big.ring, 32768 * 64);
        else CHECK(big.ring > 1023 * 256 * 64);
    }
    if (c.rank == 0)
        printf("memory: %d ranks, %s flow control, segment %llu B as planned (mailbox %llu B)\n",
               c.size, l->dynamic ? "dynamic" : "static", (unsigned long long)mapped,
               (unsigned long long)m.ring);
    wt_fence(&c);
    wt_fini(&c);
    t_done("memory_test");
    return 0;
}
