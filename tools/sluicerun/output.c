/* --prefix: each rank's stdout and stderr come through pipes; every complete
 * line is written as "[rank] line\n" with one write() on sluicerun's own
 * stdout/stderr, so lines of different ranks never mix.  A line longer than
 * SR_OUT_LINE_MAX is forwarded in pieces of that size, each with the prefix;
 * a last line without a newline is forwarded with one added at EOF. */
#include "sluicerun.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool sr_write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                struct pollfd p = {.fd = fd, .events = POLLOUT};
                poll(&p, 1, -1);
                continue;
            }
            return false;
        }
        buf += n;
        len -= (size_t)n;
    }
    return true;
}

void out_init(sr_out_t *o, int fd, int dest)
{
    o->fd = fd;
    o->dest = dest;
    o->buf = NULL;
    o->len = o->cap = 0;
}

/* Forward buf[0..len) (whole lines, or one piece) with the prefix. */
static void out_emit(sr_out_t *o, int rank, const char *text, size_t len, bool add_newline)
{
    char prefix[24];
    int plen = snprintf(prefix, sizeof prefix, "[%d] ", rank);
    /* count lines to size one output buffer */
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    if (add_newline) lines++;
    size_t total = len + lines * (size_t)plen + (add_newline ? 1 : 0);
    char *w = malloc(total);
    if (!w) { /* degrade to one write per line */
        const char *p = text, *end = text + len;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t l = nl ? (size_t)(nl - p + 1) : (size_t)(end - p);
            sr_write_all(o->dest, prefix, (size_t)plen);
            sr_write_all(o->dest, p, l);
            p += l;
        }
        if (add_newline) sr_write_all(o->dest, "\n", 1);
        return;
    }
    size_t k = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = nl ? (size_t)(nl - p + 1) : (size_t)(end - p);
        memcpy(w + k, prefix, (size_t)plen);
        k += (size_t)plen;
        memcpy(w + k, p, l);
        k += l;
        p += l;
    }
    if (add_newline) {
        if (len == 0) {
            memcpy(w + k, prefix, (size_t)plen);
            k += (size_t)plen;
        }
        w[k++] = '\n';
    }
    sr_write_all(o->dest, w, k); /* a closed stdout only loses output */
    free(w);
}

/* Forward every complete line in the buffer; keep the partial rest. */
static void out_flush_lines(sr_out_t *o, int rank)
{
    char *last_nl = NULL;
    for (size_t i = o->len; i > 0; i--)
        if (o->buf[i - 1] == '\n') {
            last_nl = o->buf + i - 1;
            break;
        }
    if (last_nl) {
        size_t n = (size_t)(last_nl - o->buf + 1);
        out_emit(o, rank, o->buf, n, false);
        o->len -= n;
        memmove(o->buf, o->buf + n, o->len);
    }
    while (o->len >= SR_OUT_LINE_MAX) { /* no newline in sight: forward a piece */
        out_emit(o, rank, o->buf, SR_OUT_LINE_MAX, true);
        o->len -= SR_OUT_LINE_MAX;
        memmove(o->buf, o->buf + SR_OUT_LINE_MAX, o->len);
    }
}

static void out_close(sr_out_t *o, int rank)
{
    if (o->len > 0) out_emit(o, rank, o->buf, o->len, true);
    free(o->buf);
    o->buf = NULL;
    o->len = o->cap = 0;
    if (o->fd >= 0) close(o->fd);
    o->fd = -1;
}

/* One read; returns 1 data, 0 EOF/error (closed), -1 nothing available now. */
static int out_read(sr_out_t *o, int rank)
{
    if (o->cap - o->len < 65536 && o->cap < SR_OUT_LINE_MAX + 65536) {
        size_t cap = o->cap ? o->cap * 2 : 65536;
        if (cap > SR_OUT_LINE_MAX + 65536) cap = SR_OUT_LINE_MAX + 65536;
        char *b = realloc(o->buf, cap);
        if (b) {
            o->buf = b;
            o->cap = cap;
        }
    }
    if (o->cap == o->len) { /* could not grow: make room */
        out_emit(o, rank, o->buf, o->len, true);
        o->len = 0;
        if (o->cap == 0) {
            out_close(o, rank);
            return 0;
        }
    }
    ssize_t n = read(o->fd, o->buf + o->len, o->cap - o->len);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return -1;
    if (n <= 0) {
        out_close(o, rank);
        return 0;
    }
    o->len += (size_t)n;
    out_flush_lines(o, rank);
    return 1;
}

void out_on_readable(sr_out_t *o, int rank)
{
    if (o->fd >= 0) out_read(o, rank);
}

void out_drain_and_close(sr_out_t *o, int rank)
{
    while (o->fd >= 0 && out_read(o, rank) == 1) {
    }
    if (o->fd >= 0) out_close(o, rank);
}
