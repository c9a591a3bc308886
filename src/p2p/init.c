/* Set-up and tear-down of the point-to-point layer: settings, the NI and
 * its logical map, the portal table entries, and the bounce buffers that
 * hold unexpected messages. */
#include "p2p/p2p_int.h"
#include "util/log.h"
#include "util/param.h"
#include "util/sys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

p2p_state_t P;

/* ---- bounce buffers for unexpected messages -------------------------------------------- */

static sl_status_t bounce_post(bounce_t *b)
{
    /* every kind but RDATA: a direct put whose receive is gone must not
     * spill its payload here, the catcher takes its header alone */
    ptl_me_t me = {.start = b->mem, .length = P.bounce_size, .ct_handle = PTL_CT_NONE,
                   .uid = PTL_UID_ANY,
                   .options = PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL | PTL_ME_NO_TRUNCATE |
                              PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_COMM_DISABLE,
                   .match_id = {.rank = PTL_RANK_ANY}, .match_bits = 0,
                   .ignore_bits = ~MB_RDATA_BIT, .min_free = P.eager_limit};
    return p2p_ptl_status(PtlMEAppend(P.ni, P2P_PT, &me, PTL_OVERFLOW_LIST, b, &b->me));
}

/* A bounce buffer's memory, its pages mapped now (sl_mem_populate): fresh
 * pages faulted in under the first unexpected messages, and the standard
 * benchmarks run only 20 windows of 16 KiB+ messages (bidirectional 16 KiB
 * 7.0-11.3 -> 12.0-13.0 GB/s, 32 KiB 11.2-13.8 -> 18.3-21.1, bench/mpi_osu). */
static void *bounce_mem(size_t len)
{
    void *mem = NULL;
    if (posix_memalign(&mem, 4096, len) != 0) return NULL;
    sl_mem_populate(mem, len);
    return mem;
}

/* A bounce buffer to link: a spare one, or a new one.  The pool grows with
 * the backlog of unexpected messages, as MPI's unexpected queue does. */
sl_status_t p2p_bounce_add(void)
{
    bounce_t *b = P.spare;
    if (b) {
        P.spare = b->next;
    } else {
        bounce_t **all = realloc(P.all, (P.n_all + 1) * sizeof *all);
        if (!all) return SL_ERR_NOMEM;
        P.all = all;
        if (!(b = calloc(1, sizeof *b)) || !(b->mem = bounce_mem(P.bounce_size))) {
            free(b);
            return SL_ERR_NOMEM;
        }
        P.all[P.n_all++] = b;
    }
    return bounce_post(b);
}

/* ---- settings ------------------------------------------------------------------------------ */

static const char *const proto_names[] = {"auto",      "eager",     "hybrid",
                                          "send_rndv", "recv_rndv", "traditional"};

const char *p2p_proto_name(int proto)
{
    return proto >= 0 && proto < 6 ? proto_names[proto] : "?";
}

/* A limit of the NI (SLUICE_NI_MAX_*): the setting, or the engine's
 * largest (INT32_MAX is clamped to it) */
static int ni_limit(sl_param_id_t which)
{
    long v = 0;
    return sl_param_int(which, &v) == SL_OK && v > 0 ? (int)v : INT32_MAX;
}

static sl_status_t read_settings(void)
{
    long eager, hybrid, bounce, chunk, first, inflight, slow, trig, eq;
    if (sl_param_int(SL_PARAM_EAGER_LIMIT, &eager) ||
        sl_param_int(SL_PARAM_HYBRID_LIMIT, &hybrid) ||
        sl_param_int(SL_PARAM_BOUNCE_SIZE, &bounce) ||
        sl_param_int(SL_PARAM_RDRP_CHUNK, &chunk) || sl_param_int(SL_PARAM_RDRP_FIRST, &first) ||
        sl_param_int(SL_PARAM_RDRP_INFLIGHT, &inflight) ||
        sl_param_int(SL_PARAM_SINK_SLOWDOWN, &slow) ||
        sl_param_int(SL_PARAM_RDRP_TRIGGERED, &trig) || sl_param_int(SL_PARAM_P2P_EQ_SIZE, &eq))
        return SL_ERR_CONFIG;
    if (bounce < 2 * eager) {
        sl_log_error("p2p: SLUICE_BOUNCE_SIZE=%ld must hold at least two eager messages "
                     "(SLUICE_EAGER_LIMIT=%ld)", bounce, eager);
        return SL_ERR_CONFIG;
    }
    const char *proto = sl_param_str(SL_PARAM_PROTOCOL);
    int p = -1;
    for (int i = 0; i < 6; i++)
        if (proto && strcmp(proto, proto_names[i]) == 0) p = i;
    if (p < 0) {
        sl_log_error("p2p: SLUICE_PROTOCOL=%s is none of auto, eager, hybrid, send_rndv, "
                     "recv_rndv, traditional", proto ? proto : "");
        return SL_ERR_CONFIG;
    }
    P.proto = (p2p_proto_t)p;
    P.eager_limit = (size_t)eager;
    P.hybrid_limit = (size_t)(hybrid > eager ? hybrid : eager);
    P.bounce_size = (size_t)bounce;
    P.rdrp_chunk = (size_t)chunk;
    /* the first chunk may land in a bounce buffer, which keeps room for eager_limit */
    P.rdrp_first = (size_t)(first < eager ? first : eager);
    P.rdrp_inflight = (size_t)inflight;
    P.eq_size = (size_t)eq;
    P.sink_slowdown = (unsigned)slow;
    P.rdrp_triggered = trig != 0;
    return SL_OK;
}

