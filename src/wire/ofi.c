/* The libfabric transport: packets between hosts as messages on a
 * reliable-datagram endpoint (FI_EP_RDM), one per rank, with the same
 * credits as the shared-memory ring (a packet costs the slots it would take
 * there), so flow control, parking and order are the wire's own.  Bulk
 * copies are in ofi_bulk.c.  docs/WIRE.md, "The ofi transport". */
#include "util/log.h"
#include "util/param.h"
#include "wire/ofi_int.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#define OFI_API FI_VERSION(1, 5)
#define OFI_CARD_KEY "sl-ofi-%d"
#define OFI_CARD_MAX 1000     /* a PMI-1 value holds 1023 characters */
#define OFI_QUIET_NS 200000000 /* an ended peer that said no bye is dead after this */

bool ofi_built(void)
{
    return true;
}

void ofi_fatal(wire_t *w, const char *what, ssize_t rc)
{
    wire_die(w, 74, "wire: libfabric %s: %s", what, fi_strerror((int)-rc));
}

/* ---- the endpoint ---------------------------------------------------------------------- */

/* SLUICE_OFI_PROVIDER, else FI_PROVIDER (which libfabric also reads itself). */
static const char *ofi_provider_name(void)
{
    const char *p = sl_param_str(SL_PARAM_OFI_PROVIDER);
    if (!*p) p = getenv("FI_PROVIDER");
    return p && *p ? p : NULL;
}

#define OFI_RMA_CAPS (FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE)
/* The registration modes ofi_mr.c honours; FI_MR_LOCAL besides them when
 * SLUICE_OFI_MR_LOCAL lets us register local buffers. */
#define OFI_MR_MODES (FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED | FI_MR_ENDPOINT)

/* SLUICE_OFI_MR_LOCAL: 0 off, 1 on, 2 auto, -1 not a valid name. */
static int ofi_mr_local_mode(void)
{
    static const char *const names[] = {"off", "on", "auto"};
    return tp_param_choice(SL_PARAM_OFI_MR_LOCAL, names, 3);
}

/* SLUICE_OFI_RMA: 0 off, 1 on, 2 auto, -1 not a valid name. */
static int ofi_rma_mode(void)
{
    static const char *const names[] = {"off", "on", "auto"};
    return tp_param_choice(SL_PARAM_OFI_RMA, names, 3);
}

/* Provider settings of our own, unless the user set them, before libfabric
 * reads its environment (at its first fi_getinfo).  The sockets provider's
 * progress thread otherwise polls for FI_SOCKETS_PE_WAITTIME (10 ms) after
 * every operation; with the ranks' own waiters on 2 CPUs each message then
 * waited for a scheduler slice: 8-byte one-way 1,040 us; 60-70 with 0 and
 * yielding waits (ofi_create), 730-1,100 with either alone. */
static void ofi_env_defaults(void)
{
    setenv("FI_SOCKETS_PE_WAITTIME", "0", 0);
}

static struct fi_info *ofi_hints(bool rma, bool mr_local)
{
    struct fi_info *h = fi_allocinfo();
    if (!h) return NULL;
    h->caps = FI_MSG | FI_TAGGED | (rma ? OFI_RMA_CAPS : 0);
    h->ep_attr->type = FI_EP_RDM;
    /* packets of one sender arrive in order: fragments and message order rely on it */
    h->tx_attr->msg_order = FI_ORDER_SAS;
    h->rx_attr->msg_order = FI_ORDER_SAS;
    h->domain_attr->threading = FI_THREAD_SAFE;
    /* without RMA or local registrations nothing is registered */
    h->domain_attr->mr_mode = rma || mr_local ? OFI_MR_MODES | (mr_local ? FI_MR_LOCAL : 0) : 0;
    const char *prov = ofi_provider_name();
    if (prov) h->fabric_attr->prov_name = strdup(prov);
    return h;
}

static int ofi_try_getinfo(bool rma, bool mr_local, struct fi_info **out)
{
    struct fi_info *hints = ofi_hints(rma, mr_local);
    if (!hints) return -FI_ENOMEM;
    int rc = fi_getinfo(OFI_API, NULL, NULL, 0, hints, out);
    fi_freeinfo(hints);
    return rc;
}

/* A provider, with RMA as SLUICE_OFI_RMA asks (auto: if one offers it);
 * *mr_local: register local buffers (SLUICE_OFI_MR_LOCAL=on, or the
 * provider kept FI_MR_LOCAL). */
static sl_status_t ofi_getinfo(struct fi_info **out, bool *rma, bool *mr_local)
{
    int mode = ofi_rma_mode(), mrl = ofi_mr_local_mode();
    if (mode < 0 || mrl < 0) return SL_ERR_CONFIG;
    ofi_env_defaults();
    const char *prov = ofi_provider_name();
    int rc = mode ? ofi_try_getinfo(true, mrl > 0, out) : -FI_ENODATA;
    *rma = rc == 0;
    if (rc && mode == 1) {
        sl_log_error("wire: SLUICE_OFI_RMA=on, but no libfabric provider%s%s offers reliable "
                     "datagrams with RMA: %s", prov ? " " : "", prov ? prov : "", fi_strerror(-rc));
        return SL_ERR_CONFIG;
    }
    if (rc) rc = ofi_try_getinfo(false, mrl > 0, out);
    if (rc) {
        sl_log_error("wire: no libfabric provider%s%s offers reliable datagrams: %s", prov ? " " : "",
                     prov ? prov : "", fi_strerror(-rc));
        return SL_ERR_CONFIG;
    }
    *mr_local = mrl == 1 || ((*out)->domain_attr->mr_mode & FI_MR_LOCAL);
    return SL_OK;
}

