/* The job: spawn the ranks, run the event loop, reap, tear down, clean up.
 *
 * Everything happens on one thread in one poll() loop.  Signals arrive as
 * bytes on a self-pipe (main.c installs the handlers), so SIGCHLD is handled
 * in the loop like any other event.  Ranks are tracked by pid and by the
 * process group the job creates (rank 0 leads it); never by name. */
#include "sluicerun.h"
#include "util/sys.h"
#include "wire/wire.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ---- exit status and teardown ------------------------------------------------------------ */

void job_fail(sr_job_t *job, int status, const char *fmt, ...)
{
    if (job->status_set) return;
    job->status_set = true;
    job->status = status;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "sluicerun: %s%s\n", msg, job->live > 0 ? "; terminating the job" : "");
    fflush(stderr);
    job_teardown(job);
}

#define JOB_SETTLE_MS 250

void job_fail_soon(sr_job_t *job, int status, const char *fmt, ...)
{
    if (job->status_set || job->settle_at_ns) return;
    job->settle_status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(job->settle_msg, sizeof job->settle_msg, fmt, ap);
    va_end(ap);
    job->settle_at_ns = sl_now_ns() + JOB_SETTLE_MS * 1000000ull;
}

/* Decide a pending failure (its time came, or no rank is left to wait for). */
static void job_settle(sr_job_t *job)
{
    if (!job->settle_at_ns) return;
    job->settle_at_ns = 0;
    job_fail(job, job->settle_status, "%s", job->settle_msg);
}

static void job_signal_all(sr_job_t *job, int sig)
{
    for (int i = 0; i < job->n; i++)
        if (job->ranks[i].pid > 0 && !job->ranks[i].reaped) kill(job->ranks[i].pid, sig);
    if (job->pgid > 0) kill(-job->pgid, sig); /* also whatever the ranks started */
}

void job_teardown(sr_job_t *job)
{
    if (job->tearing || job->live == 0) return;
    job->tearing = true;
    if (job->opts->grace <= 0) {
        job_signal_all(job, SIGKILL);
        job->killed = true;
        return;
    }
    job->term_sig = SIGTERM;
    job_signal_all(job, SIGTERM);
    /* a stopped rank (SIGSTOP) would keep the SIGTERM pending until the
     * SIGKILL of the grace period: continued, it ends now */
    job_signal_all(job, SIGCONT);
    job->kill_at_ns = sl_now_ns() + (uint64_t)(job->opts->grace * 1e9);
}

/* Only ranks that exited count: a rank that closed its connection or
 * finalized is judged by how it exits, so the first failure keeps its status. */
void job_check_barrier(sr_job_t *job)
{
    if (job->barrier_count == 0 || job->status_set || job->settle_at_ns) return;
    for (int i = 0; i < job->n; i++) {
        sr_rank_t *r = &job->ranks[i];
        if (r->in_barrier || !r->reaped) continue;
        job_fail(job, 1, "rank %d (pid %ld) exited%s while %d rank(s) wait in a PMI barrier", i,
                 (long)r->pid, r->finalized ? " after PMI finalize" : "", job->barrier_count);
        return;
    }
}

/* A rank ended (signaled: killed by signal code, else exited with status
 * code): say how, decide whether that fails the job. */
static void job_rank_ended(sr_job_t *job, sr_rank_t *r, bool signaled, int code)
{
    pmi_server_drain_and_close(job, r); /* an abort sent just before exiting counts */
    r->reaped = true;
    job->live--;
    if (signaled) {
        job_fail(job, 128 + code, "rank %d (pid %ld) killed by signal %d (%s)", r->rank,
                 (long)r->pid, code, strsignal(code));
    } else if (code != 0) {
        job_fail_soon(job, code, "rank %d (pid %ld) exited with status %d", r->rank, (long)r->pid, code);
    } else if (r->pmi_inited && !r->finalized && job->live > 0) {
        job_fail_soon(job, 1, "rank %d (pid %ld) exited without calling PMI finalize", r->rank,
                 (long)r->pid);
    }
    job_check_barrier(job);
}

/* Collect ended ranks.  Rank 0 leads the job's process group; it is left a
 * zombie (WNOWAIT) until the very end so that the group id cannot be reused
 * by an unrelated process while sluicerun may still signal the group. */
