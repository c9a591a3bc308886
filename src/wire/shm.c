/* Shared-memory transport: one segment per rank holding its mailbox ring and
 * staging buffers, mapped by every rank of the job. */
#include "util/log.h"
#include "util/param.h"
#include "wire/wire_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SHM_PAGE 4096u

static size_t round_page(size_t n)
{
    return (n + SHM_PAGE - 1) & ~(size_t)(SHM_PAGE - 1);
}

uint32_t shm_pkt_slots(size_t len)
{
    return (uint32_t)((SHM_PKT_HDR + len + SHM_SLOT - 1) / SHM_SLOT);
}

static void shm_peer_bind(wire_peer_t *p, shm_hdr_t *h)
{
    p->hdr = h;
    p->seg_len = h->seg_len;
    p->heap_len = h->heap_len;
    p->stage_chans = h->stage_chans;
    p->stage_chunk = h->stage_chunk;
    p->ring = (char *)h + h->ring_off;
    p->chans = (shm_stage_chan_t *)((char *)h + h->stage_off);
    p->stage_bufs = (char *)(p->chans + h->stage_chans);
    p->heap = h->heap_len ? (char *)h + h->heap_off : NULL;
    p->heap_base = h->self_addr + h->heap_off;
}

/* The shared heap's size: SLUICE_SHM_HEAP, shrunk so that every rank's heap
 * together takes at most half of what /dev/shm has free (tmpfs pages are
 * only used when touched, but a touch past the limit would be a SIGBUS). */
static size_t shm_heap_size(const wire_t *w)
{
    long want = 0;
    if (sl_param_int(SL_PARAM_SHM_HEAP, &want) != SL_OK || want <= 0) return 0;
    size_t heap = (size_t)want;
    struct statvfs sv;
    if (statvfs("/dev/shm", &sv) == 0) {
        size_t budget = (size_t)sv.f_bavail * sv.f_frsize / 2 / (size_t)w->size;
        if (heap > budget) {
            sl_log_debug("wire: shared heap shrunk from %zu to %zu bytes to fit /dev/shm", heap,
                         budget);
            heap = budget;
        }
    }
    return heap & ~(size_t)(SHM_PAGE - 1);
}

/* Testing hook: SLUICE_TEST_CRASH=RANK:POINT kills this rank at POINT. */
static bool test_point(const wire_t *w, const char *point)
{
    const char *spec = sl_param_str(SL_PARAM_TEST_CRASH);
    char want[64];
    snprintf(want, sizeof want, "%d:%s", w->rank, point);
    return *spec && strcmp(spec, want) == 0;
}

void shm_test_crash(const wire_t *w, const char *point)
{
    if (test_point(w, point)) raise(SIGKILL);
}

void shm_test_mid_read(wire_t *w)
{
    uint8_t v = test_point(w, "mid-message") ? 1 : test_point(w, "mid-message-stop") ? 2 : 0;
    atomic_store_explicit(&w->test_mid, v, memory_order_relaxed);
}

void shm_test_mid(wire_t *w)
{
    uint8_t v = atomic_exchange_explicit(&w->test_mid, 0, memory_order_relaxed);
    if (v) raise(v == 1 ? SIGKILL : SIGSTOP); /* (another thread may have fired it) */
}

/* Map the pages of a ring now (sl_mem_populate).  A fresh 2 MiB mailbox
 * faulted in page by page under the first traffic that went round it, and
 * the standard benchmarks run only 20 windows of 16 KiB+ messages
 * (bidirectional 32 KiB took twice as long: docs/WIRE.md). */
static void shm_populate(void *seg, size_t off, size_t len)
{
    sl_mem_populate((char *)seg + off, len);
}

void shm_plan(int size, uint32_t slots, uint32_t fb_cells, uint32_t chans, uint32_t chunk,
              shm_plan_t *out)
{
    out->ring_off = round_page(sizeof(shm_hdr_t));
    out->fb_off = out->ring_off + round_page((size_t)slots * SHM_SLOT);
    out->stage_off = out->fb_off + round_page((size_t)size * fb_cells * FB_CELL);
    /* The staging buffers start right after the channel array. */
    out->heap_off = round_page(out->stage_off + (size_t)chans * sizeof(shm_stage_chan_t) +
                               (size_t)chans * 2 * (size_t)chunk);
}

