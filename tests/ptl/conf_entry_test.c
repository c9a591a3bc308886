/* Conformance: list entries and matching list entries (PORTALS4_API.md §8,
 * §9.1-§9.3, §19): the matching rule on logical and physical NIs, list order,
 * non-matching NIs, every entry option (use-once, manage-local with min_free,
 * no-truncate, ack-disable, op and uid checks, event and counting options),
 * IOVEC entries and MDs, and argument errors.  2 ranks, symmetric: each rank
 * is the initiator towards the other and the target of the other. */
#include "conf_util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OP_PG (PTL_ME_OP_PUT | PTL_ME_OP_GET)
#define NOLINK PTL_ME_EVENT_LINK_DISABLE
#define RBUF 65536

typedef struct env {
    pt_ctx_t *c;
    int other;
    ptl_process_t to;
    ptl_handle_eq_t teq, ieq;
    ptl_handle_md_t md, gmd;
    ptl_pt_index_t pt;
    char *sbuf, *rbuf, *gbuf;
} env_t;

static ptl_handle_me_t append(env_t *v, ptl_me_t me, void *user_ptr)
{
    ptl_handle_me_t h;
    PT_OK(PtlMEAppend(v->c->ni, v->pt, &me, PTL_PRIORITY_LIST, user_ptr, &h));
    return h;
}

static ptl_ni_fail_t put_fail(env_t *v, ptl_size_t len, ptl_match_bits_t bits, ptl_size_t roff,
                              ptl_hdr_data_t hdr)
{
    return cu_put_ack(v->md, v->ieq, 0, len, v->to, v->pt, bits, roff, hdr).ni_fail_type;
}

static ptl_event_t expect_put(env_t *v, void *user_ptr)
{
    ptl_event_t e = pt_expect(v->teq, PTL_EVENT_PUT);
    CHECK_MSG(e.user_ptr == user_ptr, "PUT on entry %p, expected %p", e.user_ptr, user_ptr);
    return e;
}

static void unlink_all(ptl_handle_me_t *h, int n)
{
    for (int i = 0; i < n; i++) PT_OK(PtlMEUnlink(h[i]));
}

/* ---- the matching rule ---------------------------------------------------------------- */

static void match_logical(env_t *v)
{
    char *b = v->rbuf;
    ptl_me_t e2 = cu_me(b + 64, 64, PTL_ME_OP_PUT | NOLINK, 0, ~0ull);
    e2.match_id.rank = (ptl_rank_t)v->c->rank; /* only messages from myself */
    ptl_me_t e4 = cu_me(b + 192, 64, PTL_ME_OP_PUT | NOLINK, 0x999, 0);
    e4.match_id.rank = (ptl_rank_t)v->other;
    ptl_handle_me_t h[6] = {
        append(v, cu_me(b, 64, PTL_ME_OP_PUT | NOLINK, 0x10, 0x0f), (void *)1),
        append(v, e2, (void *)2),
        append(v, cu_me(b + 128, 64, PTL_ME_OP_PUT | NOLINK, 0x100, 0), (void *)3),
        append(v, e4, (void *)4),
        append(v, cu_me(b + 256, 64, PTL_ME_OP_PUT | NOLINK, 0x777, 0), (void *)6),
        append(v, cu_me(b + 320, 64, PTL_ME_OP_PUT | NOLINK, 0x777, 0), (void *)7),
    };
    pt_barrier(v->c);
    static const ptl_match_bits_t bits[] = {0x13, 0x1f, 0x20, 0x100, 0x999, 0x777};
    for (int i = 0; i < 6; i++)
        CHECK_EQ(put_fail(v, 8, bits[i], 0, i), i == 2 ? PTL_NI_DROPPED : PTL_NI_OK);
    pt_barrier(v->c);
    static const uintptr_t want[] = {1, 1, 3, 4, 6};
    for (int i = 0; i < 5; i++) {
        ptl_event_t e = expect_put(v, (void *)want[i]);
        CHECK_EQ(e.initiator.rank, v->other);
        CHECK_EQ(e.match_bits, bits[i < 2 ? i : i + 1]);
    }
    cu_expect_empty(v->teq);
    /* from myself the rank-filtered entry comes first */
    ptl_event_t a = cu_put_ack(v->md, v->ieq, 0, 8, pt_id(v->c, v->c->rank), v->pt, 0x999, 0, 0);
    CHECK_EQ(a.ni_fail_type, PTL_NI_OK);
    CHECK_EQ(expect_put(v, (void *)2).initiator.rank, v->c->rank);
    pt_barrier(v->c);
    unlink_all(h, 6);
}

