/* Conformance: library init, NIs, limits, identities and maps, handles,
 * status registers, bundles (PORTALS4_API.md §5, §15, §19).
 * Every rank runs the same checks; the map checks need 2 ranks. */
#include "ptest.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BAD_BIT (1u << 30)

static const ptl_process_t ANY_ID = {.rank = PTL_RANK_ANY};
static char g_buf[256];

/* ---- PTL_NO_INIT before PtlInit ------------------------------------------------------ */

static void no_init_ni_calls(void)
{
    ptl_handle_ni_t ni;
    ptl_sr_value_t sr;
    ptl_process_t id;
    ptl_uid_t uid;
    ptl_size_t n;
    ptl_handle_any_t h = 0x1000;
    CHECK_EQ(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL,
                       NULL, &ni), PTL_NO_INIT);
    CHECK_EQ(PtlNIFini(h), PTL_NO_INIT);
    CHECK_EQ(PtlNIStatus(h, PTL_SR_DROP_COUNT, &sr), PTL_NO_INIT);
    CHECK_EQ(PtlNIHandle(h, &ni), PTL_NO_INIT);
    CHECK_EQ(PtlSetMap(h, 1, &id), PTL_NO_INIT);
    CHECK_EQ(PtlGetMap(h, 1, &id, &n), PTL_NO_INIT);
    CHECK_EQ(PtlGetUid(h, &uid), PTL_NO_INIT);
    CHECK_EQ(PtlGetId(h, &id), PTL_NO_INIT);
    CHECK_EQ(PtlGetPhysId(h, &id), PTL_NO_INIT);
    CHECK_EQ(PtlStartBundle(h), PTL_NO_INIT);
    CHECK_EQ(PtlEndBundle(h), PTL_NO_INIT);
}

static void no_init_pt_md_entry_calls(void)
{
    ptl_handle_any_t h = 0x1000;
    ptl_pt_index_t pt;
    ptl_md_t md = {.eq_handle = PTL_EQ_NONE, .ct_handle = PTL_CT_NONE};
    ptl_me_t me = {.ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY};
    ptl_le_t le = {.ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY};
    ptl_handle_any_t out;
    CHECK_EQ(PtlPTAlloc(h, 0, PTL_EQ_NONE, PTL_PT_ANY, &pt), PTL_NO_INIT);
    CHECK_EQ(PtlPTFree(h, 0), PTL_NO_INIT);
    CHECK_EQ(PtlPTEnable(h, 0), PTL_NO_INIT);
    CHECK_EQ(PtlPTDisable(h, 0), PTL_NO_INIT);
    CHECK_EQ(PtlMDBind(h, &md, &out), PTL_NO_INIT);
    CHECK_EQ(PtlMDRelease(h), PTL_NO_INIT);
    CHECK_EQ(PtlMEAppend(h, 0, &me, PTL_PRIORITY_LIST, NULL, &out), PTL_NO_INIT);
    CHECK_EQ(PtlLEAppend(h, 0, &le, PTL_PRIORITY_LIST, NULL, &out), PTL_NO_INIT);
    CHECK_EQ(PtlMEUnlink(h), PTL_NO_INIT);
    CHECK_EQ(PtlLEUnlink(h), PTL_NO_INIT);
    CHECK_EQ(PtlMESearch(h, 0, &me, PTL_SEARCH_ONLY, NULL), PTL_NO_INIT);
    CHECK_EQ(PtlLESearch(h, 0, &le, PTL_SEARCH_ONLY, NULL), PTL_NO_INIT);
}

static void no_init_eq_ct_calls(void)
{
    ptl_handle_any_t h = 0x1000, out;
    ptl_event_t ev;
    unsigned int which;
    ptl_ct_event_t cv = {1, 0};
    ptl_size_t test = 1;
    CHECK_EQ(PtlEQAlloc(h, 10, &out), PTL_NO_INIT);
    CHECK_EQ(PtlEQFree(h), PTL_NO_INIT);
    CHECK_EQ(PtlEQGet(h, &ev), PTL_NO_INIT);
    CHECK_EQ(PtlEQWait(h, &ev), PTL_NO_INIT);
    CHECK_EQ(PtlEQPoll(&h, 1, 0, &ev, &which), PTL_NO_INIT);
    CHECK_EQ(PtlCTAlloc(h, &out), PTL_NO_INIT);
    CHECK_EQ(PtlCTFree(h), PTL_NO_INIT);
    CHECK_EQ(PtlCTGet(h, &cv), PTL_NO_INIT);
    CHECK_EQ(PtlCTWait(h, 1, &cv), PTL_NO_INIT);
    CHECK_EQ(PtlCTPoll(&h, &test, 1, 0, &cv, &which), PTL_NO_INIT);
    CHECK_EQ(PtlCTSet(h, cv), PTL_NO_INIT);
    CHECK_EQ(PtlCTInc(h, cv), PTL_NO_INIT);
    CHECK_EQ(PtlCTCancelTriggered(h), PTL_NO_INIT);
}

static void no_init_xfer_calls(void)
{
    ptl_handle_any_t h = 0x1000;
    uint64_t operand = 0;
    ptl_ct_event_t cv = {1, 0};
    CHECK_EQ(PtlPut(h, 0, 8, PTL_NO_ACK_REQ, ANY_ID, 0, 0, 0, NULL, 0), PTL_NO_INIT);
    CHECK_EQ(PtlGet(h, 0, 8, ANY_ID, 0, 0, 0, NULL), PTL_NO_INIT);
    CHECK_EQ(PtlAtomic(h, 0, 8, PTL_NO_ACK_REQ, ANY_ID, 0, 0, 0, NULL, 0, PTL_SUM, PTL_INT64_T),
             PTL_NO_INIT);
    CHECK_EQ(PtlFetchAtomic(h, 0, h, 0, 8, ANY_ID, 0, 0, 0, NULL, 0, PTL_SUM, PTL_INT64_T),
             PTL_NO_INIT);
    CHECK_EQ(PtlSwap(h, 0, h, 0, 8, ANY_ID, 0, 0, 0, NULL, 0, &operand, PTL_SWAP, PTL_INT64_T),
             PTL_NO_INIT);
    CHECK_EQ(PtlTriggeredPut(h, 0, 8, PTL_NO_ACK_REQ, ANY_ID, 0, 0, 0, NULL, 0, h, 1),
             PTL_NO_INIT);
    CHECK_EQ(PtlTriggeredGet(h, 0, 8, ANY_ID, 0, 0, 0, NULL, h, 1), PTL_NO_INIT);
    CHECK_EQ(PtlTriggeredCTInc(h, cv, h, 1), PTL_NO_INIT);
    CHECK_EQ(PtlTriggeredCTSet(h, cv, h, 1), PTL_NO_INIT);
    CHECK_EQ(PtlAtomicSync(), PTL_NO_INIT);
}

static void no_init_all(void)
{
    no_init_ni_calls();
    no_init_pt_md_entry_calls();
    no_init_eq_ct_calls();
    no_init_xfer_calls();
}