const char *wire_ofi_providers(char *buf, size_t len)
{
    if (!buf || !len) return "";
    buf[0] = 0;
    ofi_env_defaults(); /* libfabric may read its environment here first */
    struct fi_info *list = NULL, *hints = fi_allocinfo();
    if (!hints) return buf;
    hints->caps = FI_MSG | FI_TAGGED;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = 0;
    if (fi_getinfo(OFI_API, NULL, NULL, 0, hints, &list) == 0) {
        size_t n = 0;
        for (struct fi_info *i = list; i; i = i->next) {
            const char *name = i->fabric_attr->prov_name;
            if (strstr(buf, name)) continue; /* listed already (one per interface) */
            int k = snprintf(buf + n, len - n, "%s%s", n ? "," : "", name);
            if (k < 0 || (size_t)k >= len - n) break;
            n += (size_t)k;
        }
        fi_freeinfo(list);
    }
    fi_freeinfo(hints);
    return buf;
}

static sl_status_t ofi_open(wire_t *w, wire_ofi_t *o)
{
    sl_status_t st = ofi_getinfo(&o->info, &o->rma, &o->mr_local);
    if (st != SL_OK) return st;
    struct fi_info *fi = o->info;
    struct fi_cq_attr rxa = {.format = FI_CQ_FORMAT_TAGGED, .size = 4096,
                             .wait_obj = FI_WAIT_FD};
    /* the send queue also completes fi_read/fi_write, which a sleeping
     * requester waits for: it gets a wait fd too where RMA is used */
    struct fi_cq_attr txa = {.format = FI_CQ_FORMAT_TAGGED, .size = 4096,
                             .wait_obj = o->rma ? FI_WAIT_FD : FI_WAIT_NONE};
    struct fi_av_attr ava = {.type = FI_AV_TABLE, .count = (size_t)w->size};
    int rc;
    const char *what = "fabric";
    if ((rc = fi_fabric(fi->fabric_attr, &o->fabric, NULL)) ||
        (what = "domain", rc = fi_domain(o->fabric, fi, &o->domain, NULL)) ||
        (what = "address vector", rc = fi_av_open(o->domain, &ava, &o->av, NULL)))
        goto fail;
    if (fi_cq_open(o->domain, &txa, &o->txcq, NULL)) {
        txa.wait_obj = FI_WAIT_NONE;
        if ((what = "send queue", rc = fi_cq_open(o->domain, &txa, &o->txcq, NULL))) goto fail;
    }
    if (fi_cq_open(o->domain, &rxa, &o->rxcq, NULL)) { /* no fd: a sleeping rank polls (1 kHz) */
        rxa.wait_obj = FI_WAIT_NONE;
        if ((what = "receive queue", rc = fi_cq_open(o->domain, &rxa, &o->rxcq, NULL))) goto fail;
    }
    if ((what = "endpoint", rc = fi_endpoint(o->domain, fi, &o->ep, NULL)) ||
        (what = "binding", rc = fi_ep_bind(o->ep, &o->av->fid, 0)) ||
        (rc = fi_ep_bind(o->ep, &o->txcq->fid, FI_TRANSMIT)) ||
        (rc = fi_ep_bind(o->ep, &o->rxcq->fid, FI_RECV)) ||
        (what = "enable", rc = fi_enable(o->ep)))
        goto fail;
    o->wait_fd = o->tx_wait_fd = -1;
    if (rxa.wait_obj == FI_WAIT_FD && fi_control(&o->rxcq->fid, FI_GETWAIT, &o->wait_fd) != 0)
        o->wait_fd = -1;
    if (txa.wait_obj == FI_WAIT_FD && fi_control(&o->txcq->fid, FI_GETWAIT, &o->tx_wait_fd) != 0)
        o->tx_wait_fd = -1;
    if (o->rma && o->wait_fd >= 0 && o->tx_wait_fd < 0)
        o->wait_fd = -1; /* a sleeper would miss its reads' completions: look every ms */
    if (o->wait_fd < 0)
        sl_log_warn("wire: libfabric provider %s gives no wait fd: sleeping ranks poll it "
                    "every millisecond", fi->fabric_attr->prov_name);
    /* ofi_put_pkt builds an injected packet on its stack */
    o->inject_max = fi->tx_attr->inject_size < OFI_INJECT_MAX ? fi->tx_attr->inject_size
                                                              : OFI_INJECT_MAX;
    o->chunk = fi->ep_attr->max_msg_size < (1ul << 30) ? fi->ep_attr->max_msg_size : (1ul << 30);
    if (fi->ep_attr->max_msg_size < sizeof(ofi_hdr_t) + ofi_pkt_payload(w)) {
        sl_log_error("wire: libfabric provider %s sends messages of at most %zu bytes, a packet "
                     "takes %zu", fi->fabric_attr->prov_name, (size_t)fi->ep_attr->max_msg_size,
                     sizeof(ofi_hdr_t) + ofi_pkt_payload(w));
        return SL_ERR_CONFIG;
    }
    return SL_OK;
fail:
    sl_log_error("wire: libfabric %s (provider %s): %s", what, fi->fabric_attr->prov_name,
                 fi_strerror(-rc));
    return SL_ERR_SYS;
}

/* The job's token: 64 bits of its key (which only the launcher and the
 * job's ranks know). */