static ptl_me_t phys_me(env_t *v, ptl_nid_t nid, ptl_pid_t pid, int slot)
{
    ptl_me_t me = cu_me_phys(v->rbuf + 64 * slot, 64, PTL_ME_OP_PUT | NOLINK, 0, ~0ull);
    me.match_id.phys.nid = nid;
    me.match_id.phys.pid = pid;
    return me;
}

static void match_physical(env_t *v)
{
    ptl_handle_ni_t ni;
    ptl_handle_eq_t teq, ieq;
    ptl_handle_md_t md;
    ptl_pt_index_t p;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL,
                    NULL, &ni));
    PT_OK(PtlEQAlloc(ni, 64, &teq));
    PT_OK(PtlEQAlloc(ni, 64, &ieq));
    ptl_md_t d = cu_md(v->sbuf, 64, 0, ieq, PTL_CT_NONE);
    PT_OK(PtlMDBind(ni, &d, &md));
    PT_OK(PtlPTAlloc(ni, 0, teq, PTL_PT_ANY, &p));
    ptl_process_t me = v->c->phys[v->c->rank], peer = v->c->phys[v->other];
    /* a nid that is neither ours nor the peer's (they differ over two hosts) */
    ptl_nid_t nobody = (me.phys.nid > peer.phys.nid ? me.phys.nid : peer.phys.nid) + 1;
    const ptl_me_t list[4] = {phys_me(v, nobody, PTL_PID_ANY, 0),
                              phys_me(v, PTL_NID_ANY, me.phys.pid, 1),
                              phys_me(v, peer.phys.nid, peer.phys.pid, 2),
                              phys_me(v, PTL_NID_ANY, PTL_PID_ANY, 3)};
    ptl_handle_me_t h;
    for (int i = 0; i < 4; i++)
        PT_OK(PtlMEAppend(ni, p, &list[i], PTL_PRIORITY_LIST, (void *)(uintptr_t)i, &h));
    pt_barrier(v->c);
    CHECK_EQ(cu_put_ack(md, ieq, 0, 8, peer, p, 1, 0, 0).ni_fail_type, PTL_NI_OK);
    pt_barrier(v->c);
    ptl_event_t e = pt_expect(teq, PTL_EVENT_PUT);
    CHECK(e.user_ptr == (void *)2);
    CHECK(e.initiator.phys.nid == peer.phys.nid && e.initiator.phys.pid == peer.phys.pid);
    /* from myself: entry 1 (pid wildcard match on my pid) */
    CHECK_EQ(cu_put_ack(md, ieq, 0, 8, me, p, 1, 0, 0).ni_fail_type, PTL_NI_OK);
    CHECK(pt_expect(teq, PTL_EVENT_PUT).user_ptr == (void *)1);
    pt_barrier(v->c);
    PT_OK(PtlNIFini(ni));
}

/* Non-matching NI: the first LE takes the message whatever its match bits. */
static void match_none(env_t *v)
{
    ptl_handle_ni_t ni;
    ptl_handle_eq_t teq, ieq;
    ptl_handle_md_t md;
    ptl_pt_index_t p;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL,
                    NULL, &ni));
    PT_OK(PtlEQAlloc(ni, 64, &teq));
    PT_OK(PtlEQAlloc(ni, 64, &ieq));
    ptl_md_t d = cu_md(v->sbuf, 64, 0, ieq, PTL_CT_NONE);
    PT_OK(PtlMDBind(ni, &d, &md));
    PT_OK(PtlPTAlloc(ni, 0, teq, PTL_PT_ANY, &p));
    ptl_le_t l1 = cu_le(v->rbuf, 64, PTL_LE_OP_PUT | PTL_LE_USE_ONCE | NOLINK);
    ptl_le_t l2 = cu_le(v->rbuf + 64, 64, PTL_LE_OP_PUT | NOLINK);
    ptl_handle_le_t h1, h2;
    PT_OK(PtlLEAppend(ni, p, &l1, PTL_PRIORITY_LIST, (void *)1, &h1));
    PT_OK(PtlLEAppend(ni, p, &l2, PTL_PRIORITY_LIST, (void *)2, &h2));
    ptl_process_t peer = v->c->phys[v->other];
    t_fill(v->sbuf, 64, 31);
    pt_barrier(v->c);
    CHECK_EQ(cu_put_ack(md, ieq, 0, 16, peer, p, 0xdead, 3, 0).ni_fail_type, PTL_NI_OK);
    CHECK_EQ(cu_put_ack(md, ieq, 0, 16, peer, p, 0xbeef, 0, 0).ni_fail_type, PTL_NI_OK);
    pt_barrier(v->c);
    ptl_event_t e = pt_expect(teq, PTL_EVENT_PUT);
    CHECK(e.user_ptr == (void *)1 && e.start == v->rbuf + 3);
    CHECK(t_verify(v->rbuf + 3, 16, 31) == (size_t)-1);
    CHECK(pt_expect(teq, PTL_EVENT_AUTO_UNLINK).user_ptr == (void *)1);
    CHECK(pt_expect(teq, PTL_EVENT_PUT).user_ptr == (void *)2);
    CHECK_EQ(PtlLEUnlink(h1), PTL_ARG_INVALID);
    PT_OK(PtlLEUnlink(h2));
    pt_barrier(v->c);
    PT_OK(PtlNIFini(ni));
}