void shm_populate_peer(wire_t *w, wire_peer_t *p)
{
    if (p->populated) return;
    p->populated = true;
    shm_populate(p->hdr, p->hdr->ring_off, (size_t)w->layout.slots * SHM_SLOT);
}

/* Has process pid ended?  A zombie has: a job's ranks killed with their
 * launcher (PR_SET_PDEATHSIG) wait as zombies until a reaper collects
 * them, which in a container's minimal init may be never. */
static bool pid_ended(pid_t pid)
{
    if (kill(pid, 0) != 0) return errno == ESRCH;
    return sl_proc_state(pid, 0) == 'Z';
}

/* Is the segment at path one of ours whose creator has died?  Its header
 * names the creator (magic and pid sit at the same offsets in every
 * version); a live or unknown creator, another user's file or a header
 * not written yet keep it. */
static bool shm_is_stale(const char *path)
{
    int fd = shm_open(path, O_RDONLY | O_NONBLOCK, 0);
    if (fd < 0) return false;
    struct stat sb;
    uint64_t magic = 0;
    uint32_t pid = 0;
    bool stale = fstat(fd, &sb) == 0 && sb.st_uid == geteuid() &&
                 pread(fd, &magic, sizeof magic, 0) == (ssize_t)sizeof magic &&
                 magic == SHM_MAGIC &&
                 pread(fd, &pid, sizeof pid, offsetof(shm_hdr_t, pid)) == (ssize_t)sizeof pid &&
                 pid > 0 && pid_ended((pid_t)pid);
    close(fd);
    return stale;
}

/* Segments whose creator died before unlinking them: a job killed during
 * start-up under a launcher that does not clean /dev/shm (sluicerun does;
 * Open MPI's mpirun, srun or a SIGKILLed launcher do not).  The next job's
 * rank 0 removes them, so they do not pile up. */
void shm_sweep_stale(void)
{
    DIR *d = opendir("/dev/shm");
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char path[300];
        if (strncmp(e->d_name, "sluice-", 7) != 0) continue;
        snprintf(path, sizeof path, "/%s", e->d_name);
        if (shm_is_stale(path) && shm_unlink(path) == 0)
            sl_log_debug("wire: removed %s, left by a process that died", e->d_name);
    }
    closedir(d);
}

/* Give the unnamed segment fd its name (shm_create). */
static sl_status_t shm_link(wire_t *w, int fd)
{
    char from[64], to[128];
    snprintf(from, sizeof from, "/proc/self/fd/%d", fd);
    snprintf(to, sizeof to, "/dev/shm%s", w->shm_name);
    if (linkat(AT_FDCWD, from, AT_FDCWD, to, AT_SYMLINK_FOLLOW) != 0) {
        sl_log_error("wire: naming shared memory %s: %s", to, strerror(errno));
        return errno == EEXIST ? SL_ERR_BUSY : SL_ERR_SYS;
    }
    w->shm_linked = true;
    return SL_OK;
}

