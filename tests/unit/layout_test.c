/* Mailbox partitioning (paper 001 §5.2) and the Eq. 2 check. */
#include "test.h"
#include "util/status.h"
#include "wire/credit.h"

#include <string.h>

int main(void)
{
    fc_layout_t l;
    char why[256];
    /* 7 senders, 2 credit slots: credit region 14, data region 100 - 14 = 86. */
    CHECK_OK(fc_layout_make(100, 7, 2, &l, why, sizeof why));
    CHECK_EQ(l.credit_region, 14);
    CHECK_EQ(l.data_slots, 86);
    CHECK_EQ(l.quota, 12); /* 86 div 7, lower rounding */
    CHECK_EQ(l.threshold, 5); /* 12 div 3 + 1 */
    CHECK(l.quota * 7 <= l.data_slots);

    /* Smallest valid: data region == credit region == 14. */
    CHECK_EQ(fc_min_slots(7, 2), 28);
    CHECK_OK(fc_layout_make(28, 7, 2, &l, why, sizeof why));
    CHECK_EQ(l.quota, 2);
    CHECK_EQ(fc_layout_make(27, 7, 2, &l, why, sizeof why), SL_ERR_CONFIG);
    CHECK(strstr(why, "Eq. 2") != NULL);
    CHECK(strstr(why, "28") != NULL); /* tells the smallest valid size */
    CHECK_EQ(fc_layout_make(10, 7, 2, &l, why, sizeof why), SL_ERR_CONFIG);
    CHECK_EQ(fc_layout_make(14, 7, 2, &l, why, sizeof why), SL_ERR_CONFIG);
    CHECK_EQ(fc_layout_make(100, 7, 0, &l, why, sizeof why), SL_ERR_CONFIG);
    /* One credit slot: credit region == 1 slot per process. */
    CHECK_EQ(fc_min_slots(3, 1), 6);
    CHECK_OK(fc_layout_make(6, 3, 1, &l, why, sizeof why));
    CHECK_EQ(l.quota, 1);
    CHECK_EQ(l.threshold, 1);
    t_done("layout_test");
    return 0;
}
