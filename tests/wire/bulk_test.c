/* One-sided get/put integrity from 1 B to 64 MiB, odd sizes, misaligned on
 * both sides, on whichever path the environment selects (cross-memory attach
 * by default, the staged copy with SLUICE_CMA=0, a plain memcpy through the
 * peer's shared heap with "heap"; ctest runs all three).  Cross-memory
 * attach copies from SLUICE_BULK_SPLIT bytes on are split with the peer
 * (which waits in the wire here): the pieces the peer copied are counted on
 * both sides and must agree, and be > 0 (= 0 with SLUICE_BULK_SPLIT=0).
 * With "ofi" the peer is reached through libfabric (virtual hosts or
 * SLUICE_WIRE=ofi): every copy must go through it, by fi_read/fi_write
 * when SLUICE_OFI_RMA=on and by tagged messages when off, as its counters
 * tell; the target's registrations are counted too (made, reused; none
 * reused with SLUICE_OFI_MR_CACHE=0).  With SLUICE_OFI_MR_LOCAL=on every
 * buffer handed to libfabric is registered: both sides' packet buffers
 * (2 registrations each), each copy's memory at the requester, and at the
 * target of a tagged copy; both sides post descriptors.
 * usage: bulk_test [cma|staged|heap|ofi] */
#include "util/status.h"
#include "wtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_ADDR = 1, T_GO = 2, T_ACK = 3, T_HELPED = 4, T_FIN = 5 };
#define BIG (64u << 20)
#define SLACK 64

typedef struct addrs {
    uint64_t src, dst;
} addrs_t;

static const size_t sizes[] = {1,      2,      3,       7,       63,         64,
                               65,     1000,   4095,    4096,    4097,       65535,
                               65537,  262143, 262145,  1048579, 16777215,   BIG};
static const size_t offs[][2] = {{0, 0}, {1, 3}, {7, 0}, {0, 5}};

enum { BULK_OP_GET, BULK_OP_PUT };

/* A get or put to rank 1 - rank, waited for: its status. */
static sl_status_t bulk_now(wt_ctx_t *c, int kind, uint64_t raddr, void *laddr, size_t len)
{
    wire_bulk_t op;
    int peer = 1 - c->rank;
    sl_status_t st = kind == BULK_OP_GET ? wire_get(c->wire, peer, raddr, laddr, len, &op)
                                         : wire_put(c->wire, peer, raddr, laddr, len, &op);
    return st == SL_INPROGRESS ? wire_bulk_wait(c->wire, &op) : st;
}

/* Over libfabric: every copy went through it, by RMA as SLUICE_OFI_RMA
 * says; with RMA the target registered (or reused a registration) once per
 * copy, and reused some (the rounds of one size share pages). */
static void check_ofi(const wire_stats_t *s, uint64_t target_regs, uint64_t target_hits,
                      uint64_t target_descs)
{
    const char *rma = getenv("SLUICE_OFI_RMA"), *mrl = getenv("SLUICE_OFI_MR_LOCAL");
    CHECK_EQ(s->ofi_bulk_ops, s->gets + s->puts);
    uint64_t pool = 0; /* the packet buffers' registrations, on each side */
    if (mrl && !strcmp(mrl, "on")) {
        pool = 2;
        CHECK_EQ(s->ofi_mr_regs + s->ofi_mr_hits, pool + s->ofi_bulk_ops); /* ours, per copy */
        CHECK(s->ofi_mr_local > s->ofi_bulk_ops);
        CHECK(target_descs > 0);
        if (rma && !strcmp(rma, "off")) /* the target's memory of each tagged copy */
            CHECK_EQ(target_regs + target_hits, pool + s->ofi_bulk_ops);
    } else {
        CHECK_EQ(s->ofi_mr_local + target_descs, 0);
    }
    if (rma && !strcmp(rma, "off")) {
        CHECK_EQ(s->ofi_rma_ops, 0);
        if (!pool) CHECK_EQ(target_regs + target_hits, 0);
    } else if (rma && !strcmp(rma, "on")) {
        CHECK_EQ(s->ofi_rma_ops, s->ofi_bulk_ops);
        CHECK_EQ(target_regs + target_hits, pool + s->ofi_rma_ops);
        const char *cache = getenv("SLUICE_OFI_MR_CACHE");
        if (cache && !strcmp(cache, "0")) CHECK_EQ(target_hits, 0); /* one copy at a time */
        else CHECK(target_hits > 0);
    }
    printf("bulk: %llu of %llu copies by fi_read/fi_write; target: %llu registrations, %llu "
           "reused\n", (unsigned long long)s->ofi_rma_ops, (unsigned long long)s->ofi_bulk_ops,
           (unsigned long long)target_regs, (unsigned long long)target_hits);
}