static void job_reap(sr_job_t *job)
{
    for (int i = 0; i < job->n; i++) {
        sr_rank_t *r = &job->ranks[i];
        if (r->pid <= 0 || r->reaped) continue;
        siginfo_t si;
        memset(&si, 0, sizeof si);
        int flags = WEXITED | WNOHANG | (r->pid == job->pgid ? WNOWAIT : 0);
        if (waitid(P_PID, (id_t)r->pid, &si, flags) != 0 || si.si_pid != r->pid) continue;
        job_rank_ended(job, r, si.si_code != CLD_EXITED, si.si_status);
    }
}

static void job_on_signals(sr_job_t *job)
{
    unsigned char sigs[64];
    ssize_t n;
    bool chld = false;
    while ((n = read(job->sigpipe_rd, sigs, sizeof sigs)) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            int sig = sigs[i];
            if (sig == SIGCHLD) {
                chld = true;
                continue;
            }
            if (job->live == 0) continue;
            if (job->forwarded_sig) { /* second request: no more grace */
                fprintf(stderr, "sluicerun: received SIG%s again; killing the job\n",
                        sigabbrev_np(sig));
                job_signal_all(job, SIGKILL);
                job->killed = true;
                continue;
            }
            fprintf(stderr, "sluicerun: received SIG%s; forwarding it to the job\n",
                    sigabbrev_np(sig));
            job->forwarded_sig = sig;
            if (!job->status_set) { /* the job ends because it was asked to */
                job->status_set = true;
                job->status = 128 + sig;
            }
            job_signal_all(job, sig);
            if (!job->tearing) {
                job->tearing = true;
                job->term_sig = sig;
                job->kill_at_ns = sl_now_ns() + (uint64_t)(job->opts->grace * 1e9);
            }
        }
    }
    if (chld) job_reap(job);
}

static void job_on_timers(sr_job_t *job)
{
    uint64_t now = sl_now_ns();
    if (job->settle_at_ns && now >= job->settle_at_ns) job_settle(job);
    if (job->deadline_ns && now >= job->deadline_ns) {
        job->deadline_ns = 0;
        job_fail(job, SR_EXIT_TIMEOUT, "the job ran longer than --timeout %g s",
                 job->opts->timeout);
        job_teardown(job); /* even when an earlier failure decided the status */
    }
    if (job->tearing && !job->killed && now >= job->kill_at_ns) {
        job->killed = true;
        int left = 0;
        for (int i = 0; i < job->n; i++)
            left += !job->ranks[i].reaped;
        fprintf(stderr, "sluicerun: %d rank(s) still alive %g s after SIG%s; sending SIGKILL\n",
                left, job->opts->grace, sigabbrev_np(job->term_sig));
        job_signal_all(job, SIGKILL);
    }
}

/* ---- the event loop --------------------------------------------------------------------- */

static int job_poll_timeout_ms(const sr_job_t *job)
{
    uint64_t next = 0, now = sl_now_ns();
    if (job->deadline_ns) next = job->deadline_ns;
    if (job->settle_at_ns && (!next || job->settle_at_ns < next)) next = job->settle_at_ns;
    if (job->tearing && !job->killed && (!next || job->kill_at_ns < next)) next = job->kill_at_ns;
    if (!next) return -1;
    if (next <= now) return 0;
    uint64_t ms = (next - now + 999999) / 1000000;
    return ms > 60000 ? 60000 : (int)ms;
}

/* Which object a pollfd belongs to. */
typedef struct job_pollref {
    sr_rank_t *rank;
    sr_pending_t *pending;
    int what; /* 0 PMI, 1 stdout, 2 stderr, -1 self-pipe, 3 listening socket, 4 pending */
} job_pollref_t;