/* ---- set-up ------------------------------------------------------------------------------- */

/* Cards (Portals identity and short-ring address) travel through the
 * launcher's key-value space.  One get per peer is P(P-1) round trips to
 * the launcher for the job (16,256 at 128 ranks, 0.5-1.5 s of start-up on
 * 2 CPUs), so larger jobs gather them in groups: the first rank of each
 * group of MAP_GROUP puts its group's cards under one key (at most 16
 * cards of 38 characters: within PMI-1's 1,024-byte values), and every
 * rank gets the P/MAP_GROUP group keys, at the cost of one more fence. */
#define MAP_GROUP 16

static sl_status_t parse_card(const char *val, ptl_process_t *id, uint64_t *ring)
{
    unsigned long long addr;
    if (sscanf(val, "%u.%u.%llx", &id->phys.nid, &id->phys.pid, &addr) != 3) return SL_ERR_PROTO;
    *ring = addr;
    return SL_OK;
}

/* Each rank's card by its own key. */
static sl_status_t cards_direct(ptl_process_t *map, uint64_t *rings)
{
    char key[32], val[64];
    sl_status_t st = SL_OK;
    for (int r = 0; st == SL_OK && r < P.size; r++) {
        snprintf(key, sizeof key, "p2p-id-%d", r);
        st = boot_get(P.boot, key, val, sizeof val);
        if (st == SL_OK) st = parse_card(val, &map[r], &rings[r]);
    }
    return st;
}

/* The group leaders publish their groups' cards; every rank reads them. */
static sl_status_t cards_grouped(ptl_process_t *map, uint64_t *rings)
{
    char key[32], val[64], grp[MAP_GROUP * 40 + 1];
    sl_status_t st = SL_OK;
    if (P.rank % MAP_GROUP == 0) {
        size_t n = 0;
        for (int r = P.rank; st == SL_OK && r < P.size && r < P.rank + MAP_GROUP; r++) {
            snprintf(key, sizeof key, "p2p-id-%d", r);
            st = boot_get(P.boot, key, val, sizeof val);
            n += (size_t)snprintf(grp + n, sizeof grp - n, "%s%s", n ? ";" : "", val);
        }
        /* named by the leader's rank, whose data it is (boot_pmix.c looks
         * a key up at the rank its number names first) */
        snprintf(key, sizeof key, "p2p-grp-%d", P.rank);
        if (st == SL_OK) st = boot_put(P.boot, key, grp);
    }
    if (st == SL_OK) st = boot_fence(P.boot);
    for (int g = 0; st == SL_OK && g * MAP_GROUP < P.size; g++) {
        snprintf(key, sizeof key, "p2p-grp-%d", g * MAP_GROUP);
        st = boot_get(P.boot, key, grp, sizeof grp);
        char *save = NULL, *card = strtok_r(grp, ";", &save);
        for (int r = g * MAP_GROUP; st == SL_OK && r < P.size && r < (g + 1) * MAP_GROUP; r++) {
            st = card ? parse_card(card, &map[r], &rings[r]) : SL_ERR_PROTO;
            card = strtok_r(NULL, ";", &save);
        }
    }
    return st;
}

