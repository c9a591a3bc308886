/* Chrome / Perfetto trace (SLUICE_TRACE=path): every process writes the
 * events of its run to path.<rank> as a JSON trace document, and sluicerun
 * merges the ranks' documents into path when the job ends (each rank is a
 * process in the viewer, each thread a track).  Load it in
 * ui.perfetto.dev or chrome://tracing.
 *
 * Off by default, and then each trace point costs one test of a global
 * that is false (SL_TRACE): the arguments are not even evaluated.
 *
 * Events: ph 'b'/'e' are async spans matched by (cat, id) (a vertex of a
 * schedule, a pull), 'i' an instant.  args is a JSON object body without
 * braces (printf format), e.g. "\"peer\":%d,\"bytes\":%zu", or NULL. */
#ifndef SL_UTIL_TRACE_H
#define SL_UTIL_TRACE_H

#include <stdbool.h>
#include <stdint.h>

extern bool sl_trace_on;

/* Read SLUICE_TRACE once the rank is known (idempotent). */
void sl_trace_init(int rank);
/* Write the file (at finalize; also at exit).  Idempotent. */
void sl_trace_flush(void);
void sl_trace_emit(char ph, const char *cat, const char *name, uint64_t id, const char *args,
                   ...) __attribute__((format(printf, 5, 6)));

#define SL_TRACE(ph, cat, name, id, ...)                                                     \
    do {                                                                                     \
        if (__builtin_expect(sl_trace_on, 0)) sl_trace_emit(ph, cat, name, id, __VA_ARGS__); \
    } while (0)

#endif
