/* Conformance: portal table entries (PORTALS4_API.md §6, §10, §19):
 * allocation rules and errors, free with entries, manual disable/enable seen
 * by a remote initiator, and flow control (no match, EQ full, unexpected
 * headers exhausted).  2 ranks; each rank is target of the other. */
#include "conf_util.h"

#include <stdlib.h>
#include <string.h>

#define OP_PG (PTL_ME_OP_PUT | PTL_ME_OP_GET)

typedef struct env {
    pt_ctx_t *c;
    int other;
    ptl_process_t to;
    ptl_handle_eq_t teq, ieq;
    ptl_handle_md_t md;
    char sbuf[4096], rbuf[4096];
} env_t;

/* ---- allocation ----------------------------------------------------------------------- */

static void alloc_any_and_specific(env_t *v)
{
    ptl_handle_ni_t ni = v->c->ni;
    ptl_pt_index_t a, b, s, d;
    PT_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &a));
    CHECK_EQ(a, 0); /* fresh NI */
    PT_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &b));
    CHECK_EQ(b, 1); /* upward */
    PT_OK(PtlPTAlloc(ni, PTL_PT_ONLY_USE_ONCE | PTL_PT_ONLY_TRUNCATE, v->teq, 5, &s));
    CHECK_EQ(s, 5);
    PT_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &d));
    CHECK(d != 0 && d != 1 && d != 5);
    CHECK_EQ(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 5, &s), PTL_PT_IN_USE);
    CHECK_EQ(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 0, &s), PTL_PT_IN_USE);
    PT_OK(PtlPTFree(ni, a));
    PT_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 0, &s)); /* a freed index can be asked for again */
    CHECK_EQ(s, 0);
    const ptl_pt_index_t all[] = {a, b, 5, d};
    for (int i = 0; i < 4; i++) PT_OK(PtlPTFree(ni, all[i]));
}

static void alloc_errors(env_t *v)
{
    ptl_handle_ni_t ni = v->c->ni;
    ptl_pt_index_t p;
    ptl_handle_eq_t dead;
    PT_OK(PtlEQAlloc(ni, 4, &dead));
    PT_OK(PtlEQFree(dead));
    CHECK_EQ(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 64, &p), PTL_ARG_INVALID);   /* > max_pt_index 63 */
    CHECK_EQ(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 9999, &p), PTL_ARG_INVALID);
    CHECK_EQ(PtlPTAlloc(ni, ~(unsigned)PTL_PT_ALLOC_OPTIONS_MASK, PTL_EQ_NONE, PTL_PT_ANY, &p),
             PTL_ARG_INVALID);
    CHECK_EQ(PtlPTAlloc(ni, PTL_PT_FLOWCTRL, PTL_EQ_NONE, PTL_PT_ANY, &p), PTL_PT_EQ_NEEDED);
    CHECK_EQ(PtlPTAlloc(ni, 0, dead, PTL_PT_ANY, &p), PTL_ARG_INVALID);
    CHECK_EQ(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, NULL), PTL_ARG_INVALID);
    CHECK_EQ(PtlPTAlloc(PTL_INVALID_HANDLE, 0, PTL_EQ_NONE, PTL_PT_ANY, &p), PTL_ARG_INVALID);
    /* an EQ of another NI */
    ptl_handle_ni_t ni2;
    ptl_handle_eq_t eq2;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL,
                    NULL, &ni2));
    PT_OK(PtlEQAlloc(ni2, 4, &eq2));
    CHECK_EQ(PtlPTAlloc(ni, 0, eq2, PTL_PT_ANY, &p), PTL_ARG_INVALID);
    PT_OK(PtlNIFini(ni2));
    /* free / enable / disable of indices never allocated or out of range */
    const ptl_pt_index_t bad[] = {7, 63, 64, 9999, PTL_PT_ANY};
    for (int i = 0; i < 5; i++) {
        CHECK_EQ(PtlPTFree(ni, bad[i]), PTL_ARG_INVALID);
        CHECK_EQ(PtlPTEnable(ni, bad[i]), PTL_ARG_INVALID);
        CHECK_EQ(PtlPTDisable(ni, bad[i]), PTL_ARG_INVALID);
    }
}

