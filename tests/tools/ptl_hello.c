/* A user program built by the tools tests with mpicc (not by CMake): it uses
 * only the installed headers portals4.h and pmi.h.  Every rank puts a word
 * into its right neighbour's buffer and prints what it got from its left one:
 *   ptl_hello: rank R of N got 0x5100000L from rank L
 * Exit status 0 only if every step worked. */
#include <pmi.h>
#include <portals4.h>

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, what)                                                                  \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "ptl_hello: %s failed\n", what);                              \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

int main(void)
{
    int spawned, rank, size;
    CHECK(PMI_Init(&spawned) == PMI_SUCCESS, "PMI_Init");
    CHECK(PMI_Get_rank(&rank) == PMI_SUCCESS && PMI_Get_size(&size) == PMI_SUCCESS, "rank/size");
    CHECK(PtlInit() == PTL_OK, "PtlInit");
    ptl_handle_ni_t ni;
    CHECK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL,
                    &ni) == PTL_OK, "PtlNIInit");
    ptl_process_t me, peer;
    CHECK(PtlGetPhysId(ni, &me) == PTL_OK, "PtlGetPhysId");
    char kvs[256], key[64], val[64];
    CHECK(PMI_KVS_Get_my_name(kvs, sizeof kvs) == PMI_SUCCESS, "PMI_KVS_Get_my_name");
    snprintf(key, sizeof key, "hello-%d", rank);
    snprintf(val, sizeof val, "%u:%u", me.phys.nid, me.phys.pid);
    CHECK(PMI_KVS_Put(kvs, key, val) == PMI_SUCCESS && PMI_KVS_Commit(kvs) == PMI_SUCCESS &&
          PMI_Barrier() == PMI_SUCCESS, "publishing the id");
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    snprintf(key, sizeof key, "hello-%d", right);
    CHECK(PMI_KVS_Get(kvs, key, val, sizeof val) == PMI_SUCCESS, "PMI_KVS_Get");
    CHECK(sscanf(val, "%u:%u", &peer.phys.nid, &peer.phys.pid) == 2, "parsing the id");

    uint64_t in = 0, out = 0x5100000u + (unsigned)rank;
    ptl_handle_ct_t ct;
    ptl_pt_index_t pt;
    ptl_handle_me_t meh;
    ptl_handle_md_t md;
    CHECK(PtlCTAlloc(ni, &ct) == PTL_OK, "PtlCTAlloc");
    CHECK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 7, &pt) == PTL_OK, "PtlPTAlloc");
    ptl_me_t e = {.start = &in, .length = sizeof in, .ct_handle = ct, .uid = PTL_UID_ANY,
                  .options = PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM,
                  .match_id = {.phys = {.nid = PTL_NID_ANY, .pid = PTL_PID_ANY}}};
    CHECK(PtlMEAppend(ni, pt, &e, PTL_PRIORITY_LIST, NULL, &meh) == PTL_OK, "PtlMEAppend");
    ptl_md_t d = {.start = &out, .length = sizeof out, .eq_handle = PTL_EQ_NONE,
                  .ct_handle = PTL_CT_NONE};
    CHECK(PtlMDBind(ni, &d, &md) == PTL_OK, "PtlMDBind");
    CHECK(PMI_Barrier() == PMI_SUCCESS, "PMI_Barrier");
    CHECK(PtlPut(md, 0, sizeof out, PTL_NO_ACK_REQ, peer, pt, 0, 0, NULL, 0) == PTL_OK, "PtlPut");
    ptl_ct_event_t v;
    CHECK(PtlCTWait(ct, 1, &v) == PTL_OK && v.failure == 0, "PtlCTWait");
    printf("ptl_hello: rank %d of %d got 0x%llx from rank %d\n", rank, size,
           (unsigned long long)in, left);
    fflush(stdout);
    CHECK(PMI_Barrier() == PMI_SUCCESS, "final PMI_Barrier");
    CHECK(PtlMDRelease(md) == PTL_OK && PtlMEUnlink(meh) == PTL_OK, "release");
    CHECK(PtlNIFini(ni) == PTL_OK, "PtlNIFini");
    PtlFini();
    CHECK(PMI_Finalize() == PMI_SUCCESS, "PMI_Finalize");
    return 0;
}
