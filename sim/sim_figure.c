/* sim_figure.c - figure sweeps (placeholder). */
#include "sim.h"
int sim_figure(int fig, const char *outdir, int seeds, int quick, int nodes_small)
{
    (void)fig; (void)outdir; (void)seeds; (void)quick; (void)nodes_small;
    return SIM_ERR_ARG;
}
int sim_validate(const char *outdir, int big, int64_t cycles)
{
    (void)outdir; (void)big; (void)cycles;
    return SIM_ERR_ARG;
}
