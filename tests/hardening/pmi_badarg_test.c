/* Every call of pmi.h with bad arguments, in one table, against the codes
 * pmi.h documents: before PMI_Init, PMI_ERR_INIT (PMI_Initialized answers
 * PMI_FALSE); after it, NULL pointers (PMI_ERR_INVALID_ARG), another job's
 * key-value space name, malformed and over-long keys and values, buffers
 * too short, unknown keys.  Run as a singleton and as one rank under
 * sluicerun (the launcher's wire protocol). */
#include <pmi.h>

#include "badarg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char name[256], value[2048], longkey[200], longval[2000];
static int n, spawned, maxkey, maxval;
static PMI_BOOL inited;

#define NO_INIT_ROWS(X)                                                                     \
    X("PMI_Initialized", (PMI_Initialized(&inited) == PMI_SUCCESS && inited == PMI_FALSE)    \
                             ? PMI_SUCCESS : PMI_FAIL, PMI_SUCCESS)                         \
    X("PMI_Finalize", PMI_Finalize(), PMI_ERR_INIT)                                         \
    X("PMI_Get_size", PMI_Get_size(&n), PMI_ERR_INIT)                                       \
    X("PMI_Get_rank", PMI_Get_rank(&n), PMI_ERR_INIT)                                       \
    X("PMI_Get_universe_size", PMI_Get_universe_size(&n), PMI_ERR_INIT)                     \
    X("PMI_Get_appnum", PMI_Get_appnum(&n), PMI_ERR_INIT)                                   \
    X("PMI_Barrier", PMI_Barrier(), PMI_ERR_INIT)                                           \
    X("PMI_KVS_Get_my_name", PMI_KVS_Get_my_name(name, sizeof name), PMI_ERR_INIT)          \
    X("PMI_KVS_Get_name_length_max", PMI_KVS_Get_name_length_max(&n), PMI_ERR_INIT)         \
    X("PMI_KVS_Get_key_length_max", PMI_KVS_Get_key_length_max(&n), PMI_ERR_INIT)           \
    X("PMI_KVS_Get_value_length_max", PMI_KVS_Get_value_length_max(&n), PMI_ERR_INIT)       \
    X("PMI_KVS_Put", PMI_KVS_Put("x", "k", "v"), PMI_ERR_INIT)                              \
    X("PMI_KVS_Commit", PMI_KVS_Commit("x"), PMI_ERR_INIT)                                  \
    X("PMI_KVS_Get", PMI_KVS_Get("x", "k", value, sizeof value), PMI_ERR_INIT)              \
    X("PMI_Init NULL", PMI_Init(NULL), PMI_ERR_INVALID_ARG)

