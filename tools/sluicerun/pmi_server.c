/* The PMI-1 simple wire protocol, launcher side (see docs/LAUNCHER.md).
 *
 * Each rank has one connection.  Bytes are collected until a newline; every
 * complete line is one request, answered by exactly one reply line (except
 * barrier_in, answered when all ranks entered, and abort, never answered).
 * Partial reads and several requests in one read are normal.  A line longer
 * than SR_PMI_LINE_MAX is skipped up to its newline and answered with an
 * error; an unknown command is answered with rc=-1, never ignored. */
#include "sluicerun.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SRV_MAX_TOKENS 32

typedef struct srv_req {
    int ntok;
    char *key[SRV_MAX_TOKENS];
    char *val[SRV_MAX_TOKENS];
} srv_req_t;

static const char *srv_get(const srv_req_t *q, const char *key)
{
    for (int i = 0; i < q->ntok; i++)
        if (strcmp(q->key[i], key) == 0) return q->val[i];
    return NULL;
}

/* Queue one reply line and write as much as the socket takes. */
static void srv_reply(sr_job_t *job, sr_rank_t *r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void srv_reply(sr_job_t *job, sr_rank_t *r, const char *fmt, ...)
{
    if (r->pmi_fd < 0) return;
    char line[SR_PMI_LINE_MAX + 128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n > sizeof line - 2) n = (int)sizeof line - 2;
    line[n++] = '\n';
    if (r->olen + (size_t)n > r->ocap) {
        size_t cap = r->ocap ? r->ocap : 1024;
        while (cap < r->olen + (size_t)n)
            cap *= 2;
        char *b = realloc(r->obuf, cap);
        if (!b) {
            fprintf(stderr, "sluicerun: out of memory answering rank %d\n", r->rank);
            pmi_server_close(job, r);
            return;
        }
        r->obuf = b;
        r->ocap = cap;
    }
    memcpy(r->obuf + r->olen, line, (size_t)n);
    r->olen += (size_t)n;
    pmi_server_on_writable(job, r);
}

void pmi_server_on_writable(sr_job_t *job, sr_rank_t *r)
{
    size_t off = 0;
    while (r->pmi_fd >= 0 && off < r->olen) {
        ssize_t n = send(r->pmi_fd, r->obuf + off, r->olen - off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) break; /* poll for POLLOUT */
            pmi_server_close(job, r); /* the rank is gone; its exit tells the rest */
            return;
        }
        off += (size_t)n;
    }
    r->olen -= off;
    memmove(r->obuf, r->obuf + off, r->olen);
}

/* ---- requests ------------------------------------------------------------------------- */

