/* Every call of portals4.h with the bad arguments PORTALS4_API.md names
 * (§5-§14 and the REF test-suite's expectations, §19), in one table: each
 * row is a call and the code the reference documents.  Before PtlInit every
 * call must return PTL_NO_INIT; after it, null pointers, invalid, freed
 * ("stale") and wrong-type handles, out-of-range options, indices, ops,
 * datatypes, ack kinds and sizes past the limits.  Prints the calls that
 * returned something else and a count; fails if there is one.
 * A singleton job (no launcher), physical NIs: a matching one and a
 * non-matching one (the "wrong NI" for objects of the other). */
#include <portals4.h>

#include "badarg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ptl_handle_ni_t ni, ni2, h_ni;
static ptl_handle_eq_t eq, eq2, eq_dead, h_eq;
static ptl_handle_ct_t ct, ct2, ct_dead, h_ct;
static ptl_handle_md_t md, md_plain, md_dead, h_md;
static ptl_handle_me_t me_dead, h_me;
static ptl_handle_le_t h_le;
static ptl_pt_index_t pt, h_pt;
static ptl_ni_limits_t lim;
static ptl_process_t self, map1[1];
static ptl_event_t ev;
static ptl_ct_event_t cev;
static ptl_sr_value_t srv;
static ptl_uid_t uid;
static ptl_size_t msize, tests1[1] = {1};
static unsigned int which;
static char buf[4096];
static uint64_t operand;
static void *ptr;
static ptl_md_t d_md;
static ptl_me_t d_me;
static ptl_le_t d_le;

#define BAD PTL_INVALID_HANDLE
/* the lowest option bit outside a mask */
#define UNKNOWN(mask) ((~(unsigned)(mask)) & -(~(unsigned)(mask)))
#define ONE ((ptl_ct_event_t){1, 0})
#define BOTH ((ptl_ct_event_t){1, 1})
#define PUT(m, len, ack) PtlPut(m, 0, len, ack, self, pt, 0, 0, NULL, 0)
#define GET(m, len) PtlGet(m, 0, len, self, pt, 0, 0, NULL)
#define ATOM(m, len, op, dt) PtlAtomic(m, 0, len, PTL_NO_ACK_REQ, self, pt, 0, 0, NULL, 0, op, dt)
#define FATOM(g, p, op, dt) PtlFetchAtomic(g, 0, p, 0, 8, self, pt, 0, 0, NULL, 0, op, dt)
#define SWAP(g, p, op, dt) PtlSwap(g, 0, p, 0, 8, self, pt, 0, 0, NULL, 0, &operand, op, dt)

