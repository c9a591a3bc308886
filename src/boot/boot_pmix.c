/* Job bootstrap over PMIx (libpmix), for launchers that serve PMIx instead of
 * the PMI-1 wire protocol: Open MPI's mpirun and Slurm's srun --mpi=pmix.
 * Built only when CMake finds libpmix (SLUICE_PMIX); boot_pmix_none.c stands
 * in otherwise.  See boot_int.h and docs/LAUNCHER.md, "PMIx".
 *
 * The mapping onto boot.h:
 *   rank, kvsname    the process id PMIx_Init returns (rank, namespace);
 *   size, appnum     PMIX_JOB_SIZE of the namespace, PMIX_APPNUM of the rank;
 *   put              PMIx_Put(PMIX_GLOBAL) of a string value;
 *   fence            PMIx_Commit, then PMIx_Fence over the whole namespace with
 *                    PMIX_COLLECT_DATA, so every rank holds every value after;
 *   get              PMIx_Get from the rank that published the key (below);
 *   abort, fini      PMIx_Abort of the namespace, PMIx_Finalize. */
#include "boot/boot_int.h"
#include "util/log.h"

#include <pmix.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pmix_proc_t boot_pmix_me;
static int boot_pmix_size;
static bool boot_pmix_finalized; /* boot.h: no second init after fini */

/* "4.2.2rc2" out of "OpenPMIx 4.2.2rc2 (PMIx Standard: 4.2, ...)". */
const char *boot_pmix_version(void)
{
    static char version[64];
    const char *full = PMIx_Get_version(), *v = strchr(full, ' ');
    v = v ? v + 1 : full;
    snprintf(version, sizeof version, "%.*s", (int)strcspn(v, " "), v);
    return version;
}

/* PMIx reports a server that went away as UNREACH or LOST_CONNECTION, and a
 * fence that some rank left (it died or aborted) as PARTIAL_SUCCESS: boot.h's
 * callers see a dead peer, not a protocol error. */
static sl_status_t boot_pmix_status(pmix_status_t rc, const char *what)
{
    if (rc == PMIX_SUCCESS) return SL_OK;
    const char *why = "";
    sl_status_t st;
    switch (rc) {
    case PMIX_ERR_NOMEM: st = SL_ERR_NOMEM; break;
    case PMIX_ERR_TIMEOUT: st = SL_ERR_TIMEOUT; break;
    case PMIX_ERR_UNREACH:
    case PMIX_ERR_LOST_CONNECTION:
        why = " (the launcher's PMIx server is gone)";
        st = SL_ERR_PEER_DEAD;
        break;
    case PMIX_ERR_PARTIAL_SUCCESS:
        why = " (a rank of the job ended first)";
        st = SL_ERR_PEER_DEAD;
        break;
    case PMIX_ERR_BAD_PARAM: st = SL_ERR_INVALID; break;
    default: st = SL_ERR_PROTO; break;
    }
    sl_log_error("boot: PMIx %s failed: %s%s", what, PMIx_Error_string(rc), why);
    return st;
}

/* An unsigned integer attribute, whatever width the server stored it in. */
static bool boot_pmix_uint(const pmix_value_t *v, uint64_t *out)
{
    switch (v->type) {
    case PMIX_UINT8: *out = v->data.uint8; return true;
    case PMIX_UINT16: *out = v->data.uint16; return true;
    case PMIX_UINT32: *out = v->data.uint32; return true;
    case PMIX_UINT64: *out = v->data.uint64; return true;
    case PMIX_UINT: *out = v->data.uint; return true;
    case PMIX_SIZE: *out = v->data.size; return true;
    case PMIX_INT:
        *out = (uint64_t)v->data.integer;
        return v->data.integer >= 0;
    case PMIX_INT32:
        *out = (uint64_t)v->data.int32;
        return v->data.int32 >= 0;
    default: return false;
    }
}

/* Read an integer attribute of proc; SL_ERR_NOTFOUND when the server has
 * none (callers decide whether that is fatal). */
static sl_status_t boot_pmix_get_uint(const pmix_proc_t *proc, const char *attr, uint64_t *out)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(proc, attr, NULL, 0, &v);
    if (rc == PMIX_ERR_NOT_FOUND) return SL_ERR_NOTFOUND;
    if (rc != PMIX_SUCCESS) return boot_pmix_status(rc, attr);
    bool ok = boot_pmix_uint(v, out);
    PMIX_VALUE_RELEASE(v);
    if (!ok) {
        sl_log_error("boot: PMIx attribute %s is not an unsigned integer", attr);
        return SL_ERR_PROTO;
    }
    return SL_OK;
}

static sl_status_t boot_pmix_put(boot_t *boot, const char *key, const char *value)
{
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_STRING;
    v.data.string = (char *)value; /* PMIx_Put copies it */
    return boot_pmix_status(PMIx_Put(PMIX_GLOBAL, key, &v), "put");
}

static sl_status_t boot_pmix_fence(boot_t *boot)
{
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) return boot_pmix_status(rc, "commit");
    /* collect: every rank reads every value locally afterwards (get asks
     * with PMIX_OPTIONAL, so a value not here is "not found", never a wait) */
    pmix_info_t info;
    bool collect = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return boot_pmix_status(rc, "fence");
}

