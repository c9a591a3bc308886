/* Buffered mode (MPI 3.1 §3.6): MPI_Bsend packs the message into a segment
 * of the buffer the user attached and starts a standard send out of it, so
 * the call completes at once.  Segments sit in address order; a new one
 * goes in the first gap that fits, and a segment is reclaimed when its send
 * has completed (looked at whenever space is needed, and on detach).
 * Segment headers live inside the attached buffer: MPI_BSEND_OVERHEAD
 * covers one header and its alignment. */
#include "mpi/bsend.h"

#include "mpi/mpi_int.h"

#include <stdint.h>

#define BSEG_ALIGN 16

typedef struct bseg {
    struct bseg *next; /* in address order */
    size_t len;        /* the whole segment, header included */
    p2p_req_t *p;      /* its send; NULL until started and once complete */
    bool started;
} bseg_t;

#define BSEG_HDR ((sizeof(bseg_t) + BSEG_ALIGN - 1) & ~(size_t)(BSEG_ALIGN - 1))
_Static_assert(BSEG_HDR + BSEG_ALIGN - 1 <= MPI_BSEND_OVERHEAD, "MPI_BSEND_OVERHEAD too small");

static struct {
    void *user;   /* as attached, handed back by detach */
    int user_size;
    char *base;   /* aligned start and usable size */
    size_t size;
    bseg_t *used;
} B;

/* Reclaim the segments whose sends have completed; true if any remain busy. */
static bool bsend_reap(void)
{
    bool busy = false;
    for (bseg_t **pp = &B.used; *pp;) {
        bseg_t *s = *pp;
        if (s->started && s->p && p2p_test(s->p, NULL)) s->p = NULL;
        if (s->started && !s->p) {
            *pp = s->next;
        } else {
            busy = true;
            pp = &s->next;
        }
    }
    return busy;
}

/* First fit among the gaps between segments in address order. */
static void *bsend_fit(size_t need)
{
    char *cur = B.base;
    bseg_t **pp = &B.used;
    for (;; pp = &(*pp)->next) {
        char *end = *pp ? (char *)*pp : B.base + B.size;
        if ((size_t)(end - cur) >= need) {
            bseg_t *s = (bseg_t *)(void *)cur;
            *s = (bseg_t){.next = *pp, .len = need};
            *pp = s;
            return cur + BSEG_HDR;
        }
        if (!*pp) return NULL;
        cur = (char *)*pp + (*pp)->len;
    }
}

void *mbsend_reserve(size_t bytes)
{
    if (!B.base || bytes > B.size) return NULL;
    size_t need = (BSEG_HDR + bytes + BSEG_ALIGN - 1) & ~(size_t)(BSEG_ALIGN - 1);
    for (;;) {
        bool busy = bsend_reap();
        void *p = bsend_fit(need);
        /* eager sends complete locally, so waiting for busy segments ends */
        if (p || !busy) return p;
        if (p2p_wait_progress(10) != SL_OK) return NULL;
    }
}

static bseg_t *bseg_of(void *data)
{
    return (bseg_t *)(void *)((char *)data - BSEG_HDR);
}

void mbsend_started(void *data, p2p_req_t *p)
{
    bseg_t *s = bseg_of(data);
    s->p = p;
    s->started = true;
}

void mbsend_release(void *data)
{
    mbsend_started(data, NULL); /* reclaimed by the next reap */
    bsend_reap();
}

void mbsend_drain(void)
{
    for (bseg_t *s = B.used; s; s = s->next)
        if (s->started && s->p) {
            p2p_wait(s->p, NULL);
            s->p = NULL;
        }
    bsend_reap();
}

int MPI_Buffer_attach(void *buffer, int size)
{
    MPI_CHECK_STATE("MPI_Buffer_attach");
    if (size < 0) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Buffer_attach", "negative size");
    if (!buffer && size > 0) return mpi_err(NULL, MPI_ERR_BUFFER, "MPI_Buffer_attach", NULL);
    if (B.user) return mpi_err(NULL, MPI_ERR_BUFFER, "MPI_Buffer_attach", "a buffer is attached");
    uintptr_t a = ((uintptr_t)buffer + BSEG_ALIGN - 1) & ~(uintptr_t)(BSEG_ALIGN - 1);
    size_t skip = (size_t)(a - (uintptr_t)buffer);
    B.user = buffer ? buffer : (void *)&B; /* a zero-size attach is still an attach */
    B.user_size = size;
    B.base = (char *)a;
    B.size = (size_t)size > skip ? (size_t)size - skip : 0;
    B.used = NULL;
    return MPI_SUCCESS;
}

int MPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPI_CHECK_STATE("MPI_Buffer_detach");
    if (!buffer_addr || !size) return mpi_err(NULL, MPI_ERR_ARG, "MPI_Buffer_detach", NULL);
    mbsend_drain(); /* MPI: detach blocks until the buffered messages are sent */
    *(void **)buffer_addr = B.user == (void *)&B ? NULL : B.user;
    *size = B.user ? B.user_size : 0;
    B.user = NULL;
    B.base = NULL;
    B.size = 0;
    return MPI_SUCCESS;
}
