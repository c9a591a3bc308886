/* Fastboxes: a short message goes into a cell of its receiver instead of
 * the mailbox ring.
 *
 * The ring is shared by every sender of a rank: a packet costs an atomic
 * add on the ring's tail, credits (a lock, piggybacked returns) and, for a
 * Portals request, often two 64-byte slots.  A cell belongs to one sender:
 * its header, payload and full/free word share the cell's lines, so a short
 * message moves as one cache line (paper 001's credits are not needed: the
 * sender sees a cell is free in the cell itself).  Each rank's segment has
 * SLUICE_FASTBOX cells per sender, used round robin.
 *
 * Order.  Messages from one sender must reach the layer above in the order
 * they were sent, whichever way each went (a Portals receive matches the
 * first message that fits).  Every user message to a peer gets the next
 * number of that pair, under the peer's lock, whether it goes into a cell
 * or the ring; the ring carries the low 16 bits in its packet header.  The
 * receiver delivers only the message it expects next: a cell whose number
 * is ahead waits (an older message is in the ring), and a ring packet that
 * is ahead first delivers the older cells (fb_catch_up).  A sender uses a
 * cell only when it has nothing parked for credits, so every older message
 * is already in the ring or a cell, at most a ring's worth plus the cells
 * ahead, far inside 16 bits.  One drainer at a time (wire_progress) keeps
 * the receive side single-threaded.
 *
 * Only lazy messages take cells (wire_send_lazy: Portals puts from MDs with
 * PTL_MD_SLUICE_LAZY, which is every MPI message and notice).  With every
 * short message in cells, gets, replies and acks too, windowed 1 MiB MPI
 * bandwidth fell by 15% (12.3-13.7 GB/s against 15.1-15.7 with cells off,
 * three alternated runs; with lazy ones only 14.8-16.6), for a reason not
 * found; the latency gain comes from the lazy eager puts anyway. */
#include "wire/wire_int.h"

#include <string.h>

void fb_bind(wire_t *w)
{
    if (!w->fb_cells) return;
    fb_cell_t *own = (fb_cell_t *)((char *)w->hdr + w->hdr->fb_off);
    for (int r = 0; r < w->size; r++) {
        wire_peer_t *p = &w->peers[r];
        if (r == w->rank || p->tp != &wire_tp_shm) continue; /* fb_out NULL: no cells */
        p->fb_in = own + (size_t)r * w->fb_cells;
        p->fb_out = (fb_cell_t *)((char *)p->hdr + p->hdr->fb_off) + (size_t)w->rank * w->fb_cells;
    }
}

bool fb_try_send(wire_t *w, int dst, uint8_t type, const struct iovec *iov, int iovcnt,
                 size_t len, bool lazy)
{
    wire_peer_t *p = &w->peers[dst];
    if (!lazy || !p->fb_out || len > FB_PAYLOAD || type > WIRE_TYPE_USER_MAX ||
        !sl_list_empty(&p->pending))
        return false;
    fb_cell_t *c = &p->fb_out[p->fb_tx % w->fb_cells];
    if (atomic_load_explicit(&c->seq, memory_order_acquire) != 0) return false; /* not yet taken */
    iov_gather(c->data, iov, iovcnt, 0, len);
    c->len = (uint16_t)len;
    c->type = type;
    /* publishes the cell (release) and is the full fence the sleeper check needs */
    atomic_exchange_explicit(&c->seq, FB_SEQ(p->tx_msgs), memory_order_seq_cst);
    p->tx_msgs++;
    p->fb_tx++;
    WIRE_STAT_OWN(&p->tx, fb_pkts_tx, 1);
    WIRE_STAT_OWN(&p->tx, bytes_tx, len);
    shm_wake_after_fence(w, p->hdr, lazy);
    return true;
}

/* Deliver src's next cell if it holds the message we expect next. */
static bool fb_take(wire_t *w, int src)
{
    wire_peer_t *p = &w->peers[src];
    uint32_t i = atomic_load_explicit(&p->fb_rx, memory_order_relaxed); /* ours */
    fb_cell_t *c = &p->fb_in[i % w->fb_cells];
    if (atomic_load_explicit(&c->seq, memory_order_acquire) != FB_SEQ(p->rx_msgs)) return false;
    size_t len = c->len;
    uint8_t type = c->type; /* read once: the peer may write the cell meanwhile */
    if (len > FB_PAYLOAD || type > WIRE_TYPE_USER_MAX)
        wire_die(w, 70, "wire: corrupt fastbox cell from rank %d (len %zu, type %u)", src, len,
                 type);
    atomic_store_explicit(&p->fb_rx, i + 1, memory_order_relaxed);
    p->rx_msgs++;
    WIRE_STAT_OWN(&w->stats, fb_pkts_rx, 1);
    WIRE_STAT_OWN(&w->stats, bytes_rx, len);
    /* delivered from the cell (the layer above copies what it keeps), then freed */
    wire_deliver(w, src, type, PF_FIRST | PF_LAST, c->data, len);
    atomic_store_explicit(&c->seq, 0, memory_order_release);
    return true;
}

void fb_catch_up(wire_t *w, int src, uint16_t msg)
{
    wire_peer_t *p = &w->peers[src];
    while ((uint16_t)p->rx_msgs != msg) {
        if (!w->fb_cells || !fb_take(w, src))
            wire_die(w, 70,
                     "wire: message %u from rank %d arrived before message %u, which is in no "
                     "fastbox cell",
                     (unsigned)msg, src, (unsigned)(uint16_t)p->rx_msgs);
    }
}

int fb_drain(wire_t *w, int budget)
{
    int n = 0;
    for (int r = 0; r < w->size && n < budget && !wire_drain_stopped(w); r++) {
        if (!w->peers[r].fb_in) continue; /* ourselves, or a peer on another host */
        while (n < budget && !wire_drain_stopped(w) && fb_take(w, r)) n++;
    }
    return n;
}

bool fb_ready(wire_t *w)
{
    for (int r = 0; r < w->size; r++) {
        const wire_peer_t *p = &w->peers[r];
        if (!p->fb_in) continue;
        uint32_t i = atomic_load_explicit(&p->fb_rx, memory_order_relaxed);
        if (atomic_load_explicit(&p->fb_in[i % w->fb_cells].seq, memory_order_relaxed))
            return true;
    }
    return false;
}