sl_status_t shm_create(wire_t *w)
{
    const boot_info_t *bi = boot_get_info(w->boot);
    if (w->rank == 0) shm_sweep_stale();
    long chans, chunk;
    if (sl_param_int(SL_PARAM_STAGE_CHANNELS, &chans) || sl_param_int(SL_PARAM_STAGE_CHUNK, &chunk))
        return SL_ERR_CONFIG;
    shm_plan_t pl;
    shm_plan(w->size, w->layout.slots, w->fb_cells, (uint32_t)chans, (uint32_t)chunk, &pl);
    size_t ring_off = pl.ring_off, fb_off = pl.fb_off, stage_off = pl.stage_off;
    size_t heap_off = pl.heap_off;
    size_t heap_len = shm_heap_size(w);
    size_t seg_len = heap_off + heap_len;

    snprintf(w->shm_name, sizeof w->shm_name, "/sluice-%s-%d", bi->jobkey, w->rank);
    /* The segment gets its name only once its header names its creator
     * (shm_link): a rank killed before that leaves nothing in /dev/shm,
     * and one killed after it leaves a segment the next job's sweep can
     * tell is stale.  Where /dev/shm takes no unnamed files, the name
     * comes first (shm_open). */
    bool unnamed = true;
    int fd = open("/dev/shm", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {
        unnamed = false;
        fd = shm_open(w->shm_name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0) {
            sl_log_error("wire: shm_open(%s): %s", w->shm_name, strerror(errno));
            return errno == EEXIST ? SL_ERR_BUSY : SL_ERR_SYS;
        }
        w->shm_linked = true;
    }
    sl_status_t st = SL_OK;
    if (ftruncate(fd, (off_t)seg_len) != 0) {
        sl_log_error("wire: sizing shared memory to %zu bytes: %s", seg_len, strerror(errno));
        st = SL_ERR_SYS;
        goto close_fd;
    }
    void *map = mmap(NULL, seg_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        sl_log_error("wire: mmap of %zu bytes: %s", seg_len, strerror(errno));
        st = SL_ERR_SYS;
        goto close_fd;
    }
    shm_hdr_t *h = map;
    h->version = SHM_VERSION;
    h->rank = (uint32_t)w->rank;
    h->job_size = (uint32_t)w->size;
    h->pid = (uint32_t)getpid();
    memcpy(h->jobkey, bi->jobkey, BOOT_JOBKEY_LEN);
    memcpy(h->host, w->host, WIRE_HOST_MAX);
    h->slots = w->layout.slots;
    h->credit_slots = w->layout.credit_slots;
    h->quota = w->layout.quota;
    h->pkt_slots = w->layout.pkt_slots;
    h->stage_chans = (uint32_t)chans;
    h->stage_chunk = (uint32_t)chunk;
    h->fb_cells = w->fb_cells;
    h->dynamic = w->layout.dynamic;
    h->ring_off = ring_off;
    h->fb_off = fb_off;
    h->stage_off = stage_off;
    h->heap_off = heap_off;
    h->heap_len = heap_len;
    h->seg_len = seg_len;
    h->self_addr = (uint64_t)(uintptr_t)map;
    atomic_store_explicit((_Atomic uint64_t *)&h->magic, SHM_MAGIC, memory_order_release);
    if (unnamed && (st = shm_link(w, fd)) != SL_OK) {
        munmap(map, seg_len);
        goto close_fd;
    }
    w->hdr = h;
    w->ring = (char *)h + ring_off;
    w->seg_len = seg_len;
    shm_populate(map, ring_off, (size_t)w->layout.slots * SHM_SLOT);
    shm_peer_bind(&w->peers[w->rank], h);
close_fd:
    close(fd);
    if (st == SL_OK) shm_test_crash(w, "wire-created");
    return st;
}

sl_status_t shm_check_peer_header(const wire_t *w, const char *jobkey, int r, const shm_hdr_t *h,
                                  size_t maplen)
{
    if (h->magic != SHM_MAGIC || h->version != SHM_VERSION || h->seg_len != maplen ||
        memcmp(h->jobkey, jobkey, BOOT_JOBKEY_LEN) != 0 || h->rank != (uint32_t)r ||
        memchr(h->host, 0, WIRE_HOST_MAX) == NULL ||
        h->job_size != (uint32_t)w->size) {
        sl_log_error("wire: shared memory of rank %d does not belong to this job", r);
        return SL_ERR_AUTH;
    }
    if (h->credit_slots != w->layout.credit_slots || h->slots != w->layout.slots) {
        sl_log_error("wire: rank %d runs with SLUICE_MAILBOX_SLOTS=%u SLUICE_CREDIT_SLOTS=%u, "
                     "this rank with %u and %u: every rank must use the same settings",
                     r, h->slots, h->credit_slots, w->layout.slots, w->layout.credit_slots);
        return SL_ERR_CONFIG;
    }
    if (h->dynamic != (uint32_t)w->layout.dynamic) {
        sl_log_error("wire: rank %d runs with SLUICE_FLOWCTL=%s, this rank with %s: every rank "
                     "must use the same settings", r, h->dynamic ? "dynamic" : "static",
                     w->layout.dynamic ? "dynamic" : "static");
        return SL_ERR_CONFIG;
    }
    if (h->fb_cells != w->fb_cells) {
        sl_log_error("wire: rank %d runs with SLUICE_FASTBOX=%u, this rank with %u: every rank "
                     "must use the same settings", r, h->fb_cells, w->fb_cells);
        return SL_ERR_CONFIG;
    }
    if (h->stage_chans != w->hdr->stage_chans || h->stage_chunk != w->hdr->stage_chunk) {
        sl_log_error("wire: rank %d runs with SLUICE_STAGE_CHANNELS=%u SLUICE_STAGE_CHUNK=%u, "
                     "this rank with %u and %u: every rank must use the same settings",
                     r, h->stage_chans, h->stage_chunk, w->hdr->stage_chans, w->hdr->stage_chunk);
        return SL_ERR_CONFIG;
    }
    /* Every region the offsets name must lie inside the mapping, in order:
     * they are used as they are to place the ring, cells, staging buffers
     * and heap (a peer's shared memory is input).  Sizes are ours (equal,
     * checked above); only differences of ordered offsets are compared, so
     * no sum can wrap whatever the values. */
    uint64_t ring_bytes = (uint64_t)w->layout.slots * SHM_SLOT;
    uint64_t fb_bytes = (uint64_t)w->size * w->fb_cells * FB_CELL;
    uint64_t stage_bytes = (uint64_t)h->stage_chans * sizeof(shm_stage_chan_t) +
                           (uint64_t)h->stage_chans * 2 * h->stage_chunk;
    if (h->quota != w->layout.quota || h->pkt_slots != w->layout.pkt_slots ||
        h->ring_off < sizeof(shm_hdr_t) || h->ring_off % SHM_SLOT || h->fb_off % FB_CELL ||
        h->stage_off % SHM_SLOT || h->ring_off > h->fb_off || h->fb_off > h->stage_off ||
        h->stage_off > h->heap_off || h->heap_off > maplen ||
        h->fb_off - h->ring_off < ring_bytes || h->stage_off - h->fb_off < fb_bytes ||
        h->heap_off - h->stage_off < stage_bytes || h->heap_len > maplen - h->heap_off) {
        sl_log_error("wire: the shared memory of rank %d has an impossible layout", r);
        return SL_ERR_AUTH;
    }
    return SL_OK;
}

int shm_peer_host(const wire_t *w, int r)
{
    const boot_info_t *bi = boot_get_info(w->boot);
    char name[64];
    snprintf(name, sizeof name, "/sluice-%s-%d", bi->jobkey, r);
    int fd = shm_open(name, O_RDONLY, 0);
    if (fd < 0) return SHM_HOST_ABSENT; /* on another machine (or of another job) */
    shm_hdr_t h;
    bool same = pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h && h.magic == SHM_MAGIC &&
                strncmp(h.host, w->host, WIRE_HOST_MAX) == 0;
    close(fd);
    return same ? SHM_HOST_SAME : SHM_HOST_OTHER;
}

sl_status_t shm_attach_one(wire_t *w, int r)
{
    const boot_info_t *bi = boot_get_info(w->boot);
    char name[64];
    snprintf(name, sizeof name, "/sluice-%s-%d", bi->jobkey, r);
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) {
        sl_log_error("wire: cannot open shared memory of rank %d: %s", r, strerror(errno));
        return SL_ERR_SYS;
    }
    struct stat sb;
    sl_status_t st = SL_ERR_SYS;
    void *map = MAP_FAILED;
    if (fstat(fd, &sb) == 0 && sb.st_size >= (off_t)sizeof(shm_hdr_t))
        map = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        sl_log_error("wire: cannot map shared memory of rank %d", r);
        return st;
    }
    st = shm_check_peer_header(w, bi->jobkey, r, map, (size_t)sb.st_size);
    if (st != SL_OK) {
        munmap(map, (size_t)sb.st_size);
        return st;
    }
    wire_peer_t *p = &w->peers[r];
    shm_peer_bind(p, map);
    /* We write there.  Mapping every peer's ring at set-up costs each rank
     * (P - 1) rings of page-table work: 22 s of start-up at 128 ranks on 2
     * CPUs.  Beyond a few ranks it is done at the first send to that peer
     * (shm_populate_peer), so only the peers a rank talks to cost it. */
    if (w->size <= SHM_POPULATE_ALL) shm_populate_peer(w, p);
    p->pid = (pid_t)p->hdr->pid;
    p->credits = w->layout.quota; /* dynamic: the static slots (wire_config) */
    p->pidfd = (int)syscall(SYS_pidfd_open, p->pid, 0);
    return SL_OK;
}


