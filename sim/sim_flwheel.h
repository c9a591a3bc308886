/* sim_flwheel.h - the flit mode's timing wheel of flits and credits on
 * links (internal to sim_flit.c).
 *
 * One bucket per cycle up to the longest possible delay (a full output
 * queue plus a link), so no event is ever moved between levels.  A bucket
 * is a chain of fixed-size chunks taken from one LIFO free list: the chunks
 * a bucket frees when its cycle is delivered are the ones the next pushes
 * write, still in cache.  (With one growing array per bucket the memory
 * written in a cycle had last been touched a wheel turn earlier, tens of
 * megabytes ago, so every line written was a miss.)
 */
#ifndef SIM_FLWHEEL_H
#define SIM_FLWHEEL_H

#include <stdint.h>
#include <stdlib.h>

struct flw_ev {
    int32_t a, b;           /* target << 2 | kind, flit code */
};

#define FLW_CHUNK 62        /* events per chunk: a chunk is 512 bytes */
struct flw_chunk {
    struct flw_chunk *next;
    int32_t n, pad;         /* events, set when the chunk is closed */
    struct flw_ev ev[FLW_CHUNK];
};

/* The write position lives in the bucket, not in the chunk, so that a
 * push touches the bucket array (small, hot) and one line of events. */
struct flw_bucket {
    struct flw_chunk *head, *tail;
    struct flw_ev *wp, *wend;   /* next free event of the tail chunk, its end */
};

struct flw {
    struct flw_bucket *bk;  /* mask + 1 buckets */
    int64_t mask;
    struct flw_chunk *free; /* LIFO free list */
    void **slabs;           /* chunk memory, freed at the end */
    int nslabs, cap_slabs;
};

/* A wheel for delays of at most horizon cycles.  Returns 0 on success. */
int flw_init(struct flw *w, int64_t horizon);
void flw_free(struct flw *w);
/* Refill the free list (out of memory aborts: nothing to save mid-run). */
void flw_grow(struct flw *w);

/* Call fn(arg, e) for every event in the wheel (slow: for the checker). */
void flw_each(const struct flw *w, void (*fn)(void *arg, const struct flw_ev *e), void *arg);

/* Close the bucket's tail chunk (if any) and open a new one. */
void flw_extend(struct flw *w, struct flw_bucket *bk);

/* Append an event to the bucket of cycle at. */
static inline void flw_put(struct flw *w, int64_t at, int32_t a, int32_t b)
{
    struct flw_bucket *bk = &w->bk[at & w->mask];
    if (__builtin_expect(bk->wp == bk->wend, 0))
        flw_extend(w, bk);
    __builtin_prefetch(bk->wp + 8, 1); /* the next line of the chunk */
    bk->wp->a = a;
    bk->wp->b = b;
    bk->wp++;
}

/* Take the chain of cycle t's bucket; the caller hands each chunk back
 * with flw_chunk_put once its events are delivered. */
static inline struct flw_chunk *flw_take(struct flw *w, int64_t t)
{
    struct flw_bucket *bk = &w->bk[t & w->mask];
    struct flw_chunk *c = bk->head;
    if (c)
        bk->tail->n = (int32_t)(bk->wp - bk->tail->ev);
    bk->head = bk->tail = NULL;
    bk->wp = bk->wend = NULL;
    return c;
}

static inline void flw_chunk_put(struct flw *w, struct flw_chunk *c)
{
    c->next = w->free;
    w->free = c;
}

#endif
