/* Generation-checked handle tables for run-time MPI objects (handle.h). */
#include "mpi/handle.h"

#include <stdlib.h>

static mh_table_t *grown;    /* tables with pages (mh_fini_all) */
static pthread_mutex_t grown_lock = PTHREAD_MUTEX_INITIALIZER;

/* Adds one page of free slots at the tail of the free FIFO.  Lock held. */
static bool table_grow(mh_table_t *t)
{
    if (t->npages == MH_MAX_PAGES) return false;
    mh_slot_t *page = calloc(MH_PAGE_SLOTS, sizeof *page);
    if (!page) return false;
    if (t->npages == 0) {
        pthread_mutex_lock(&grown_lock);
        t->next_grown = grown;
        grown = t;
        pthread_mutex_unlock(&grown_lock);
    }
    uint32_t base = t->npages << MH_PAGE_BITS;
    for (uint32_t i = 0; i < MH_PAGE_SLOTS; i++) {
        page[i].next_free = i + 1 < MH_PAGE_SLOTS ? base + i + 1 : UINT32_MAX;
        page[i].gen = 1;
    }
    __atomic_store_n(&t->pages[t->npages], page, __ATOMIC_RELEASE);
    t->npages++;
    if (t->free_tail != UINT32_MAX)
        mh_slot_at(t, t->free_tail)->next_free = base;
    else
        t->free_head = base;
    t->free_tail = base + MH_PAGE_SLOTS - 1u;
    return true;
}

static void table_lock(mh_table_t *t)
{
    if (!t->serial) pthread_mutex_lock(&t->lock);
}

static void table_unlock(mh_table_t *t)
{
    if (!t->serial) pthread_mutex_unlock(&t->lock);
}

int mh_new(mh_table_t *t, void *obj)
{
    int h = 0;
    table_lock(t);
    if (t->free_head == UINT32_MAX && !table_grow(t)) goto unlock;
    h = mh_take(t, obj);
unlock:
    table_unlock(t);
    return h;
}

bool mh_free(mh_table_t *t, int h)
{
    bool ok = false;
    table_lock(t);
    if (!mh_get(t, h)) goto unlock;
    mh_unlink(t, h);
    ok = true;
unlock:
    table_unlock(t);
    return ok;
}

uint32_t mh_used(mh_table_t *t)
{
    table_lock(t);
    uint32_t n = t->used;
    table_unlock(t);
    return n;
}

void mh_fini_all(void)
{
    pthread_mutex_lock(&grown_lock);
    for (mh_table_t **pp = &grown; *pp;) {
        mh_table_t *t = *pp;
        if (t->used) {
            pp = &t->next_grown;
            continue;
        }
        *pp = t->next_grown;
        t->next_grown = NULL;
        mh_table_fini(t);
    }
    pthread_mutex_unlock(&grown_lock);
}

void mh_table_fini(mh_table_t *t)
{
    for (uint32_t p = 0; p < t->npages; p++) {
        free(t->pages[p]);
        t->pages[p] = NULL;
    }
    t->npages = 0;
    t->free_head = t->free_tail = UINT32_MAX;
    t->used = 0;
}
