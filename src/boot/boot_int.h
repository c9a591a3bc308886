/* Private to src/boot: the table of operations each bootstrap client fills
 * (PMI-1 in boot.c, PMIx in boot_pmix.c), so that boot.c's job-key logic and
 * the boot.h interface do not know which launcher started the process. */
#ifndef SL_BOOT_INT_H
#define SL_BOOT_INT_H

#include "boot/boot.h"

/* boot.h's limits, the same for every client so that a program's keys work
 * under any launcher (PMI-1 launchers may announce smaller ones). */
#define BOOT_KEY_MAX 64     /* a key is shorter than this */
#define BOOT_VALUE_MAX 1024 /* a value is shorter than this */

/* Called with validated arguments (boot.c checks the text rules of boot.h).
 * abort returns only when the launcher could not be told; boot.c then exits. */
typedef struct boot_ops {
    sl_status_t (*put)(boot_t *boot, const char *key, const char *value);
    sl_status_t (*fence)(boot_t *boot);
    sl_status_t (*get)(boot_t *boot, const char *key, char *value, size_t len);
    void (*abort)(boot_t *boot, int code, const char *msg);
    sl_status_t (*fini)(boot_t *boot);
} boot_ops_t;

/* True when the environment names a PMIx server (PMIX_NAMESPACE, PMIX_RANK
 * or a PMIX_SERVER_URI* variable), as Open MPI's mpirun and Slurm's
 * srun --mpi=pmix set it. */
bool boot_pmix_env(void);

/* Connect to the PMIx server and fill info's rank, size, appnum and kvsname
 * (the PMIx namespace); *ops is the PMIx table.  SL_ERR_CONFIG, with the
 * reason logged, when the server cannot be reached, when PMIx was already
 * finalised in this process, or when Sluice was built without PMIx
 * (boot_pmix_none.c). */
sl_status_t boot_pmix_open(boot_info_t *info, const boot_ops_t **ops);

#endif
