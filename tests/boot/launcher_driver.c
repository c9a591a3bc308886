/* Drives sluicerun on purpose-built ranks (boot_child) and asserts what the
 * launcher does: exit status rules, teardown and its message, --timeout,
 * --grace, --prefix output, signal forwarding, parent-death, shared-memory
 * clean-up, option errors.  Usage:
 *   launcher_driver CASE SLUICERUN BOOT_CHILD BOOT_KVS BOOT_PMI_API
 * Every run has a wall-clock bound; nothing here sleeps to synchronise. */
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *sluicerun, *child, *kvs_prog, *pmi_api_prog;

typedef struct run {
    int status;        /* exit status, or 128+signal */
    double seconds;    /* wall time */
    char out[4 << 20]; /* captured stdout */
    char err[1 << 16]; /* captured stderr */
    size_t outlen, errlen;
} run_t;

static run_t R;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Start argv with stdout/stderr on pipes. */
static pid_t start(char *const argv[], int *outfd, int *errfd)
{
    int op[2], ep[2];
    CHECK(pipe2(op, O_CLOEXEC) == 0 && pipe2(ep, O_CLOEXEC) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(op[1], 1);
        dup2(ep[1], 2);
        execv(argv[0], argv);
        _exit(126);
    }
    close(op[1]);
    close(ep[1]);
    *outfd = op[0];
    *errfd = ep[0];
    return pid;
}

/* Read both pipes to EOF (or until `until` appears in stdout `count` times),
 * within limit seconds of t0. */
static void collect(int *outfd, int *errfd, double t0, double limit, const char *until, int count)
{
    while (*outfd >= 0 || *errfd >= 0) {
        if (until) {
            int seen = 0;
            for (const char *p = R.out; (p = strstr(p, until)) != NULL; p++)
                seen++;
            if (seen >= count) return;
        }
        struct pollfd p[2] = {{.fd = *outfd, .events = POLLIN}, {.fd = *errfd, .events = POLLIN}};
        int left_ms = (int)((t0 + limit - now_s()) * 1000);
        CHECK_MSG(left_ms > 0, "still running after %.1f s; stdout so far:\n%s\nstderr:\n%s", limit,
                  R.out, R.err);
        poll(p, 2, left_ms);
        for (int i = 0; i < 2; i++) {
            int *fd = i ? errfd : outfd;
            if (*fd < 0 || !p[i].revents) continue;
            char *buf = i ? R.err : R.out;
            size_t *len = i ? &R.errlen : &R.outlen, cap = i ? sizeof R.err : sizeof R.out;
            ssize_t n = read(*fd, buf + *len, cap - 1 - *len);
            if (n <= 0) {
                close(*fd);
                *fd = -1;
            } else {
                *len += (size_t)n;
                buf[*len] = '\0';
            }
        }
    }
}

static void finish(pid_t pid, double t0, double limit)
{
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    CHECK(pfd >= 0);
    struct pollfd p = {.fd = pfd, .events = POLLIN}; /* readable once it exited */
    int left_ms = (int)((t0 + limit - now_s()) * 1000);
    CHECK_MSG(left_ms > 0 && poll(&p, 1, left_ms) == 1, "sluicerun did not exit within %.1f s",
              limit);
    close(pfd);
    int ws;
    CHECK(waitpid(pid, &ws, 0) == pid);
    R.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    R.seconds = now_s() - t0;
}

/* Run argv to completion within limit seconds. */
static void run(double limit, char *const argv[])
{
    memset(&R, 0, sizeof R);
    double t0 = now_s();
    int outfd, errfd;
    pid_t pid = start(argv, &outfd, &errfd);
    collect(&outfd, &errfd, t0, limit, NULL, 0);
    finish(pid, t0, limit);
}

#define RUN(limit, ...)                                                                            \
    do {                                                                                           \
        char *argv_[] = {__VA_ARGS__, NULL};                                                       \
        run(limit, argv_);                                                                         \
    } while (0)