/* ---- PtlInit nesting, NIInit options, NI reference counts, four kinds --------------- */

static void init_nesting(pt_ctx_t *c)
{
    ptl_uid_t uid;
    PT_OK(PtlInit()); /* count 2 */
    PtlFini();        /* count 1: still initialised */
    PT_OK(PtlGetUid(c->ni, &uid));
    CHECK_EQ(uid, (ptl_uid_t)geteuid());
}

static void ni_bad_options(void)
{
    static const unsigned int bad[] = {
        0,
        PTL_NI_MATCHING | PTL_NI_NO_MATCHING | PTL_NI_LOGICAL,
        PTL_NI_MATCHING | PTL_NI_LOGICAL | PTL_NI_PHYSICAL,
        PTL_NI_MATCHING | PTL_NI_NO_MATCHING | PTL_NI_LOGICAL | PTL_NI_PHYSICAL,
        ~PTL_NI_INIT_OPTIONS_MASK,
        PTL_NI_MATCHING | PTL_NI_LOGICAL | 0x10u,
        PTL_NI_MATCHING,
        PTL_NI_LOGICAL,
    };
    ptl_handle_ni_t ni;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ(PtlNIInit(PTL_IFACE_DEFAULT, bad[i], PTL_PID_ANY, NULL, NULL, &ni),
                 PTL_ARG_INVALID);
    CHECK_EQ(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL,
                       NULL, NULL), PTL_ARG_INVALID);
}

/* Same kind again: same handle, actual = existing limits, one more reference. */
static void ni_refcount(pt_ctx_t *c)
{
    ptl_ni_limits_t want = {.max_entries = 7, .max_pt_index = 5}, got;
    ptl_handle_ni_t ni2;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, c->options, PTL_PID_ANY, &want, &got, &ni2));
    CHECK(ni2 == c->ni);
    CHECK(PtlHandleIsEqual(ni2, c->ni));
    CHECK(got.max_entries != 7 && got.max_pt_index >= 63); /* desired ignored */
    PT_OK(PtlNIFini(ni2)); /* drops the extra reference only */
    ptl_process_t id;
    PT_OK(PtlGetId(c->ni, &id));
    CHECK_EQ(id.rank, (ptl_rank_t)c->rank);
}

static void ni_four_kinds(pt_ctx_t *c)
{
    static const unsigned int kinds[4] = {
        PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL,
        PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL};
    ptl_handle_ni_t ni[4];
    ptl_process_t phys[4];
    for (int k = 0; k < 4; k++) {
        PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, kinds[k], PTL_PID_ANY, NULL, NULL, &ni[k]));
        PT_OK(PtlGetPhysId(ni[k], &phys[k]));
        CHECK(phys[k].phys.nid == c->phys[c->rank].phys.nid &&
              phys[k].phys.pid == c->phys[c->rank].phys.pid);
        for (int j = 0; j < k; j++) CHECK(!PtlHandleIsEqual(ni[j], ni[k]));
    }
    CHECK(ni[0] == c->ni);
    for (int k = 1; k < 4; k++) {
        PT_OK(PtlNIFini(ni[k]));
        CHECK_EQ(PtlNIFini(ni[k]), PTL_ARG_INVALID); /* NIFini twice: stale */
        ptl_uid_t uid;
        CHECK_EQ(PtlGetUid(ni[k], &uid), PTL_ARG_INVALID);
    }
    PT_OK(PtlNIFini(ni[0])); /* the extra reference of c->ni */
}

/* ---- limits: clamped, echoed, enforced ------------------------------------------------ */

static const ptl_ni_limits_t small_limits = {
    .max_entries = 5, .max_unexpected_headers = 4, .max_mds = 4, .max_cts = 4, .max_eqs = 4,
    .max_pt_index = 3, .max_iovecs = 4, .max_list_size = 3, .max_triggered_ops = 4,
    .max_msg_size = 4, .max_atomic_size = 4, .max_fetch_atomic_size = 8,
    .max_volatile_size = 8};

static void limits_echoed(const ptl_ni_limits_t *a)
{
    CHECK_EQ(a->max_entries, 5);
    CHECK_EQ(a->max_unexpected_headers, 4);
    CHECK_EQ(a->max_mds, 4);
    CHECK_EQ(a->max_cts, 4);
    CHECK_EQ(a->max_eqs, 4);
    CHECK_EQ(a->max_pt_index, 3);
    CHECK_EQ(a->max_iovecs, 4);
    CHECK_EQ(a->max_list_size, 3);
    CHECK_EQ(a->max_triggered_ops, 4);
    CHECK_EQ(a->max_msg_size, 4);
    CHECK_EQ(a->max_atomic_size, 4);
    CHECK_EQ(a->max_fetch_atomic_size, 8);
    CHECK_EQ(a->max_volatile_size, 8);
}

static void limits_huge_clamp(void)
{
    ptl_ni_limits_t want = {
        .max_entries = INT_MAX, .max_unexpected_headers = INT_MAX, .max_mds = INT_MAX,
        .max_cts = INT_MAX, .max_eqs = INT_MAX, .max_pt_index = INT_MAX,
        .max_iovecs = INT_MAX, .max_list_size = INT_MAX, .max_triggered_ops = INT_MAX,
        .max_msg_size = PTL_SIZE_MAX, .max_atomic_size = PTL_SIZE_MAX,
        .max_fetch_atomic_size = PTL_SIZE_MAX, .max_waw_ordered_size = PTL_SIZE_MAX,
        .max_war_ordered_size = PTL_SIZE_MAX, .max_volatile_size = PTL_SIZE_MAX,
        .features = ~0u};
    ptl_ni_limits_t a;
    ptl_handle_ni_t ni;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, &want,
                    &a, &ni));
    CHECK(a.max_entries >= 1024 && a.max_mds >= 1024 && a.max_pt_index >= 63);
    CHECK(a.max_msg_size >= ((ptl_size_t)1 << 32)); /* clamped, not wrapped to 0 */
    CHECK(a.max_atomic_size >= 32 && a.max_fetch_atomic_size >= 32 && a.max_volatile_size >= 32);
    CHECK((a.features & ~(unsigned)(PTL_TARGET_BIND_INACCESSIBLE | PTL_TOTAL_DATA_ORDERING |
                                    PTL_COHERENT_ATOMICS)) == 0);
    PT_OK(PtlNIFini(ni));
}

