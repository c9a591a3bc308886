/* Helpers for multi-rank wire tests: bring up boot + wire with an inbox that
 * reassembles fragments into whole messages, and wait for messages the way a
 * real client does (progress, then wire_wait: no busy loop). */
#ifndef SL_WTEST_H
#define SL_WTEST_H

#include "boot/boot.h"
#include "test.h"
#include "wire/wire.h"

typedef struct wt_msg {
    struct wt_msg *next;
    int src;
    uint8_t type;
    size_t len;
    char data[];
} wt_msg_t;

typedef struct wt_ctx {
    boot_t *boot;
    wire_t *wire;
    int rank, size;
    wt_msg_t *head, *tail;  /* complete messages, arrival order */
    char **asm_buf;         /* per-source reassembly */
    size_t *asm_len, *asm_cap;
    uint64_t frags;
} wt_ctx_t;

/* boot_init + wire_init; the status of wire_init is returned (boot must work). */
sl_status_t wt_init(wt_ctx_t *c);
/* The two halves of wt_init, for tests that act between them. */
void wt_boot(wt_ctx_t *c);
sl_status_t wt_wire(wt_ctx_t *c);
void wt_fini(wt_ctx_t *c);
/* Next complete message (from any source), waiting as long as needed. */
wt_msg_t *wt_recv(wt_ctx_t *c);
/* A message that has arrived, after one pass of progress; NULL if none. */
wt_msg_t *wt_poll(wt_ctx_t *c);
/* Next message of the given type from src; others stay queued. */
wt_msg_t *wt_recv_from(wt_ctx_t *c, int src, uint8_t type);
/* Busy for ms milliseconds without touching the wire: computing, not
 * sleeping, so this rank keeps its core while a peer waits. */
void wt_compute_ms(uint64_t ms);
/* End a phase: send everything parked (wire_flush), then boot_fence. */
void wt_fence(wt_ctx_t *c);
void wt_send(wt_ctx_t *c, int dst, uint8_t type, const void *buf, size_t len);

#endif
