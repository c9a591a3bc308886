/* A Portals 4 program in the style of the reference implementation's tests:
 * it calls PMI-1 itself (PMI_Init, KVS exchange of physical ids, barriers)
 * around PtlInit, and is linked with -lportals and -lpmi.  The engine's own
 * bootstrap goes through the same PMI_* functions, so the process keeps a
 * single launcher connection; two clients on one PMI_FD would break the
 * barrier protocol and hang or fail here. */
#include <pmi.h>
#include <portals4.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL_IF(cond, ...)                                                                 \
    do {                                                                                   \
        if (cond) {                                                                        \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                          \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

int main(void)
{
    int spawned, rank, size;
    FAIL_IF(PMI_Init(&spawned) != PMI_SUCCESS, "PMI_Init");
    FAIL_IF(PMI_Get_rank(&rank) || PMI_Get_size(&size), "rank/size");
    FAIL_IF(size < 2, "needs 2 ranks");
    FAIL_IF(PtlInit() != PTL_OK, "PtlInit");
    ptl_handle_ni_t ni;
    FAIL_IF(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL,
                      &ni) != PTL_OK, "PtlNIInit");
    ptl_process_t me, peer;
    FAIL_IF(PtlGetPhysId(ni, &me) != PTL_OK, "PtlGetPhysId");
    char kvs[256], key[64], val[64];
    FAIL_IF(PMI_KVS_Get_my_name(kvs, sizeof kvs) != PMI_SUCCESS, "kvs name");
    snprintf(key, sizeof key, "id-%d", rank);
    snprintf(val, sizeof val, "%u:%u", me.phys.nid, me.phys.pid);
    FAIL_IF(PMI_KVS_Put(kvs, key, val) || PMI_KVS_Commit(kvs) || PMI_Barrier(), "publish id");
    int right = (rank + 1) % size;
    snprintf(key, sizeof key, "id-%d", right);
    FAIL_IF(PMI_KVS_Get(kvs, key, val, sizeof val) != PMI_SUCCESS, "get peer id");
    FAIL_IF(sscanf(val, "%u:%u", &peer.phys.nid, &peer.phys.pid) != 2, "parse id");

    uint64_t in = 0, out = 0xC0DE0000u + (unsigned)rank;
    ptl_handle_ct_t ct;
    ptl_pt_index_t pt;
    ptl_handle_me_t meh;
    ptl_handle_md_t md;
    FAIL_IF(PtlCTAlloc(ni, &ct) || PtlPTAlloc(ni, 0, PTL_EQ_NONE, 2, &pt), "CT/PT");
    ptl_me_t e = {.start = &in, .length = 8, .ct_handle = ct, .uid = PTL_UID_ANY,
                  .options = PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM,
                  .match_id = {.phys = {.nid = PTL_NID_ANY, .pid = PTL_PID_ANY}}};
    FAIL_IF(PtlMEAppend(ni, pt, &e, PTL_PRIORITY_LIST, NULL, &meh) != PTL_OK, "append");
    ptl_md_t d = {.start = &out, .length = 8, .eq_handle = PTL_EQ_NONE, .ct_handle = PTL_CT_NONE};
    FAIL_IF(PtlMDBind(ni, &d, &md) != PTL_OK, "bind");
    FAIL_IF(PMI_Barrier() != PMI_SUCCESS, "barrier after setup");
    FAIL_IF(PtlPut(md, 0, 8, PTL_NO_ACK_REQ, peer, pt, 0, 0, NULL, 0) != PTL_OK, "put");
    ptl_ct_event_t v;
    FAIL_IF(PtlCTWait(ct, 1, &v) != PTL_OK || v.failure, "wait");
    int left = (rank + size - 1) % size;
    FAIL_IF(in != 0xC0DE0000u + (unsigned)left, "got %llx", (unsigned long long)in);
    FAIL_IF(PMI_Barrier() != PMI_SUCCESS, "final barrier");
    FAIL_IF(PtlNIFini(ni) != PTL_OK, "NIFini");
    PtlFini();
    FAIL_IF(PMI_Finalize() != PMI_SUCCESS, "PMI_Finalize");
    if (rank == 0) printf("pmi_shared_test: one PMI client shared by the program and Portals: ok\n");
    return 0;
}
