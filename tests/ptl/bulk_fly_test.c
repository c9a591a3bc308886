/* Bulk copies in flight at the target (ptl/target.c, SLUICE_TGT_INFLIGHT):
 * over libfabric or staged shared memory the target starts several bulk
 * copies before the first has finished, and must still show the program
 * and the initiator exactly what serving them one at a time showed.
 * Rank 0 sends, in one burst, ROUNDS rounds of: a bulk put to a use-once
 * entry (U, whose match bits two use-once entries share: the second
 * message must take the second entry, since the first left its list when
 * its copy started), a bulk put into a locally managed entry (L, one entry
 * for all rounds), a bulk get of an entry (G) and, every second round, a
 * small put (S, inline: it may not overtake the copies ahead of it; the
 * rounds between let two U's with the same match bits fly together).  Rank 1 checks every
 * event's kind, match bits, length and offset in the order sent, each
 * use-once entry's AUTO_UNLINK right after its PUT, and every byte; rank 0
 * checks its ACKs and REPLYs come in the order sent and the data it got.
 * Registered plain (shared memory with cross-memory attach: nothing
 * flies), staged (SLUICE_CMA=0) and with libfabric twins. */
#include "ptest.h"

#include <stdlib.h>
#include <string.h>

#define ROUNDS 6
#define BULK (192 * 1024)
#define SMALL 16

/* match bits: U of round r (two entries each), L, G of round r, S */
#define MB_U(r) (0x100u + (unsigned)(r) / 2)
#define MB_L 0x200u
#define MB_G(r) (0x300u + (unsigned)(r))
#define MB_S 0x400u
#define HAS_S(r) ((r) % 2 == 1)

static ptl_handle_me_t append(pt_ctx_t *c, ptl_pt_index_t pti, void *buf, size_t len,
                              ptl_match_bits_t mb, unsigned opt, ptl_handle_eq_t eq)
{
    ptl_me_t me = {.start = buf, .length = len, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                   .options = opt, .match_id = {.rank = PTL_RANK_ANY}, .match_bits = mb};
    ptl_handle_me_t h;
    PT_OK(PtlMEAppend(c->ni, pti, &me, PTL_PRIORITY_LIST, (void *)(uintptr_t)mb, &h));
    pt_expect(eq, PTL_EVENT_LINK);
    return h;
}

static ptl_event_t next_event(ptl_handle_eq_t eq)
{
    ptl_event_t e;
    PT_OK(PtlEQWait(eq, &e));
    CHECK_EQ(e.ni_fail_type, PTL_NI_OK);
    return e;
}

static void target(pt_ctx_t *c, ptl_pt_index_t pti, ptl_handle_eq_t eq)
{
    char *u[ROUNDS], *g[ROUNDS];
    char *l = calloc(ROUNDS, BULK), *s = calloc(ROUNDS, SMALL);
    CHECK(l && s);
    /* rounds 2k and 2k+1 share U's match bits: entry 2k first in the list */
    for (int r = 0; r < ROUNDS; r++) {
        u[r] = calloc(1, BULK);
        g[r] = malloc(BULK);
        CHECK(u[r] && g[r]);
        t_fill(g[r], BULK, 50 + r);
        append(c, pti, u[r], BULK, MB_U(r), PTL_ME_OP_PUT | PTL_ME_USE_ONCE, eq);
    }
    ptl_handle_me_t lh = append(c, pti, l, (size_t)ROUNDS * BULK, MB_L,
                                PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL, eq);
    ptl_handle_me_t gh[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) gh[r] = append(c, pti, g[r], BULK, MB_G(r), PTL_ME_OP_GET, eq);
    ptl_handle_me_t sh = append(c, pti, s, (size_t)ROUNDS * SMALL, MB_S,
                                PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL, eq);
    pt_barrier(c);
    for (int r = 0; r < ROUNDS; r++) {
        ptl_event_t e = next_event(eq);
        CHECK_EQ(e.type, PTL_EVENT_PUT);
        CHECK_EQ(e.match_bits, (ptl_match_bits_t)MB_U(r));
        CHECK_EQ(e.mlength, BULK);
        CHECK(e.start == u[r]); /* the second message took the second entry */
        e = next_event(eq);
        CHECK_EQ(e.type, PTL_EVENT_AUTO_UNLINK);
        CHECK(e.user_ptr == (void *)(uintptr_t)MB_U(r));
        e = next_event(eq);
        CHECK_EQ(e.type, PTL_EVENT_PUT);
        CHECK_EQ(e.match_bits, (ptl_match_bits_t)MB_L);
        CHECK_EQ(e.mlength, BULK);
        CHECK(e.start == l + (size_t)r * BULK);
        e = next_event(eq);
        CHECK_EQ(e.type, PTL_EVENT_GET);
        CHECK_EQ(e.match_bits, (ptl_match_bits_t)MB_G(r));
        CHECK_EQ(e.mlength, BULK);
        if (!HAS_S(r)) continue;
        e = next_event(eq);
        CHECK_EQ(e.type, PTL_EVENT_PUT);
        CHECK_EQ(e.match_bits, (ptl_match_bits_t)MB_S);
        CHECK_EQ(e.mlength, SMALL);
        CHECK(e.start == s + (size_t)(r / 2) * SMALL);
    }
    ptl_event_t extra;
    CHECK_EQ(PtlEQGet(eq, &extra), PTL_EQ_EMPTY);
    for (int r = 0; r < ROUNDS; r++) {
        size_t bad = t_verify(u[r], BULK, 10 + r);
        CHECK_MSG(bad == (size_t)-1, "use-once put %d: byte %zu wrong", r, bad);
        bad = t_verify(l + (size_t)r * BULK, BULK, 20 + r);
        CHECK_MSG(bad == (size_t)-1, "managed put %d: byte %zu wrong", r, bad);
        if (HAS_S(r)) CHECK(t_verify(s + (size_t)(r / 2) * SMALL, SMALL, 30 + r) == (size_t)-1);
    }
    PT_OK(PtlMEUnlink(lh));
    PT_OK(PtlMEUnlink(sh));
    for (int r = 0; r < ROUNDS; r++) PT_OK(PtlMEUnlink(gh[r]));
    pt_barrier(c);
    for (int r = 0; r < ROUNDS; r++) free(u[r]), free(g[r]);
    free(l), free(s);
}

