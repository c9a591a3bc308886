/* A rank killed with SIGKILL.  Rank 0 records the job key in a file so the
 * driver (crash_test.sh) can look for the job's segments afterwards.
 *   mode "init": the kill comes from SLUICE_TEST_CRASH=1:wire-created, while
 *                segment names still exist (before every rank attached);
 *   mode "run":  rank 1 kills itself after set-up while rank 0 waits for a
 *                message; rank 0 ignores SIGTERM so it lives long enough to
 *                show that the wire turns the death into SL_ERR_PEER_DEAD.
 * usage: crash_test KEYFILE init|run */
#include "util/status.h"
#include "wtest.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

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
