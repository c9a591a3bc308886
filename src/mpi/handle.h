/* Handle tables for MPI objects created at run time (derived datatypes now;
 * communicators, groups, requests, ops and errhandlers later).
 *
 * A run-time handle is [kind=2:2][class:4][generation:8][index:18] (the
 * layout of include/mpi.h's header comment): kind 2 sets bit 31, so run-time
 * handles are negative ints and never equal a NULL (kind 0) or predefined
 * (kind 1) handle.  Every slot has a generation (1-255, never 0: MPICH's
 * pair datatypes are kind-2 handles of generation 0) that is bumped when its
 * object is freed, so a stale handle is refused (NULL from mh_get) without
 * touching the object.  Freed slots are reused first-in first-out, so a
 * stale handle can only alias a live object after 255 reuses of its own
 * slot, each of which needs every other free slot to be reused first.
 *
 * Slots live in pages that are never moved or freed while the table is in
 * use, so mh_get takes no lock and may run concurrently with mh_new and
 * mh_free on other handles; mh_new and mh_free serialise on the table's
 * mutex, except in a table of objects that only MPI calls create and free
 * (requests): MPI calls are serialised (by the program, or under
 * MPI_THREAD_MULTIPLE by the library's lock, MPI_CHECK_STATE).
 * The request table's lock and unlock, twice per message, were about 8% of
 * a receiver's samples in an 8-byte message-rate run (perf); the rate did
 * not change beyond the noise without them. */
#ifndef SL_MPI_HANDLE_H
#define SL_MPI_HANDLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define MH_KIND_NULL 0u
#define MH_KIND_BUILTIN 1u
#define MH_KIND_DYNAMIC 2u

#define MH_CLASS_COMM 1u
#define MH_CLASS_GROUP 2u
#define MH_CLASS_DATATYPE 3u
#define MH_CLASS_ERRHANDLER 5u
#define MH_CLASS_OP 6u
#define MH_CLASS_INFO 7u
#define MH_CLASS_KEYVAL 9u
#define MH_CLASS_REQUEST 11u
#define MH_CLASS_MESSAGE 12u

#define MH_KIND(h) (((uint32_t)(h) >> 30) & 3u)
#define MH_CLASS(h) (((uint32_t)(h) >> 26) & 0xfu)

#define MH_GEN_BITS 8
#define MH_INDEX_BITS 18
#define MH_PAGE_BITS 8
#define MH_PAGE_SLOTS (1u << MH_PAGE_BITS)
#define MH_MAX_PAGES (1u << (MH_INDEX_BITS - MH_PAGE_BITS))

typedef struct mh_slot {
    void *obj;          /* NULL when free */
    uint32_t gen;       /* low MH_GEN_BITS bits are in the handle */
    uint32_t next_free; /* FIFO of free slots, UINT32_MAX ends it */
} mh_slot_t;

typedef struct mh_table {
    pthread_mutex_t lock;
    bool serial; /* no lock: the callers are serialised (MH_TABLE_INIT_SERIAL) */
    uint32_t cls;
    uint32_t npages;
    uint32_t free_head, free_tail;
    uint32_t used;
    mh_slot_t *pages[MH_MAX_PAGES];
    struct mh_table *next_grown; /* tables with pages, for mh_fini_all */
} mh_table_t;

/* Static initialiser for a table of handles of one class (MH_CLASS_*). */
#define MH_TABLE_INIT_X(c, ser)                                                             \
    {                                                                                       \
        .lock = PTHREAD_MUTEX_INITIALIZER, .serial = (ser), .cls = (c), .npages = 0,        \
        .free_head = UINT32_MAX, .free_tail = UINT32_MAX, .used = 0                         \
    }
#define MH_TABLE_INIT(c) MH_TABLE_INIT_X(c, false)
/* ... of objects only (serialised) MPI calls create and free: no lock. */
#define MH_TABLE_INIT_SERIAL(c) MH_TABLE_INIT_X(c, true)

/* Registers obj (not NULL) and returns its handle, or 0 when the table is
 * full (2^18 live objects) or out of memory.  Any thread; takes the lock
 * (unless serial). */
int mh_new(mh_table_t *t, void *obj);

#define MH_GEN_MASK ((1u << MH_GEN_BITS) - 1u)
#define MH_INDEX_MASK ((1u << MH_INDEX_BITS) - 1u)

