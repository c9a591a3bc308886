/* Fuzz target (b): the Portals target side (src/ptl: reqfmt.c's request
 * decoder, xfer.c's reassembly and dispatch, target.c's matching, bounds,
 * events and responses, atomic.c's operations) fed request and response
 * packets as a hostile peer would send them.
 *
 * A singleton Portals job (no launcher) with a matching and a non-matching
 * physical NI: PT 0 of each has a persistent ME/LE over a 4 KiB buffer (put,
 * get, atomics) plus an overflow entry, and an event queue that is emptied
 * after every packet.  Packets are handed to ptl_wire_recv as the wire
 * would, under the Portals lock, from rank 0: the only rank of a singleton.
 * An abort with a message (a malformed request) is a correct outcome; the
 * input ends there, the job goes on for the next one (nothing was changed
 * before the checks that abort).
 *
 * Puts cut into fragments that match the priority entry stream into it
 * (target.c); the harness follows which fragments a stream took, so that
 * it knows what xfer.c still reassembles.
 *
 * Not covered here: RF_BULK (the flag is cleared).  A bulk request makes
 * the target copy from the initiator's address with wire_get; from rank 0 to
 * itself that is a plain copy in its own process, which is trusted.  From
 * another rank the copy is cross-memory attach (a bad address fails with
 * EFAULT: PTL_NI_SEGV) or staged (fuzz_wire: stage_self_copy). */
#include "fuzz_common.h"
#include "ptl/ptl_int.h"

#include <portals4.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ptl_handle_ni_t ni[2];
static ptl_handle_eq_t eq[2];
static ptl_pt_index_t pt[2];
static char *buf[2], *ovf[2];
static bool ready;
static size_t rx_len; /* bytes xfer.c holds of a message from rank 0 being reassembled */

static void setup(void)
{
    setenv("SLUICE_SHM_HEAP", "0", 1);
    if (PtlInit() != PTL_OK) abort();
    unsigned opts[2] = {PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL};
    for (int i = 0; i < 2; i++) {
        if (PtlNIInit(PTL_IFACE_DEFAULT, opts[i], PTL_PID_ANY, NULL, NULL, &ni[i]) != PTL_OK ||
            PtlEQAlloc(ni[i], 256, &eq[i]) != PTL_OK ||
            PtlPTAlloc(ni[i], 0, eq[i], 0, &pt[i]) != PTL_OK)
            abort();
        buf[i] = calloc(1, 4096);
        ovf[i] = calloc(1, 4096);
        ptl_me_t me = {.start = buf[i], .length = 4096, .ct_handle = PTL_CT_NONE,
                       .uid = PTL_UID_ANY, .match_id.phys = {PTL_NID_ANY, PTL_PID_ANY},
                       .match_bits = 0x11, .ignore_bits = 0xff,
                       .options = PTL_ME_OP_PUT | PTL_ME_OP_GET};
        ptl_handle_me_t h;
        if (i == 1) { /* non-matching: list entries */
            ptl_le_t le = {.start = buf[i], .length = 4096, .ct_handle = PTL_CT_NONE,
                           .uid = PTL_UID_ANY, .options = PTL_LE_OP_PUT | PTL_LE_OP_GET};
            if (PtlLEAppend(ni[i], pt[i], &le, PTL_PRIORITY_LIST, NULL, &h) != PTL_OK) abort();
            le.start = ovf[i];
            if (PtlLEAppend(ni[i], pt[i], &le, PTL_OVERFLOW_LIST, NULL, &h) != PTL_OK) abort();
            continue;
        }
        if (PtlMEAppend(ni[i], pt[i], &me, PTL_PRIORITY_LIST, NULL, &h) != PTL_OK) abort();
        me.start = ovf[i];
        me.options |= PTL_ME_MANAGE_LOCAL;
        me.ignore_bits = ~(ptl_match_bits_t)0;
        if (PtlMEAppend(ni[i], pt[i], &me, PTL_OVERFLOW_LIST, NULL, &h) != PTL_OK) abort();
    }
}

static void drain_events(void)
{
    for (int i = 0; i < 2; i++) {
        ptl_event_t ev;
        int rc;
        while ((rc = PtlEQGet(eq[i], &ev)) == PTL_OK || rc == PTL_EQ_DROPPED) {
        }
        PtlPTEnable(ni[i], pt[i]); /* flow control may have disabled it */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ready) {
        setup();
        ready = true;
    }
    fz_in_t in = {data, size};
    int steps = 0;
    while (in.n && steps++ < 32) {
        uint8_t shape = fz_u8(&in);
        unsigned char pkt[512];
        size_t n = fz_take(&in, pkt, fz_u8(&in) + (shape & 1) * 256);
        wire_frag_t f = {.src = 0, .data = pkt, .len = n};
        f.type = (shape & 2) ? PTL_PKT_RESP : (shape & 4) ? fz_u8(&in) : PTL_PKT_REQ;
        f.first = !(shape & 8) || (shape & 16);
        f.last = !(shape & 8) || (shape & 32);
        /* clear RF_BULK in the header byte, wherever in the reassembled
         * message it lands (xfer.c appends non-first fragments to what it
         * holds, whatever came before) */
        size_t at = f.first ? 0 : rx_len;
        if (at <= 3 && 3 - at < n) pkt[3 - at] &= (unsigned char)~RF_BULK;
        if (f.type == PTL_PKT_REQ && n > 1 && !(shape & 64)) pkt[1] &= 3; /* a valid NI kind */
        /* a fragment of a put streaming into its entry is not reassembled
         * (target.c): it was one of a stream before, or began one */
        bool busy = ptl_target_stream_busy(0);
        if (FZ_GUARD()) {
            /* the job would end here, with a message naming the peer */
            /* it aborted on the header of a whole message, after the append
             * (the length check before it needs over 1 MiB of fragments),
             * or in a stream (too many bytes, a message begun inside it) */
            bool streamed = busy || (f.first && !f.last && ptl_target_stream_busy(0));
            if (!(f.first && f.last) && !streamed) rx_len = (f.first ? 0 : rx_len) + n;
            PTL_UNLOCK();
            drain_events();
            break;
        }
        PTL_LOCK();
        ptl_wire_recv(NULL, &f);
        bool streamed = busy || (f.first && !f.last && ptl_target_stream_busy(0));
        if (!(f.first && f.last) && !streamed) /* xfer.c's rx->len */
            rx_len = (f.first ? 0 : rx_len) + n;
        ptl_progress_locked();
        PTL_UNLOCK();
        FZ_DONE();
        drain_events();
    }
    /* a message left half reassembled is dropped at its next first fragment */
    return 0;
}
