/* Purpose-built ranks for the launcher tests (launcher_driver.c runs them
 * under sluicerun).  argv[1] picks the behaviour:
 *   ok                     init, fence, finalize, exit 0
 *   fail R CODE [pause]    rank R exits CODE after init; the others wait in a
 *                          PMI fence (or in pause()) and exit 99 on SIGTERM
 *   signal R SIG           rank R kills itself with SIG; the others fence
 *   abort R CODE           rank R calls boot_abort(CODE); the others fence
 *   nofinalize R           rank R exits 0 after init without finalize; others fence
 *   finalize-early R       rank R finalizes and exits 0; the others fence
 *   pause                  no PMI at all; SIGTERM at its default; pause() forever
 *   ignore-term            ignore SIGTERM, then pause() forever
 *   ready                  print "ready <rank> <pid>", then pause() forever
 *   output N               N stdout lines written in small pieces, one stderr
 *                          line, and a last stdout line without a newline
 *   partial R              every rank writes a line without its newline and
 *                          fences; then rank R kills itself with SIGKILL
 *   longline               one stdout line of 1.5 MiB (SR_OUT_LINE_MAX is 1 MiB)
 *   env                    check what sluicerun hands a rank, then exit 0
 *                          (rank 0 prints "jobkey=<key>")
 *   shm R                  every rank creates /dev/shm/sluice-<key>-<rank>;
 *                          after a fence rank R kills itself with SIGKILL */
#include "boot/boot.h"
#include "test.h"
#include "util/status.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

static int env_rank(void)
{
    const char *r = getenv("PMI_RANK");
    return r ? atoi(r) : -1;
}

static void on_term(int sig)
{
    _exit(99);
}

/* Block forever in a PMI fence (the failing rank never enters it). */
static void fence_forever(boot_t *boot)
{
    signal(SIGTERM, on_term);
    sl_status_t st = boot_fence(boot);
    fprintf(stderr, "boot_child: fence returned %s, expected to be torn down\n",
            sl_status_name(st));
    exit(98);
}

static boot_t *init_or_die(void)
{
    boot_t *boot = NULL;
    CHECK_OK(boot_init(&boot));
    return boot;
}

static void write_piecewise(int fd, const char *s)
{
    size_t len = strlen(s), off = 0, step = 1;
    while (off < len) {
        size_t n = len - off < step ? len - off : step;
        ssize_t w = write(fd, s + off, n);
        CHECK(w > 0);
        off += (size_t)w;
        step = step % 7 + 1;
    }
}

static int mode_output(int n)
{
    int rank = env_rank();
    char line[256];
    for (int k = 0; k < n; k++) {
        snprintf(line, sizeof line, "rank %d line %d %0*d\n", rank, k, 10 + k % 50, k);
        write_piecewise(1, line);
    }
    snprintf(line, sizeof line, "rank %d stderr line\n", rank);
    write_piecewise(2, line);
    snprintf(line, sizeof line, "rank %d tail without newline", rank);
    write_piecewise(1, line);
    return 0;
}

static bool is_lower_hex32(const char *s)
{
    if (!s || strlen(s) != 32) return false;
    for (int i = 0; i < 32; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
    return true;
}

static int mode_env(void)
{
    const char *fdtext = getenv("PMI_FD");
    CHECK(fdtext != NULL);
    int fd = atoi(fdtext);
    struct stat st;
    CHECK(fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode));
    CHECK_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0); /* inherited across exec */
    CHECK(getenv("PMI_VERSION") && strcmp(getenv("PMI_VERSION"), "1") == 0);
    CHECK(getenv("PMI_SUBVERSION") && strcmp(getenv("PMI_SUBVERSION"), "1") == 0);
    CHECK(is_lower_hex32(getenv("SLUICE_JOBKEY")));
    int pdeath = 0;
    CHECK(prctl(PR_GET_PDEATHSIG, &pdeath) == 0);
    CHECK_EQ(pdeath, SIGKILL);
    CHECK(getpgrp() != getpgid(getppid())); /* the job has its own process group */
    boot_t *boot = init_or_die();
    const boot_info_t *info = boot_get_info(boot);
    CHECK_EQ(info->rank, env_rank());
    CHECK_EQ(info->size, atoi(getenv("PMI_SIZE")));
    CHECK(strcmp(info->jobkey, getenv("SLUICE_JOBKEY")) == 0);
    char key[32], val[32], got[32];
    snprintf(key, sizeof key, "pgid-%d", info->rank);
    snprintf(val, sizeof val, "%ld", (long)getpgrp());
    CHECK_OK(boot_put(boot, key, val));
    CHECK_OK(boot_fence(boot));
    CHECK_OK(boot_get(boot, "pgid-0", got, sizeof got));
    CHECK_MSG(strcmp(got, val) == 0, "rank 0 in group %s, rank %d in %s", got, info->rank, val);
    if (info->rank == 0) printf("jobkey=%s\n", info->jobkey);
    CHECK_OK(boot_fini(boot));
    return 0;
}