bool wire_segment_owner(const char *name, int *pid, int *rank)
{
    char path[300];
    snprintf(path, sizeof path, "/%s", name);
    int fd = shm_open(path, O_RDONLY | O_NONBLOCK, 0);
    if (fd < 0) return false;
    shm_hdr_t h;
    bool ok = pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h && h.magic == SHM_MAGIC &&
              h.version == SHM_VERSION;
    close(fd);
    if (ok) {
        *pid = (int)h.pid;
        *rank = (int)h.rank;
    }
    return ok;
}

void shm_unlink_own(wire_t *w)
{
    if (w->shm_linked && shm_unlink(w->shm_name) == 0) w->shm_linked = false;
}

void shm_detach(wire_t *w)
{
    for (int r = 0; r < w->size; r++) {
        wire_peer_t *p = &w->peers[r];
        if (p->hdr && r != w->rank) munmap(p->hdr, p->seg_len);
        if (p->pidfd >= 0) close(p->pidfd);
        p->hdr = NULL;
        p->pidfd = -1;
    }
    if (w->hdr) munmap(w->hdr, w->seg_len);
    w->hdr = NULL;
    shm_unlink_own(w);
}

void iov_gather(char *dst, const struct iovec *iov, int iovcnt, size_t off, size_t len)
{
    for (int i = 0; i < iovcnt && len > 0; i++) {
        if (off >= iov[i].iov_len) {
            off -= iov[i].iov_len;
            continue;
        }
        size_t n = iov[i].iov_len - off;
        if (n > len) n = len;
        memcpy(dst, (const char *)iov[i].iov_base + off, n);
        dst += n;
        len -= n;
        off = 0;
    }
}

