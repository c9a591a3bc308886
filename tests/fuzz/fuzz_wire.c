/* Fuzz target (a): the wire's receive path (src/wire) against a hostile
 * peer.  Everything a peer can write into this rank's shared memory comes
 * from the input: raw bytes anywhere in the mailbox ring, packet headers at
 * the read position (any source, length, type, flags, message number),
 * credit packets and piggybacked credits, fastbox cells, staging requests,
 * the split-copy doorbell; interleaved with sends of ours (which take
 * credits and park) and wire_progress, the real receive entry.  And the
 * peer's segment header as attach checks it (attach_header).
 *
 * The wire_t is built here as wire_init would build it for rank 1 of 3,
 * with every region (ring, cells, staging area of each rank) a separate
 * heap block, so that AddressSanitizer sees any access outside one.  An
 * abort with a message (wire_die) is a correct outcome; the next input
 * starts from a fresh wire. */
#include "fuzz_common.h"
#include "wire/wire_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NRANK 3
#define ME 1
#define SLOTS 64u
#define FBC 2u
#define CHANS 2u
#define CHUNK 256u

typedef struct seg {
    shm_hdr_t *hdr;
    char *ring;
    fb_cell_t *cells; /* NRANK * FBC */
    shm_stage_chan_t *chans;
    char *bufs;
} seg_t;

static seg_t segs[NRANK];
static wire_t *w;
static uint64_t delivered_bytes;
/* Memory of ours a staging request may name: a request for it starts at
 * most STAGE_OFF_MAX bytes in and is shorter than STAGE_LEN_MAX, so that it
 * stays inside.  (The copy goes through process_vm_writev, which
 * AddressSanitizer does not see: when my_mem was 1,024 bytes, requests
 * past its end overwrote the globals after it, and ASan's allocator later
 * found its own heap metadata corrupted.) */
#define STAGE_OFF_MAX 255u
#define STAGE_LEN_MAX 900u
static char my_mem[STAGE_OFF_MAX + STAGE_LEN_MAX];

static void on_recv(void *arg, const wire_frag_t *f)
{
    (void)arg;
    if (f->src < 0 || f->src >= NRANK || f->src == ME || f->len > WIRE_MSG_MAX) abort();
    if (f->type > WIRE_TYPE_USER_MAX) abort();
    /* touch every byte: an out-of-bounds fragment shows up under ASan */
    const volatile unsigned char *p = f->data;
    uint64_t sum = 0;
    for (size_t i = 0; i < f->len; i++) sum += p[i];
    delivered_bytes += f->len + (sum & 1);
}

static void *zalloc(size_t n)
{
    void *p = aligned_alloc(64, (n + 63) & ~(size_t)63);
    if (!p) abort();
    memset(p, 0, n);
    return p;
}

