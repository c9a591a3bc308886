/* sluice_info: what this Sluice build is and can do here, and every
 * SLUICE_* setting with its default and meaning.
 * usage: sluice_info [--settings] */
#include "boot/boot.h"
#include "coll/coll.h"
#include "util/param.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/* Can this process read a sibling's memory by cross-memory attach?  A
 * forked child has the same addresses, so read a known variable from it. */
static const char *probe_cma(char *why, size_t len)
{
    static volatile unsigned long marker = 0x5111ceul;
    pid_t child = fork();
    if (child < 0) {
        snprintf(why, len, "fork failed: %s", strerror(errno));
        return NULL;
    }
    if (child == 0) {
        pause();
        _exit(0);
    }
    unsigned long got = 0;
    struct iovec l = {&got, sizeof got}, r = {(void *)&marker, sizeof marker};
    ssize_t n = process_vm_readv(child, &l, 1, &r, 1, 0);
    int err = errno;
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    if (n == (ssize_t)sizeof got && got == marker) return "available";
    snprintf(why, len, "refused here (%s)", n < 0 ? strerror(err) : "short read");
    return NULL;
}

static void print_wrapped(const char *text, int indent, int width)
{
    int col = indent;
    printf("%*s", indent, "");
    const char *p = text;
    while (*p) {
        const char *sp = strchr(p, ' ');
        int wl = sp ? (int)(sp - p) : (int)strlen(p);
        if (col > indent && col + 1 + wl > width) {
            printf("\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            putchar(' ');
            col++;
        }
        printf("%.*s", wl, p);
        col += wl;
        p += wl;
        while (*p == ' ') p++;
    }
    putchar('\n');
}

static void print_settings(void)
{
    printf("Settings (environment variables; the current value is shown when set):\n");
    for (int i = 0; i < SL_PARAM_COUNT; i++) {
        const sl_param_desc_t *d = sl_param_desc((sl_param_id_t)i);
        const char *cur = getenv(d->name);
        printf("  %-24s default %s", d->name, *d->def ? d->def : "(empty)");
        if (d->kind == SL_PARAM_KIND_INT) printf(", range %ld..%ld", d->min, d->max);
        if (cur) printf(", now %s", cur);
        putchar('\n');
        print_wrapped(d->help, 6, 88);
    }
}

/* Every collective's variants, as SLUICE_COLL_<KIND> names them. */
static void print_collectives(void)
{
    printf("Collective variants (SLUICE_COLL_<KIND>=variant[:k=K][,seg=BYTES][,window=W]):\n");
    for (int k = 0; k < COLL_NKIND; k++) {
        int v[16], n = coll_variants((coll_kind_t)k, v, 16);
        printf("  %-15s", coll_kind_name((coll_kind_t)k));
        for (int i = 0; i < n; i++) printf(" %s", coll_variant_name(v[i]));
        putchar('\n');
    }
    putchar('\n');
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--settings") == 0) {
        print_settings();
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "usage: sluice_info [--settings]\n");
        return 2;
    }
    char why[128] = "";
    const char *cma = probe_cma(why, sizeof why);
    printf("Sluice %s\n\n", SLUICE_VERSION);
    printf("Transports:\n");
    printf("  shm     available: one mailbox ring per rank in /dev/shm, static credit flow "
           "control\n");
    printf("  cma     %s%s\n", cma ? cma : why,
           cma ? ": single-copy bulk get/put (process_vm_readv/writev)"
               : "; bulk get/put use the staged copy");
    printf("  staged  available: pipelined bulk copy through shared memory\n");
    printf("  ofi     not built: libfabric transport not implemented yet\n\n");
    const char *pmix = boot_pmix_version();
    printf("Launchers (boot clients):\n");
    printf("  pmi1    built: sluicerun, MPICH Hydra, srun --mpi=pmi2 (PMI_FD / PMI_PORT)\n");
    if (pmix)
        printf("  pmix    built (libpmix %s): Open MPI mpirun, srun --mpi=pmix (PMIX_*)\n\n",
               pmix);
    else
        printf("  pmix    not built: libpmix-dev missing at build time, or -DSLUICE_PMIX=OFF\n\n");
    print_collectives();
    print_settings();
    return 0;
}