static uint64_t ofi_token(const wire_t *w)
{
    const char *k = boot_get_info(w->boot)->jobkey;
    uint64_t t = 0;
    for (int i = 0; i < 16 && k[i]; i++) {
        char c = k[i];
        t = t << 4 | (uint64_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return t | 1; /* never 0, so a zeroed header is refused */
}

/* ---- the address exchange ----------------------------------------------------------------- */

static void hex_of(const unsigned char *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

static size_t bytes_of(const char *hex, unsigned char *out, size_t max)
{
    size_t n = 0;
    unsigned v;
    while (n < max && hex[2 * n] && sscanf(hex + 2 * n, "%2x", &v) == 1) out[n++] = (unsigned char)v;
    return n;
}

/* A digest of the job key for the cards (FNV-1a with a salt of its own, so
 * it is not the packet token): ranks started with different keys find out
 * at set-up instead of refusing each other's packets forever. */
static uint64_t ofi_key_digest(const wire_t *w)
{
    const char *k = boot_get_info(w->boot)->jobkey;
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *c = "sluice-card:"; *c; c++) h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
    for (; *k; k++) h = (h ^ (unsigned char)*k) * 0x100000001b3ull;
    return h;
}

/* Our card: "host,machine,pid,key digest,address" (hex). */
static sl_status_t ofi_put_card(wire_t *w, wire_ofi_t *o)
{
    unsigned char name[256];
    size_t nlen = sizeof name;
    int rc = fi_getname(&o->ep->fid, name, &nlen);
    if (rc) {
        sl_log_error("wire: libfabric getname: %s", fi_strerror(-rc));
        return SL_ERR_SYS;
    }
    char mach[WIRE_HOST_MAX] = "localhost", card[OFI_CARD_MAX + 24], key[32];
    gethostname(mach, sizeof mach - 1);
    int n = snprintf(card, sizeof card, "%s,%s,%d,%016llx,", w->host, mach, (int)getpid(),
                     (unsigned long long)ofi_key_digest(w));
    if (n < 0 || (size_t)n + 2 * nlen >= OFI_CARD_MAX) return SL_ERR_CONFIG;
    hex_of(name, nlen, card + n);
    snprintf(key, sizeof key, OFI_CARD_KEY, w->rank);
    return boot_put(w->boot, key, card);
}

/* Read rank r's card: its host, machine, pid and address into the AV. */
static sl_status_t ofi_read_card(wire_t *w, wire_ofi_t *o, int r, char *host, char *mach,
                                 int *pid, bool *same_key)
{
    char mine[24];
    snprintf(mine, sizeof mine, "%016llx", (unsigned long long)ofi_key_digest(w));
    char key[32], card[OFI_CARD_MAX + 24];
    snprintf(key, sizeof key, OFI_CARD_KEY, r);
    sl_status_t st = boot_get(w->boot, key, card, sizeof card);
    if (st != SL_OK) return st;
    char *save = NULL, *h = strtok_r(card, ",", &save), *m = strtok_r(NULL, ",", &save);
    char *p = strtok_r(NULL, ",", &save), *d = strtok_r(NULL, ",", &save);
    char *a = strtok_r(NULL, ",", &save);
    unsigned char addr[256];
    size_t alen = a ? bytes_of(a, addr, sizeof addr) : 0;
    if (!h || !m || !p || !d || !alen || strlen(h) >= WIRE_HOST_MAX || strlen(m) >= WIRE_HOST_MAX)
        return SL_ERR_PROTO;
    *same_key = strcmp(d, mine) == 0;
    strcpy(host, h);
    strcpy(mach, m);
    *pid = atoi(p);
    if (fi_av_insert(o->av, addr, 1, &o->addr[r], 0, NULL) != 1) {
        sl_log_error("wire: libfabric cannot resolve rank %d's address", r);
        return SL_ERR_SYS;
    }
    return SL_OK;
}

/* Hosts numbered in the order of their lowest rank; ranks within a host
 * in rank order. */
static void ofi_number_hosts(wire_t *w, char (*hosts)[WIRE_HOST_MAX])
{
    w->n_hosts = 0;
    for (int r = 0; r < w->size; r++) {
        int h = -1, before = 0;
        for (int q = 0; q < r; q++)
            if (!strcmp(hosts[q], hosts[r])) {
                h = w->peers[q].host;
                before++;
            }
        w->peers[r].host = h >= 0 ? h : w->n_hosts++;
        w->peers[r].host_rank = before;
    }
}

static sl_status_t ofi_exchange(wire_t *w, wire_ofi_t *o)
{
    sl_status_t st = ofi_put_card(w, o);
    if (st == SL_OK) st = boot_fence(w->boot);
    char (*hosts)[WIRE_HOST_MAX] = calloc((size_t)w->size, WIRE_HOST_MAX);
    char mine[WIRE_HOST_MAX] = "localhost", mach[WIRE_HOST_MAX];
    gethostname(mine, sizeof mine - 1);
    if (!hosts) st = SL_ERR_NOMEM;
    for (int r = 0; st == SL_OK && r < w->size; r++) {
        int pid = 0;
        bool same_key = true;
        st = ofi_read_card(w, o, r, hosts[r], mach, &pid, &same_key);
        wire_peer_t *p = &w->peers[r];
        /* on our machine its pid tells its end at once (pidfd); elsewhere a
         * failed send does (docs/WIRE.md) */
        if (st == SL_OK && r != w->rank && p->tp == &wire_tp_ofi && !strcmp(mach, mine)) {
            p->pid = pid;
            p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
            /* of our host, yet no segment of this job: the attach says why */
            if (!w->force_ofi && !strcmp(hosts[r], w->host)) {
                sl_status_t a = shm_attach_one(w, r);
                st = a != SL_OK ? a : SL_ERR_CONFIG;
            }
        }
        if (st == SL_OK && !same_key) {
            sl_log_error("wire: rank %d (host %s) was started with another job key: it does not "
                         "belong to this job", r, hosts[r]);
            st = SL_ERR_AUTH;
        }
    }
    if (st == SL_OK) ofi_number_hosts(w, hosts);
    else sl_log_error("wire: libfabric address exchange failed: %s", sl_status_string(st));
    free(hosts);
    return st;
}

/* ---- receiving ---------------------------------------------------------------------------- */

void ofi_post_rx(wire_t *w, ofi_ctx_t *c)
{
    wire_ofi_t *o = w->ofi;
    ssize_t rc = OFI_RETRY(w, -1, fi_recv(o->ep, c->buf, o->rx_len, ofi_ldesc(w, o->rx_mr),
                                          FI_ADDR_UNSPEC, &c->fc));
    if (rc) ofi_fatal(w, "posting a receive", rc);
}

/* FI_MR_LOCAL: register the receive buffers, and n packet buffers for
 * sending (each as large as a receive buffer) on a free list. */
static sl_status_t ofi_tx_pool(wire_t *w, wire_ofi_t *o, int n)
{
    o->tx_mem = malloc((size_t)n * o->rx_len);
    o->tx_ctx = calloc((size_t)n, sizeof *o->tx_ctx);
    if (!o->tx_mem || !o->tx_ctx) return SL_ERR_NOMEM;
    for (int i = n - 1; i >= 0; i--) {
        o->tx_ctx[i] = (ofi_ctx_t){.buf = o->tx_mem + (size_t)i * o->rx_len, .pooled = true,
                                   .later = o->tx_free};
        o->tx_free = &o->tx_ctx[i];
    }
    size_t len = (size_t)n * o->rx_len;
    pthread_mutex_lock(&o->lock);
    sl_status_t st = ofi_mr_get(w, (uintptr_t)o->rx_mem, len, FI_RECV, &o->rx_mr);
    if (st == SL_OK) st = ofi_mr_get(w, (uintptr_t)o->tx_mem, len, FI_SEND, &o->tx_mr);
    pthread_mutex_unlock(&o->lock);
    if (st != SL_OK) sl_log_error("wire: cannot register the libfabric packet buffers (FI_MR_LOCAL)");
    return st;
}

/* A buffer for a packet of total bytes to peer: from the registered pool
 * under FI_MR_LOCAL, waiting (as OFI_RETRY does for room) until a send
 * completes and gives one back, else malloc'd.  NULL: the peer is lost
 * while we wait.  Under lock. */
static ofi_ctx_t *ofi_tx_buf(wire_t *w, int peer, size_t total)
{
    wire_ofi_t *o = w->ofi;
    if (!o->mr_local) {
        ofi_ctx_t *c = malloc(sizeof *c + total);
        if (!c) wire_die(w, 71, "wire: out of memory sending a packet");
        *c = (ofi_ctx_t){.buf = (char *)(c + 1)};
        return c;
    }
    if (total > o->rx_len) wire_die(w, 70, "wire: a %zu-byte packet for the pool", total);
    uint64_t t0 = 0;
    while (!o->tx_free && ofi_again(w, peer, &t0)) {}
    ofi_ctx_t *c = o->tx_free;
    if (c) o->tx_free = c->later, c->later = NULL;
    return c;
}

/* A packet buffer the provider is done with.  Under lock. */
static void ofi_tx_buf_put(wire_ofi_t *o, ofi_ctx_t *c)
{
    if (!c->pooled) {
        free(c);
        return;
    }
    c->later = o->tx_free;
    o->tx_free = c;
}

static sl_status_t ofi_post_all(wire_t *w, wire_ofi_t *o)
{
    long n;
    if (sl_param_int(SL_PARAM_OFI_RX_BUFS, &n)) return SL_ERR_CONFIG;
    o->n_rx = (int)n;
    /* whole cache lines: every buffer (and its header) stays aligned */
    o->rx_len = (sizeof(ofi_hdr_t) + ofi_pkt_payload(w) + 63) & ~(size_t)63;
    o->rx_mem = malloc((size_t)n * o->rx_len);
    o->rx_ctx = calloc((size_t)n, sizeof *o->rx_ctx);
    if (!o->rx_mem || !o->rx_ctx) return SL_ERR_NOMEM;
    if (o->mr_local) {
        sl_status_t st = ofi_tx_pool(w, o, (int)n);
        if (st != SL_OK) return st;
    }
    pthread_mutex_lock(&o->lock);
    for (int i = 0; i < o->n_rx; i++) {
        o->rx_ctx[i] = (ofi_ctx_t){.kind = OC_RX_PKT, .buf = o->rx_mem + (size_t)i * o->rx_len};
        ofi_post_rx(w, &o->rx_ctx[i]);
    }
    pthread_mutex_unlock(&o->lock);
    return SL_OK;
}

/* Is h, of a packet of n bytes, a packet of this job from an ofi peer? */
static bool ofi_pkt_ok(const wire_t *w, const ofi_hdr_t *h, size_t n)
{
    return n >= sizeof *h && h->token == w->ofi->token && h->src < (uint32_t)w->size &&
           (int)h->src != w->rank && w->peers[h->src].tp == &wire_tp_ofi &&
           h->len == n - sizeof *h && h->len <= w->peers[h->src].pkt_payload;
}

/* Packets to a libfabric peer.  ofi_rxm (the RDM layer of the tcp and verbs
 * providers) sends a message of up to its buffer (FI_OFI_RXM_BUFFER_SIZE,
 * 16 KiB by default, its own header included) eagerly and a larger one by a
 * rendezvous whose completion can come after that of a later eager one:
 * FI_ORDER_SAS orders their matching, not their completions, and the wire
 * takes packets in completion order.  So a packet stays within that buffer,
 * with room for rxm's header (SLUICE_PKT_SLOTS=256 over tcp had the
 * receiver read payload as headers: "malformed request", then SIGSEGV),
 * and each carries a sequence number, so that a provider that reorders
 * anyway stops the job with the reason.  Within that bound a packet is as
 * large as flow control allows, not the ring's SLUICE_PKT_SLOTS (4 KiB by
 * default): a 64 KiB message went as 16 packets, each a send, a completion
 * and a receive buffer of its own (docs/WIRE.md). */
#define OFI_RXM_HDR_ROOM 256

size_t ofi_pkt_payload(const wire_t *w)
{
    long buf = 16384;
    const char *e = getenv("FI_OFI_RXM_BUFFER_SIZE");
    if (e && atol(e) > 0) buf = atol(e);
    long slots = (buf - OFI_RXM_HDR_ROOM - (long)sizeof(ofi_hdr_t) + SHM_PKT_HDR) / SHM_SLOT;
    if (slots < 1) slots = 1;
    if ((unsigned long)slots > w->layout.pkt_slots_fc) slots = (long)w->layout.pkt_slots_fc;
    return (size_t)slots * SHM_SLOT - SHM_PKT_HDR;
}

static void ofi_repost(wire_t *w, ofi_ctx_t *c)
{
    pthread_mutex_lock(&w->ofi->lock);
    ofi_post_rx(w, c);
    pthread_mutex_unlock(&w->ofi->lock);
}

/* One received packet: through the wire's handling like a ring packet, its
 * buffer posted again before the credits it brought are spent. */
static void ofi_rx_pkt(wire_t *w, ofi_ctx_t *c, size_t n)
{
    const ofi_hdr_t *h = (const ofi_hdr_t *)c->buf;
    if (!ofi_pkt_ok(w, h, n)) {
        WIRE_STAT_INC(w, ofi_refused, 1);
        sl_log_debug("wire: refused a libfabric packet of %zu bytes (not from this job)", n);
        ofi_repost(w, c);
        return;
    }
    WIRE_STAT_OWN(&w->stats, ofi_pkts_rx, 1);
    uint16_t want = w->ofi->rx_seq[h->src]++;
    if (h->seq != want)
        wire_die(w, 70, "wire: libfabric delivered packets from rank %u out of order (packet %u "
                 "where %u was due): the provider does not keep the order of messages of "
                 "%zu bytes (is its eager limit, FI_OFI_RXM_BUFFER_SIZE for ofi_rxm, below that?)",
                 h->src, h->seq, want, sizeof *h + w->peers[h->src].pkt_payload);
    if (h->type == WIRE_T_OFI_BYE) {
        atomic_store(&w->peers[h->src].bye, true);
        ofi_repost(w, c);
        return;
    }
    wire_rx_t rx = {.src = (int)h->src, .type = h->type, .flags = h->flags, .msg = h->msg,
                    .data = h + 1, .len = h->len, .credits = h->piggy};
    if (h->piggy) WIRE_STAT_OWN(&w->stats, piggy_pkts_rx, 1);
    uint32_t value = 0;
    if (!wire_rx_packet(w, &rx, &value))
        wire_die(w, 70, "wire: corrupt libfabric packet from rank %d (type %#x, len %zu)", rx.src,
                 rx.type, rx.len);
    ofi_repost(w, c);
    wire_rx_settle(w, &rx, shm_pkt_slots(rx.len), value);
}

/* A bulk chunk's completion, for the drainer (under lock). */
static void ofi_later(wire_t *w, ofi_ctx_t *c, int err)
{
    wire_ofi_t *o = w->ofi;
    c->err = err;
    c->later = NULL;
    if (o->later_tail) o->later_tail->later = c;
    else o->later_head = c;
    o->later_tail = c;
    atomic_fetch_add(&o->n_later, 1);
}

/* A failed completion: what it belonged to learns it. */
static void ofi_rx_error(wire_t *w, struct fid_cq *cq)
{
    struct fi_cq_err_entry e = {0};
    if (fi_cq_readerr(cq, &e, 0) != 1 || !e.op_context) return;
    ofi_ctx_t *c = e.op_context;
    if (e.err == FI_ECANCELED && c->kind == OC_RX_PKT) return; /* at close */
    if (c->kind == OC_RX_PKT) {
        if (e.err == FI_ETRUNC) /* a packet larger than our buffers: the next would look lost */
            wire_die(w, 70, "wire: a libfabric packet of %zu bytes came into a %zu-byte buffer: "
                     "the ranks disagree on the packet size (FI_OFI_RXM_BUFFER_SIZE differs?)",
                     (size_t)e.len + (size_t)e.olen, w->ofi->rx_len);
        sl_log_debug("wire: libfabric receive failed: %s", fi_strerror(e.err));
        ofi_post_rx(w, c);
    } else if (c->kind == OC_BULK_RX || c->kind == OC_BULK_TX) {
        ofi_later(w, c, e.err);
    } else { /* OC_TX_PKT, OC_TX_BYE: the peer is unreachable */
        if (c->peer >= 0 && c->peer < w->size) atomic_store(&w->peers[c->peer].ofi_broken, true);
        sl_log_debug("wire: libfabric send to rank %d failed: %s", c->peer, fi_strerror(e.err));
        if (c->kind == OC_TX_BYE) w->ofi->byes_out--;
        ofi_tx_buf_put(w->ofi, c);
    }
}

/* Has peer's process ended (by its pidfd, on our machine), or a send to it failed? */
static bool ofi_peer_ended(wire_peer_t *p)
{
    if (atomic_load(&p->ofi_broken) || atomic_load(&p->dead)) return true;
    if (p->pidfd < 0) return false;
    struct pollfd pfd = {.fd = p->pidfd, .events = POLLIN};
    return poll(&pfd, 1, 0) > 0;
}

#define OFI_STUCK_NS 10000000000ull /* a peer that takes nothing for 10 s is lost */

bool ofi_again(wire_t *w, int peer, uint64_t *t0)
{
    ofi_reap_tx_now(w); /* drives the provider while its queues are full */
    uint64_t now = sl_now_ns();
    if (!*t0) *t0 = now;
    if (peer < 0 || now - *t0 < 1000000) return true;
    wire_peer_t *p = &w->peers[peer];
    if (!ofi_peer_ended(p) && now - *t0 < OFI_STUCK_NS) return true;
    atomic_store(&p->ofi_broken, true); /* wire_check_dead reports it */
    return false;
}

static void tx_done(wire_ofi_t *o)
{
    if (o->tx_out) o->tx_out--;
}

void ofi_reap_tx_now(wire_t *w)
{
    wire_ofi_t *o = w->ofi;
    struct fi_cq_tagged_entry e[32];
    ssize_t n;
    o->tx_skips = 0;
    while ((n = fi_cq_read(o->txcq, e, 32)) > 0 || n == -FI_EAVAIL) {
        if (n == -FI_EAVAIL) {
            tx_done(o);
            ofi_rx_error(w, o->txcq);
            continue;
        }
        for (ssize_t i = 0; i < n; i++) {
            tx_done(o);
            ofi_ctx_t *c = e[i].op_context;
            if (c->kind == OC_TX_BYE) o->byes_out--;
            if (c->kind == OC_TX_PKT || c->kind == OC_TX_BYE) ofi_tx_buf_put(o, c);
            else ofi_later(w, c, 0);
        }
    }
}

/* Reading a queue runs the provider's progress for the whole endpoint
 * (tcp;ofi_rxm: an epoll_wait each), and the receive queue is read anyway:
 * the send queue only while something is out that completes there (a
 * quarter of an 8-byte TCP ping-pong's time went to reading it empty).
 * Every 256th call reads it regardless, so an operation the count missed
 * still completes. */
void ofi_reap_tx(wire_t *w)
{
    wire_ofi_t *o = w->ofi;
    if (o->tx_out || ++o->tx_skips >= 256) ofi_reap_tx_now(w);
}

/* Read completions into the stash (under lock); whether any are there. */
static bool ofi_fill_stash(wire_t *w)
{
    wire_ofi_t *o = w->ofi;
    ofi_reap_tx(w);
    for (;;) {
        if (o->n_stash == OFI_STASH) break;
        ssize_t n = fi_cq_read(o->rxcq, o->stash + o->n_stash, (size_t)(OFI_STASH - o->n_stash));
        if (n == -FI_EAVAIL) {
            ofi_rx_error(w, o->rxcq);
            continue;
        }
        if (n <= 0) break;
        o->n_stash += (int)n;
    }
    atomic_store_explicit(&o->stashed, o->n_stash, memory_order_release);
    return o->n_stash > 0;
}

static int ofi_drain(wire_t *w, int budget)
{
    wire_ofi_t *o = w->ofi;
    struct fi_cq_tagged_entry e[OFI_STASH];
    pthread_mutex_lock(&o->lock);
    atomic_store(&o->signalled, false);
    ofi_fill_stash(w);
    int n = o->n_stash < budget ? o->n_stash : budget;
    memcpy(e, o->stash, (size_t)n * sizeof *e);
    memmove(o->stash, o->stash + n, (size_t)(o->n_stash - n) * sizeof *e);
    o->n_stash -= n;
    atomic_store(&o->stashed, o->n_stash);
    ofi_ctx_t *later = o->later_head;
    o->later_head = o->later_tail = NULL;
    atomic_store(&o->n_later, 0);
    pthread_mutex_unlock(&o->lock);
    /* the waker may try the wait object again; a wake only if it sleeps on
     * that (a FUTEX_WAKE per drain was 2 system calls per 8-byte round trip
     * over TCP).  Both sides seq_cst: it sees the count, or we its flag. */
    atomic_fetch_add(&o->drained, 1);
    if (atomic_load(&o->drain_wait)) sl_futex_wake_all(&o->drained);
    for (int i = 0; i < n; i++) {
        ofi_ctx_t *c = e[i].op_context;
        if (c->kind == OC_RX_PKT) {
            ofi_rx_pkt(w, c, e[i].len);
        } else {
            c->err = 0;
            ofi_bulk_done(w, c);
        }
    }
    while (later) {
        ofi_ctx_t *c = later;
        later = c->later;
        ofi_bulk_done(w, c);
        n++;
    }
    return n;
}

static bool ofi_ready(wire_t *w)
{
    wire_ofi_t *o = w->ofi;
    if (atomic_load_explicit(&o->signalled, memory_order_relaxed) ||
        atomic_load_explicit(&o->stashed, memory_order_acquire) ||
        atomic_load_explicit(&o->n_later, memory_order_acquire))
        return true;
    if (pthread_mutex_trylock(&o->lock)) return false; /* another thread looks already */
    bool any = ofi_fill_stash(w) || o->later_head;
    pthread_mutex_unlock(&o->lock);
    return any;
}

/* ---- sending ------------------------------------------------------------------------------ */

static void ofi_put_pkt(wire_t *w, int peer, uint8_t type, uint8_t flags, uint16_t msg,
                        bool lazy, const struct iovec *iov, int iovcnt, size_t off, size_t len)
{
    (void)lazy; /* a packet wakes its receiver's waker; no finer choice here */
    wire_ofi_t *o = w->ofi;
    wire_peer_t *p = &w->peers[peer];
    ofi_hdr_t h = {.token = o->token, .src = (uint32_t)w->rank, .len = (uint16_t)len,
                   .type = type, .flags = flags, .msg = msg};
    if (type != WIRE_T_CREDIT && atomic_load_explicit(&w->piggyback, memory_order_relaxed)) {
        h.piggy = fc_rx_take_piggy(&p->rx_pending, UINT32_MAX);
        if (h.piggy) {
            WIRE_STAT_OWN(&p->tx, piggy_pkts_tx, 1);
            WIRE_STAT_OWN(&p->tx, piggy_credits_tx, h.piggy);
        }
    }
    size_t total = sizeof h + len;
    ssize_t rc;
    pthread_mutex_lock(&o->lock);
    h.seq = o->tx_seq[peer]++; /* in the order the provider takes them */
    if (total <= o->inject_max) {
        char buf[OFI_INJECT_MAX];
        memcpy(buf, &h, sizeof h);
        iov_gather(buf + sizeof h, iov, iovcnt, off, len);
        rc = OFI_RETRY(w, peer, fi_inject(o->ep, buf, total, o->addr[peer]));
    } else {
        ofi_ctx_t *c = ofi_tx_buf(w, peer, total);
        rc = -FI_EAGAIN; /* no buffer came back: the peer is lost */
        if (c) {
            c->kind = OC_TX_PKT;
            c->peer = peer;
            memcpy(c->buf, &h, sizeof h);
            iov_gather(c->buf + sizeof h, iov, iovcnt, off, len);
            rc = OFI_RETRY(w, peer, fi_send(o->ep, c->buf, total, ofi_ldesc(w, o->tx_mr),
                                            o->addr[peer], &c->fc));
            ofi_tx_posted(o, rc);
            if (rc) ofi_tx_buf_put(o, c);
        }
    }
    if (rc) o->tx_seq[peer]--; /* not sent: the next one takes its number */
    pthread_mutex_unlock(&o->lock);
    WIRE_STAT_INC(w, ofi_pkts_tx, 1); /* credit packets come without the peer's lock */
    if (rc) { /* the peer is unreachable: its end is found by wire_check_dead */
        atomic_store(&p->ofi_broken, true);
        sl_log_debug("wire: libfabric send to rank %d: %s", peer, fi_strerror((int)-rc));
    }
}

static void ofi_wake(wire_t *w, int peer)
{
    (void)w, (void)peer; /* every packet wakes its receiver (its waker thread) */
}

/* ---- sleeping: the waker thread ----------------------------------------------------------- */

static void ofi_arm(wire_t *w)
{
    wire_ofi_t *o = w->ofi;
    atomic_fetch_add_explicit(&o->arm, 1, memory_order_seq_cst);
    sl_futex_wake_all(&o->arm);
}

/* Sleep on the stop fd and the queues' wait fds for at most ms; whether a
 * queue's fd fired. */
static bool ofi_poll_fds(wire_ofi_t *o, int n, int ms)
{
    struct pollfd pf[3] = {{.fd = o->stop_fd, .events = POLLIN},
                           {.fd = o->wait_fd, .events = POLLIN},
                           {.fd = o->tx_wait_fd, .events = POLLIN}};
    return poll(pf, (nfds_t)(1 + n), ms) > 0 &&
           ((pf[1].revents & POLLIN) || (n == 2 && (pf[2].revents & POLLIN)));
}

/* Wait for the wait object to fire; false on a time-out or stop.
 * fi_trywait may refuse (the provider has work) with a completion to show
 * for it: the sleeper has work.  A refusal without one means the provider
 * has work of its own: the waker drives it (reading the queues, as a check
 * does) and asks again after at most 1 ms on the fds (which fire at once
 * when data comes), instead of waking the sleeper for nothing.  tcp;ofi_rxm
 * refuses this way for about 8 ms at the start of a wait before any
 * traffic, and each refusal used to wake the sleeping thread: 115-145
 * wake-ups in those 8 ms (docs/WIRE.md, "Idle wake-ups"). */
static bool ofi_wait_object(wire_t *w)
{
    wire_ofi_t *o = w->ofi;
    if (o->wait_fd < 0) { /* no wait object: look every millisecond */
        usleep(1000);
        return true;
    }
    struct fid *fids[2] = {&o->rxcq->fid, &o->txcq->fid};
    int n = o->tx_wait_fd >= 0 ? 2 : 1;
    for (;;) {
        pthread_mutex_lock(&o->lock);
        int rc = fi_trywait(o->fabric, fids, n);
        bool any = rc != FI_SUCCESS && (ofi_fill_stash(w) || o->later_head);
        pthread_mutex_unlock(&o->lock);
        if (rc == FI_SUCCESS) return ofi_poll_fds(o, n, 1000);
        if (any || atomic_load(&o->stop) || !atomic_load(&w->hdr->sleepers)) return true;
        WIRE_STAT_INC(w, ofi_trywait_busy, 1);
        ofi_poll_fds(o, n, 1);
    }
}

/* While a thread of ours sleeps on our futex, sleep on the provider's wait
 * object; when it fires, wake the sleepers (as a shared-memory sender
 * would), then let the drainer read the queue before looking again. */
static void *ofi_waker(void *arg)
{
    wire_t *w = arg;
    wire_ofi_t *o = w->ofi;
    while (!atomic_load(&o->stop)) {
        uint32_t a = atomic_load(&o->arm);
        if (atomic_load(&w->hdr->sleepers) == 0) {
            sl_futex_wait(&o->arm, a, 1000000000);
            continue;
        }
        if (!ofi_wait_object(w) || atomic_load(&o->stop)) continue;
        uint32_t d = atomic_load(&o->drained);
        atomic_store(&o->signalled, true);
        WIRE_STAT_INC(w, ofi_wakeups, 1);
        shm_wake(w, w->hdr);
        if (atomic_load(&w->hdr->sleepers)) {
            atomic_store(&o->drain_wait, true);
            if (atomic_load(&o->drained) == d) sl_futex_wait(&o->drained, d, 20000000);
            atomic_store(&o->drain_wait, false);
        }
    }
    return NULL;
}

/* ---- set-up and end ------------------------------------------------------------------------ */

static void ofi_close(wire_ofi_t *o)
{
    if (o->ep) fi_close(&o->ep->fid);
    if (o->rxcq) fi_close(&o->rxcq->fid);
    if (o->txcq) fi_close(&o->txcq->fid);
    if (o->av) fi_close(&o->av->fid);
    if (o->domain) fi_close(&o->domain->fid);
    if (o->fabric) fi_close(&o->fabric->fid);
    if (o->info) fi_freeinfo(o->info);
    if (o->stop_fd >= 0) close(o->stop_fd);
    pthread_mutex_destroy(&o->lock);
    free(o->rx_mem);
    free(o->rx_ctx);
    free(o->tx_mem);
    free(o->tx_ctx);
    free(o->addr);
    free(o->tx_seq);
    free(o->rx_seq);
    free(o);
}

static sl_status_t ofi_create(wire_t *w)
{
    wire_ofi_t *o = calloc(1, sizeof *o);
    if (!o) return SL_ERR_NOMEM;
    pthread_mutex_init(&o->lock, NULL);
    o->stop_fd = eventfd(0, EFD_CLOEXEC);
    o->token = ofi_token(w);
    o->addr = calloc((size_t)w->size, sizeof *o->addr);
    o->tx_seq = calloc((size_t)w->size, sizeof *o->tx_seq);
    o->rx_seq = calloc((size_t)w->size, sizeof *o->rx_seq);
    sl_status_t st = o->addr && o->tx_seq && o->rx_seq && o->stop_fd >= 0 ? SL_OK : SL_ERR_NOMEM;
    if (st == SL_OK) st = ofi_open(w, o);
    if (st != SL_OK) {
        ofi_close(o);
        return st;
    }
    w->ofi = o;
    if ((st = ofi_mr_init(w)) == SL_OK && (st = ofi_post_all(w, o)) == SL_OK)
        st = ofi_exchange(w, o);
    if (st == SL_OK && pthread_create(&o->waker, NULL, ofi_waker, w) != 0) st = SL_ERR_SYS;
    o->waker_on = st == SL_OK;
    if (st != SL_OK) {
        pthread_mutex_lock(&o->lock);
        ofi_mr_fini(w); /* the packet buffers' registrations */
        pthread_mutex_unlock(&o->lock);
        w->ofi = NULL;
        ofi_close(o);
        return st;
    }
    /* the sockets provider's progress thread polls (even with its wait time
     * at 0, between operations): spinning waiters of ours kept it off the
     * CPU, 1,090 us one-way against 60 yielding.  net's sleeps in epoll;
     * yielding cost it 6% (8-byte one-way 7.6-10.0 against 7.0-9.1 us) */
    if (!strcmp(o->info->fabric_attr->prov_name, "sockets")) wire_own_cpus_shared(w);
    sl_log_debug("wire: libfabric provider %s, domain %s, %d hosts, bulk copies by %s%s",
                 o->info->fabric_attr->prov_name, o->info->domain_attr->name, w->n_hosts,
                 o->rma ? "fi_read/fi_write" : "tagged messages",
                 o->mr_local ? ", local buffers registered (FI_MR_LOCAL)" : "");
    return SL_OK;
}

static sl_status_t ofi_attach(wire_t *w, int peer)
{
    w->peers[peer].credits = w->layout.quota; /* as in a ring of the same geometry */
    return SL_OK;
}

/* Tell every ofi peer our end is a normal one, and wait (a while) until
 * the provider has taken the words, so they arrive before we close. */
static void ofi_say_bye(wire_t *w)
{
    wire_ofi_t *o = w->ofi;
    ofi_hdr_t h = {.token = o->token, .src = (uint32_t)w->rank, .type = WIRE_T_OFI_BYE,
                   .flags = PF_FIRST | PF_LAST};
    pthread_mutex_lock(&o->lock);
    for (int r = 0; r < w->size; r++) {
        wire_peer_t *p = &w->peers[r];
        if (r == w->rank || p->tp != &wire_tp_ofi || atomic_load(&p->dead)) continue;
        ofi_ctx_t *c = ofi_tx_buf(w, r, sizeof h);
        if (!c) continue; /* lost while we waited for a buffer */
        c->kind = OC_TX_BYE;
        c->peer = r;
        h.seq = o->tx_seq[r]++;
        memcpy(c->buf, &h, sizeof h);
        ssize_t rc = OFI_RETRY(w, r, fi_send(o->ep, c->buf, sizeof h, ofi_ldesc(w, o->tx_mr),
                                             o->addr[r], &c->fc));
        ofi_tx_posted(o, rc);
        if (rc) {
            o->tx_seq[r]--;
            ofi_tx_buf_put(o, c);
        } else {
            o->byes_out++;
        }
    }
    /* completions free the copies; keep progressing for at most 250 ms (a
     * peer that has ended already completes nothing) */
    uint64_t t0 = sl_now_ns();
    while (o->byes_out > 0 && sl_now_ns() - t0 < 250000000ull) {
        ofi_reap_tx_now(w);
        pthread_mutex_unlock(&o->lock);
        usleep(100);
        pthread_mutex_lock(&o->lock);
    }
    pthread_mutex_unlock(&o->lock);
}

static void ofi_fini(wire_t *w)
{
    wire_ofi_t *o = w->ofi;
    if (!o) return;
    if (o->waker_on) {
        atomic_store(&o->stop, true);
        atomic_fetch_add(&o->arm, 1);
        sl_futex_wake_all(&o->arm);
        atomic_fetch_add(&o->drained, 1);
        sl_futex_wake_all(&o->drained);
        uint64_t one = 1;
        if (write(o->stop_fd, &one, sizeof one) < 0) { /* the poll's 1 s ends it anyway */ }
        pthread_join(o->waker, NULL);
    }
    ofi_say_bye(w);
    pthread_mutex_lock(&o->lock);
    ofi_bulk_fini(w);
    ofi_mr_fini(w);
    pthread_mutex_unlock(&o->lock);
    ofi_close(o);
    w->ofi = NULL;
}

/* On our machine the pidfd tells; elsewhere a send that failed does.  An
 * end without a bye may still have its bye in flight: it is a death only
 * once it stays so for OFI_QUIET_NS, with the queue drained meanwhile by
 * the waits that call this. */
static bool ofi_ended(wire_t *w, int r, bool *left)
{
    wire_peer_t *p = &w->peers[r];
    if (!ofi_peer_ended(p)) return false;
    *left = atomic_load(&p->bye);
    if (*left) return true;
    uint64_t now = sl_now_ns();
    if (!p->ofi_quiet_ns) p->ofi_quiet_ns = now;
    if (now - p->ofi_quiet_ns < OFI_QUIET_NS) {
        ofi_ready(w); /* keeps the provider moving: a bye may be on its way */
        return false;
    }
    return true;
}

const wire_tp_t wire_tp_ofi = {
    .name = "ofi", .create = ofi_create, .fini = ofi_fini, .attach = ofi_attach,
    .put_pkt = ofi_put_pkt, .drain = ofi_drain, .ready = ofi_ready, .wake = ofi_wake,
    .arm = ofi_arm, .bulk = ofi_bulk, .ended = ofi_ended,
};