static void build(void)
{
    fc_layout_t fl;
    char why[256];
    if (fc_layout_make(SLOTS, NRANK - 1, 2, &fl, why, sizeof why) != SL_OK) abort();
    uint32_t pkt_slots = fc_max_pkt_slots(fl.quota, fl.threshold);
    w = calloc(1, sizeof *w);
    w->peers = calloc(NRANK, sizeof *w->peers);
    w->rank = ME;
    w->size = NRANK;
    w->cb = on_recv;
    w->layout = (wire_layout_t){.slots = SLOTS, .data_slots = fl.data_slots,
                                .credit_slots = 2, .quota = fl.quota,
                                .threshold = fl.threshold, .pkt_slots = pkt_slots,
                                .pkt_payload = (size_t)pkt_slots * SHM_SLOT - SHM_PKT_HDR,
                                .pkt_slots_fc = pkt_slots};
    w->fb_cells = FBC;
    w->piggyback = true;
    w->scratch = malloc(w->layout.pkt_payload);
    pthread_mutex_init(&w->self_lock, NULL);
    sl_list_init(&w->self_q);
    pthread_mutex_init(&w->stage_lock, NULL);
    w->chan_free = (1u << CHANS) - 1;
    for (int r = 0; r < NRANK; r++) {
        seg_t *s = &segs[r];
        s->hdr = zalloc(sizeof(shm_hdr_t));
        s->ring = zalloc(SLOTS * SHM_SLOT);
        s->cells = zalloc(NRANK * FBC * FB_CELL);
        s->chans = zalloc(CHANS * sizeof(shm_stage_chan_t));
        s->bufs = zalloc(CHANS * 2 * CHUNK);
        s->hdr->magic = SHM_MAGIC;
        s->hdr->rank = (uint32_t)r;
        s->hdr->job_size = NRANK;
        s->hdr->slots = SLOTS;
        s->hdr->quota = fl.quota;
        s->hdr->stage_chans = CHANS;
        s->hdr->stage_chunk = CHUNK;
        wire_peer_t *p = &w->peers[r];
        pthread_mutex_init(&p->lock, NULL);
        sl_list_init(&p->pending);
        p->tp = &wire_tp_shm; /* every peer on this host (tp.c) */
        p->pkt_payload = w->layout.pkt_payload;
        p->hdr = s->hdr;
        p->ring = s->ring;
        p->chans = s->chans;
        p->stage_bufs = s->bufs;
        p->stage_chans = CHANS;
        p->stage_chunk = CHUNK;
        p->pid = getpid();
        p->pidfd = -1;
        p->credits = fl.quota;
        p->cma = false;
    }
    w->hdr = segs[ME].hdr;
    w->ring = segs[ME].ring;
    for (int r = 0; r < NRANK; r++) {
        if (r == ME) continue;
        w->peers[r].fb_in = segs[ME].cells + (size_t)r * FBC;
        w->peers[r].fb_out = segs[r].cells + (size_t)ME * FBC;
    }
}

static void teardown(void)
{
    for (int r = 0; r < NRANK; r++) {
        wire_peer_t *p = &w->peers[r];
        sl_list_t *pos, *tmp;
        sl_list_for_each_safe(pos, tmp, &p->pending) free(sl_list_entry(pos, wire_pend_t, link));
        free(segs[r].hdr);
        free(segs[r].ring);
        free(segs[r].cells);
        free(segs[r].chans);
        free(segs[r].bufs);
    }
    while (w->jobs) {
        stage_job_t *j = w->jobs;
        w->jobs = j->next;
        free(j);
    }
    free(w->scratch);
    free(w->peers);
    free(w);
    w = NULL;
}

/* Write n bytes into our ring from byte at (modulo the ring), as a peer can. */
static void ring_poke(size_t at, const void *src, size_t n)
{
    const unsigned char *b = src;
    for (size_t i = 0; i < n; i++) w->ring[(at + i) % (SLOTS * SHM_SLOT)] = (char)b[i];
}

