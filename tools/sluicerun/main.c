/* sluicerun: command line, program lookup, signal set-up; the job itself is
 * in job.c.  See docs/LAUNCHER.md. */
#include "sluicerun.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define SR_MAX_RANKS 100000

static const char sr_usage[] =
    "Usage: sluicerun -n N [options] [--] program [args...]\n"
    "\n"
    "Start N ranks of program on this host and serve them the PMI-1 wire protocol\n"
    "(PMI_FD, PMI_RANK, PMI_SIZE; see docs/LAUNCHER.md).\n"
    "\n"
    "Options:\n"
    "  -n N, -np N, --np N  number of ranks to start (N >= 1; required)\n"
    "  -l, --prefix         forward every output line as \"[rank] line\" (stdout and\n"
    "                       stderr through pipes; lines are never split or mixed)\n"
    "  --timeout SEC        tear the job down if it runs longer than SEC seconds and\n"
    "                       exit with status 124 (default: no limit)\n"
    "  --grace SEC          at teardown, seconds between SIGTERM and SIGKILL\n"
    "                       (default 3; 0 sends SIGKILL at once)\n"
    "  --bind-to core|none  pin rank r to the r-th CPU this launcher may use (round\n"
    "                       robin), or leave placement to the kernel; default: core\n"
    "                       when N <= CPUs (spinning ranks must not share a CPU),\n"
    "                       none when oversubscribed\n"
    "  --pmi-port           serve PMI over TCP on 127.0.0.1 (PMI_PORT + PMI_ID)\n"
    "                       instead of PMI_FD, for clients that only know that\n"
    "                       form (any local process can connect: off by default)\n"
    "  --hosts H:N[,H:N...] place ranks on virtual hosts: the first N on host H, the\n"
    "                       next ones on the next host...  (rank r gets SLUICE_HOST).\n"
    "                       Ranks of one host share memory, of different hosts talk\n"
    "                       through libfabric over loopback.  The counts add up to\n"
    "                       the number of ranks (-n may then be left out)\n"
    "  -h, --help           print this help and exit\n"
    "  --version            print the version and exit\n"
    "SEC may have a fraction (0.5).  Options also take the form --opt=VALUE.\n"
    "\n"
    "Each rank gets PMI_FD (a connected socket), PMI_RANK, PMI_SIZE, PMI_VERSION=1,\n"
    "PMI_SUBVERSION=1 and SLUICE_JOBKEY (a fresh random 128-bit key, 32 hex digits);\n"
    "with --pmi-port, PMI_PORT and PMI_ID instead of PMI_FD.\n"
    "\n"
    "Exit status: 0 when every rank exits 0; otherwise that of the first rank to\n"
    "fail (its exit status, or 128+signal), or the code a rank passed to PMI abort;\n"
    "124 on --timeout; 128+signal when sluicerun gets SIGINT, SIGTERM or SIGHUP\n"
    "(it forwards them to the ranks); 2 for a usage error; 126/127 when the\n"
    "program cannot be executed / is not found.  When a rank fails, the others get\n"
    "SIGTERM, then SIGKILL after the grace period.  At the end the job's shared\n"
    "memory (/dev/shm/sluice-<key>-*) is removed.\n";

static int sr_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "sluicerun: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'sluicerun --help' for more information.\n");
    return SR_EXIT_USAGE;
}

static bool sr_parse_ranks(const char *text, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 1 || v > SR_MAX_RANKS) return false;
    *out = (int)v;
    return true;
}

/* --hosts a:2,b:2 into o->host_name/host_of; the total into *total.
 * Names: 1-63 letters, digits, '.', '_' or '-' (what the wire accepts). */
static bool sr_parse_hosts(const char *text, sr_opts_t *o, int *total)
{
    int cap = 1;
    for (const char *c = text; *c; c++) cap += *c == ',';
    free(o->host_name); /* --hosts given again: the last one counts */
    free(o->host_of);
    o->host_of = NULL;
    o->host_name = calloc((size_t)cap, sizeof *o->host_name);
    if (!o->host_name) return false;
    *total = 0;
    o->nhosts = 0;
    const char *c = text;
    while (*c) {
        const char *colon = strchr(c, ':');
        size_t n = colon ? (size_t)(colon - c) : 0;
        if (!colon || n == 0 || n >= sizeof o->host_name[0]) return false;
        for (size_t i = 0; i < n; i++)
            if (!isalnum((unsigned char)c[i]) && c[i] != '.' && c[i] != '_' && c[i] != '-')
                return false;
        char *end;
        errno = 0;
        long k = strtol(colon + 1, &end, 10);
        if (errno || end == colon + 1 || (*end && *end != ',') || k < 1 ||
            k > SR_MAX_RANKS - *total)
            return false;
        for (int h = 0; h < o->nhosts; h++) /* a host named twice */
            if (strlen(o->host_name[h]) == n && !strncmp(o->host_name[h], c, n)) return false;
        memcpy(o->host_name[o->nhosts++], c, n);
        *total += (int)k;
        c = *end ? end + 1 : end;
        if (*end == ',' && !*c) return false;
    }
    if (!*total) return false;
    o->host_of = malloc((size_t)*total * sizeof *o->host_of);
    if (!o->host_of) return false;
    int r = 0;
    c = text;
    for (int h = 0; h < o->nhosts; h++) {
        long k = strtol(strchr(c, ':') + 1, (char **)&c, 10);
        for (long i = 0; i < k; i++) o->host_of[r++] = h;
        if (*c == ',') c++;
    }
    return true;
}

