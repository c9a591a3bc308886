/* Small OS helpers shared by every layer: clocks, CPU pause, futexes on
 * (possibly shared) memory, random bytes. */
#ifndef SL_UTIL_SYS_H
#define SL_UTIL_SYS_H

#include "util/status.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SL_CACHE_LINE 64
#define SL_ALIGNED_LINE __attribute__((aligned(SL_CACHE_LINE)))

/* Monotonic time in nanoseconds. */
uint64_t sl_now_ns(void);

/* Tell the CPU we are spinning (PAUSE on x86). */
static inline void sl_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    atomic_signal_fence(memory_order_seq_cst);
#endif
}

/* Sleep while *word == expected, at most timeout_ns (< 0: no limit).  The word
 * may live in memory shared between processes (no FUTEX_PRIVATE).  Returns
 * SL_OK when woken or when the value already differed, SL_ERR_TIMEOUT on
 * timeout. Spurious returns are possible: callers re-check their condition. */
sl_status_t sl_futex_wait(_Atomic uint32_t *word, uint32_t expected, int64_t timeout_ns);
/* Wake every sleeper on word; returns how many were woken. */
int sl_futex_wake_all(_Atomic uint32_t *word);

/* Map the pages of [addr, addr + len) now, writable, instead of on first
 * touch (madvise MADV_POPULATE_WRITE; a hint: kernels before 5.14 refuse
 * and nothing changes).  For buffers whose first use is timed traffic. */
void sl_mem_populate(void *addr, size_t len);
/* Can this process read (and, with write, also write) [addr, addr + len)?
 * For memory that a copy outside our control (a network provider, a
 * system call that would kill the process) is about to use.  The kernel
 * answers in one madvise over the range (MADV_POPULATE_READ / _WRITE,
 * Linux 5.14: fails on unmapped pages and on mappings without that
 * permission, and maps the pages the copy would fault in anyway); where it
 * refuses for another reason (older kernels, special mappings) one byte
 * per page is read, and written back unchanged, through process_vm_readv /
 * process_vm_writev on ourselves.  len 0 is always accessible. */
bool sl_mem_accessible(const void *addr, size_t len, bool write);
/* The same answer by the per-page probe alone (the fallback; for tests). */
bool sl_mem_accessible_probe(const void *addr, size_t len, bool write);
/* Zero [addr, addr + len) of a shared-memory (tmpfs) mapping without
 * touching its whole pages: they are given back (madvise MADV_REMOVE) and
 * read as zero when first used, so memory is spent only where it is used.
 * Falls back to memset where the kernel refuses. */
void sl_mem_zero_lazy(void *addr, size_t len);

/* Fill buf with len bytes from the kernel's CSPRNG (getrandom). */
sl_status_t sl_random_bytes(void *buf, size_t len);

/* The state letter of process pid (tid 0) or of its thread tid, from
 * /proc ('R', 'S', 'T', 'Z', ...); 0 when it cannot be read. */
char sl_proc_state(pid_t pid, pid_t tid);

#endif
