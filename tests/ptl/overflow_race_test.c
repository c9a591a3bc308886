/* Race test: bulk puts landing on an overflow entry while the target appends
 * the matching use-once priority entries, with no handshake between the two.
 *
 * A bulk put (larger than a packet) into an overflow buffer is copied with the
 * PT unlocked; its header joins the unexpected list only after the copy.  An
 * append that searched the unexpected list during that window used to miss the
 * message and link itself to the priority list, where the message (already
 * past matching) could never find it: a hang.  Every message here must be
 * delivered exactly once, to the entry with its match bits, with its data.
 *
 * Rank 0 streams ROUNDS x MSGS puts (sizes 8 KiB + 1 .. 128 KiB, bits = index)
 * back to back; rank 1 appends the entry for message i, in order, while
 * they arrive.  Each message ends as PTL_EVENT_PUT (entry first) or
 * PTL_EVENT_PUT_OVERFLOW (message first); a missed one times out. */
#include "conf_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MSGS 64
#define ROUNDS 30
#define MAXLEN (128 * 1024)
#define OVF_LEN ((size_t)MSGS * MAXLEN + MAXLEN)

static size_t msg_len(int round, int i)
{
    /* deterministic spread over 8 KiB + 1 .. 128 KiB, odd sizes included */
    return 8193 + ((size_t)(round * 7919 + i * 104729) % (MAXLEN - 8193));
}

static uint64_t msg_seed(int round, int i)
{
    return 0x5100 + (uint64_t)round * 1000 + (uint64_t)i;
}

static void sender(pt_ctx_t *c, ptl_pt_index_t pt)
{
    char *buf = malloc((size_t)MSGS * MAXLEN);
    CHECK(buf);
    ptl_handle_ct_t ct;
    ptl_handle_md_t md;
    PT_OK(PtlCTAlloc(c->ni, &ct));
    ptl_md_t d = cu_md(buf, (size_t)MSGS * MAXLEN, PTL_MD_EVENT_CT_SEND, PTL_EQ_NONE, ct);
    PT_OK(PtlMDBind(c->ni, &d, &md));
    ptl_size_t sent = 0;
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < MSGS; i++) t_fill(buf + (size_t)i * MAXLEN, msg_len(r, i), msg_seed(r, i));
        pt_barrier(c); /* target has a fresh overflow entry */
        for (int i = 0; i < MSGS; i++)
            PT_OK(PtlPut(md, (size_t)i * MAXLEN, msg_len(r, i), PTL_NO_ACK_REQ, pt_id(c, 1), pt,
                         (ptl_match_bits_t)i, 0, NULL, (ptl_hdr_data_t)r));
        sent += MSGS;
        pt_ct_reach(ct, sent);
        pt_barrier(c); /* target matched everything */
    }
    PT_OK(PtlMDRelease(md));
    PT_OK(PtlCTFree(ct));
    free(buf);
}

/* Busy for us microseconds (the target dawdling between appends). */
static void dawdle(int us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

/* Check the event for message i of round r and where its data landed. */
static void check_delivery(const ptl_event_t *e, int r, int i, char *rbuf)
{
    size_t len = msg_len(r, i);
    CHECK_MSG(e->type == PTL_EVENT_PUT || e->type == PTL_EVENT_PUT_OVERFLOW,
              "round %d message %d: event kind %d", r, i, (int)e->type);
    CHECK_EQ(e->ni_fail_type, PTL_NI_OK);
    CHECK_EQ(e->match_bits, (ptl_match_bits_t)i);
    CHECK_EQ(e->hdr_data, (ptl_hdr_data_t)r);
    CHECK_EQ(e->rlength, len);
    CHECK_EQ(e->mlength, len);
    CHECK(e->user_ptr == (void *)(uintptr_t)(i + 1));
    /* PUT: data in the entry's own buffer; PUT_OVERFLOW: start is in the overflow buffer */
    const char *data = e->type == PTL_EVENT_PUT ? rbuf : (const char *)e->start;
    CHECK(e->type == PTL_EVENT_PUT_OVERFLOW || e->start == rbuf);
    CHECK_MSG(t_verify(data, len, msg_seed(r, i)) == (size_t)-1,
              "round %d message %d: data corrupt", r, i);
}

static void target(pt_ctx_t *c, ptl_pt_index_t pt, ptl_handle_eq_t eq, int *n_over)
{
    char *ovf = malloc(OVF_LEN);
    char *rbuf = malloc((size_t)MSGS * MAXLEN);
    CHECK(ovf && rbuf);
    const unsigned int quiet = PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_UNLINK_DISABLE;
    for (int r = 0; r < ROUNDS; r++) {
        ptl_handle_me_t hov, h;
        ptl_me_t ov = cu_me(ovf, OVF_LEN,
                            PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL | PTL_ME_EVENT_SUCCESS_DISABLE |
                                quiet,
                            0, ~0ull);
        ov.min_free = MAXLEN;
        PT_OK(PtlMEAppend(c->ni, pt, &ov, PTL_OVERFLOW_LIST, NULL, &hov));
        pt_barrier(c);
        /* append while the puts stream in; rounds dawdle differently between
         * appends so that both orders (entry first / message first) occur and
         * appends fall inside the copies of bulk overflow deliveries */
        for (int i = 0; i < MSGS; i++) {
            dawdle((r % 3) * (i % 7) * 3);
            ptl_me_t me = cu_me(rbuf + (size_t)i * MAXLEN, MAXLEN,
                                PTL_ME_OP_PUT | PTL_ME_USE_ONCE | quiet, (ptl_match_bits_t)i, 0);
            PT_OK(PtlMEAppend(c->ni, pt, &me, PTL_PRIORITY_LIST, (void *)(uintptr_t)(i + 1), &h));
        }
        for (int n = 0; n < MSGS; n++) {
            ptl_event_t e;
            int rc = PtlEQPoll(&eq, 1, 10000, &e, &(unsigned int){0});
            CHECK_MSG(rc == PTL_OK, "round %d: only %d of %d messages matched (rc %d)", r, n,
                      MSGS, rc);
            int i = (int)(uintptr_t)e.user_ptr - 1;
            CHECK_MSG(i >= 0 && i < MSGS, "unexpected event kind %d", (int)e.type);
            check_delivery(&e, r, i, rbuf + (size_t)i * MAXLEN);
            *n_over += e.type == PTL_EVENT_PUT_OVERFLOW;
        }
        cu_expect_empty(eq);
        pt_barrier(c);
        PT_OK(PtlMEUnlink(hov));
    }
    free(ovf);
    free(rbuf);
}

int main(void)
{
    pt_ctx_t c;
    pt_init(&c, PTL_NI_MATCHING | PTL_NI_LOGICAL);
    CHECK(c.size == 2);
    ptl_handle_eq_t eq;
    ptl_pt_index_t pt;
    PT_OK(PtlEQAlloc(c.ni, 4 * MSGS, &eq));
    PT_OK(PtlPTAlloc(c.ni, 0, eq, PTL_PT_ANY, &pt));
    int n_over = 0;
    if (c.rank == 0)
        sender(&c, pt);
    else
        target(&c, pt, eq, &n_over);
    if (c.rank == 1)
        printf("overflow_race: %d of %d messages arrived before their entry (PUT_OVERFLOW)\n",
               n_over, ROUNDS * MSGS);
    pt_barrier(&c);
    PT_OK(PtlPTFree(c.ni, pt));
    PT_OK(PtlEQFree(eq));
    pt_fini(&c);
    t_done("overflow_race_test");
    return 0;
}