#define S(x) ((char *)(x))
#define EXPECT_STATUS(want)                                                                        \
    CHECK_MSG(R.status == (want), "status %d, want %d; stderr:\n%s", R.status, (want), R.err)
#define EXPECT_ERR(text)                                                                           \
    CHECK_MSG(strstr(R.err, text) != NULL, "stderr lacks '%s':\n%s", text, R.err)

static void case_ok(void)
{
    RUN(10, S(sluicerun), S("-n"), S("3"), S(child), S("ok"));
    EXPECT_STATUS(0);
    CHECK_MSG(R.errlen == 0, "unexpected stderr: %s", R.err);
}

static void case_exit_code(void)
{
    /* rank 2 fails first with 3; the survivors exit 99 on SIGTERM, later */
    RUN(10, S(sluicerun), S("-n"), S("3"), S(child), S("fail"), S("2"), S("3"));
    EXPECT_STATUS(3);
    EXPECT_ERR("sluicerun: rank 2 (pid ");
    EXPECT_ERR(") exited with status 3; terminating the job");
    RUN(10, S(sluicerun), S("-np"), S("4"), S(child), S("fail"), S("0"), S("7"));
    EXPECT_STATUS(7);
    EXPECT_ERR("rank 0 (pid ");
}

static void case_signal(void)
{
    RUN(10, S(sluicerun), S("-n"), S("3"), S(child), S("signal"), S("1"), S("9"));
    EXPECT_STATUS(128 + 9);
    EXPECT_ERR("sluicerun: rank 1 (pid ");
    EXPECT_ERR(") killed by signal 9 (Killed); terminating the job");
    RUN(10, S(sluicerun), S("-n"), S("2"), S(child), S("signal"), S("0"), S("10"));
    EXPECT_STATUS(128 + 10); /* SIGUSR1: a signal sanitizers leave alone */
    EXPECT_ERR("killed by signal 10 (User defined signal 1)");
}

static void case_abort(void)
{
    RUN(10, S(sluicerun), S("-n"), S("3"), S(child), S("abort"), S("1"), S("42"));
    EXPECT_STATUS(42);
    EXPECT_ERR("sluicerun: rank 1 (pid ");
    EXPECT_ERR("called PMI abort with exit code 42; terminating the job");
    EXPECT_ERR("boot_child was asked to abort");
    /* the same through libpmi's PMI_Abort */
    RUN(10, S(sluicerun), S("-n"), S("3"), S(pmi_api_prog), S("abort"), S("2"));
    EXPECT_STATUS(17);
    EXPECT_ERR("sluicerun: rank 2 (pid ");
    EXPECT_ERR("called PMI abort with exit code 17; terminating the job");
    EXPECT_ERR("boot_pmi_api was asked to abort");
}

static void case_timeout(void)
{
    RUN(9, S(sluicerun), S("-n"), S("2"), S("--timeout"), S("1"), S(child), S("pause"));
    EXPECT_STATUS(124);
    EXPECT_ERR("longer than --timeout 1 s; terminating the job");
    CHECK_MSG(R.seconds >= 0.9 && R.seconds < 7, "took %.2f s", R.seconds);
    CHECK_MSG(!strstr(R.err, "sending SIGKILL"), "SIGTERM did not end pause():\n%s", R.err);
    /* ranks that ignore SIGTERM get SIGKILL after the grace period */
    /* (the 2 s before the timeout leave the ranks ample time to ignore SIGTERM) */
    RUN(12, S(sluicerun), S("-n"), S("2"), S("--timeout=2"), S("--grace"), S("1.5"), S(child),
        S("ignore-term"));
    EXPECT_STATUS(124);
    EXPECT_ERR("2 rank(s) still alive 1.5 s after SIGTERM; sending SIGKILL");
    CHECK_MSG(R.seconds >= 3.4 && R.seconds < 10, "took %.2f s", R.seconds);
}

