/* The shared heap: a region at the end of each rank's segment that every
 * peer has mapped since wire_init.  A get or put whose remote range lies in a
 * peer's heap is a plain memcpy through that mapping: no system call, no
 * page pinning (cross-memory attach runs at a quarter of memcpy speed here,
 * see docs/WIRE.md).  The allocator is first fit over a free list sorted by
 * address, coalescing on free; allocations are 64-byte aligned.  It is not a
 * hot path (MPI_Alloc_mem, Portals buffers set up once). */
#include "util/log.h"
#include "wire/wire_int.h"

#include <stdlib.h>

#define HEAP_ALIGN 64u

typedef struct heap_ext {
    struct heap_ext *next;
    size_t off, len;
} heap_ext_t;

static heap_ext_t *heap_ext_new(size_t off, size_t len, heap_ext_t *next)
{
    heap_ext_t *e = malloc(sizeof *e);
    if (e) *e = (heap_ext_t){.next = next, .off = off, .len = len};
    return e;
}

void heap_init(wire_t *w)
{
    pthread_mutex_init(&w->heap_lock, NULL);
    size_t len = (size_t)w->hdr->heap_len;
    w->heap_free = len ? heap_ext_new(0, len, NULL) : NULL;
    w->heap_used = NULL;
}

static void heap_list_free(heap_ext_t *e)
{
    while (e) {
        heap_ext_t *n = e->next;
        free(e);
        e = n;
    }
}

void heap_fini(wire_t *w)
{
    if (w->heap_used) sl_log_debug("wire: shared heap blocks still allocated at finalize");
    heap_list_free(w->heap_free);
    heap_list_free(w->heap_used);
    w->heap_free = w->heap_used = NULL;
    pthread_mutex_destroy(&w->heap_lock);
}

void *wire_heap_alloc(wire_t *w, size_t len)
{
    if (!w || len == 0 || len > (size_t)w->hdr->heap_len) return NULL;
    len = (len + HEAP_ALIGN - 1) & ~(size_t)(HEAP_ALIGN - 1);
    char *base = w->peers[w->rank].heap;
    void *out = NULL;
    pthread_mutex_lock(&w->heap_lock);
    for (heap_ext_t **pp = &w->heap_free; *pp; pp = &(*pp)->next) {
        heap_ext_t *f = *pp;
        if (f->len < len) continue;
        heap_ext_t *u = heap_ext_new(f->off, len, w->heap_used);
        if (!u) break;
        w->heap_used = u;
        out = base + f->off;
        f->off += len;
        f->len -= len;
        if (f->len == 0) {
            *pp = f->next;
            free(f);
        }
        break;
    }
    pthread_mutex_unlock(&w->heap_lock);
    return out;
}

/* Put [off, off+len) back, merging with its neighbours. */
static sl_status_t heap_release(wire_t *w, size_t off, size_t len)
{
    heap_ext_t *prev = NULL, *next = w->heap_free;
    while (next && next->off < off) {
        prev = next;
        next = next->next;
    }
    bool merge_prev = prev && prev->off + prev->len == off;
    bool merge_next = next && off + len == next->off;
    if (merge_prev && merge_next) {
        prev->len += len + next->len;
        prev->next = next->next;
        free(next);
    } else if (merge_prev) {
        prev->len += len;
    } else if (merge_next) {
        next->off = off;
        next->len += len;
    } else {
        heap_ext_t *e = heap_ext_new(off, len, next);
        if (!e) return SL_ERR_NOMEM;
        if (prev) prev->next = e;
        else w->heap_free = e;
    }
    return SL_OK;
}

sl_status_t wire_heap_free(wire_t *w, void *ptr)
{
    if (!w || !ptr) return SL_ERR_INVALID;
    char *base = w->peers[w->rank].heap;
    sl_status_t st = SL_ERR_INVALID; /* not a block of ours (or freed twice) */
    pthread_mutex_lock(&w->heap_lock);
    for (heap_ext_t **pp = &w->heap_used; *pp; pp = &(*pp)->next) {
        heap_ext_t *u = *pp;
        if (base + u->off != (char *)ptr) continue;
        st = heap_release(w, u->off, u->len);
        if (st == SL_OK) {
            *pp = u->next;
            free(u);
        }
        break;
    }
    pthread_mutex_unlock(&w->heap_lock);
    return st;
}

size_t wire_heap_size(const wire_t *w)
{
    return w ? (size_t)w->hdr->heap_len : 0;
}

char *heap_translate(const wire_t *w, int peer, uint64_t raddr, size_t len)
{
    const wire_peer_t *p = &w->peers[peer];
    uint64_t hl = p->heap_len; /* as checked at attach, not the peer's header now */
    if (!p->heap || raddr < p->heap_base || raddr - p->heap_base > hl ||
        len > hl - (raddr - p->heap_base))
        return NULL;
    return p->heap + (raddr - p->heap_base);
}

void *wire_heap_peer(const wire_t *w, int peer, uint64_t raddr, size_t len)
{
    if (!w || peer < 0 || peer >= w->size || peer == w->rank) return NULL;
    return heap_translate(w, peer, raddr, len);
}
