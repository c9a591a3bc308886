/* A rank killed with SIGKILL.  Rank 0 records the job key in a file so the
 * driver (crash_test.sh) can look for the job's segments afterwards.
 *   mode "init": the kill comes from SLUICE_TEST_CRASH=1:wire-created, while
 *                segment names still exist (before every rank attached);
 *   mode "run":  rank 1 kills itself after set-up while rank 0 waits for a
 *                message; rank 0 ignores SIGTERM so it lives long enough to
 *                show that the wire turns the death into SL_ERR_PEER_DEAD;
 *   mode "split": rank 0 reads 64 MiB from rank 1, a copy it splits with
 *                rank 1 (SLUICE_BULK_SPLIT), and rank 1 dies holding a piece
 *                (SLUICE_TEST_CRASH=1:split-help): rank 0's wire_get returns
 *                SL_ERR_PEER_DEAD instead of waiting for the piece forever.
 *   mode "leave": no crash.  Rank 1 finalizes its wire and exits normally;
 *                rank 0, waiting meanwhile, never gets SL_ERR_PEER_DEAD and
 *                nothing is logged, yet it learns that rank 1 is gone (a
 *                send to it fails).
 * usage: crash_test KEYFILE init|run|split|leave */
#include "util/status.h"
#include "util/sys.h"
#include "wtest.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_ADDR = 1, T_NEVER = 2 };
#define SPLIT_LEN (64u << 20)

static int split_crash(wt_ctx_t *c)
{
    char *buf = calloc(1, SPLIT_LEN);
    CHECK(buf != NULL);
    if (c->rank == 1) {
        uint64_t a = (uint64_t)(uintptr_t)buf;
        wt_send(c, 0, T_ADDR, &a, sizeof a);
        wt_recv_from(c, 0, T_NEVER); /* helps with rank 0's copy, and dies doing it */
        CHECK_MSG(0, "rank 1 survived");
    }
    wt_msg_t *m = wt_recv_from(c, 1, T_ADDR);
    uint64_t raddr;
    memcpy(&raddr, m->data, sizeof raddr);
    free(m);
    /* rank 1 takes part in one of these copies (it waits in the wire) */
    sl_status_t st = SL_OK;
    for (int i = 0; i < 50 && st == SL_OK; i++) {
        wire_bulk_t op;
        st = wire_get(c->wire, 1, raddr, buf, SPLIT_LEN, &op);
        if (st == SL_INPROGRESS) st = wire_bulk_wait(c->wire, &op);
    }
    CHECK_MSG(st == SL_ERR_PEER_DEAD, "wire_get returned %s, expected SL_ERR_PEER_DEAD",
              sl_status_name(st));
    printf("rank 0: split copy failed with SL_ERR_PEER_DEAD\n");
    fflush(stdout);
    return 0;
}

static int leave(wt_ctx_t *c)
{
    if (c->rank == 1) {
        wt_fini(c);
        return 0;
    }
    /* long enough for several of the wire's 100 ms dead-peer checks */
    uint64_t t0 = sl_now_ns();
    while (sl_now_ns() - t0 < 1500000000ull) {
        if (wire_progress(c->wire) > 0) continue;
        sl_status_t st = wire_wait(c->wire, 200000000);
        CHECK_MSG(st == SL_OK || st == SL_ERR_TIMEOUT, "wire_wait returned %s",
                  sl_status_name(st));
    }
    CHECK(wire_peer_gone(c->wire, 1));
    CHECK_EQ(wire_peers_gone(c->wire), 1);
    char b = 0;
    CHECK_EQ(wire_send_buf(c->wire, 1, T_NEVER, &b, 1), SL_ERR_PEER_DEAD);
    printf("rank 0: rank 1 left, no death reported\n");
    fflush(stdout);
    wt_fini(c);
    return 0;
}

int main(int argc, char **argv)
{
    CHECK(argc == 3);
    wt_ctx_t c;
    wt_boot(&c);
    if (c.rank == 0) {
        FILE *f = fopen(argv[1], "w");
        CHECK(f != NULL);
        fprintf(f, "%s\n", boot_get_info(c.boot)->jobkey);
        fclose(f);
        signal(SIGTERM, SIG_IGN);
    }
    /* nobody dies before the key is on record */
    CHECK_OK(boot_fence(c.boot));
    CHECK_OK(wt_wire(&c)); /* "init": rank 1 dies in here */
    if (strcmp(argv[2], "split") == 0) return split_crash(&c);
    if (strcmp(argv[2], "leave") == 0) return leave(&c);
    CHECK(strcmp(argv[2], "run") == 0);
    if (c.rank == 1) raise(SIGKILL);
    if (c.rank == 0) {
        for (;;) {
            if (wire_progress(c.wire) > 0) continue;
            sl_status_t st = wire_wait(c.wire, 20ll * 1000000000);
            if (st == SL_ERR_PEER_DEAD) break;
            CHECK_MSG(st == SL_OK, "wire_wait returned %s, expected SL_ERR_PEER_DEAD",
                      sl_status_name(st));
        }
        printf("rank 0: peer death detected by the wire\n");
        fflush(stdout);
    }
    return 0;
}
