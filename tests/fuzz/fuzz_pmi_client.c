/* Fuzz target (d): the PMI-1 client's reply parser and line reader
 * (src/boot/pmi_client.c), fed replies from a hostile or broken launcher.
 * The client is connected (PMI_FD) to one end of a socket pair whose other
 * end holds the fuzz input, then runs the handshake and every call that
 * reads a reply until the input runs out (end of file). */
#include "boot/pmi_client.h"
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 60000) return 0; /* stays inside the socket buffer */
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) abort();
    if (size && write(sv[1], data, size) != (ssize_t)size) abort();
    shutdown(sv[1], SHUT_WR);
    char fd[16];
    snprintf(fd, sizeof fd, "%d", sv[0]);
    setenv("PMI_FD", fd, 1);
    setenv("PMI_RANK", "1", 1);
    setenv("PMI_SIZE", "4", 1);
    unsetenv("PMI_PORT");
    boot_pmi_t pmi;
    sl_status_t st = boot_pmi_init(&pmi);
    if (st == SL_OK) {
        if (pmi.kvsname[0] == '\0' || strlen(pmi.kvsname) >= sizeof pmi.kvsname) abort();
        char value[64];
        int n;
        for (int i = 0; i < 64; i++) {
            switch (i % 4) {
            case 0: st = boot_pmi_get(&pmi, "key", value, sizeof value);
                if (st == SL_OK && strlen(value) >= sizeof value) abort();
                break;
            case 1: st = boot_pmi_put(&pmi, "key", "value"); break;
            case 2: st = boot_pmi_universe_size(&pmi, &n); break;
            case 3: st = boot_pmi_barrier(&pmi); break;
            }
            if (st == SL_ERR_PEER_DEAD || st == SL_ERR_SYS) break;
        }
        close(pmi.fd); /* not boot_pmi_fini: one finalize per process */
    }
    close(sv[1]);
    return 0;
}