static void alloc_full(void)
{
    ptl_ni_limits_t want = {.max_entries = 64, .max_unexpected_headers = 64, .max_mds = 64,
                            .max_cts = 64, .max_eqs = 64, .max_pt_index = 1, .max_iovecs = 64,
                            .max_list_size = 64, .max_triggered_ops = 64,
                            .max_msg_size = 1 << 20, .max_atomic_size = 64,
                            .max_fetch_atomic_size = 64, .max_volatile_size = 64};
    ptl_ni_limits_t got;
    ptl_handle_ni_t ni;
    ptl_pt_index_t p;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, &want,
                    &got, &ni));
    CHECK_EQ(got.max_pt_index, 1);
    PT_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &p));
    CHECK_EQ(p, 0);
    PT_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &p));
    CHECK_EQ(p, 1);
    CHECK_EQ(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &p), PTL_PT_FULL);
    CHECK_EQ(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 2, &p), PTL_ARG_INVALID);
    PT_OK(PtlPTFree(ni, 0));
    PT_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &p));
    CHECK_EQ(p, 0); /* wraps around to the free one */
    PT_OK(PtlNIFini(ni));
}

static void free_with_entries(env_t *v)
{
    ptl_handle_ni_t ni = v->c->ni;
    ptl_pt_index_t p;
    ptl_handle_me_t h1, h2;
    PT_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &p));
    ptl_me_t me = cu_me(v->rbuf, 8, PTL_ME_OP_PUT, 0, 0);
    PT_OK(PtlMEAppend(ni, p, &me, PTL_PRIORITY_LIST, NULL, &h1));
    PT_OK(PtlMEAppend(ni, p, &me, PTL_OVERFLOW_LIST, NULL, &h2));
    CHECK_EQ(PtlPTFree(ni, p), PTL_PT_IN_USE);
    PT_OK(PtlMEUnlink(h1));
    CHECK_EQ(PtlPTFree(ni, p), PTL_PT_IN_USE); /* the overflow entry still there */
    PT_OK(PtlMEUnlink(h2));
    PT_OK(PtlPTFree(ni, p));
    CHECK_EQ(PtlPTFree(ni, p), PTL_ARG_INVALID); /* twice */
    CHECK_EQ(PtlMEAppend(ni, p, &me, PTL_PRIORITY_LIST, NULL, &h1), PTL_ARG_INVALID);
}

/* ---- manual disable / enable ------------------------------------------------------------ */

static ptl_pt_index_t target_pt(env_t *v, unsigned int options, ptl_handle_me_t *h)
{
    ptl_pt_index_t p;
    PT_OK(PtlPTAlloc(v->c->ni, options, v->teq, PTL_PT_ANY, &p));
    ptl_me_t me = cu_me(v->rbuf, sizeof v->rbuf, OP_PG | PTL_ME_EVENT_LINK_DISABLE, 0, 0);
    PT_OK(PtlMEAppend(v->c->ni, p, &me, PTL_PRIORITY_LIST, NULL, h));
    return p;
}

static void disable_enable(env_t *v)
{
    ptl_handle_me_t h;
    ptl_pt_index_t p = target_pt(v, 0, &h);
    ptl_sr_value_t drops0 = cu_sr(v->c->ni, PTL_SR_DROP_COUNT);
    PT_OK(PtlPTDisable(v->c->ni, p));
    PT_OK(PtlPTDisable(v->c->ni, p)); /* idempotent */
    cu_expect_empty(v->teq);          /* a manual disable posts no PT_DISABLED */
    pt_barrier(v->c);
    ptl_event_t a = cu_put_ack(v->md, v->ieq, 0, 16, v->to, p, 0, 0, 1);
    CHECK_EQ(a.ni_fail_type, PTL_NI_PT_DISABLED);
    ptl_event_t r = cu_get_reply(v->md, v->ieq, 0, 16, v->to, p, 0, 0);
    CHECK_EQ(r.ni_fail_type, PTL_NI_PT_DISABLED);
    pt_barrier(v->c);
    cu_expect_empty(v->teq); /* nothing reached the entry */
    CHECK_EQ(cu_sr(v->c->ni, PTL_SR_DROP_COUNT), drops0 + 2);
    PT_OK(PtlPTEnable(v->c->ni, p));
    pt_barrier(v->c);
    t_fill(v->sbuf, 16, 5);
    a = cu_put_ack(v->md, v->ieq, 0, 16, v->to, p, 0, 0, 2);
    CHECK_EQ(a.ni_fail_type, PTL_NI_OK);
    ptl_event_t e = pt_expect(v->teq, PTL_EVENT_PUT);
    CHECK_EQ(e.hdr_data, 2);
    CHECK(t_verify(v->rbuf, 16, 5) == (size_t)-1);
    pt_barrier(v->c);
    PT_OK(PtlMEUnlink(h));
    PT_OK(PtlPTFree(v->c->ni, p));
}

