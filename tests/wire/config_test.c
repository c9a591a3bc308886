/* Settings that cannot work are refused at wire_init with SL_ERR_CONFIG and
 * an explanation, on every rank, instead of failing later.
 * usage: config_test EXPECTED_STATUS_NAME */
#include "util/status.h"
#include "wtest.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *want = argc > 1 ? argv[1] : "SL_ERR_CONFIG";
    wt_ctx_t c;
    sl_status_t st = wt_init(&c);
    CHECK_MSG(strcmp(sl_status_name(st), want) == 0, "wire_init returned %s, expected %s",
              sl_status_name(st), want);
    CHECK(c.wire == NULL || st == SL_OK);
    if (st == SL_OK) CHECK_OK(boot_fence(c.boot));
    wt_fini(&c);
    t_done("config_test");
    return 0;
}
