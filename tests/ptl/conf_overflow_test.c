/* Conformance: overflow lists, unexpected headers and search (PORTALS4_API.md
 * §9.4, §9.5, §11.2): messages landing on overflow entries, priority appends
 * consuming their headers (use-once and persistent, arrival order, event
 * fields), AUTO_FREE, UNEXPECTED_HDR_DISABLE, OVER_DISABLE, CT_OVERFLOW, gets
 * and atomics on overflow entries, and PtlMESearch in both modes with the
 * 4.3 counting rules; the Sluice extension PTL_PT_SLUICE_WAIT.  2 ranks,
 * symmetric: each rank sends to the other. */
#include "conf_util.h"

#include <stdlib.h>
#include <string.h>

#define OP_PG (PTL_ME_OP_PUT | PTL_ME_OP_GET)
#define NOLINK PTL_ME_EVENT_LINK_DISABLE
#define NOUNLINK PTL_ME_EVENT_UNLINK_DISABLE
#define BUFSZ 8192

typedef struct env {
    pt_ctx_t *c;
    int other;
    ptl_process_t to;
    ptl_handle_eq_t teq, ieq;
    ptl_handle_md_t md, gmd;
    ptl_handle_ct_t ct;
    ptl_pt_index_t pt;
    char *sbuf, *gbuf, *ov, *rbuf;
} env_t;

static ptl_handle_me_t append(env_t *v, ptl_me_t me, ptl_list_t list, void *user_ptr)
{
    ptl_handle_me_t h;
    PT_OK(PtlMEAppend(v->c->ni, v->pt, &me, list, user_ptr, &h));
    return h;
}

/* A put of len bytes (stream seed) that must land on an overflow entry. */
static void put_over(env_t *v, ptl_size_t len, ptl_match_bits_t bits, ptl_hdr_data_t hdr,
                     uint64_t seed)
{
    t_fill(v->sbuf, len, seed);
    ptl_event_t a = cu_put_ack(v->md, v->ieq, 0, len, v->to, v->pt, bits, 0, hdr);
    CHECK_EQ(a.ni_fail_type, PTL_NI_OK);
    CHECK_EQ(a.ptl_list, PTL_OVERFLOW_LIST);
    CHECK_EQ(a.mlength, len);
}

/* Seed of the stream the peer used for message `hdr` (distinct per sender). */
static uint64_t seed_of(int rank, ptl_hdr_data_t hdr)
{
    return 7000 + 100 * (uint64_t)rank + hdr;
}

static ptl_event_t expect_over(env_t *v, ptl_event_kind_t kind, void *user_ptr,
                               ptl_hdr_data_t hdr, ptl_size_t rlength, ptl_size_t mlength)
{
    ptl_event_t e = pt_expect(v->teq, kind);
    CHECK_MSG(e.user_ptr == user_ptr, "user_ptr %p, expected %p", e.user_ptr, user_ptr);
    CHECK_EQ(e.hdr_data, hdr);
    CHECK_EQ(e.rlength, rlength);
    CHECK_EQ(e.mlength, mlength);
    CHECK_EQ(e.ptl_list, PTL_OVERFLOW_LIST);
    CHECK_EQ(e.initiator.rank, v->other);
    CHECK_EQ(e.pt_index, v->pt);
    CHECK_EQ(e.ni_fail_type, PTL_NI_OK);
    return e;
}

/* ---- arrival, then appends --------------------------------------------------------------- */

static void arrive_three(env_t *v)
{
    pt_barrier(v->c);
    put_over(v, 10, 1, 1, seed_of(v->c->rank, 1));
    put_over(v, 20, 2, 2, seed_of(v->c->rank, 2));
    put_over(v, 30, 1, 3, seed_of(v->c->rank, 3));
    pt_barrier(v->c);
    static const ptl_size_t at[] = {0, 10, 30}, len[] = {10, 20, 30};
    for (int i = 0; i < 3; i++) {
        ptl_event_t e = expect_over(v, PTL_EVENT_PUT, (void *)0xA0, i + 1, len[i], len[i]);
        CHECK(e.start == v->ov + at[i]);
        CHECK_EQ(e.match_bits, i == 1 ? 2 : 1);
        CHECK(t_verify(v->ov + at[i], len[i], seed_of(v->other, i + 1)) == (size_t)-1);
    }
}

