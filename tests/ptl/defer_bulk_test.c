/* PtlSluiceDeferBulk and PtlSluiceHostActive (Sluice extensions): while
 * the target's thread defers bulk transfers, what arrives before them is
 * still delivered to it, and the deferred ones, served later by whichever
 * thread gets to them, keep their place: every message is delivered once,
 * with its data, in the order it was sent.
 * Rank 0 sends, in this order: A, a small put; G, a bulk get; B, a bulk
 * put; C, a small put.  Rank 1 defers until it has seen A (which comes
 * before anything deferred, so its own calls must deliver it), then stops
 * deferring and expects G, B and C, in that order. */
#include "ptest.h"

#include <stdlib.h>
#include <string.h>

#define BULK (256 * 1024)
#define SMALL 8

enum { MB_A = 1, MB_G, MB_B, MB_C };

static ptl_handle_me_t append(pt_ctx_t *c, ptl_pt_index_t pti, void *buf, size_t len,
                              ptl_match_bits_t mb, unsigned opt, ptl_handle_eq_t eq)
{
    ptl_me_t me = {.start = buf, .length = len, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                   .options = opt, .match_id = {.rank = PTL_RANK_ANY},
                   .match_bits = mb};
    ptl_handle_me_t h;
    PT_OK(PtlMEAppend(c->ni, pti, &me, PTL_PRIORITY_LIST, (void *)(uintptr_t)mb, &h));
    pt_expect(eq, PTL_EVENT_LINK);
    return h;
}

static void target(pt_ctx_t *c, ptl_pt_index_t pti, ptl_handle_eq_t eq)
{
    char *a = calloc(1, SMALL), *g = malloc(BULK), *b = calloc(1, BULK), *cc = calloc(1, SMALL);
    CHECK(a && g && b && cc);
    t_fill(g, BULK, 7);
    ptl_handle_me_t me[4] = {append(c, pti, a, SMALL, MB_A, PTL_ME_OP_PUT, eq),
                             append(c, pti, g, BULK, MB_G, PTL_ME_OP_GET, eq),
                             append(c, pti, b, BULK, MB_B, PTL_ME_OP_PUT, eq),
                             append(c, pti, cc, SMALL, MB_C, PTL_ME_OP_PUT, eq)};
    pt_barrier(c);

    /* defer until A: it was sent first, so nothing deferred is ahead of it */
    ptl_event_t ev[4];
    int n = 0;
    PT_OK(PtlSluiceDeferBulk(1));
    for (double end = pt_now_s() + 30; n == 0 || ev[n - 1].match_bits != MB_A;) {
        CHECK_MSG(pt_now_s() < end, "A not delivered to a deferring thread within 30 s");
        PT_OK(PtlSluiceHostActive());
        int rc = PtlEQGet(eq, &ev[n]);
        if (rc == PTL_EQ_EMPTY) continue;
        CHECK_EQ(rc, PTL_OK);
        CHECK(n < 4);
        n++;
    }
    PT_OK(PtlSluiceDeferBulk(0));
    while (n < 4) {
        ptl_event_t e;
        int rc = PtlEQGet(eq, &e);
        if (rc == PTL_EQ_EMPTY) continue;
        CHECK_EQ(rc, PTL_OK);
        ev[n++] = e;
    }
    /* once each, in the order sent, with their data */
    static const ptl_event_kind_t kind[4] = {PTL_EVENT_PUT, PTL_EVENT_GET, PTL_EVENT_PUT,
                                             PTL_EVENT_PUT};
    static const size_t len[4] = {SMALL, BULK, BULK, SMALL};
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(ev[i].match_bits, (ptl_match_bits_t)(MB_A + i));
        CHECK_EQ(ev[i].type, kind[i]);
        CHECK_EQ(ev[i].ni_fail_type, PTL_NI_OK);
        CHECK_EQ(ev[i].mlength, len[i]);
    }
    CHECK(t_verify(a, SMALL, 1) == (size_t)-1);
    size_t bad = t_verify(b, BULK, 3);
    CHECK_MSG(bad == (size_t)-1, "bulk put: byte %zu wrong", bad);
    CHECK(t_verify(cc, SMALL, 4) == (size_t)-1);
    ptl_event_t extra;
    CHECK_EQ(PtlEQGet(eq, &extra), PTL_EQ_EMPTY);
    for (int i = 0; i < 4; i++) PT_OK(PtlMEUnlink(me[i]));
    pt_barrier(c);
    free(a), free(g), free(b), free(cc);
}

static void initiator(pt_ctx_t *c, ptl_pt_index_t pti, ptl_handle_eq_t eq)
{
    char *a = malloc(SMALL), *g = calloc(1, BULK), *b = malloc(BULK), *cc = malloc(SMALL);
    CHECK(a && g && b && cc);
    t_fill(a, SMALL, 1);
    t_fill(b, BULK, 3);
    t_fill(cc, SMALL, 4);
    ptl_md_t md = {.start = NULL, .length = PTL_SIZE_MAX, .eq_handle = eq,
                   .ct_handle = PTL_CT_NONE};
    ptl_handle_md_t mdh;
    PT_OK(PtlMDBind(c->ni, &md, &mdh));
    (void)pti;
    pt_barrier(c);
    ptl_process_t t = pt_id(c, 1);
    PT_OK(PtlPut(mdh, (ptl_size_t)(uintptr_t)a, SMALL, PTL_ACK_REQ, t, 0, MB_A, 0, NULL, 0));
    PT_OK(PtlGet(mdh, (ptl_size_t)(uintptr_t)g, BULK, t, 0, MB_G, 0, NULL));
    PT_OK(PtlPut(mdh, (ptl_size_t)(uintptr_t)b, BULK, PTL_ACK_REQ, t, 0, MB_B, 0, NULL, 0));
    PT_OK(PtlPut(mdh, (ptl_size_t)(uintptr_t)cc, SMALL, PTL_ACK_REQ, t, 0, MB_C, 0, NULL, 0));
    /* three SENDs, three ACKs and the REPLY, all without failure */
    int acks = 0, replies = 0;
    for (int i = 0; i < 7; i++) {
        ptl_event_t e;
        PT_OK(PtlEQWait(eq, &e));
        CHECK_EQ(e.ni_fail_type, PTL_NI_OK);
        acks += e.type == PTL_EVENT_ACK;
        replies += e.type == PTL_EVENT_REPLY;
    }
    CHECK_EQ(acks, 3);
    CHECK_EQ(replies, 1);
    size_t bad = t_verify(g, BULK, 7);
    CHECK_MSG(bad == (size_t)-1, "bulk get: byte %zu wrong", bad);
    pt_barrier(c);
    PT_OK(PtlMDRelease(mdh));
    free(a), free(g), free(b), free(cc);
}

int main(void)
{
    pt_ctx_t c;
    pt_init(&c, PTL_NI_MATCHING | PTL_NI_LOGICAL);
    CHECK_EQ(c.size, 2);
    ptl_handle_eq_t eq;
    PT_OK(PtlEQAlloc(c.ni, 64, &eq));
    ptl_pt_index_t pti;
    PT_OK(PtlPTAlloc(c.ni, 0, eq, 0, &pti));
    if (c.rank == 1) target(&c, pti, eq);
    else initiator(&c, pti, eq);
    PT_OK(PtlPTFree(c.ni, pti));
    PT_OK(PtlEQFree(eq));
    pt_fini(&c);
    t_done("defer_bulk_test");
    return 0;
}