/* Copy into the ring at byte offset `at` (modulo the ring size). */
static void ring_write(char *ring, size_t ring_bytes, size_t at, const struct iovec *iov,
                       int iovcnt, size_t off, size_t len)
{
    at %= ring_bytes;
    size_t first = ring_bytes - at < len ? ring_bytes - at : len;
    iov_gather(ring + at, iov, iovcnt, off, first);
    if (first < len) iov_gather(ring, iov, iovcnt, off + first, len - first);
}

/* Wake h's owner if it sleeps.  Callers have made their update visible with
 * a full fence (or a seq_cst read-modify-write): pairs with the fence in
 * wire_sleep, so either the sleeper sees the update or we see it asleep. */
static void shm_wake_fenced(wire_t *w, shm_hdr_t *h)
{
    if (atomic_load_explicit(&h->sleepers, memory_order_seq_cst) == 0) return;
    atomic_fetch_add_explicit(&h->wake_seq, 1, memory_order_release);
    sl_futex_wake_all(&h->wake_seq);
    WIRE_STAT_INC(w, wakeups_tx, 1);
}

/* The same for a lazy packet: only an application thread waiting in the
 * library is woken; a sleeping progress thread is left to its next wake-up
 * (another packet, the application entering the library, or its slice). */
static void shm_wake_app_fenced(wire_t *w, shm_hdr_t *h)
{
    if (atomic_load_explicit(&h->app_sleepers, memory_order_seq_cst) == 0) {
        if (atomic_load_explicit(&h->sleepers, memory_order_relaxed)) WIRE_STAT_INC(w, lazy_skips, 1);
        return;
    }
    shm_wake_fenced(w, h);
}

void shm_wake_after_fence(wire_t *w, shm_hdr_t *h, bool lazy)
{
    if (lazy) shm_wake_app_fenced(w, h);
    else shm_wake_fenced(w, h);
}

void shm_wake(wire_t *w, shm_hdr_t *h)
{
    atomic_thread_fence(memory_order_seq_cst);
    shm_wake_fenced(w, h);
}

/* SLUICE_WIRE_CHECK: the slots [pos, pos+k) must have been consumed in
 * their previous round.  The owner publishes its head after clearing slots
 * and before returning credits, so a correct credit scheme never trips this. */
