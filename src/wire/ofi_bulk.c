/* Bulk get/put through libfabric, two ways.  By RMA (SLUICE_OFI_RMA, where
 * the provider has it): the requester asks; the target registers the range
 * (ofi_mr.c's cache) and says ready with its key and address; the
 * requester reads or writes it (fi_read, fi_write with delivery complete)
 * and then releases the registration.  By tagged messages, for any
 * provider (the fallback): the side whose memory receives posts tagged
 * receives straight into it, the other sends from its memory.  A get: the
 * requester posts its receives and asks; the target sends.  A put: the
 * requester asks; the target posts its receives and says ready; the
 * requester sends; the target says done.  Either way the provider copies
 * the data (no staging).  Requests and answers are wire packets (credits,
 * order).  A tag names the requester, its copy and the chunk (copies longer
 * than the provider's largest message go in chunks, RMA ones too).
 * docs/WIRE.md, "The ofi transport". */
#include "util/log.h"
#include "wire/ofi_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

typedef struct ofi_req {
    uint32_t id;
    int32_t status;  /* answers: SL_OK or why not */
    uint32_t flags;  /* OFI_REQ_RMA: by fi_read/fi_write */
    uint32_t rsvd;
    uint64_t addr, len; /* RMA ready: the address to name with key */
    uint64_t key;    /* RMA ready: the target's registration */
} ofi_req_t;
#define OFI_REQ_RMA 1u

#define TAG(rank, id, c) ((uint64_t)(rank) << 44 | (uint64_t)((id)&0x0fffffffu) << 16 | (c))

/* The provider copies into and out of the memory named in a request
 * without any check, and a bad address would kill the process there; the
 * kernel checks the range first (sl_mem_accessible), so a bad one fails the
 * copy with SL_ERR_SYS, as a failed cross-memory attach would. */
static bool range_ok(uint64_t addr, uint64_t len, bool write)
{
    if (addr + len < addr || len > SIZE_MAX) return false;
    return sl_mem_accessible((const void *)(uintptr_t)addr, (size_t)len, write);
}

static ofi_op_t *op_new(wire_t *w, int peer, int kind, char *addr, size_t len)
{
    size_t chunks = len ? (len + w->ofi->chunk - 1) / w->ofi->chunk : 0;
    if (chunks > 0xffff) return NULL;
    ofi_op_t *oo = calloc(1, sizeof *oo);
    ofi_ctx_t *ctx = calloc(chunks ? chunks : 1, sizeof *ctx);
    if (!oo || !ctx) {
        free(oo);
        free(ctx);
        return NULL;
    }
    *oo = (ofi_op_t){.peer = peer, .kind = kind, .addr = addr, .len = len,
                     .chunks = (uint32_t)chunks, .ctx = ctx};
    return oo;
}

/* locked: the caller holds the transport's lock (for the registration). */
static void op_free(wire_t *w, ofi_op_t *oo, bool locked)
{
    if (oo->lmr) {
        if (!locked) pthread_mutex_lock(&w->ofi->lock);
        ofi_mr_put(w, oo->lmr);
        if (!locked) pthread_mutex_unlock(&w->ofi->lock);
    }
    free(oo->ctx);
    free(oo);
}

/* FI_MR_LOCAL: register our memory of oo for its chunks (access: FI_SEND,
 * FI_RECV, FI_READ or FI_WRITE), before anything is asked or posted, so
 * that a failure is a refusal like a bad range.  Not under lock. */
static sl_status_t op_register(wire_t *w, ofi_op_t *oo, uint64_t access)
{
    wire_ofi_t *o = w->ofi;
    if (!o->mr_local || !oo->len) return SL_OK;
    pthread_mutex_lock(&o->lock);
    sl_status_t st = ofi_mr_get(w, (uintptr_t)oo->addr, oo->len, access, &oo->lmr);
    pthread_mutex_unlock(&o->lock);
    return st;
}

/* Under lock. */
static void op_link(wire_t *w, ofi_op_t *oo)
{
    oo->next = w->ofi->ops;
    w->ofi->ops = oo;
}

static void op_unlink(wire_t *w, ofi_op_t *oo)
{
    for (ofi_op_t **pp = &w->ofi->ops; *pp; pp = &(*pp)->next)
        if (*pp == oo) {
            *pp = oo->next;
            return;
        }
}

