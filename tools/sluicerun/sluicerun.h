/* sluicerun: starts the ranks of a job on this host and serves them PMI-1.
 *
 * One process, one thread, one poll() loop (job.c).  Modules:
 *   main.c        options, program lookup, signal set-up
 *   job.c         spawning, the event loop, reaping, teardown, exit status, clean-up
 *   pmi_server.c  the PMI-1 simple wire protocol (one connection per rank)
 *   kvs.c         the job's key-value space
 *   output.c      --prefix forwarding of stdout/stderr, whole lines only
 *   pmi_port.c    --pmi-port: PMI over TCP on 127.0.0.1 (PMI_PORT + PMI_ID) */
#ifndef SLUICERUN_H
#define SLUICERUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SR_PMI_LINE_MAX 4096 /* longest PMI request accepted, newline included */
#define SR_KVSNAME_MAX 256   /* limits announced by get_maxes */
#define SR_KEYLEN_MAX 64
#define SR_VALLEN_MAX 1024
#define SR_OUT_LINE_MAX (1 << 20) /* longer output lines are forwarded in pieces */
#define SR_EXIT_USAGE 2
#define SR_EXIT_TIMEOUT 124
#define SR_EXIT_NOEXEC 126
#define SR_EXIT_NOTFOUND 127

/* --bind-to: auto binds like "core" when the job fits the CPUs, else not. */
enum { SR_BIND_AUTO, SR_BIND_CORE, SR_BIND_NONE };

typedef struct sr_opts {
    int nranks;
    bool prefix;      /* --prefix / -l */
    double timeout;   /* seconds; 0 = none */
    double grace;     /* seconds between SIGTERM and SIGKILL at teardown */
    bool pmi_port;    /* --pmi-port: PMI_PORT + PMI_ID instead of PMI_FD */
    int bind;         /* SR_BIND_*: --bind-to */
    int ncpus;        /* CPUs the launcher may run on, in order */
    int cpus[1024];
    /* --hosts: rank r runs on virtual host host_name[host_of[r]] (SLUICE_HOST) */
    int nhosts;
    char (*host_name)[64];
    int *host_of;     /* [nranks]; NULL without --hosts */
    const char *path; /* resolved program */
    char **argv;      /* program and its arguments (argv[0] as given) */
} sr_opts_t;

/* One forwarded output stream of a rank (--prefix only). */
typedef struct sr_out {
    int fd;    /* read end of the rank's pipe; -1 once closed */
    int dest;  /* 1 (stdout) or 2 (stderr) */
    char *buf; /* bytes of the current, unfinished line */
    size_t len, cap;
} sr_out_t;

typedef struct sr_rank {
    int rank;
    pid_t pid;
    bool reaped;
    /* PMI connection */
    int pmi_fd;               /* launcher's end; -1 once closed */
    char in[SR_PMI_LINE_MAX]; /* request bytes not yet processed */
    size_t inlen;
    bool discarding; /* skipping the rest of an over-long line */
    bool multi;      /* inside an unsupported mcmd=... block */
    char *obuf;      /* replies not yet written (socket full) */
    size_t olen, ocap;
    bool pmi_inited, finalized, in_barrier;
    bool pmi_claimed; /* --pmi-port: a connection said it is this rank */
    sr_out_t out[2];  /* stdout, stderr (--prefix) */
} sr_rank_t;

typedef struct sr_kvs sr_kvs_t;

/* --pmi-port: an accepted connection that has not said which rank it is. */
typedef struct sr_pending {
    int fd; /* -1: free slot */
    char buf[256];
    size_t len;
} sr_pending_t;