/* ---- options ------------------------------------------------------------------------------ */

static void use_once(env_t *v)
{
    ptl_handle_me_t h = append(v, cu_me(v->rbuf, 64, PTL_ME_OP_PUT | PTL_ME_USE_ONCE, 0, 0),
                               (void *)7);
    ptl_event_t l = pt_expect(v->teq, PTL_EVENT_LINK);
    CHECK(l.user_ptr == (void *)7 && l.pt_index == v->pt && l.ni_fail_type == PTL_NI_OK);
    pt_barrier(v->c);
    CHECK_EQ(put_fail(v, 8, 0, 0, 0), PTL_NI_OK);
    CHECK_EQ(put_fail(v, 8, 0, 0, 0), PTL_NI_DROPPED); /* gone */
    pt_barrier(v->c);
    expect_put(v, (void *)7);
    ptl_event_t u = pt_expect(v->teq, PTL_EVENT_AUTO_UNLINK);
    CHECK(u.user_ptr == (void *)7 && u.pt_index == v->pt && u.ni_fail_type == PTL_NI_OK);
    cu_expect_empty(v->teq);
    CHECK_EQ(PtlMEUnlink(h), PTL_ARG_INVALID);
    /* an explicit unlink posts nothing; a second one is refused */
    h = append(v, cu_me(v->rbuf, 64, PTL_ME_OP_PUT | NOLINK, 0, 0), NULL);
    PT_OK(PtlMEUnlink(h));
    CHECK_EQ(PtlMEUnlink(h), PTL_ARG_INVALID);
    cu_expect_empty(v->teq);
}

static void manage_local(env_t *v)
{
    ptl_me_t me = cu_me(v->rbuf, 64, PTL_ME_OP_PUT | NOLINK | PTL_ME_MANAGE_LOCAL, 0, 0);
    me.min_free = 20;
    ptl_handle_me_t h = append(v, me, (void *)8);
    pt_barrier(v->c);
    for (int i = 0; i < 3; i++) {
        t_fill(v->sbuf, 16, 100 + i);
        ptl_event_t a = cu_put_ack(v->md, v->ieq, 0, 16, v->to, v->pt, 0, 1000, i);
        CHECK_EQ(a.ni_fail_type, PTL_NI_OK);
        CHECK_EQ(a.mlength, 16);
        CHECK_EQ(a.remote_offset, 16 * i); /* offset used at the target */
    }
    CHECK_EQ(put_fail(v, 16, 0, 0, 0), PTL_NI_DROPPED); /* 64-48 < min_free: unlinked */
    pt_barrier(v->c);
    for (int i = 0; i < 3; i++) {
        ptl_event_t e = expect_put(v, (void *)8);
        CHECK(e.start == v->rbuf + 16 * i);
        CHECK_EQ(e.remote_offset, 1000); /* what the initiator asked for */
        CHECK(t_verify(v->rbuf + 16 * i, 16, 100 + i) == (size_t)-1);
    }
    pt_expect(v->teq, PTL_EVENT_AUTO_UNLINK);
    cu_expect_empty(v->teq);
    CHECK_EQ(PtlMEUnlink(h), PTL_ARG_INVALID);
    /* without min_free: truncation at the end, then zero-length matches */
    me.min_free = 0;
    me.length = 20;
    h = append(v, me, (void *)9);
    pt_barrier(v->c);
    static const ptl_size_t ml[] = {16, 4, 0};
    for (int i = 0; i < 3; i++)
        CHECK_EQ(cu_put_ack(v->md, v->ieq, 0, 16, v->to, v->pt, 0, 0, 0).mlength, ml[i]);
    pt_barrier(v->c);
    for (int i = 0; i < 3; i++) CHECK_EQ(expect_put(v, (void *)9).mlength, ml[i]);
    PT_OK(PtlMEUnlink(h));
}