static void limits_objects(ptl_handle_ni_t ni, ptl_process_t self)
{
    ptl_handle_md_t md[5];
    ptl_handle_eq_t eq[5];
    ptl_handle_ct_t ct[5];
    ptl_md_t d = {.start = g_buf, .length = 64, .eq_handle = PTL_EQ_NONE, .ct_handle = PTL_CT_NONE};
    for (int i = 0; i < 4; i++) {
        PT_OK(PtlMDBind(ni, &d, &md[i]));
        PT_OK(PtlEQAlloc(ni, 8, &eq[i]));
        PT_OK(PtlCTAlloc(ni, &ct[i]));
    }
    CHECK_EQ(PtlMDBind(ni, &d, &md[4]), PTL_NO_SPACE);
    CHECK_EQ(PtlEQAlloc(ni, 8, &eq[4]), PTL_NO_SPACE);
    CHECK_EQ(PtlCTAlloc(ni, &ct[4]), PTL_NO_SPACE);
    /* size limits on data movement */
    CHECK_EQ(PtlPut(md[0], 0, 5, PTL_NO_ACK_REQ, self, 0, 0, 0, NULL, 0), PTL_ARG_INVALID);
    CHECK_EQ(PtlGet(md[0], 0, 5, self, 0, 0, 0, NULL), PTL_ARG_INVALID);
    CHECK_EQ(PtlAtomic(md[0], 0, 8, PTL_NO_ACK_REQ, self, 0, 0, 0, NULL, 0, PTL_SUM,
                       PTL_INT64_T), PTL_ARG_INVALID);
    /* triggered operations per CT */
    ptl_ct_event_t one = {1, 0};
    for (int i = 0; i < 4; i++) PT_OK(PtlTriggeredCTInc(ct[1], one, ct[0], 100));
    CHECK_EQ(PtlTriggeredCTInc(ct[1], one, ct[0], 100), PTL_NO_SPACE);
    PT_OK(PtlCTCancelTriggered(ct[0]));
    PT_OK(PtlTriggeredCTInc(ct[1], one, ct[0], 100)); /* room again */
    PT_OK(PtlCTFree(ct[0]));
    PT_OK(PtlCTAlloc(ni, &ct[0])); /* a freed CT gives its slot back */
    /* IOVEC longer than max_iovecs */
    ptl_iovec_t iov[5] = {{g_buf, 1}, {g_buf, 1}, {g_buf, 1}, {g_buf, 1}, {g_buf, 1}};
    PT_OK(PtlMDRelease(md[3]));
    ptl_md_t dv = {.start = iov, .length = 5, .options = PTL_IOVEC, .eq_handle = PTL_EQ_NONE,
                   .ct_handle = PTL_CT_NONE};
    CHECK_EQ(PtlMDBind(ni, &dv, &md[3]), PTL_ARG_INVALID);
    dv.length = 4;
    PT_OK(PtlMDBind(ni, &dv, &md[3]));
}

static void limits_pts(ptl_handle_ni_t ni)
{
    ptl_pt_index_t pt;
    for (ptl_pt_index_t i = 0; i < 4; i++) {
        PT_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &pt));
        CHECK_EQ(pt, i);
    }
    CHECK_EQ(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &pt), PTL_PT_FULL);
    CHECK_EQ(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 4, &pt), PTL_ARG_INVALID);
    CHECK_EQ(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 2, &pt), PTL_PT_IN_USE);
}

static void limits_entries(ptl_handle_ni_t ni)
{
    ptl_me_t me = {.start = g_buf, .length = 8, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                   .options = PTL_ME_OP_PUT, .match_id = {.phys = {PTL_NID_ANY, PTL_PID_ANY}}};
    ptl_handle_me_t h[6];
    for (int i = 0; i < 3; i++) PT_OK(PtlMEAppend(ni, 0, &me, PTL_PRIORITY_LIST, NULL, &h[i]));
    CHECK_EQ(PtlMEAppend(ni, 0, &me, PTL_PRIORITY_LIST, NULL, &h[3]), PTL_NO_SPACE);
    PT_OK(PtlMEAppend(ni, 0, &me, PTL_OVERFLOW_LIST, NULL, &h[3]));
    PT_OK(PtlMEAppend(ni, 1, &me, PTL_PRIORITY_LIST, NULL, &h[4]));
    CHECK_EQ(PtlMEAppend(ni, 1, &me, PTL_OVERFLOW_LIST, NULL, &h[5]), PTL_NO_SPACE); /* 6 > 5 */
    PT_OK(PtlMEUnlink(h[0]));
    PT_OK(PtlMEAppend(ni, 1, &me, PTL_OVERFLOW_LIST, NULL, &h[5]));
    ptl_iovec_t iov[5] = {{g_buf, 1}, {g_buf, 1}, {g_buf, 1}, {g_buf, 1}, {g_buf, 1}};
    ptl_me_t mv = me;
    mv.start = iov;
    mv.length = 5;
    mv.options |= PTL_IOVEC;
    PT_OK(PtlMEUnlink(h[5]));
    CHECK_EQ(PtlMEAppend(ni, 2, &mv, PTL_PRIORITY_LIST, NULL, &h[5]), PTL_ARG_INVALID);
    mv.length = 4;
    PT_OK(PtlMEAppend(ni, 2, &mv, PTL_PRIORITY_LIST, NULL, &h[5]));
    CHECK_EQ(PtlPTFree(ni, 2), PTL_PT_IN_USE);
}

static void limits_small(pt_ctx_t *c)
{
    ptl_ni_limits_t a;
    ptl_handle_ni_t ni;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY,
                    &small_limits, &a, &ni));
    limits_echoed(&a);
    limits_objects(ni, c->phys[c->rank]);
    limits_pts(ni);
    limits_entries(ni);
    PT_OK(PtlNIFini(ni)); /* releases every object on it */
    ptl_uid_t uid;
    CHECK_EQ(PtlGetUid(ni, &uid), PTL_ARG_INVALID);
}

/* ---- limits the program did not choose; fetch and swap lengths ------------------------ */

/* An NI with one priority ME over `tgt` on PT 0, and an MD over `loc`
 * whose CT counts replies: self-directed fetching atomics. */
typedef struct fa_env {
    ptl_handle_ni_t ni;
    ptl_handle_ct_t ct;
    ptl_handle_md_t md;
    ptl_handle_me_t me;
    ptl_process_t self;
    ptl_size_t done;
    uint64_t tgt[80], loc[80], got[80];
} fa_env_t;

static fa_env_t *fa_open(ptl_handle_ni_t ni, ptl_process_t self)
{
    fa_env_t *v = calloc(1, sizeof *v);
    CHECK(v != NULL);
    v->ni = ni;
    v->self = self;
    ptl_pt_index_t pt;
    PT_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 0, &pt));
    ptl_me_t me = {.start = v->tgt, .length = sizeof v->tgt, .ct_handle = PTL_CT_NONE,
                   .uid = PTL_UID_ANY, .options = PTL_ME_OP_PUT | PTL_ME_OP_GET,
                   .match_id = {.phys = {PTL_NID_ANY, PTL_PID_ANY}}};
    PT_OK(PtlMEAppend(ni, 0, &me, PTL_PRIORITY_LIST, NULL, &v->me));
    PT_OK(PtlCTAlloc(ni, &v->ct));
    ptl_md_t d = {.start = v, .length = sizeof *v, .eq_handle = PTL_EQ_NONE,
                  .ct_handle = v->ct, .options = PTL_MD_EVENT_CT_REPLY | PTL_MD_EVENT_CT_ACK};
    PT_OK(PtlMDBind(ni, &d, &v->md));
    return v;
}