static void shm_check_room(wire_t *w, int peer, uint64_t pos, uint32_t k)
{
    shm_hdr_t *h = w->peers[peer].hdr;
    uint64_t head = atomic_load_explicit(&h->head, memory_order_acquire);
    if (pos + k <= head + w->layout.slots) return;
    wire_die(w, 72,
             "wire: mailbox overflow toward rank %d: slots %llu..%llu reserved, receiver at "
             "%llu, ring of %u",
             peer, (unsigned long long)pos, (unsigned long long)(pos + k - 1),
             (unsigned long long)head, w->layout.slots);
}

void shm_put_pkt(wire_t *w, int peer, uint8_t type, uint8_t flags, uint16_t msg, bool lazy,
                 const struct iovec *iov, int iovcnt, size_t off, size_t len)
{
    wire_peer_t *p = &w->peers[peer];
    shm_hdr_t *h = p->hdr;
    uint32_t k = shm_pkt_slots(len);
    uint32_t slots = w->layout.slots; /* the peer's too (shm_check_peer_header), not read from it */
    size_t ring_bytes = (size_t)slots * SHM_SLOT;
    uint64_t pos = atomic_fetch_add_explicit(&h->tail, k, memory_order_acq_rel);
    if (w->check) shm_check_room(w, peer, pos, k);
    size_t base = (size_t)(pos % slots) * SHM_SLOT;
    shm_pkt_hdr_t *ph = (shm_pkt_hdr_t *)(p->ring + base);

    ring_write(p->ring, ring_bytes, base + SHM_PKT_HDR, iov, iovcnt, off, len);
    size_t spare = (size_t)k * SHM_SLOT - SHM_PKT_HDR - len;
    if (type != WIRE_T_CREDIT && atomic_load_explicit(&w->piggyback, memory_order_relaxed) &&
        spare >= SHM_PIGGY_BYTES) {
        uint32_t c = fc_rx_take_piggy(&p->rx_pending, UINT16_MAX);
        if (c) {
            uint16_t c16 = (uint16_t)c;
            struct iovec civ = {&c16, sizeof c16};
            ring_write(p->ring, ring_bytes, base + (size_t)k * SHM_SLOT - SHM_PIGGY_BYTES, &civ,
                       1, 0, sizeof c16);
            flags |= PF_PIGGY;
            WIRE_STAT_OWN(&w->peers[peer].tx, piggy_pkts_tx, 1); /* under its lock */
            WIRE_STAT_OWN(&w->peers[peer].tx, piggy_credits_tx, c);
        }
    }
    ph->src = (uint16_t)w->rank;
    ph->len = (uint16_t)len;
    ph->type = type;
    ph->flags = flags;
    ph->msg = msg;
    /* One locked exchange both publishes the packet (release) and is the full
     * fence the sleeper check needs: cheaper than a store plus mfence. */
    atomic_exchange_explicit(&ph->seq, SHM_SEQ(pos), memory_order_seq_cst);
    shm_wake_after_fence(w, h, lazy);
}

bool shm_ring_ready(wire_t *w)
{
    uint64_t head = atomic_load_explicit(&w->head, memory_order_relaxed);
    const shm_pkt_hdr_t *ph =
        (const shm_pkt_hdr_t *)(w->ring + (size_t)(head % w->layout.slots) * SHM_SLOT);
    return atomic_load_explicit(&ph->seq, memory_order_acquire) == SHM_SEQ(head);
}

/* A packet whose header makes no sense can only come from memory corruption
 * or a foreign writer: the ring cannot be resynchronised, so end the job. */
static void shm_corrupt(wire_t *w, const shm_pkt_hdr_t *ph)
{
    wire_die(w, 70,
             "wire: corrupt packet in mailbox at position %llu (from rank %u by its header: len "
             "%u, type %u, flags %#x)",
             (unsigned long long)atomic_load(&w->head), ph->src, ph->len, ph->type, ph->flags);
}