static void no_truncate(env_t *v)
{
    ptl_handle_me_t h[2] = {
        append(v, cu_me(v->rbuf, 8, PTL_ME_OP_PUT | NOLINK | PTL_ME_NO_TRUNCATE, 0, 0),
               (void *)1),
        append(v, cu_me(v->rbuf + 64, 64, PTL_ME_OP_PUT | NOLINK, 0, 0), (void *)2)};
    pt_barrier(v->c);
    CHECK_EQ(cu_put_ack(v->md, v->ieq, 0, 16, v->to, v->pt, 0, 0, 0).mlength, 16);
    CHECK_EQ(cu_put_ack(v->md, v->ieq, 0, 8, v->to, v->pt, 0, 0, 0).mlength, 8);
    CHECK_EQ(cu_put_ack(v->md, v->ieq, 0, 4, v->to, v->pt, 0, 6, 0).mlength, 4);
    pt_barrier(v->c);
    CHECK_EQ(expect_put(v, (void *)2).rlength, 16); /* too long for entry 1 */
    CHECK_EQ(expect_put(v, (void *)1).mlength, 8);  /* fits exactly */
    CHECK(expect_put(v, (void *)2).start == v->rbuf + 64 + 6); /* 6+4 > 8 */
    unlink_all(h, 2);
}

/* ACK_DISABLE: no ACK event and no ack count, for every ack kind. */
static void ack_disable(env_t *v)
{
    ptl_handle_ct_t ict;
    ptl_handle_md_t md;
    PT_OK(PtlCTAlloc(v->c->ni, &ict));
    ptl_md_t d = cu_md(v->sbuf, 64, PTL_MD_EVENT_CT_ACK, v->ieq, ict);
    PT_OK(PtlMDBind(v->c->ni, &d, &md));
    ptl_handle_me_t h[2] = {
        append(v, cu_me(v->rbuf, 64, PTL_ME_OP_PUT | NOLINK | PTL_ME_ACK_DISABLE, 1, 0), NULL),
        append(v, cu_me(v->rbuf + 64, 64, PTL_ME_OP_PUT | NOLINK, 2, 0), NULL)};
    pt_barrier(v->c);
    static const ptl_ack_req_t kinds[] = {PTL_ACK_REQ, PTL_CT_ACK_REQ, PTL_OC_ACK_REQ};
    for (int i = 0; i < 3; i++) {
        PT_OK(PtlPut(md, 0, 8, kinds[i], v->to, v->pt, 1, 0, (void *)0x5eed, 0));
        pt_expect(v->ieq, PTL_EVENT_SEND);
    }
    /* a put acknowledged by the same target afterwards: earlier acks would be ahead */
    CHECK_EQ(cu_put_ack(md, v->ieq, 0, 8, v->to, v->pt, 2, 0, 0).ni_fail_type, PTL_NI_OK);
    cu_expect_empty(v->ieq);
    ptl_ct_event_t cv = cu_ct(ict);
    CHECK_EQ(cv.success, 1);
    CHECK_EQ(cv.failure, 0);
    pt_barrier(v->c);
    for (int i = 0; i < 4; i++) pt_expect(v->teq, PTL_EVENT_PUT);
    unlink_all(h, 2);
    PT_OK(PtlMDRelease(md));
    PT_OK(PtlCTFree(ict));
}

static void fetch_events(env_t *v, ptl_match_bits_t bits, ptl_ni_fail_t want)
{
    int64_t one = 1;
    memcpy(v->sbuf, &one, 8);
    PT_OK(PtlFetchAtomic(v->gmd, 0, v->md, 0, 8, v->to, v->pt, bits, 0, (void *)0x5eed, 0,
                         PTL_SUM, PTL_INT64_T));
    ptl_event_t ev[2];
    int reply = -1;
    for (int i = 0; i < 2; i++) {
        PT_OK(PtlEQWait(v->ieq, &ev[i]));
        if (ev[i].type == PTL_EVENT_REPLY) reply = i;
    }
    CHECK(reply >= 0 && ev[1 - reply].type == PTL_EVENT_SEND);
    CHECK_EQ(ev[reply].ni_fail_type, want);
}

