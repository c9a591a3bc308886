/* Small helpers shared by the conformance tests (conf_*_test.c): default
 * entries and MDs, a put/get that waits for its initiator events, and
 * checks that an EQ holds nothing more. */
#ifndef SL_CONF_UTIL_H
#define SL_CONF_UTIL_H

#include "ptest.h"

/* An ME matching any sender on a logical NI (cu_me_phys: on a physical NI). */
ptl_me_t cu_me(void *buf, ptl_size_t len, unsigned int options, ptl_match_bits_t bits,
               ptl_match_bits_t ignore);
ptl_me_t cu_me_phys(void *buf, ptl_size_t len, unsigned int options, ptl_match_bits_t bits,
                    ptl_match_bits_t ignore);
ptl_le_t cu_le(void *buf, ptl_size_t len, unsigned int options);
ptl_md_t cu_md(void *buf, ptl_size_t len, unsigned int options, ptl_handle_eq_t eq,
               ptl_handle_ct_t ct);
/* Put with PTL_ACK_REQ from md (whose EQ is ieq): waits for SEND and ACK
 * (either order) and returns the ACK. */
ptl_event_t cu_put_ack(ptl_handle_md_t md, ptl_handle_eq_t ieq, ptl_size_t off, ptl_size_t len,
                       ptl_process_t to, ptl_pt_index_t pt, ptl_match_bits_t bits,
                       ptl_size_t roff, ptl_hdr_data_t hdr);
/* Get into md (EQ ieq) and return the REPLY. */
ptl_event_t cu_get_reply(ptl_handle_md_t md, ptl_handle_eq_t ieq, ptl_size_t off,
                         ptl_size_t len, ptl_process_t from, ptl_pt_index_t pt,
                         ptl_match_bits_t bits, ptl_size_t roff);
/* The EQ has no further event (PtlEQGet returns PTL_EQ_EMPTY). */
#define cu_expect_empty(eq) cu_expect_empty_at((eq), __FILE__, __LINE__)
void cu_expect_empty_at(ptl_handle_eq_t eq, const char *file, int line);
ptl_sr_value_t cu_sr(ptl_handle_ni_t ni, ptl_sr_index_t reg);
ptl_ct_event_t cu_ct(ptl_handle_ct_t ct);

#endif