static void overflow_basic(env_t *v)
{
    ptl_me_t ov = cu_me(v->ov, 4096, OP_PG | NOLINK | PTL_ME_MANAGE_LOCAL, 0, ~0ull);
    ptl_handle_me_t hov = append(v, ov, PTL_OVERFLOW_LIST, (void *)0xA0);
    arrive_three(v);
    /* use-once append: takes the oldest matching header, is never linked */
    ptl_handle_me_t h = append(v, cu_me(v->rbuf, 64, PTL_ME_OP_PUT | PTL_ME_USE_ONCE, 1, 0),
                               PTL_PRIORITY_LIST, (void *)0xB1);
    ptl_event_t e = expect_over(v, PTL_EVENT_PUT_OVERFLOW, (void *)0xB1, 1, 10, 10);
    CHECK(e.start == v->ov);
    CHECK_EQ(e.match_bits, 1);
    CHECK(pt_expect(v->teq, PTL_EVENT_AUTO_UNLINK).user_ptr == (void *)0xB1);
    cu_expect_empty(v->teq);
    CHECK_EQ(PtlMEUnlink(h), PTL_ARG_INVALID);
    /* persistent append: every remaining matching header, oldest first, then LINK */
    h = append(v, cu_me(v->rbuf, 64, PTL_ME_OP_PUT, 0, ~0ull), PTL_PRIORITY_LIST, (void *)0xB2);
    CHECK(expect_over(v, PTL_EVENT_PUT_OVERFLOW, (void *)0xB2, 2, 20, 20).start == v->ov + 10);
    CHECK(expect_over(v, PTL_EVENT_PUT_OVERFLOW, (void *)0xB2, 3, 30, 30).start == v->ov + 30);
    CHECK(pt_expect(v->teq, PTL_EVENT_LINK).user_ptr == (void *)0xB2);
    cu_expect_empty(v->teq);
    CHECK(v->rbuf[0] == 0); /* the data stays in the overflow buffer */
    /* now a priority entry matches first */
    pt_barrier(v->c);
    CHECK_EQ(cu_put_ack(v->md, v->ieq, 0, 8, v->to, v->pt, 1, 0, 4).ptl_list, PTL_PRIORITY_LIST);
    pt_barrier(v->c);
    CHECK_EQ(pt_expect(v->teq, PTL_EVENT_PUT).ptl_list, PTL_PRIORITY_LIST);
    PT_OK(PtlMEUnlink(h));
    PT_OK(PtlMEUnlink(hov));
}

static void expect_kinds(env_t *v, const ptl_event_kind_t *kinds, int n)
{
    int seen[16] = {0};
    for (int i = 0; i < n; i++) {
        ptl_event_t e;
        PT_OK(PtlEQWait(v->teq, &e));
        CHECK(e.type < 16);
        seen[e.type]++;
    }
    for (int i = 0; i < n; i++) CHECK_MSG(seen[kinds[i]]-- > 0, "event kind %d missing", kinds[i]);
}

