/* boot.h end to end: every rank puts, fences, then reads every other rank's
 * values; the job key is well formed and the same on every rank; the error
 * contract (NOTFOUND, TRUNCATE, INVALID) holds.  Runs under sluicerun, under
 * Hydra, as a singleton (no launcher), and under launchers that do not set
 * PMI_SIZE (Open MPI's mpirun, srun): "pmix N" / "pmi1 N" then name the
 * client that must have connected and the job size.  Rank 0 prints "jobkey=<key>" so
 * that a driver can compare the keys of two jobs. */
#include "boot/boot.h"
#include "test.h"
#include "util/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_lower_hex(const char *s, size_t len)
{
    if (strlen(s) != len) return false;
    for (size_t i = 0; i < len; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
    return true;
}

int main(int argc, char **argv)
{
    /* singleton | launched | launched-port (sluicerun --pmi-port) | any
     * | pmix N | pmi1 N */
    const char *expect_mode = argc > 1 ? argv[1] : "any";
    boot_t *boot = NULL;
    CHECK_OK(boot_init(&boot));
    const boot_info_t *info = boot_get_info(boot);
    CHECK(info != NULL);
    int rank = info->rank, size = info->size;
    CHECK(size >= 1 && rank >= 0 && rank < size);
    CHECK(is_lower_hex(info->jobkey, BOOT_JOBKEY_LEN));
    CHECK(info->kvsname[0] != '\0');
    if (strcmp(expect_mode, "singleton") == 0) {
        CHECK(info->singleton);
        CHECK_EQ(rank, 0);
        CHECK_EQ(size, 1);
    } else if (strncmp(expect_mode, "launched", 8) == 0) {
        CHECK(!info->singleton);
        CHECK_EQ(size, atoi(getenv("PMI_SIZE")));
        CHECK_EQ(rank, atoi(getenv("PMI_RANK")));
        if (strcmp(expect_mode, "launched-port") == 0)
            CHECK(getenv("PMI_PORT") && getenv("PMI_ID") && !getenv("PMI_FD"));
    } else if (strcmp(expect_mode, "pmix") == 0 || strcmp(expect_mode, "pmi1") == 0) {
        boot_client_t want = expect_mode[3] == 'x' ? BOOT_CLIENT_PMIX : BOOT_CLIENT_PMI1;
        CHECK_MSG(info->client == want, "connected through %s, want %s",
                  boot_client_name(info->client), boot_client_name(want));
        CHECK(!info->singleton);
        CHECK_EQ(size, argc > 2 ? atoi(argv[2]) : -1);
    }
    const char *envkey = getenv("SLUICE_JOBKEY");
    if (envkey && is_lower_hex(envkey, BOOT_JOBKEY_LEN)) CHECK(strcmp(envkey, info->jobkey) == 0);

    /* round 1: each rank publishes a value and its view of the job key */
    char key[64], value[256], got[256];
    snprintf(key, sizeof key, "val-%d", rank);
    snprintf(value, sizeof value, "first-%d-%s", rank * 7919, info->jobkey);
    CHECK_OK(boot_put(boot, key, "to-be-replaced"));
    CHECK_OK(boot_put(boot, key, value)); /* a second put replaces the first */
    snprintf(key, sizeof key, "jobkey-%d", rank);
    CHECK_OK(boot_put(boot, key, info->jobkey));
    CHECK_OK(boot_fence(boot));
    for (int r = 0; r < size; r++) {
        snprintf(key, sizeof key, "val-%d", r);
        CHECK_OK(boot_get(boot, key, got, sizeof got));
        snprintf(value, sizeof value, "first-%d-%s", r * 7919, info->jobkey);
        CHECK_MSG(strcmp(got, value) == 0, "rank %d's value: got '%s', want '%s'", r, got, value);
        snprintf(key, sizeof key, "jobkey-%d", r);
        CHECK_OK(boot_get(boot, key, got, sizeof got));
        CHECK_MSG(strcmp(got, info->jobkey) == 0, "rank %d has job key %s, rank %d has %s", r, got,
                  rank, info->jobkey);
    }

    /* error contract */
    CHECK_EQ(boot_get(boot, "no-such-key", got, sizeof got), SL_ERR_NOTFOUND);
    snprintf(key, sizeof key, "val-%d", (rank + 1) % size);
    memcpy(got, "untouched", 10);
    CHECK_EQ(boot_get(boot, key, got, 5), SL_ERR_TRUNCATE);
    CHECK(strcmp(got, "untouched") == 0);
    CHECK_EQ(boot_put(boot, "has space", "v"), SL_ERR_INVALID);
    CHECK_EQ(boot_put(boot, "has=equals", "v"), SL_ERR_INVALID);
    CHECK_EQ(boot_put(boot, "", "v"), SL_ERR_INVALID);
    CHECK_EQ(boot_put(boot, "k", ""), SL_ERR_INVALID);
    CHECK_EQ(boot_put(boot, "k", "a b"), SL_ERR_INVALID);
    CHECK_EQ(boot_put(boot, "k", "a\nb"), SL_ERR_INVALID);
    CHECK_EQ(boot_put(boot, NULL, "v"), SL_ERR_INVALID);
    CHECK_EQ(boot_put(boot, "k", NULL), SL_ERR_INVALID);
    char longkey[200];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    CHECK_EQ(boot_put(boot, longkey, "v"), SL_ERR_INVALID);
    CHECK_EQ(boot_get(boot, "k", NULL, 10), SL_ERR_INVALID);

    /* round 2: values replaced before a fence are seen replaced after it (the
     * first fence keeps a fast rank from replacing values still being read) */
    CHECK_OK(boot_fence(boot));
    snprintf(key, sizeof key, "val-%d", rank);
    snprintf(value, sizeof value, "second-%d", rank);
    CHECK_OK(boot_put(boot, key, value));
    CHECK_OK(boot_fence(boot));
    for (int r = 0; r < size; r++) {
        snprintf(key, sizeof key, "val-%d", r);
        CHECK_OK(boot_get(boot, key, got, sizeof got));
        snprintf(value, sizeof value, "second-%d", r);
        CHECK_MSG(strcmp(got, value) == 0, "round 2, rank %d: got '%s'", r, got);
    }
    CHECK_OK(boot_fence(boot));
    if (rank == 0) printf("jobkey=%s\n", info->jobkey);
    bool singleton = info->singleton;
    CHECK_OK(boot_fini(boot));
    /* PMI-1: one init per process; a singleton has no connection to lose */
    boot_t *again = NULL;
    sl_status_t st = boot_init(&again);
    if (singleton) {
        CHECK_OK(st);
        CHECK_OK(boot_fini(again));
    } else {
        CHECK_EQ(st, SL_ERR_CONFIG);
        CHECK(again == NULL);
    }
    t_done("boot_kvs");
    return 0;
}
