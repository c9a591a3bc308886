/* Job bootstrap over the PMI-1 client; see boot.h. */
#include "boot/boot.h"
#include "boot/pmi_client.h"
#include "util/log.h"
#include "util/param.h"
#include "util/sys.h"

#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BOOT_JOBKEY_KVS_KEY "sluice-jobkey"

struct boot {
    boot_pmi_t pmi;
    boot_info_t info;
};

/* True when text is exactly BOOT_JOBKEY_LEN hex digits. */
static bool boot_jobkey_valid(const char *text)
{
    size_t i;
    for (i = 0; text[i]; i++) {
        char c = text[i];
        if (i >= BOOT_JOBKEY_LEN) return false;
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return false;
    }
    return i == BOOT_JOBKEY_LEN;
}

static sl_status_t boot_jobkey_draw(char *out)
{
    unsigned char bytes[BOOT_JOBKEY_LEN / 2];
    sl_status_t st = sl_random_bytes(bytes, sizeof bytes);
    if (st != SL_OK) {
        sl_log_error("boot: no random bytes for the job key");
        return st;
    }
    for (size_t i = 0; i < sizeof bytes; i++)
        snprintf(out + 2 * i, 3, "%02x", bytes[i]);
    return SL_OK;
}

/* SLUICE_JOBKEY when well formed (lowercased), else rank 0 draws one and
 * publishes it; everyone reads it after one barrier. */
static sl_status_t boot_jobkey_establish(boot_t *boot)
{
    char *key = boot->info.jobkey;
    const char *env = sl_param_str(SL_PARAM_JOBKEY);
    if (*env) {
        if (boot_jobkey_valid(env)) {
            for (int i = 0; i < BOOT_JOBKEY_LEN; i++)
                key[i] = (char)(env[i] >= 'A' && env[i] <= 'F' ? env[i] - 'A' + 'a' : env[i]);
            key[BOOT_JOBKEY_LEN] = '\0';
            return SL_OK;
        }
        sl_log_warn("boot: ignoring SLUICE_JOBKEY: not %d hex digits", BOOT_JOBKEY_LEN);
    }
    sl_status_t st;
    if (boot->info.singleton) return boot_jobkey_draw(key);
    if (boot->info.rank == 0) {
        if ((st = boot_jobkey_draw(key)) != SL_OK ||
            (st = boot_pmi_put(&boot->pmi, BOOT_JOBKEY_KVS_KEY, key)) != SL_OK)
            return st;
    }
    if ((st = boot_pmi_barrier(&boot->pmi)) != SL_OK) return st;
    if (boot->info.rank != 0) {
        char got[BOOT_JOBKEY_LEN + 2];
        st = boot_pmi_get(&boot->pmi, BOOT_JOBKEY_KVS_KEY, got, sizeof got);
        if (st != SL_OK || !boot_jobkey_valid(got)) {
            sl_log_error("boot: rank 0 did not publish a valid job key (%s)",
                         st != SL_OK ? sl_status_string(st) : "malformed");
            return st != SL_OK ? st : SL_ERR_PROTO;
        }
        memcpy(key, got, BOOT_JOBKEY_LEN + 1);
    }
    return SL_OK;
}

/* One connection to the launcher per process, shared by every user in it
 * (the Portals engine, MPI, tests): PMI-1 allows one client per process. */
static pthread_mutex_t boot_lock = PTHREAD_MUTEX_INITIALIZER;
static boot_t *boot_single;
static int boot_refs;

static sl_status_t boot_open(boot_t **out);

sl_status_t boot_init(boot_t **out)
{
    if (!out) return SL_ERR_INVALID;
    pthread_mutex_lock(&boot_lock);
    sl_status_t st = SL_OK;
    if (!boot_single) st = boot_open(&boot_single);
    if (st == SL_OK) {
        boot_refs++;
        *out = boot_single;
    }
    pthread_mutex_unlock(&boot_lock);
    return st;
}

static sl_status_t boot_open(boot_t **out)
{
    boot_t *boot = calloc(1, sizeof *boot);
    if (!boot) return SL_ERR_NOMEM;
    sl_status_t st = boot_pmi_init(&boot->pmi);
    if (st != SL_OK) goto err_free;
    boot_info_t *info = &boot->info;
    info->rank = boot->pmi.rank;
    info->size = boot->pmi.size;
    info->appnum = boot->pmi.appnum;
    info->singleton = boot->pmi.singleton;
    snprintf(info->kvsname, sizeof info->kvsname, "%s", boot->pmi.kvsname);
    sl_log_set_rank(info->rank);
    if ((st = boot_jobkey_establish(boot)) != SL_OK) goto err_pmi;
    sl_log_debug("boot: rank %d of %d%s, kvs %s", info->rank, info->size,
                 info->singleton ? " (singleton)" : "", info->kvsname);
    *out = boot;
    return SL_OK;

err_pmi:
    boot_pmi_fini(&boot->pmi);
err_free:
    free(boot);
    return st;
}

const boot_info_t *boot_get_info(const boot_t *boot)
{
    return boot ? &boot->info : NULL;
}

/* boot.h's contract is stricter than the protocol's: no empty values, no '='. */
static bool boot_value_ok(const boot_t *boot, const char *value)
{
    return value && *value && !strchr(value, '=') && boot_pmi_value_ok(&boot->pmi, value);
}

sl_status_t boot_put(boot_t *boot, const char *key, const char *value)
{
    if (!boot || !boot_pmi_key_ok(&boot->pmi, key) || !boot_value_ok(boot, value))
        return SL_ERR_INVALID;
    return boot_pmi_put(&boot->pmi, key, value);
}

sl_status_t boot_fence(boot_t *boot)
{
    if (!boot) return SL_ERR_INVALID;
    return boot_pmi_barrier(&boot->pmi);
}

sl_status_t boot_get(boot_t *boot, const char *key, char *value, size_t len)
{
    if (!boot || !value || len == 0 || !boot_pmi_key_ok(&boot->pmi, key)) return SL_ERR_INVALID;
    return boot_pmi_get(&boot->pmi, key, value, len);
}

void boot_abort(boot_t *boot, int code, const char *msg)
{
    boot_pmi_abort(boot ? &boot->pmi : NULL, code, msg);
}

sl_status_t boot_fini(boot_t *boot)
{
    if (!boot) return SL_ERR_INVALID;
    pthread_mutex_lock(&boot_lock);
    sl_status_t st = SL_OK;
    if (boot != boot_single || boot_refs <= 0) {
        st = SL_ERR_INVALID;
    } else if (--boot_refs == 0) {
        st = boot_pmi_fini(&boot->pmi);
        free(boot);
        boot_single = NULL;
    }
    pthread_mutex_unlock(&boot_lock);
    return st;
}