static void fa_close(fa_env_t *v)
{
    PT_OK(PtlMDRelease(v->md));
    PT_OK(PtlMEUnlink(v->me));
    PT_OK(PtlCTFree(v->ct));
    PT_OK(PtlPTFree(v->ni, 0));
    free(v);
}

#define FA_LOC(v, i) ((ptl_size_t)((char *)&(v)->loc[i] - (char *)(v)))
#define FA_GOT(v, i) ((ptl_size_t)((char *)&(v)->got[i] - (char *)(v)))

static int fa_fetch(fa_env_t *v, ptl_size_t len, ptl_op_t op, ptl_datatype_t type)
{
    return PtlFetchAtomic(v->md, FA_GOT(v, 0), v->md, FA_LOC(v, 0), len, v->self, 0, 0, 0,
                          NULL, 0, op, type);
}

static int fa_swap(fa_env_t *v, ptl_size_t len, ptl_op_t op, ptl_datatype_t type)
{
    static const uint64_t operand[4]; /* comparand 0 */
    return PtlSwap(v->md, FA_GOT(v, 0), v->md, FA_LOC(v, 0), len, v->self, 0, 0, 0, NULL, 0,
                   operand, op, type);
}

static int fa_atomic(fa_env_t *v, ptl_size_t len)
{
    return PtlAtomic(v->md, FA_LOC(v, 0), len, PTL_CT_ACK_REQ, v->self, 0, 0, 0, NULL, 0,
                     PTL_SUM, PTL_UINT64_T);
}

/* The operation just issued completes without failure. */
static void fa_done(fa_env_t *v)
{
    pt_ct_reach(v->ct, ++v->done);
}

/* A 64-byte FetchAtomic and a 64-byte PTL_SWAP move every element. */
static void fa_check_64(fa_env_t *v)
{
    for (int i = 0; i < 8; i++) v->tgt[i] = 100 + (uint64_t)i, v->loc[i] = (uint64_t)i + 1;
    PT_OK(fa_fetch(v, 64, PTL_SUM, PTL_UINT64_T));
    fa_done(v);
    for (int i = 0; i < 8; i++) {
        CHECK_EQ(v->got[i], 100 + i);
        CHECK_EQ(v->tgt[i], 101 + 2 * i);
    }
    for (int i = 0; i < 8; i++) v->loc[i] = 7000 + (uint64_t)i;
    PT_OK(fa_swap(v, 64, PTL_SWAP, PTL_UINT64_T));
    fa_done(v);
    for (int i = 0; i < 8; i++) {
        CHECK_EQ(v->got[i], 101 + 2 * i);
        CHECK_EQ(v->tgt[i], 7000 + i);
    }
}

/* A program that zeroes its desired limits and sets a few fields (issue 21
 * §4.1): the fields it left at 0 were not chosen and get the defaults, so
 * FetchAtomic and Swap keep their default size (they were cut to the
 * minimum, 8 bytes, and every longer one failed). */
static void limits_unchosen(pt_ctx_t *c)
{
    ptl_ni_limits_t want, a, dflt;
    memset(&want, 0, sizeof want);
    want.max_entries = 64;
    want.max_msg_size = 1 << 20;
    ptl_handle_ni_t ni, ref;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL,
                    &dflt, &ref));
    PT_OK(PtlNIFini(ref));
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, &want, &a,
                    &ni));
    CHECK_EQ(a.max_entries, 64);
    CHECK_EQ(a.max_msg_size, 1 << 20);
    CHECK_EQ(a.max_unexpected_headers, dflt.max_unexpected_headers);
    CHECK_EQ(a.max_mds, dflt.max_mds);
    CHECK_EQ(a.max_cts, dflt.max_cts);
    CHECK_EQ(a.max_eqs, dflt.max_eqs);
    CHECK_EQ(a.max_pt_index, dflt.max_pt_index);
    CHECK_EQ(a.max_iovecs, dflt.max_iovecs);
    CHECK_EQ(a.max_list_size, dflt.max_list_size);
    CHECK_EQ(a.max_triggered_ops, dflt.max_triggered_ops);
    CHECK_EQ(a.max_atomic_size, dflt.max_atomic_size);
    CHECK_EQ(a.max_fetch_atomic_size, dflt.max_fetch_atomic_size);
    CHECK_EQ(a.max_volatile_size, dflt.max_volatile_size);
    CHECK(a.max_fetch_atomic_size >= 64 && a.max_atomic_size >= 64);
    fa_env_t *v = fa_open(ni, c->phys[c->rank]);
    fa_check_64(v);
    ptl_size_t over = a.max_fetch_atomic_size + 8;
    if (over <= sizeof v->loc) {
        CHECK_EQ(fa_fetch(v, over, PTL_SUM, PTL_UINT64_T), PTL_ARG_INVALID);
        CHECK_EQ(fa_swap(v, over, PTL_SWAP, PTL_UINT64_T), PTL_ARG_INVALID);
    }
    fa_close(v);
    PT_OK(PtlNIFini(ni));
}

/* PtlAtomic is bounded by max_atomic_size; PtlFetchAtomic and PtlSwap by
 * max_fetch_atomic_size (PORTALS4_API.md §5.3, §13.3), and the swaps that
 * use the operand (CSWAP*, MSWAP) take exactly one element. */
static void limits_fetch_sizes(pt_ctx_t *c)
{
    ptl_ni_limits_t want = {.max_atomic_size = 16, .max_fetch_atomic_size = 64}, a;
    ptl_handle_ni_t ni;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, &want, &a,
                    &ni));
    CHECK(a.max_atomic_size == 16 && a.max_fetch_atomic_size == 64);
    fa_env_t *v = fa_open(ni, c->phys[c->rank]);
    fa_check_64(v); /* over max_atomic_size, within max_fetch_atomic_size */
    CHECK_EQ(fa_fetch(v, 72, PTL_SUM, PTL_UINT64_T), PTL_ARG_INVALID);
    CHECK_EQ(fa_swap(v, 72, PTL_SWAP, PTL_UINT64_T), PTL_ARG_INVALID);
    CHECK_EQ(fa_atomic(v, 24), PTL_ARG_INVALID);
    PT_OK(fa_atomic(v, 16));
    fa_done(v);
    CHECK_EQ(fa_swap(v, 16, PTL_CSWAP, PTL_UINT64_T), PTL_ARG_INVALID); /* two elements */
    CHECK_EQ(fa_swap(v, 16, PTL_MSWAP, PTL_UINT64_T), PTL_ARG_INVALID);
    PT_OK(fa_swap(v, 8, PTL_CSWAP, PTL_UINT64_T));
    fa_done(v);
    PT_OK(fa_swap(v, 16, PTL_CSWAP, PTL_DOUBLE_COMPLEX)); /* one element of 16 bytes */
    fa_done(v);
    fa_close(v);
    PT_OK(PtlNIFini(ni));

    want = (ptl_ni_limits_t){.max_atomic_size = 64, .max_fetch_atomic_size = 16};
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, &want, &a,
                    &ni));
    CHECK(a.max_atomic_size == 64 && a.max_fetch_atomic_size == 16);
    v = fa_open(ni, c->phys[c->rank]);
    PT_OK(fa_atomic(v, 64));
    fa_done(v);
    CHECK_EQ(fa_fetch(v, 24, PTL_SUM, PTL_UINT64_T), PTL_ARG_INVALID);
    CHECK_EQ(fa_swap(v, 24, PTL_SWAP, PTL_UINT64_T), PTL_ARG_INVALID);
    PT_OK(fa_fetch(v, 16, PTL_SUM, PTL_UINT64_T));
    fa_done(v);
    PT_OK(fa_swap(v, 16, PTL_SWAP, PTL_UINT64_T));
    fa_done(v);
    fa_close(v);
    PT_OK(PtlNIFini(ni));
}

