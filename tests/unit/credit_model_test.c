/* Paper 001 Table 1 and the safety argument behind Eq. 1, checked on the
 * wire's own flow-control code (wire/credit.c).
 *
 * The model: one sender with quota q data credits, one receiver, and a
 * credit region of cs slots in the sender's mailbox.  The adversarial
 * schedule is the one the paper uses: the sender sends while it has credits
 * and reads its mailbox (credit packets) only when it is stalled; the
 * receiver retrieves everything that arrives and returns a credit packet
 * whenever its retrieved count reaches the threshold.  We detect
 *  - overflow: more unread credit packets at the sender than cs;
 *  - deadlock: the sender has no credits, its mailbox holds no credit
 *    packet, and the receiver has retrieved all data without reaching the
 *    threshold, so nothing can ever move again. */
#include "test.h"
#include "util/status.h"
#include "wire/credit.h"

#include <stdio.h>
#include <string.h>

typedef uint32_t (*threshold_fn)(uint32_t quota, uint32_t cs);

static uint32_t formula_a(uint32_t q, uint32_t cs)
{
    return q / cs + 1;
}

static uint32_t formula_b(uint32_t q, uint32_t cs)
{
    return q / cs;
}

static uint32_t eq1(uint32_t q, uint32_t cs)
{
    return fc_threshold(q, cs);
}

enum outcome { OK_RUN, DEADLOCK, OVERFLOW };

/* Send `packets` data packets through the model: threshold-1 packets of one
 * slot, then one of `k` slots, repeated (one-slot packets strand credits
 * below the threshold, the worst case for the large one); `burst` is how
 * many packets the receiver retrieves before the sender runs again. */
static enum outcome fc_model_k(uint32_t q, uint32_t cs, threshold_fn thr, uint32_t packets,
                               uint32_t burst, uint32_t k)
{
    uint32_t t = thr(q, cs);
    if (t == 0) return OVERFLOW; /* a zero threshold returns credits for nothing */
    _Atomic uint32_t pending = 0;
    uint32_t credits = q, sent = 0, delivered = 0;
    uint32_t flight[4096], f_head = 0, f_len = 0; /* slots of packets in flight */
    uint32_t credit_pkts_unread = 0, credits_in_pkts[64], head = 0;
    while (delivered < packets) {
        /* sender: send while credits remain */
        for (;;) {
            uint32_t size = (sent % t == t - 1) ? k : 1;
            if (sent >= packets || credits < size || f_len == 4096) break;
            credits -= size;
            flight[(f_head + f_len++) % 4096] = size;
            sent++;
        }
        /* receiver: retrieve up to burst packets */
        uint32_t moved = 0;
        for (uint32_t i = 0; i < burst && f_len > 0; i++) {
            uint32_t size = flight[f_head++ % 4096];
            f_len--;
            delivered++;
            moved++;
            uint32_t c = fc_rx_retrieved(&pending, size, t);
            if (c) {
                if (credit_pkts_unread >= cs) return OVERFLOW;
                credits_in_pkts[(head + credit_pkts_unread) % 64] = c;
                credit_pkts_unread++;
            }
        }
        /* sender reads its credit packets only once stalled */
        uint32_t next = (sent % t == t - 1) ? k : 1;
        if (credits < next && credit_pkts_unread > 0) {
            credits += credits_in_pkts[head % 64];
            head++;
            credit_pkts_unread--;
            moved++;
        }
        if (moved == 0 && credits < next && delivered < packets) return DEADLOCK;
    }
    return OK_RUN;
}

static enum outcome fc_model(uint32_t q, uint32_t cs, threshold_fn thr, uint32_t packets,
                             uint32_t burst)
{
    return fc_model_k(q, cs, thr, packets, burst, 1);
}

static const char *outcome_name(enum outcome o)
{
    return o == OK_RUN ? "ok" : o == DEADLOCK ? "DEADLOCK" : "OVERFLOW";
}

/* The rows of paper 001 Table 1: quota, credit slots, Eq. 1, (a), (b). */
static const uint32_t table1[][5] = {
    {100, 1, 51, 101, 100}, {100, 2, 34, 51, 50}, {100, 3, 26, 34, 33}, {100, 4, 21, 26, 25},
    {100, 5, 17, 21, 20},   {60, 2, 21, 31, 30},  {40, 2, 14, 21, 20},  {20, 2, 7, 11, 10},
    {10, 2, 4, 6, 5},       {3, 2, 2, 2, 1},
};

