/* Fuzz target (f): the collective schedule builder (src/coll/sched.c).
 * Random sequences of builder calls with random arguments (vertex ids may
 * be out of range, peers outside the communicator), then commit, a check of
 * the successor lists, and the Graphviz dump. */
#include "coll/coll.h"
#include "fuzz_common.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int vid(fz_in_t *in, const coll_sched_t *s)
{
    /* mostly existing vertices, sometimes past the end or negative */
    uint8_t b = fz_u8(in);
    if (b == 0xff) return -1;
    return (int)(b % (s->nv + 3));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in_t in = {data, size};
    int csize = 1 + fz_u8(&in) % 16, rank = fz_u8(&in) % csize;
    static int world_of[16];
    for (int i = 0; i < 16; i++) world_of[i] = (i * 7 + 3) % 16;
    coll_sched_t *s = coll_sched_new(rank, csize, (fz_u8(&in) & 1) ? world_of : NULL);
    if (!s) return 0;
    s->kind = fz_u8(&in) % COLL_NKIND;
    int steps = 0;
    while (in.n && steps++ < 400) {
        coll_ref_t a = COLL_REF(fz_u8(&in) % 4, fz_u32(&in)), b = COLL_REF(fz_u8(&in) % 4, fz_u32(&in));
        switch (fz_u8(&in) % 9) {
        case 0: cs_send(s, a, fz_u32(&in), (int)(int8_t)fz_u8(&in), fz_u32(&in)); break;
        case 1: cs_recv(s, a, fz_u32(&in), (int)(int8_t)fz_u8(&in), fz_u32(&in)); break;
        case 2: cs_copy(s, a, b, fz_u32(&in)); break;
        case 3: cs_reduce(s, a, b, fz_u32(&in)); break;
        case 4: cs_nop(s); break;
        case 5: { int x = vid(&in, s), y = vid(&in, s); cs_dep(s, x, y); } break;
        case 6: cs_join(s); break;
        case 7: { int g = vid(&in, s); cs_gate(s, g, fz_u8(&in)); } break;
        case 8: cs_tmp(s, fz_u64(&in)); break;
        }
    }
    if (coll_sched_commit(s) == SL_OK) {
        /* every successor is a vertex; in-degrees add up */
        uint32_t edges = 0, deps = 0;
        for (uint32_t i = 0; i < s->nv; i++) {
            deps += s->v[i].ndeps;
            for (uint32_t j = 0; j < s->v[i].nsucc; j++) {
                if (s->succ[s->v[i].succ0 + j] >= s->nv) abort();
                edges++;
            }
            if ((s->v[i].kind == CV_SEND || s->v[i].kind == CV_RECV) &&
                (s->v[i].peer < 0 || s->v[i].peer >= 16))
                abort();
        }
        if (edges != deps) abort();
        (void)coll_sched_dot(s, "/dev/null");
    }
    coll_sched_release(s);
    return 0;
}
