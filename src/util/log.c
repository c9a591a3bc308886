#include "util/log.h"
#include "util/param.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_int log_rank = -1;

void sl_log_set_rank(int rank)
{
    atomic_store(&log_rank, rank);
}

/* One write per line so lines of concurrent threads and ranks do not mix. */
static void log_line(const char *level, const char *fmt, va_list ap)
{
    char buf[1024];
    int rank = atomic_load(&log_rank);
    int n = rank >= 0 ? snprintf(buf, sizeof buf, "sluice[%d]: %s", rank, level)
                      : snprintf(buf, sizeof buf, "sluice: %s", level);
    if (n < 0 || (size_t)n >= sizeof buf) n = 0;
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof buf - 2) len = sizeof buf - 2;
    buf[len++] = '\n';
    fwrite(buf, 1, len, stderr);
}

void sl_log_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_line("error: ", fmt, ap);
    va_end(ap);
}

void sl_log_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_line("warning: ", fmt, ap);
    va_end(ap);
}

void sl_log_debug(const char *fmt, ...)
{
    if (!sl_param_flag(SL_PARAM_DEBUG)) return;
    va_list ap;
    va_start(ap, fmt);
    log_line("", fmt, ap);
    va_end(ap);
}

void sl_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_line("fatal: ", fmt, ap);
    va_end(ap);
    abort();
}
