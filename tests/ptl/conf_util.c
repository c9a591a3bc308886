#include "conf_util.h"

#include <stdio.h>

ptl_me_t cu_me(void *buf, ptl_size_t len, unsigned int options, ptl_match_bits_t bits,
               ptl_match_bits_t ignore)
{
    ptl_me_t me = {.start = buf, .length = len, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                   .options = options, .match_bits = bits, .ignore_bits = ignore};
    me.match_id.rank = PTL_RANK_ANY;
    return me;
}

ptl_me_t cu_me_phys(void *buf, ptl_size_t len, unsigned int options, ptl_match_bits_t bits,
                    ptl_match_bits_t ignore)
{
    ptl_me_t me = cu_me(buf, len, options, bits, ignore);
    me.match_id.phys.nid = PTL_NID_ANY;
    me.match_id.phys.pid = PTL_PID_ANY;
    return me;
}

ptl_le_t cu_le(void *buf, ptl_size_t len, unsigned int options)
{
    ptl_le_t le = {.start = buf, .length = len, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                   .options = options};
    return le;
}

ptl_md_t cu_md(void *buf, ptl_size_t len, unsigned int options, ptl_handle_eq_t eq,
               ptl_handle_ct_t ct)
{
    ptl_md_t md = {.start = buf, .length = len, .options = options, .eq_handle = eq,
                   .ct_handle = ct};
    return md;
}

ptl_event_t cu_put_ack(ptl_handle_md_t md, ptl_handle_eq_t ieq, ptl_size_t off, ptl_size_t len,
                       ptl_process_t to, ptl_pt_index_t pt, ptl_match_bits_t bits,
                       ptl_size_t roff, ptl_hdr_data_t hdr)
{
    PT_OK(PtlPut(md, off, len, PTL_ACK_REQ, to, pt, bits, roff, (void *)0x5eed, hdr));
    ptl_event_t ev[2], ack = {0};
    int n_send = 0, n_ack = 0;
    for (int i = 0; i < 2; i++) {
        PT_OK(PtlEQWait(ieq, &ev[i]));
        CHECK(ev[i].user_ptr == (void *)0x5eed);
        if (ev[i].type == PTL_EVENT_SEND) n_send++;
        if (ev[i].type == PTL_EVENT_ACK) {
            n_ack++;
            ack = ev[i];
        }
    }
    CHECK_MSG(n_send == 1 && n_ack == 1, "%d SEND, %d ACK events", n_send, n_ack);
    return ack;
}

ptl_event_t cu_get_reply(ptl_handle_md_t md, ptl_handle_eq_t ieq, ptl_size_t off,
                         ptl_size_t len, ptl_process_t from, ptl_pt_index_t pt,
                         ptl_match_bits_t bits, ptl_size_t roff)
{
    PT_OK(PtlGet(md, off, len, from, pt, bits, roff, (void *)0x6e7));
    ptl_event_t r = pt_expect(ieq, PTL_EVENT_REPLY);
    CHECK(r.user_ptr == (void *)0x6e7);
    return r;
}

void cu_expect_empty_at(ptl_handle_eq_t eq, const char *file, int line)
{
    ptl_event_t ev;
    int rc = PtlEQGet(eq, &ev);
    if (rc != PTL_EQ_EMPTY)
        t_fail(file, line, "cu_expect_empty", "PtlEQGet returned %d, event type %d (fail %d)",
               rc, ev.type, ev.ni_fail_type);
    t_pass_count_inc();
}

ptl_sr_value_t cu_sr(ptl_handle_ni_t ni, ptl_sr_index_t reg)
{
    ptl_sr_value_t v;
    PT_OK(PtlNIStatus(ni, reg, &v));
    return v;
}

ptl_ct_event_t cu_ct(ptl_handle_ct_t ct)
{
    ptl_ct_event_t v;
    PT_OK(PtlCTGet(ct, &v));
    return v;
}