/* Ask rank r for key.  SL_AGAIN: r has not published it. */
static sl_status_t boot_pmix_get_from(int r, const char *key, char *value, size_t len)
{
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, boot_pmix_me.nspace, (pmix_rank_t)r);
    pmix_info_t info;
    bool optional = true;
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&proc, key, &info, 1, &v);
    PMIX_INFO_DESTRUCT(&info);
    if (rc == PMIX_ERR_NOT_FOUND) return SL_AGAIN;
    if (rc != PMIX_SUCCESS) return boot_pmix_status(rc, "get");
    sl_status_t st = SL_OK;
    if (v->type != PMIX_STRING || !v->data.string) {
        sl_log_error("boot: PMIx value of %s from rank %d is not a string", key, r);
        st = SL_ERR_PROTO;
    } else if (strlen(v->data.string) >= len) {
        st = SL_ERR_TRUNCATE;
    } else {
        strcpy(value, v->data.string);
    }
    PMIX_VALUE_RELEASE(v);
    return st;
}

/* The rank a key names at its end ("p2p-id-3" -> 3), or -1.  boot.h's
 * key-value space is flat, PMIx keys belong to the rank that put them:
 * Sluice's per-rank keys end in the rank, so this guess finds almost every
 * key with one lookup, and the others fall back to asking every rank. */
static int boot_pmix_rank_hint(const char *key)
{
    const char *end = key + strlen(key), *p = end;
    while (p > key && p[-1] >= '0' && p[-1] <= '9') p--;
    if (p == end || end - p > 9) return -1;
    int r = atoi(p);
    return r < boot_pmix_size ? r : -1;
}

static sl_status_t boot_pmix_get(boot_t *boot, const char *key, char *value, size_t len)
{
    int hint = boot_pmix_rank_hint(key);
    sl_status_t st = SL_AGAIN;
    if (hint >= 0) st = boot_pmix_get_from(hint, key, value, len);
    for (int r = 0; st == SL_AGAIN && r < boot_pmix_size; r++)
        if (r != hint) st = boot_pmix_get_from(r, key, value, len);
    return st == SL_AGAIN ? SL_ERR_NOTFOUND : st;
}

static void boot_pmix_abort(boot_t *boot, int code, const char *msg)
{
    /* NULL procs: the whole namespace.  Returns when the server could not
     * be told; boot_abort then exits this rank alone. */
    pmix_status_t rc = PMIx_Abort(code, msg ? msg : "", NULL, 0);
    if (rc != PMIX_SUCCESS)
        sl_log_error("boot: PMIx abort not delivered (%s); exiting this rank",
                     PMIx_Error_string(rc));
}

static sl_status_t boot_pmix_fini(boot_t *boot)
{
    boot_pmix_finalized = true;
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    return rc == PMIX_SUCCESS ? SL_OK : boot_pmix_status(rc, "finalize");
}

static const boot_ops_t boot_pmix_ops = {
    .put = boot_pmix_put,
    .fence = boot_pmix_fence,
    .get = boot_pmix_get,
    .abort = boot_pmix_abort,
    .fini = boot_pmix_fini,
};

/* Job facts after PMIx_Init: size is required, appnum optional (0). */
static sl_status_t boot_pmix_job_info(boot_info_t *info)
{
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, boot_pmix_me.nspace, PMIX_RANK_WILDCARD);
    uint64_t size = 0, appnum = 0;
    sl_status_t st = boot_pmix_get_uint(&job, PMIX_JOB_SIZE, &size);
    if (st == SL_OK && (size == 0 || size > INT32_MAX || boot_pmix_me.rank >= size)) {
        sl_log_error("boot: PMIx job size %llu does not hold rank %u",
                     (unsigned long long)size, boot_pmix_me.rank);
        st = SL_ERR_PROTO;
    } else if (st == SL_ERR_NOTFOUND) {
        sl_log_error("boot: the PMIx server did not say the job size (PMIX_JOB_SIZE)");
        st = SL_ERR_PROTO;
    }
    if (st != SL_OK) return st;
    sl_status_t ast = boot_pmix_get_uint(&boot_pmix_me, PMIX_APPNUM, &appnum);
    if (ast != SL_OK && ast != SL_ERR_NOTFOUND) return ast;
    info->rank = (int)boot_pmix_me.rank;
    info->size = boot_pmix_size = (int)size;
    info->appnum = (int)appnum;
    info->singleton = false;
    snprintf(info->kvsname, sizeof info->kvsname, "%s", boot_pmix_me.nspace);
    return SL_OK;
}

sl_status_t boot_pmix_open(boot_info_t *info, const boot_ops_t **ops)
{
    if (boot_pmix_finalized) {
        sl_log_error("boot: PMIx was finalised in this process; it cannot start again");
        return SL_ERR_CONFIG;
    }
    pmix_status_t rc = PMIx_Init(&boot_pmix_me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        const char *ns = getenv("PMIX_NAMESPACE");
        sl_log_error("boot: started by a PMIx launcher (PMIX_NAMESPACE=%s) but PMIx_Init "
                     "failed: %s", ns ? ns : "(unset)", PMIx_Error_string(rc));
        return SL_ERR_CONFIG;
    }
    sl_status_t st = boot_pmix_job_info(info);
    if (st != SL_OK) {
        PMIx_Finalize(NULL, 0);
        boot_pmix_finalized = true;
        return SL_ERR_CONFIG;
    }
    *ops = &boot_pmix_ops;
    return SL_OK;
}