static void job_loop(sr_job_t *job, struct pollfd *pfd, job_pollref_t *ref)
{
    while (job->live > 0) {
        nfds_t n = 0;
        pfd[n] = (struct pollfd){.fd = job->sigpipe_rd, .events = POLLIN};
        ref[n++] = (job_pollref_t){NULL, NULL, -1};
        if (job->listen_fd >= 0) {
            pfd[n] = (struct pollfd){.fd = job->listen_fd, .events = POLLIN};
            ref[n++] = (job_pollref_t){NULL, NULL, 3};
            for (int i = 0; i < job->npending; i++) {
                if (job->pending[i].fd < 0) continue;
                pfd[n] = (struct pollfd){.fd = job->pending[i].fd, .events = POLLIN};
                ref[n++] = (job_pollref_t){NULL, &job->pending[i], 4};
            }
        }
        for (int i = 0; i < job->n; i++) {
            sr_rank_t *r = &job->ranks[i];
            if (r->pmi_fd >= 0) {
                /* while replies are pending, read no more requests (back-pressure) */
                short ev = r->olen ? POLLOUT : POLLIN;
                pfd[n] = (struct pollfd){.fd = r->pmi_fd, .events = ev};
                ref[n++] = (job_pollref_t){r, NULL, 0};
            }
            for (int k = 0; k < 2; k++) {
                if (r->out[k].fd < 0) continue;
                pfd[n] = (struct pollfd){.fd = r->out[k].fd, .events = POLLIN};
                ref[n++] = (job_pollref_t){r, NULL, k + 1};
            }
        }
        int rc = poll(pfd, n, job_poll_timeout_ms(job));
        if (rc < 0 && errno != EINTR) {
            perror("sluicerun: poll");
            job_fail(job, 1, "internal error");
            job_signal_all(job, SIGKILL);
            job->killed = true;
        }
        /* Ended ranks first: a rank killed by a signal is the cause of what
         * its peers then say (an abort read in the same wake-up). */
        if (rc > 0 && pfd[0].revents) job_on_signals(job);
        for (nfds_t i = 1; rc > 0 && i < n; i++) {
            if (!pfd[i].revents) continue;
            sr_rank_t *r = ref[i].rank;
            if (ref[i].what == 0 && r->pmi_fd < 0) continue; /* closed when it was reaped */
            if (ref[i].what == 0) {
                if (r->olen && (pfd[i].revents & POLLOUT))
                    pmi_server_on_writable(job, r);
                else
                    pmi_server_on_readable(job, r);
            } else if (ref[i].what == 3) {
                pmi_port_on_accept(job);
            } else if (ref[i].what == 4) {
                if (ref[i].pending->fd >= 0) pmi_port_on_readable(job, ref[i].pending);
            } else if (r->out[ref[i].what - 1].fd >= 0) {
                out_on_readable(&r->out[ref[i].what - 1], r->rank);
            }
        }
        job_on_timers(job);
    }
}

/* ---- spawning ------------------------------------------------------------------------ */

static bool env_is_ours(const sr_job_t *job, const char *entry)
{
    if (job->opts->host_of && !strncmp(entry, "SLUICE_HOST=", 12)) return true;
    static const char *const ours[] = {
        "PMI_FD=",         "PMI_RANK=", "PMI_SIZE=", "PMI_VERSION=",
        "PMI_SUBVERSION=", "PMI_PORT=", "PMI_ID=",   "SLUICE_JOBKEY="};
    for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
        if (strncmp(entry, ours[i], strlen(ours[i])) == 0) return true;
    return false;
}

/* The child's side, between fork and exec: only async-signal-safe calls. */
static void job_child(const sr_job_t *job, int rank, int pmi_fd, const int *outp, const int *errp,
                      int errpipe, char **envp, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(SR_EXIT_NOTFOUND); /* launcher already gone */
    setpgid(0, job->pgid);                            /* rank 0: pgid is 0, it becomes the leader */
    if (job->opts->bind == SR_BIND_CORE) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(job->opts->cpus[rank % job->opts->ncpus], &one);
        sched_setaffinity(0, sizeof one, &one); /* a failure only costs placement */
    }
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    int sigs[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (rank != 0 || isatty(0)) { /* background ranks must not read the terminal */
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null >= 0) dup2(null, 0);
    }
    if (outp) {
        dup2(outp[1], 1);
        dup2(errp[1], 2);
    }
    if (pmi_fd >= 0) fcntl(pmi_fd, F_SETFD, 0); /* the one descriptor the rank inherits */
    execve(job->opts->path, job->opts->argv, envp);
    int err = errno;
    ssize_t ignored = write(errpipe, &err, sizeof err);
    (void)ignored;
    _exit(err == ENOENT ? SR_EXIT_NOTFOUND : SR_EXIT_NOEXEC);
}

static void close_pair(int *p)
{
    for (int i = 0; i < 2; i++)
        if (p[i] >= 0) close(p[i]);
    p[0] = p[1] = -1;
}