/* PTL_PT_ALLOC_DISABLED (4.3): the entry starts disabled. */
static void alloc_disabled(env_t *v)
{
    ptl_handle_me_t h;
    ptl_pt_index_t p = target_pt(v, PTL_PT_ALLOC_DISABLED, &h);
    pt_barrier(v->c);
    CHECK_EQ(cu_put_ack(v->md, v->ieq, 0, 8, v->to, p, 0, 0, 0).ni_fail_type,
             PTL_NI_PT_DISABLED);
    pt_barrier(v->c);
    PT_OK(PtlPTEnable(v->c->ni, p));
    pt_barrier(v->c);
    CHECK_EQ(cu_put_ack(v->md, v->ieq, 0, 8, v->to, p, 0, 0, 0).ni_fail_type, PTL_NI_OK);
    pt_expect(v->teq, PTL_EVENT_PUT);
    pt_barrier(v->c);
    PT_OK(PtlMEUnlink(h));
    PT_OK(PtlPTFree(v->c->ni, p));
}

/* ---- flow control ------------------------------------------------------------------------- */

static void expect_pt_disabled(ptl_handle_eq_t eq, ptl_pt_index_t p)
{
    ptl_event_t e = pt_expect(eq, PTL_EVENT_PT_DISABLED);
    CHECK_EQ(e.pt_index, p);
    CHECK_EQ(e.ni_fail_type, PTL_NI_PT_DISABLED);
}

/* (b) no entry matches: the PT is disabled, once; later messages fail too. */
static void flowctl_no_match(env_t *v)
{
    ptl_handle_ni_t ni = v->c->ni;
    ptl_pt_index_t p;
    ptl_handle_me_t h;
    PT_OK(PtlPTAlloc(ni, PTL_PT_FLOWCTRL, v->teq, PTL_PT_ANY, &p));
    ptl_me_t me = cu_me(v->rbuf, 64, OP_PG | PTL_ME_USE_ONCE | PTL_ME_EVENT_LINK_DISABLE, 0, 0);
    PT_OK(PtlMEAppend(ni, p, &me, PTL_PRIORITY_LIST, (void *)1, &h));
    ptl_sr_value_t drops0 = cu_sr(ni, PTL_SR_DROP_COUNT);
    pt_barrier(v->c);
    CHECK_EQ(cu_put_ack(v->md, v->ieq, 0, 8, v->to, p, 0, 0, 1).ni_fail_type, PTL_NI_OK);
    CHECK_EQ(cu_put_ack(v->md, v->ieq, 0, 8, v->to, p, 0, 0, 2).ni_fail_type,
             PTL_NI_PT_DISABLED);
    CHECK_EQ(cu_put_ack(v->md, v->ieq, 0, 8, v->to, p, 0, 0, 3).ni_fail_type,
             PTL_NI_PT_DISABLED);
    CHECK_EQ(cu_get_reply(v->md, v->ieq, 0, 8, v->to, p, 0, 0).ni_fail_type,
             PTL_NI_PT_DISABLED);
    pt_barrier(v->c);
    CHECK_EQ(pt_expect(v->teq, PTL_EVENT_PUT).hdr_data, 1);
    pt_expect(v->teq, PTL_EVENT_AUTO_UNLINK);
    expect_pt_disabled(v->teq, p);
    cu_expect_empty(v->teq); /* exactly one PT_DISABLED */
    CHECK_EQ(cu_sr(ni, PTL_SR_DROP_COUNT), drops0 + 3);
    /* recovery: re-post a buffer, re-enable */
    me.options &= ~(unsigned)PTL_ME_USE_ONCE;
    PT_OK(PtlMEAppend(ni, p, &me, PTL_PRIORITY_LIST, (void *)2, &h));
    PT_OK(PtlPTEnable(ni, p));
    pt_barrier(v->c);
    CHECK_EQ(cu_put_ack(v->md, v->ieq, 0, 8, v->to, p, 0, 0, 4).ni_fail_type, PTL_NI_OK);
    ptl_event_t e = pt_expect(v->teq, PTL_EVENT_PUT);
    CHECK(e.user_ptr == (void *)2 && e.hdr_data == 4);
    pt_barrier(v->c);
    PT_OK(PtlMEUnlink(h));
    PT_OK(PtlPTFree(ni, p));
}

