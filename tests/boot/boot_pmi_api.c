/* A PMI-1 program written against pmi.h alone and linked with libpmi (not
 * with libsluice): the MPICH PMI-1 client API, its argument checks and
 * codes, and put/commit/barrier/get across ranks.  Runs under sluicerun,
 * under Hydra and as a singleton.  With argument "abort R": rank R calls
 * PMI_Abort(17, ...) while the others wait in PMI_Barrier (launcher_driver). */
#include <pmi.h>

#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "abort") == 0) {
        int spawned, me;
        CHECK_EQ(PMI_Init(&spawned), PMI_SUCCESS);
        CHECK_EQ(PMI_Get_rank(&me), PMI_SUCCESS);
        if (me == atoi(argv[2])) PMI_Abort(17, "boot_pmi_api was asked to abort");
        PMI_Barrier(); /* never completes: the aborting rank does not enter */
        return 3;
    }
    int spawned = -1, rank = -1, size = -1, appnum = -1, usize = 0;
    PMI_BOOL inited = PMI_TRUE;
    CHECK_EQ(PMI_Initialized(&inited), PMI_SUCCESS);
    CHECK_EQ(inited, PMI_FALSE);
    CHECK_EQ(PMI_Get_rank(&rank), PMI_ERR_INIT);
    CHECK_EQ(PMI_Barrier(), PMI_ERR_INIT);
    CHECK_EQ(PMI_Finalize(), PMI_ERR_INIT);
    CHECK_EQ(PMI_Initialized(NULL), PMI_ERR_INVALID_ARG);
    CHECK_EQ(PMI_Init(NULL), PMI_ERR_INVALID_ARG);

    CHECK_EQ(PMI_Init(&spawned), PMI_SUCCESS);
    CHECK_EQ(spawned, PMI_FALSE);
    CHECK_EQ(PMI_Init(&spawned), PMI_SUCCESS); /* second call: no-op */
    CHECK_EQ(PMI_Initialized(&inited), PMI_SUCCESS);
    CHECK_EQ(inited, PMI_TRUE);
    CHECK_EQ(PMI_Get_rank(&rank), PMI_SUCCESS);
    CHECK_EQ(PMI_Get_size(&size), PMI_SUCCESS);
    CHECK_EQ(PMI_Get_appnum(&appnum), PMI_SUCCESS);
    CHECK_EQ(PMI_Get_universe_size(&usize), PMI_SUCCESS);
    CHECK_EQ(PMI_Get_rank(NULL), PMI_ERR_INVALID_ARG);
    CHECK_EQ(PMI_Get_size(NULL), PMI_ERR_INVALID_ARG);
    CHECK_EQ(PMI_Get_universe_size(NULL), PMI_ERR_INVALID_ARG);
    const char *er = getenv("PMI_RANK"), *es = getenv("PMI_SIZE");
    if (er && es) {
        CHECK_EQ(rank, atoi(er));
        CHECK_EQ(size, atoi(es));
    } else {
        CHECK_EQ(rank, 0); /* singleton */
        CHECK_EQ(size, 1);
    }
    CHECK_EQ(appnum, 0);
    CHECK_MSG(usize == -1 || usize >= size, "universe size %d", usize);

    int name_max = 0, key_max = 0, val_max = 0;
    CHECK_EQ(PMI_KVS_Get_name_length_max(&name_max), PMI_SUCCESS);
    CHECK_EQ(PMI_KVS_Get_key_length_max(&key_max), PMI_SUCCESS);
    CHECK_EQ(PMI_KVS_Get_value_length_max(&val_max), PMI_SUCCESS);
    CHECK(name_max > 0 && key_max > 8 && val_max > 64);
    CHECK_EQ(PMI_KVS_Get_key_length_max(NULL), PMI_ERR_INVALID_ARG);
    char *kvs = malloc((size_t)name_max);
    CHECK(kvs != NULL);
    CHECK_EQ(PMI_KVS_Get_my_name(kvs, name_max), PMI_SUCCESS);
    CHECK(strlen(kvs) > 0);
    char tiny[1];
    CHECK_EQ(PMI_KVS_Get_my_name(tiny, 1), PMI_ERR_INVALID_LENGTH);
    CHECK_EQ(PMI_KVS_Get_my_name(NULL, name_max), PMI_ERR_INVALID_ARG);

    /* argument checks of put and get */
    char *longkey = malloc((size_t)key_max + 1), *longval = malloc((size_t)val_max + 1);
    CHECK(longkey && longval);
    memset(longkey, 'k', (size_t)key_max);
    longkey[key_max] = '\0';
    memset(longval, 'v', (size_t)val_max);
    longval[val_max] = '\0';
    CHECK_EQ(PMI_KVS_Put(kvs, NULL, "v"), PMI_ERR_INVALID_KEY);
    CHECK_EQ(PMI_KVS_Put(kvs, "", "v"), PMI_ERR_INVALID_KEY);
    CHECK_EQ(PMI_KVS_Put(kvs, "a key", "v"), PMI_ERR_INVALID_KEY);
    CHECK_EQ(PMI_KVS_Put(kvs, "a=b", "v"), PMI_ERR_INVALID_KEY);
    CHECK_EQ(PMI_KVS_Put(kvs, longkey, "v"), PMI_ERR_INVALID_KEY_LENGTH);
    CHECK_EQ(PMI_KVS_Put(kvs, "k", NULL), PMI_ERR_INVALID_VAL);
    CHECK_EQ(PMI_KVS_Put(kvs, "k", "two words"), PMI_ERR_INVALID_VAL);
    CHECK_EQ(PMI_KVS_Put(kvs, "k", longval), PMI_ERR_INVALID_VAL_LENGTH);
    CHECK_EQ(PMI_KVS_Put(NULL, "k", "v"), PMI_ERR_INVALID_ARG);
    CHECK_EQ(PMI_KVS_Put("some-other-kvs", "k", "v"), PMI_ERR_INVALID_ARG);
    CHECK_EQ(PMI_KVS_Commit(NULL), PMI_ERR_INVALID_ARG);
    char value[256];
    CHECK_EQ(PMI_KVS_Get(kvs, NULL, value, sizeof value), PMI_ERR_INVALID_KEY);
    CHECK_EQ(PMI_KVS_Get(kvs, "k", NULL, 10), PMI_ERR_INVALID_ARG);
    CHECK_EQ(PMI_KVS_Get(kvs, "k", value, 0), PMI_ERR_INVALID_LENGTH);

    /* put, commit, barrier, get every rank's value */
    char key[64], val[64];
    snprintf(key, sizeof key, "api-%d", rank);
    snprintf(val, sizeof val, "value-of-%d", rank * 1009);
    CHECK_EQ(PMI_KVS_Put(kvs, key, val), PMI_SUCCESS);
    CHECK_EQ(PMI_KVS_Commit(kvs), PMI_SUCCESS);
    CHECK_EQ(PMI_Barrier(), PMI_SUCCESS);
    for (int r = 0; r < size; r++) {
        snprintf(key, sizeof key, "api-%d", r);
        snprintf(val, sizeof val, "value-of-%d", r * 1009);
        memset(value, 0, sizeof value);
        CHECK_EQ(PMI_KVS_Get(kvs, key, value, sizeof value), PMI_SUCCESS);
        CHECK_MSG(strcmp(value, val) == 0, "rank %d's value '%s'", r, value);
        strcpy(value, "untouched");
        CHECK_EQ(PMI_KVS_Get(kvs, key, value, 4), PMI_ERR_INVALID_LENGTH);
        CHECK(strcmp(value, "untouched") == 0);
    }
    CHECK_EQ(PMI_KVS_Get(kvs, "never-put", value, sizeof value), PMI_FAIL);
    CHECK_EQ(PMI_Barrier(), PMI_SUCCESS);

    CHECK_EQ(PMI_Finalize(), PMI_SUCCESS);
    CHECK_EQ(PMI_Initialized(&inited), PMI_SUCCESS);
    CHECK_EQ(inited, PMI_FALSE);
    CHECK_EQ(PMI_Finalize(), PMI_ERR_INIT);
    CHECK_EQ(PMI_KVS_Put(kvs, "k", "v"), PMI_ERR_INIT);
    /* one init per process under a launcher; a singleton may start over */
    CHECK_EQ(PMI_Init(&spawned), er ? PMI_FAIL : PMI_SUCCESS);
    if (!er) CHECK_EQ(PMI_Finalize(), PMI_SUCCESS);
    free(kvs);
    free(longkey);
    free(longval);
    t_done("boot_pmi_api");
    return 0;
}