/* The slot of an index, or NULL if its page does not exist. */
static inline mh_slot_t *mh_slot_at(mh_table_t *t, uint32_t index)
{
    mh_slot_t *page = __atomic_load_n(&t->pages[index >> MH_PAGE_BITS], __ATOMIC_ACQUIRE);
    return page ? &page[index & (MH_PAGE_SLOTS - 1u)] : NULL;
}

/* The object of a live handle of this table's class, or NULL for anything
 * else (other classes, NULL and predefined handles, freed or stale
 * handles).  Lock-free; the caller must not race mh_free on the same handle
 * (that is an erroneous MPI program).  Inline: every request call looks
 * one up, most twice. */
static inline void *mh_get(mh_table_t *t, int h)
{
    uint32_t u = (uint32_t)h;
    if (MH_KIND(u) != MH_KIND_DYNAMIC || MH_CLASS(u) != t->cls) return NULL;
    uint32_t index = u & MH_INDEX_MASK;
    if ((index >> MH_PAGE_BITS) >= MH_MAX_PAGES) return NULL;
    mh_slot_t *s = mh_slot_at(t, index);
    if (!s) return NULL;
    void *obj = __atomic_load_n(&s->obj, __ATOMIC_ACQUIRE);
    uint32_t gen = __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE);
    if (!obj || (gen & MH_GEN_MASK) != ((u >> MH_INDEX_BITS) & MH_GEN_MASK)) return NULL;
    return obj;
}
static inline int mh_handle_make(uint32_t cls, uint32_t gen, uint32_t index)
{
    return (int)(MH_KIND_DYNAMIC << 30 | cls << 26 | (gen & MH_GEN_MASK) << MH_INDEX_BITS | index);
}

/* Generation 0 is never issued: MPICH's ABI gives predefined objects
 * kind-2 handles with generation bits 0 (its pair datatypes 0x8c00000k,
 * include/mpi.h), and no run-time handle may equal one of them. */
static inline uint32_t mh_gen_next(uint32_t gen)
{
    gen++;
    return (gen & MH_GEN_MASK) == 0 ? gen + 1u : gen;
}

/* mh_new, inline when the table is serial and has a free slot: requests
 * are registered once per message (the message-rate path). */
static inline int mh_take(mh_table_t *t, void *obj);
static inline int mh_new_fast(mh_table_t *t, void *obj)
{
    if (!t->serial || t->free_head == UINT32_MAX) return mh_new(t, obj);
    return mh_take(t, obj);
}

/* Register obj in the first free slot (there is one; the table's lock
 * held, or a serial table) and return its handle. */
static inline int mh_take(mh_table_t *t, void *obj)
{
    uint32_t i = t->free_head;
    mh_slot_t *s = mh_slot_at(t, i);
    t->free_head = s->next_free;
    if (t->free_head == UINT32_MAX) t->free_tail = UINT32_MAX;
    s->next_free = UINT32_MAX;
    __atomic_store_n(&s->obj, obj, __ATOMIC_RELEASE);
    t->used++;
    return mh_handle_make(t->cls, __atomic_load_n(&s->gen, __ATOMIC_RELAXED), i);
}

/* Unregisters a live handle (the object's memory stays the caller's);
 * returns false if h is not live.  Any thread; takes the lock (unless
 * serial). */
bool mh_free(mh_table_t *t, int h);
/* Unregister live handle h and queue its slot (the table's lock held, or
 * a serial table). */
static inline void mh_unlink(mh_table_t *t, int h)
{
    uint32_t i = (uint32_t)h & MH_INDEX_MASK;
    mh_slot_t *s = mh_slot_at(t, i);
    __atomic_store_n(&s->obj, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&s->gen, mh_gen_next(s->gen), __ATOMIC_RELEASE);
    s->next_free = UINT32_MAX;
    if (t->free_tail != UINT32_MAX)
        mh_slot_at(t, t->free_tail)->next_free = i;
    else
        t->free_head = i;
    t->free_tail = i;
    t->used--;
}
/* mh_free of a handle the caller has just found live (mh_get), inline for
 * a serial table: no second lookup, no lock. */
static inline void mh_free_live(mh_table_t *t, int h)
{
    if (t->serial) mh_unlink(t, h);
    else mh_free(t, h);
}
/* Number of live handles (for leak reports at finalize). */
uint32_t mh_used(mh_table_t *t);
/* Releases the pages; every handle must have been freed.  Single-threaded
 * (finalize). */
void mh_table_fini(mh_table_t *t);
/* MPI_Finalize: release the pages of every table whose handles have all
 * been freed (a table still holding objects the program did not free keeps
 * them reachable).  Single-threaded. */
void mh_fini_all(void);

#endif