/* Auto-unlinked overflow entries: AUTO_FREE only after their last header is consumed. */
static void auto_free(env_t *v)
{
    ptl_me_t once = cu_me(v->ov, 64, PTL_ME_OP_PUT | NOLINK | PTL_ME_USE_ONCE, 5, 0);
    ptl_me_t slab = cu_me(v->ov + 64, 32, PTL_ME_OP_PUT | NOLINK | PTL_ME_MANAGE_LOCAL, 6, 0);
    slab.min_free = 16;
    ptl_me_t quiet = cu_me(v->ov + 128, 64, PTL_ME_OP_PUT | NOLINK | PTL_ME_USE_ONCE |
                           PTL_ME_EVENT_UNLINK_DISABLE, 7, 0);
    append(v, once, PTL_OVERFLOW_LIST, (void *)0xC1);
    append(v, slab, PTL_OVERFLOW_LIST, (void *)0xC2);
    append(v, quiet, PTL_OVERFLOW_LIST, (void *)0xC3);
    pt_barrier(v->c);
    put_over(v, 8, 5, 1, 1);
    put_over(v, 20, 6, 2, 2); /* 32 - 20 < min_free */
    put_over(v, 8, 7, 3, 3);
    pt_barrier(v->c);
    for (int i = 0; i < 2; i++) {
        void *u = (void *)(uintptr_t)(0xC1 + i);
        CHECK(pt_expect(v->teq, PTL_EVENT_PUT).user_ptr == u);
        CHECK(pt_expect(v->teq, PTL_EVENT_AUTO_UNLINK).user_ptr == u);
    }
    CHECK(pt_expect(v->teq, PTL_EVENT_PUT).user_ptr == (void *)0xC3);
    cu_expect_empty(v->teq); /* headers still point into the buffers */
    ptl_handle_me_t hp = append(v, cu_me(v->rbuf, 64, PTL_ME_OP_PUT | NOLINK, 5, 0),
                                PTL_PRIORITY_LIST, (void *)0xD1);
    expect_over(v, PTL_EVENT_PUT_OVERFLOW, (void *)0xD1, 1, 8, 8);
    CHECK(pt_expect(v->teq, PTL_EVENT_AUTO_FREE).user_ptr == (void *)0xC1);
    cu_expect_empty(v->teq);
    append(v, cu_me(v->rbuf, 64, PTL_ME_OP_PUT | PTL_ME_USE_ONCE, 6, 0), PTL_PRIORITY_LIST,
           (void *)0xD2);
    static const ptl_event_kind_t k[] = {PTL_EVENT_PUT_OVERFLOW, PTL_EVENT_AUTO_FREE,
                                         PTL_EVENT_AUTO_UNLINK};
    expect_kinds(v, k, 3);
    append(v, cu_me(v->rbuf, 64, PTL_ME_OP_PUT | PTL_ME_USE_ONCE | PTL_ME_EVENT_UNLINK_DISABLE,
                    7, 0), PTL_PRIORITY_LIST, (void *)0xD3);
    expect_over(v, PTL_EVENT_PUT_OVERFLOW, (void *)0xD3, 3, 8, 8);
    cu_expect_empty(v->teq); /* UNLINK_DISABLE: neither AUTO_UNLINK nor AUTO_FREE */
    PT_OK(PtlMEUnlink(hp));
}

static void hdr_disable(env_t *v)
{
    ptl_handle_me_t ho = append(v, cu_me(v->ov, 64, PTL_ME_OP_PUT | NOLINK |
                                         PTL_ME_UNEXPECTED_HDR_DISABLE, 8, 0),
                                PTL_OVERFLOW_LIST, (void *)0xE0);
    pt_barrier(v->c);
    put_over(v, 8, 8, 1, 1);
    pt_barrier(v->c);
    CHECK_EQ(pt_expect(v->teq, PTL_EVENT_PUT).ptl_list, PTL_OVERFLOW_LIST);
    ptl_handle_me_t h = append(v, cu_me(v->rbuf, 64, PTL_ME_OP_PUT, 8, 0), PTL_PRIORITY_LIST,
                               (void *)0xE1);
    CHECK(pt_expect(v->teq, PTL_EVENT_LINK).user_ptr == (void *)0xE1); /* nothing to consume */
    cu_expect_empty(v->teq);
    PT_OK(PtlMEUnlink(h));
    PT_OK(PtlMEUnlink(ho));
}

static void get_overflow(env_t *v)
{
    t_fill(v->ov, 64, seed_of(v->c->rank, 50));
    ptl_handle_me_t ho = append(v, cu_me(v->ov, 64, OP_PG | NOLINK, 9, 0), PTL_OVERFLOW_LIST,
                                (void *)0xF0);
    pt_barrier(v->c);
    ptl_event_t r = cu_get_reply(v->gmd, v->ieq, 0, 16, v->to, v->pt, 9, 4);
    CHECK_EQ(r.ni_fail_type, PTL_NI_OK);
    CHECK_EQ(r.ptl_list, PTL_OVERFLOW_LIST);
    CHECK_EQ(r.mlength, 16);
    CHECK(t_verify_at(v->gbuf, 16, seed_of(v->other, 50), 4) == (size_t)-1);
    pt_barrier(v->c);
    ptl_event_t g = pt_expect(v->teq, PTL_EVENT_GET);
    CHECK(g.user_ptr == (void *)0xF0 && g.ptl_list == PTL_OVERFLOW_LIST);
    ptl_handle_me_t h = append(v, cu_me(v->rbuf, 64, OP_PG, 9, 0), PTL_PRIORITY_LIST,
                               (void *)0xF1);
    ptl_event_t e = expect_over(v, PTL_EVENT_GET_OVERFLOW, (void *)0xF1, 0, 16, 16);
    CHECK(e.start == v->ov + 4);
    CHECK_EQ(e.remote_offset, 4);
    pt_expect(v->teq, PTL_EVENT_LINK);
    PT_OK(PtlMEUnlink(h));
    PT_OK(PtlMEUnlink(ho));
}

