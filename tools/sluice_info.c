/* sluice_info: what this Sluice build is and can do here, and every
 * SLUICE_* setting with its default and meaning.
 * usage: sluice_info [--settings | --memory N] */
#include "boot/boot.h"
#include "coll/coll.h"
#include "p2p/p2p.h"
#include "wire/wire.h"
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

/* One row of the memory table: bytes as KiB. */
static void mem_row(const char *what, uint64_t st, uint64_t dy, const char *note)
{
    printf("  %-34s %12.1f %12.1f  %s\n", what, st / 1024.0, dy / 1024.0, note);
}

/* What one rank of an n-rank job on one host receives into, for both flow
 * control schemes under the other current settings. */
static int print_memory(int n)
{
    wire_mem_t m[2];
    for (int i = 0; i < 2; i++) {
        if (wire_memory_plan(n, i ? WIRE_FC_DYNAMIC : WIRE_FC_STATIC, &m[i]) != SL_OK) {
            fprintf(stderr, "sluice_info: no valid mailbox for %d ranks with these settings\n", n);
            return 1;
        }
    }
    size_t ring_bytes, area = p2p_short_plan(n, &ring_bytes);
    long bounce = 0, buckets = 0;
    sl_param_int(SL_PARAM_BOUNCE_SIZE, &bounce);
    sl_param_int(SL_PARAM_SEQ_BUCKETS, &buckets);
    printf("Receive-side memory of one rank, %d ranks on one host (KiB):\n", n);
    printf("  %-34s %12s %12s\n", "", "static", "dynamic");
    mem_row("mailbox ring", m[0].ring, m[1].ring, "shared, every page touched at start");
    mem_row("  credit region", m[0].credit_region, m[1].credit_region, "");
    mem_row("  static region (data, fixed shares)", m[0].static_region, m[1].static_region, "");
    mem_row("  dynamic region", m[0].dynamic_region, m[1].dynamic_region, "");
    mem_row("fastbox cells", m[0].fastbox, m[1].fastbox, "shared, 128-B cells, at most 256 KiB");
    mem_row("staging, header", m[0].staging + m[0].header, m[1].staging + m[1].header,
            "shared, touched only by staged copies");
    mem_row("short-message rings", area, area, "in the shared heap");
    mem_row("flow-control structures", m[0].fc_private, m[1].fc_private, "private");
    mem_row("bounce buffers, sequence table", 8 * (uint64_t)bounce + 44 * (uint64_t)buckets,
            8 * (uint64_t)bounce + 44 * (uint64_t)buckets, "private, fixed");
    uint64_t st = m[0].segment + area + m[0].fc_private, dy = m[1].segment + area + m[1].fc_private;
    mem_row("total (segment, rings, structures)", st, dy, "not the heap, not fixed private memory");
    long fast = 0;
    sl_param_int(SL_PARAM_FAST_PEERS, &fast);
    if (fast > 0 && area)
        printf("  (short rings leased to active senders, SLUICE_FAST_PEERS=%ld: %ld channel(s) of "
               "%zu B, the others send by Portals;", fast, fast < n - 1 ? fast : (long)n - 1,
               ring_bytes);
    else
        printf("  (each sender's short ring: %zu B;", ring_bytes);
    printf(" shared heap mapped: %llu KiB, pages used on demand; SLUICE_FLOWCTL now: %s)\n",
           (unsigned long long)(m[0].heap / 1024), sl_param_str(SL_PARAM_FLOWCTL));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--memory") == 0) {
        char *end;
        long n = strtol(argv[2], &end, 10);
        if (*end || n < 1 || n > 1 << 20) {
            fprintf(stderr, "sluice_info: --memory needs a rank count (1..1048576)\n");
            return 2;
        }
        return print_memory((int)n);
    }
    if (argc > 1 && strcmp(argv[1], "--settings") == 0) {
        print_settings();
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "usage: sluice_info [--settings | --memory N]\n");
        return 2;
    }
    char why[128] = "";
    const char *cma = probe_cma(why, sizeof why);
    printf("Sluice %s\n\n", SLUICE_VERSION);
    printf("Transports:\n");
    printf("  shm     available: one mailbox ring per rank in /dev/shm, static or dynamic "
           "credit flow control (SLUICE_FLOWCTL)\n");
    printf("  cma     %s%s\n", cma ? cma : why,
           cma ? ": single-copy bulk get/put (process_vm_readv/writev)"
               : "; bulk get/put use the staged copy");
    printf("  staged  available: pipelined bulk copy through shared memory\n");
    long fast = 0;
    sl_param_int(SL_PARAM_FAST_PEERS, &fast);
    if (fast > 0)
        printf("  short   p2p short-message rings: %ld channel(s) per receiver leased to the "
               "senders that are active (SLUICE_FAST_PEERS), the others by Portals\n", fast);
    else
        printf("  short   p2p short-message rings: one per sender in each receiver "
               "(SLUICE_FAST_PEERS=N leases N to active senders instead)\n");
    char provs[512];
    wire_ofi_providers(provs, sizeof provs);
    if (!strcmp(provs, "not built"))
        printf("  ofi     not built: libfabric-dev missing at build time, or -DSLUICE_OFI=OFF\n\n");
    else
        printf("  ofi     built: between hosts (SLUICE_WIRE=auto) or for every peer "
               "(SLUICE_WIRE=ofi); providers with reliable datagrams here: %s\n\n",
               *provs ? provs : "none");
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
