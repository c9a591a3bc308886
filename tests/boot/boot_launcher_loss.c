/* A rank whose launcher dies while it waits in a fence must get an error
 * (SL_ERR_PEER_DEAD) and a message, not hang (launcher_loss.sh kills the
 * launcher).  Every rank writes "<rank> <pid>" to DIR/pids; rank 0 then
 * writes "fencing" to DIR/state, enters the fence and writes the status it
 * got to DIR/state; the other ranks never enter it (they sleep, so the fence
 * cannot complete).  Output goes to files: the launcher held stdout.
 * usage: boot_launcher_loss DIR */
#include "boot/boot.h"
#include "util/status.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void put_line(const char *dir, const char *name, const char *mode, const char *line)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, mode);
    if (!f) exit(3);
    fprintf(f, "%s\n", line);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: boot_launcher_loss DIR\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN); /* the launcher's output pipes die with it */
    boot_t *boot = NULL;
    if (boot_init(&boot) != SL_OK) return 3;
    const boot_info_t *info = boot_get_info(boot);
    char line[64];
    snprintf(line, sizeof line, "%d %d", info->rank, (int)getpid());
    put_line(argv[1], "pids", "a", line);
    if (info->rank != 0) {
        sleep(60); /* the driver kills it before */
        return 4;
    }
    put_line(argv[1], "state", "w", "fencing");
    sl_status_t st = boot_fence(boot);
    put_line(argv[1], "state", "w", sl_status_name(st));
    return st == SL_OK ? 5 : 0;
}