int main(void)
{
    printf("%8s %6s | %5s %5s %5s | model: %-8s %-8s %-8s\n", "quota", "cslots", "Eq1", "(a)",
           "(b)", "Eq1", "(a)", "(b)");
    for (size_t i = 0; i < sizeof table1 / sizeof table1[0]; i++) {
        uint32_t q = table1[i][0], cs = table1[i][1];
        CHECK_EQ(eq1(q, cs), table1[i][2]);
        CHECK_EQ(formula_a(q, cs), table1[i][3]);
        CHECK_EQ(formula_b(q, cs), table1[i][4]);
        enum outcome o1 = fc_model(q, cs, eq1, 10 * q, q);
        enum outcome oa = fc_model(q, cs, formula_a, 10 * q, q);
        enum outcome ob = fc_model(q, cs, formula_b, 10 * q, q);
        printf("%8u %6u | %5u %5u %5u |        %-8s %-8s %-8s\n", q, cs, eq1(q, cs),
               formula_a(q, cs), formula_b(q, cs), outcome_name(o1), outcome_name(oa),
               outcome_name(ob));
        CHECK_MSG(o1 == OK_RUN, "Eq. 1 failed at (%u, %u): %s", q, cs, outcome_name(o1));
    }
    /* The two failures the paper describes. */
    CHECK_EQ(fc_model(100, 1, formula_a, 1000, 100), DEADLOCK);
    CHECK_EQ(fc_model(3, 2, formula_b, 30, 3), OVERFLOW);

    /* Eq. 1 is safe everywhere, for every retrieval burst length. */
    for (uint32_t q = 1; q <= 200; q++)
        for (uint32_t cs = 1; cs <= 6; cs++)
            for (uint32_t burst = 1; burst <= q + 1; burst += (burst < 8 ? 1 : 7)) {
                enum outcome o = fc_model(q, cs, eq1, 4 * q + 3, burst);
                CHECK_MSG(o == OK_RUN, "Eq. 1 %s at quota %u, credit slots %u, burst %u",
                          outcome_name(o), q, cs, burst);
            }

    /* Multi-slot packets: up to fc_max_pkt_slots (Eq. 3) never deadlock or
     * overflow; one slot more can deadlock (the bound is tight). */
    uint32_t tight = 0;
    for (uint32_t q = 1; q <= 120; q++)
        for (uint32_t cs = 1; cs <= 4; cs++) {
            uint32_t t = fc_threshold(q, cs), kmax = fc_max_pkt_slots(q, t);
            CHECK(kmax >= 1 && kmax <= q);
            for (uint32_t k = 1; k <= kmax; k++)
                for (uint32_t burst = 1; burst <= 4; burst++) {
                    enum outcome o = fc_model_k(q, cs, eq1, 6 * q / k + 3, burst, k);
                    CHECK_MSG(o == OK_RUN, "%s: quota %u, cs %u, %u-slot packets, burst %u",
                              outcome_name(o), q, cs, k, burst);
                }
            if (kmax < q) {
                CHECK_MSG(fc_model_k(q, cs, eq1, 6 * q + 3, 1, kmax + 1) == DEADLOCK,
                          "quota %u, cs %u: %u-slot packets did not deadlock", q, cs, kmax + 1);
                tight++;
            }
        }
    printf("packets of quota - (threshold - 1) slots are safe; one slot more deadlocked in "
           "%u configurations\n", tight);
    CHECK(tight > 0);
    CHECK_EQ(fc_model_k(6, 2, eq1, 100, 1, 5), DEADLOCK); /* the flood test's hang */
    CHECK_EQ(fc_model_k(6, 2, eq1, 100, 1, 4), OK_RUN);

    /* Piggybacking only lowers the pending count: an explicit credit packet
     * still carries at least the threshold. */
    _Atomic uint32_t pending = 0;
    CHECK_EQ(fc_rx_retrieved(&pending, 3, 5), 0);
    CHECK_EQ(fc_rx_take_piggy(&pending, 2), 2);
    CHECK_EQ(fc_rx_retrieved(&pending, 3, 5), 0); /* 1 + 3 = 4 < 5 */
    CHECK_EQ(fc_rx_retrieved(&pending, 2, 5), 6); /* 6 >= 5: all six go back */
    CHECK_EQ(atomic_load(&pending), 0);
    CHECK_EQ(fc_rx_take_piggy(&pending, 100), 0);

    t_done("credit_model_test");
    return 0;
}
