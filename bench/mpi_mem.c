/* Memory per rank and start-up time, plain MPI (built with Sluice's,
 * MPICH's and Open MPI's mpicc by bench/mem_scale.sh):
 *
 *   mem      each rank reads /proc/self/smaps and /proc/self/status right
 *            after MPI_Init (before any other MPI call) and again after an
 *            MPI_Alltoall of ALLTOALL_BYTES (default 64) bytes per peer and
 *            a barrier; rank 0 gathers the values and prints, per phase and
 *            metric, "mem PHASE METRIC min median max" in bytes over the
 *            ranks:
 *              shm_size  mapped size of the shared-memory mappings: path
 *                        under /dev/shm, or "/SYSV...", or "/memfd:..."
 *              shm_rss   their resident bytes (Rss: a page of a peer's
 *                        segment this rank touched counts here as well)
 *              shm_pss   their proportional share (Pss: a page mapped by k
 *                        processes counts 1/k; summed over the ranks, the
 *                        job's resident shared memory)
 *              oth_size, oth_rss, oth_pss  other shared file mappings
 *                        (VmFlags "sh", e.g. a backing file under /tmp),
 *                        so that shared memory outside /dev/shm is not
 *                        missed
 *              rss_anon  RssAnon of /proc/self/status (private memory)
 *              vm_rss    VmRSS (everything resident: anon, file, shmem)
 *              vm_pte    VmPTE (the process's page tables: every page of
 *                        a shared mapping it touched or populated costs an
 *                        entry in every process that maps it)
 *            and "devshm PHASE bytes" (/dev/shm used, from statvfs, minus
 *            DEVSHM_BASE, the value the script read before the job).
 *   startup  each rank takes the time before MPI_Init and after its first
 *            MPI_Barrier (CLOCK_REALTIME: one host, one clock); rank 0
 *            prints "startup span_us med_us max_us": span = the last
 *            barrier exit minus the first MPI_Init entry, and the median
 *            and maximum over the ranks of their own Init-to-barrier time.
 *
 * MEM_DEBUG=1 makes rank 0 list on stderr every mapping it counts.
 *
 * usage: mpi_mem mem|startup */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>

enum { SHM_SIZE, SHM_RSS, SHM_PSS, OTH_SIZE, OTH_RSS, OTH_PSS, RSS_ANON, VM_RSS, VM_PTE, NMETRIC };
static const char *metric_name[NMETRIC] = {"shm_size", "shm_rss",  "shm_pss", "oth_size",
                                           "oth_rss",  "oth_pss",  "rss_anon", "vm_rss",
                                           "vm_pte"};

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int shm_like(const char *path)
{
    return strncmp(path, "/dev/shm/", 9) == 0 || strncmp(path, "/SYSV", 5) == 0 ||
           strncmp(path, "/memfd:", 7) == 0;
}

static double *debug_rank0; /* MEM_DEBUG=1: rank 0 lists the mappings it counts */

/* One pass over smaps: a mapping's header line is followed by its fields;
 * the counts are added when its VmFlags line (the last) is read. */
static void read_smaps(double *m)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return;
    char line[4096], path[4096] = "";
    double size = 0, rss = 0, pss = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long kb;
        char *p;
        if (sscanf(line, "Size: %lu kB", &kb) == 1) size = kb * 1024.0;
        else if (sscanf(line, "Rss: %lu kB", &kb) == 1) rss = kb * 1024.0;
        else if (sscanf(line, "Pss: %lu kB", &kb) == 1) pss = kb * 1024.0;
        else if (strncmp(line, "VmFlags:", 8) == 0) {
            int shared = strstr(line, " sh") != NULL;
            int k = shm_like(path) ? SHM_SIZE : shared && path[0] == '/' ? OTH_SIZE : -1;
            if (k >= 0 && getenv("MEM_DEBUG") && m == debug_rank0)
                fprintf(stderr, "mpi_mem: %s %.0f Rss %.0f Pss %.0f%s\n", path, size, rss, pss,
                        shared ? " shared" : "");
            if (k >= 0) {
                m[k] += size;
                m[k + 1] += rss;
                m[k + 2] += pss;
            }
        } else if ((p = strchr(line, '-')) && p < strchr(line, ' ')) {
            /* header: addr perms offset dev inode [path] */
            int n = 0;
            path[0] = 0;
            if (sscanf(line, "%*s %*s %*s %*s %*s %n", &n) >= 0 && n > 0) {
                snprintf(path, sizeof path, "%s", line + n);
                path[strcspn(path, "\n")] = 0;
            }
            size = rss = pss = 0;
        }
    }
    fclose(f);
}

