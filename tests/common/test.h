/* Minimal assertion helpers for Sluice's C tests.  A failed check prints
 * file:line, the expression and the rank (from PMI_RANK, if any) and exits
 * with status 1, which makes sluicerun tear the job down and ctest report the
 * failure.  Checks are never compiled out (unlike assert). */
#ifndef SL_TEST_H
#define SL_TEST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void t_fail(const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));
void t_pass_count_inc(void);
/* Rank from the launcher environment (-1 when none); for messages. */
int t_env_rank(void);
/* Print "<name>: N checks passed" (rank 0 or singleton only). */
void t_done(const char *name);
/* Deterministic fill/verify of a buffer: byte i of a stream with seed s. */
void t_fill(void *buf, size_t len, uint64_t seed);
/* Returns the index of the first wrong byte, or (size_t)-1 if all match. */
size_t t_verify(const void *buf, size_t len, uint64_t seed);
/* Byte j of stream seed; verify buf against bytes start..start+len-1 of it
 * (so a copy of any sub-range of a filled buffer can be checked). */
uint8_t t_byte(uint64_t seed, size_t j);
size_t t_verify_at(const void *buf, size_t len, uint64_t seed, size_t start);

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (!(cond)) t_fail(__FILE__, __LINE__, #cond, NULL);                               \
        t_pass_count_inc();                                                                 \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                \
    do {                                                                                    \
        if (!(cond)) t_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                        \
        t_pass_count_inc();                                                                 \
    } while (0)

#define CHECK_EQ(a, b)                                                                      \
    do {                                                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                                 \
        if (a_ != b_) t_fail(__FILE__, __LINE__, #a " == " #b, "%lld != %lld", a_, b_);     \
        t_pass_count_inc();                                                                 \
    } while (0)

/* For sl_status_t results: prints the status name on failure. */
#define CHECK_OK(expr)                                                                      \
    do {                                                                                    \
        int st_ = (int)(expr);                                                              \
        if (st_ != 0) t_fail(__FILE__, __LINE__, #expr, "status %d (%s)", st_,              \
                             sl_status_name((sl_status_t)st_));                             \
        t_pass_count_inc();                                                                 \
    } while (0)

#endif