static void op_violations(env_t *v)
{
    ptl_sr_value_t ops0 = cu_sr(v->c->ni, PTL_SR_OPERATION_VIOLATIONS);
    ptl_sr_value_t perm0 = cu_sr(v->c->ni, PTL_SR_PERMISSION_VIOLATIONS);
    memset(v->rbuf, 0, 256);
    ptl_handle_me_t h[4] = {
        append(v, cu_me(v->rbuf, 64, PTL_ME_OP_GET | NOLINK, 1, 0), (void *)1),
        append(v, cu_me(v->rbuf + 64, 64, OP_PG | NOLINK, 1, 0), (void *)2),
        append(v, cu_me(v->rbuf + 128, 64, PTL_ME_OP_PUT | NOLINK, 2, 0), (void *)3),
        append(v, cu_me(v->rbuf + 192, 64, OP_PG | NOLINK, 3, 0), (void *)4)};
    pt_barrier(v->c);
    CHECK_EQ(put_fail(v, 8, 1, 0, 0), PTL_NI_OP_VIOLATION); /* entry 2 is not tried */
    CHECK_EQ(cu_get_reply(v->gmd, v->ieq, 0, 8, v->to, v->pt, 2, 0).ni_fail_type,
             PTL_NI_OP_VIOLATION);
    PT_OK(PtlAtomic(v->md, 0, 8, PTL_ACK_REQ, v->to, v->pt, 1, 0, (void *)0x5eed, 0, PTL_SUM,
                    PTL_INT64_T));
    pt_expect(v->ieq, PTL_EVENT_SEND);
    CHECK_EQ(pt_expect(v->ieq, PTL_EVENT_ACK).ni_fail_type, PTL_NI_OP_VIOLATION);
    fetch_events(v, 2, PTL_NI_OP_VIOLATION); /* fetching needs OP_GET too */
    fetch_events(v, 3, PTL_NI_OK);
    CHECK_EQ(cu_get_reply(v->gmd, v->ieq, 0, 8, v->to, v->pt, 1, 0).ni_fail_type, PTL_NI_OK);
    pt_barrier(v->c);
    CHECK(pt_expect(v->teq, PTL_EVENT_FETCH_ATOMIC).user_ptr == (void *)4);
    CHECK(pt_expect(v->teq, PTL_EVENT_GET).user_ptr == (void *)1);
    cu_expect_empty(v->teq);
    CHECK_EQ(cu_sr(v->c->ni, PTL_SR_OPERATION_VIOLATIONS), ops0 + 4);
    CHECK_EQ(cu_sr(v->c->ni, PTL_SR_PERMISSION_VIOLATIONS), perm0);
    unlink_all(h, 4);
}

static void uid_check(env_t *v)
{
    ptl_uid_t uid;
    PT_OK(PtlGetUid(v->c->ni, &uid));
    ptl_me_t bad = cu_me(v->rbuf, 64, PTL_ME_OP_PUT | NOLINK, 5, 0);
    bad.uid = uid + 1;
    ptl_me_t good = cu_me(v->rbuf, 64, PTL_ME_OP_PUT | NOLINK, 6, 0);
    good.uid = uid;
    ptl_sr_value_t perm0 = cu_sr(v->c->ni, PTL_SR_PERMISSION_VIOLATIONS);
    ptl_handle_me_t h[2] = {append(v, bad, NULL), append(v, good, NULL)};
    pt_barrier(v->c);
    CHECK_EQ(put_fail(v, 8, 5, 0, 0), PTL_NI_PERM_VIOLATION);
    CHECK_EQ(put_fail(v, 8, 6, 0, 0), PTL_NI_OK);
    pt_barrier(v->c);
    CHECK_EQ(pt_expect(v->teq, PTL_EVENT_PUT).uid, uid);
    cu_expect_empty(v->teq);
    CHECK_EQ(cu_sr(v->c->ni, PTL_SR_PERMISSION_VIOLATIONS), perm0 + 1);
    unlink_all(h, 2);
}

/* LINK, COMM, SUCCESS and UNLINK event options; the CT still counts. */
static void event_options(env_t *v)
{
    ptl_handle_ct_t ct;
    PT_OK(PtlCTAlloc(v->c->ni, &ct));
    unsigned int base = PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM;
    static const unsigned int opt[4] = {
        PTL_ME_EVENT_LINK_DISABLE, PTL_ME_EVENT_COMM_DISABLE | NOLINK,
        PTL_ME_EVENT_SUCCESS_DISABLE | NOLINK,
        PTL_ME_EVENT_UNLINK_DISABLE | PTL_ME_USE_ONCE | NOLINK};
    ptl_handle_me_t h[4];
    for (int i = 0; i < 4; i++) {
        ptl_me_t me = cu_me(v->rbuf + 64 * i, 64, base | opt[i], (ptl_match_bits_t)i, 0);
        me.ct_handle = ct;
        h[i] = append(v, me, (void *)(uintptr_t)(10 + i));
    }
    cu_expect_empty(v->teq); /* no LINK for any of them */
    pt_barrier(v->c);
    for (int i = 0; i < 4; i++) CHECK_EQ(put_fail(v, 8, (ptl_match_bits_t)i, 0, 0), PTL_NI_OK);
    pt_barrier(v->c);
    pt_ct_reach(ct, 4);
    expect_put(v, (void *)10);
    expect_put(v, (void *)13); /* no AUTO_UNLINK after it */
    cu_expect_empty(v->teq);
    CHECK_EQ(PtlMEUnlink(h[3]), PTL_ARG_INVALID); /* it did unlink */
    unlink_all(h, 3);
    PT_OK(PtlCTFree(ct));
}

