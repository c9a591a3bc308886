/* Helpers shared by the libFuzzer targets of tests/fuzz (docs/RELIABILITY.md).
 *
 * A fuzz target feeds hostile bytes to one parser or receive path.  Ending
 * the job with a message (boot_abort) is a correct answer to impossible
 * input: fz_guard() catches it (boot_set_abort_hook + longjmp) so the run
 * goes on with the next input.  A crash, a sanitizer report or a hang is a
 * finding. */
#ifndef SL_FUZZ_COMMON_H
#define SL_FUZZ_COMMON_H

#include "boot/boot.h"

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static jmp_buf fz_jmp;
static int fz_armed;
static unsigned long fz_aborts;

__attribute__((unused)) static void fz_abort_hook(int code, const char *msg)
{
    (void)code;
    (void)msg;
    if (fz_armed) {
        fz_armed = 0;
        fz_aborts++;
        longjmp(fz_jmp, 1);
    }
}

/* Usage: if (FZ_GUARD()) { ...aborted... } else { ...run... } FZ_DONE(); */
#define FZ_GUARD() (boot_set_abort_hook(fz_abort_hook), fz_armed = 1, setjmp(fz_jmp) != 0)
#define FZ_DONE() (fz_armed = 0)

/* A little reader over the fuzz input: bytes run out as zeros. */
typedef struct fz_in {
    const uint8_t *p;
    size_t n;
} fz_in_t;

static inline uint8_t fz_u8(fz_in_t *in)
{
    if (!in->n) return 0;
    in->n--;
    return *in->p++;
}

static inline uint32_t fz_u32(fz_in_t *in)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)fz_u8(in) << (8 * i);
    return v;
}

static inline uint64_t fz_u64(fz_in_t *in)
{
    return (uint64_t)fz_u32(in) | (uint64_t)fz_u32(in) << 32;
}

/* Up to max bytes (at least what is left) */
static inline size_t fz_take(fz_in_t *in, void *dst, size_t max)
{
    size_t n = in->n < max ? in->n : max;
    memcpy(dst, in->p, n);
    in->p += n;
    in->n -= n;
    return n;
}

#endif
