/* MPICH-compatible PMI-1 client API (libpmi) over boot's PMI client.  Only
 * the PMI_* functions are exported; everything else in libpmi is hidden. */
#include "boot/pmi_client.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

#pragma GCC visibility push(default)
#include "pmi.h"
#pragma GCC visibility pop

static boot_pmi_t pmi_state;
static int pmi_inited;

/* Status of the client to a PMI code; the client already logged the reason. */
static int pmi_code(sl_status_t st)
{
    switch (st) {
    case SL_OK:
        return PMI_SUCCESS;
    case SL_ERR_NOMEM:
        return PMI_ERR_NOMEM;
    case SL_ERR_INVALID:
        return PMI_ERR_INVALID_ARG;
    case SL_ERR_TRUNCATE:
        return PMI_ERR_INVALID_LENGTH;
    default:
        return PMI_FAIL;
    }
}

static int pmi_out_int(int *out, int value)
{
    if (!pmi_inited) return PMI_ERR_INIT;
    if (!out) return PMI_ERR_INVALID_ARG;
    *out = value;
    return PMI_SUCCESS;
}

/* This job's kvsname is the only one served. */
static int pmi_check_kvsname(const char kvsname[])
{
    if (!pmi_inited) return PMI_ERR_INIT;
    if (!kvsname || strcmp(kvsname, pmi_state.kvsname) != 0) return PMI_ERR_INVALID_ARG;
    return PMI_SUCCESS;
}

static int pmi_check_key(const char key[])
{
    if (!key || !*key) return PMI_ERR_INVALID_KEY;
    if (strlen(key) >= (size_t)pmi_state.keylen_max) return PMI_ERR_INVALID_KEY_LENGTH;
    return boot_pmi_key_ok(&pmi_state, key) ? PMI_SUCCESS : PMI_ERR_INVALID_KEY;
}

int PMI_Init(int *spawned)
{
    if (!spawned) return PMI_ERR_INVALID_ARG;
    *spawned = PMI_FALSE;
    if (pmi_inited) return PMI_SUCCESS;
    sl_status_t st = boot_pmi_init(&pmi_state);
    if (st != SL_OK) return pmi_code(st) == PMI_ERR_NOMEM ? PMI_ERR_NOMEM : PMI_FAIL;
    sl_log_set_rank(pmi_state.rank);
    pmi_inited = 1;
    return PMI_SUCCESS;
}

int PMI_Initialized(PMI_BOOL *initialized)
{
    if (!initialized) return PMI_ERR_INVALID_ARG;
    *initialized = pmi_inited ? PMI_TRUE : PMI_FALSE;
    return PMI_SUCCESS;
}

int PMI_Finalize(void)
{
    if (!pmi_inited) return PMI_ERR_INIT;
    pmi_inited = 0;
    return boot_pmi_fini(&pmi_state) == SL_OK ? PMI_SUCCESS : PMI_FAIL;
}

int PMI_Get_size(int *size)
{
    return pmi_out_int(size, pmi_state.size);
}

int PMI_Get_rank(int *rank)
{
    return pmi_out_int(rank, pmi_state.rank);
}

int PMI_Get_appnum(int *appnum)
{
    return pmi_out_int(appnum, pmi_state.appnum);
}

int PMI_Get_universe_size(int *size)
{
    if (!pmi_inited) return PMI_ERR_INIT;
    if (!size) return PMI_ERR_INVALID_ARG;
    int n;
    sl_status_t st = boot_pmi_universe_size(&pmi_state, &n);
    if (st != SL_OK) return PMI_FAIL;
    *size = n;
    return PMI_SUCCESS;
}

int PMI_Barrier(void)
{
    if (!pmi_inited) return PMI_ERR_INIT;
    return boot_pmi_barrier(&pmi_state) == SL_OK ? PMI_SUCCESS : PMI_FAIL;
}

int PMI_Abort(int exit_code, const char msg[])
{
    boot_pmi_abort(pmi_inited ? &pmi_state : NULL, exit_code, msg);
}

int PMI_KVS_Get_my_name(char kvsname[], int length)
{
    if (!pmi_inited) return PMI_ERR_INIT;
    if (!kvsname) return PMI_ERR_INVALID_ARG;
    size_t n = strlen(pmi_state.kvsname);
    if (length <= 0 || (size_t)length <= n) return PMI_ERR_INVALID_LENGTH;
    memcpy(kvsname, pmi_state.kvsname, n + 1);
    return PMI_SUCCESS;
}

int PMI_KVS_Get_name_length_max(int *length)
{
    return pmi_out_int(length, pmi_state.kvsname_max);
}

int PMI_KVS_Get_key_length_max(int *length)
{
    return pmi_out_int(length, pmi_state.keylen_max);
}

int PMI_KVS_Get_value_length_max(int *length)
{
    return pmi_out_int(length, pmi_state.vallen_max);
}

int PMI_KVS_Put(const char kvsname[], const char key[], const char value[])
{
    int rc = pmi_check_kvsname(kvsname);
    if (rc == PMI_SUCCESS) rc = pmi_check_key(key);
    if (rc != PMI_SUCCESS) return rc;
    if (!value) return PMI_ERR_INVALID_VAL;
    if (strlen(value) >= (size_t)pmi_state.vallen_max) return PMI_ERR_INVALID_VAL_LENGTH;
    if (!boot_pmi_value_ok(&pmi_state, value)) return PMI_ERR_INVALID_VAL;
    return pmi_code(boot_pmi_put(&pmi_state, key, value));
}

int PMI_KVS_Commit(const char kvsname[])
{
    return pmi_check_kvsname(kvsname);
}

int PMI_KVS_Get(const char kvsname[], const char key[], char value[], int length)
{
    int rc = pmi_check_kvsname(kvsname);
    if (rc == PMI_SUCCESS) rc = pmi_check_key(key);
    if (rc != PMI_SUCCESS) return rc;
    if (!value) return PMI_ERR_INVALID_ARG;
    if (length <= 0) return PMI_ERR_INVALID_LENGTH;
    sl_status_t st = boot_pmi_get(&pmi_state, key, value, (size_t)length);
    if (st == SL_ERR_NOTFOUND) return PMI_FAIL;
    return pmi_code(st);
}