static void case_survivors(void)
{
    /* survivors in pause() (no PMI at all) and in a PMI fence are ended by
     * SIGTERM: with a 30 s grace, SIGKILL never comes into play */
    RUN(9, S(sluicerun), S("-n"), S("4"), S("--grace"), S("30"), S(child), S("fail"), S("1"),
        S("5"), S("pause"));
    EXPECT_STATUS(5);
    EXPECT_ERR("rank 1 (pid ");
    CHECK_MSG(!strstr(R.err, "sending SIGKILL"), "SIGTERM was not enough:\n%s", R.err);
    RUN(9, S(sluicerun), S("-n"), S("4"), S("--grace"), S("30"), S(child), S("fail"), S("3"),
        S("6"));
    EXPECT_STATUS(6);
    EXPECT_ERR("rank 3 (pid ");
    CHECK_MSG(!strstr(R.err, "sending SIGKILL"), "SIGTERM was not enough:\n%s", R.err);
}

static void case_finalize_rules(void)
{
    RUN(10, S(sluicerun), S("-n"), S("3"), S(child), S("nofinalize"), S("1"));
    EXPECT_STATUS(1);
    EXPECT_ERR("rank 1 (pid ");
    EXPECT_ERR("exited without calling PMI finalize; terminating the job");
    RUN(10, S(sluicerun), S("-n"), S("3"), S(child), S("finalize-early"), S("2"));
    EXPECT_STATUS(1);
    EXPECT_ERR("rank 2 (pid ");
    EXPECT_ERR("wait in a PMI barrier; terminating the job");
}