static void ct_bytes(env_t *v)
{
    ptl_handle_ct_t cb, ce;
    PT_OK(PtlCTAlloc(v->c->ni, &cb));
    PT_OK(PtlCTAlloc(v->c->ni, &ce));
    ptl_me_t mb = cu_me(v->rbuf, 256, OP_PG | NOLINK | PTL_ME_EVENT_CT_COMM |
                        PTL_ME_EVENT_CT_BYTES | PTL_ME_EVENT_COMM_DISABLE, 1, 0);
    mb.ct_handle = cb;
    ptl_me_t mc = cu_me(v->rbuf + 256, 256, OP_PG | NOLINK | PTL_ME_EVENT_CT_COMM |
                        PTL_ME_EVENT_COMM_DISABLE, 2, 0);
    mc.ct_handle = ce;
    ptl_handle_me_t h[2] = {append(v, mb, NULL), append(v, mc, NULL)};
    pt_barrier(v->c);
    put_fail(v, 100, 1, 0, 0);
    put_fail(v, 28, 1, 0, 0);
    cu_get_reply(v->gmd, v->ieq, 0, 50, v->to, v->pt, 1, 0);
    put_fail(v, 100, 2, 0, 0);
    cu_get_reply(v->gmd, v->ieq, 0, 50, v->to, v->pt, 2, 0);
    pt_barrier(v->c);
    pt_ct_reach(cb, 178);
    CHECK_EQ(cu_ct(cb).success, 178);
    CHECK_EQ(cu_ct(ce).success, 2);
    cu_expect_empty(v->teq);
    unlink_all(h, 2);
    PT_OK(PtlCTFree(cb));
    PT_OK(PtlCTFree(ce));
}

/* ---- IOVEC entries and MDs ----------------------------------------------------------------- */

static void iovec_small(env_t *v)
{
    char *r = v->rbuf;
    ptl_iovec_t tv[3] = {{r, 10}, {r + 100, 20}, {r + 200, 30}};
    ptl_iovec_t sv[2] = {{v->sbuf + 1000, 25}, {v->sbuf + 2000, 35}};
    ptl_iovec_t gv[2] = {{v->gbuf + 500, 7}, {v->gbuf + 600, 53}};
    ptl_me_t me = cu_me(tv, 3, OP_PG | NOLINK | PTL_IOVEC, 0, 0);
    ptl_handle_me_t h = append(v, me, NULL);
    ptl_handle_md_t smd, gmd;
    ptl_md_t d = cu_md(sv, 2, PTL_IOVEC, v->ieq, PTL_CT_NONE);
    PT_OK(PtlMDBind(v->c->ni, &d, &smd));
    d = cu_md(gv, 2, PTL_IOVEC, v->ieq, PTL_CT_NONE);
    PT_OK(PtlMDBind(v->c->ni, &d, &gmd));
    uint64_t seed = 500 + (uint64_t)v->c->rank;
    char stream[60];
    t_fill(stream, 60, seed);
    memcpy(v->sbuf + 1000, stream, 25);
    memcpy(v->sbuf + 2000, stream + 25, 35);
    pt_barrier(v->c);
    CHECK_EQ(cu_put_ack(smd, v->ieq, 0, 60, v->to, v->pt, 0, 0, 0).mlength, 60);
    pt_barrier(v->c);
    uint64_t in = 500 + (uint64_t)v->other;
    CHECK(t_verify_at(r, 10, in, 0) == (size_t)-1);
    CHECK(t_verify_at(r + 100, 20, in, 10) == (size_t)-1);
    CHECK(t_verify_at(r + 200, 30, in, 30) == (size_t)-1);
    CHECK_EQ(pt_expect(v->teq, PTL_EVENT_PUT).mlength, 60);
    /* read back bytes 5..54 of the peer's entry into two pieces of mine */
    CHECK_EQ(cu_get_reply(gmd, v->ieq, 3, 50, v->to, v->pt, 0, 5).mlength, 50);
    CHECK(t_verify_at(v->gbuf + 503, 4, seed, 5) == (size_t)-1);
    CHECK(t_verify_at(v->gbuf + 600, 46, seed, 9) == (size_t)-1);
    pt_expect(v->teq, PTL_EVENT_GET);
    pt_barrier(v->c);
    PT_OK(PtlMEUnlink(h));
    PT_OK(PtlMDRelease(smd));
    PT_OK(PtlMDRelease(gmd));
}