/* (a) the PT's EQ reached the count asked for at PtlEQAlloc. */
static void flowctl_eq_full(env_t *v)
{
    ptl_handle_ni_t ni = v->c->ni;
    ptl_handle_eq_t eq;
    ptl_pt_index_t p;
    ptl_handle_me_t h;
    PT_OK(PtlEQAlloc(ni, 2, &eq));
    PT_OK(PtlPTAlloc(ni, PTL_PT_FLOWCTRL, eq, PTL_PT_ANY, &p));
    ptl_me_t me = cu_me(v->rbuf, 64, OP_PG | PTL_ME_EVENT_LINK_DISABLE, 0, 0);
    PT_OK(PtlMEAppend(ni, p, &me, PTL_PRIORITY_LIST, NULL, &h));
    pt_barrier(v->c);
    for (int i = 0; i < 2; i++)
        CHECK_EQ(cu_put_ack(v->md, v->ieq, 0, 8, v->to, p, 0, 0, i).ni_fail_type, PTL_NI_OK);
    CHECK_EQ(cu_put_ack(v->md, v->ieq, 0, 8, v->to, p, 0, 0, 2).ni_fail_type,
             PTL_NI_PT_DISABLED);
    pt_barrier(v->c);
    CHECK_EQ(pt_expect(eq, PTL_EVENT_PUT).hdr_data, 0);
    CHECK_EQ(pt_expect(eq, PTL_EVENT_PUT).hdr_data, 1);
    expect_pt_disabled(eq, p);
    cu_expect_empty(eq);
    PT_OK(PtlPTEnable(ni, p));
    pt_barrier(v->c);
    CHECK_EQ(cu_put_ack(v->md, v->ieq, 0, 8, v->to, p, 0, 0, 3).ni_fail_type, PTL_NI_OK);
    CHECK_EQ(pt_expect(eq, PTL_EVENT_PUT).hdr_data, 3);
    pt_barrier(v->c);
    PT_OK(PtlMEUnlink(h));
    PT_OK(PtlPTFree(ni, p));
    PT_OK(PtlEQFree(eq));
}

/* (c) unexpected headers exhausted: a flow-controlled PT is disabled (its
 * entry has FLOWCTRL_DISABLE: no PT_DISABLED event); a plain PT drops. */
typedef struct uh_env {
    ptl_handle_ni_t ni;
    ptl_handle_eq_t teq, ieq;
    ptl_handle_md_t md;
    ptl_pt_index_t fc, plain;
    ptl_handle_me_t h_fc, h_plain;
} uh_env_t;

static void uh_setup(env_t *v, uh_env_t *u)
{
    ptl_ni_limits_t want = {.max_entries = 64, .max_unexpected_headers = 2, .max_mds = 64,
                            .max_cts = 64, .max_eqs = 64, .max_pt_index = 63,
                            .max_iovecs = 64, .max_list_size = 64, .max_triggered_ops = 64,
                            .max_msg_size = 1 << 20, .max_atomic_size = 64,
                            .max_fetch_atomic_size = 64, .max_volatile_size = 64};
    ptl_ni_limits_t got;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, &want,
                    &got, &u->ni));
    CHECK_EQ(got.max_unexpected_headers, 2);
    PT_OK(PtlEQAlloc(u->ni, 64, &u->teq));
    PT_OK(PtlEQAlloc(u->ni, 64, &u->ieq));
    ptl_md_t md = cu_md(v->sbuf, sizeof v->sbuf, 0, u->ieq, PTL_CT_NONE);
    PT_OK(PtlMDBind(u->ni, &md, &u->md));
    PT_OK(PtlPTAlloc(u->ni, PTL_PT_FLOWCTRL, u->teq, PTL_PT_ANY, &u->fc));
    PT_OK(PtlPTAlloc(u->ni, 0, u->teq, PTL_PT_ANY, &u->plain));
    unsigned int o = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_MANAGE_LOCAL;
    ptl_me_t me = cu_me_phys(v->rbuf, 1024, o | PTL_ME_EVENT_FLOWCTRL_DISABLE, 0, ~0ull);
    PT_OK(PtlMEAppend(u->ni, u->fc, &me, PTL_OVERFLOW_LIST, NULL, &u->h_fc));
    me = cu_me_phys(v->rbuf + 2048, 1024, o, 0, ~0ull);
    PT_OK(PtlMEAppend(u->ni, u->plain, &me, PTL_OVERFLOW_LIST, NULL, &u->h_plain));
}