static sl_status_t p2p_map(void)
{
    ptl_process_t me, *map = calloc((size_t)P.size, sizeof *map);
    uint64_t *rings = calloc((size_t)P.size, sizeof *rings);
    char key[32], val[64];
    sl_status_t st = map && rings ? SL_OK : SL_ERR_NOMEM;
    if (st == SL_OK) st = p2p_ptl_status(PtlGetPhysId(P.ni, &me));
    if (st == SL_OK) {
        snprintf(key, sizeof key, "p2p-id-%d", P.rank);
        /* and where our short-message rings are (short.c) */
        snprintf(val, sizeof val, "%u.%u.%llx", me.phys.nid, me.phys.pid,
                 (unsigned long long)p2p_short_addr());
        st = boot_put(P.boot, key, val);
    }
    if (st == SL_OK) st = boot_fence(P.boot);
    if (st == SL_OK) st = P.size > 2 * MAP_GROUP ? cards_grouped(map, rings) : cards_direct(map, rings);
    if (st == SL_OK) st = p2p_ptl_status(PtlSetMap(P.ni, (ptl_size_t)P.size, map));
    for (int r = 0; st == SL_OK && r < P.size; r++) p2p_short_attach(r, rings[r]);
    free(rings);
    free(map);
    return st;
}

/* A persistent entry taking every zero-byte notice of one kind; user_ptr is
 * the handle's own address, which tells the dispatcher what it was. */
static int notice_me(ptl_pt_index_t pt, ptl_handle_me_t *h)
{
    ptl_me_t me = {.ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                   .options = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE,
                   .match_id = {.rank = PTL_RANK_ANY}, .ignore_bits = ~(ptl_match_bits_t)0};
    return PtlMEAppend(P.ni, pt, &me, PTL_PRIORITY_LIST, h, h);
}

/* The offload executor's portal (p2p.h): set up with the others, before
 * the fence, so that no peer's early notice finds it missing. */
static int nic_objects(void)
{
    ptl_pt_index_t pt;
    int rc = PtlPTAlloc(P.ni, 0, P.eq, P2P_COLL_PT, &pt);
    ptl_me_t c = {.ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                  .options = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_COMM_DISABLE |
                             PTL_ME_EVENT_UNLINK_DISABLE,
                  .match_id = {.rank = PTL_RANK_ANY}, .match_bits = P2P_COLL_NOTICE,
                  .ignore_bits = ~P2P_COLL_NOTICE};
    ptl_handle_me_t h;
    if (rc == PTL_OK) rc = PtlMEAppend(P.ni, P2P_COLL_PT, &c, PTL_OVERFLOW_LIST, NULL, &h);
    return rc;
}

void p2p_nic(p2p_nic_t *out)
{
    *out = (p2p_nic_t){.ni = P.ni, .pt = P2P_COLL_PT, .rank = P.rank, .max_atomic = P.max_atomic,
                       .max_cts = P.limits.max_cts, .max_entries = P.limits.max_entries,
                       .max_mds = P.limits.max_mds, .max_trig = P.limits.max_triggered_ops};
}

static sl_status_t p2p_objects(void)
{
    ptl_pt_index_t pt;
    if (PtlEQAlloc(P.ni, P.eq_size, &P.eq) != PTL_OK || PtlCTAlloc(P.ni, &P.acks) != PTL_OK ||
        PtlEQAlloc(P.ni, P2P_RR_EQ_SIZE, &P.rr_eq) != PTL_OK)
        return SL_ERR_PROTO;
    /* PT 8: a message that finds no room (every bounce buffer full, the
     * host not yet round to link another) waits in the engine until the
     * host links one (PTL_PT_SLUICE_WAIT) instead of being dropped.
     * Messages carry no acks (one packet less per message each way); should
     * the EQ overflow, flow control disables PT 8 and the PT_DISABLED event
     * makes this rank abort with the reason (p2p_dispatch). */
    static const ptl_pt_index_t pts[] = {P2P_PT, P2P_SYNC_PT, P2P_RNDV_PT, P2P_RECV_PT};
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++)
        if (PtlPTAlloc(P.ni, pts[i] == P2P_PT ? PTL_PT_FLOWCTRL | PTL_PT_SLUICE_WAIT : 0, P.eq,
                       pts[i], &pt) != PTL_OK)
            return SL_ERR_PROTO;
    /* RECEIVER_READYs are hints that a receiver may send many of: their own
     * EQ, where an overflow loses hints, never a completion event */
    if (PtlPTAlloc(P.ni, 0, P.rr_eq, P2P_RR_PT, &pt) != PTL_OK) return SL_ERR_PROTO;
    /* one MD over all memory: a send's local offset is its buffer address */
    /* lazy: eager messages and notices need the receiver only when its
     * application next waits in MPI; do not wake its progress thread */
    ptl_md_t md = {.start = NULL, .length = PTL_SIZE_MAX,
                   .options = PTL_MD_EVENT_CT_ACK | PTL_MD_SLUICE_LAZY,
                   .eq_handle = P.eq, .ct_handle = P.acks};
    if (PtlMDBind(P.ni, &md, &P.md) != PTL_OK) return SL_ERR_PROTO;
    md.options = PTL_MD_EVENT_CT_ACK | PTL_MD_SLUICE_LAZY | PTL_MD_SLUICE_ONE_COPY;
    if (PtlMDBind(P.ni, &md, &P.md_1c) != PTL_OK) return SL_ERR_PROTO;
    md.options = PTL_MD_VOLATILE | PTL_MD_EVENT_SEND_DISABLE | PTL_MD_SLUICE_LAZY;
    if (PtlMDBind(P.ni, &md, &P.md_v) != PTL_OK) return SL_ERR_PROTO;
    if (notice_me(P2P_SYNC_PT, &P.sync_me) != PTL_OK || notice_me(P2P_RR_PT, &P.rr_me) != PTL_OK)
        return SL_ERR_PROTO;
    /* the RDATA catcher: zero bytes, so a direct put that found no receive
     * leaves only its header; the receive that takes it later pulls */
    ptl_me_t c = {.ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                  .options = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_COMM_DISABLE,
                  .match_id = {.rank = PTL_RANK_ANY}, .match_bits = MB_RDATA_BIT,
                  .ignore_bits = ~MB_RDATA_BIT};
    if (PtlMEAppend(P.ni, P2P_PT, &c, PTL_OVERFLOW_LIST, &P.catch_me, &P.catch_me) != PTL_OK)
        return SL_ERR_PROTO;
    if (nic_objects() != PTL_OK) return SL_ERR_PROTO;
    for (int i = 0; i < P2P_BOUNCES; i++) {
        sl_status_t st = p2p_bounce_add();
        if (st != SL_OK) return st;
    }
    return p2p_seq_init();
}

