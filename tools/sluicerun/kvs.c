/* The job's PMI key-value space: an open-addressing hash table of strings. */
#include "sluicerun.h"

#include <stdlib.h>
#include <string.h>

typedef struct kvs_entry {
    char *key; /* NULL: free slot */
    char *value;
    int owner; /* rank that put it */
} kvs_entry_t;

struct sr_kvs {
    kvs_entry_t *slots;
    size_t cap; /* power of two */
    size_t count;
};

static uint64_t kvs_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static kvs_entry_t *kvs_slot(const sr_kvs_t *kvs, const char *key)
{
    size_t i = (size_t)kvs_hash(key) & (kvs->cap - 1);
    while (kvs->slots[i].key && strcmp(kvs->slots[i].key, key) != 0)
        i = (i + 1) & (kvs->cap - 1);
    return &kvs->slots[i];
}

sr_kvs_t *kvs_new(void)
{
    sr_kvs_t *kvs = calloc(1, sizeof *kvs);
    if (!kvs) return NULL;
    kvs->cap = 64;
    kvs->slots = calloc(kvs->cap, sizeof *kvs->slots);
    if (!kvs->slots) {
        free(kvs);
        return NULL;
    }
    return kvs;
}

void kvs_free(sr_kvs_t *kvs)
{
    if (!kvs) return;
    for (size_t i = 0; i < kvs->cap; i++) {
        free(kvs->slots[i].key);
        free(kvs->slots[i].value);
    }
    free(kvs->slots);
    free(kvs);
}

static int kvs_grow(sr_kvs_t *kvs)
{
    sr_kvs_t bigger = {.cap = kvs->cap * 2};
    bigger.slots = calloc(bigger.cap, sizeof *bigger.slots);
    if (!bigger.slots) return -1;
    for (size_t i = 0; i < kvs->cap; i++)
        if (kvs->slots[i].key) *kvs_slot(&bigger, kvs->slots[i].key) = kvs->slots[i];
    free(kvs->slots);
    kvs->slots = bigger.slots;
    kvs->cap = bigger.cap;
    return 0;
}

int kvs_put(sr_kvs_t *kvs, int owner, const char *key, const char *value)
{
    if ((kvs->count + 1) * 2 > kvs->cap && kvs_grow(kvs) != 0) return -1;
    kvs_entry_t *e = kvs_slot(kvs, key);
    if (e->key && e->owner != owner) return -2;
    char *v = strdup(value);
    if (!v) return -1;
    if (!e->key) {
        if (!(e->key = strdup(key))) {
            free(v);
            return -1;
        }
        e->owner = owner;
        kvs->count++;
    }
    free(e->value);
    e->value = v;
    return 0;
}

const char *kvs_get(const sr_kvs_t *kvs, const char *key)
{
    const kvs_entry_t *e = kvs_slot(kvs, key);
    return e->key ? e->value : NULL;
}
