/* --pmi-port: PMI-1 over TCP, for clients that only know PMI_PORT + PMI_ID.
 *
 * sluicerun listens on 127.0.0.1 (an ephemeral port) and gives each rank
 * PMI_PORT=127.0.0.1:<port> and PMI_ID=<rank> instead of PMI_FD.  A client
 * connects and first says "cmd=initack pmiid=<id>"; the launcher answers
 * "cmd=initack", then "cmd=set size=N", "cmd=set rank=R", "cmd=set debug=0"
 * (MPICH's simple PMI handshake), and from then on the connection is that
 * rank's PMI connection.  The first claim of an id wins; a second claim, an
 * id out of range or any other first line closes the connection.  Any local
 * process could connect, so this mode is off by default (PMI_FD is private
 * to the rank). */
#include "sluicerun.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int pmi_port_listen(sr_job_t *job)
{
    job->npending = job->n + 16;
    job->pending = malloc((size_t)job->npending * sizeof *job->pending);
    if (!job->pending) {
        fprintf(stderr, "sluicerun: out of memory\n");
        return -1;
    }
    for (int i = 0; i < job->npending; i++)
        job->pending[i].fd = -1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(fd, job->n < 128 ? 128 : job->n) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
        fprintf(stderr, "sluicerun: --pmi-port: cannot listen on 127.0.0.1: %s\n", strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    job->listen_fd = fd;
    snprintf(job->port_env, sizeof job->port_env, "PMI_PORT=127.0.0.1:%u",
             (unsigned)ntohs(sa.sin_port));
    return 0;
}

void pmi_port_on_accept(sr_job_t *job)
{
    for (;;) {
        int fd = accept4(job->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) return; /* EAGAIN, or a connection that vanished */
        sr_pending_t *slot = NULL;
        for (int i = 0; i < job->npending && !slot; i++)
            if (job->pending[i].fd < 0) slot = &job->pending[i];
        if (!slot) { /* more unidentified connections than any job needs */
            close(fd);
            continue;
        }
        slot->fd = fd;
        slot->len = 0;
    }
}

static void pending_close(sr_pending_t *p)
{
    close(p->fd);
    p->fd = -1;
    p->len = 0;
}

/* Reject a first line: say why (best effort), close. */
static void pending_reject(sr_pending_t *p, const char *msg)
{
    char line[128];
    int n = snprintf(line, sizeof line, "cmd=initack rc=-1 msg=%s\n", msg);
    ssize_t ignored = send(p->fd, line, (size_t)n, MSG_NOSIGNAL);
    (void)ignored;
    pending_close(p);
}

void pmi_port_on_readable(sr_job_t *job, sr_pending_t *p)
{
    ssize_t n = read(p->fd, p->buf + p->len, sizeof p->buf - 1 - p->len);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) {
        pending_close(p);
        return;
    }
    p->len += (size_t)n;
    p->buf[p->len] = '\0';
    char *nl = strchr(p->buf, '\n');
    if (!nl) {
        if (p->len == sizeof p->buf - 1) pending_reject(p, "line_too_long");
        return;
    }
    *nl = '\0';
    int id, used = 0;
    if (sscanf(p->buf, "cmd=initack pmiid=%d%n", &id, &used) != 1 ||
        (p->buf[used] != '\0' && p->buf[used] != ' ' && p->buf[used] != '\r')) {
        pending_reject(p, "expected_initack");
        return;
    }
    if (id < 0 || id >= job->n) {
        pending_reject(p, "pmiid_out_of_range");
        return;
    }
    sr_rank_t *r = &job->ranks[id];
    if (r->pmi_fd >= 0 || r->reaped || r->pmi_claimed) {
        pending_reject(p, "pmiid_already_connected");
        return;
    }
    r->pmi_claimed = true;
    size_t restlen = p->len - (size_t)(nl + 1 - p->buf);
    int fd = p->fd;
    p->fd = -1;
    p->len = 0;
    pmi_server_adopt(job, r, fd, nl + 1, restlen);
}

void pmi_port_close(sr_job_t *job)
{
    if (job->listen_fd >= 0) close(job->listen_fd);
    job->listen_fd = -1;
    for (int i = 0; i < job->npending; i++)
        if (job->pending[i].fd >= 0) pending_close(&job->pending[i]);
    free(job->pending);
    job->pending = NULL;
    job->npending = 0;
}