/* ---- identities and maps -------------------------------------------------------------- */

static void map_logical(pt_ctx_t *c)
{
    CHECK_EQ(PtlSetMap(c->ni, (ptl_size_t)c->size, c->phys), PTL_IGNORED);
    ptl_process_t m[4];
    ptl_size_t n = 0;
    PT_OK(PtlGetMap(c->ni, 1, m, &n));
    CHECK_EQ(n, c->size); /* full size even if the buffer is smaller */
    CHECK(m[0].phys.nid == c->phys[0].phys.nid && m[0].phys.pid == c->phys[0].phys.pid);
    PT_OK(PtlGetMap(c->ni, 0, NULL, &n));
    CHECK_EQ(n, c->size);
    ptl_process_t id;
    PT_OK(PtlGetId(c->ni, &id));
    CHECK_EQ(id.rank, (ptl_rank_t)c->rank);
    PT_OK(PtlGetPhysId(c->ni, &id));
    CHECK(id.phys.nid == c->phys[c->rank].phys.nid && id.phys.pid == c->phys[c->rank].phys.pid);
    ptl_uid_t uid;
    PT_OK(PtlGetUid(c->ni, &uid));
    CHECK_EQ(uid, (ptl_uid_t)geteuid());
    CHECK_EQ(PtlGetUid(c->ni, NULL), PTL_ARG_INVALID);
    CHECK_EQ(PtlGetId(c->ni, NULL), PTL_ARG_INVALID);
}

static void map_fresh_logical(pt_ctx_t *c)
{
    ptl_handle_ni_t ni;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL,
                    NULL, &ni));
    ptl_process_t m[2];
    ptl_size_t n;
    CHECK_EQ(PtlGetMap(ni, 2, m, &n), PTL_NO_SPACE); /* no map yet */
    ptl_process_t other = c->phys[(c->rank + 1) % c->size];
    CHECK_EQ(PtlSetMap(ni, 1, &other), PTL_ARG_INVALID); /* own id missing */
    ptl_process_t rev[2] = {c->phys[1], c->phys[0]};     /* ranks swapped */
    PT_OK(PtlSetMap(ni, 2, rev));
    ptl_process_t id;
    PT_OK(PtlGetId(ni, &id));
    CHECK_EQ(id.rank, (ptl_rank_t)(1 - c->rank));
    /* A message names its initiator by the receiver's map: the other rank
     * (job rank 1 - r) is logical rank r here, and is addressed so. */
    ptl_handle_eq_t eq;
    ptl_handle_le_t le;
    ptl_handle_md_t md;
    ptl_pt_index_t pt;
    char byte = 0;
    PT_OK(PtlEQAlloc(ni, 8, &eq));
    PT_OK(PtlPTAlloc(ni, 0, eq, PTL_PT_ANY, &pt));
    ptl_le_t e = {.start = &byte, .length = 1, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                  .options = PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE};
    PT_OK(PtlLEAppend(ni, pt, &e, PTL_PRIORITY_LIST, NULL, &le));
    ptl_md_t d = {.start = &byte, .length = 1, .eq_handle = PTL_EQ_NONE,
                  .ct_handle = PTL_CT_NONE};
    PT_OK(PtlMDBind(ni, &d, &md));
    pt_barrier(c);
    PT_OK(PtlPut(md, 0, 0, PTL_NO_ACK_REQ, (ptl_process_t){.rank = (ptl_rank_t)c->rank}, pt, 0,
                 0, NULL, 0));
    CHECK_EQ(pt_expect(eq, PTL_EVENT_PUT).initiator.rank, (ptl_rank_t)c->rank);
    pt_barrier(c);
    PT_OK(PtlNIFini(ni));
}

static void map_physical(pt_ctx_t *c)
{
    ptl_handle_ni_t ni;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL,
                    NULL, &ni));
    ptl_process_t m[2];
    ptl_size_t n;
    CHECK_EQ(PtlSetMap(ni, (ptl_size_t)c->size, c->phys), PTL_ARG_INVALID);
    CHECK_EQ(PtlGetMap(ni, 2, m, &n), PTL_ARG_INVALID);
    ptl_process_t id;
    PT_OK(PtlGetId(ni, &id));
    CHECK(id.phys.nid == c->phys[c->rank].phys.nid && id.phys.pid == c->phys[c->rank].phys.pid);
    PT_OK(PtlNIFini(ni));
}

/* ---- handles ---------------------------------------------------------------------------- */

typedef struct objs {
    ptl_handle_ni_t ni, nm_ni;
    ptl_handle_eq_t eq;
    ptl_handle_ct_t ct;
    ptl_handle_md_t md;
    ptl_handle_me_t me;
    ptl_handle_le_t le;
    ptl_pt_index_t pt, nm_pt;
} objs_t;

static void objs_make(objs_t *o, ptl_handle_ni_t ni)
{
    o->ni = ni;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL,
                    NULL, &o->nm_ni));
    PT_OK(PtlEQAlloc(ni, 16, &o->eq));
    PT_OK(PtlCTAlloc(ni, &o->ct));
    ptl_md_t d = {.start = g_buf, .length = 64, .eq_handle = o->eq, .ct_handle = o->ct};
    PT_OK(PtlMDBind(ni, &d, &o->md));
    PT_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &o->pt));
    PT_OK(PtlPTAlloc(o->nm_ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &o->nm_pt));
    ptl_me_t me = {.start = g_buf, .length = 8, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                   .options = PTL_ME_OP_PUT, .match_id = {.rank = PTL_RANK_ANY}};
    PT_OK(PtlMEAppend(ni, o->pt, &me, PTL_PRIORITY_LIST, NULL, &o->me));
    ptl_le_t le = {.start = g_buf, .length = 8, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                   .options = PTL_LE_OP_PUT};
    PT_OK(PtlLEAppend(o->nm_ni, o->nm_pt, &le, PTL_PRIORITY_LIST, NULL, &o->le));
}

