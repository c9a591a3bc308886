/* SLUICE_TRACE=path: each rank wrote path.<rank> (src/util/trace.c), a
 * JSON document {"displayTimeUnit":...,"traceEvents":[ events ]}; one file
 * for the viewer is all of the ranks' events in one such document.  The
 * per-rank files are removed once merged (left as they are if the merge
 * fails, with a message). */
#include "sluicerun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The events of one rank's document: the text between the first '[' and
 * the last ']' (NULL if the file is not one of ours). */
static char *events_of(const char *file, size_t *len)
{
    FILE *f = fopen(file, "r");
    if (!f) return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    char chunk[65536];
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (n + got + 1 > cap) {
            cap = (n + got + 1) * 2;
            char *b = realloc(buf, cap);
            if (!b) break;
            buf = b;
        }
        memcpy(buf + n, chunk, got);
        n += got;
    }
    fclose(f);
    if (!buf) return NULL;
    buf[n] = '\0';
    char *open = strchr(buf, '['), *close = strrchr(buf, ']');
    if (!open || !close || close < open) {
        free(buf);
        return NULL;
    }
    *len = (size_t)(close - open - 1);
    memmove(buf, open + 1, *len);
    return buf;
}

void job_merge_trace(int nranks)
{
    const char *path = getenv("SLUICE_TRACE");
    if (!path || !*path) return;
    char file[4200];
    FILE *out = fopen(path, "w");
    if (!out) {
        fprintf(stderr, "sluicerun: cannot write the trace %s\n", path);
        return;
    }
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", out);
    int merged = 0;
    for (int r = 0; r < nranks; r++) {
        snprintf(file, sizeof file, "%s.%d", path, r);
        size_t len = 0;
        char *ev = events_of(file, &len);
        if (!ev) continue;
        while (len && (ev[len - 1] == '\n' || ev[len - 1] == ' ')) len--;
        size_t skip = 0;
        while (skip < len && ev[skip] == '\n') skip++;
        if (len > skip) {
            if (merged++) fputs(",\n", out);
            fwrite(ev + skip, 1, len - skip, out);
        }
        free(ev);
    }
    fputs("\n]}\n", out);
    if (fclose(out) != 0) {
        fprintf(stderr, "sluicerun: writing the trace %s failed\n", path);
        return;
    }
    for (int r = 0; r < nranks; r++) {
        snprintf(file, sizeof file, "%s.%d", path, r);
        remove(file);
    }
}
