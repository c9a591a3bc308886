/* Segments left in /dev/shm by processes that died before unlinking them
 * (a job killed during start-up under a launcher that does not clean up)
 * are removed by the next job's rank 0 at set-up; a segment whose creator
 * lives, and a file that is not a segment, are left alone.  The test
 * forges the leftovers: a header with the wire's magic and the pid of a
 * child that has exited, and one with its own (live) pid. */
#include "util/status.h"
#include "wtest.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* The first bytes of a wire segment header: magic, version, rank, size, pid. */
static void forge(const char *name, uint32_t pid, uint64_t magic)
{
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    CHECK(fd >= 0);
    uint32_t w[6] = {(uint32_t)magic, (uint32_t)(magic >> 32), 6, 0, 2, pid};
    CHECK(write(fd, w, sizeof w) == (ssize_t)sizeof w);
    close(fd);
}

static bool exists(const char *name)
{
    char path[300];
    snprintf(path, sizeof path, "/dev/shm%s", name);
    return access(path, F_OK) == 0;
}

int main(void)
{
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) _exit(0);
    CHECK(waitpid(child, NULL, 0) == child); /* its pid is now dead */
    char dead[64], live[64], other[64];
    snprintf(dead, sizeof dead, "/sluice-sweeptest%d-dead-0", (int)getpid());
    snprintf(live, sizeof live, "/sluice-sweeptest%d-live-0", (int)getpid());
    snprintf(other, sizeof other, "/sluice-sweeptest%d-other-0", (int)getpid());
    forge(dead, (uint32_t)child, 0x31455249574c5353ull);
    forge(live, (uint32_t)getpid(), 0x31455249574c5353ull);
    forge(other, (uint32_t)child, 0x1122334455667788ull); /* not a segment */
    CHECK(exists(dead) && exists(live) && exists(other));
    wt_ctx_t c;
    CHECK_OK(wt_init(&c));
    CHECK_MSG(!exists(dead), "the dead creator's segment is still there");
    CHECK(exists(live));
    CHECK(exists(other));
    shm_unlink(live);
    shm_unlink(other);
    wt_fini(&c);
    t_done("sweep_test");
    return 0;
}
