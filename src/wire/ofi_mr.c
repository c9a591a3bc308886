/* Memory registrations of the libfabric transport, cached: the target of
 * an RMA copy registers the range a peer reads or writes (ofi_bulk.c), and
 * keeps the registration for the next copy on the same memory.  Entries
 * are (page range, access) with a count of the copies using them, on one
 * list in order of last use; beyond SLUICE_OFI_MR_CACHE unused entries the
 * least recently used is closed.  Why the cache needs no hook on
 * munmap/free, and when it keeps nothing: docs/WIRE.md, "Registration
 * cache".  Everything here runs under the transport's lock. */
#include "util/log.h"
#include "util/param.h"
#include "util/sys.h"
#include "wire/ofi_int.h"

#include <stdlib.h>
#include <unistd.h>

sl_status_t ofi_mr_init(wire_t *w)
{
    wire_ofi_t *o = w->ofi;
    long n;
    if (sl_param_int(SL_PARAM_OFI_MR_CACHE, &n)) return SL_ERR_CONFIG;
    uint64_t mode = o->info->domain_attr->mr_mode;
    o->mr_virt = (mode & FI_MR_VIRT_ADDR) != 0;
    o->mr_prov_key = (mode & FI_MR_PROV_KEY) != 0;
    o->mr_bind_ep = (mode & FI_MR_ENDPOINT) != 0;
    o->mr_key_size = o->info->domain_attr->mr_key_size; /* a key we choose fits in it */
    /* a provider that pins pages at registration keeps the old pages of
     * memory freed and mapped again: nothing is kept past its last use */
    o->mr_max = (mode & FI_MR_ALLOCATED) ? 0 : (int)n;
    return SL_OK;
}

static void mr_unlink(wire_ofi_t *o, ofi_mr_t *m)
{
    if (m->prev) m->prev->next = m->next;
    else o->mr_head = m->next;
    if (m->next) m->next->prev = m->prev;
    else o->mr_tail = m->prev;
    m->prev = m->next = NULL;
}

static void mr_push_front(wire_ofi_t *o, ofi_mr_t *m)
{
    m->prev = NULL;
    m->next = o->mr_head;
    if (o->mr_head) o->mr_head->prev = m;
    else o->mr_tail = m;
    o->mr_head = m;
}

static void mr_close(wire_t *w, ofi_mr_t *m)
{
    wire_ofi_t *o = w->ofi;
    mr_unlink(o, m);
    o->n_mr--;
    if (m->refs == 0) o->n_idle--;
    fi_close(&m->mr->fid);
    free(m);
    WIRE_STAT_INC(w, ofi_mr_drops, 1);
}

/* Close the least recently used unused entries beyond the bound. */
static void mr_trim(wire_t *w)
{
    wire_ofi_t *o = w->ofi;
    for (ofi_mr_t *m = o->mr_tail, *prev; m && o->n_idle > o->mr_max; m = prev) {
        prev = m->prev;
        if (m->refs == 0) mr_close(w, m);
    }
}

/* A new registration of [base, base+len) for access. */
static sl_status_t mr_register(wire_t *w, uintptr_t base, size_t len, uint64_t access,
                               ofi_mr_t **out)
{
    wire_ofi_t *o = w->ofi;
    ofi_mr_t *m = calloc(1, sizeof *m);
    if (!m) return SL_ERR_NOMEM;
    int rc;
    /* keys we choose are random, so a process outside the job that can
     * reach the endpoint cannot guess one (docs/WIRE.md, "Authentication");
     * a key the domain already uses is drawn again */
    for (int tries = 0;; tries++) {
        uint64_t key = 0;
        if (!o->mr_prov_key && sl_random_bytes(&key, sizeof key) != SL_OK) key = (uint64_t)tries;
        if (o->mr_key_size < sizeof key) key &= (1ull << (8 * o->mr_key_size)) - 1;
        rc = fi_mr_reg(o->domain, (void *)base, len, access, 0, key, 0, &m->mr, NULL);
        if (rc != -FI_ENOKEY || tries == 8) break;
    }
    if (!rc && o->mr_bind_ep && !(rc = fi_mr_bind(m->mr, &o->ep->fid, 0))) rc = fi_mr_enable(m->mr);
    if (rc) {
        if (m->mr) fi_close(&m->mr->fid);
        free(m);
        sl_log_debug("wire: libfabric registration of %zu bytes at %#lx: %s", len,
                     (unsigned long)base, fi_strerror(-rc));
        return SL_ERR_SYS;
    }
    m->base = base;
    m->len = len;
    m->access = access;
    m->key = fi_mr_key(m->mr);
    WIRE_STAT_INC(w, ofi_mr_regs, 1);
    *out = m;
    return SL_OK;
}

sl_status_t ofi_mr_get(wire_t *w, uintptr_t addr, size_t len, uint64_t access, ofi_mr_t **out)
{
    wire_ofi_t *o = w->ofi;
    static long page;
    if (!page) page = sysconf(_SC_PAGESIZE);
    for (ofi_mr_t *m = o->mr_head; m; m = m->next)
        if ((m->access & access) == access && m->base <= addr && addr + len <= m->base + m->len) {
            if (m->refs++ == 0) o->n_idle--;
            mr_unlink(o, m);
            mr_push_front(o, m);
            WIRE_STAT_INC(w, ofi_mr_hits, 1);
            *out = m;
            return SL_OK;
        }
    /* whole pages: other buffers in the same pages reuse the entry */
    uintptr_t base = addr & ~(uintptr_t)(page - 1);
    uintptr_t end = (addr + len + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1);
    ofi_mr_t *m;
    sl_status_t st = mr_register(w, base, end - base, access, &m);
    if (st != SL_OK) return st;
    m->refs = 1;
    mr_push_front(o, m);
    o->n_mr++;
    *out = m;
    return SL_OK;
}

void ofi_mr_put(wire_t *w, ofi_mr_t *m)
{
    wire_ofi_t *o = w->ofi;
    if (--m->refs > 0) return;
    o->n_idle++;
    mr_trim(w);
}

uint64_t ofi_mr_raddr(const wire_t *w, const ofi_mr_t *m, uintptr_t addr)
{
    /* without FI_MR_VIRT_ADDR a peer names an offset into the region */
    return w->ofi->mr_virt ? (uint64_t)addr : (uint64_t)(addr - m->base);
}

void ofi_mr_fini(wire_t *w)
{
    wire_ofi_t *o = w->ofi;
    while (o->mr_head) {
        ofi_mr_t *m = o->mr_head;
        if (m->refs) { /* a copy still running at the end: closed anyway */
            m->refs = 0;
            o->n_idle++;
        }
        mr_close(w, m);
    }
}