static int mode_shm(int victim)
{
    boot_t *boot = init_or_die();
    const boot_info_t *info = boot_get_info(boot);
    char name[128];
    snprintf(name, sizeof name, "/sluice-%s-%d", info->jobkey, info->rank);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    CHECK_MSG(fd >= 0, "shm_open %s: %s", name, strerror(errno));
    CHECK(ftruncate(fd, 4096) == 0);
    if (info->rank == 0) {
        printf("jobkey=%s\n", info->jobkey);
        fflush(stdout);
    }
    CHECK_OK(boot_fence(boot)); /* every segment exists */
    if (info->rank == victim) raise(SIGKILL);
    fence_forever(boot);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int a = argc > 2 ? atoi(argv[2]) : 0, b = argc > 3 ? atoi(argv[3]) : 0;
    int rank = env_rank();
    if (strcmp(mode, "pause") == 0) {
        /* SIGTERM's own action: a library linked in may catch it (linking
         * libfabric installs a SIGTERM handler; in the ASan build, where the
         * test links it, the handler's exit ran a leak check that outlasted
         * the 3 s grace under load: 3 runs in 16 beside two busy loops) */
        signal(SIGTERM, SIG_DFL);
        for (;;)
            pause();
    } else if (strcmp(mode, "ignore-term") == 0) {
        signal(SIGTERM, SIG_IGN);
        for (;;)
            pause();
    } else if (strcmp(mode, "ready") == 0) {
        printf("ready %d %ld\n", rank, (long)getpid());
        fflush(stdout);
        for (;;)
            pause();
    } else if (strcmp(mode, "output") == 0) {
        return mode_output(a);
    } else if (strcmp(mode, "longline") == 0) {
        size_t n = 3 << 19;
        char *line = malloc(n + 1);
        CHECK(line != NULL);
        memset(line, 'a', n);
        line[n] = '\n';
        for (size_t off = 0; off <= n;) {
            ssize_t w = write(1, line + off, n + 1 - off);
            CHECK(w > 0);
            off += (size_t)w;
        }
        free(line);
        return 0;
    } else if (strcmp(mode, "env") == 0) {
        return mode_env();
    } else if (strcmp(mode, "shm") == 0) {
        return mode_shm(a);
    }
    if (strcmp(mode, "fail") == 0 && argc > 4 && strcmp(argv[4], "pause") == 0) {
        if (rank == a) exit(b);
        signal(SIGTERM, on_term);
        for (;;)
            pause();
    }
    boot_t *boot = init_or_die();
    if (strcmp(mode, "partial") == 0) {
        printf("rank %d partial line", rank);
        fflush(stdout);
        CHECK_OK(boot_fence(boot)); /* every rank wrote its partial line */
        if (rank == a) raise(SIGKILL);
        fence_forever(boot);
    }
    if (strcmp(mode, "ok") == 0) {
        CHECK_OK(boot_fence(boot));
        CHECK_OK(boot_fini(boot));
        return 0;
    }
    if (rank != a) fence_forever(boot);
    if (strcmp(mode, "fail") == 0) exit(b);
    if (strcmp(mode, "signal") == 0) raise(b);
    if (strcmp(mode, "abort") == 0) boot_abort(boot, b, "boot_child was asked to abort");
    if (strcmp(mode, "nofinalize") == 0) _exit(0);
    if (strcmp(mode, "finalize-early") == 0) {
        CHECK_OK(boot_fini(boot));
        return 0;
    }
    fprintf(stderr, "boot_child: unknown mode '%s'\n", mode);
    return 97;
}
