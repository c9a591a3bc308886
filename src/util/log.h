/* Diagnostics on stderr, prefixed with the process's rank once boot knows it:
 * "sluice[3]: wire: ...".  Errors are always printed; debug lines only with
 * SLUICE_DEBUG=1.  Safe to call from any thread. */
#ifndef SL_UTIL_LOG_H
#define SL_UTIL_LOG_H

#include <stdarg.h>

void sl_log_set_rank(int rank);
void sl_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sl_log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sl_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print and terminate the process: only for broken invariants, never for
 * peer input or out-of-memory. */
void sl_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
