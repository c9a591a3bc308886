/* Generation-checked handles: [type:4][generation:8][index:20].  A handle
 * whose generation no longer matches its slot (the object was freed, maybe
 * the slot reused) is rejected without touching memory: PTL_ARG_INVALID,
 * never a use-after-free.  The all-ones index is never handed out, so
 * sentinel values such as PTL_CT_NONE cannot alias a live handle. */
#include "ptl/ptl_int.h"

#include <stdlib.h>

static uint32_t handle_make(int type, uint8_t gen, uint32_t index)
{
    return (uint32_t)type << 28 | (uint32_t)gen << PTLH_INDEX_BITS | index;
}

static bool table_grow(ptl_table_t *t)
{
    uint32_t cap = t->cap ? t->cap * 2 : 64;
    if (cap > PTLH_MAX_INDEX) cap = PTLH_MAX_INDEX; /* index PTLH_MAX_INDEX stays unused */
    if (cap <= t->cap) return false;
    void **obj = realloc(t->obj, cap * sizeof *obj);
    if (obj) t->obj = obj;
    uint8_t *gen = realloc(t->gen, cap * sizeof *gen);
    if (gen) t->gen = gen;
    uint32_t *nf = realloc(t->next_free, cap * sizeof *nf);
    if (nf) t->next_free = nf;
    if (!obj || !gen || !nf) return false;
    for (uint32_t i = t->cap; i < cap; i++) {
        t->obj[i] = NULL;
        t->gen[i] = 0;
        t->next_free[i] = i + 1 < cap ? i + 1 : UINT32_MAX;
    }
    /* the new slots join the end of the queue */
    if (t->free_head == UINT32_MAX) t->free_head = t->cap;
    else t->next_free[t->free_tail] = t->cap;
    t->free_tail = cap - 1;
    t->cap = cap;
    return true;
}

uint32_t ptl_handle_new(int type, void *obj)
{
    ptl_table_t *t = &ptl_g.tables[type];
    if (t->cap == 0) t->free_head = t->free_tail = UINT32_MAX;
    if (t->free_head == UINT32_MAX && !table_grow(t)) return PTL_INVALID_HANDLE;
    uint32_t i = t->free_head;
    t->free_head = t->next_free[i];
    if (t->free_head == UINT32_MAX) t->free_tail = UINT32_MAX;
    t->obj[i] = obj;
    t->used++;
    return handle_make(type, t->gen[i], i);
}

void ptl_handle_free(uint32_t h)
{
    int type = ptl_handle_type(h);
    if (!ptl_handle_get(type, h)) return;
    ptl_table_t *t = &ptl_g.tables[type];
    uint32_t i = h & PTLH_MAX_INDEX;
    t->obj[i] = NULL;
    t->gen[i] = (uint8_t)(t->gen[i] + 1);
    t->next_free[i] = UINT32_MAX;
    if (t->free_tail == UINT32_MAX) t->free_head = i;
    else t->next_free[t->free_tail] = i;
    t->free_tail = i;
    t->used--;
}

void ptl_tables_reset(void)
{
    for (int ty = 0; ty < HT_COUNT; ty++) {
        ptl_table_t *t = &ptl_g.tables[ty];
        free(t->obj);
        free(t->gen);
        free(t->next_free);
        *t = (ptl_table_t){.free_head = UINT32_MAX, .free_tail = UINT32_MAX};
    }
}