/* The requester's copy numbered id with peer (under lock). */
static ofi_op_t *op_find(wire_t *w, int peer, uint32_t id)
{
    for (ofi_op_t *oo = w->ofi->ops; oo; oo = oo->next)
        if (oo->op && oo->peer == peer && oo->id == id) return oo;
    return NULL;
}

/* One chunk of oo handed to the provider with outcome rc. */
static void op_posted(wire_t *w, ofi_op_t *oo, ofi_ctx_t *x, ssize_t rc, const char *what)
{
    if (rc == -FI_EAGAIN) { /* the peer is lost: the chunk fails */
        x->over = true;
        oo->left--;
        oo->status = SL_ERR_PEER_DEAD;
    } else if (rc) {
        ofi_fatal(w, what, rc);
    }
}

/* Post every chunk of oo: receives into its memory or sends from it,
 * tagged for the requester `who`.  Under lock. */
static void op_post(wire_t *w, ofi_op_t *oo, int who, bool recv)
{
    wire_ofi_t *o = w->ofi;
    oo->posted = true;
    for (uint32_t c = 0; c < oo->chunks; c++) {
        size_t off = (size_t)c * o->chunk, n = oo->len - off < o->chunk ? oo->len - off : o->chunk;
        ofi_ctx_t *x = &oo->ctx[c];
        *x = (ofi_ctx_t){.kind = recv ? OC_BULK_RX : OC_BULK_TX, .peer = oo->peer, .owner = oo};
        uint64_t tag = TAG(who, oo->id, c);
        void *desc = ofi_ldesc(w, oo->lmr);
        ssize_t rc = recv ? OFI_RETRY(w, oo->peer, fi_trecv(o->ep, oo->addr + off, n, desc,
                                                  o->addr[oo->peer], tag, 0, &x->fc))
                          : OFI_RETRY(w, oo->peer, fi_tsend(o->ep, oo->addr + off, n, desc,
                                                  o->addr[oo->peer], tag, &x->fc));
        if (!recv) ofi_tx_posted(o, rc);
        op_posted(w, oo, x, rc, recv ? "posting a bulk receive" : "a bulk send");
    }
}

/* Requester of an RMA copy: read or write every chunk of oo at the
 * target's registration (READY's key and address).  A write completes
 * when its data is in the target's memory (FI_DELIVERY_COMPLETE), since
 * the op's completion tells the caller the put is done.  Under lock. */
static void op_post_rma(wire_t *w, ofi_op_t *oo)
{
    wire_ofi_t *o = w->ofi;
    oo->posted = true;
    for (uint32_t c = 0; c < oo->chunks; c++) {
        size_t off = (size_t)c * o->chunk, n = oo->len - off < o->chunk ? oo->len - off : o->chunk;
        ofi_ctx_t *x = &oo->ctx[c];
        *x = (ofi_ctx_t){.kind = OC_BULK_TX, .peer = oo->peer, .owner = oo};
        struct iovec iov = {oo->addr + off, n};
        void *desc = ofi_ldesc(w, oo->lmr);
        struct fi_rma_iov rma = {.addr = oo->raddr + off, .len = n, .key = oo->rkey};
        struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1,
                                 .addr = o->addr[oo->peer], .rma_iov = &rma,
                                 .rma_iov_count = 1, .context = &x->fc};
        ssize_t rc = oo->kind == BULK_GET
                         ? OFI_RETRY(w, oo->peer, fi_readmsg(o->ep, &msg, FI_COMPLETION))
                         : OFI_RETRY(w, oo->peer, fi_writemsg(o->ep, &msg,
                                                   FI_COMPLETION | FI_DELIVERY_COMPLETE));
        ofi_tx_posted(o, rc);
        op_posted(w, oo, x, rc, oo->kind == BULK_GET ? "fi_read" : "fi_write");
    }
}

static sl_status_t send_req(wire_t *w, int peer, uint8_t type, ofi_req_t r)
{
    struct iovec iov = {&r, sizeof r};
    return wire_send_internal(w, peer, type, &iov, 1);
}

