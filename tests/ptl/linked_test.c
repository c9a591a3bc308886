/* A Portals 4 program that knows nothing of Sluice: only <portals4.h>, linked
 * with -lportals (the shared library).  One rank puts to itself through a
 * physical NI and reads the data back with a get. */
#include <portals4.h>

#include <stdio.h>
#include <string.h>

#define CHECK_RC(call)                                                                     \
    do {                                                                                   \
        int rc_ = (call);                                                                  \
        if (rc_ != PTL_OK) {                                                               \
            fprintf(stderr, "FAIL %s:%d: %s returned %d\n", __FILE__, __LINE__, #call, rc_); \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

int main(void)
{
    char src[64], dst[64] = {0}, back[64] = {0};
    for (int i = 0; i < 64; i++) src[i] = (char)(i * 3 + 1);
    ptl_handle_ni_t ni;
    ptl_process_t me;
    ptl_pt_index_t pt;
    ptl_handle_ct_t ct;
    ptl_handle_me_t meh;
    ptl_handle_md_t md, gmd;
    if (PtlPTAlloc(0, 0, PTL_EQ_NONE, PTL_PT_ANY, &pt) != PTL_NO_INIT) return 1;
    CHECK_RC(PtlInit());
    CHECK_RC(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL,
                       NULL, &ni));
    CHECK_RC(PtlGetPhysId(ni, &me));
    CHECK_RC(PtlCTAlloc(ni, &ct));
    CHECK_RC(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &pt));
    ptl_me_t e = {.start = dst, .length = sizeof dst, .ct_handle = ct, .uid = PTL_UID_ANY,
                  .options = PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_CT_COMM,
                  .match_id = {.phys = {.nid = PTL_NID_ANY, .pid = PTL_PID_ANY}}};
    CHECK_RC(PtlMEAppend(ni, pt, &e, PTL_PRIORITY_LIST, NULL, &meh));
    ptl_md_t d = {.start = src, .length = sizeof src, .eq_handle = PTL_EQ_NONE,
                  .ct_handle = PTL_CT_NONE};
    CHECK_RC(PtlMDBind(ni, &d, &md));
    ptl_md_t g = {.start = back, .length = sizeof back, .eq_handle = PTL_EQ_NONE,
                  .ct_handle = ct, .options = PTL_MD_EVENT_CT_REPLY};
    CHECK_RC(PtlMDBind(ni, &g, &gmd));
    CHECK_RC(PtlPut(md, 0, sizeof src, PTL_NO_ACK_REQ, me, pt, 0, 0, NULL, 0));
    ptl_ct_event_t v;
    CHECK_RC(PtlCTWait(ct, 1, &v));
    CHECK_RC(PtlGet(gmd, 0, sizeof back, me, pt, 0, 0, NULL));
    CHECK_RC(PtlCTWait(ct, 3, &v)); /* the get at the ME and its reply */
    if (v.failure || memcmp(dst, src, sizeof src) || memcmp(back, src, sizeof src)) {
        fprintf(stderr, "FAIL: data or counts wrong (success %llu failure %llu)\n",
                (unsigned long long)v.success, (unsigned long long)v.failure);
        return 1;
    }
    CHECK_RC(PtlNIFini(ni));
    PtlFini();
    printf("linked_test: put and get through libportals.so: ok\n");
    return 0;
}