/* Bulk sizes (beyond the inline limit) into and out of an IOVEC entry. */
static void iovec_bulk(env_t *v)
{
    char *r = v->rbuf;
    ptl_iovec_t tv[3] = {{r, 4000}, {r + 8192, 5000}, {r + 20000, 3000}};
    ptl_handle_me_t h = append(v, cu_me(tv, 3, OP_PG | NOLINK | PTL_IOVEC, 0, 0), NULL);
    uint64_t seed = 900 + (uint64_t)v->c->rank, in = 900 + (uint64_t)v->other;
    t_fill(v->sbuf, 12000, seed);
    pt_barrier(v->c);
    CHECK_EQ(cu_put_ack(v->md, v->ieq, 0, 12000, v->to, v->pt, 0, 0, 0).mlength, 12000);
    pt_barrier(v->c);
    CHECK(t_verify_at(r, 4000, in, 0) == (size_t)-1);
    CHECK(t_verify_at(r + 8192, 5000, in, 4000) == (size_t)-1);
    CHECK(t_verify_at(r + 20000, 3000, in, 9000) == (size_t)-1);
    pt_expect(v->teq, PTL_EVENT_PUT);
    memset(v->gbuf, 0, 12000);
    CHECK_EQ(cu_get_reply(v->gmd, v->ieq, 0, 11000, v->to, v->pt, 0, 1000).mlength, 11000);
    CHECK(t_verify_at(v->gbuf, 11000, seed, 1000) == (size_t)-1);
    pt_expect(v->teq, PTL_EVENT_GET);
    pt_barrier(v->c);
    PT_OK(PtlMEUnlink(h));
}

/* A put or get larger than PTL_INLINE_MAX from/to an IOVEC MD whose range
 * spans more than one iovec element (the engine goes through a contiguous
 * bounce buffer, since the target needs one address to copy from/to). */
static void iovec_md_bulk(env_t *v)
{
    ptl_iovec_t sv[2] = {{v->sbuf, 6000}, {v->sbuf + 30000, 6000}};
    ptl_handle_md_t smd;
    ptl_md_t d = cu_md(sv, 2, PTL_IOVEC, v->ieq, PTL_CT_NONE);
    PT_OK(PtlMDBind(v->c->ni, &d, &smd));
    ptl_handle_me_t h = append(v, cu_me(v->rbuf, RBUF, OP_PG | NOLINK, 0, 0), NULL);
    pt_barrier(v->c);
    CHECK_EQ(cu_put_ack(smd, v->ieq, 0, 12000, v->to, v->pt, 0, 0, 0).mlength, 12000);
    CHECK_EQ(cu_get_reply(smd, v->ieq, 0, 12000, v->to, v->pt, 0, 0).mlength, 12000);
    pt_barrier(v->c);
    pt_expect(v->teq, PTL_EVENT_PUT);
    pt_expect(v->teq, PTL_EVENT_GET);
    PT_OK(PtlMEUnlink(h));
    PT_OK(PtlMDRelease(smd));
}

/* ---- argument errors ------------------------------------------------------------------------ */

static void le_me_kind_errors(env_t *v, ptl_handle_ni_t nm, ptl_pt_index_t nm_pt)
{
    ptl_handle_any_t h;
    ptl_me_t me = cu_me(v->rbuf, 8, PTL_ME_OP_PUT, 0, 0);
    ptl_le_t le = cu_le(v->rbuf, 8, PTL_LE_OP_PUT);
    CHECK_EQ(PtlMEAppend(nm, nm_pt, &me, PTL_PRIORITY_LIST, NULL, &h), PTL_ARG_INVALID);
    CHECK_EQ(PtlLEAppend(v->c->ni, v->pt, &le, PTL_PRIORITY_LIST, NULL, &h), PTL_ARG_INVALID);
    CHECK_EQ(PtlMESearch(nm, nm_pt, &me, PTL_SEARCH_ONLY, NULL), PTL_ARG_INVALID);
    CHECK_EQ(PtlLESearch(v->c->ni, v->pt, &le, PTL_SEARCH_ONLY, NULL), PTL_ARG_INVALID);
    static const unsigned int me_only[] = {PTL_ME_MANAGE_LOCAL, PTL_ME_NO_TRUNCATE,
                                           PTL_ME_MAY_ALIGN, PTL_ME_LOCAL_INC_UH_RLENGTH,
                                           1u << 30};
    for (int i = 0; i < 5; i++) {
        le.options = PTL_LE_OP_PUT | me_only[i];
        CHECK_EQ(PtlLEAppend(nm, nm_pt, &le, PTL_PRIORITY_LIST, NULL, &h), PTL_ARG_INVALID);
        CHECK_EQ(PtlLESearch(nm, nm_pt, &le, PTL_SEARCH_ONLY, NULL), PTL_ARG_INVALID);
    }
    me.options = PTL_ME_OP_PUT | (1u << 30);
    CHECK_EQ(PtlMEAppend(v->c->ni, v->pt, &me, PTL_PRIORITY_LIST, NULL, &h), PTL_ARG_INVALID);
    le.options = PTL_LE_APPEND_OPTIONS_MASK & ~(unsigned)PTL_IOVEC;
    PT_OK(PtlLEAppend(nm, nm_pt, &le, PTL_OVERFLOW_LIST, NULL, &h)); /* every LE bit is fine */
    PT_OK(PtlLEUnlink(h));
}