sl_status_t ofi_bulk(wire_t *w, wire_bulk_t *op)
{
    wire_ofi_t *o = w->ofi;
    if (!range_ok((uint64_t)(uintptr_t)op->laddr, op->len, op->kind == BULK_GET)) {
        bulk_finish(op, SL_ERR_SYS);
        return SL_ERR_SYS;
    }
    ofi_op_t *oo = op_new(w, op->peer, op->kind, op->laddr, op->len);
    if (!oo) {
        bulk_finish(op, SL_ERR_NOMEM);
        return SL_ERR_NOMEM;
    }
    oo->op = op;
    oo->rma = o->rma;
    /* our side: a tagged get receives, a put sends; an RMA get reads into it,
     * a put writes from it */
    bool get = op->kind == BULK_GET;
    sl_status_t reg = op_register(w, oo, oo->rma ? (get ? FI_READ : FI_WRITE)
                                                 : (get ? FI_RECV : FI_SEND));
    if (reg != SL_OK) {
        op_free(w, oo, false);
        bulk_finish(op, reg);
        return reg;
    }
    WIRE_STAT_INC(w, ofi_bulk_ops, 1);
    if (oo->rma) WIRE_STAT_INC(w, ofi_rma_ops, 1);
    pthread_mutex_lock(&o->lock);
    oo->id = ++o->next_id & 0x0fffffffu;
    op_link(w, oo);
    if (op->kind == BULK_GET && !oo->rma) {
        oo->left = oo->chunks; /* the data */
        op_post(w, oo, w->rank, true);
    } else {
        oo->left = 1; /* the target's ready; then the data (and a tagged put's done) */
    }
    pthread_mutex_unlock(&o->lock);
    uint8_t type = op->kind == BULK_GET ? WIRE_T_OFI_GET : WIRE_T_OFI_PUT;
    sl_status_t st = send_req(w, op->peer, type,
                              (ofi_req_t){.id = oo->id, .flags = oo->rma ? OFI_REQ_RMA : 0,
                                          .addr = op->raddr, .len = op->len});
    if (st != SL_OK) { /* peer gone (ofi_bulk_peer_gone cancels what was posted) */
        pthread_mutex_lock(&o->lock);
        oo->status = st;
        bool posted = oo->posted && oo->chunks;
        if (!posted) op_unlink(w, oo);
        pthread_mutex_unlock(&o->lock);
        if (!posted) {
            op_free(w, oo, false);
            bulk_finish(op, st);
            return st;
        }
    }
    return SL_INPROGRESS;
}

/* Target side of an RMA copy: register the range for the peer's read or
 * write and say ready with the key; hold the registration until the
 * requester releases it.  A refusal says why in the ready. */
static void target_rma(wire_t *w, int src, bool get, const ofi_req_t *r)
{
    wire_ofi_t *o = w->ofi;
    ofi_op_t *oo = NULL;
    ofi_mr_t *m = NULL;
    sl_status_t st = SL_OK;
    if (!o->rma) {
        sl_log_error("wire: rank %d copies by fi_read/fi_write, this rank by tagged messages "
                     "(SLUICE_OFI_RMA and the provider must be the same on every rank)", src);
        st = SL_ERR_CONFIG;
    } else if (r->len == 0 || !range_ok(r->addr, r->len, !get)) {
        st = SL_ERR_SYS;
    } else if (!(oo = op_new(w, src, get ? BULK_GET : BULK_PUT, (char *)(uintptr_t)r->addr, 0))) {
        st = SL_ERR_NOMEM;
    }
    if (st == SL_OK) {
        pthread_mutex_lock(&o->lock);
        st = ofi_mr_get(w, (uintptr_t)r->addr, (size_t)r->len,
                        get ? FI_REMOTE_READ : FI_REMOTE_WRITE, &m);
        if (st == SL_OK) {
            oo->id = r->id;
            oo->rma = true;
            oo->mr = m;
            op_link(w, oo);
        }
        pthread_mutex_unlock(&o->lock);
        if (st != SL_OK) op_free(w, oo, false);
    }
    ofi_req_t ready = {.id = r->id, .status = st, .flags = OFI_REQ_RMA};
    if (st == SL_OK) {
        ready.addr = ofi_mr_raddr(w, m, (uintptr_t)r->addr);
        ready.key = m->key;
        ready.len = r->len;
    } else {
        sl_log_debug("wire: rank %d's %s of %llu bytes at %#llx refused: %s", src,
                     get ? "read" : "write", (unsigned long long)r->len,
                     (unsigned long long)r->addr, sl_status_string(st));
    }
    send_req(w, src, WIRE_T_OFI_READY, ready);
}