/* Before PtlInit: every call, PTL_NO_INIT. */
#define NO_INIT_ROWS(X)                                                                     \
    X("PtlNIInit", PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL,           \
                             PTL_PID_ANY, NULL, NULL, &h_ni), PTL_NO_INIT)                 \
    X("PtlNIFini", PtlNIFini(ni), PTL_NO_INIT)                                              \
    X("PtlNIStatus", PtlNIStatus(ni, PTL_SR_DROP_COUNT, &srv), PTL_NO_INIT)                 \
    X("PtlNIHandle", PtlNIHandle(ni, &h_ni), PTL_NO_INIT)                                   \
    X("PtlSetMap", PtlSetMap(ni, 1, map1), PTL_NO_INIT)                                     \
    X("PtlGetMap", PtlGetMap(ni, 1, map1, &msize), PTL_NO_INIT)                             \
    X("PtlGetUid", PtlGetUid(ni, &uid), PTL_NO_INIT)                                        \
    X("PtlGetId", PtlGetId(ni, &self), PTL_NO_INIT)                                         \
    X("PtlGetPhysId", PtlGetPhysId(ni, &self), PTL_NO_INIT)                                 \
    X("PtlPTAlloc", PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &h_pt), PTL_NO_INIT)         \
    X("PtlPTFree", PtlPTFree(ni, 0), PTL_NO_INIT)                                           \
    X("PtlPTDisable", PtlPTDisable(ni, 0), PTL_NO_INIT)                                     \
    X("PtlPTEnable", PtlPTEnable(ni, 0), PTL_NO_INIT)                                       \
    X("PtlMDBind", PtlMDBind(ni, &d_md, &h_md), PTL_NO_INIT)                                \
    X("PtlMDRelease", PtlMDRelease(md), PTL_NO_INIT)                                        \
    X("PtlLEAppend", PtlLEAppend(ni, 0, &d_le, PTL_PRIORITY_LIST, NULL, &h_le), PTL_NO_INIT) \
    X("PtlLEUnlink", PtlLEUnlink(h_le), PTL_NO_INIT)                                        \
    X("PtlLESearch", PtlLESearch(ni, 0, &d_le, PTL_SEARCH_ONLY, NULL), PTL_NO_INIT)         \
    X("PtlMEAppend", PtlMEAppend(ni, 0, &d_me, PTL_PRIORITY_LIST, NULL, &h_me), PTL_NO_INIT) \
    X("PtlMEUnlink", PtlMEUnlink(h_me), PTL_NO_INIT)                                        \
    X("PtlMESearch", PtlMESearch(ni, 0, &d_me, PTL_SEARCH_ONLY, NULL), PTL_NO_INIT)         \
    X("PtlEQAlloc", PtlEQAlloc(ni, 8, &h_eq), PTL_NO_INIT)                                  \
    X("PtlEQFree", PtlEQFree(eq), PTL_NO_INIT)                                              \
    X("PtlEQGet", PtlEQGet(eq, &ev), PTL_NO_INIT)                                           \
    X("PtlEQWait", PtlEQWait(eq, &ev), PTL_NO_INIT)                                         \
    X("PtlEQPoll", PtlEQPoll(&eq, 1, 0, &ev, &which), PTL_NO_INIT)                          \
    X("PtlCTAlloc", PtlCTAlloc(ni, &h_ct), PTL_NO_INIT)                                     \
    X("PtlCTFree", PtlCTFree(ct), PTL_NO_INIT)                                              \
    X("PtlCTCancelTriggered", PtlCTCancelTriggered(ct), PTL_NO_INIT)                        \
    X("PtlCTGet", PtlCTGet(ct, &cev), PTL_NO_INIT)                                          \
    X("PtlCTWait", PtlCTWait(ct, 1, &cev), PTL_NO_INIT)                                     \
    X("PtlCTPoll", PtlCTPoll(&ct, tests1, 1, 0, &cev, &which), PTL_NO_INIT)                 \
    X("PtlCTSet", PtlCTSet(ct, ONE), PTL_NO_INIT)                                           \
    X("PtlCTInc", PtlCTInc(ct, ONE), PTL_NO_INIT)                                           \
    X("PtlPut", PUT(md, 8, PTL_NO_ACK_REQ), PTL_NO_INIT)                                    \
    X("PtlGet", GET(md, 8), PTL_NO_INIT)                                                    \
    X("PtlAtomic", ATOM(md, 8, PTL_SUM, PTL_INT32_T), PTL_NO_INIT)                          \
    X("PtlFetchAtomic", FATOM(md, md, PTL_SUM, PTL_INT32_T), PTL_NO_INIT)                   \
    X("PtlSwap", SWAP(md, md, PTL_SWAP, PTL_INT32_T), PTL_NO_INIT)                          \
    X("PtlAtomicSync", PtlAtomicSync(), PTL_NO_INIT)                                        \
    X("PtlTriggeredPut", PtlTriggeredPut(md, 0, 8, PTL_NO_ACK_REQ, self, 0, 0, 0, NULL, 0,  \
                                         ct, 1), PTL_NO_INIT)                               \
    X("PtlTriggeredGet", PtlTriggeredGet(md, 0, 8, self, 0, 0, 0, NULL, ct, 1), PTL_NO_INIT) \
    X("PtlTriggeredCTInc", PtlTriggeredCTInc(ct, ONE, ct, 1), PTL_NO_INIT)                  \
    X("PtlTriggeredCTSet", PtlTriggeredCTSet(ct, ONE, ct, 1), PTL_NO_INIT)                  \
    X("PtlStartBundle", PtlStartBundle(ni), PTL_NO_INIT)                                    \
    X("PtlEndBundle", PtlEndBundle(ni), PTL_NO_INIT)