static void case_prefix(void)
{
    const int nranks = 3, nlines = 40;
    RUN(10, S(sluicerun), S("-n"), S("3"), S("--prefix"), S(child), S("output"), S("40"));
    EXPECT_STATUS(0);
    int seen[3] = {0}, tails = 0;
    char *save = NULL;
    for (char *line = strtok_r(R.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        int pr, r, k, n = 0;
        if (sscanf(line, "[%d] rank %d line %d %n", &pr, &r, &k, &n) == 3 && n > 0) {
            CHECK_MSG(pr == r && r >= 0 && r < nranks, "mixed line: '%s'", line);
            CHECK_MSG(k == seen[r], "rank %d: line %d came as number %d", r, k, seen[r]);
            CHECK_EQ(strlen(line + n), 10 + k % 50); /* payload whole */
            CHECK_EQ(atoi(line + n), k);
            seen[r]++;
        } else {
            CHECK_MSG(sscanf(line, "[%d] rank %d tail without newline", &pr, &r) == 2 && pr == r,
                      "unexpected line '%s'", line);
            tails++;
        }
    }
    for (int r = 0; r < nranks; r++)
        CHECK_EQ(seen[r], nlines);
    CHECK_EQ(tails, nranks);
    for (int r = 0; r < nranks; r++) {
        char want[64];
        snprintf(want, sizeof want, "[%d] rank %d stderr line\n", r, r);
        EXPECT_ERR(want);
    }
    /* -l is the short form; without it output is inherited unprefixed */
    RUN(10, S(sluicerun), S("-n"), S("1"), S("-l"), S(child), S("output"), S("1"));
    CHECK(strstr(R.out, "[0] rank 0 line 0 ") == R.out);
    RUN(10, S(sluicerun), S("-n"), S("1"), S(child), S("output"), S("1"));
    CHECK(strncmp(R.out, "rank 0 line 0 ", 14) == 0);
    /* ranks killed in the middle of a line: the partial lines still come out */
    RUN(10, S(sluicerun), S("-n"), S("3"), S("-l"), S(child), S("partial"), S("1"));
    EXPECT_STATUS(128 + 9);
    for (int r = 0; r < 3; r++) {
        char want[64];
        snprintf(want, sizeof want, "[%d] rank %d partial line\n", r, r);
        CHECK_MSG(strstr(R.out, want), "lost '%s':\n%s", want, R.out);
    }
    /* a line longer than 1 MiB comes in 1 MiB pieces, each prefixed */
    RUN(10, S(sluicerun), S("-n"), S("1"), S("-l"), S(child), S("longline"));
    EXPECT_STATUS(0);
    CHECK_EQ(R.outlen, 2 * 4 + (3 << 19) + 2);
    CHECK(strncmp(R.out, "[0] aaaa", 8) == 0);
    CHECK_EQ(R.out[4 + (1 << 20)], '\n');
    CHECK(strncmp(R.out + 5 + (1 << 20), "[0] aaaa", 8) == 0);
    CHECK_EQ(R.out[R.outlen - 1], '\n');
}

static void case_badopts(void)
{
    RUN(5, S(sluicerun));
    EXPECT_STATUS(2);
    EXPECT_ERR("-n N");
    RUN(5, S(sluicerun), S("-n"), S("0"), S(child), S("ok"));
    EXPECT_STATUS(2);
    EXPECT_ERR("invalid number of ranks '0'");
    RUN(5, S(sluicerun), S("-n"), S("two"), S(child), S("ok"));
    EXPECT_STATUS(2);
    RUN(5, S(sluicerun), S("-n"), S("-3"), S(child), S("ok"));
    EXPECT_STATUS(2);
    RUN(5, S(sluicerun), S("-n"));
    EXPECT_STATUS(2);
    RUN(5, S(sluicerun), S("-n"), S("2"));
    EXPECT_STATUS(2);
    EXPECT_ERR("no program to run");
    RUN(5, S(sluicerun), S("--bogus"), S("-n"), S("2"), S(child), S("ok"));
    EXPECT_STATUS(2);
    EXPECT_ERR("unknown option '--bogus'");
    RUN(5, S(sluicerun), S("-n"), S("2"), S("--timeout"), S("soon"), S(child), S("ok"));
    EXPECT_STATUS(2);
    RUN(5, S(sluicerun), S("-n"), S("2"), S("--grace=-1"), S(child), S("ok"));
    EXPECT_STATUS(2);
    RUN(5, S(sluicerun), S("-n"), S("2"), S("/nonexistent/prog"));
    EXPECT_STATUS(127);
    EXPECT_ERR("/nonexistent/prog: No such file or directory");
    RUN(5, S(sluicerun), S("-n"), S("2"), S("sluice-no-such-command-xyz"));
    EXPECT_STATUS(127);
    EXPECT_ERR("sluice-no-such-command-xyz: command not found");
    char plain[] = "/tmp/sluice-launcher-test-XXXXXX";
    int fd = mkstemp(plain);
    CHECK(fd >= 0 && write(fd, "not a program\n", 14) == 14 && fchmod(fd, 0644) == 0);
    close(fd);
    RUN(5, S(sluicerun), S("-n"), S("2"), plain);
    EXPECT_STATUS(126);
    EXPECT_ERR("not an executable file");
    CHECK(chmod(plain, 0755) == 0); /* executable, but not a format the kernel runs */
    RUN(5, S(sluicerun), S("-n"), S("2"), plain);
    unlink(plain);
    EXPECT_STATUS(126);
    EXPECT_ERR("cannot execute");
    EXPECT_ERR("Exec format error");
    RUN(5, S(sluicerun), S("--help"));
    EXPECT_STATUS(0);
    const char *opts[] = {"-n N",          "-np N",       "--prefix", "-l",
                          "--timeout SEC", "--grace SEC", "--help",   "--version"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        CHECK_MSG(strstr(R.out, opts[i]), "--help does not document %s", opts[i]);
}

static void case_env(void)
{
    /* what sluicerun sets replaces what it inherited */
    const char *stale = "0123456789abcdef0123456789abcdef";
    setenv("SLUICE_JOBKEY", stale, 1);
    setenv("PMI_RANK", "99", 1);
    setenv("PMI_FD", "0", 1);
    RUN(10, S(sluicerun), S("-n"), S("3"), S(child), S("env"));
    unsetenv("SLUICE_JOBKEY");
    unsetenv("PMI_RANK");
    unsetenv("PMI_FD");
    EXPECT_STATUS(0);
    char key[64] = "";
    CHECK(sscanf(R.out, "jobkey=%63s", key) == 1);
    CHECK_MSG(strcmp(key, stale) != 0, "the inherited SLUICE_JOBKEY reached the ranks");
}

/* Two jobs get two different keys; within a job boot_kvs checks they agree. */
static void case_jobkey(void)
{
    char key1[64] = "", key2[64] = "";
    RUN(10, S(sluicerun), S("-n"), S("2"), S(kvs_prog), S("launched"));
    EXPECT_STATUS(0);
    CHECK(sscanf(R.out, "jobkey=%63s", key1) == 1);
    RUN(10, S(sluicerun), S("-n"), S("2"), S(kvs_prog), S("launched"));
    EXPECT_STATUS(0);
    CHECK(sscanf(R.out, "jobkey=%63s", key2) == 1);
    CHECK_EQ(strlen(key1), 32);
    CHECK_MSG(strcmp(key1, key2) != 0, "two jobs share key %s", key1);
}

static void case_shm(void)
{
    RUN(10, S(sluicerun), S("-n"), S("3"), S(child), S("shm"), S("1"));
    EXPECT_STATUS(128 + 9);
    char key[64] = "";
    CHECK(sscanf(R.out, "jobkey=%63s", key) == 1);
    for (int r = 0; r < 3; r++) {
        char path[128];
        snprintf(path, sizeof path, "/dev/shm/sluice-%s-%d", key, r);
        CHECK_MSG(access(path, F_OK) != 0, "%s survived the job", path);
    }
}

/* SIGINT to sluicerun reaches the ranks; the job ends with 128+SIGINT. */
static void case_sigint(void)
{
    memset(&R, 0, sizeof R);
    double t0 = now_s();
    int outfd, errfd;
    char *argv[] = {S(sluicerun), S("-n"), S("3"), S(child), S("ready"), NULL};
    pid_t pid = start(argv, &outfd, &errfd);
    collect(&outfd, &errfd, t0, 8, "ready ", 3);
    CHECK(kill(pid, SIGINT) == 0);
    collect(&outfd, &errfd, t0, 8, NULL, 0);
    finish(pid, t0, 8);
    EXPECT_STATUS(128 + SIGINT);
    EXPECT_ERR("received SIGINT; forwarding it to the job");
}

/* SIGKILL to sluicerun: the ranks die with it (PR_SET_PDEATHSIG).  They hold
 * the write end of our stdout pipe, so EOF on it means all of them are gone. */
static void case_pdeathsig(void)
{
    memset(&R, 0, sizeof R);
    double t0 = now_s();
    int outfd, errfd;
    char *argv[] = {S(sluicerun), S("-n"), S("3"), S(child), S("ready"), NULL};
    pid_t pid = start(argv, &outfd, &errfd);
    collect(&outfd, &errfd, t0, 8, "ready ", 3);
    CHECK(kill(pid, SIGKILL) == 0);
    collect(&outfd, &errfd, t0, 8, NULL, 0); /* fails on the deadline if a rank lives on */
    finish(pid, t0, 8);
    EXPECT_STATUS(128 + SIGKILL);
}

static const struct {
    const char *name;
    void (*fn)(void);
} cases[] = {
    {"ok", case_ok},
    {"exit_code", case_exit_code},
    {"signal", case_signal},
    {"abort", case_abort},
    {"timeout", case_timeout},
    {"survivors", case_survivors},
    {"finalize", case_finalize_rules},
    {"prefix", case_prefix},
    {"badopts", case_badopts},
    {"env", case_env},
    {"jobkey", case_jobkey},
    {"shm", case_shm},
    {"sigint", case_sigint},
    {"pdeathsig", case_pdeathsig},
};

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s CASE SLUICERUN BOOT_CHILD BOOT_KVS BOOT_PMI_API\n", argv[0]);
        return 2;
    }
    sluicerun = argv[2];
    child = argv[3];
    kvs_prog = argv[4];
    pmi_api_prog = argv[5];
    signal(SIGPIPE, SIG_IGN);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].fn();
            char name[64];
            snprintf(name, sizeof name, "launcher %s", cases[i].name);
            t_done(name);
            return 0;
        }
    }
    fprintf(stderr, "unknown case '%s'\n", argv[1]);
    return 2;
}