/* The requester is done with the registration of its copy id. */
static void target_release(wire_t *w, int src, uint32_t id)
{
    wire_ofi_t *o = w->ofi;
    pthread_mutex_lock(&o->lock);
    ofi_op_t *oo = NULL;
    for (ofi_op_t *x = o->ops; x; x = x->next)
        if (!x->op && x->mr && x->peer == src && x->id == id) {
            oo = x;
            break;
        }
    if (oo) {
        op_unlink(w, oo);
        ofi_mr_put(w, oo->mr);
    }
    pthread_mutex_unlock(&o->lock);
    if (oo) op_free(w, oo, false);
}

/* Target side: a get (we send) or a put (we receive) of a peer. */
static void target_start(wire_t *w, int src, bool get, const ofi_req_t *r)
{
    wire_ofi_t *o = w->ofi;
    if (r->flags & OFI_REQ_RMA) {
        target_rma(w, src, get, r);
        return;
    }
    ofi_op_t *oo = NULL;
    sl_status_t st = SL_OK;
    if (!range_ok(r->addr, r->len, !get)) st = SL_ERR_SYS;
    else if (!(oo = op_new(w, src, get ? BULK_GET : BULK_PUT, (char *)(uintptr_t)r->addr,
                           (size_t)r->len)))
        st = SL_ERR_NOMEM;
    else if ((st = op_register(w, oo, get ? FI_SEND : FI_RECV)) != SL_OK) /* we send / receive */
        op_free(w, oo, false), oo = NULL;
    if (st == SL_OK && oo->chunks) {
        oo->id = r->id;
        oo->left = oo->chunks;
        pthread_mutex_lock(&o->lock);
        op_link(w, oo);
        op_post(w, oo, src, !get);
        pthread_mutex_unlock(&o->lock);
    } else if (oo) {
        op_free(w, oo, false); /* nothing to move */
        oo = NULL;
    }
    if (st != SL_OK)
        sl_log_debug("wire: rank %d's %s of %llu bytes at %#llx refused: %s", src,
                     get ? "get" : "put", (unsigned long long)r->len,
                     (unsigned long long)r->addr, sl_status_string(st));
    ofi_req_t answer = {.id = r->id, .status = st};
    if (!get) send_req(w, src, WIRE_T_OFI_READY, answer);
    else if (st != SL_OK || !oo) send_req(w, src, WIRE_T_OFI_DONE, answer);
}

/* Requester: finish oo when nothing of it is left (returns whether). */
static bool requester_settle(wire_t *w, ofi_op_t *oo)
{
    if (oo->left) return false;
    op_unlink(w, oo);
    return true;
}

/* Requester: the copy is over; an RMA one lets the target's registration go. */
static void requester_end(wire_t *w, ofi_op_t *oo)
{
    if (oo->hold) send_req(w, oo->peer, WIRE_T_OFI_RELEASE, (ofi_req_t){.id = oo->id});
    bulk_finish(oo->op, oo->status);
    op_free(w, oo, false);
}

/* Cancel oo's chunks still out (under lock): they come back as errors. */
static void op_cancel(wire_t *w, ofi_op_t *oo)
{
    for (uint32_t c = 0; c < oo->chunks; c++)
        if (!oo->ctx[c].over) fi_cancel(&w->ofi->ep->fid, &oo->ctx[c].fc);
}

/* Requester: the target's answer. */
static void requester_answer(wire_t *w, int src, uint8_t type, const ofi_req_t *r)
{
    wire_ofi_t *o = w->ofi;
    pthread_mutex_lock(&o->lock);
    ofi_op_t *oo = op_find(w, src, r->id);
    bool end = false;
    if (!oo) {
        /* gone already (peer death) */
    } else if (oo->rma) { /* ready: read or write now, or the refusal */
        if (type != WIRE_T_OFI_READY || r->status != SL_OK) {
            oo->status = r->status != SL_OK ? r->status : SL_ERR_PROTO;
            oo->left = 0;
        } else {
            oo->hold = true;
            oo->rkey = r->key;
            oo->raddr = r->addr;
            oo->left = oo->chunks;
            op_post_rma(w, oo);
        }
        end = requester_settle(w, oo);
    } else if (type == WIRE_T_OFI_READY) { /* put: send, then wait for done */
        if (r->status != SL_OK) {
            oo->status = r->status;
            oo->left = 0;
        } else {
            oo->left = 1 + oo->chunks; /* the target's done and our sends' completions */
            op_post(w, oo, w->rank, false);
        }
        end = requester_settle(w, oo);
    } else if (oo->kind == BULK_PUT) { /* put done */
        if (r->status != SL_OK) oo->status = r->status;
        oo->left--;
        end = requester_settle(w, oo);
    } else { /* a get the target refused: our receives go */
        oo->status = r->status != SL_OK ? r->status : SL_ERR_PROTO;
        op_cancel(w, oo);
    }
    pthread_mutex_unlock(&o->lock);
    if (end) requester_end(w, oo);
}