/* After PtlInit. */
#define ROWS(X)                                                                             \
    /* network interfaces (§5.4, §19) */                                                   \
    X("PtlNIInit options 0", PtlNIInit(PTL_IFACE_DEFAULT, 0, PTL_PID_ANY, NULL, NULL, &h_ni), \
      PTL_ARG_INVALID)                                                                      \
    X("PtlNIInit both matching bits",                                                       \
      PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL,  \
                PTL_PID_ANY, NULL, NULL, &h_ni), PTL_ARG_INVALID)                           \
    X("PtlNIInit both addressing bits",                                                     \
      PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL | PTL_NI_PHYSICAL,      \
                PTL_PID_ANY, NULL, NULL, &h_ni), PTL_ARG_INVALID)                           \
    X("PtlNIInit all four bits", PtlNIInit(PTL_IFACE_DEFAULT, 15u, PTL_PID_ANY, NULL, NULL,  \
                                           &h_ni), PTL_ARG_INVALID)                         \
    X("PtlNIInit unknown option bit",                                                       \
      PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL | (1u << 20),          \
                PTL_PID_ANY, NULL, NULL, &h_ni), PTL_ARG_INVALID)                           \
    X("PtlNIInit NULL handle", PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, \
                                         PTL_PID_ANY, NULL, NULL, NULL), PTL_ARG_INVALID)   \
    X("PtlNIFini invalid", PtlNIFini(BAD), PTL_ARG_INVALID)                                 \
    X("PtlNIFini wrong type (EQ)", PtlNIFini(eq), PTL_ARG_INVALID)                          \
    X("PtlNIStatus invalid NI", PtlNIStatus(BAD, PTL_SR_DROP_COUNT, &srv), PTL_ARG_INVALID) \
    X("PtlNIStatus register 0x7fffffff", PtlNIStatus(ni, 0x7fffffff, &srv), PTL_ARG_INVALID) \
    X("PtlNIStatus register PTL_SR_LAST", PtlNIStatus(ni, PTL_SR_LAST, &srv), PTL_ARG_INVALID) \
    X("PtlNIStatus NULL", PtlNIStatus(ni, PTL_SR_DROP_COUNT, NULL), PTL_ARG_INVALID)        \
    X("PtlNIHandle invalid", PtlNIHandle(BAD, &h_ni), PTL_ARG_INVALID)                      \
    X("PtlNIHandle stale EQ", PtlNIHandle(eq_dead, &h_ni), PTL_ARG_INVALID)                 \
    X("PtlNIHandle NULL", PtlNIHandle(md, NULL), PTL_ARG_INVALID)                           \
    X("PtlSetMap physical NI", PtlSetMap(ni, 1, &self), PTL_ARG_INVALID)                    \
    X("PtlSetMap invalid NI", PtlSetMap(BAD, 1, &self), PTL_ARG_INVALID)                    \
    X("PtlGetMap physical NI", PtlGetMap(ni, 1, map1, &msize), PTL_ARG_INVALID)             \
    X("PtlGetMap invalid NI", PtlGetMap(BAD, 1, map1, &msize), PTL_ARG_INVALID)             \
    X("PtlGetUid invalid NI", PtlGetUid(BAD, &uid), PTL_ARG_INVALID)                        \
    X("PtlGetUid NULL", PtlGetUid(ni, NULL), PTL_ARG_INVALID)                               \
    X("PtlGetId invalid NI", PtlGetId(BAD, &self), PTL_ARG_INVALID)                         \
    X("PtlGetId NULL", PtlGetId(ni, NULL), PTL_ARG_INVALID)                                 \
    X("PtlGetPhysId invalid NI", PtlGetPhysId(BAD, map1), PTL_ARG_INVALID)                  \
    X("PtlGetPhysId NULL", PtlGetPhysId(ni, NULL), PTL_ARG_INVALID)                         \
    /* portal table (§6, §19) */                                                           \
    X("PtlPTAlloc unknown option", PtlPTAlloc(ni, UNKNOWN(PTL_PT_ALLOC_OPTIONS_MASK),      \
                                              PTL_EQ_NONE, PTL_PT_ANY, &h_pt),              \
      PTL_ARG_INVALID)                                                                      \
    X("PtlPTAlloc invalid NI", PtlPTAlloc(BAD, 0, PTL_EQ_NONE, PTL_PT_ANY, &h_pt),          \
      PTL_ARG_INVALID)                                                                      \
    X("PtlPTAlloc index past max_pt_index",                                                 \
      PtlPTAlloc(ni, 0, PTL_EQ_NONE, (ptl_pt_index_t)lim.max_pt_index + 1, &h_pt),          \
      PTL_ARG_INVALID)                                                                      \
    X("PtlPTAlloc flow control without EQ",                                                 \
      PtlPTAlloc(ni, PTL_PT_FLOWCTRL, PTL_EQ_NONE, PTL_PT_ANY, &h_pt), PTL_PT_EQ_NEEDED)    \
    X("PtlPTAlloc index in use", PtlPTAlloc(ni, 0, PTL_EQ_NONE, pt, &h_pt), PTL_PT_IN_USE)  \
    X("PtlPTAlloc stale EQ", PtlPTAlloc(ni, 0, eq_dead, PTL_PT_ANY, &h_pt), PTL_ARG_INVALID) \
    X("PtlPTAlloc EQ of another NI", PtlPTAlloc(ni, 0, eq2, PTL_PT_ANY, &h_pt),             \
      PTL_ARG_INVALID)                                                                      \
    X("PtlPTAlloc NULL index", PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, NULL),            \
      PTL_ARG_INVALID)                                                                      \
    X("PtlPTFree invalid NI", PtlPTFree(BAD, pt), PTL_ARG_INVALID)                          \
    X("PtlPTFree never allocated", PtlPTFree(ni, pt + 7), PTL_ARG_INVALID)                  \
    X("PtlPTFree index 9999", PtlPTFree(ni, 9999), PTL_ARG_INVALID)                         \
    X("PtlPTDisable invalid NI", PtlPTDisable(BAD, pt), PTL_ARG_INVALID)                    \
    X("PtlPTDisable never allocated", PtlPTDisable(ni, pt + 7), PTL_ARG_INVALID)            \
    X("PtlPTDisable index 9999", PtlPTDisable(ni, 9999), PTL_ARG_INVALID)                   \
    X("PtlPTEnable invalid NI", PtlPTEnable(BAD, pt), PTL_ARG_INVALID)                      \
    X("PtlPTEnable never allocated", PtlPTEnable(ni, pt + 7), PTL_ARG_INVALID)              \
    X("PtlPTEnable index 9999", PtlPTEnable(ni, 9999), PTL_ARG_INVALID)                     \
    /* memory descriptors (§7, §19) */                                                     \
    X("PtlMDBind invalid NI", PtlMDBind(BAD, &d_md, &h_md), PTL_ARG_INVALID)                \
    X("PtlMDBind NULL md", PtlMDBind(ni, NULL, &h_md), PTL_ARG_INVALID)                     \
    X("PtlMDBind NULL handle", PtlMDBind(ni, &d_md, NULL), PTL_ARG_INVALID)                 \
    X("PtlMDBind unknown option", (d_md.options = UNKNOWN(PTL_MD_OPTIONS_MASK),            \
                                   PtlMDBind(ni, &d_md, &h_md)),                            \
      PTL_ARG_INVALID)                                                                      \
    X("PtlMDBind invalid EQ", (d_md.options = 0, d_md.eq_handle = BAD,                      \
                               PtlMDBind(ni, &d_md, &h_md)), PTL_ARG_INVALID)               \
    X("PtlMDBind stale EQ", (d_md.eq_handle = eq_dead, PtlMDBind(ni, &d_md, &h_md)),        \
      PTL_ARG_INVALID)                                                                      \
    X("PtlMDBind EQ of another NI", (d_md.eq_handle = eq2, PtlMDBind(ni, &d_md, &h_md)),    \
      PTL_ARG_INVALID)                                                                      \
    X("PtlMDBind invalid CT", (d_md.eq_handle = PTL_EQ_NONE, d_md.ct_handle = BAD,          \
                               PtlMDBind(ni, &d_md, &h_md)), PTL_ARG_INVALID)               \
    X("PtlMDBind CT of another NI", (d_md.ct_handle = ct2, PtlMDBind(ni, &d_md, &h_md)),    \
      PTL_ARG_INVALID)                                                                      \
    X("PtlMDRelease invalid", PtlMDRelease(BAD), PTL_ARG_INVALID)                           \
    X("PtlMDRelease stale", PtlMDRelease(md_dead), PTL_ARG_INVALID)                         \
    X("PtlMDRelease wrong type (CT)", PtlMDRelease(ct), PTL_ARG_INVALID)                    \
    /* list entries (§8, §19) */                                                           \
    X("PtlLEAppend on a matching NI", PtlLEAppend(ni, pt, &d_le, PTL_PRIORITY_LIST, NULL, &h_le), \
      PTL_ARG_INVALID)                                                                      \
    X("PtlLEAppend invalid NI", PtlLEAppend(BAD, 0, &d_le, PTL_PRIORITY_LIST, NULL, &h_le), \
      PTL_ARG_INVALID)                                                                      \
    X("PtlLEAppend NULL le", PtlLEAppend(ni2, 0, NULL, PTL_PRIORITY_LIST, NULL, &h_le),     \
      PTL_ARG_INVALID)                                                                      \
    X("PtlLEAppend list 2", PtlLEAppend(ni2, 0, &d_le, 2, NULL, &h_le), PTL_ARG_INVALID)    \
    X("PtlLEAppend PT not allocated", PtlLEAppend(ni2, 5, &d_le, PTL_PRIORITY_LIST, NULL,   \
                                                  &h_le), PTL_ARG_INVALID)                  \
    X("PtlLEAppend PT out of range", PtlLEAppend(ni2, 9999, &d_le, PTL_PRIORITY_LIST, NULL, \
                                                 &h_le), PTL_ARG_INVALID)                   \
    X("PtlLEAppend unknown option", (d_le.options = UNKNOWN(PTL_LE_APPEND_OPTIONS_MASK),    \
      PtlLEAppend(ni2, 0, &d_le, PTL_PRIORITY_LIST, NULL, &h_le)), PTL_ARG_INVALID)         \
    X("PtlLEAppend CT of another NI", (d_le.options = PTL_LE_OP_PUT, d_le.ct_handle = ct,   \
      PtlLEAppend(ni2, 0, &d_le, PTL_PRIORITY_LIST, NULL, &h_le)), PTL_ARG_INVALID)         \
    X("PtlLEAppend NULL handle", (d_le.ct_handle = PTL_CT_NONE,                             \
      PtlLEAppend(ni2, 0, &d_le, PTL_PRIORITY_LIST, NULL, NULL)), PTL_ARG_INVALID)          \
    X("PtlLESearch bad search op", PtlLESearch(ni2, 0, &d_le, 99, NULL), PTL_ARG_INVALID)    \
    X("PtlLESearch on a matching NI", PtlLESearch(ni, pt, &d_le, PTL_SEARCH_ONLY, NULL),    \
      PTL_ARG_INVALID)                                                                      \
    X("PtlLEUnlink invalid", PtlLEUnlink(BAD), PTL_ARG_INVALID)                             \
    X("PtlLEUnlink wrong type (MD)", PtlLEUnlink(md), PTL_ARG_INVALID)                      \
    X("PtlMEAppend on a non-matching NI", PtlMEAppend(ni2, 0, &d_me, PTL_PRIORITY_LIST,     \
                                                      NULL, &h_me), PTL_ARG_INVALID)        \
    X("PtlMEAppend NULL me", PtlMEAppend(ni, pt, NULL, PTL_PRIORITY_LIST, NULL, &h_me),     \
      PTL_ARG_INVALID)                                                                      \
    X("PtlMEAppend list 2", PtlMEAppend(ni, pt, &d_me, 2, NULL, &h_me), PTL_ARG_INVALID)    \
    X("PtlMEAppend PT not allocated", PtlMEAppend(ni, pt + 7, &d_me, PTL_PRIORITY_LIST,     \
                                                  NULL, &h_me), PTL_ARG_INVALID)            \
    X("PtlMEAppend unknown option", (d_me.options = UNKNOWN(PTL_ME_APPEND_OPTIONS_MASK),    \
      PtlMEAppend(ni, pt, &d_me, PTL_PRIORITY_LIST, NULL, &h_me)), PTL_ARG_INVALID)         \
    /* PTL_INVALID_HANDLE alone means "no CT" (SOS passes it so: §3.3) */                 \
    X("PtlMEAppend invalid CT, counting", (d_me.options = PTL_ME_OP_PUT |                   \
      PTL_ME_EVENT_CT_COMM, d_me.ct_handle = BAD,                                           \
      PtlMEAppend(ni, pt, &d_me, PTL_PRIORITY_LIST, NULL, &h_me)), PTL_ARG_INVALID)         \
    X("PtlMEAppend stale CT", (d_me.options = PTL_ME_OP_PUT, d_me.ct_handle = ct_dead,      \
      PtlMEAppend(ni, pt, &d_me, PTL_PRIORITY_LIST, NULL, &h_me)), PTL_ARG_INVALID)         \
    X("PtlMEAppend CT of another NI", (d_me.ct_handle = ct2,                                \
      PtlMEAppend(ni, pt, &d_me, PTL_PRIORITY_LIST, NULL, &h_me)), PTL_ARG_INVALID)         \
    X("PtlMEAppend NULL handle", (d_me.ct_handle = PTL_CT_NONE,                             \
      PtlMEAppend(ni, pt, &d_me, PTL_PRIORITY_LIST, NULL, NULL)), PTL_ARG_INVALID)          \
    X("PtlMESearch bad search op", PtlMESearch(ni, pt, &d_me, 99, NULL), PTL_ARG_INVALID)   \
    X("PtlMESearch on a non-matching NI", PtlMESearch(ni2, 0, &d_me, PTL_SEARCH_ONLY, NULL), \
      PTL_ARG_INVALID)                                                                      \
    X("PtlMEUnlink invalid", PtlMEUnlink(BAD), PTL_ARG_INVALID)                             \
    X("PtlMEUnlink stale", PtlMEUnlink(me_dead), PTL_ARG_INVALID)                           \
    /* event queues (§11.4, §19) */                                                        \
    X("PtlEQAlloc invalid NI", PtlEQAlloc(BAD, 8, &h_eq), PTL_ARG_INVALID)                  \
    X("PtlEQAlloc NULL handle", PtlEQAlloc(ni, 8, NULL), PTL_ARG_INVALID)                   \
    X("PtlEQFree invalid", PtlEQFree(BAD), PTL_ARG_INVALID)                                 \
    X("PtlEQFree PTL_EQ_NONE", PtlEQFree(PTL_EQ_NONE), PTL_ARG_INVALID)                     \
    X("PtlEQFree stale", PtlEQFree(eq_dead), PTL_ARG_INVALID)                               \
    X("PtlEQGet PTL_EQ_NONE", PtlEQGet(PTL_EQ_NONE, &ev), PTL_ARG_INVALID)                  \
    X("PtlEQGet stale", PtlEQGet(eq_dead, &ev), PTL_ARG_INVALID)                            \
    X("PtlEQGet wrong type (CT)", PtlEQGet(ct, &ev), PTL_ARG_INVALID)                       \
    X("PtlEQGet NULL event", PtlEQGet(eq, NULL), PTL_ARG_INVALID)                           \
    X("PtlEQGet empty", PtlEQGet(eq, &ev), PTL_EQ_EMPTY)                                    \
    X("PtlEQWait PTL_EQ_NONE", PtlEQWait(PTL_EQ_NONE, &ev), PTL_ARG_INVALID)                \
    X("PtlEQWait NULL event", PtlEQWait(eq, NULL), PTL_ARG_INVALID)                         \
    X("PtlEQPoll PTL_EQ_NONE", PtlEQPoll((ptl_handle_eq_t[]){PTL_EQ_NONE}, 1, 0, &ev,       \
                                         &which), PTL_ARG_INVALID)                          \
    X("PtlEQPoll NULL handles", PtlEQPoll(NULL, 1, 0, &ev, &which), PTL_ARG_INVALID)        \
    X("PtlEQPoll empty, timeout 0", PtlEQPoll(&eq, 1, 0, &ev, &which), PTL_EQ_EMPTY)        \
    /* counting events (§12, §19) */                                                       \
    X("PtlCTAlloc invalid NI", PtlCTAlloc(BAD, &h_ct), PTL_ARG_INVALID)                     \
    X("PtlCTAlloc NULL handle", PtlCTAlloc(ni, NULL), PTL_ARG_INVALID)                      \
    X("PtlCTFree PTL_CT_NONE", PtlCTFree(PTL_CT_NONE), PTL_ARG_INVALID)                     \
    X("PtlCTFree stale", PtlCTFree(ct_dead), PTL_ARG_INVALID)                               \
    X("PtlCTGet PTL_CT_NONE", PtlCTGet(PTL_CT_NONE, &cev), PTL_ARG_INVALID)                 \
    X("PtlCTGet stale", PtlCTGet(ct_dead, &cev), PTL_ARG_INVALID)                           \
    X("PtlCTGet NULL event", PtlCTGet(ct, NULL), PTL_ARG_INVALID)                           \
    X("PtlCTWait PTL_CT_NONE", PtlCTWait(PTL_CT_NONE, 1, &cev), PTL_ARG_INVALID)            \
    X("PtlCTPoll PTL_CT_NONE", PtlCTPoll((ptl_handle_ct_t[]){PTL_CT_NONE}, tests1, 1, 0,    \
                                         &cev, &which), PTL_ARG_INVALID)                    \
    X("PtlCTPoll not reached, timeout 0", PtlCTPoll(&ct, tests1, 1, 0, &cev, &which),       \
      PTL_CT_NONE_REACHED)                                                                  \
    X("PtlCTSet PTL_CT_NONE", PtlCTSet(PTL_CT_NONE, ONE), PTL_ARG_INVALID)                  \
    X("PtlCTSet stale", PtlCTSet(ct_dead, ONE), PTL_ARG_INVALID)                            \
    X("PtlCTInc PTL_CT_NONE", PtlCTInc(PTL_CT_NONE, ONE), PTL_ARG_INVALID)                  \
    X("PtlCTInc success and failure", PtlCTInc(ct, BOTH), PTL_ARG_INVALID)                  \
    X("PtlCTCancelTriggered PTL_CT_NONE", PtlCTCancelTriggered(PTL_CT_NONE), PTL_ARG_INVALID) \
    X("PtlCTCancelTriggered stale", PtlCTCancelTriggered(ct_dead), PTL_ARG_INVALID)         \
    /* data movement (§13, §19) */                                                         \
    X("PtlPut invalid MD", PUT(BAD, 8, PTL_NO_ACK_REQ), PTL_ARG_INVALID)                    \
    X("PtlPut stale MD", PUT(md_dead, 8, PTL_NO_ACK_REQ), PTL_ARG_INVALID)                  \
    X("PtlPut wrong type (EQ)", PUT(eq, 8, PTL_NO_ACK_REQ), PTL_ARG_INVALID)                \
    X("PtlPut length past max_msg_size", PUT(md, lim.max_msg_size + 1, PTL_NO_ACK_REQ),     \
      PTL_ARG_INVALID)                                                                      \
    X("PtlPut ack kind 99", PUT(md, 8, 99), PTL_ARG_INVALID)                                \
    X("PtlPut PTL_ACK_REQ, MD without EQ", PUT(md_plain, 8, PTL_ACK_REQ), PTL_ARG_INVALID)  \
    X("PtlPut PTL_CT_ACK_REQ, MD without CT", PUT(md_plain, 8, PTL_CT_ACK_REQ),             \
      PTL_ARG_INVALID)                                                                      \
    X("PtlGet invalid MD", GET(BAD, 8), PTL_ARG_INVALID)                                    \
    X("PtlGet stale MD", GET(md_dead, 8), PTL_ARG_INVALID)                                  \
    X("PtlGet length past max_msg_size", GET(md, lim.max_msg_size + 1), PTL_ARG_INVALID)    \
    X("PtlAtomic invalid MD", ATOM(BAD, 8, PTL_SUM, PTL_INT32_T), PTL_ARG_INVALID)          \
    X("PtlAtomic op out of range", ATOM(md, 8, PTL_OP_LAST, PTL_INT32_T), PTL_ARG_INVALID)  \
    X("PtlAtomic swap-family op", ATOM(md, 8, PTL_CSWAP, PTL_INT32_T), PTL_ARG_INVALID)     \
    X("PtlAtomic datatype out of range", ATOM(md, 8, PTL_SUM, PTL_DATATYPE_LAST),           \
      PTL_ARG_INVALID)                                                                      \
    X("PtlAtomic length past max_atomic_size", ATOM(md, lim.max_atomic_size + 8, PTL_SUM,   \
                                                    PTL_INT32_T), PTL_ARG_INVALID)          \
    X("PtlAtomic ack kind 99", PtlAtomic(md, 0, 8, 99, self, pt, 0, 0, NULL, 0, PTL_SUM,    \
                                         PTL_INT32_T), PTL_ARG_INVALID)                     \
    X("PtlFetchAtomic invalid get MD", FATOM(BAD, md, PTL_SUM, PTL_INT32_T), PTL_ARG_INVALID) \
    X("PtlFetchAtomic invalid put MD", FATOM(md, BAD, PTL_SUM, PTL_INT32_T), PTL_ARG_INVALID) \
    X("PtlFetchAtomic swap-family op", FATOM(md, md_plain, PTL_CSWAP, PTL_INT32_T),         \
      PTL_ARG_INVALID)                                                                      \
    X("PtlFetchAtomic op out of range", FATOM(md, md_plain, PTL_OP_LAST, PTL_INT32_T),      \
      PTL_ARG_INVALID)                                                                      \
    X("PtlSwap non-swap op", SWAP(md, md_plain, PTL_SUM, PTL_INT32_T), PTL_ARG_INVALID)     \
    X("PtlSwap op out of range", SWAP(md, md_plain, PTL_OP_LAST, PTL_INT32_T),              \
      PTL_ARG_INVALID)                                                                      \
    X("PtlSwap invalid get MD", SWAP(BAD, md_plain, PTL_SWAP, PTL_INT32_T), PTL_ARG_INVALID) \
    /* triggered operations (§14) */                                                       \
    X("PtlTriggeredPut invalid trigger CT",                                                 \
      PtlTriggeredPut(md, 0, 8, PTL_NO_ACK_REQ, self, pt, 0, 0, NULL, 0, BAD, 1),           \
      PTL_ARG_INVALID)                                                                      \
    X("PtlTriggeredPut invalid MD",                                                         \
      PtlTriggeredPut(BAD, 0, 8, PTL_NO_ACK_REQ, self, pt, 0, 0, NULL, 0, ct, 1),           \
      PTL_ARG_INVALID)                                                                      \
    X("PtlTriggeredGet stale trigger CT",                                                   \
      PtlTriggeredGet(md, 0, 8, self, pt, 0, 0, NULL, ct_dead, 1), PTL_ARG_INVALID)         \
    X("PtlTriggeredAtomic op out of range",                                                 \
      PtlTriggeredAtomic(md, 0, 8, PTL_NO_ACK_REQ, self, pt, 0, 0, NULL, 0, PTL_OP_LAST,    \
                         PTL_INT32_T, ct, 1), PTL_ARG_INVALID)                              \
    X("PtlTriggeredFetchAtomic invalid put MD",                                             \
      PtlTriggeredFetchAtomic(md, 0, BAD, 0, 8, self, pt, 0, 0, NULL, 0, PTL_SUM,           \
                              PTL_INT32_T, ct, 1), PTL_ARG_INVALID)                         \
    X("PtlTriggeredSwap non-swap op",                                                       \
      PtlTriggeredSwap(md, 0, md_plain, 0, 8, self, pt, 0, 0, NULL, 0, &operand, PTL_SUM,   \
                       PTL_INT32_T, ct, 1), PTL_ARG_INVALID)                                \
    X("PtlTriggeredCTInc PTL_CT_NONE", PtlTriggeredCTInc(PTL_CT_NONE, ONE, ct, 1),          \
      PTL_ARG_INVALID)                                                                      \
    X("PtlTriggeredCTInc invalid trigger", PtlTriggeredCTInc(ct, ONE, BAD, 1),              \
      PTL_ARG_INVALID)                                                                      \
    X("PtlTriggeredCTSet stale", PtlTriggeredCTSet(ct_dead, ONE, ct, 1), PTL_ARG_INVALID)   \
    /* bundles, handles, extensions (§15, sluice) */                                      \
    X("PtlStartBundle invalid NI", PtlStartBundle(BAD), PTL_ARG_INVALID)                    \
    X("PtlEndBundle invalid NI", PtlEndBundle(BAD), PTL_ARG_INVALID)                        \
    X("PtlHandleIsEqual different", PtlHandleIsEqual(md, eq), 0)                            \
    X("PtlSluiceMemAlloc invalid NI", PtlSluiceMemAlloc(BAD, 64, &ptr), PTL_ARG_INVALID)    \
    X("PtlSluiceMemAlloc NULL out", PtlSluiceMemAlloc(ni, 64, NULL), PTL_ARG_INVALID)

