/* Memory descriptors, and copying to and from a region that is either
 * contiguous ([start, start+length)) or a PTL_IOVEC list (start points to
 * `length` ptl_iovec_t; offsets index the concatenation). */
#include "ptl/ptl_int.h"

#include <errno.h>
#include <sys/uio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

static ptl_size_t region_bytes(const void *start, ptl_size_t length, unsigned int options)
{
    if (!(options & PTL_IOVEC)) return length;
    const ptl_iovec_t *iov = start;
    ptl_size_t n = 0;
    for (ptl_size_t i = 0; i < length; i++) n += iov[i].iov_len;
    return n;
}

int ptl_region_check(const void *start, ptl_size_t length, unsigned int options,
                     ptl_size_t offset, ptl_size_t len)
{
    ptl_size_t total = region_bytes(start, length, options);
    return offset <= total && len <= total - offset ? PTL_OK : PTL_ARG_INVALID;
}

/* Visit the pieces of [offset, offset+len) of the region. */
static void region_walk(void *start, ptl_size_t length, unsigned int options, ptl_size_t offset,
                        ptl_size_t len, void (*fn)(char *piece, ptl_size_t n, void *arg), void *arg)
{
    if (!(options & PTL_IOVEC)) {
        if (len) fn(ptl_at(start, offset), len, arg);
        return;
    }
    const ptl_iovec_t *iov = start;
    for (ptl_size_t i = 0; i < length && len > 0; i++) {
        if (offset >= iov[i].iov_len) {
            offset -= iov[i].iov_len;
            continue;
        }
        ptl_size_t n = iov[i].iov_len - offset;
        if (n > len) n = len;
        fn((char *)iov[i].iov_base + offset, n, arg);
        len -= n;
        offset = 0;
    }
}

static void piece_read(char *piece, ptl_size_t n, void *arg)
{
    char **dst = arg;
    memcpy(*dst, piece, n);
    *dst += n;
}

static void piece_write(char *piece, ptl_size_t n, void *arg)
{
    const char **src = arg;
    memcpy(piece, *src, n);
    *src += n;
}

void ptl_region_read(const void *start, ptl_size_t length, unsigned int options,
                     ptl_size_t offset, void *dst, ptl_size_t len)
{
    char *d = dst;
    region_walk((void *)start, length, options, offset, len, piece_read, &d);
}

void ptl_region_write(void *start, ptl_size_t length, unsigned int options, ptl_size_t offset,
                      const void *src, ptl_size_t len)
{
    const char *s = src;
    region_walk(start, length, options, offset, len, piece_write, &s);
}

void *ptl_region_addr(void *start, ptl_size_t length, unsigned int options, ptl_size_t offset,
                      ptl_size_t len)
{
    if (!(options & PTL_IOVEC)) return ptl_at(start, offset);
    const ptl_iovec_t *iov = start;
    for (ptl_size_t i = 0; i < length; i++) {
        if (offset < iov[i].iov_len)
            return len <= iov[i].iov_len - offset ? (char *)iov[i].iov_base + offset : NULL;
        offset -= iov[i].iov_len;
    }
    return len == 0 ? start : NULL;
}

bool ptl_safe_copy(void *dst, const void *src, size_t n, bool into_memory)
{
    if (n == 0) return true;
    /* into_memory: dst is the unchecked side (write); else src is (read) */
    struct iovec local = {into_memory ? (void *)src : dst, n};
    struct iovec remote = {into_memory ? dst : (void *)src, n};
    ssize_t got = into_memory ? process_vm_writev(getpid(), &local, 1, &remote, 1, 0)
                              : process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (got == (ssize_t)n) return true;
    if (got < 0 && (errno == ENOSYS || errno == EPERM)) { /* no such call here: trust */
        memcpy(dst, src, n);
        return true;
    }
    return false;
}