static void atomic_overflow(env_t *v)
{
    memset(v->ov, 0, 64);
    ptl_handle_me_t ho = append(v, cu_me(v->ov, 64, PTL_ME_OP_PUT | NOLINK, 10, 0),
                                PTL_OVERFLOW_LIST, (void *)0xF2);
    int64_t x = 5;
    memcpy(v->sbuf, &x, 8);
    pt_barrier(v->c);
    PT_OK(PtlAtomic(v->md, 0, 8, PTL_ACK_REQ, v->to, v->pt, 10, 0, (void *)0x5eed, 77, PTL_SUM,
                    PTL_INT64_T));
    pt_expect(v->ieq, PTL_EVENT_SEND);
    CHECK_EQ(pt_expect(v->ieq, PTL_EVENT_ACK).ptl_list, PTL_OVERFLOW_LIST);
    pt_barrier(v->c);
    PT_OK(PtlAtomicSync());
    memcpy(&x, v->ov, 8);
    CHECK_EQ(x, 5);
    CHECK_EQ(pt_expect(v->teq, PTL_EVENT_ATOMIC).atomic_operation, PTL_SUM);
    ptl_handle_me_t h = append(v, cu_me(v->rbuf, 64, PTL_ME_OP_PUT | NOLINK, 10, 0),
                               PTL_PRIORITY_LIST, (void *)0xF3);
    ptl_event_t e = expect_over(v, PTL_EVENT_ATOMIC_OVERFLOW, (void *)0xF3, 77, 8, 8);
    CHECK_EQ(e.atomic_operation, PTL_SUM);
    CHECK_EQ(e.atomic_type, PTL_INT64_T);
    PT_OK(PtlMEUnlink(h));
    PT_OK(PtlMEUnlink(ho));
}

/* OVER_DISABLE consumes silently; CT_OVERFLOW counts events or bytes. */
static void over_disable_and_counts(env_t *v)
{
    ptl_handle_me_t ho = append(v, cu_me(v->ov, 4096, PTL_ME_OP_PUT | NOLINK |
                                         PTL_ME_MANAGE_LOCAL, 0, ~0ull),
                                PTL_OVERFLOW_LIST, (void *)0xA0);
    pt_barrier(v->c);
    put_over(v, 10, 11, 1, 1);
    put_over(v, 30, 11, 2, 2);
    put_over(v, 12, 12, 3, 3);
    put_over(v, 12, 12, 4, 4);
    pt_barrier(v->c);
    for (int i = 0; i < 4; i++) pt_expect(v->teq, PTL_EVENT_PUT);
    PT_OK(PtlCTSet(v->ct, (ptl_ct_event_t){0, 0}));
    ptl_me_t me = cu_me(v->rbuf, 64, PTL_ME_OP_PUT | NOLINK | PTL_ME_EVENT_OVER_DISABLE |
                        PTL_ME_EVENT_CT_OVERFLOW | PTL_ME_EVENT_CT_BYTES, 11, 0);
    me.ct_handle = v->ct;
    ptl_handle_me_t h1 = append(v, me, PTL_PRIORITY_LIST, NULL);
    cu_expect_empty(v->teq);
    ptl_ct_event_t cv = cu_ct(v->ct);
    CHECK_EQ(cv.success, 40);
    CHECK_EQ(cv.failure, 0);
    me.match_bits = 12;
    me.options = PTL_ME_OP_PUT | NOLINK | PTL_ME_EVENT_CT_OVERFLOW;
    ptl_handle_me_t h2 = append(v, me, PTL_PRIORITY_LIST, (void *)0xA2);
    expect_over(v, PTL_EVENT_PUT_OVERFLOW, (void *)0xA2, 3, 12, 12);
    expect_over(v, PTL_EVENT_PUT_OVERFLOW, (void *)0xA2, 4, 12, 12);
    CHECK_EQ(cu_ct(v->ct).success, 42);
    PT_OK(PtlMESearch(v->c->ni, v->pt, &me, PTL_SEARCH_ONLY, (void *)0xA3));
    ptl_event_t s = pt_expect(v->teq, PTL_EVENT_SEARCH); /* all consumed */
    CHECK(s.ni_fail_type == PTL_NI_NO_MATCH && s.user_ptr == (void *)0xA3);
    PT_OK(PtlMEUnlink(h1));
    PT_OK(PtlMEUnlink(h2));
    PT_OK(PtlMEUnlink(ho));
}

