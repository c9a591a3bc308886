/* Authentication (2 ranks, SLUICE_WIRE=ofi): a process that is not a rank of
 * the job but knows rank 0's libfabric address sends to it; nothing of it
 * is delivered, and rank 0 counts every packet it refused.
 * Rank 1 plays the foreign process with an endpoint of its own (not its
 * wire's, so it has no job token): it reads rank 0's address card from the
 * launcher, then sends (a) a well-formed packet header with a wrong token,
 * (b) the same claiming to come from rank 1 with token 0, (c) 3 bytes of
 * garbage.  Then rank 1 sends one real message through its wire; rank 0
 * receives exactly that one and its ofi_refused counter says 3. */
#include "wtest.h"

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { T_REAL = 7 };

/* What src/wire/ofi_int.h calls ofi_hdr_t (a foreign sender would copy it). */
typedef struct {
    uint64_t token;
    uint32_t src;
    uint16_t len;
    uint8_t type, flags;
    uint16_t msg, rsvd;
    uint32_t piggy;
} hdr_t;

static size_t unhex(const char *h, unsigned char *out, size_t max)
{
    size_t n = 0;
    unsigned v;
    while (n < max && h[2 * n] && sscanf(h + 2 * n, "%2x", &v) == 1) out[n++] = (unsigned char)v;
    return n;
}

/* A separate endpoint: send three foreign packets to rank 0. */
static void foreign_sends(wt_ctx_t *c)
{
    char card[1100];
    CHECK_OK(boot_get(c->boot, "sl-ofi-0", card, sizeof card));
    char *addr_hex = strrchr(card, ',');
    CHECK(addr_hex != NULL);
    unsigned char addr[256];
    size_t alen = unhex(addr_hex + 1, addr, sizeof addr);
    CHECK(alen > 0);

    struct fi_info *hints = fi_allocinfo(), *info = NULL;
    hints->caps = FI_MSG;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = 0;
    CHECK(fi_getinfo(FI_VERSION(1, 5), NULL, NULL, 0, hints, &info) == 0);
    struct fid_fabric *fab;
    struct fid_domain *dom;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fi_av_attr ava = {.type = FI_AV_TABLE};
    struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_CONTEXT, .size = 64};
    CHECK(fi_fabric(info->fabric_attr, &fab, NULL) == 0);
    CHECK(fi_domain(fab, info, &dom, NULL) == 0);
    CHECK(fi_av_open(dom, &ava, &av, NULL) == 0);
    CHECK(fi_cq_open(dom, &cqa, &cq, NULL) == 0);
    CHECK(fi_endpoint(dom, info, &ep, NULL) == 0);
    CHECK(fi_ep_bind(ep, &av->fid, 0) == 0 && fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV) == 0);
    CHECK(fi_enable(ep) == 0);
    fi_addr_t dst;
    CHECK(fi_av_insert(av, addr, 1, &dst, 0, NULL) == 1);

    char pkt[3][64];
    size_t len[3] = {sizeof(hdr_t) + 8, sizeof(hdr_t) + 8, 3};
    hdr_t h = {.token = 0x0123456789abcdefull, .src = 1, .len = 8, .type = T_REAL, .flags = 3};
    memcpy(pkt[0], &h, sizeof h);
    memcpy(pkt[0] + sizeof h, "FOREIGN!", 8);
    h.token = 0;
    memcpy(pkt[1], &h, sizeof h);
    memcpy(pkt[1] + sizeof h, "FOREIGN!", 8);
    memcpy(pkt[2], "xyz", 3);
    for (int i = 0; i < 3; i++) {
        struct fi_context2 ctx;
        ssize_t rc;
        while ((rc = fi_send(ep, pkt[i], len[i], NULL, dst, &ctx)) == -FI_EAGAIN) {
            struct fi_cq_entry e;
            fi_cq_read(cq, &e, 1);
        }
        CHECK(rc == 0);
        struct fi_cq_entry e;
        while ((rc = fi_cq_read(cq, &e, 1)) == -FI_EAGAIN) usleep(100);
        CHECK_MSG(rc == 1, "foreign send %d did not complete: %zd", i, rc);
    }
    fi_close(&ep->fid);
    fi_close(&cq->fid);
    fi_close(&av->fid);
    fi_close(&dom->fid);
    fi_close(&fab->fid);
    fi_freeinfo(info);
    fi_freeinfo(hints);
}

int main(void)
{
    wt_ctx_t c;
    CHECK_OK(wt_init(&c));
    CHECK(c.size == 2);
    CHECK_MSG(!strcmp(wire_peer_transport(c.wire, 1 - c.rank), "ofi"),
              "run with SLUICE_WIRE=ofi (peer transport %s)", wire_peer_transport(c.wire, 1 - c.rank));
    if (c.rank == 1) {
        foreign_sends(&c);
        wt_send(&c, 0, T_REAL, "real", 4);
    } else {
        wt_msg_t *m = wt_recv(&c); /* the first message delivered must be the real one */
        CHECK_EQ(m->src, 1);
        CHECK_EQ(m->type, T_REAL);
        CHECK(m->len == 4 && !memcmp(m->data, "real", 4));
        free(m);
        wire_stats_t s;
        wire_get_stats(c.wire, &s);
        CHECK_EQ(s.ofi_refused, 3);
        CHECK(wt_poll(&c) == NULL);
        printf("ofi_auth_test: %llu foreign packets refused, none delivered\n",
               (unsigned long long)s.ofi_refused);
    }
    wt_fence(&c);
    wt_fini(&c);
    return 0;
}
