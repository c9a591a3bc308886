/* Isolation of a job's shared memory (docs/RELIABILITY.md, "Isolation");
 * driven by isolation_test.sh.  Modes:
 *   victim FLAGFILE   a rank of the job under test: prints its pid and the
 *                     job key, waits (progressing) until FLAGFILE exists,
 *                     then every rank sends one message to the next and
 *                     checks that exactly the expected messages arrived
 *                     (nothing injected from outside).
 *   probe KEY         an outside process: opens /sluice-KEY-<rank> (it
 *                     knows the key: the strongest outsider) and 1,000
 *                     guessed names, read-write and read-only; every open
 *                     must fail.
 *   forge KEY RANK    an outside process plants /sluice-KEY-RANK holding a
 *                     well-formed segment header for RANK of a 2-rank job
 *                     but another job key (a squatter that guessed the
 *                     name); the job that attaches to it must refuse it.
 *   unlink KEY RANK   removes such a name again. */
#include "boot/boot.h"
#include "wire/wire.h"
#include "wire/wire_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

static int got, bad;
static char last[64];

static void on_recv(void *arg, const wire_frag_t *f)
{
    (void)arg;
    got++;
    if (!f->first || !f->last || f->len >= sizeof last) {
        bad++;
        return;
    }
    memcpy(last, f->data, f->len);
    last[f->len] = '\0';
}

static int victim(const char *flag)
{
    boot_t *boot;
    wire_t *w;
    if (boot_init(&boot) != SL_OK || wire_init(boot, on_recv, NULL, &w) != SL_OK) {
        fprintf(stderr, "victim: init failed\n");
        return 1;
    }
    const boot_info_t *bi = boot_get_info(boot);
    int rank = wire_rank(w), size = wire_size(w);
    printf("victim rank %d pid %d key %s\n", rank, (int)getpid(), bi->jobkey);
    fflush(stdout);
    for (int i = 0; i < 6000 && access(flag, F_OK) != 0; i++) {
        wire_progress(w);
        usleep(10000);
    }
    if (got) {
        printf("victim rank %d: %d messages arrived before any rank sent one\n", rank, got);
        return 1;
    }
    char msg[32];
    int n = snprintf(msg, sizeof msg, "from %d", rank);
    if (wire_send_buf(w, (rank + 1) % size, 1, msg, (size_t)n) != SL_OK) return 1;
    wire_flush(w, -1);
    for (int i = 0; i < 100000 && got < 1; i++) {
        wire_progress(w);
        if (!got) wire_wait(w, 1000000);
    }
    char want[32];
    snprintf(want, sizeof want, "from %d", (rank + size - 1) % size);
    if (boot_fence(boot) != SL_OK) return 1;
    wire_progress(w);
    int ok = got == 1 && !bad && strcmp(last, want) == 0;
    printf("victim rank %d: %d message(s) (%s), %s\n", rank, got, last,
           ok ? "none injected" : "UNEXPECTED");
    wire_fini(w);
    boot_fini(boot);
    return ok ? 0 : 1;
}

static int try_open(const char *name)
{
    int refused = 0;
    for (int mode = 0; mode < 2; mode++) {
        int fd = shm_open(name, mode ? O_RDONLY : O_RDWR, 0);
        if (fd >= 0) {
            printf("probe: OPENED %s (%s)\n", name, mode ? "read-only" : "read-write");
            close(fd);
        } else {
            refused++;
        }
    }
    return refused == 2;
}

static int probe(const char *key)
{
    int tries = 0, refused = 0;
    char name[96];
    for (int r = 0; r < 4; r++) {
        snprintf(name, sizeof name, "/sluice-%s-%d", key, r);
        tries++;
        refused += try_open(name);
    }
    for (int i = 0; i < 1000; i++) {
        unsigned char b[16];
        if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) return 1;
        char guess[33];
        for (int j = 0; j < 16; j++) snprintf(guess + 2 * j, 3, "%02x", b[j]);
        snprintf(name, sizeof name, "/sluice-%s-%d", guess, i % 2);
        tries++;
        refused += try_open(name);
    }
    printf("probe: %d of %d names refused (the job's own with its key, and guesses)\n", refused,
           tries);
    return refused == tries ? 0 : 1;
}

static int forge(const char *key, int rank)
{
    char name[96];
    snprintf(name, sizeof name, "/sluice-%s-%d", key, rank);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    size_t len = 1 << 20;
    if (fd < 0 || ftruncate(fd, (off_t)len) != 0) return 1;
    shm_hdr_t *h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (h == MAP_FAILED) return 1;
    h->magic = SHM_MAGIC;
    h->version = SHM_VERSION;
    h->rank = (uint32_t)rank;
    h->job_size = 2;
    h->seg_len = len;
    memset(h->jobkey, 'f', BOOT_JOBKEY_LEN); /* not the job's */
    munmap(h, len);
    printf("forge: planted %s with another job's key\n", name);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "victim") == 0) return victim(argv[2]);
    if (argc == 3 && strcmp(argv[1], "probe") == 0) return probe(argv[2]);
    if (argc == 4 && strcmp(argv[1], "forge") == 0) return forge(argv[2], atoi(argv[3]));
    if (argc == 4 && strcmp(argv[1], "unlink") == 0) {
        char name[96];
        snprintf(name, sizeof name, "/sluice-%s-%s", argv[2], argv[3]);
        return shm_unlink(name) == 0 ? 0 : 1;
    }
    fprintf(stderr, "usage: isolation_test victim FLAG | probe KEY | forge KEY RANK | unlink KEY RANK\n");
    return 2;
}
