/* Intrusive doubly linked lists (as in UCX's ucs_list and the Linux kernel):
 * the link lives inside the element, so queues never allocate. */
#ifndef SL_UTIL_LIST_H
#define SL_UTIL_LIST_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sl_list {
    struct sl_list *prev, *next;
} sl_list_t;

#define SL_LIST_INIT(name) {&(name), &(name)}
#define sl_container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define sl_list_entry(link, type, member) sl_container_of(link, type, member)

static inline void sl_list_init(sl_list_t *l)
{
    l->prev = l->next = l;
}

static inline bool sl_list_empty(const sl_list_t *l)
{
    return l->next == l;
}

static inline void sl_list_insert_between_(sl_list_t *e, sl_list_t *prev, sl_list_t *next)
{
    e->prev = prev;
    e->next = next;
    prev->next = e;
    next->prev = e;
}

static inline void sl_list_push_tail(sl_list_t *l, sl_list_t *e)
{
    sl_list_insert_between_(e, l->prev, l);
}

static inline void sl_list_push_head(sl_list_t *l, sl_list_t *e)
{
    sl_list_insert_between_(e, l, l->next);
}

static inline void sl_list_remove(sl_list_t *e)
{
    e->prev->next = e->next;
    e->next->prev = e->prev;
    e->prev = e->next = e;
}

static inline sl_list_t *sl_list_head(const sl_list_t *l)
{
    return sl_list_empty(l) ? NULL : l->next;
}

/* Iterate where the body may remove the current element. */
#define sl_list_for_each_safe(pos, tmp, list)                                                \
    for ((pos) = (list)->next, (tmp) = (pos)->next; (pos) != (list);                        \
         (pos) = (tmp), (tmp) = (pos)->next)

#endif