BADARG_TABLES()

#define OK(call)                                                                            \
    do {                                                                                    \
        int rc_ = (call);                                                                   \
        if (rc_ != PTL_OK) {                                                                \
            printf("set-up: %s returned %d\n", #call, rc_);                                 \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

static void setup(void)
{
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, &lim,
                 &ni));
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL,
                 NULL, &ni2));
    OK(PtlGetPhysId(ni, &self));
    OK(PtlEQAlloc(ni, 64, &eq));
    OK(PtlEQAlloc(ni2, 64, &eq2));
    OK(PtlEQAlloc(ni, 8, &eq_dead));
    OK(PtlEQFree(eq_dead));
    OK(PtlCTAlloc(ni, &ct));
    OK(PtlCTAlloc(ni2, &ct2));
    OK(PtlCTAlloc(ni, &ct_dead));
    OK(PtlCTFree(ct_dead));
    OK(PtlPTAlloc(ni, 0, eq, PTL_PT_ANY, &pt));
    ptl_pt_index_t pt2;
    OK(PtlPTAlloc(ni2, 0, eq2, 0, &pt2));
    d_md = (ptl_md_t){.start = buf, .length = sizeof buf, .eq_handle = eq, .ct_handle = ct};
    OK(PtlMDBind(ni, &d_md, &md));
    d_md = (ptl_md_t){.start = buf, .length = sizeof buf, .eq_handle = PTL_EQ_NONE,
                      .ct_handle = PTL_CT_NONE};
    OK(PtlMDBind(ni, &d_md, &md_plain));
    OK(PtlMDBind(ni, &d_md, &md_dead));
    OK(PtlMDRelease(md_dead));
    d_me = (ptl_me_t){.start = buf, .length = 64, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                      .match_id.phys = {PTL_NID_ANY, PTL_PID_ANY},
                      .options = PTL_ME_OP_PUT};
    OK(PtlMEAppend(ni, pt, &d_me, PTL_PRIORITY_LIST, NULL, &me_dead));
    OK(PtlMEUnlink(me_dead));
    d_le = (ptl_le_t){.start = buf, .length = 64, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                      .options = PTL_LE_OP_PUT};
    /* the events of the set-up, if any */
    while (PtlEQGet(eq, &ev) == PTL_OK) {
    }
}

int main(void)
{
    setenv("SLUICE_SHM_HEAP", "0", 0);
    ni = eq = ct = md = h_le = h_me = BAD;
    int bad = badarg_check("before PtlInit", no_init_rows, (int)(sizeof no_init_rows / sizeof *no_init_rows),
                    no_init_call);
    OK(PtlInit());
    setup();
    bad += badarg_check("portals4.h", rows, (int)(sizeof rows / sizeof *rows), call);
    PtlFini();
    printf("%s\n", bad ? "FAILED" : "all documented codes");
    return bad ? 1 : 0;
}
