/* sim_flwheel.c - set-up and chunk memory of the flit mode's timing wheel
 * (sim_flwheel.h). */
#include <sys/mman.h>

#include "sim_flwheel.h"

#define FLW_SLAB 4096 /* chunks per allocation: 2 MiB, one huge page */

int flw_init(struct flw *w, int64_t horizon)
{
    int64_t n = 1;
    while (n <= horizon)
        n *= 2;
    w->mask = n - 1;
    w->free = NULL;
    w->slabs = NULL;
    w->nslabs = w->cap_slabs = 0;
    w->bk = calloc((size_t)n, sizeof(*w->bk));
    return w->bk ? 0 : -1;
}

void flw_free(struct flw *w)
{
    for (int i = 0; i < w->nslabs; i++)
        free(w->slabs[i]);
    free(w->slabs);
    free(w->bk);
    w->bk = NULL;
    w->slabs = NULL;
}

void flw_grow(struct flw *w)
{
    if (w->nslabs == w->cap_slabs) {
        int cap = w->cap_slabs ? w->cap_slabs * 2 : 16;
        void **ns = realloc(w->slabs, (size_t)cap * sizeof(*ns));
        if (!ns)
            abort(); /* out of memory in the middle of a run */
        w->slabs = ns;
        w->cap_slabs = cap;
    }
    struct flw_chunk *s = aligned_alloc(2u << 20, FLW_SLAB * sizeof(*s));
    if (!s)
        abort();
    madvise(s, FLW_SLAB * sizeof(*s), MADV_HUGEPAGE);
    w->slabs[w->nslabs++] = s;
    for (int i = FLW_SLAB - 1; i >= 0; i--) {
        s[i].next = w->free;
        w->free = &s[i];
    }
}

void flw_extend(struct flw *w, struct flw_bucket *bk)
{
    if (!w->free)
        flw_grow(w);
    struct flw_chunk *c = w->free;
    w->free = c->next;
    if (w->free)
        __builtin_prefetch(w->free, 1); /* the next extension reads it */
    c->next = NULL;
    if (bk->tail) {
        bk->tail->n = FLW_CHUNK;
        bk->tail->next = c;
    } else {
        bk->head = c;
    }
    bk->tail = c;
    bk->wp = c->ev;
    bk->wend = c->ev + FLW_CHUNK;
}

void flw_each(const struct flw *w, void (*fn)(void *arg, const struct flw_ev *e), void *arg)
{
    for (int64_t b = 0; b <= w->mask; b++) {
        const struct flw_bucket *bk = &w->bk[b];
        for (const struct flw_chunk *c = bk->head; c; c = c->next) {
            int n = c == bk->tail ? (int)(bk->wp - c->ev) : c->n;
            for (int i = 0; i < n; i++)
                fn(arg, &c->ev[i]);
        }
    }
}
