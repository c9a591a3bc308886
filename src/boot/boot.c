/* Job bootstrap: chooses the client (PMI-1, PMIx, singleton), establishes
 * the job key and dispatches boot.h's calls to the client's table; see
 * boot.h and boot_int.h. */
#include "boot/boot_int.h"
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
    const boot_ops_t *ops;
    bool owns_pmi; /* PMI-1: initialised here, so finalised here */
};

extern char **environ;

bool boot_pmix_env(void)
{
    if (getenv("PMIX_NAMESPACE") || getenv("PMIX_RANK")) return true;
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, "PMIX_SERVER_URI", 15) == 0) return true;
    return false;
}

const char *boot_client_name(boot_client_t client)
{
    switch (client) {
    case BOOT_CLIENT_PMI1: return "PMI-1";
    case BOOT_CLIENT_PMIX: return "PMIx";
    default: return "singleton";
    }
}

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

/* ---- the PMI-1 client (through pmi_api.c) ---------------------------------------- */

static sl_status_t boot_pmi1_status(int rc)
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

static sl_status_t boot_pmi1_put(boot_t *boot, const char *key, const char *value)
{
    int rc = PMI_KVS_Put(boot->info.kvsname, key, value);
    /* longer than the launcher's own limits: boot.h calls that invalid input */
    return rc == PMI_ERR_INVALID_VAL_LENGTH || rc == PMI_ERR_INVALID_KEY_LENGTH
               ? SL_ERR_INVALID
               : boot_pmi1_status(rc);
}

static sl_status_t boot_pmi1_fence(boot_t *boot)
{
    int rc = PMI_KVS_Commit(boot->info.kvsname);
    if (rc == PMI_SUCCESS) rc = PMI_Barrier();
    return boot_pmi1_status(rc);
}

static sl_status_t boot_pmi1_get(boot_t *boot, const char *key, char *value, size_t len)
{
    int rc = PMI_KVS_Get(boot->info.kvsname, key, value, (int)len);
    /* with a valid name, key and buffer, PMI_FAIL means the key is unknown */
    return rc == PMI_FAIL ? SL_ERR_NOTFOUND : boot_pmi1_status(rc);
}

static void boot_pmi1_abort(boot_t *boot, int code, const char *msg)
{
    PMI_Abort(code, msg); /* ends the process (exits itself when alone) */
}

static sl_status_t boot_pmi1_fini(boot_t *boot)
{
    if (boot->owns_pmi && PMI_Finalize() != PMI_SUCCESS) return SL_ERR_PROTO;
    return SL_OK;
}

static const boot_ops_t boot_pmi1_ops = {
    .put = boot_pmi1_put,
    .fence = boot_pmi1_fence,
    .get = boot_pmi1_get,
    .abort = boot_pmi1_abort,
    .fini = boot_pmi1_fini,
};

/* PMI_Init fails when there is no usable launcher connection (including a
 * second init after finalize): a configuration error, as boot.h says.
 * Without PMI_FD or PMI_PORT the PMI-1 client is a singleton. */
static sl_status_t boot_pmi1_open(boot_t *boot, bool inited)
{
    int spawned;
    if (!inited) {
        if (PMI_Init(&spawned) != PMI_SUCCESS) return SL_ERR_CONFIG;
        boot->owns_pmi = true;
    }
    boot->ops = &boot_pmi1_ops;
    boot_info_t *info = &boot->info;
    if (PMI_Get_rank(&info->rank) != PMI_SUCCESS || PMI_Get_size(&info->size) != PMI_SUCCESS ||
        PMI_Get_appnum(&info->appnum) != PMI_SUCCESS ||
        PMI_KVS_Get_my_name(info->kvsname, (int)sizeof info->kvsname) != PMI_SUCCESS) {
        boot_pmi1_fini(boot);
        return SL_ERR_CONFIG;
    }
    info->singleton = !getenv("PMI_FD") && !getenv("PMI_PORT");
    info->client = info->singleton ? BOOT_CLIENT_SINGLETON : BOOT_CLIENT_PMI1;
    return SL_OK;
}

/* PMI-1 first: the program may have called PMI_Init itself (then the
 * bootstrap shares its connection), and a PMI-1 launcher nested in a PMIx job
 * hands its ranks PMI_FD while the outer PMIX_* variables pass through. */
static sl_status_t boot_connect(boot_t *boot)
{
    PMI_BOOL inited = PMI_FALSE;
    PMI_Initialized(&inited);
    bool pmi1 = inited || getenv("PMI_FD") || getenv("PMI_PORT");
    if (!pmi1 && boot_pmix_env()) {
        boot->info.client = BOOT_CLIENT_PMIX;
        return boot_pmix_open(&boot->info, &boot->ops);
    }
    return boot_pmi1_open(boot, inited);
}

static sl_status_t boot_open(boot_t **out)
{
    boot_t *boot = calloc(1, sizeof *boot);
    if (!boot) return SL_ERR_NOMEM;
    sl_status_t st = boot_connect(boot);
    if (st != SL_OK) {
        free(boot);
        return st;
    }
    boot_info_t *info = &boot->info;
    sl_log_set_rank(info->rank);
    if ((st = boot_jobkey_establish(boot)) != SL_OK) {
        boot->ops->fini(boot);
        free(boot);
        return st;
    }
    sl_log_debug("boot: rank %d of %d through %s, kvs %s", info->rank, info->size,
                 boot_client_name(info->client), info->kvsname);
    *out = boot;
    return SL_OK;
}

const boot_info_t *boot_get_info(const boot_t *boot)
{
    return boot ? &boot->info : NULL;
}

/* boot.h's contract is stricter than the protocols': no empty values, no '=',
 * no spaces or newlines (PMI-1 has no quoting), and one set of length limits
 * for every client, so that a program's keys work under any launcher. */
static bool boot_text_ok(const char *t, size_t max)
{
    return t && *t && strlen(t) < max && !strpbrk(t, "= \t\r\n");
}

sl_status_t boot_put(boot_t *boot, const char *key, const char *value)
{
    if (!boot || !boot_text_ok(key, BOOT_KEY_MAX) || !boot_text_ok(value, BOOT_VALUE_MAX))
        return SL_ERR_INVALID;
    return boot->ops->put(boot, key, value);
}

sl_status_t boot_fence(boot_t *boot)
{
    if (!boot) return SL_ERR_INVALID;
    return boot->ops->fence(boot);
}

sl_status_t boot_get(boot_t *boot, const char *key, char *value, size_t len)
{
    if (!boot || !value || len == 0 || len > INT32_MAX || !boot_text_ok(key, BOOT_KEY_MAX))
        return SL_ERR_INVALID;
    return boot->ops->get(boot, key, value, len);
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
    if (boot_abort_hook) boot_abort_hook(code, msg);
    if (boot && boot->ops) {
        boot->ops->abort(boot, code, msg);
    } else {
        PMI_Abort(code, msg); /* no handle: the PMI-1 client, or a singleton's exit */
    }
    exit(code); /* reached only when the launcher could not be told */
}

sl_status_t boot_fini(boot_t *boot)
{
    if (!boot) return SL_ERR_INVALID;
    pthread_mutex_lock(&boot_lock);
    sl_status_t st = SL_OK;
    if (boot != boot_single || boot_refs <= 0) {
        st = SL_ERR_INVALID;
    } else if (--boot_refs == 0) {
        st = boot->ops->fini(boot);
        free(boot);
        boot_single = NULL;
    }
    pthread_mutex_unlock(&boot_lock);
    return st;
}
