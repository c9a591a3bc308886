/* Stands in for boot_pmix.c when CMake did not find libpmix: a process
 * started by a PMIx launcher gets a clear error instead of running as one
 * of several unconnected singletons. */
#include "boot/boot_int.h"
#include "util/log.h"

#include <stddef.h>

const char *boot_pmix_version(void)
{
    return NULL;
}

sl_status_t boot_pmix_open(boot_info_t *info, const boot_ops_t **ops)
{
    sl_log_error("boot: started by a PMIx launcher (PMIX_* in the environment) but this "
                 "Sluice was built without PMIx support; install libpmix-dev and rebuild, "
                 "or start with sluicerun, Hydra or srun --mpi=pmi2");
    return SL_ERR_CONFIG;
}