/* Start one rank.  Returns 0, or the exit status to give up with. */
static int job_spawn_rank(sr_job_t *job, int rank, char **envp, int nenv)
{
    sr_rank_t *r = &job->ranks[rank];
    int sv[2] = {-1, -1}, outp[2] = {-1, -1}, errp[2] = {-1, -1}, ep[2] = {-1, -1};
    bool port = job->opts->pmi_port;
    if ((!port && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) ||
        pipe2(ep, O_CLOEXEC) != 0 ||
        (job->opts->prefix && (pipe2(outp, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0))) {
        fprintf(stderr, "sluicerun: cannot start rank %d: %s\n", rank, strerror(errno));
        close_pair(sv), close_pair(outp), close_pair(errp), close_pair(ep);
        return 1;
    }
    char fdv[32], rankv[32], sizev[32], keyv[64], hostv[96];
    if (port)
        snprintf(fdv, sizeof fdv, "PMI_ID=%d", rank);
    else
        snprintf(fdv, sizeof fdv, "PMI_FD=%d", sv[1]);
    snprintf(rankv, sizeof rankv, "PMI_RANK=%d", rank);
    snprintf(sizev, sizeof sizev, "PMI_SIZE=%d", job->n);
    snprintf(keyv, sizeof keyv, "SLUICE_JOBKEY=%s", job->jobkey);
    if (job->opts->host_of)
        snprintf(hostv, sizeof hostv, "SLUICE_HOST=%s", job->opts->host_name[job->opts->host_of[rank]]);
    char *extra[] = {
        fdv, rankv, sizev, "PMI_VERSION=1", "PMI_SUBVERSION=1", keyv,
        job->opts->host_of ? hostv : NULL, port ? job->port_env : NULL, NULL};
    if (!job->opts->host_of) extra[6] = port ? job->port_env : NULL, extra[7] = NULL;
    int k = 0;
    for (; extra[k]; k++)
        envp[nenv + k] = extra[k];
    envp[nenv + k] = NULL;

    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old); /* no launcher handler may run in the child */
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        job_child(job, rank, sv[1], job->opts->prefix ? outp : NULL, errp, ep[1], envp, parent);
    int fork_err = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (pid < 0) {
        fprintf(stderr, "sluicerun: cannot start rank %d: fork: %s\n", rank, strerror(fork_err));
        close_pair(sv), close_pair(outp), close_pair(errp), close_pair(ep);
        return 1;
    }
    setpgid(pid, job->pgid ? job->pgid : pid); /* both sides set it: no race */
    if (rank == 0) job->pgid = pid;
    r->pid = pid;
    job->live++;
    if (sv[1] >= 0) close(sv[1]);
    close(ep[1]);
    if (job->opts->prefix) {
        close(outp[1]);
        close(errp[1]);
        fcntl(outp[0], F_SETFL, O_NONBLOCK);
        fcntl(errp[0], F_SETFL, O_NONBLOCK);
        out_init(&r->out[0], outp[0], 1);
        out_init(&r->out[1], errp[0], 2);
    }
    r->pmi_fd = sv[0]; /* --pmi-port: -1 until the rank connects */
    if (r->pmi_fd >= 0) fcntl(r->pmi_fd, F_SETFL, O_NONBLOCK);
    int err;
    ssize_t got;
    do {
        got = read(ep[0], &err, sizeof err); /* EOF: exec succeeded */
    } while (got < 0 && errno == EINTR);
    close(ep[0]);
    if (got == (ssize_t)sizeof err) {
        fprintf(stderr, "sluicerun: cannot execute %s: %s\n", job->opts->path, strerror(err));
        return err == ENOENT ? SR_EXIT_NOTFOUND : SR_EXIT_NOEXEC;
    }
    return 0;
}

static int job_spawn_all(sr_job_t *job)
{
    int nenv = 0;
    for (char **e = environ; *e; e++)
        nenv++;
    char **envp = calloc((size_t)nenv + 10, sizeof *envp);
    if (!envp) {
        fprintf(stderr, "sluicerun: out of memory\n");
        return 1;
    }
    int k = 0;
    for (char **e = environ; *e; e++)
        if (!env_is_ours(job, *e)) envp[k++] = *e;
    int rc = 0;
    for (int i = 0; i < job->n && rc == 0; i++)
        rc = job_spawn_rank(job, i, envp, k);
    free(envp);
    return rc;
}

/* ---- clean-up ----------------------------------------------------------------------- */

/* Was the wire segment name created by one of our ranks (whatever key it
 * used: a rank may have been given another SLUICE_JOBKEY, and then its
 * segment does not carry ours)? */
static bool job_owns_segment(const sr_job_t *job, const char *name)
{
    int pid, rank;
    if (strncmp(name, "sluice-", 7) != 0 || !wire_segment_owner(name, &pid, &rank)) return false;
    return rank >= 0 && rank < job->n && job->ranks[rank].pid == (pid_t)pid;
}

/* Remove /dev/shm/sluice-<jobkey>-*, the job's wire segments, and any
 * other wire segment one of its ranks created (a rank killed between
 * creating its segment and unlinking it leaves one behind). */