void ofi_bulk_packet(wire_t *w, int src, uint8_t type, const void *data, size_t len)
{
    ofi_req_t r;
    if (len != sizeof r) wire_die(w, 70, "wire: bad bulk packet from rank %d", src);
    memcpy(&r, data, sizeof r);
    if (type == WIRE_T_OFI_GET || type == WIRE_T_OFI_PUT)
        target_start(w, src, type == WIRE_T_OFI_GET, &r);
    else if (type == WIRE_T_OFI_RELEASE)
        target_release(w, src, r.id);
    else
        requester_answer(w, src, type, &r);
}

void ofi_bulk_done(wire_t *w, ofi_ctx_t *c)
{
    wire_ofi_t *o = w->ofi;
    ofi_op_t *oo = c->owner;
    pthread_mutex_lock(&o->lock);
    c->over = true;
    if (c->err && oo->status == SL_OK)
        oo->status = c->err == FI_ECANCELED ? SL_ERR_PEER_DEAD : SL_ERR_SYS;
    if (c->err && c->err != FI_ECANCELED)
        sl_log_debug("wire: libfabric bulk chunk with rank %d failed: %s", oo->peer,
                     fi_strerror(c->err));
    oo->left--;
    bool end = false, target_done = false;
    if (oo->op) {
        end = requester_settle(w, oo);
    } else if (oo->left == 0) {
        op_unlink(w, oo);
        target_done = true;
    }
    pthread_mutex_unlock(&o->lock);
    if (end) requester_end(w, oo);
    if (target_done) {
        /* a put's data is in: say so; a get: only a failure needs saying */
        if (oo->kind == BULK_PUT || oo->status != SL_OK)
            send_req(w, oo->peer, WIRE_T_OFI_DONE,
                     (ofi_req_t){.id = oo->id, .status = oo->status});
        op_free(w, oo, false);
    }
}

void ofi_bulk_peer_gone(wire_t *w, int peer)
{
    wire_ofi_t *o = w->ofi;
    if (!o) return;
    pthread_mutex_lock(&o->lock);
    ofi_op_t *ended = NULL;
    for (ofi_op_t *oo = o->ops, *next; oo; oo = next) {
        next = oo->next;
        if (oo->peer != peer) continue;
        oo->status = SL_ERR_PEER_DEAD;
        op_cancel(w, oo);
        /* a copy waiting for a ready or done, or an RMA target waiting for
         * its release, has nothing posted to come back */
        bool waiting = oo->op || oo->mr;
        for (uint32_t c = 0; waiting && oo->posted && c < oo->chunks; c++)
            if (!oo->ctx[c].over) waiting = false;
        if (waiting) {
            op_unlink(w, oo);
            oo->hold = false; /* nobody to release it to */
            oo->next = ended;
            ended = oo;
        }
    }
    pthread_mutex_unlock(&o->lock);
    while (ended) {
        ofi_op_t *oo = ended;
        ended = oo->next;
        if (oo->op) {
            requester_end(w, oo);
        } else {
            pthread_mutex_lock(&o->lock);
            ofi_mr_put(w, oo->mr);
            pthread_mutex_unlock(&o->lock);
            op_free(w, oo, false);
        }
    }
}

void ofi_bulk_fini(wire_t *w)
{
    wire_ofi_t *o = w->ofi;
    while (o->ops) {
        ofi_op_t *oo = o->ops;
        o->ops = oo->next;
        if (oo->op) bulk_finish(oo->op, SL_ERR_PEER_DEAD);
        if (oo->mr) ofi_mr_put(w, oo->mr);
        op_free(w, oo, true);
    }
}