/* A packet at our read position (or near it), as a sender would write it. */
static void put_packet(fz_in_t *in)
{
    uint64_t head = atomic_load(&w->head);
    uint8_t shape = fz_u8(in);
    uint64_t pos = head + ((shape & 0xc0) == 0xc0 ? fz_u8(in) % 4 : 0);
    shm_pkt_hdr_t h = {0};
    h.src = (shape & 1) ? fz_u8(in) : (uint16_t)((fz_u8(in) & 1) ? 2 : 0);
    uint16_t len = (uint16_t)fz_u32(in);
    h.len = (shape & 2) ? len : len % 200;
    uint8_t t = fz_u8(in);
    h.type = (shape & 4) ? t : (t & 0x80) ? WIRE_T_CREDIT : (t & 0x40) ? WIRE_T_STAGE : t % 4;
    h.flags = (shape & 8) ? fz_u8(in) : PF_FIRST | PF_LAST | (fz_u8(in) & PF_PIGGY);
    uint16_t msg = (uint16_t)fz_u32(in);
    h.msg = (shape & 16) ? msg : (uint16_t)(h.src < NRANK ? w->peers[h.src].rx_msgs : 0) + (msg % 3);
    size_t base = (size_t)(pos % SLOTS) * SHM_SLOT;
    char payload[SLOTS * SHM_SLOT];
    size_t n = h.len < sizeof payload ? h.len : sizeof payload;
    memset(payload, 0, n);
    if (h.type == WIRE_T_STAGE && !(shape & 32) && n >= sizeof(stage_req_t)) {
        /* a well-formed request, mostly for our own memory */
        stage_req_t q = {.kind = (uint16_t)(1 + fz_u8(in) % 2), .chan = (uint16_t)(fz_u8(in) % 3),
                         .raddr = (fz_u8(in) & 1) ? fz_u64(in)
                                                   : (uint64_t)(uintptr_t)my_mem + fz_u8(in),
                         .len = fz_u32(in) % STAGE_LEN_MAX};
        memcpy(payload, &q, sizeof q);
    } else {
        fz_take(in, payload, n);
    }
    ring_poke(base + SHM_PKT_HDR, payload, n);
    ring_poke(base + 4, &h.src, SHM_PKT_HDR - 4);
    uint32_t seq = (shape & 64) && !(shape & 128) ? fz_u32(in) : SHM_SEQ(pos);
    ring_poke(base, &seq, 4);
}

static void put_cell(fz_in_t *in)
{
    int src = (fz_u8(in) & 1) ? 2 : 0;
    wire_peer_t *p = &w->peers[src];
    uint8_t shape = fz_u8(in);
    uint32_t i = (shape & 1) ? fz_u8(in) : atomic_load(&p->fb_rx) + fz_u8(in) % 2;
    fb_cell_t *c = &p->fb_in[i % FBC];
    uint16_t len = (uint16_t)fz_u32(in);
    c->len = (shape & 2) ? len : len % (FB_PAYLOAD + 1);
    c->type = (shape & 4) ? fz_u8(in) : fz_u8(in) % 4;
    fz_take(in, c->data, fz_u8(in) % (FB_PAYLOAD + 1));
    atomic_store(&c->seq, (shape & 8) ? fz_u32(in) : FB_SEQ(p->rx_msgs + fz_u8(in) % 3));
}

static void our_send(fz_in_t *in)
{
    int dst = (fz_u8(in) & 1) ? 2 : 0; /* to ourselves would not touch the ring */
    size_t len = fz_u32(in) % 2000;
    static char buf[2000];
    struct iovec iov = {buf, len};
    if (fz_u8(in) & 1) wire_send_lazy(w, dst, (uint8_t)(fz_u8(in) % 4), &iov, 1);
    else wire_send(w, dst, (uint8_t)(fz_u8(in) % 4), &iov, 1);
}

/* The peer serves our staged ops / we serve its: flip its channel words. */
static void chan_poke(fz_in_t *in)
{
    int r = fz_u8(in) % NRANK;
    unsigned c = fz_u8(in) % CHANS, b = fz_u8(in) % 2;
    atomic_store(&segs[r].chans[c].state[b], fz_u8(in) % 3);
}

/* A peer's segment header as attach reads it (shm_check_peer_header): any
 * bytes, mostly with the identity fields right so the layout checks are
 * reached.  Whatever it accepts must place every region the wire uses
 * inside the mapping. */
static const char jobkey[BOOT_JOBKEY_LEN + 1] = "0123456789abcdef0123456789abcdef";