int main(int argc, char **argv)
{
    const char *expect = argc > 1 ? argv[1] : "";
    wt_ctx_t c;
    CHECK_OK(wt_init(&c));
    CHECK_EQ(c.size, 2);
    int peer = 1 - c.rank;
    bool heap = !strcmp(expect, "heap"), ofi = !strcmp(expect, "ofi");
    char *src, *dst;
    if (heap) {
        src = wire_heap_alloc(c.wire, BIG + SLACK);
        dst = wire_heap_alloc(c.wire, BIG + SLACK);
        CHECK_MSG(src && dst, "shared heap of %zu bytes too small", wire_heap_size(c.wire));
    } else {
        src = malloc(BIG + SLACK);
        dst = malloc(BIG + SLACK);
        CHECK(src && dst);
    }
    uint64_t myseed = 1000 + (uint64_t)c.rank, peerseed = 1000 + (uint64_t)peer;
    t_fill(src, BIG + SLACK, myseed);
    addrs_t mine = {(uint64_t)(uintptr_t)src, (uint64_t)(uintptr_t)dst}, theirs;
    wt_send(&c, peer, T_ADDR, &mine, sizeof mine);
    wt_msg_t *m = wt_recv_from(&c, peer, T_ADDR);
    memcpy(&theirs, m->data, sizeof theirs);
    free(m);

    bool cma = wire_peer_uses_cma(c.wire, peer);
    if (ofi) CHECK_MSG(!strcmp(wire_peer_transport(c.wire, peer), "ofi") && !cma,
                       "peer %d is reached by %s, not libfabric", peer,
                       wire_peer_transport(c.wire, peer));
    if (!strcmp(expect, "staged")) CHECK_MSG(!cma, "SLUICE_CMA=0 but CMA is used");
    if (!strcmp(expect, "cma") && !cma)
        printf("rank %d: cross-memory attach refused here; testing the staged path\n", c.rank);

    size_t nsz = sizeof sizes / sizeof sizes[0], noff = sizeof offs / sizeof offs[0];
    for (size_t i = 0; i < nsz; i++) {
        for (size_t o = 0; o < noff; o++) {
            size_t len = sizes[i], lo = offs[o][0], ro = offs[o][1];
            if (len == BIG && o > 0) continue; /* one 64 MiB round is enough */
            if (c.rank == 0) {
                wire_bulk_t op;
                /* get: peer's src+ro -> my dst+lo */
                memset(dst + lo, 0xee, len);
                sl_status_t st = wire_get(c.wire, peer, theirs.src + ro, dst + lo, len, &op);
                CHECK(st == SL_OK || st == SL_INPROGRESS);
                CHECK_OK(wire_bulk_wait(c.wire, &op));
                size_t bad = t_verify_at(dst + lo, len, peerseed, ro);
                CHECK_MSG(bad == (size_t)-1, "get %zu B (offsets %zu/%zu): byte %zu wrong", len,
                          lo, ro, bad);
                /* put: my src+lo -> peer's dst+ro, then the peer checks */
                st = wire_put(c.wire, peer, theirs.dst + ro, src + lo, len, &op);
                CHECK(st == SL_OK || st == SL_INPROGRESS);
                CHECK_OK(wire_bulk_wait(c.wire, &op));
                uint64_t go[3] = {len, lo, ro};
                wt_send(&c, peer, T_GO, go, sizeof go);
                free(wt_recv_from(&c, peer, T_ACK));
            } else {
                /* guard bytes just outside this round's put range (outside it,
                 * so setting them cannot race with the put) */
                if (ro > 0) dst[ro - 1] = 0x5a;
                dst[ro + len] = 0x5a;
                /* serve (the staged path needs our progress) until told to check */
                wt_msg_t *g = wt_recv_from(&c, peer, T_GO);
                uint64_t go[3];
                memcpy(go, g->data, sizeof go);
                free(g);
                size_t bad = t_verify_at(dst + go[2], go[0], peerseed, go[1]);
                CHECK_MSG(bad == (size_t)-1, "put %llu B (offsets %llu/%llu): byte %zu wrong",
                          (unsigned long long)go[0], (unsigned long long)go[1],
                          (unsigned long long)go[2], bad);
                /* bytes just outside the target range are untouched */
                if (go[2] > 0) CHECK_EQ((unsigned char)dst[go[2] - 1], 0x5a);
                CHECK_EQ((unsigned char)dst[go[2] + go[0]], 0x5a);
                wt_send(&c, peer, T_ACK, NULL, 0);
            }
        }
    }
    wire_stats_t s;
    wire_get_stats(c.wire, &s);
    if (c.rank == 1) {
        CHECK_EQ(s.split_copies, 0); /* it only helps */
        uint64_t target[4] = {s.split_pieces_helped, s.ofi_mr_regs, s.ofi_mr_hits,
                              s.ofi_mr_local};
        wt_send(&c, 0, T_HELPED, target, sizeof target);
        free(wt_recv_from(&c, 0, T_FIN)); /* serving rank 0's last requests meanwhile */
    }
    if (c.rank == 0) {
        wt_msg_t *h = wt_recv_from(&c, peer, T_HELPED);
        uint64_t target[4];
        memcpy(target, h->data, sizeof target);
        free(h);
        CHECK_EQ(target[0], s.split_pieces_peer);
        if (ofi) check_ofi(&s, target[1], target[2], target[3]);
        const char *split = getenv("SLUICE_BULK_SPLIT");
        if (split && !strcmp(split, "0")) {
            CHECK_EQ(s.split_copies, 0);
        } else if (cma && !heap && !ofi) { /* 16 and 64 MiB copies at least, the peer waiting */
            CHECK(s.split_copies >= 2);
            CHECK(s.split_pieces_peer > 0);
        }
        if (heap) {
            CHECK_EQ(s.heap_copies, s.gets + s.puts);
            CHECK_EQ(s.staged_ops, 0);
        } else {
            CHECK_EQ(s.heap_copies, 0);
            if (cma || ofi) CHECK_EQ(s.staged_ops, 0);
            else CHECK(s.staged_ops == s.gets + s.puts);
        }
        printf("bulk: %llu gets and %llu puts, %llu bytes, %llu split (%llu pieces by the "
               "peer), via %s\n",
               (unsigned long long)s.gets, (unsigned long long)s.puts,
               (unsigned long long)s.bulk_bytes, (unsigned long long)s.split_copies,
               (unsigned long long)s.split_pieces_peer,
               heap ? "the shared heap" : cma ? "cross-memory attach" : ofi ? "libfabric" : "staging");
        /* invalid arguments */
        wire_bulk_t op;
        CHECK_EQ(wire_get(c.wire, 5, theirs.src, dst, 1, &op), SL_ERR_INVALID);
        CHECK_EQ(wire_get(c.wire, peer, 0, dst, 1, &op), SL_ERR_INVALID);
        CHECK_EQ(wire_get(c.wire, peer, theirs.src, NULL, 1, &op), SL_ERR_INVALID);
        CHECK_EQ(wire_get(c.wire, peer, theirs.src, dst, 1, NULL), SL_ERR_INVALID);
        if (cma && !heap) /* an unmapped remote range is an error, not a crash */
            CHECK_EQ(wire_get(c.wire, peer, 4096, dst, 64, &op), SL_ERR_SYS);
        if (ofi) { /* ... refused by the target, either way */
            CHECK_EQ(bulk_now(&c, BULK_OP_GET, 4096, dst, 64), SL_ERR_SYS);
            CHECK_EQ(bulk_now(&c, BULK_OP_PUT, 4096, src, 64), SL_ERR_SYS);
        }
        wt_send(&c, peer, T_FIN, NULL, 0);
    }
    wt_fence(&c);
    if (heap) {
        CHECK_OK(wire_heap_free(c.wire, src));
        CHECK_OK(wire_heap_free(c.wire, dst));
    } else {
        free(src);
        free(dst);
    }
    wt_fini(&c);
    t_done("bulk_test");
    return 0;
}