/* ---- search ----------------------------------------------------------------------------------- */

static ptl_ct_event_t search(env_t *v, unsigned int options, ptl_search_op_t op, void *user_ptr)
{
    ptl_me_t me = cu_me(NULL, 0, PTL_ME_OP_PUT | PTL_ME_EVENT_CT_OVERFLOW | options, 13, 0);
    me.ct_handle = v->ct;
    PT_OK(PtlCTSet(v->ct, (ptl_ct_event_t){0, 0}));
    PT_OK(PtlMESearch(v->c->ni, v->pt, &me, op, user_ptr));
    return cu_ct(v->ct);
}

static void expect_search_hit(env_t *v, void *user_ptr, ptl_hdr_data_t hdr, ptl_size_t len)
{
    ptl_event_t e = expect_over(v, PTL_EVENT_SEARCH, user_ptr, hdr, len, len);
    CHECK_EQ(e.match_bits, 13);
}

static void expect_ct(ptl_ct_event_t cv, ptl_size_t success, ptl_size_t failure)
{
    CHECK_MSG(cv.success == success && cv.failure == failure, "CT {%llu, %llu}, want {%llu, %llu}",
              (unsigned long long)cv.success, (unsigned long long)cv.failure,
              (unsigned long long)success, (unsigned long long)failure);
}

static void search_only(env_t *v)
{
    expect_ct(search(v, 0, PTL_SEARCH_ONLY, (void *)0x51), 2, 1);
    expect_search_hit(v, (void *)0x51, 1, 10);
    expect_search_hit(v, (void *)0x51, 2, 20);
    cu_expect_empty(v->teq);
    expect_ct(search(v, PTL_ME_USE_ONCE, PTL_SEARCH_ONLY, (void *)0x52), 1, 0);
    expect_search_hit(v, (void *)0x52, 1, 10);
    expect_ct(search(v, PTL_ME_EVENT_CT_BYTES, PTL_SEARCH_ONLY, (void *)0x53), 30, 1);
    expect_search_hit(v, (void *)0x53, 1, 10);
    expect_search_hit(v, (void *)0x53, 2, 20);
    expect_ct(search(v, PTL_ME_EVENT_COMM_DISABLE, PTL_SEARCH_ONLY, NULL), 2, 1);
    cu_expect_empty(v->teq); /* COMM_DISABLE: no SEARCH events */
}

static void search_delete(env_t *v)
{
    expect_ct(search(v, PTL_ME_USE_ONCE, PTL_SEARCH_DELETE, (void *)0x54), 1, 0);
    expect_over(v, PTL_EVENT_PUT_OVERFLOW, (void *)0x54, 1, 10, 10);
    expect_ct(search(v, 0, PTL_SEARCH_DELETE, (void *)0x55), 1, 1);
    expect_over(v, PTL_EVENT_PUT_OVERFLOW, (void *)0x55, 2, 20, 20);
    cu_expect_empty(v->teq);
    static const ptl_search_op_t ops[] = {PTL_SEARCH_ONLY, PTL_SEARCH_DELETE};
    for (int i = 0; i < 2; i++) {
        for (int once = 0; once < 2; once++) {
            unsigned int o = once ? PTL_ME_USE_ONCE : 0;
            expect_ct(search(v, o, ops[i], (void *)0x56), 0, 1);
            ptl_event_t e = pt_expect(v->teq, PTL_EVENT_SEARCH);
            CHECK_EQ(e.ni_fail_type, PTL_NI_NO_MATCH);
            CHECK(e.user_ptr == (void *)0x56 && e.pt_index == v->pt);
        }
    }
}