static void append_errors(env_t *v, ptl_handle_ni_t nm)
{
    ptl_handle_any_t h;
    ptl_handle_ct_t foreign;
    ptl_me_t me = cu_me(v->rbuf, 8, PTL_ME_OP_PUT, 0, 0);
    CHECK_EQ(PtlMEAppend(v->c->ni, v->pt, &me, 2, NULL, &h), PTL_ARG_INVALID);
    CHECK_EQ(PtlMEAppend(v->c->ni, v->pt, &me, 255, NULL, &h), PTL_ARG_INVALID);
    CHECK_EQ(PtlMEAppend(v->c->ni, 9999, &me, PTL_PRIORITY_LIST, NULL, &h), PTL_ARG_INVALID);
    CHECK_EQ(PtlMEAppend(v->c->ni, 40, &me, PTL_PRIORITY_LIST, NULL, &h), PTL_ARG_INVALID);
    CHECK_EQ(PtlMEAppend(v->c->ni, v->pt, NULL, PTL_PRIORITY_LIST, NULL, &h), PTL_ARG_INVALID);
    CHECK_EQ(PtlMEAppend(v->c->ni, v->pt, &me, PTL_PRIORITY_LIST, NULL, NULL), PTL_ARG_INVALID);
    CHECK_EQ(PtlMESearch(v->c->ni, v->pt, &me, 2, NULL), PTL_ARG_INVALID);
    PT_OK(PtlCTAlloc(nm, &foreign));
    me.ct_handle = foreign;
    me.options |= PTL_ME_EVENT_CT_COMM;
    CHECK_EQ(PtlMEAppend(v->c->ni, v->pt, &me, PTL_PRIORITY_LIST, NULL, &h), PTL_ARG_INVALID);
    /* SOS: PTL_INVALID_HANDLE as "no CT" while no counting option is set (§3.3) */
    me.ct_handle = PTL_INVALID_HANDLE;
    me.options = PTL_ME_OP_PUT | NOLINK;
    PT_OK(PtlMEAppend(v->c->ni, v->pt, &me, PTL_PRIORITY_LIST, NULL, &h));
    PT_OK(PtlMEUnlink(h));
    me.options |= PTL_ME_EVENT_CT_COMM;
    CHECK_EQ(PtlMEAppend(v->c->ni, v->pt, &me, PTL_PRIORITY_LIST, NULL, &h), PTL_ARG_INVALID);
}

static void errors(env_t *v)
{
    ptl_handle_ni_t nm;
    ptl_pt_index_t nm_pt;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL,
                    NULL, &nm));
    PT_OK(PtlPTAlloc(nm, 0, PTL_EQ_NONE, PTL_PT_ANY, &nm_pt));
    le_me_kind_errors(v, nm, nm_pt);
    append_errors(v, nm);
    PT_OK(PtlNIFini(nm));
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
    v.sbuf = calloc(1, RBUF);
    v.rbuf = calloc(1, RBUF);
    v.gbuf = calloc(1, RBUF);
    CHECK(v.sbuf && v.rbuf && v.gbuf);
    PT_OK(PtlEQAlloc(c.ni, 256, &v.teq));
    PT_OK(PtlEQAlloc(c.ni, 256, &v.ieq));
    ptl_md_t md = cu_md(v.sbuf, RBUF, 0, v.ieq, PTL_CT_NONE);
    PT_OK(PtlMDBind(c.ni, &md, &v.md));
    md.start = v.gbuf;
    PT_OK(PtlMDBind(c.ni, &md, &v.gmd));
    PT_OK(PtlPTAlloc(c.ni, 0, v.teq, PTL_PT_ANY, &v.pt));
    match_logical(&v);
    match_physical(&v);
    match_none(&v);
    use_once(&v);
    manage_local(&v);
    no_truncate(&v);
    ack_disable(&v);
    op_violations(&v);
    uid_check(&v);
    event_options(&v);
    ct_bytes(&v);
    iovec_small(&v);
    iovec_bulk(&v);
    iovec_md_bulk(&v);
    errors(&v);
    pt_barrier(&c);
    PT_OK(PtlPTFree(c.ni, v.pt));
    PT_OK(PtlMDRelease(v.md));
    PT_OK(PtlMDRelease(v.gmd));
    PT_OK(PtlEQFree(v.teq));
    PT_OK(PtlEQFree(v.ieq));
    pt_fini(&c);
    free(v.sbuf);
    free(v.rbuf);
    free(v.gbuf);
    t_done("conf_entry_test");
    return 0;
}
