/* Credit flow control as the ring sees it: what the drainer does with each
 * packet it took (return credits, answer or account a compulsory return),
 * for the static scheme (credit.c, paper 001 §5) and the dynamic one
 * (dynfc.c, §6).  The sender side (credits, parking) is in wire.c. */
#include "util/log.h"
#include "wire/wire_int.h"

#include <stdlib.h>

static void send_credit(wire_t *w, int peer, uint32_t c)
{
    struct iovec iov = {&c, sizeof c};
    w->peers[peer].tp->put_pkt(w, peer, WIRE_T_CREDIT, PF_FIRST | PF_LAST, 0, false, &iov, 1, 0, sizeof c);
    WIRE_STAT_OWN(&w->stats, credit_pkts_tx, 1);
    WIRE_STAT_OWN(&w->stats, credits_returned, c);
}

/* dynfc output: credits granted at a crossing are owed until this drain
 * ends (a data packet to that peer may piggyback them meanwhile), then
 * they go in one credit packet: never more packets than crossings, so the
 * credit region's bound holds (docs/WIRE.md). */
static void on_grant(void *arg, int s, uint32_t c)
{
    wire_t *w = arg;
    atomic_fetch_add_explicit(&w->peers[s].rx_pending, c, memory_order_acq_rel);
    if (!w->owed_mark[s]) {
        w->owed_mark[s] = true;
        w->owed[w->n_owed++] = s;
    }
}

static void on_request(void *arg, int victim)
{
    wire_t *w = arg;
    WIRE_STAT_INC(w, fc_requests_tx, 1);
    wire_send_control(w, victim, WIRE_T_CREQ, 0);
}

sl_status_t fc_wire_init(wire_t *w)
{
    if (!w->layout.dynamic) return SL_OK;
    w->owed = calloc((size_t)w->size, sizeof *w->owed);
    w->owed_mark = calloc((size_t)w->size, sizeof *w->owed_mark);
    dfc_ops_t ops = {on_grant, on_request, w};
    if (!w->owed || !w->owed_mark ||
        dfc_init(&w->dfc, w->size, w->rank, w->layout.credit_slots, w->layout.data_slots, &ops))
        return SL_ERR_NOMEM;
    return SL_OK;
}

void fc_wire_fini(wire_t *w)
{
    if (!w->layout.dynamic) return;
    if (w->dfc.s) {
        const dfc_stats_t *st = &w->dfc.stats;
        sl_log_debug("wire: dynamic flow control: %llu crossings, %llu monitoring points, %llu "
                     "steals (%llu slots), %llu requests, %llu responses (%llu credits back), "
                     "%llu deferrals, %llu shifts",
                     (unsigned long long)st->crossings, (unsigned long long)st->monitor_points,
                     (unsigned long long)st->steals, (unsigned long long)st->stolen,
                     (unsigned long long)st->requests, (unsigned long long)st->responses,
                     (unsigned long long)st->returned_by_resp, (unsigned long long)st->deferrals,
                     (unsigned long long)st->shifts);
    }
    dfc_fini(&w->dfc);
    free(w->owed);
    free(w->owed_mark);
    w->owed = NULL;
    w->owed_mark = NULL;
}

void fc_wire_flush_owed(wire_t *w)
{
    for (int i = 0; i < w->n_owed; i++) {
        int s = w->owed[i];
        w->owed_mark[s] = false;
        uint32_t c = fc_rx_take_piggy(&w->peers[s].rx_pending, UINT32_MAX);
        if (c && !atomic_load_explicit(&w->peers[s].dead, memory_order_relaxed))
            send_credit(w, s, c);
    }
    w->n_owed = 0;
}

/* We are the sender: the receiver src asks for the credits we hold beyond
 * our static slots (§6.5.4); the response itself costs one more. */
static void answer_request(wire_t *w, int src)
{
    wire_peer_t *p = &w->peers[src];
    pthread_mutex_lock(&p->lock);
    uint32_t x = dfc_excess(p->credits, w->layout.credit_slots);
    p->credits -= x;
    pthread_mutex_unlock(&p->lock);
    WIRE_STAT_INC(w, fc_responses_tx, 1);
    WIRE_STAT_INC(w, fc_credits_given_back, x);
    wire_send_control(w, src, WIRE_T_CRESP, x);
}

static void dynamic_retrieved(wire_t *w, int src, uint8_t type, uint32_t k, uint32_t x)
{
    bool resp = type == WIRE_T_CRESP;
    uint64_t steals = w->dfc.stats.steals;
    if (dfc_retrieved(&w->dfc, src, k, resp, x) != 0)
        wire_die(w, 70,
                 "wire: rank %d used more mailbox credits than it was given (%u slots, %u "
                 "returned)", src, k, x);
    if (w->dfc.stats.steals != steals)
        WIRE_STAT_OWN(&w->stats, fc_steals, w->dfc.stats.steals - steals);
    if (w->check) {
        char why[256];
        if (dfc_check(&w->dfc, why, sizeof why))
            wire_die(w, 72, "wire: dynamic flow control broken after a packet of rank %d: %s",
                     src, why);
    }
    if (type == WIRE_T_CREQ) answer_request(w, src);
}

void fc_wire_retrieved(wire_t *w, int src, uint8_t type, uint32_t k, uint32_t value)
{
    if (type == WIRE_T_CREDIT) return; /* credit packets consume no credits */
    if (w->layout.dynamic) {
        dynamic_retrieved(w, src, type, k, value);
        return;
    }
    uint32_t c = fc_rx_retrieved(&w->peers[src].rx_pending, k, w->layout.threshold);
    if (c) send_credit(w, src, c);
}
