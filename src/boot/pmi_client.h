/* PMI-1 simple wire protocol client (private to src/boot).
 *
 * Shared by boot.c (libsluice) and pmi_api.c (libpmi).  Talks one request /
 * one reply lines over a connected stream socket, as /work/shared's
 * PMI1_WIRE.md describes:
 *   PMI_FD                 an already connected socket (sluicerun, Hydra);
 *   PMI_PORT + PMI_ID      connect to host:port and identify (older launchers);
 *   none of them           singleton: rank 0 of 1, key-value space local.
 * Every call blocks until the launcher has replied.  Not thread-safe. */
#ifndef SL_BOOT_PMI_CLIENT_H
#define SL_BOOT_PMI_CLIENT_H

#include "util/status.h"

#include <stdbool.h>
#include <stddef.h>

#define BOOT_PMI_LINE_MAX 4096   /* longest line sent or accepted */
#define BOOT_PMI_KVSNAME_MAX 256 /* local buffers; the launcher's limits apply */
#define BOOT_PMI_KEY_MAX 64
#define BOOT_PMI_VAL_MAX 1024

typedef struct boot_pmi_kv boot_pmi_kv_t;

typedef struct boot_pmi {
    int fd; /* -1 for a singleton */
    int rank, size, appnum;
    bool singleton;
    int kvsname_max, keylen_max, vallen_max; /* from get_maxes, capped */
    char kvsname[BOOT_PMI_KVSNAME_MAX];
    char rbuf[BOOT_PMI_LINE_MAX]; /* received bytes not yet consumed */
    size_t rlen;
    boot_pmi_kv_t *local; /* singleton key-value space */
} boot_pmi_t;

/* Connect to the launcher named by the environment (or become a singleton)
 * and run the handshake: init, get_maxes, get_appnum, get_my_kvsname.
 * SL_ERR_CONFIG for a malformed PMI environment, SL_ERR_SYS / SL_ERR_PEER_DEAD
 * / SL_ERR_PROTO when the launcher cannot be reached or replies wrongly (the
 * reason is logged).  On failure *pmi holds nothing to release. */
sl_status_t boot_pmi_init(boot_pmi_t *pmi);

/* True when key is a valid PMI key (non-empty, no space, '=', newline, at most
 * keylen_max-1 chars) resp. a valid value (no space or newline; empty is
 * allowed by the protocol). */
bool boot_pmi_key_ok(const boot_pmi_t *pmi, const char *key);
bool boot_pmi_value_ok(const boot_pmi_t *pmi, const char *value);

/* put kvsname=<own> key value.  Arguments must pass the checks above
 * (SL_ERR_INVALID otherwise). */
sl_status_t boot_pmi_put(boot_pmi_t *pmi, const char *key, const char *value);

/* get: SL_ERR_NOTFOUND when the launcher does not know the key,
 * SL_ERR_TRUNCATE when value and NUL do not fit in len (value untouched). */
sl_status_t boot_pmi_get(boot_pmi_t *pmi, const char *key, char *value, size_t len);

/* barrier_in, then wait for barrier_out. */
sl_status_t boot_pmi_barrier(boot_pmi_t *pmi);

/* get_universe_size (the job size for a singleton). */
sl_status_t boot_pmi_universe_size(boot_pmi_t *pmi, int *size);

/* finalize, wait for finalize_ack, close the connection, free everything.
 * The handle is released even when the launcher misbehaves. */
sl_status_t boot_pmi_fini(boot_pmi_t *pmi);

/* Send abort exitcode=code (best effort) and exit(code).  Prints msg first
 * when not NULL. */
void boot_pmi_abort(boot_pmi_t *pmi, int code, const char *msg) __attribute__((noreturn));

#endif
