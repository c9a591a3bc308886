/* Shared by the wire benchmarks: job set-up, a receive counter, a shared
 * scratch segment per pair of ranks for floor measurements, and statistics. */
#ifndef SL_BENCH_COMMON_H
#define SL_BENCH_COMMON_H

#include "boot/boot.h"
#include "util/status.h"
#include "wire/wire.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bench {
    boot_t *boot;
    wire_t *wire;
    int rank, size, peer;    /* peer: the other rank of this rank's pair */
    bool leader;             /* even rank of the pair: prints, drives */
    _Atomic uint64_t msgs;   /* complete messages received */
    uint64_t first8[16];     /* first 8 bytes of message i (i < 16) */
    uint64_t consumed;       /* messages this rank has waited for so far */
    bool quick;              /* smoke-test mode: few iterations */
} bench_t;

/* boot + wire; pairs ranks (0,1), (2,3), ...; exits with a message on error. */
void bench_init(bench_t *b, int argc, char **argv);
void bench_fini(bench_t *b);
/* Wait (progress, then wire_wait) until msgs reaches target. */
void bench_wait_msgs(bench_t *b, uint64_t target);
/* Wait for the next message not yet waited for.  Counting consumed messages
 * (not sampling the arrival counter at the start of a loop) keeps both sides
 * in step when a message arrives before the loop starts. */
void bench_wait_next(bench_t *b);
/* A page of memory shared by this rank's pair (for the cache-line floor);
 * created by the leader, named under the job key, unlinked once mapped. */
volatile void *bench_pair_page(bench_t *b);
/* Median of n doubles (sorts in place). */
double bench_median(double *v, int n);
double bench_now(void);
void bench_die(const char *what, sl_status_t st) __attribute__((noreturn));

#endif