static void objs_ni_handle(const objs_t *o)
{
    const ptl_handle_any_t on_ni[] = {o->ni, o->eq, o->ct, o->md, o->me};
    ptl_handle_ni_t got;
    for (size_t i = 0; i < sizeof on_ni / sizeof on_ni[0]; i++) {
        PT_OK(PtlNIHandle(on_ni[i], &got));
        CHECK(got == o->ni);
    }
    PT_OK(PtlNIHandle(o->le, &got));
    CHECK(got == o->nm_ni);
    CHECK_EQ(PtlNIHandle(PTL_INVALID_HANDLE, &got), PTL_ARG_INVALID);
    CHECK_EQ(PtlNIHandle(PTL_CT_NONE, &got), PTL_ARG_INVALID);
    CHECK_EQ(PtlNIHandle(PTL_EQ_NONE, &got), PTL_ARG_INVALID);
    CHECK_EQ(PtlNIHandle(o->ni, NULL), PTL_ARG_INVALID);
}

static void objs_free(objs_t *o)
{
    PT_OK(PtlMEUnlink(o->me));
    PT_OK(PtlLEUnlink(o->le));
    PT_OK(PtlMDRelease(o->md));
    PT_OK(PtlCTFree(o->ct));
    PT_OK(PtlEQFree(o->eq));
    PT_OK(PtlPTFree(o->ni, o->pt));
    PT_OK(PtlNIFini(o->nm_ni));
}

/* Which handle types a probe value may legitimately be (its calls are skipped). */
enum { T_NI = 1, T_MD = 2, T_ME = 4, T_LE = 8, T_EQ = 16, T_CT = 32 };

static void bad_ni_calls(ptl_handle_any_t b)
{
    ptl_sr_value_t sr;
    ptl_process_t id = {.rank = 0};
    ptl_uid_t uid;
    ptl_size_t n;
    ptl_pt_index_t pt;
    ptl_handle_any_t out;
    ptl_md_t d = {.start = g_buf, .length = 8, .eq_handle = PTL_EQ_NONE, .ct_handle = PTL_CT_NONE};
    ptl_me_t me = {.ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY, .options = PTL_ME_OP_PUT};
    ptl_le_t le = {.ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY, .options = PTL_LE_OP_PUT};
    CHECK_EQ(PtlNIFini(b), PTL_ARG_INVALID);
    CHECK_EQ(PtlNIStatus(b, PTL_SR_DROP_COUNT, &sr), PTL_ARG_INVALID);
    CHECK_EQ(PtlSetMap(b, 1, &id), PTL_ARG_INVALID);
    CHECK_EQ(PtlGetMap(b, 1, &id, &n), PTL_ARG_INVALID);
    CHECK_EQ(PtlGetUid(b, &uid), PTL_ARG_INVALID);
    CHECK_EQ(PtlGetId(b, &id), PTL_ARG_INVALID);
    CHECK_EQ(PtlGetPhysId(b, &id), PTL_ARG_INVALID);
    CHECK_EQ(PtlPTAlloc(b, 0, PTL_EQ_NONE, PTL_PT_ANY, &pt), PTL_ARG_INVALID);
    CHECK_EQ(PtlPTFree(b, 0), PTL_ARG_INVALID);
    CHECK_EQ(PtlPTEnable(b, 0), PTL_ARG_INVALID);
    CHECK_EQ(PtlPTDisable(b, 0), PTL_ARG_INVALID);
    CHECK_EQ(PtlMDBind(b, &d, &out), PTL_ARG_INVALID);
    CHECK_EQ(PtlMEAppend(b, 0, &me, PTL_PRIORITY_LIST, NULL, &out), PTL_ARG_INVALID);
    CHECK_EQ(PtlLEAppend(b, 0, &le, PTL_PRIORITY_LIST, NULL, &out), PTL_ARG_INVALID);
    CHECK_EQ(PtlMESearch(b, 0, &me, PTL_SEARCH_ONLY, NULL), PTL_ARG_INVALID);
    CHECK_EQ(PtlLESearch(b, 0, &le, PTL_SEARCH_ONLY, NULL), PTL_ARG_INVALID);
    CHECK_EQ(PtlEQAlloc(b, 8, &out), PTL_ARG_INVALID);
    CHECK_EQ(PtlCTAlloc(b, &out), PTL_ARG_INVALID);
    CHECK_EQ(PtlStartBundle(b), PTL_ARG_INVALID);
    CHECK_EQ(PtlEndBundle(b), PTL_ARG_INVALID);
}

static void bad_md_calls(ptl_handle_any_t b, ptl_handle_md_t good_md, ptl_handle_ct_t good_ct)
{
    ptl_process_t self = {.rank = 0};
    uint64_t operand = 0;
    CHECK_EQ(PtlMDRelease(b), PTL_ARG_INVALID);
    CHECK_EQ(PtlPut(b, 0, 8, PTL_NO_ACK_REQ, self, 0, 0, 0, NULL, 0), PTL_ARG_INVALID);
    CHECK_EQ(PtlGet(b, 0, 8, self, 0, 0, 0, NULL), PTL_ARG_INVALID);
    CHECK_EQ(PtlAtomic(b, 0, 8, PTL_NO_ACK_REQ, self, 0, 0, 0, NULL, 0, PTL_SUM, PTL_INT64_T),
             PTL_ARG_INVALID);
    CHECK_EQ(PtlFetchAtomic(b, 0, good_md, 0, 8, self, 0, 0, 0, NULL, 0, PTL_SUM, PTL_INT64_T),
             PTL_ARG_INVALID);
    CHECK_EQ(PtlFetchAtomic(good_md, 0, b, 0, 8, self, 0, 0, 0, NULL, 0, PTL_SUM, PTL_INT64_T),
             PTL_ARG_INVALID);
    CHECK_EQ(PtlSwap(b, 0, good_md, 0, 8, self, 0, 0, 0, NULL, 0, &operand, PTL_SWAP,
                     PTL_INT64_T), PTL_ARG_INVALID);
    CHECK_EQ(PtlSwap(good_md, 0, b, 0, 8, self, 0, 0, 0, NULL, 0, &operand, PTL_SWAP,
                     PTL_INT64_T), PTL_ARG_INVALID);
    CHECK_EQ(PtlTriggeredPut(b, 0, 8, PTL_NO_ACK_REQ, self, 0, 0, 0, NULL, 0, good_ct, 5),
             PTL_ARG_INVALID);
    CHECK_EQ(PtlTriggeredGet(b, 0, 8, self, 0, 0, 0, NULL, good_ct, 5), PTL_ARG_INVALID);
    CHECK_EQ(PtlTriggeredAtomic(b, 0, 8, PTL_NO_ACK_REQ, self, 0, 0, 0, NULL, 0, PTL_SUM,
                                PTL_INT64_T, good_ct, 5), PTL_ARG_INVALID);
    CHECK_EQ(PtlTriggeredFetchAtomic(b, 0, good_md, 0, 8, self, 0, 0, 0, NULL, 0, PTL_SUM,
                                     PTL_INT64_T, good_ct, 5), PTL_ARG_INVALID);
    CHECK_EQ(PtlTriggeredSwap(good_md, 0, b, 0, 8, self, 0, 0, 0, NULL, 0, &operand, PTL_SWAP,
                              PTL_INT64_T, good_ct, 5), PTL_ARG_INVALID);
}