static void search_all(env_t *v)
{
    ptl_handle_me_t ho = append(v, cu_me(v->ov, 4096, PTL_ME_OP_PUT | NOLINK |
                                         PTL_ME_MANAGE_LOCAL, 0, ~0ull),
                                PTL_OVERFLOW_LIST, (void *)0xA0);
    pt_barrier(v->c);
    put_over(v, 10, 13, 1, 1);
    put_over(v, 20, 13, 2, 2);
    pt_barrier(v->c);
    for (int i = 0; i < 2; i++) pt_expect(v->teq, PTL_EVENT_PUT);
    ptl_sr_value_t sr[PTL_SR_LAST];
    for (int r = 0; r < PTL_SR_LAST; r++) sr[r] = cu_sr(v->c->ni, (ptl_sr_index_t)r);
    search_only(v);
    search_delete(v);
    for (int r = 0; r < PTL_SR_LAST; r++) CHECK_EQ(cu_sr(v->c->ni, (ptl_sr_index_t)r), sr[r]);
    ptl_me_t me = cu_me(NULL, 0, PTL_ME_OP_PUT, 0, 0);
    CHECK_EQ(PtlMESearch(v->c->ni, v->pt, &me, 2, NULL), PTL_ARG_INVALID);
    CHECK_EQ(PtlMESearch(v->c->ni, 50, &me, PTL_SEARCH_ONLY, NULL), PTL_ARG_INVALID);
    CHECK_EQ(PtlMESearch(v->c->ni, v->pt, NULL, PTL_SEARCH_ONLY, NULL), PTL_ARG_INVALID);
    cu_expect_empty(v->teq);
    PT_OK(PtlMEUnlink(ho));
}

/* Zero-length overflow entry (OMPI's long protocol): only the header is kept,
 * mlength 0; an overflow entry unlinked by hand keeps its memory for its
 * headers but gets no AUTO_FREE; a swap leaves a FETCH_ATOMIC header. */
static void zero_length_and_unlinked(env_t *v)
{
    ptl_handle_me_t hz = append(v, cu_me(NULL, 0, OP_PG | NOLINK | PTL_ME_EVENT_COMM_DISABLE,
                                         30, 0), PTL_OVERFLOW_LIST, (void *)0x71);
    ptl_handle_me_t hu = append(v, cu_me(v->ov, 64, OP_PG | NOLINK, 31, 0), PTL_OVERFLOW_LIST,
                                (void *)0x72);
    int64_t x = 9, old = -1;
    memcpy(v->sbuf + 512, &x, 8);
    memset(v->ov, 0, 64);
    pt_barrier(v->c);
    t_fill(v->sbuf, 100, 3);
    ptl_event_t a = cu_put_ack(v->md, v->ieq, 0, 100, v->to, v->pt, 30, 0, 5);
    CHECK(a.ni_fail_type == PTL_NI_OK && a.mlength == 0 && a.ptl_list == PTL_OVERFLOW_LIST);
    PT_OK(PtlSwap(v->gmd, 0, v->md, 512, 8, v->to, v->pt, 31, 8, (void *)0x5eed, 6, NULL,
                  PTL_SWAP, PTL_INT64_T));
    pt_expect(v->ieq, PTL_EVENT_SEND);
    CHECK_EQ(pt_expect(v->ieq, PTL_EVENT_REPLY).ptl_list, PTL_OVERFLOW_LIST);
    memcpy(&old, v->gbuf, 8);
    CHECK_EQ(old, 0);
    pt_barrier(v->c);
    CHECK(pt_expect(v->teq, PTL_EVENT_FETCH_ATOMIC).user_ptr == (void *)0x72);
    PT_OK(PtlMEUnlink(hu)); /* its header still points into v->ov */
    PT_OK(PtlMEUnlink(hz));
    ptl_handle_me_t h = append(v, cu_me(v->rbuf, 64, OP_PG | NOLINK, 0, ~0ull),
                               PTL_PRIORITY_LIST, (void *)0x73);
    ptl_event_t e = expect_over(v, PTL_EVENT_PUT_OVERFLOW, (void *)0x73, 5, 100, 0);
    CHECK_EQ(e.match_bits, 30);
    e = expect_over(v, PTL_EVENT_FETCH_ATOMIC_OVERFLOW, (void *)0x73, 6, 8, 8);
    CHECK(e.start == v->ov + 8 && e.atomic_operation == PTL_SWAP);
    memcpy(&x, v->ov + 8, 8);
    CHECK_EQ(x, 9);
    cu_expect_empty(v->teq); /* explicit unlink: no AUTO_FREE */
    PT_OK(PtlMEUnlink(h));
}

/* 4.3 PTL_ME_LOCAL_INC_UH_RLENGTH: a manage-local priority append advances its
 * offset by each consumed header's rlength; past min_free it is not linked. */