static bool sr_parse_seconds(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(v) || v < 0 || v > 1e7) return false;
    *out = v;
    return true;
}

/* Option value: "--opt=value" or the next argument. */
static const char *sr_optval(int argc, char **argv, int *i, const char *eq)
{
    if (eq) return eq + 1;
    if (*i + 1 >= argc) return NULL;
    return argv[++*i];
}

/* The CPUs we may use, and whether ranks get bound to them. */
static void sr_cpus(sr_opts_t *o)
{
    cpu_set_t set;
    o->ncpus = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE && o->ncpus < (int)(sizeof o->cpus / sizeof o->cpus[0]); c++)
            if (CPU_ISSET(c, &set)) o->cpus[o->ncpus++] = c;
    if (o->bind == SR_BIND_AUTO) o->bind = o->nranks <= o->ncpus ? SR_BIND_CORE : SR_BIND_NONE;
    if (o->ncpus == 0) o->bind = SR_BIND_NONE;
}

/* Returns -1 to go on, else the exit status. */
static int sr_parse(int argc, char **argv, sr_opts_t *o)
{
    int i, host_total = 0;
    o->nranks = 0;
    o->grace = 3;
    for (i = 1; i < argc; i++) {
        char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0') break; /* the program */
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        char name[32];
        const char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
        size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
        if (nlen >= sizeof name) return sr_usage_error("unknown option '%s'", a);
        memcpy(name, a, nlen);
        name[nlen] = '\0';
        const char *v;
        if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
            fputs(sr_usage, stdout);
            return 0;
        } else if (!strcmp(name, "--version")) {
            printf("sluicerun (Sluice) %s\n", SLUICE_VERSION);
            return 0;
        } else if (!strcmp(name, "-n") || !strcmp(name, "-np") || !strcmp(name, "--np")) {
            if (!(v = sr_optval(argc, argv, &i, eq)))
                return sr_usage_error("option '%s' needs a number of ranks", name);
            if (!sr_parse_ranks(v, &o->nranks))
                return sr_usage_error("invalid number of ranks '%s' (need 1 or more)", v);
        } else if (!strncmp(a, "-n", 2) && a[2] >= '0' && a[2] <= '9') { /* -n4 */
            if (!sr_parse_ranks(a + 2, &o->nranks))
                return sr_usage_error("invalid number of ranks '%s' (need 1 or more)", a + 2);
        } else if (!strcmp(name, "-l") || !strcmp(name, "--prefix")) {
            if (eq) return sr_usage_error("option '%s' takes no value", name);
            o->prefix = true;
        } else if (!strcmp(name, "--bind-to")) {
            if (!(v = sr_optval(argc, argv, &i, eq)) || (strcmp(v, "core") && strcmp(v, "none")))
                return sr_usage_error("--bind-to takes 'core' or 'none', got '%s'",
                                      v ? v : "nothing");
            o->bind = strcmp(v, "core") == 0 ? SR_BIND_CORE : SR_BIND_NONE;
        } else if (!strcmp(name, "--hosts")) {
            if (!(v = sr_optval(argc, argv, &i, eq)) || !sr_parse_hosts(v, o, &host_total))
                return sr_usage_error("--hosts takes NAME:COUNT[,NAME:COUNT...] (names of "
                                      "letters, digits, '.', '_', '-', each once), got '%s'",
                                      v ? v : "nothing");
        } else if (!strcmp(name, "--pmi-port")) {
            if (eq) return sr_usage_error("option '%s' takes no value", name);
            o->pmi_port = true;
        } else if (!strcmp(name, "--timeout")) {
            if (!(v = sr_optval(argc, argv, &i, eq)) || !sr_parse_seconds(v, &o->timeout))
                return sr_usage_error("--timeout needs a number of seconds >= 0, got '%s'",
                                      v ? v : "nothing");
        } else if (!strcmp(name, "--grace")) {
            if (!(v = sr_optval(argc, argv, &i, eq)) || !sr_parse_seconds(v, &o->grace))
                return sr_usage_error("--grace needs a number of seconds >= 0, got '%s'",
                                      v ? v : "nothing");
        } else {
            return sr_usage_error("unknown option '%s'", a);
        }
    }
    if (host_total && o->nranks && host_total != o->nranks) {
        char msg[96];
        snprintf(msg, sizeof msg, "--hosts places %d ranks, -n asks for %d", host_total,
                 o->nranks);
        return sr_usage_error("%s", msg);
    }
    if (host_total) o->nranks = host_total;
    if (o->nranks == 0) return sr_usage_error("%s", "the number of ranks (-n N) is required");
    sr_cpus(o);
    if (i >= argc) return sr_usage_error("%s", "no program to run");
    o->argv = argv + i;
    return -1;
}