static void bad_eq_calls(ptl_handle_any_t b, ptl_handle_ni_t ni)
{
    ptl_event_t ev;
    unsigned int which;
    ptl_pt_index_t pt;
    ptl_handle_md_t out;
    CHECK_EQ(PtlEQFree(b), PTL_ARG_INVALID);
    CHECK_EQ(PtlEQGet(b, &ev), PTL_ARG_INVALID);
    CHECK_EQ(PtlEQWait(b, &ev), PTL_ARG_INVALID);
    CHECK_EQ(PtlEQPoll(&b, 1, 0, &ev, &which), PTL_ARG_INVALID);
    if (b == PTL_EQ_NONE) return; /* "no EQ" is valid in PTs and MDs */
    CHECK_EQ(PtlPTAlloc(ni, 0, b, PTL_PT_ANY, &pt), PTL_ARG_INVALID);
    ptl_md_t d = {.start = g_buf, .length = 8, .eq_handle = b, .ct_handle = PTL_CT_NONE};
    CHECK_EQ(PtlMDBind(ni, &d, &out), PTL_ARG_INVALID);
}

static void bad_ct_calls(ptl_handle_any_t b, ptl_handle_ni_t ni, ptl_handle_ct_t good_ct,
                         ptl_pt_index_t pt, ptl_handle_md_t good_md)
{
    ptl_process_t self = {.rank = 0};
    ptl_ct_event_t v = {1, 0};
    unsigned int which;
    ptl_size_t test = 1;
    ptl_handle_any_t out;
    CHECK_EQ(PtlCTFree(b), PTL_ARG_INVALID);
    CHECK_EQ(PtlCTGet(b, &v), PTL_ARG_INVALID);
    CHECK_EQ(PtlCTWait(b, 1, &v), PTL_ARG_INVALID);
    CHECK_EQ(PtlCTPoll(&b, &test, 1, 0, &v, &which), PTL_ARG_INVALID);
    CHECK_EQ(PtlCTSet(b, v), PTL_ARG_INVALID);
    CHECK_EQ(PtlCTInc(b, v), PTL_ARG_INVALID);
    CHECK_EQ(PtlCTCancelTriggered(b), PTL_ARG_INVALID);
    CHECK_EQ(PtlTriggeredCTInc(b, v, good_ct, 5), PTL_ARG_INVALID);
    CHECK_EQ(PtlTriggeredCTInc(good_ct, v, b, 5), PTL_ARG_INVALID);
    CHECK_EQ(PtlTriggeredCTSet(good_ct, v, b, 5), PTL_ARG_INVALID);
    CHECK_EQ(PtlTriggeredPut(good_md, 0, 8, PTL_NO_ACK_REQ, self, 0, 0, 0, NULL, 0, b, 5),
             PTL_ARG_INVALID);
    ptl_me_t tme = {.start = g_buf, .length = 8, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                    .options = PTL_ME_OP_PUT, .match_id = {.rank = PTL_RANK_ANY}};
    CHECK_EQ(PtlTriggeredMEAppend(ni, pt, &tme, PTL_PRIORITY_LIST, NULL, &out, b, 5),
             PTL_ARG_INVALID);
    if (b == PTL_CT_NONE) return; /* "no CT" is valid in MDs and entries */
    ptl_md_t d = {.start = g_buf, .length = 8, .eq_handle = PTL_EQ_NONE, .ct_handle = b,
                  .options = PTL_MD_EVENT_CT_SEND};
    CHECK_EQ(PtlMDBind(ni, &d, &out), PTL_ARG_INVALID);
    ptl_me_t me = {.start = g_buf, .length = 8, .ct_handle = b, .uid = PTL_UID_ANY,
                   .options = PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM,
                   .match_id = {.rank = PTL_RANK_ANY}};
    CHECK_EQ(PtlMEAppend(ni, pt, &me, PTL_PRIORITY_LIST, NULL, &out), PTL_ARG_INVALID);
}

static void bad_entry_calls(ptl_handle_any_t b, unsigned int skip)
{
    if (!(skip & T_ME)) CHECK_EQ(PtlMEUnlink(b), PTL_ARG_INVALID);
    if (!(skip & T_LE)) CHECK_EQ(PtlLEUnlink(b), PTL_ARG_INVALID);
}

/* Every handle-taking call with handle b; types in `skip` are what b really is. */
static void bad_handle_all(ptl_handle_any_t b, unsigned int skip, const objs_t *live)
{
    if (!(skip & T_NI)) bad_ni_calls(b);
    if (!(skip & T_MD)) bad_md_calls(b, live->md, live->ct);
    if (!(skip & T_EQ)) bad_eq_calls(b, live->ni);
    if (!(skip & T_CT)) bad_ct_calls(b, live->ni, live->ct, live->pt, live->md);
    if (!(skip & T_NI)) {
        ptl_me_t me = {.ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY, .options = PTL_ME_OP_PUT};
        ptl_handle_me_t out;
        CHECK_EQ(PtlTriggeredMEAppend(b, live->pt, &me, PTL_PRIORITY_LIST, NULL, &out,
                                      live->ct, 5), PTL_ARG_INVALID);
    }
    if (!(skip & T_ME)) CHECK_EQ(PtlTriggeredMEUnlink(b, live->ct, 5), PTL_ARG_INVALID);
    if (!(skip & T_CT)) CHECK_EQ(PtlTriggeredMEUnlink(live->me, b, 5), PTL_ARG_INVALID);
    bad_entry_calls(b, skip);
}

static void handles(pt_ctx_t *c)
{
    objs_t o, dead;
    objs_make(&dead, c->ni);
    objs_ni_handle(&dead);
    objs_free(&dead);
    objs_make(&o, c->ni);
    /* stale handles of every type, sentinels, and live handles of the wrong type */
    const ptl_handle_any_t stale[] = {dead.nm_ni, dead.md, dead.me, dead.le, dead.eq, dead.ct,
                                      PTL_INVALID_HANDLE, PTL_CT_NONE, PTL_EQ_NONE, 0};
    for (size_t i = 0; i < sizeof stale / sizeof stale[0]; i++) bad_handle_all(stale[i], 0, &o);
    bad_handle_all(o.md, T_MD, &o);
    bad_handle_all(o.eq, T_EQ, &o);
    bad_handle_all(o.ct, T_CT, &o);
    bad_handle_all(o.me, T_ME, &o);
    bad_handle_all(o.le, T_LE, &o);
    bad_handle_all(o.nm_ni, T_NI, &o);
    CHECK(PtlHandleIsEqual(o.md, o.md));
    CHECK(!PtlHandleIsEqual(o.md, o.ct));
    CHECK(!PtlHandleIsEqual(o.md, dead.md));
    CHECK(PtlHandleIsEqual(PTL_INVALID_HANDLE, PTL_INVALID_HANDLE));
    CHECK(!PtlHandleIsEqual(PTL_INVALID_HANDLE, o.eq));
    objs_free(&o);
}