static void local_inc_uh_rlength(env_t *v)
{
    ptl_handle_me_t ho = append(v, cu_me(NULL, 0, PTL_ME_OP_PUT | NOLINK, 0, ~0ull),
                                PTL_OVERFLOW_LIST, (void *)0xA0);
    pt_barrier(v->c);
    for (int i = 0; i < 3; i++) {
        PT_OK(PtlPut(v->md, 0, 40, PTL_ACK_REQ, v->to, v->pt, 40, 0, (void *)0x5eed, i));
        pt_expect(v->ieq, PTL_EVENT_SEND);
        pt_expect(v->ieq, PTL_EVENT_ACK);
    }
    pt_barrier(v->c);
    for (int i = 0; i < 3; i++) pt_expect(v->teq, PTL_EVENT_PUT);
    ptl_me_t me = cu_me(v->rbuf, 100, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL |
                        PTL_ME_LOCAL_INC_UH_RLENGTH, 40, 0);
    me.min_free = 30; /* 100 - 40 = 60 fine; 100 - 80 = 20 < 30: used up */
    ptl_handle_me_t h = append(v, me, PTL_PRIORITY_LIST, (void *)0xA4);
    expect_over(v, PTL_EVENT_PUT_OVERFLOW, (void *)0xA4, 0, 40, 0);
    expect_over(v, PTL_EVENT_PUT_OVERFLOW, (void *)0xA4, 1, 40, 0);
    CHECK(pt_expect(v->teq, PTL_EVENT_AUTO_UNLINK).user_ptr == (void *)0xA4);
    cu_expect_empty(v->teq); /* not linked; the third header stays */
    CHECK_EQ(PtlMEUnlink(h), PTL_ARG_INVALID);
    me.options = PTL_ME_OP_PUT | NOLINK | PTL_ME_USE_ONCE;
    PT_OK(PtlMESearch(v->c->ni, v->pt, &me, PTL_SEARCH_DELETE, (void *)0xA5));
    expect_over(v, PTL_EVENT_PUT_OVERFLOW, (void *)0xA5, 2, 40, 0);
    PT_OK(PtlMEUnlink(ho));
}

/* PtlPTFree with unexpected headers left (their overflow entries already off
 * the list: auto-unlinked, or unlinked by hand) releases them all. */
static void free_with_headers(env_t *v)
{
    ptl_pt_index_t keep = v->pt, p;
    PT_OK(PtlPTAlloc(v->c->ni, 0, v->teq, PTL_PT_ANY, &p));
    v->pt = p;
    append(v, cu_me(v->ov, 64, PTL_ME_OP_PUT | NOLINK | PTL_ME_USE_ONCE, 20, 0),
           PTL_OVERFLOW_LIST, (void *)0x61);
    ptl_handle_me_t h = append(v, cu_me(v->ov + 64, 64, PTL_ME_OP_PUT | NOLINK, 21, 0),
                               PTL_OVERFLOW_LIST, (void *)0x62);
    pt_barrier(v->c);
    put_over(v, 8, 20, 1, 1);
    put_over(v, 8, 21, 2, 2);
    pt_barrier(v->c);
    pt_expect(v->teq, PTL_EVENT_PUT);
    pt_expect(v->teq, PTL_EVENT_AUTO_UNLINK);
    pt_expect(v->teq, PTL_EVENT_PUT);
    PT_OK(PtlMEUnlink(h));
    CHECK_EQ(PtlMEUnlink(h), PTL_ARG_INVALID);
    PT_OK(PtlPTFree(v->c->ni, p));
    cu_expect_empty(v->teq); /* no AUTO_FREE: the PT went away with its headers */
    v->pt = keep;
}

/* PTL_PT_SLUICE_WAIT (Sluice extension): a message no entry takes waits,
 * and the ones behind it keep their order, until an entry is appended;
 * nothing is dropped meanwhile.  Two puts (bits 1, then 2) to a PT with no
 * entries; an entry for the second does not let it overtake; the entry for
 * the first lets both land, in order, intact. */
