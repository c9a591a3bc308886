/* Encoding of request headers on the wire.  The in-memory header
 * (ptl_req_hdr_t, 88 bytes) carries every field any operation needs; most
 * requests use few of them.  The encoded form keeps 28 fixed bytes and adds
 * the others only when they are set, so that an 8-byte put with its 12-byte
 * packet header fits one 64-byte ring slot: one cache line moves from the
 * sender's core to the receiver's instead of two, on the latency path. */
#include "ptl/ptl_int.h"

#include <stddef.h>
#include <string.h>

#define FIXED 28u

/* The first 8 bytes of the header are copied as they are. */
_Static_assert(offsetof(ptl_req_hdr_t, kind) == 0 && offsetof(ptl_req_hdr_t, pt_index) == 6 &&
                   offsetof(ptl_req_hdr_t, xfer_id) == 8,
               "ptl_req_hdr_t layout");

static bool has_operand(unsigned kind)
{
    return kind == RK_ATOMIC || kind == RK_FETCH || kind == RK_SWAP;
}

static unsigned char *put64(unsigned char *p, uint64_t v)
{
    memcpy(p, &v, sizeof v);
    return p + sizeof v;
}

static const unsigned char *get64(const unsigned char *p, uint64_t *v)
{
    memcpy(v, p, sizeof *v);
    return p + sizeof *v;
}

/* Sets h->flags' optional-field bits and writes the encoding; its length. */
size_t ptl_req_encode(ptl_req_hdr_t *h, unsigned char *out)
{
    h->flags &= RF_INLINE | RF_BULK;
    if (h->remote_offset) h->flags |= RF_ROFF;
    if (h->hdr_data) h->flags |= RF_HDR;
    if (h->length > UINT32_MAX) h->flags |= RF_LEN64;
    uint32_t len32 = (uint32_t)h->length;
    unsigned char *p = out;
    memcpy(p, (const unsigned char *)h, 8); /* kind .. atom_type, pt_index */
    memcpy(p + 8, &h->xfer_id, 4);
    memcpy(p + 12, &h->uid, 4);
    memcpy(p + 16, &len32, 4);
    memcpy(p + 20, &h->match_bits, 8);
    p += FIXED;
    if (h->flags & RF_ROFF) p = put64(p, h->remote_offset);
    if (h->flags & RF_HDR) p = put64(p, h->hdr_data);
    if (h->flags & RF_LEN64) p = put64(p, h->length);
    if (h->flags & RF_BULK) p = put64(p, h->addr);
    if (has_operand(h->kind)) {
        memcpy(p, h->operand, sizeof h->operand);
        p += sizeof h->operand;
    }
    return (size_t)(p - out);
}

/* Fills h from an encoded request of `len` bytes; the header's length, or
 * 0 when the bytes cannot be one. */
size_t ptl_req_decode(const unsigned char *p, size_t len, ptl_req_hdr_t *h)
{
    if (len < FIXED) return 0;
    *h = (ptl_req_hdr_t){0};
    uint32_t len32;
    memcpy((unsigned char *)h, p, 8);
    memcpy(&h->xfer_id, p + 8, 4);
    memcpy(&h->uid, p + 12, 4);
    memcpy(&len32, p + 16, 4);
    memcpy(&h->match_bits, p + 20, 8);
    h->length = len32;
    size_t need = FIXED + 8u * (((h->flags & RF_ROFF) != 0) + ((h->flags & RF_HDR) != 0) +
                                ((h->flags & RF_LEN64) != 0) + ((h->flags & RF_BULK) != 0)) +
                  (has_operand(h->kind) ? sizeof h->operand : 0);
    if (len < need) return 0;
    const unsigned char *q = p + FIXED;
    if (h->flags & RF_ROFF) q = get64(q, &h->remote_offset);
    if (h->flags & RF_HDR) q = get64(q, &h->hdr_data);
    if (h->flags & RF_LEN64) q = get64(q, &h->length);
    if (h->flags & RF_BULK) q = get64(q, &h->addr);
    if (has_operand(h->kind)) memcpy(h->operand, q, sizeof h->operand);
    return need;
}
