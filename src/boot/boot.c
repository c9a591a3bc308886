/* Job bootstrap over the PMI-1 client; see boot.h. */
#include "boot/boot.h"
#include "util/log.h"
#include "util/param.h"
#include "util/sys.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BOOT_JOBKEY_KVS_KEY "sluice-jobkey"

/* The bootstrap goes through the public PMI-1 API (pmi_api.c), never a
 * client of its own: every PMI_* reference in a process resolves to one
 * implementation, so a program that calls PMI itself and also uses Sluice
 * (the Portals 4 reference tests link -lportals and a PMI library) shares a
 * single connection to the launcher.  PMI is initialised here only if the
 * program has not done it, and finalised only if it was initialised here. */
#pragma GCC visibility push(default)
#include "pmi.h"
#pragma GCC visibility pop

struct boot {
    boot_info_t info;
    bool owns_pmi;
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
            (st = boot_put(boot, BOOT_JOBKEY_KVS_KEY, key)) != SL_OK)
            return st;
    }
    if ((st = boot_fence(boot)) != SL_OK) return st;
    if (boot->info.rank != 0) {
        char got[BOOT_JOBKEY_LEN + 2];
        st = boot_get(boot, BOOT_JOBKEY_KVS_KEY, got, sizeof got);
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
    /* PMI_Init fails when there is no usable launcher connection (including
     * a second init after finalize): a configuration error, as boot.h says */
    sl_status_t st = SL_ERR_CONFIG;
    PMI_BOOL inited = PMI_FALSE;
    int spawned;
    PMI_Initialized(&inited);
    if (!inited) {
        if (PMI_Init(&spawned) != PMI_SUCCESS) goto err_free;
        boot->owns_pmi = true;
    }
    boot_info_t *info = &boot->info;
    if (PMI_Get_rank(&info->rank) != PMI_SUCCESS || PMI_Get_size(&info->size) != PMI_SUCCESS ||
        PMI_Get_appnum(&info->appnum) != PMI_SUCCESS ||
        PMI_KVS_Get_my_name(info->kvsname, (int)sizeof info->kvsname) != PMI_SUCCESS)
        goto err_pmi;
    info->singleton = !getenv("PMI_FD") && !getenv("PMI_PORT");
    sl_log_set_rank(info->rank);
    if ((st = boot_jobkey_establish(boot)) != SL_OK) goto err_pmi;
    sl_log_debug("boot: rank %d of %d%s, kvs %s", info->rank, info->size,
                 info->singleton ? " (singleton)" : "", info->kvsname);
    *out = boot;
    return SL_OK;

err_pmi:
    if (boot->owns_pmi) PMI_Finalize();
err_free:
    free(boot);
    return st;
}

const boot_info_t *boot_get_info(const boot_t *boot)
{
    return boot ? &boot->info : NULL;
}

/* boot.h's contract is stricter than the protocol's: no empty values, no '=',
 * no spaces or newlines (PMI-1 has no quoting). */
static bool boot_text_ok(const char *t)
{
    return t && *t && !strpbrk(t, "= \t\r\n");
}

static sl_status_t boot_status(int rc)
{
    switch (rc) {
    case PMI_SUCCESS: return SL_OK;
    case PMI_ERR_NOMEM: return SL_ERR_NOMEM;
    case PMI_ERR_INVALID_LENGTH:
    case PMI_ERR_INVALID_VAL_LENGTH:
    case PMI_ERR_INVALID_KEY_LENGTH: return SL_ERR_TRUNCATE;
    case PMI_ERR_INVALID_ARG:
    case PMI_ERR_INVALID_KEY:
    case PMI_ERR_INVALID_VAL: return SL_ERR_INVALID;
    default: return SL_ERR_PROTO;
    }
}

sl_status_t boot_put(boot_t *boot, const char *key, const char *value)
{
    if (!boot || !boot_text_ok(key) || !boot_text_ok(value)) return SL_ERR_INVALID;
    int rc = PMI_KVS_Put(boot->info.kvsname, key, value);
    return rc == PMI_ERR_INVALID_VAL_LENGTH || rc == PMI_ERR_INVALID_KEY_LENGTH
               ? SL_ERR_INVALID
               : boot_status(rc);
}

sl_status_t boot_fence(boot_t *boot)
{
    if (!boot) return SL_ERR_INVALID;
    int rc = PMI_KVS_Commit(boot->info.kvsname);
    if (rc == PMI_SUCCESS) rc = PMI_Barrier();
    return boot_status(rc);
}

sl_status_t boot_get(boot_t *boot, const char *key, char *value, size_t len)
{
    if (!boot || !value || len == 0 || len > INT32_MAX || !boot_text_ok(key))
        return SL_ERR_INVALID;
    int rc = PMI_KVS_Get(boot->info.kvsname, key, value, (int)len);
    /* with a valid name, key and buffer, PMI_FAIL means the key is unknown */
    return rc == PMI_FAIL ? SL_ERR_NOTFOUND : boot_status(rc);
}

void boot_abortf(boot_t *boot, int code, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sl_log_error("%s", msg);
    boot_abort(boot, code, msg);
}

static boot_abort_hook_fn boot_abort_hook;

void boot_set_abort_hook(boot_abort_hook_fn fn)
{
    boot_abort_hook = fn;
}

void boot_abort(boot_t *boot, int code, const char *msg)
{
    (void)boot;
    if (boot_abort_hook) boot_abort_hook(code, msg);
    PMI_Abort(code, msg);
    exit(code); /* not reached: PMI_Abort ends the process */
}

sl_status_t boot_fini(boot_t *boot)
{
    if (!boot) return SL_ERR_INVALID;
    pthread_mutex_lock(&boot_lock);
    sl_status_t st = SL_OK;
    if (boot != boot_single || boot_refs <= 0) {
        st = SL_ERR_INVALID;
    } else if (--boot_refs == 0) {
        if (boot->owns_pmi && PMI_Finalize() != PMI_SUCCESS) st = SL_ERR_PROTO;
        free(boot);
        boot_single = NULL;
    }
    pthread_mutex_unlock(&boot_lock);
    return st;
}