sl_status_t p2p_init(int *rank, int *size)
{
    if (P.up) return SL_ERR_BUSY;
    sl_status_t st = read_settings();
    if (st != SL_OK) return st;
    if (PtlInit() != PTL_OK) return SL_ERR_SYS;
    st = boot_init(&P.boot);
    if (st != SL_OK) goto err_ptl;
    P.rank = boot_get_info(P.boot)->rank;
    P.size = boot_get_info(P.boot)->size;
    sl_list_init(&P.hybrids);
    /* MPI programs may post many receives and leave many messages
     * unexpected: ask for the engine's largest lists */
    ptl_ni_limits_t want = {.max_entries = ni_limit(SL_PARAM_NI_MAX_ENTRIES),
                            .max_unexpected_headers = INT32_MAX,
                            .max_mds = INT32_MAX, .max_cts = ni_limit(SL_PARAM_NI_MAX_CTS),
                            .max_eqs = 64, .max_pt_index = 63,
                            .max_iovecs = 1024, .max_list_size = INT32_MAX,
                            .max_triggered_ops = ni_limit(SL_PARAM_NI_MAX_TRIGGERED),
                            .max_msg_size = PTL_SIZE_MAX,
                            .max_atomic_size = 512, .max_fetch_atomic_size = 512,
                            .max_volatile_size = PTL_SIZE_MAX};
    ptl_ni_limits_t got;
    st = p2p_ptl_status(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL,
                                  PTL_PID_ANY, &want, &got, &P.ni));
    P.volatile_max = st == SL_OK ? (size_t)got.max_volatile_size : 0;
    P.max_atomic = st == SL_OK ? got.max_atomic_size : 0;
    if (st == SL_OK) P.limits = got;
    if (st == SL_OK) st = p2p_short_init();
    if (st == SL_OK) st = p2p_map();
    if (st == SL_OK) st = p2p_objects();
    /* every rank's receive structures exist before anyone sends */
    if (st == SL_OK) st = boot_fence(P.boot);
    if (st != SL_OK) goto err_boot;
    p2p_short_ready();
    P.up = true;
    *rank = P.rank;
    *size = P.size;
    return SL_OK;
err_boot:
    p2p_short_fini();
    boot_fini(P.boot);
err_ptl:
    PtlFini();
    return st;
}

sl_status_t p2p_mem_alloc(size_t len, void **out)
{
    *out = NULL;
    if (!P.up) return SL_ERR_INVALID;
    int rc = PtlSluiceMemAlloc(P.ni, len, out);
    if (rc == PTL_OK) P.stats.mem_shared++;
    return rc == PTL_OK ? SL_OK : rc == PTL_NO_SPACE ? SL_ERR_NOMEM : SL_ERR_INVALID;
}