typedef struct sr_job {
    const sr_opts_t *opts;
    int n;
    sr_rank_t *ranks;
    pid_t pgid;      /* the job's process group (rank 0's pid) */
    int live;        /* ranks not yet reaped */
    char jobkey[33]; /* 32 lowercase hex digits */
    char kvsname[64];
    sr_kvs_t *kvs;
    int barrier_count; /* ranks inside the current barrier */
    bool status_set;   /* the job's exit status is decided */
    int status;
    bool tearing; /* SIGTERM sent, SIGKILL pending */
    bool killed;  /* SIGKILL sent */
    int term_sig; /* the signal that started the teardown (SIGTERM, or forwarded) */
    uint64_t kill_at_ns;
    /* A failure that may be the consequence of another rank's death (an
     * abort, a non-zero exit): decided at settle_at_ns unless a rank is
     * found killed by a signal first (job_fail_soon). 0 = none pending. */
    uint64_t settle_at_ns;
    int settle_status;
    char settle_msg[256];
    uint64_t deadline_ns;  /* --timeout; 0 = none */
    int forwarded_sig;     /* first SIGINT/SIGTERM/SIGHUP received and forwarded */
    int sigpipe_rd;        /* self-pipe: signal numbers as bytes */
    int listen_fd;         /* --pmi-port: listening socket; else -1 */
    char port_env[64];     /* "PMI_PORT=127.0.0.1:<port>" */
    sr_pending_t *pending; /* --pmi-port: n + 16 slots for connections not yet identified */
    int npending;
} sr_job_t;

/* job.c */
/* Run the whole job and return sluicerun's exit status. */
int job_run(const sr_opts_t *opts, int sigpipe_rd);
/* Decide the job's status (first decision wins), print why, tear down. */
void job_fail(sr_job_t *job, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same for a failure that may follow from another rank's death: a
 * rank that aborts or exits non-zero because a peer was killed often does
 * so before the killed rank is a zombie sluicerun can collect (its memory
 * is gone before its exit is reported). The decision waits JOB_SETTLE_MS
 * (or until the last rank ended); a rank found killed by a signal in that
 * time is reported instead, as the cause. */
void job_fail_soon(sr_job_t *job, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* SIGTERM to every live rank and the job's process group; SIGKILL after the grace. */
void job_teardown(sr_job_t *job);
/* Tear down when a barrier can never complete (a rank that is not in it exited). */
void job_check_barrier(sr_job_t *job);

/* pmi_server.c */
/* Read what the rank sent and answer every complete request. */
void pmi_server_on_readable(sr_job_t *job, sr_rank_t *r);
/* Write pending replies (socket was full). */
void pmi_server_on_writable(sr_job_t *job, sr_rank_t *r);
/* Rank exited: process whatever it sent before dying, then close. */
void pmi_server_drain_and_close(sr_job_t *job, sr_rank_t *r);
void pmi_server_close(sr_job_t *job, sr_rank_t *r);
/* --pmi-port: connection fd said "cmd=initack pmiid=<r's rank>"; answer the
 * handshake and serve it like a PMI_FD connection (rest: bytes after that line). */
void pmi_server_adopt(sr_job_t *job, sr_rank_t *r, int fd, const char *rest, size_t restlen);

/* pmi_port.c */
/* Listen on 127.0.0.1, an ephemeral port; fills job->port_env.  0 or -1. */
int pmi_port_listen(sr_job_t *job);
void pmi_port_on_accept(sr_job_t *job);
void pmi_port_on_readable(sr_job_t *job, sr_pending_t *p);
/* Close the listening socket and every unidentified connection. */
void pmi_port_close(sr_job_t *job);

/* kvs.c */
sr_kvs_t *kvs_new(void);
void kvs_free(sr_kvs_t *kvs);
/* 0 stored, -1 out of memory, -2 key owned by another rank. */
int kvs_put(sr_kvs_t *kvs, int owner, const char *key, const char *value);
const char *kvs_get(const sr_kvs_t *kvs, const char *key);

/* output.c */
void out_init(sr_out_t *o, int fd, int dest);
/* Read once; forward complete lines with the rank prefix; close at EOF. */
void out_on_readable(sr_out_t *o, int rank);
/* Read until nothing is left, forward the partial last line too, close. */
void out_drain_and_close(sr_out_t *o, int rank);

/* Write all of buf to fd (waits when fd is non-blocking and full); false on error. */
bool sr_write_all(int fd, const char *buf, size_t len);

/* trace.c: merge the ranks' SLUICE_TRACE files into one (after the job) */
void job_merge_trace(int nranks);

#endif