static void initiator(pt_ctx_t *c, ptl_handle_eq_t eq)
{
    char *u = malloc((size_t)ROUNDS * BULK), *l = malloc((size_t)ROUNDS * BULK);
    char *g = calloc(ROUNDS, BULK), *s = malloc((size_t)ROUNDS * SMALL);
    CHECK(u && l && g && s);
    for (int r = 0; r < ROUNDS; r++) {
        t_fill(u + (size_t)r * BULK, BULK, 10 + r);
        t_fill(l + (size_t)r * BULK, BULK, 20 + r);
        t_fill(s + (size_t)r * SMALL, SMALL, 30 + r);
    }
    ptl_md_t md = {.start = NULL, .length = PTL_SIZE_MAX, .eq_handle = eq,
                   .ct_handle = PTL_CT_NONE, .options = PTL_MD_EVENT_SEND_DISABLE};
    ptl_handle_md_t mdh;
    PT_OK(PtlMDBind(c->ni, &md, &mdh));
    pt_barrier(c);
    ptl_process_t t = pt_id(c, 1);
    for (int r = 0; r < ROUNDS; r++) {
        size_t o = (size_t)r * BULK;
        PT_OK(PtlPut(mdh, (ptl_size_t)(uintptr_t)(u + o), BULK, PTL_ACK_REQ, t, 0, MB_U(r), 0,
                     (void *)(uintptr_t)(4 * r), 0));
        PT_OK(PtlPut(mdh, (ptl_size_t)(uintptr_t)(l + o), BULK, PTL_ACK_REQ, t, 0, MB_L, 0,
                     (void *)(uintptr_t)(4 * r + 1), 0));
        PT_OK(PtlGet(mdh, (ptl_size_t)(uintptr_t)(g + o), BULK, t, 0, MB_G(r), 0,
                     (void *)(uintptr_t)(4 * r + 2)));
        if (HAS_S(r))
            PT_OK(PtlPut(mdh, (ptl_size_t)(uintptr_t)(s + (size_t)r * SMALL), SMALL, PTL_ACK_REQ,
                         t, 0, MB_S, 0, (void *)(uintptr_t)(4 * r + 3), 0));
    }
    /* the answers, in the order the target served the requests */
    for (int i = 0; i < 4 * ROUNDS; i++) {
        if (i % 4 == 3 && !HAS_S(i / 4)) continue;
        ptl_event_t e = next_event(eq);
        CHECK_EQ(e.type, i % 4 == 2 ? PTL_EVENT_REPLY : PTL_EVENT_ACK);
        CHECK_MSG(e.user_ptr == (void *)(uintptr_t)i, "answer %d is for request %d", i,
                  (int)(uintptr_t)e.user_ptr);
        CHECK_EQ(e.mlength, i % 4 == 3 ? SMALL : BULK);
    }
    for (int r = 0; r < ROUNDS; r++) {
        size_t bad = t_verify(g + (size_t)r * BULK, BULK, 50 + r);
        CHECK_MSG(bad == (size_t)-1, "get %d: byte %zu wrong", r, bad);
    }
    pt_barrier(c);
    PT_OK(PtlMDRelease(mdh));
    free(u), free(l), free(g), free(s);
}

int main(void)
{
    pt_ctx_t c;
    pt_init(&c, PTL_NI_MATCHING | PTL_NI_LOGICAL);
    CHECK_EQ(c.size, 2);
    ptl_handle_eq_t eq;
    PT_OK(PtlEQAlloc(c.ni, 256, &eq));
    ptl_pt_index_t pti;
    PT_OK(PtlPTAlloc(c.ni, 0, eq, 0, &pti));
    if (c.rank == 1) target(&c, pti, eq);
    else initiator(&c, eq);
    PT_OK(PtlPTFree(c.ni, pti));
    PT_OK(PtlEQFree(eq));
    pt_fini(&c);
    t_done("bulk_fly_test");
    return 0;
}
