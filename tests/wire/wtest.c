#include "wtest.h"
#include "util/sys.h"

#include <stdlib.h>
#include <string.h>

static void wt_cb(void *arg, const wire_frag_t *f)
{
    wt_ctx_t *c = arg;
    int s = f->src;
    c->frags++;
    CHECK_MSG(s >= 0 && s < c->size, "fragment from rank %d", s);
    if (f->first) {
        CHECK_MSG(c->asm_len[s] == 0, "new message from %d before the last one ended", s);
    } else {
        CHECK_MSG(c->asm_len[s] > 0 || f->len == 0 || c->asm_cap[s] > 0,
                  "continuation from %d without a first fragment", s);
    }
    if (c->asm_len[s] + f->len > c->asm_cap[s]) {
        size_t cap = (c->asm_len[s] + f->len) * 2 + 64;
        c->asm_buf[s] = realloc(c->asm_buf[s], cap);
        CHECK(c->asm_buf[s] != NULL);
        c->asm_cap[s] = cap;
    }
    if (f->len) memcpy(c->asm_buf[s] + c->asm_len[s], f->data, f->len);
    c->asm_len[s] += f->len;
    if (!f->last) return;
    wt_msg_t *m = malloc(sizeof *m + c->asm_len[s]);
    CHECK(m != NULL);
    m->next = NULL;
    m->src = s;
    m->type = f->type;
    m->len = c->asm_len[s];
    if (m->len) memcpy(m->data, c->asm_buf[s], m->len);
    c->asm_len[s] = 0;
    if (c->tail) c->tail->next = m;
    else c->head = m;
    c->tail = m;
}

sl_status_t wt_init(wt_ctx_t *c)
{
    wt_boot(c);
    return wt_wire(c);
}

void wt_boot(wt_ctx_t *c)
{
    memset(c, 0, sizeof *c);
    CHECK_OK(boot_init(&c->boot));
    const boot_info_t *bi = boot_get_info(c->boot);
    c->rank = bi->rank;
    c->size = bi->size;
    c->asm_buf = calloc((size_t)c->size, sizeof *c->asm_buf);
    c->asm_len = calloc((size_t)c->size, sizeof *c->asm_len);
    c->asm_cap = calloc((size_t)c->size, sizeof *c->asm_cap);
    CHECK(c->asm_buf && c->asm_len && c->asm_cap);
}

sl_status_t wt_wire(wt_ctx_t *c)
{
    return wire_init(c->boot, wt_cb, c, &c->wire);
}

void wt_fini(wt_ctx_t *c)
{
    if (c->wire) CHECK_EQ(wire_parked(c->wire), 0); /* tests flush before their fence */
    if (c->wire) CHECK_OK(wire_fini(c->wire));
    CHECK_OK(boot_fini(c->boot));
    for (int i = 0; i < c->size; i++) free(c->asm_buf[i]);
    free(c->asm_buf);
    free(c->asm_len);
    free(c->asm_cap);
    while (c->head) {
        wt_msg_t *m = c->head;
        c->head = m->next;
        free(m);
    }
}

static wt_msg_t *wt_take(wt_ctx_t *c, int src, int type)
{
    wt_msg_t **pp = &c->head, *prev = NULL;
    for (; *pp; prev = *pp, pp = &(*pp)->next) {
        wt_msg_t *m = *pp;
        if ((src < 0 || m->src == src) && (type < 0 || m->type == type)) {
            *pp = m->next;
            if (c->tail == m) c->tail = prev;
            m->next = NULL;
            return m;
        }
    }
    return NULL;
}

static wt_msg_t *wt_wait_for(wt_ctx_t *c, int src, int type)
{
    for (;;) {
        wt_msg_t *m = wt_take(c, src, type);
        if (m) return m;
        if (wire_progress(c->wire) > 0) continue;
        sl_status_t st = wire_wait(c->wire, -1);
        CHECK_MSG(st == SL_OK, "wire_wait: %s", sl_status_name(st));
    }
}

wt_msg_t *wt_poll(wt_ctx_t *c)
{
    wt_msg_t *m = wt_take(c, -1, -1);
    if (m) return m;
    wire_progress(c->wire);
    return wt_take(c, -1, -1);
}

wt_msg_t *wt_recv(wt_ctx_t *c)
{
    return wt_wait_for(c, -1, -1);
}

wt_msg_t *wt_recv_from(wt_ctx_t *c, int src, uint8_t type)
{
    return wt_wait_for(c, src, type);
}

void wt_send(wt_ctx_t *c, int dst, uint8_t type, const void *buf, size_t len)
{
    CHECK_OK(wire_send_buf(c->wire, dst, type, buf, len));
}

void wt_fence(wt_ctx_t *c)
{
    CHECK_OK(wire_flush(c->wire, -1));
    CHECK_OK(boot_fence(c->boot));
}

void wt_compute_ms(uint64_t ms)
{
    uint64_t t0 = sl_now_ns();
    volatile uint64_t x = 0;
    while (sl_now_ns() - t0 < ms * 1000000ull) x += 1;
}