static void job_remove_shm(const sr_job_t *job)
{
    char prefix[64];
    int plen = snprintf(prefix, sizeof prefix, "sluice-%s-", job->jobkey);
    DIR *d = opendir("/dev/shm");
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, (size_t)plen) != 0 && !job_owns_segment(job, e->d_name))
            continue;
        if (unlinkat(dirfd(d), e->d_name, 0) != 0 && errno != ENOENT)
            fprintf(stderr, "sluicerun: cannot remove /dev/shm/%s: %s\n", e->d_name,
                    strerror(errno));
    }
    closedir(d);
}

static void job_free(sr_job_t *job)
{
    for (int i = 0; job->ranks && i < job->n; i++) {
        sr_rank_t *r = &job->ranks[i];
        if (r->pmi_fd >= 0) close(r->pmi_fd);
        free(r->obuf);
        for (int k = 0; k < 2; k++) {
            free(r->out[k].buf);
            if (r->out[k].fd >= 0) close(r->out[k].fd);
        }
    }
    free(job->ranks);
    kvs_free(job->kvs);
    pmi_port_close(job);
}

static int job_make_key(sr_job_t *job)
{
    unsigned char bytes[16];
    if (sl_random_bytes(bytes, sizeof bytes) != SL_OK) {
        fprintf(stderr, "sluicerun: cannot draw the job key: %s\n", strerror(errno));
        return -1;
    }
    for (int i = 0; i < 16; i++)
        snprintf(job->jobkey + 2 * i, 3, "%02x", bytes[i]);
    return 0;
}

int job_run(const sr_opts_t *opts, int sigpipe_rd)
{
    sr_job_t job = {.opts = opts, .n = opts->nranks, .sigpipe_rd = sigpipe_rd, .listen_fd = -1};
    job.ranks = calloc((size_t)job.n, sizeof *job.ranks);
    for (int i = 0; job.ranks && i < job.n; i++) {
        job.ranks[i].rank = i;
        job.ranks[i].pmi_fd = -1;
        job.ranks[i].out[0].fd = job.ranks[i].out[1].fd = -1;
    }
    job.kvs = kvs_new();
    size_t npoll = 2 + 16 + 4 * (size_t)job.n; /* self-pipe, listener, pending, ranks */
    struct pollfd *pfd = calloc(npoll, sizeof *pfd);
    job_pollref_t *ref = calloc(npoll, sizeof *ref);
    if (!job.ranks || !job.kvs || !pfd || !ref) {
        fprintf(stderr, "sluicerun: out of memory for %d ranks\n", job.n);
        free(pfd), free(ref), job_free(&job);
        return 1;
    }
    if (job_make_key(&job) != 0) {
        free(pfd), free(ref), job_free(&job);
        return 1;
    }
    snprintf(job.kvsname, sizeof job.kvsname, "kvs_%ld_0", (long)getpid());
    /* as Hydra does: all N ranks on this one node (MPICH reads it to find its
     * node-local peers); owned by no rank, so no rank can replace it */
    char mapping[64];
    snprintf(mapping, sizeof mapping, "(vector,(0,1,%d))", job.n);
    if (kvs_put(job.kvs, -1, "PMI_process_mapping", mapping) != 0) {
        fprintf(stderr, "sluicerun: out of memory\n");
        free(pfd), free(ref), job_free(&job);
        return 1;
    }
    if (opts->pmi_port && pmi_port_listen(&job) != 0) {
        free(pfd), free(ref), job_free(&job);
        return 1;
    }
    if (opts->timeout > 0) job.deadline_ns = sl_now_ns() + (uint64_t)(opts->timeout * 1e9);

    int rc = job_spawn_all(&job);
    if (rc != 0) { /* ranks already started must not outlive the launch */
        job.status_set = true;
        job.status = rc;
        job_signal_all(&job, SIGKILL);
        job.tearing = job.killed = true;
    }
    job_loop(&job, pfd, ref);
    job_settle(&job); /* every rank ended before the pending failure's time */
    for (int i = 0; i < job.n; i++)
        for (int k = 0; k < 2; k++)
            out_drain_and_close(&job.ranks[i].out[k], i);
    if (job.pgid > 0) {
        kill(-job.pgid, SIGKILL);   /* leftovers the ranks started */
        waitpid(job.pgid, NULL, 0); /* rank 0, kept a zombie until now */
    }
    pmi_port_close(&job);
    job_remove_shm(&job);
    job_merge_trace(job.n);
    int status = job.status_set ? job.status : 0;
    free(pfd), free(ref), job_free(&job);
    return status;
}
