/* Choosing a transport per peer and the hosts of a job: shared memory
 * between ranks of one host, libfabric between hosts (or for every peer
 * with SLUICE_WIRE=ofi); and the dead-peer check over both. */
#include "util/log.h"
#include "util/param.h"
#include "wire/wire_int.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* SLUICE_HOST, else the machine's name.  Host names go into segment
 * headers and the launcher's key-value space, whose values allow no
 * spaces, '=' or ','; so only letters, digits and ._- are accepted. */
sl_status_t tp_host_name(wire_t *w)
{
    const char *h = sl_param_str(SL_PARAM_HOST);
    char mach[WIRE_HOST_MAX] = "";
    if (!*h) {
        if (gethostname(mach, sizeof mach - 1) != 0) strcpy(mach, "localhost");
        h = mach;
    }
    size_t n = strlen(h);
    bool ok = n > 0 && n < WIRE_HOST_MAX;
    for (size_t i = 0; ok && i < n; i++)
        ok = isalnum((unsigned char)h[i]) || h[i] == '.' || h[i] == '_' || h[i] == '-';
    if (!ok) {
        sl_log_error("wire: host name '%s' (SLUICE_HOST or the machine's): use 1 to %d letters, "
                     "digits, '.', '_' or '-'", h, WIRE_HOST_MAX - 1);
        return SL_ERR_CONFIG;
    }
    memset(w->host, 0, sizeof w->host);
    memcpy(w->host, h, n);
    return SL_OK;
}

int tp_param_choice(sl_param_id_t id, const char *const *names, int n)
{
    const char *v = sl_param_str(id);
    for (int i = 0; i < n; i++)
        if (!strcmp(v, names[i])) return i;
    char list[128] = "";
    for (int i = 0; i < n; i++) {
        size_t k = strlen(list);
        snprintf(list + k, sizeof list - k, "%s%s", i ? (i == n - 1 ? " or " : ", ") : "", names[i]);
    }
    sl_log_error("wire: %s=%s: use %s", sl_param_desc(id)->name, v, list);
    return -1;
}

/* SLUICE_WIRE: 0 auto, 1 ofi, 2 shm, -1 not a valid name. */
static int tp_mode(void)
{
    static const char *const names[] = {"auto", "ofi", "shm"};
    return tp_param_choice(SL_PARAM_WIRE, names, 3);
}

/* Every peer's transport.  A peer whose segment names our host (or
 * exists at all, for the check) shares memory with us.  With two hosts or
 * more every rank has a peer on another one, so all ranks agree whether
 * libfabric is needed (and so on the extra fence it costs). */
static sl_status_t tp_choose(wire_t *w, int mode, bool *need_ofi)
{
    *need_ofi = false;
    size_t ofi_payload = ofi_pkt_payload(w); /* the same for every libfabric peer */
    for (int r = 0; r < w->size; r++) {
        wire_peer_t *p = &w->peers[r];
        p->tp = &wire_tp_shm;
        p->pkt_payload = w->layout.pkt_payload;
        if (r == w->rank) continue;
        int where = mode == 1 ? SHM_HOST_OTHER : shm_peer_host(w, r);
        /* without libfabric a missing segment can only be an error: the
         * attach reports it as one ("cannot open shared memory") */
        if (where == SHM_HOST_OTHER || (where == SHM_HOST_ABSENT && ofi_built())) {
            p->tp = &wire_tp_ofi;
            p->pkt_payload = ofi_payload;
            *need_ofi = true;
        }
    }
    if (*need_ofi && mode == 2) {
        sl_log_error("wire: SLUICE_WIRE=shm, but the job spans several hosts");
        return SL_ERR_CONFIG;
    }
    if (*need_ofi && !ofi_built()) {
        sl_log_error("wire: %s, but this Sluice was built without libfabric (install "
                     "libfabric-dev and rebuild)",
                     mode == 1 ? "SLUICE_WIRE=ofi" : "the job spans several hosts");
        return SL_ERR_CONFIG;
    }
    return SL_OK;
}

sl_status_t tp_setup(wire_t *w)
{
    int mode = tp_mode();
    if (mode < 0) return SL_ERR_CONFIG;
    w->force_ofi = mode == 1;
    bool need_ofi;
    sl_status_t st = tp_choose(w, mode, &need_ofi);
    w->n_hosts = 1;
    for (int r = 0; r < w->size; r++) w->peers[r].host_rank = r;
    /* ofi's set-up exchanges addresses and host names (and sets hosts) */
    if (st == SL_OK && need_ofi) st = wire_tp_ofi.create(w);
    for (int r = 0; st == SL_OK && r < w->size; r++)
        if (r != w->rank) st = w->peers[r].tp->attach(w, r);
    return st;
}

void tp_peer_gone(wire_t *w, int r, bool left)
{
    wire_peer_t *p = &w->peers[r];
    atomic_store(&p->left, left);
    if (atomic_exchange(&p->dead, true)) return; /* another thread found it first */
    if (left) sl_log_debug("wire: rank %d (pid %d, %s) has left", r, (int)p->pid, p->tp->name);
    else sl_log_error("wire: rank %d (pid %d, %s) has died", r, (int)p->pid, p->tp->name);
    wire_drop_parked(w, r);
    if (p->tp == &wire_tp_ofi) ofi_bulk_peer_gone(w, r);
    atomic_fetch_add_explicit(&w->gone, 1, memory_order_release);
}

bool wire_check_dead(wire_t *w)
{
    bool died = false;
    for (int r = 0; r < w->size; r++) {
        wire_peer_t *p = &w->peers[r];
        if (r == w->rank) continue;
        bool left = false;
        if (!atomic_load(&p->dead) && p->tp->ended(w, r, &left)) tp_peer_gone(w, r, left);
        died |= atomic_load(&p->dead) && !atomic_load(&p->left);
    }
    return died;
}

int wire_host_of(const wire_t *w, int rank)
{
    return rank >= 0 && rank < w->size ? w->peers[rank].host : -1;
}

int wire_host_rank(const wire_t *w, int rank)
{
    return rank >= 0 && rank < w->size ? w->peers[rank].host_rank : -1;
}

int wire_hosts(const wire_t *w)
{
    return w->n_hosts;
}

const char *wire_peer_transport(const wire_t *w, int rank)
{
    if (rank < 0 || rank >= w->size) return NULL;
    return rank == w->rank ? "self" : w->peers[rank].tp->name;
}
