/* The compact wire encoding of request headers (src/ptl/reqfmt.c): every
 * combination of the optional fields round-trips exactly, the encoded length
 * is 28 bytes plus 8 per optional 64-bit field plus the operand for atomic
 * kinds, an 8-byte put with its 12-byte packet header fits one 64-byte slot,
 * and a truncated encoding is refused (0) at every length short of it. */
#include "test.h"
#include "ptl/ptl_int.h"

#include <string.h>

static ptl_req_hdr_t sample(int kind, unsigned mask)
{
    ptl_req_hdr_t h = {.kind = (uint8_t)kind, .ni_kind = 2, .ack_req = PTL_CT_ACK_REQ,
                       .flags = (mask & 8) ? RF_BULK : RF_INLINE, .atom_op = PTL_SUM,
                       .atom_type = PTL_INT32_T, .pt_index = 513, .xfer_id = 0xabcdef01u,
                       .uid = 1000, .match_bits = 0x8877665544332211ull,
                       .length = (mask & 4) ? (1ull << 33) + 5 : 4097};
    if (mask & 1) h.remote_offset = 0x123456789aull;
    if (mask & 2) h.hdr_data = 0xfeedfacecafebeefull;
    if (mask & 8) h.addr = 0x7fff12345678ull;
    for (size_t i = 0; i < sizeof h.operand; i++) h.operand[i] = (uint8_t)(i * 3 + 1);
    return h;
}

static void round_trip(int kind, unsigned mask)
{
    ptl_req_hdr_t h = sample(kind, mask), back;
    unsigned char buf[PTL_REQ_WIRE_MAX + 16];
    memset(buf, 0xee, sizeof buf);
    size_t n = ptl_req_encode(&h, buf);
    bool atom = kind == RK_ATOMIC || kind == RK_FETCH || kind == RK_SWAP;
    size_t want = 28 + 8 * (((mask & 1) != 0) + ((mask & 2) != 0) + ((mask & 4) != 0) +
                            ((mask & 8) != 0)) + (atom ? 32 : 0);
    CHECK_EQ(n, want);
    CHECK(n <= PTL_REQ_WIRE_MAX && buf[n] == 0xee);
    for (size_t cut = 0; cut < n; cut++) CHECK_EQ(ptl_req_decode(buf, cut, &back), 0);
    CHECK_EQ(ptl_req_decode(buf, n + 8, &back), n); /* data may follow */
    CHECK_EQ(back.kind, kind);
    CHECK_EQ(back.ni_kind, 2);
    CHECK_EQ(back.ack_req, PTL_CT_ACK_REQ);
    CHECK_EQ(back.flags, h.flags); /* encode set the optional-field bits */
    CHECK_EQ(back.flags & (RF_INLINE | RF_BULK), (mask & 8) ? RF_BULK : RF_INLINE);
    CHECK_EQ(back.atom_op, PTL_SUM);
    CHECK_EQ(back.atom_type, PTL_INT32_T);
    CHECK_EQ(back.pt_index, 513);
    CHECK_EQ(back.xfer_id, 0xabcdef01u);
    CHECK_EQ(back.uid, 1000);
    CHECK(back.match_bits == h.match_bits && back.length == h.length);
    CHECK(back.remote_offset == h.remote_offset && back.hdr_data == h.hdr_data);
    CHECK(back.addr == h.addr);
    if (atom) CHECK(memcmp(back.operand, h.operand, sizeof h.operand) == 0);
    else for (size_t i = 0; i < sizeof back.operand; i++) CHECK_EQ(back.operand[i], 0);
}

int main(void)
{
    static const int kinds[] = {RK_PUT, RK_GET, RK_ATOMIC, RK_FETCH, RK_SWAP};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        for (unsigned mask = 0; mask < 16; mask++) round_trip(kinds[k], mask);
    /* the latency case: an 8-byte put, no offset or header data */
    ptl_req_hdr_t h = {.kind = RK_PUT, .flags = RF_INLINE, .length = 8, .match_bits = 42};
    unsigned char buf[PTL_REQ_WIRE_MAX];
    CHECK(12 + ptl_req_encode(&h, buf) + 8 <= 64);
    t_done("ptl_reqfmt_test");
    return 0;
}