static void srv_init(sr_job_t *job, sr_rank_t *r, const srv_req_t *q)
{
    const char *ver = srv_get(q, "pmi_version");
    int ok = ver && strcmp(ver, "1") == 0;
    if (ok) r->pmi_inited = true;
    srv_reply(job, r, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=%d", ok ? 0 : -1);
}

static void srv_get_maxes(sr_job_t *job, sr_rank_t *r, const srv_req_t *q)
{
    srv_reply(job, r, "cmd=maxes kvsname_max=%d keylen_max=%d vallen_max=%d", SR_KVSNAME_MAX,
              SR_KEYLEN_MAX, SR_VALLEN_MAX);
}

static void srv_get_appnum(sr_job_t *job, sr_rank_t *r, const srv_req_t *q)
{
    srv_reply(job, r, "cmd=appnum appnum=0");
}

static void srv_get_universe_size(sr_job_t *job, sr_rank_t *r, const srv_req_t *q)
{
    srv_reply(job, r, "cmd=universe_size size=%d", job->n);
}

static void srv_get_my_kvsname(sr_job_t *job, sr_rank_t *r, const srv_req_t *q)
{
    srv_reply(job, r, "cmd=my_kvsname kvsname=%s", job->kvsname);
}

/* Common checks of put and get; replies and returns false on error. */
static bool srv_check_kvs_key(sr_job_t *job, sr_rank_t *r, const srv_req_t *q, const char *cmd)
{
    const char *kvsname = srv_get(q, "kvsname"), *key = srv_get(q, "key");
    if (!kvsname || strcmp(kvsname, job->kvsname) != 0) {
        srv_reply(job, r, "cmd=%s rc=-1 msg=unknown_kvsname", cmd);
        return false;
    }
    if (!key || !*key || strlen(key) >= SR_KEYLEN_MAX) {
        srv_reply(job, r, "cmd=%s rc=-1 msg=invalid_key", cmd);
        return false;
    }
    return true;
}

static void srv_put(sr_job_t *job, sr_rank_t *r, const srv_req_t *q)
{
    if (!srv_check_kvs_key(job, r, q, "put_result")) return;
    const char *value = srv_get(q, "value");
    if (!value || strlen(value) >= SR_VALLEN_MAX) {
        srv_reply(job, r, "cmd=put_result rc=-1 msg=invalid_value");
        return;
    }
    int rc = kvs_put(job->kvs, r->rank, srv_get(q, "key"), value);
    if (rc == -2)
        srv_reply(job, r, "cmd=put_result rc=-1 msg=duplicate_key_%s", srv_get(q, "key"));
    else if (rc != 0)
        srv_reply(job, r, "cmd=put_result rc=-1 msg=out_of_memory");
    else
        srv_reply(job, r, "cmd=put_result rc=0 msg=success");
}

static void srv_get_cmd(sr_job_t *job, sr_rank_t *r, const srv_req_t *q)
{
    if (!srv_check_kvs_key(job, r, q, "get_result")) return;
    const char *key = srv_get(q, "key");
    const char *value = kvs_get(job->kvs, key);
    if (value)
        srv_reply(job, r, "cmd=get_result rc=0 msg=success value=%s", value);
    else
        srv_reply(job, r, "cmd=get_result rc=-1 msg=key_%s_not_found", key);
}

static void srv_barrier_in(sr_job_t *job, sr_rank_t *r, const srv_req_t *q)
{
    if (r->in_barrier) {
        srv_reply(job, r, "cmd=barrier_out rc=-1 msg=already_in_barrier");
        return;
    }
    r->in_barrier = true;
    if (++job->barrier_count < job->n) {
        job_check_barrier(job);
        return;
    }
    job->barrier_count = 0;
    for (int i = 0; i < job->n; i++) {
        if (!job->ranks[i].in_barrier) continue;
        job->ranks[i].in_barrier = false;
        srv_reply(job, &job->ranks[i], "cmd=barrier_out");
    }
}

static void srv_finalize(sr_job_t *job, sr_rank_t *r, const srv_req_t *q)
{
    r->finalized = true;
    srv_reply(job, r, "cmd=finalize_ack");
    job_check_barrier(job);
}

static void srv_abort(sr_job_t *job, sr_rank_t *r, const srv_req_t *q)
{
    const char *text = srv_get(q, "exitcode");
    long code = 1;
    if (text) {
        char *end;
        errno = 0;
        code = strtol(text, &end, 10);
        if (errno || end == text || *end) code = 1;
    }
    int status = (int)(code & 0xff);
    if (code != 0 && status == 0) status = 1; /* never report success for a failing code */
    job_fail_soon(job, status, "rank %d (pid %ld) called PMI abort with exit code %ld", r->rank,
             (long)r->pid, code);
}

typedef void srv_handler_t(sr_job_t *job, sr_rank_t *r, const srv_req_t *q);

static const struct {
    const char *cmd;
    srv_handler_t *fn;
} srv_commands[] = {
    {"init", srv_init},
    {"get_maxes", srv_get_maxes},
    {"get_appnum", srv_get_appnum},
    {"get_universe_size", srv_get_universe_size},
    {"get_my_kvsname", srv_get_my_kvsname},
    {"put", srv_put},
    {"get", srv_get_cmd},
    {"barrier_in", srv_barrier_in},
    {"finalize", srv_finalize},
    {"abort", srv_abort},
};

/* Answer one request line (NUL-terminated, newline removed). */
static void srv_line(sr_job_t *job, sr_rank_t *r, char *line)
{
    size_t len = strlen(line);
    if (len > 0 && line[len - 1] == '\r') line[--len] = '\0';
    if (r->multi) { /* mcmd=...: multi-line request, answered at endcmd */
        if (strcmp(line, "endcmd") == 0) {
            r->multi = false;
            srv_reply(job, r, "cmd=spawn_result rc=-1 msg=spawn_not_supported");
        }
        return;
    }
    srv_req_t q = {0};
    char *save = NULL;
    for (char *tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || q.ntok == SRV_MAX_TOKENS) {
            srv_reply(job, r, "cmd=error rc=-1 msg=malformed_request");
            return;
        }
        *eq = '\0';
        q.key[q.ntok] = tok;
        q.val[q.ntok++] = eq + 1;
    }
    if (q.ntok == 0) return; /* empty line */
    if (strcmp(q.key[0], "mcmd") == 0) {
        r->multi = true;
        return;
    }
    if (strcmp(q.key[0], "cmd") != 0) {
        srv_reply(job, r, "cmd=error rc=-1 msg=malformed_request");
        return;
    }
    for (size_t i = 0; i < sizeof srv_commands / sizeof srv_commands[0]; i++) {
        if (strcmp(q.val[0], srv_commands[i].cmd) == 0) {
            srv_commands[i].fn(job, r, &q);
            return;
        }
    }
    srv_reply(job, r, "cmd=error rc=-1 msg=unknown_command_%.64s", q.val[0]);
}

