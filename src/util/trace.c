/* The trace buffer: events formatted as JSON lines into one growing
 * buffer under a mutex (only when tracing), written at flush. */
#include "util/trace.h"

#include "util/log.h"
#include "util/param.h"
#include "util/sys.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

bool sl_trace_on;

static struct {
    pthread_mutex_t lock;
    char *buf;
    size_t len, cap;
    int rank;
    char path[4096];
    bool inited, flushed;
    uint64_t events;
} T = {.lock = PTHREAD_MUTEX_INITIALIZER};

void sl_trace_init(int rank)
{
    pthread_mutex_lock(&T.lock);
    if (!T.inited) {
        T.inited = true;
        const char *p = sl_param_str(SL_PARAM_TRACE);
        if (p && *p && snprintf(T.path, sizeof T.path, "%s.%d", p, rank) < (int)sizeof T.path) {
            T.rank = rank;
            atexit(sl_trace_flush);
            __atomic_store_n(&sl_trace_on, true, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&T.lock);
}

static bool reserve(size_t more)
{
    if (T.len + more <= T.cap) return true;
    size_t cap = T.cap ? T.cap * 2 : (size_t)1 << 20;
    while (cap < T.len + more) cap *= 2;
    char *b = realloc(T.buf, cap);
    if (!b) return false;
    T.buf = b;
    T.cap = cap;
    return true;
}

void sl_trace_emit(char ph, const char *cat, const char *name, uint64_t id, const char *args, ...)
{
    char a[384] = "", ev[768];
    if (args) {
        va_list ap;
        va_start(ap, args);
        vsnprintf(a, sizeof a, args, ap);
        va_end(ap);
    }
    size_t n = (size_t)snprintf(ev, sizeof ev,
                                "{\"ph\":\"%c\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":%d,"
                                "\"tid\":%ld,\"ts\":%.3f",
                                ph, cat, name, T.rank, (long)syscall(SYS_gettid),
                                (double)sl_now_ns() / 1000.0);
    if (n < sizeof ev && ph == 'i') n += (size_t)snprintf(ev + n, sizeof ev - n, ",\"s\":\"t\"");
    if (n < sizeof ev && (ph == 'b' || ph == 'e'))
        n += (size_t)snprintf(ev + n, sizeof ev - n, ",\"id\":\"0x%llx\"", (unsigned long long)id);
    if (n < sizeof ev && a[0]) n += (size_t)snprintf(ev + n, sizeof ev - n, ",\"args\":{%s}", a);
    if (n < sizeof ev) n += (size_t)snprintf(ev + n, sizeof ev - n, "}");
    if (n >= sizeof ev) return; /* cannot happen with the names used */
    pthread_mutex_lock(&T.lock);
    if (!T.flushed && reserve(n + 2)) {
        if (T.events++) {
            T.buf[T.len++] = ',';
            T.buf[T.len++] = '\n';
        }
        memcpy(T.buf + T.len, ev, n);
        T.len += n;
    }
    pthread_mutex_unlock(&T.lock);
}

void sl_trace_flush(void)
{
    if (!__atomic_load_n(&sl_trace_on, __ATOMIC_ACQUIRE)) return;
    pthread_mutex_lock(&T.lock);
    if (!T.flushed) {
        T.flushed = true;
        FILE *f = fopen(T.path, "w");
        if (!f) {
            sl_log_error("trace: cannot write %s", T.path);
        } else {
            fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", f);
            if (T.len) fwrite(T.buf, 1, T.len, f);
            fprintf(f, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"rank %d\"}}\n]}\n",
                    T.events ? ",\n" : "", T.rank, T.rank);
            fclose(f);
        }
        free(T.buf);
        T.buf = NULL;
        T.len = T.cap = 0;
    }
    pthread_mutex_unlock(&T.lock);
}