/* Take one packet at the head of our ring; returns its slot count or 0. */
static uint32_t shm_take_one(wire_t *w)
{
    uint64_t head = atomic_load_explicit(&w->head, memory_order_relaxed); /* ours */
    uint32_t n = w->layout.slots;
    size_t ring_bytes = (size_t)n * SHM_SLOT;
    size_t base = (size_t)(head % n) * SHM_SLOT;
    shm_pkt_hdr_t *ph = (shm_pkt_hdr_t *)(w->ring + base);
    if (atomic_load_explicit(&ph->seq, memory_order_acquire) != SHM_SEQ(head)) return 0;

    int src = ph->src;
    size_t len = ph->len;
    uint32_t k = shm_pkt_slots(len);
    if (src >= w->size || src == w->rank || k > w->layout.pkt_slots ||
        w->peers[src].tp != &wire_tp_shm)
        shm_corrupt(w, ph);
    const char *data = w->ring + base + SHM_PKT_HDR;
    size_t end = base + (size_t)k * SHM_SLOT;
    if (end > ring_bytes) { /* wraps: make it contiguous */
        size_t first = ring_bytes - base - SHM_PKT_HDR;
        if (first > len) first = len;
        memcpy(w->scratch, data, first);
        memcpy(w->scratch + first, w->ring, len - first);
        data = w->scratch;
    }
    wire_rx_t rx = {.src = src, .type = ph->type, .flags = ph->flags, .msg = ph->msg,
                    .data = data, .len = len};
    /* Credits this packet carries (piggybacked, or a credit packet's) are
     * read now but used only once its slots are free again (below). */
    if (rx.flags & PF_PIGGY) {
        uint16_t c;
        size_t at = (end - SHM_PIGGY_BYTES) % ring_bytes;
        memcpy(&c, w->ring + at, sizeof c);
        WIRE_STAT_OWN(&w->stats, piggy_pkts_rx, 1);
        rx.credits = c;
    }
    uint32_t value = 0; /* a credit or control packet's payload */
    if (!wire_rx_packet(w, &rx, &value)) shm_corrupt(w, ph);
    /* Clear every slot's first word before the credits go back, so a later
     * packet's header position never shows stale data. */
    for (uint32_t i = 0; i < k; i++) {
        _Atomic uint32_t *word = (_Atomic uint32_t *)(w->ring + ((head + i) % n) * SHM_SLOT);
        atomic_store_explicit(word, 0, memory_order_relaxed);
    }
    atomic_store_explicit(&w->head, head + k, memory_order_relaxed);
    atomic_store_explicit(&w->hdr->head, head + k, memory_order_release);
    /* Only now may the credits we received be spent.  Spending them sends
     * our parked packets to src, which may answer with a credit packet of
     * its own, and credit packets need no credits: Eq. 1 bounds them to
     * credit_slots in our ring only if the one that brought the credits
     * has left it.  Spent before the clear, a third credit packet could
     * land in the slot being cleared, one lap ahead, and lose its header
     * (both ranks then waited for each other, bidirectional 4 KiB windows:
     * docs/WIRE.md, "Credits are spent after the slot is freed"). */
    wire_rx_settle(w, &rx, k, value);
    return k;
}

int shm_drain(wire_t *w, int budget)
{
    int n = 0;
    while (n < budget && !wire_drain_stopped(w) && shm_take_one(w) > 0) n++;
    if (w->n_owed) fc_wire_flush_owed(w);
    return n;
}

static bool peer_ended(const wire_peer_t *p)
{
    if (p->pidfd >= 0) {
        struct pollfd pfd = {.fd = p->pidfd, .events = POLLIN};
        return poll(&pfd, 1, 0) > 0;
    }
    return pid_ended(p->pid); /* (no pidfd: Linux before 5.3) a zombie has ended too */
}

/* Peer r's process has ended?  One that had begun wire_fini left the job:
 * ranks finalize at different moments, so the first ones end while the
 * others still run, and that is no error.  Any other end is a death. */
static bool shm_ended(wire_t *w, int r, bool *left)
{
    wire_peer_t *p = &w->peers[r];
    if (!peer_ended(p)) return false;
    *left = atomic_load_explicit(&p->hdr->leaving, memory_order_acquire) != 0;
    return true;
}

static void shm_wake_peer(wire_t *w, int peer)
{
    shm_wake(w, w->peers[peer].hdr);
}

const wire_tp_t wire_tp_shm = {
    .name = "shm", .create = shm_create, .attach = shm_attach_one, .put_pkt = shm_put_pkt,
    .drain = shm_drain, .ready = shm_ring_ready, .wake = shm_wake_peer, .bulk = bulk_shm,
    .ended = shm_ended,
};