static void uh_round(env_t *v, uh_env_t *u, ptl_pt_index_t p, ptl_ni_fail_t third)
{
    ptl_process_t to = v->c->phys[v->other];
    for (int i = 0; i < 2; i++)
        CHECK_EQ(cu_put_ack(u->md, u->ieq, 0, 8, to, p, i, 0, i).ni_fail_type, PTL_NI_OK);
    CHECK_EQ(cu_put_ack(u->md, u->ieq, 0, 8, to, p, 2, 0, 2).ni_fail_type, third);
}

static void flowctl_unexpected(env_t *v)
{
    uh_env_t u;
    uh_setup(v, &u);
    pt_barrier(v->c);
    uh_round(v, &u, u.fc, PTL_NI_PT_DISABLED);
    uh_round(v, &u, u.plain, PTL_NI_DROPPED); /* per-PT header count: 2 more fit */
    pt_barrier(v->c);
    for (int i = 0; i < 4; i++) {
        ptl_event_t e = pt_expect(u.teq, PTL_EVENT_PUT);
        CHECK_EQ(e.ptl_list, PTL_OVERFLOW_LIST);
        CHECK_EQ(e.pt_index, i < 2 ? u.fc : u.plain);
    }
    cu_expect_empty(u.teq); /* FLOWCTRL_DISABLE: no PT_DISABLED event */
    /* consuming the headers frees the slots; after PtlPTEnable puts land again */
    ptl_handle_me_t h;
    ptl_me_t me = cu_me_phys(NULL, 0, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE |
                             PTL_ME_EVENT_OVER_DISABLE | PTL_ME_USE_ONCE, 0, ~0ull);
    for (int i = 0; i < 2; i++) PT_OK(PtlMEAppend(u.ni, u.fc, &me, PTL_PRIORITY_LIST, NULL, &h));
    for (int i = 0; i < 2; i++) pt_expect(u.teq, PTL_EVENT_AUTO_UNLINK);
    PT_OK(PtlPTEnable(u.ni, u.fc));
    pt_barrier(v->c);
    ptl_process_t to = v->c->phys[v->other];
    CHECK_EQ(cu_put_ack(u.md, u.ieq, 0, 8, to, u.fc, 9, 0, 9).ni_fail_type, PTL_NI_OK);
    pt_barrier(v->c);
    pt_expect(u.teq, PTL_EVENT_PUT);
    PT_OK(PtlNIFini(u.ni));
}

int main(void)
{
    env_t *v = calloc(1, sizeof *v);
    pt_ctx_t c;
    CHECK(v != NULL);
    pt_init(&c, PTL_NI_MATCHING | PTL_NI_LOGICAL);
    CHECK(c.size == 2);
    v->c = &c;
    v->other = 1 - c.rank;
    v->to = pt_id(&c, v->other);
    PT_OK(PtlEQAlloc(c.ni, 256, &v->teq));
    PT_OK(PtlEQAlloc(c.ni, 256, &v->ieq));
    ptl_md_t md = cu_md(v->sbuf, sizeof v->sbuf, 0, v->ieq, PTL_CT_NONE);
    PT_OK(PtlMDBind(c.ni, &md, &v->md));
    alloc_any_and_specific(v);
    alloc_errors(v);
    alloc_full();
    free_with_entries(v);
    disable_enable(v);
    alloc_disabled(v);
    flowctl_no_match(v);
    flowctl_eq_full(v);
    flowctl_unexpected(v);
    PT_OK(PtlMDRelease(v->md));
    PT_OK(PtlEQFree(v->teq));
    PT_OK(PtlEQFree(v->ieq));
    pt_fini(&c);
    free(v);
    t_done("conf_pt_test");
    return 0;
}