/* ---- status registers and bundles ------------------------------------------------------ */

static void status_regs(pt_ctx_t *c)
{
    ptl_sr_value_t v = -1;
    for (int r = 0; r < PTL_SR_LAST; r++) {
        PT_OK(PtlNIStatus(c->ni, (ptl_sr_index_t)r, &v));
        CHECK_EQ(v, 0);
    }
    CHECK_EQ(PtlNIStatus(c->ni, (ptl_sr_index_t)0x7fffffff, &v), PTL_ARG_INVALID);
    CHECK_EQ(PtlNIStatus(c->ni, (ptl_sr_index_t)PTL_SR_LAST, &v), PTL_ARG_INVALID);
    CHECK_EQ(PtlNIStatus(c->ni, PTL_SR_DROP_COUNT, NULL), PTL_ARG_INVALID);
}

/* A put to oneself issued inside nested bundles arrives once they end. */
static void bundles(pt_ctx_t *c)
{
    ptl_handle_ct_t ct;
    ptl_pt_index_t pt;
    ptl_handle_me_t meh;
    ptl_handle_md_t mdh;
    char src[32], dst[32] = {0};
    t_fill(src, sizeof src, 77);
    PT_OK(PtlCTAlloc(c->ni, &ct));
    PT_OK(PtlPTAlloc(c->ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &pt));
    ptl_me_t me = {.start = dst, .length = sizeof dst, .ct_handle = ct, .uid = PTL_UID_ANY,
                   .options = PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM,
                   .match_id = {.rank = PTL_RANK_ANY}};
    PT_OK(PtlMEAppend(c->ni, pt, &me, PTL_PRIORITY_LIST, NULL, &meh));
    ptl_md_t d = {.start = src, .length = sizeof src, .eq_handle = PTL_EQ_NONE,
                  .ct_handle = PTL_CT_NONE};
    PT_OK(PtlMDBind(c->ni, &d, &mdh));
    PT_OK(PtlStartBundle(c->ni));
    PT_OK(PtlStartBundle(c->ni));
    PT_OK(PtlPut(mdh, 0, sizeof src, PTL_NO_ACK_REQ, pt_id(c, c->rank), pt, 0, 0, NULL, 0));
    PT_OK(PtlEndBundle(c->ni));
    PT_OK(PtlEndBundle(c->ni));
    pt_ct_reach(ct, 1);
    CHECK(t_verify(dst, sizeof dst, 77) == (size_t)-1);
    PT_OK(PtlMEUnlink(meh));
    PT_OK(PtlMDRelease(mdh));
    PT_OK(PtlPTFree(c->ni, pt));
    PT_OK(PtlCTFree(ct));
}

/* PtlNIFini with operations still in flight: their late answers must not
 * touch the MDs that died with the NI.  Answers from one peer arrive in
 * order, so an acknowledged put on another NI afterwards means they came. */
static void fini_in_flight(pt_ctx_t *c)
{
    enum { BIG = 4 << 20 };
    char *buf = calloc(2, BIG), *fence = calloc(1, 64);
    CHECK(buf && fence);
    ptl_handle_ni_t ni;
    ptl_handle_eq_t eq, feq;
    ptl_handle_md_t md, fmd;
    ptl_handle_me_t h, fh;
    ptl_pt_index_t p;
    PT_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL,
                    NULL, &ni));
    PT_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 7, &p));
    ptl_me_t me = {.start = buf + BIG, .length = BIG, .ct_handle = PTL_CT_NONE,
                   .uid = PTL_UID_ANY, .options = PTL_ME_OP_PUT | PTL_ME_OP_GET,
                   .match_id = {.phys = {PTL_NID_ANY, PTL_PID_ANY}}};
    PT_OK(PtlMEAppend(ni, 7, &me, PTL_PRIORITY_LIST, NULL, &h));
    PT_OK(PtlPTAlloc(c->ni, 0, PTL_EQ_NONE, 7, &p));
    me.start = fence;
    me.length = 64;
    me.match_id.rank = PTL_RANK_ANY;
    PT_OK(PtlMEAppend(c->ni, 7, &me, PTL_PRIORITY_LIST, NULL, &fh));
    PT_OK(PtlEQAlloc(ni, 8, &eq));
    PT_OK(PtlEQAlloc(c->ni, 8, &feq));
    ptl_md_t d = {.start = buf, .length = BIG, .eq_handle = eq, .ct_handle = PTL_CT_NONE};
    PT_OK(PtlMDBind(ni, &d, &md));
    d.start = fence;
    d.length = 64;
    d.eq_handle = feq;
    PT_OK(PtlMDBind(c->ni, &d, &fmd));
    pt_barrier(c);
    ptl_process_t peer = c->phys[1 - c->rank];
    PT_OK(PtlGet(md, 0, BIG, peer, 7, 0, 0, NULL));
    PT_OK(PtlPut(md, 0, 8, PTL_ACK_REQ, peer, 7, 0, 0, NULL, 0));
    PT_OK(PtlNIFini(ni));
    PT_OK(PtlPut(fmd, 0, 8, PTL_ACK_REQ, pt_id(c, 1 - c->rank), 7, 0, 0, NULL, 0));
    pt_expect(feq, PTL_EVENT_SEND);
    CHECK_EQ(pt_expect(feq, PTL_EVENT_ACK).ni_fail_type, PTL_NI_OK);
    pt_barrier(c);
    PT_OK(PtlMEUnlink(fh));
    PT_OK(PtlMDRelease(fmd));
    PT_OK(PtlEQFree(feq));
    PT_OK(PtlPTFree(c->ni, 7));
    free(buf);
    free(fence);
}

int main(void)
{
    no_init_all();
    pt_ctx_t c;
    pt_init(&c, PTL_NI_MATCHING | PTL_NI_LOGICAL);
    CHECK(c.size == 2);
    status_regs(&c); /* before any traffic */
    init_nesting(&c);
    ni_bad_options();
    ni_refcount(&c);
    ni_four_kinds(&c);
    limits_small(&c);
    limits_huge_clamp();
    limits_unchosen(&c);
    limits_fetch_sizes(&c);
    map_logical(&c);
    map_fresh_logical(&c);
    map_physical(&c);
    handles(&c);
    bundles(&c);
    fini_in_flight(&c);
    ptl_handle_ni_t ni = c.ni;
    pt_fini(&c);
    ptl_uid_t uid;
    CHECK_EQ(PtlGetUid(ni, &uid), PTL_NO_INIT); /* after the last PtlFini */
    ptl_handle_ct_t ct;
    CHECK_EQ(PtlCTAlloc(ni, &ct), PTL_NO_INIT);
    t_done("conf_ni_test");
    return 0;
}