static void attach_header(fz_in_t *in)
{
    shm_hdr_t h;
    memset(&h, 0, sizeof h);
    uint8_t shape = fz_u8(in);
    size_t maplen = (size_t)fz_u32(in) % (1u << 24);
    int r = fz_u8(in) % NRANK;
    if (shape & 1) {
        fz_take(in, &h, sizeof h);
    } else {
        h.ring_off = fz_u8(in) & 1 ? fz_u64(in) : 4096 * (uint64_t)(fz_u8(in) % 4);
        h.fb_off = fz_u8(in) & 1 ? fz_u64(in) : h.ring_off + 4096 * (uint64_t)(fz_u8(in) % 4);
        h.stage_off = fz_u8(in) & 1 ? fz_u64(in) : h.fb_off + 4096 * (uint64_t)(fz_u8(in) % 4);
        h.heap_off = fz_u8(in) & 1 ? fz_u64(in) : h.stage_off + 4096 * (uint64_t)(fz_u8(in) % 4);
        h.heap_len = fz_u8(in) & 1 ? fz_u64(in) : 4096 * (uint64_t)(fz_u8(in) % 8);
        h.stage_chans = fz_u8(in) & 1 ? fz_u32(in) : CHANS;
        h.stage_chunk = fz_u8(in) & 1 ? fz_u32(in) : CHUNK;
        h.quota = fz_u8(in) & 1 ? fz_u32(in) : w->layout.quota;
        h.pkt_slots = fz_u8(in) & 1 ? fz_u32(in) : w->layout.pkt_slots;
        h.slots = SLOTS;
        h.credit_slots = 2;
        h.fb_cells = FBC;
        if (shape & 2) maplen = h.heap_off + h.heap_len;
    }
    if (!(shape & 4)) {
        h.magic = SHM_MAGIC;
        h.version = SHM_VERSION;
        h.rank = (uint32_t)r;
        h.job_size = NRANK;
        h.seg_len = maplen;
        memcpy(h.jobkey, jobkey, BOOT_JOBKEY_LEN);
    }
    if (shm_check_peer_header(w, jobkey, r, &h, maplen) != SL_OK) return;
    /* accepted: every region inside the mapping (in 128 bits: no wrap) */
    typedef unsigned __int128 u128;
    u128 ring_end = (u128)h.ring_off + (u128)SLOTS * SHM_SLOT;
    u128 fb_end = (u128)h.fb_off + (u128)NRANK * FBC * FB_CELL;
    u128 stage_end = (u128)h.stage_off + (u128)h.stage_chans * sizeof(shm_stage_chan_t) +
                     (u128)h.stage_chans * 2 * h.stage_chunk;
    u128 heap_end = (u128)h.heap_off + h.heap_len;
    if (h.ring_off < sizeof(shm_hdr_t) || ring_end > maplen || fb_end > maplen ||
        stage_end > maplen || heap_end > maplen || h.stage_chans != CHANS ||
        h.stage_chunk != CHUNK)
        abort();
}

/* The peer consumes what we sent it and returns credits its own way. */
static void peer_consumes(fz_in_t *in)
{
    int r = (fz_u8(in) & 1) ? 2 : 0;
    memset(segs[r].ring, 0, SLOTS * SHM_SLOT);
    memset(segs[r].cells, 0, NRANK * FBC * FB_CELL);
    (void)in;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    build();
    fz_in_t in = {data, size};
    if (FZ_GUARD()) {
        /* wire_die: the job would end here, with a message */
    } else {
        int steps = 0;
        while (in.n && steps++ < 300) {
            switch (fz_u8(&in) % 10) {
            case 0: { size_t at = fz_u32(&in); uint8_t b[64]; ring_poke(at, b, fz_take(&in, b, fz_u8(&in) % 64)); } break;
            case 1:
            case 2: put_packet(&in); break;
            case 3: put_cell(&in); break;
            case 4: our_send(&in); break;
            case 5: chan_poke(&in); break;
            case 6: atomic_store(&w->hdr->split_bell, fz_u8(&in) % 5); break;
            case 7: peer_consumes(&in); break;
            case 8: wire_flush(w, 0); break;
            case 9: attach_header(&in); break;
            }
            wire_progress(w);
        }
        FZ_DONE();
    }
    teardown();
    return 0;
}
