/* Built without libfabric: the ofi transport exists only to say so
 * (tp.c refuses a job that would need it before calling any of this). */
#include "wire/wire_int.h"

#include <stdio.h>

bool ofi_built(void)
{
    return false;
}

size_t ofi_pkt_payload(const wire_t *w)
{
    return w->layout.pkt_payload;
}

const char *wire_ofi_providers(char *buf, size_t len)
{
    if (buf && len) snprintf(buf, len, "not built");
    return buf ? buf : "";
}

void ofi_bulk_packet(wire_t *w, int src, uint8_t type, const void *data, size_t len)
{
    (void)data, (void)len;
    wire_die(w, 70, "wire: libfabric packet type %#x from rank %d without libfabric", type, src);
}

void ofi_bulk_peer_gone(wire_t *w, int peer)
{
    (void)w, (void)peer;
}

static sl_status_t ofi_none(wire_t *w)
{
    (void)w;
    return SL_ERR_UNSUPPORTED;
}

const wire_tp_t wire_tp_ofi = {.name = "ofi", .create = ofi_none};