#define ROWS(X)                                                                             \
    X("PMI_Initialized NULL", PMI_Initialized(NULL), PMI_ERR_INVALID_ARG)                   \
    X("PMI_Get_size NULL", PMI_Get_size(NULL), PMI_ERR_INVALID_ARG)                         \
    X("PMI_Get_rank NULL", PMI_Get_rank(NULL), PMI_ERR_INVALID_ARG)                         \
    X("PMI_Get_universe_size NULL", PMI_Get_universe_size(NULL), PMI_ERR_INVALID_ARG)       \
    X("PMI_Get_appnum NULL", PMI_Get_appnum(NULL), PMI_ERR_INVALID_ARG)                     \
    X("PMI_KVS_Get_my_name NULL", PMI_KVS_Get_my_name(NULL, 64), PMI_ERR_INVALID_ARG)       \
    X("PMI_KVS_Get_my_name length 1", PMI_KVS_Get_my_name(name, 1), PMI_ERR_INVALID_LENGTH) \
    X("PMI_KVS_Get_my_name length 0", PMI_KVS_Get_my_name(name, 0), PMI_ERR_INVALID_LENGTH) \
    X("PMI_KVS_Get_name_length_max NULL", PMI_KVS_Get_name_length_max(NULL), PMI_ERR_INVALID_ARG) \
    X("PMI_KVS_Get_key_length_max NULL", PMI_KVS_Get_key_length_max(NULL), PMI_ERR_INVALID_ARG) \
    X("PMI_KVS_Get_value_length_max NULL", PMI_KVS_Get_value_length_max(NULL),             \
      PMI_ERR_INVALID_ARG)                                                                  \
    X("PMI_KVS_Put NULL kvsname", PMI_KVS_Put(NULL, "k", "v"), PMI_ERR_INVALID_ARG)         \
    X("PMI_KVS_Put another kvsname", PMI_KVS_Put("not_this_job", "k", "v"),                 \
      PMI_ERR_INVALID_ARG)                                                                  \
    X("PMI_KVS_Put NULL key", PMI_KVS_Put(name, NULL, "v"), PMI_ERR_INVALID_KEY)            \
    X("PMI_KVS_Put empty key", PMI_KVS_Put(name, "", "v"), PMI_ERR_INVALID_KEY)             \
    X("PMI_KVS_Put key with a space", PMI_KVS_Put(name, "a b", "v"), PMI_ERR_INVALID_KEY)   \
    X("PMI_KVS_Put key with '='", PMI_KVS_Put(name, "a=b", "v"), PMI_ERR_INVALID_KEY)       \
    X("PMI_KVS_Put key with a newline", PMI_KVS_Put(name, "a\nb", "v"), PMI_ERR_INVALID_KEY) \
    X("PMI_KVS_Put key too long", PMI_KVS_Put(name, longkey, "v"), PMI_ERR_INVALID_KEY_LENGTH) \
    X("PMI_KVS_Put NULL value", PMI_KVS_Put(name, "k", NULL), PMI_ERR_INVALID_VAL)          \
    X("PMI_KVS_Put value with a space", PMI_KVS_Put(name, "k", "a b"), PMI_ERR_INVALID_VAL) \
    X("PMI_KVS_Put value with a newline", PMI_KVS_Put(name, "k", "a\nb"), PMI_ERR_INVALID_VAL) \
    X("PMI_KVS_Put value too long", PMI_KVS_Put(name, "k", longval),                        \
      PMI_ERR_INVALID_VAL_LENGTH)                                                           \
    X("PMI_KVS_Commit NULL", PMI_KVS_Commit(NULL), PMI_ERR_INVALID_ARG)                     \
    X("PMI_KVS_Commit another kvsname", PMI_KVS_Commit("not_this_job"), PMI_ERR_INVALID_ARG) \
    X("PMI_KVS_Get NULL kvsname", PMI_KVS_Get(NULL, "k", value, sizeof value),              \
      PMI_ERR_INVALID_ARG)                                                                  \
    X("PMI_KVS_Get another kvsname", PMI_KVS_Get("not_this_job", "k", value, sizeof value), \
      PMI_ERR_INVALID_ARG)                                                                  \
    X("PMI_KVS_Get NULL key", PMI_KVS_Get(name, NULL, value, sizeof value),                 \
      PMI_ERR_INVALID_KEY)                                                                  \
    X("PMI_KVS_Get key with a space", PMI_KVS_Get(name, "a b", value, sizeof value),        \
      PMI_ERR_INVALID_KEY)                                                                  \
    X("PMI_KVS_Get key too long", PMI_KVS_Get(name, longkey, value, sizeof value),          \
      PMI_ERR_INVALID_KEY_LENGTH)                                                           \
    X("PMI_KVS_Get NULL value", PMI_KVS_Get(name, "known", NULL, 64), PMI_ERR_INVALID_ARG)  \
    X("PMI_KVS_Get length too short", PMI_KVS_Get(name, "known", value, 3),                 \
      PMI_ERR_INVALID_LENGTH)                                                               \
    X("PMI_KVS_Get unknown key", PMI_KVS_Get(name, "never_put", value, sizeof value), PMI_FAIL) \
    X("PMI_Init again", PMI_Init(&spawned), PMI_SUCCESS)

BADARG_TABLES()

int main(void)
{
    int bad = badarg_check("pmi.h before PMI_Init", no_init_rows,
                    (int)(sizeof no_init_rows / sizeof *no_init_rows), no_init_call);
    if (PMI_Init(&spawned) != PMI_SUCCESS || PMI_KVS_Get_my_name(name, sizeof name) != PMI_SUCCESS ||
        PMI_KVS_Get_key_length_max(&maxkey) != PMI_SUCCESS ||
        PMI_KVS_Get_value_length_max(&maxval) != PMI_SUCCESS ||
        maxkey >= (int)sizeof longkey || maxval >= (int)sizeof longval) {
        printf("set-up failed\n");
        return 1;
    }
    memset(longkey, 'k', (size_t)maxkey); /* maxkey counts the NUL: one too many */
    memset(longval, 'v', (size_t)maxval);
    if (PMI_KVS_Put(name, "known", "0123456789") != PMI_SUCCESS || PMI_Barrier() != PMI_SUCCESS) {
        printf("set-up put failed\n");
        return 1;
    }
    bad += badarg_check("pmi.h", rows, (int)(sizeof rows / sizeof *rows), call);
    PMI_Finalize();
    printf("%s\n", bad ? "FAILED" : "all documented codes");
    return bad ? 1 : 0;
}