sl_status_t p2p_mem_free(void *ptr)
{
    if (!P.up) return SL_ERR_INVALID;
    return PtlSluiceMemFree(P.ni, ptr) == PTL_OK ? SL_OK : SL_ERR_INVALID;
}

void p2p_get_stats(p2p_stats_t *out)
{
    *out = P.stats;
    out->seq_keys = p2p_seq_keys();
    out->hybrid_held = (unsigned long)P.hybrid_pending;
}

static void print_stats(void)
{
    const p2p_stats_t *s = &P.stats;
    fprintf(stderr,
            "sluice p2p rank %d [%s]: short %lu (resent %lu, back %lu) eager %lu hybrid %lu send_rndv %lu "
            "recv_rndv %lu (direct %lu, fallback %lu) traditional %lu; HYBRID copies released "
            "by counter %lu by FIN %lu; "
            "RECEIVER_READY sent %lu used %lu stale %lu lost %lu; pulls "
            "triggered %lu host %lu (at most %lu gets out)\n",
            P.rank, p2p_proto_name(P.proto), s->short_msgs, s->short_resent,
            s->short_back, s->eager, s->hybrid,
            s->send_rndv, s->recv_rndv, s->rdata_direct,
            s->rdata_fallback, s->traditional, s->hybrid_by_counter, s->hybrid_by_fin, s->rr_sent,
            s->rr_used, s->rr_stale, s->rr_lost,
            s->pulls_triggered, s->pulls_host, s->pull_max_inflight);
    if (p2p_short_leased())
        fprintf(stderr,
            "sluice p2p rank %d leases: claimed %lu given back %lu (messages taken back %lu); "
            "owners asked %lu, channels freed %lu\n",
            P.rank, s->lease_claims, s->lease_given, s->lease_taken, s->lease_asked,
            s->lease_freed);
    size_t ring, area = p2p_short_plan(P.size, &ring);
    fprintf(stderr, "sluice p2p rank %d memory: short-message rings %zu B in the shared heap "
            "(%zu B per %s)\n", P.rank, p2p_short_active() ? area : 0, ring,
            p2p_short_leased() ? "leased channel" : "sender");
}

sl_status_t p2p_fini(void)
{
    if (!P.up) return SL_ERR_INVALID;
    /* every ack we are owed has come back (a late one would find its
     * operation gone with the NI), and every HYBRID copy has been read */
    ptl_ct_event_t acks;
    while (PtlCTGet(P.acks, &acks) == PTL_OK && acks.success + acks.failure < P.sends) {
        p2p_progress();
        PtlCTWait(P.acks, P.sends, &acks);
    }
    uint64_t deadline = sl_now_ns() + 60ull * 1000000000;
    for (p2p_hybrid_reap(); P.hybrid_pending > 0 && sl_now_ns() < deadline; p2p_hybrid_reap())
        if (p2p_wait_progress(10) != SL_OK) break; /* counters wake nobody: look again */
    if (P.hybrid_pending)
        sl_log_error("p2p: rank %d finalizes with %u HYBRID send(s) never received", P.rank,
                     P.hybrid_pending);
    p2p_check_drops();
    long stats = 0;
    if (sl_param_int(SL_PARAM_STATS, &stats) == SL_OK && stats) print_stats();
    /* the fence keeps every rank's memory mapped until all are done with
     * it; a rank that has ended will never enter it (the launcher would
     * tear this one down while it waited) */
    unsigned gone = 0;
    int g;
    if (PtlSluicePeerGone(P.ni, PTL_RANK_ANY, &gone, &g) == PTL_OK && gone > 0)
        sl_log_error("p2p: rank %d finalizes without the closing fence: %u rank(s) have ended",
                     P.rank, gone);
    else
        boot_fence(P.boot);
    p2p_short_fini();
    PtlNIFini(P.ni); /* releases MEs, MD, EQ, CT with the NI */
    for (size_t i = 0; i < P.n_all; i++) {
        free(P.all[i]->mem);
        free(P.all[i]);
    }
    free(P.all);
    for (unsigned i = 0; i < P.n_nonces; i++) /* copies nobody read (reported above) */
        if (P.nonces[i] && P.nonces[i]->kind == RQ_HYBRID) {
            free(P.nonces[i]->buf);
            free(P.nonces[i]); /* its counter went with the NI */
        }
    free(P.nonces);
    p2p_copy_fini();
    p2p_seq_fini();
    while (P.free_reqs) {
        p2p_req_t *r = P.free_reqs;
        P.free_reqs = r->next_free;
        free(r);
    }
    boot_fini(P.boot);
    PtlFini();
    memset(&P, 0, sizeof P);
    return SL_OK;
}
