/* Job bootstrap: who am I, how many are we, a job-wide key-value space and
 * barrier, and the job key.  Two clients sit behind it, chosen at start-up
 * from the environment:
 *   PMI_FD, or PMI_PORT + PMI_ID   the PMI-1 simple wire protocol (sluicerun,
 *                                  MPICH's Hydra, Slurm's pmi2 plugin);
 *   PMIX_NAMESPACE, PMIX_RANK or PMIX_SERVER_URI*
 *                                  PMIx through libpmix (Open MPI's mpirun,
 *                                  Slurm's srun --mpi=pmix), when built;
 *   none of them                   a singleton (rank 0 of 1, key-value space
 *                                  kept locally).
 * PMI-1 wins when both are set: a launcher started inside a PMIx job (a
 * sluicerun under srun) hands its own ranks PMI_FD but passes the outer
 * job's PMIX_* variables through.
 *
 * Single-threaded: boot_* calls happen during library init and finalize only.
 * May block (socket I/O to the launcher). */
#ifndef SL_BOOT_H
#define SL_BOOT_H

#include "util/status.h"

#include <stdbool.h>
#include <stddef.h>

#define BOOT_JOBKEY_LEN 32 /* hex digits (128 random bits) */

/* Which client connected this process (boot_info_t.client). */
typedef enum boot_client {
    BOOT_CLIENT_SINGLETON,
    BOOT_CLIENT_PMI1,
    BOOT_CLIENT_PMIX,
} boot_client_t;

typedef struct boot_info {
    int rank;
    int size;
    int appnum;
    bool singleton;                        /* no launcher: rank 0 of 1 */
    boot_client_t client;
    char jobkey[BOOT_JOBKEY_LEN + 1];      /* NUL-terminated lowercase hex */
    char kvsname[256];                     /* PMI-1 KVS name or PMIx namespace */
} boot_info_t;

/* "singleton", "PMI-1" or "PMIx". */
const char *boot_client_name(boot_client_t client);

/* The libpmix version this build uses ("4.2.2rc2"), or NULL when Sluice was
 * built without PMIx support (sluice_info reports it). */
const char *boot_pmix_version(void);

typedef struct boot boot_t;

/* Connect to the launcher (or become a singleton) and establish the job key.
 * The connection is one per process and reference counted: a second
 * boot_init returns the same handle, and the last boot_fini closes it.
 * The job key: SLUICE_JOBKEY from sluicerun when present and well formed,
 * otherwise rank 0 draws one from getrandom and publishes it through the
 * key-value space (this costs one fence).  On success *out is a new handle.
 * SL_ERR_CONFIG, with the reason logged, when the launcher named by the
 * environment cannot be reached (or is PMIx and this build has no PMIx). */
sl_status_t boot_init(boot_t **out);

/* The job's facts; valid until boot_fini. */
const boot_info_t *boot_get_info(const boot_t *boot);

/* Publish key=value for the whole job.  Visible to every rank's boot_get
 * after the next boot_fence.  Keys and values must be non-empty and contain
 * no spaces, '=' or newlines (PMI-1 has no quoting), keys shorter than 64
 * and values shorter than 1024 bytes (or the launcher's smaller limits):
 * SL_ERR_INVALID.  A second put of a key by the same rank replaces it; keys
 * are unique per job (do not put another rank's key). */
sl_status_t boot_put(boot_t *boot, const char *key, const char *value);

/* Commit puts and wait until every rank of the job has entered the fence. */
sl_status_t boot_fence(boot_t *boot);

/* Read a key published by any rank before the last fence.  SL_ERR_NOTFOUND
 * when no rank published it, SL_ERR_TRUNCATE when len is too small. */
sl_status_t boot_get(boot_t *boot, const char *key, char *value, size_t len);

/* Ask the launcher to end the whole job with exit status code, printing msg.
 * Does not return (exits locally if the launcher cannot be told). */
void boot_abort(boot_t *boot, int code, const char *msg) __attribute__((noreturn));
/* The same with a formatted reason, logged here first (the layers above
 * end the job this way on a loss or corruption they cannot recover from). */
void boot_abortf(boot_t *boot, int code, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));
/* Testing hook (fuzz targets, tests/fuzz): fn is called by boot_abort with
 * the code and message before the job is ended, and may leave by longjmp
 * (a fuzz target treats an abort on hostile input as a correct outcome).
 * NULL removes it.  Not for production use: state is not cleaned up. */
typedef void (*boot_abort_hook_fn)(int code, const char *msg);
void boot_set_abort_hook(boot_abort_hook_fn fn);

/* Tell the launcher this rank finished cleanly and release the handle.  The
 * launcher connection cannot be opened again by this process afterwards
 * (PMI-1 allows one init per process; PMIx is held to the same rule): a
 * later boot_init under a launcher returns SL_ERR_CONFIG. */
sl_status_t boot_fini(boot_t *boot);

#endif