int PtlMDBind(ptl_handle_ni_t ni_handle, const ptl_md_t *md, ptl_handle_md_t *md_handle)
{
    PTL_CHECK_INIT();
    if (!md || !md_handle || (md->options & ~(unsigned)PTL_MD_OPTIONS_MASK)) return PTL_ARG_INVALID;
    PTL_LOCK();
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    ptl_eq_t *eq = md->eq_handle == PTL_EQ_NONE ? NULL : ptl_eq_get(md->eq_handle);
    ptl_ct_t *ct = md->ct_handle == PTL_CT_NONE ? NULL : ptl_ct_get(md->ct_handle);
    int rc = PTL_OK;
    ptl_md_obj_t *m = NULL;
    if (!ni || (md->eq_handle != PTL_EQ_NONE && (!eq || eq->ni != ni)) ||
        (md->ct_handle != PTL_CT_NONE && (!ct || ct->ni != ni)) ||
        ((md->options & PTL_IOVEC) &&
         (md->length > (ptl_size_t)ni->limits.max_iovecs || (md->length && !md->start)))) {
        rc = PTL_ARG_INVALID;
    } else if (ni->n_md >= ni->limits.max_mds || !(m = calloc(1, sizeof *m))) {
        rc = PTL_NO_SPACE;
    } else if ((m->handle = ptl_handle_new(HT_MD, m)) == PTL_INVALID_HANDLE) {
        free(m);
        rc = PTL_NO_SPACE;
    } else {
        m->ni = ni;
        m->md = *md;
        m->eq = eq;
        m->ct = ct;
        if (ct) ct->md_refs++;
        ni->n_md++;
        *md_handle = m->handle;
    }
    PTL_UNLOCK();
    return rc;
}

int PtlMDRelease(ptl_handle_md_t md_handle)
{
    PTL_CHECK_INIT();
    PTL_LOCK();
    ptl_md_obj_t *m = ptl_md_get(md_handle);
    int rc = PTL_ARG_INVALID;
    if (m && m->pending > 0) {
        rc = PTL_IN_USE; /* an operation in flight may still count, log or write into it */
    } else if (m) {
        m->ni->n_md--;
        if (m->ct) m->ct->md_refs--;
        ptl_handle_free(m->handle);
        free(m);
        rc = PTL_OK;
    }
    PTL_UNLOCK();
    return rc;
}

/* ---- shared memory (Sluice extension) ------------------------------------------------------ */

/* The heap is the process's, not the NI's: the NI is only checked. */
static bool ni_valid(ptl_handle_ni_t ni_handle)
{
    PTL_LOCK();
    bool ok = ptl_ni_get(ni_handle) != NULL;
    PTL_UNLOCK();
    return ok;
}

int PtlSluiceMemAlloc(ptl_handle_ni_t ni_handle, ptl_size_t len, void **out)
{
    PTL_CHECK_INIT();
    if (!out || !ni_valid(ni_handle)) return PTL_ARG_INVALID;
    /* the heap has its own lock; zero bytes still get a distinct block */
    *out = wire_heap_alloc(ptl_g.wire, len ? (size_t)len : 1);
    return *out ? PTL_OK : PTL_NO_SPACE;
}

int PtlSluiceMemFree(ptl_handle_ni_t ni_handle, void *ptr)
{
    PTL_CHECK_INIT();
    if (!ni_valid(ni_handle)) return PTL_ARG_INVALID;
    return wire_heap_free(ptl_g.wire, ptr) == SL_OK ? PTL_OK : PTL_ARG_INVALID;
}

int PtlSluiceMemAttach(ptl_handle_ni_t ni_handle, ptl_process_t target, ptl_size_t remote_addr,
                       ptl_size_t len, void **out)
{
    PTL_CHECK_INIT();
    if (!out) return PTL_ARG_INVALID;
    *out = NULL;
    int rank = -1;
    PTL_LOCK();
    ptl_ni_t *ni = ptl_ni_get(ni_handle);
    int rc = ni ? ptl_ni_rank_of(ni, target, &rank) : PTL_ARG_INVALID;
    PTL_UNLOCK();
    if (rc != PTL_OK) return rc;
    *out = wire_heap_peer(ptl_g.wire, rank, (uint64_t)remote_addr, (size_t)len);
    return *out ? PTL_OK : PTL_ARG_INVALID;
}