/* ---- program lookup ------------------------------------------------------------------- */

static char sr_path_buf[PATH_MAX];

/* Sets o->path like execvp would find it; returns -1 or an exit status. */
static int sr_find_program(sr_opts_t *o)
{
    const char *prog = o->argv[0];
    struct stat st;
    if (strchr(prog, '/')) {
        if (stat(prog, &st) != 0) {
            fprintf(stderr, "sluicerun: %s: %s\n", prog, strerror(errno));
            return errno == ENOENT ? SR_EXIT_NOTFOUND : SR_EXIT_NOEXEC;
        }
        if (!S_ISREG(st.st_mode) || access(prog, X_OK) != 0) {
            fprintf(stderr, "sluicerun: %s: %s\n", prog,
                    S_ISDIR(st.st_mode) ? "is a directory" : "not an executable file");
            return SR_EXIT_NOEXEC;
        }
        o->path = prog;
        return -1;
    }
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    bool denied = false;
    for (const char *p = path;; p++) {
        const char *end = strchrnul(p, ':');
        int dlen = (int)(end - p);
        if (dlen == 0)
            snprintf(sr_path_buf, sizeof sr_path_buf, "%s", prog);
        else
            snprintf(sr_path_buf, sizeof sr_path_buf, "%.*s/%s", dlen, p, prog);
        if (stat(sr_path_buf, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(sr_path_buf, X_OK) == 0) {
                o->path = sr_path_buf;
                return -1;
            }
            denied = true;
        }
        if (!*end) break;
        p = end;
    }
    if (denied) {
        fprintf(stderr, "sluicerun: %s: not an executable file\n", prog);
        return SR_EXIT_NOEXEC;
    }
    fprintf(stderr, "sluicerun: %s: command not found\n", prog);
    return SR_EXIT_NOTFOUND;
}

/* ---- process set-up -------------------------------------------------------------------- */

static int sr_sigpipe[2] = {-1, -1};

static void sr_on_signal(int sig)
{
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    ssize_t ignored = write(sr_sigpipe[1], &b, 1); /* full pipe: a byte is already there */
    (void)ignored;
    errno = saved;
}

static int sr_setup_signals(void)
{
    if (pipe2(sr_sigpipe, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    struct sigaction sa = {.sa_handler = sr_on_signal, .sa_flags = SA_RESTART | SA_NOCLDSTOP};
    sigemptyset(&sa.sa_mask);
    int sigs[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (sigaction(sigs[i], &sa, NULL) != 0) return -1;
    signal(SIGPIPE, SIG_IGN); /* a rank or reader gone shows as EPIPE */
    return 0;
}

/* Descriptors 0-2 must be open, or our own pipes would land there. */
static void sr_ensure_stdio(void)
{
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) >= 0) continue;
        int null = open("/dev/null", O_RDWR);
        if (null >= 0 && null != fd) {
            dup2(null, fd);
            close(null);
        }
    }
}

/* Enough descriptors for every rank's socket and pipes. */
static int sr_check_fd_limit(const sr_opts_t *o)
{
    rlim_t need = 16 + (rlim_t)o->nranks * (o->prefix ? 3 : 1) + 4;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need) return 0;
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need) {
        rl.rlim_cur = need;
        if (setrlimit(RLIMIT_NOFILE, &rl) == 0) return 0;
    }
    fprintf(stderr, "sluicerun: %d ranks need %lu open files, the limit is %lu\n", o->nranks,
            (unsigned long)need, (unsigned long)rl.rlim_max);
    return 1;
}

static int sr_main(sr_opts_t *opts, int argc, char **argv)
{
    int rc = sr_parse(argc, argv, opts);
    if (rc >= 0) return rc;
    if ((rc = sr_find_program(opts)) >= 0) return rc;
    sr_ensure_stdio();
    if (sr_check_fd_limit(opts) != 0) return 1;
    if (sr_setup_signals() != 0) {
        perror("sluicerun: signal set-up");
        return 1;
    }
    return job_run(opts, sr_sigpipe[0]);
}

int main(int argc, char **argv)
{
    sr_opts_t opts = {0};
    int rc = sr_main(&opts, argc, argv);
    free(opts.host_name); /* --hosts */
    free(opts.host_of);
    return rc;
}
