/* Fuzz target (c): the PMI-1 server of sluicerun (tools/sluicerun/
 * pmi_server.c and the key-value space, kvs.c), fed request bytes from
 * several ranks as a hostile or broken rank might send them.  Input: a
 * sequence of chunks, each a byte choosing the rank and a byte giving the
 * chunk's length, then the bytes; each chunk is what one read() returns.
 * job.c is replaced by the two functions the server calls. */
#include "fuzz_common.h"
#include "sluicerun.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NR 3

void job_fail(sr_job_t *job, int status, const char *fmt, ...)
{
    if (job->status_set) return;
    job->status_set = true;
    job->status = status;
    va_list ap;
    va_start(ap, fmt);
    char msg[256];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
}

/* (the server asks for the delayed form when a rank aborts: the same
 * record here, there is no reaping to wait for) */
void job_fail_soon(sr_job_t *job, int status, const char *fmt, ...)
{
    if (job->status_set) return;
    job->status_set = true;
    job->status = status;
    (void)fmt;
}

void job_check_barrier(sr_job_t *job)
{
    if (job->barrier_count < 0 || job->barrier_count > job->n) abort();
}

static void drain(int fd)
{
    char buf[8192];
    while (read(fd, buf, sizeof buf) > 0) {
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static sr_opts_t opts = {.nranks = NR};
    sr_rank_t ranks[NR];
    int theirs[NR];
    memset(ranks, 0, sizeof ranks);
    sr_job_t job = {.opts = &opts, .n = NR, .ranks = ranks, .live = NR, .listen_fd = -1,
                    .sigpipe_rd = -1};
    snprintf(job.kvsname, sizeof job.kvsname, "kvs_fuzz_0");
    job.kvs = kvs_new();
    if (!job.kvs) return 0;
    for (int i = 0; i < NR; i++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0) abort();
        ranks[i].rank = i;
        ranks[i].pid = 1000 + i;
        ranks[i].pmi_fd = -1;
        theirs[i] = sv[1];
        pmi_server_adopt(&job, &ranks[i], sv[0], NULL, 0);
    }
    fz_in_t in = {data, size};
    while (in.n) {
        int r = fz_u8(&in) % NR;
        uint8_t op = fz_u8(&in);
        if (op == 0xff) { /* the rank hangs up (its process ended) */
            pmi_server_drain_and_close(&job, &ranks[r]);
            continue;
        }
        char chunk[256];
        size_t n = fz_take(&in, chunk, op);
        if (ranks[r].pmi_fd >= 0 && n && write(theirs[r], chunk, n) < 0) abort();
        pmi_server_on_readable(&job, &ranks[r]);
        drain(theirs[r]);
        if (ranks[r].pmi_fd >= 0 && ranks[r].olen) pmi_server_on_writable(&job, &ranks[r]);
        if (ranks[r].inlen > sizeof ranks[r].in) abort();
    }
    for (int i = 0; i < NR; i++) {
        pmi_server_close(&job, &ranks[i]);
        close(theirs[i]);
    }
    kvs_free(job.kvs);
    return 0;
}
