/* The status table and the settings table. */
#include "test.h"
#include "util/param.h"
#include "util/status.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    CHECK_EQ(SL_OK, 0);
    CHECK(strcmp(sl_status_name(SL_OK), "SL_OK") == 0);
    CHECK(strcmp(sl_status_name(SL_ERR_CONFIG), "SL_ERR_CONFIG") == 0);
    CHECK(strcmp(sl_status_string(SL_ERR_NOMEM), "out of memory") == 0);
    CHECK(strcmp(sl_status_string((sl_status_t)12345), "unknown status") == 0);
    CHECK(SL_INPROGRESS > 0 && SL_AGAIN > 0 && SL_INPROGRESS != SL_AGAIN);
    CHECK(SL_IS_ERR(SL_ERR_INVALID) && !SL_IS_ERR(SL_AGAIN));

    /* Every setting has a SLUICE_ name, a help text and a default within range. */
    for (int i = 0; i < SL_PARAM_COUNT; i++) {
        const sl_param_desc_t *d = sl_param_desc((sl_param_id_t)i);
        CHECK(d && strncmp(d->name, "SLUICE_", 7) == 0 && d->help && *d->help);
        if (d->kind == SL_PARAM_KIND_INT) {
            unsetenv(d->name);
            long v;
            CHECK_OK(sl_param_int((sl_param_id_t)i, &v));
            CHECK(v >= d->min && v <= d->max);
        }
    }
    CHECK(sl_param_desc(SL_PARAM_COUNT) == NULL);

    long v = -1;
    setenv("SLUICE_CREDIT_SLOTS", "3", 1);
    CHECK_OK(sl_param_int(SL_PARAM_CREDIT_SLOTS, &v));
    CHECK_EQ(v, 3);
    setenv("SLUICE_CREDIT_SLOTS", "0", 1); /* below min 1 */
    CHECK_EQ(sl_param_int(SL_PARAM_CREDIT_SLOTS, &v), SL_ERR_CONFIG);
    CHECK_EQ(v, 3); /* untouched on error */
    setenv("SLUICE_CREDIT_SLOTS", "2x", 1);
    CHECK_EQ(sl_param_int(SL_PARAM_CREDIT_SLOTS, &v), SL_ERR_CONFIG);
    setenv("SLUICE_CREDIT_SLOTS", "0x4", 1);
    CHECK_OK(sl_param_int(SL_PARAM_CREDIT_SLOTS, &v));
    CHECK_EQ(v, 4);
    setenv("SLUICE_STATS", "garbage", 1);
    CHECK(!sl_param_flag(SL_PARAM_STATS));
    setenv("SLUICE_STATS", "1", 1);
    CHECK(sl_param_flag(SL_PARAM_STATS));
    t_done("status_param_test");
    return 0;
}