/* Process every complete line in r->in. */
static void srv_process(sr_job_t *job, sr_rank_t *r)
{
    size_t start = 0;
    while (r->pmi_fd >= 0) {
        char *nl = memchr(r->in + start, '\n', r->inlen - start);
        if (!nl) break;
        *nl = '\0';
        if (r->discarding) /* tail of an over-long line */
            r->discarding = false;
        else
            srv_line(job, r, r->in + start);
        start = (size_t)(nl - r->in) + 1;
    }
    if (r->pmi_fd < 0) return;
    r->inlen -= start;
    memmove(r->in, r->in + start, r->inlen);
    if (r->inlen == sizeof r->in) { /* no newline within the limit */
        if (!r->discarding)
            srv_reply(job, r, "cmd=error rc=-1 msg=line_too_long_max_%d", SR_PMI_LINE_MAX - 1);
        r->discarding = true;
        r->inlen = 0;
    }
}

/* One read; returns false at EOF or error (connection closed). */
static bool srv_read(sr_job_t *job, sr_rank_t *r)
{
    ssize_t n = read(r->pmi_fd, r->in + r->inlen, sizeof r->in - r->inlen);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return false;
    if (n <= 0) {
        pmi_server_close(job, r);
        return false;
    }
    r->inlen += (size_t)n;
    srv_process(job, r);
    return r->pmi_fd >= 0;
}

void pmi_server_adopt(sr_job_t *job, sr_rank_t *r, int fd, const char *rest, size_t restlen)
{
    r->pmi_fd = fd;
    srv_reply(job, r, "cmd=initack");
    srv_reply(job, r, "cmd=set size=%d", job->n);
    srv_reply(job, r, "cmd=set rank=%d", r->rank);
    srv_reply(job, r, "cmd=set debug=0");
    if (r->pmi_fd < 0 || restlen == 0) return;
    memcpy(r->in, rest, restlen); /* restlen < sizeof r->in: pending buffers are smaller */
    r->inlen = restlen;
    srv_process(job, r);
}

void pmi_server_on_readable(sr_job_t *job, sr_rank_t *r)
{
    if (r->pmi_fd >= 0) srv_read(job, r);
}

void pmi_server_drain_and_close(sr_job_t *job, sr_rank_t *r)
{
    while (r->pmi_fd >= 0 && srv_read(job, r)) {
    }
    pmi_server_close(job, r);
}

void pmi_server_close(sr_job_t *job, sr_rank_t *r)
{
    if (r->pmi_fd < 0) return;
    close(r->pmi_fd);
    r->pmi_fd = -1;
    free(r->obuf);
    r->obuf = NULL;
    r->olen = r->ocap = 0;
    if (r->in_barrier) { /* it entered, then left: it will never see barrier_out */
        r->in_barrier = false;
        job->barrier_count--;
    }
    job_check_barrier(job);
}