static void wait_for_entry(env_t *v)
{
    ptl_pt_index_t wpt;
    PT_OK(PtlPTAlloc(v->c->ni, PTL_PT_SLUICE_WAIT, v->teq, PTL_PT_ANY, &wpt));
    ptl_sr_value_t drops = cu_sr(v->c->ni, PTL_SR_DROP_COUNT);
    pt_barrier(v->c);
    t_fill(v->sbuf, 64, seed_of(v->c->rank, 21));
    t_fill(v->sbuf + 64, 64, seed_of(v->c->rank, 22));
    PT_OK(PtlPut(v->md, 0, 64, PTL_ACK_REQ, v->to, wpt, 1, 0, (void *)1, 21));
    PT_OK(PtlPut(v->md, 64, 64, PTL_ACK_REQ, v->to, wpt, 2, 0, (void *)2, 22));
    pt_barrier(v->c); /* both are on their way */
    ptl_event_t e;
    unsigned int which;
    CHECK_EQ(PtlEQPoll(&v->teq, 1, 100, &e, &which), PTL_EQ_EMPTY);
    ptl_handle_me_t h;
    ptl_me_t me = cu_me(v->rbuf + 64, 64, PTL_ME_OP_PUT | PTL_ME_USE_ONCE | NOLINK | NOUNLINK, 2, 0);
    PT_OK(PtlMEAppend(v->c->ni, wpt, &me, PTL_PRIORITY_LIST, (void *)0xB2, &h));
    CHECK_EQ(PtlEQPoll(&v->teq, 1, 100, &e, &which), PTL_EQ_EMPTY); /* no overtaking */
    me = cu_me(v->rbuf, 64, PTL_ME_OP_PUT | PTL_ME_USE_ONCE | NOLINK | NOUNLINK, 1, 0);
    PT_OK(PtlMEAppend(v->c->ni, wpt, &me, PTL_PRIORITY_LIST, (void *)0xB1, &h));
    for (int i = 0; i < 2; i++) {
        e = pt_expect(v->teq, PTL_EVENT_PUT);
        CHECK(e.user_ptr == (void *)(uintptr_t)(0xB1 + i));
        CHECK_EQ(e.hdr_data, 21 + i);
        CHECK_EQ(e.mlength, 64);
        CHECK_EQ(e.ni_fail_type, PTL_NI_OK);
        CHECK(t_verify(v->rbuf + 64 * i, 64, seed_of(v->other, 21 + i)) == (size_t)-1);
    }
    CHECK_EQ(cu_sr(v->c->ni, PTL_SR_DROP_COUNT), drops);
    int acks = 0, sends = 0;
    while (acks + sends < 4) {
        PT_OK(PtlEQWait(v->ieq, &e));
        CHECK_EQ(e.ni_fail_type, PTL_NI_OK);
        if (e.type == PTL_EVENT_ACK) {
            acks++;
        } else {
            CHECK_EQ(e.type, PTL_EVENT_SEND);
            sends++;
        }
    }
    CHECK(acks == 2 && sends == 2);
    pt_barrier(v->c);
    PT_OK(PtlPTFree(v->c->ni, wpt));
}

int main(void)
{
    env_t v = {0};
    pt_ctx_t c;
    pt_init(&c, PTL_NI_MATCHING | PTL_NI_LOGICAL);
    CHECK(c.size == 2);
    v.c = &c;
    v.other = 1 - c.rank;
    v.to = pt_id(&c, v.other);
    v.sbuf = calloc(1, BUFSZ);
    v.gbuf = calloc(1, BUFSZ);
    v.ov = calloc(1, BUFSZ);
    v.rbuf = calloc(1, BUFSZ);
    CHECK(v.sbuf && v.gbuf && v.ov && v.rbuf);
    PT_OK(PtlEQAlloc(c.ni, 256, &v.teq));
    PT_OK(PtlEQAlloc(c.ni, 256, &v.ieq));
    PT_OK(PtlCTAlloc(c.ni, &v.ct));
    ptl_md_t md = cu_md(v.sbuf, BUFSZ, 0, v.ieq, PTL_CT_NONE);
    PT_OK(PtlMDBind(c.ni, &md, &v.md));
    md.start = v.gbuf;
    PT_OK(PtlMDBind(c.ni, &md, &v.gmd));
    PT_OK(PtlPTAlloc(c.ni, 0, v.teq, PTL_PT_ANY, &v.pt));
    overflow_basic(&v);
    auto_free(&v);
    hdr_disable(&v);
    get_overflow(&v);
    atomic_overflow(&v);
    over_disable_and_counts(&v);
    search_all(&v);
    zero_length_and_unlinked(&v);
    local_inc_uh_rlength(&v);
    wait_for_entry(&v);
    free_with_headers(&v);
    pt_barrier(&c);
    PT_OK(PtlPTFree(c.ni, v.pt));
    PT_OK(PtlMDRelease(v.md));
    PT_OK(PtlMDRelease(v.gmd));
    PT_OK(PtlCTFree(v.ct));
    PT_OK(PtlEQFree(v.teq));
    PT_OK(PtlEQFree(v.ieq));
    pt_fini(&c);
    free(v.sbuf);
    free(v.gbuf);
    free(v.ov);
    free(v.rbuf);
    t_done("conf_overflow_test");
    return 0;
}