static void read_status(double *m)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return;
    char line[256];
    unsigned long kb;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "RssAnon: %lu kB", &kb) == 1) m[RSS_ANON] = kb * 1024.0;
        else if (sscanf(line, "VmRSS: %lu kB", &kb) == 1) m[VM_RSS] = kb * 1024.0;
        else if (sscanf(line, "VmPTE: %lu kB", &kb) == 1) m[VM_PTE] = kb * 1024.0;
    }
    fclose(f);
}

static void sample(double *m)
{
    memset(m, 0, NMETRIC * sizeof *m);
    read_smaps(m);
    read_status(m);
}

static double devshm_used(void)
{
    struct statvfs sv;
    if (statvfs("/dev/shm", &sv) != 0) return -1;
    return (double)(sv.f_blocks - sv.f_bfree) * sv.f_frsize;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Rank 0 prints min, median and max over the ranks of every metric. */
static void report(const char *phase, double *m, int rank, int size)
{
    double *all = rank == 0 ? malloc((size_t)size * NMETRIC * sizeof *all) : NULL;
    double *col = rank == 0 ? malloc((size_t)size * sizeof *col) : NULL;
    MPI_Gather(m, NMETRIC, MPI_DOUBLE, all, NMETRIC, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank != 0) return;
    for (int k = 0; k < NMETRIC; k++) {
        for (int r = 0; r < size; r++) col[r] = all[r * NMETRIC + k];
        qsort(col, (size_t)size, sizeof *col, cmp_double);
        double med = size % 2 ? col[size / 2] : (col[size / 2 - 1] + col[size / 2]) / 2;
        printf("mem %s %s %.0f %.0f %.0f\n", phase, metric_name[k], col[0], med, col[size - 1]);
    }
    free(all);
    free(col);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "mem";
    double t0 = now_us();
    MPI_Init(&argc, &argv);
    double m_init[NMETRIC], m_a2a[NMETRIC];
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) debug_rank0 = m_init;
    if (strcmp(mode, "mem") == 0) sample(m_init);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "startup") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t[2] = {t0, now_us()}, *all = NULL;
        if (rank == 0) all = malloc(2 * sizeof *all * (size_t)size);
        MPI_Gather(t, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            double first = all[0], last = all[1], *d = malloc(sizeof *d * (size_t)size);
            for (int r = 0; r < size; r++) {
                if (all[2 * r] < first) first = all[2 * r];
                if (all[2 * r + 1] > last) last = all[2 * r + 1];
                d[r] = all[2 * r + 1] - all[2 * r];
            }
            qsort(d, (size_t)size, sizeof *d, cmp_double);
            double med = size % 2 ? d[size / 2] : (d[size / 2 - 1] + d[size / 2]) / 2;
            printf("startup %.0f %.0f %.0f\n", last - first, med, d[size - 1]);
            free(all);
            free(d);
        }
        MPI_Finalize();
        return 0;
    }
    double shm_init = 0;
    /* rank 0's view of /dev/shm once every rank is initialised */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) shm_init = devshm_used();
    report("init", m_init, rank, size);

    const char *b = getenv("ALLTOALL_BYTES");
    int bytes = b && atoi(b) > 0 ? atoi(b) : 64;
    char *sbuf = malloc((size_t)bytes * size), *rbuf = malloc((size_t)bytes * size);
    for (int i = 0; i < bytes * size; i++) sbuf[i] = (char)(rank + i);
    MPI_Alltoall(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        if (rbuf[(size_t)r * bytes] != (char)(r + rank * bytes)) {
            fprintf(stderr, "mpi_mem: rank %d: wrong data from %d\n", rank, r);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) debug_rank0 = m_a2a;
    sample(m_a2a);
    MPI_Barrier(MPI_COMM_WORLD);
    double shm_a2a = rank == 0 ? devshm_used() : 0;
    report("alltoall", m_a2a, rank, size);
    if (rank == 0) {
        const char *base = getenv("DEVSHM_BASE");
        double b0 = base ? atof(base) : 0;
        printf("devshm init %.0f\ndevshm alltoall %.0f\n", shm_init - b0, shm_a2a - b0);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
