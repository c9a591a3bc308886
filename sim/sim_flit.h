/* sim_flit.h - state of the flit-level mode (--flit), shared by its two
 * files: sim_flit.c (set-up, links, nodes, the cycle) and sim_flalloc.c
 * (routing, VC and switch allocation, crossing the switch).  Internal:
 * see sim_flit.c for how the engine works and why its state is laid out
 * this way. */
#ifndef SIM_FLIT_H
#define SIM_FLIT_H

#include <assert.h>

#include "sim_flwheel.h"
#include "sim_net.h"

/* A flit is coded as packet id * 128 + tail bit, plus for the head flit
 * 2 + (packet length - 1) * 4, so that only head flits need the packet
 * record and even they do not need it to be queued. */
#define FL_CODE(pkt, i, tail, len) ((pkt) * 128 + ((i) == 0 ? 2 + ((len) - 1) * 4 : 0) + (tail))
#define FL_PKT(code) ((code) >> 7)
#define FL_HEAD(code) (((code) >> 1) & 1)
#define FL_HLEN(code) ((((code) >> 2) & 31) + 1)
#define FL_TAIL(code) ((code) & 1)
#define FL_MAX_PKT (1 << 24)

/* Wheel events (sim_flwheel.h): a = target << 2 | kind, b = flit code.
 * Router targets are port * 8 + VC (so that no event needs a division
 * by V). */
enum { EVF_RFLIT, EVF_NFLIT, EVF_RCRED, EVF_NCRED };

/* Input VC: the front packet, its route and VA state, and the ring of
 * packets behind it (entries pkt * 64 + len, head arrival cycle).  16
 * bytes, read when a flit crosses (prefetched four routers ahead), at VC
 * allocation and when a head arrives or a tail leaves; what every flit
 * and credit touches lives in small per-VC and per-port arrays of struct
 * sim_fl instead, which stay in cache (see sim_flit.c). */
struct fl_front {
    int32_t pkt;            /* front packet, -1 none */
    int32_t va_ready;       /* cycle the front head may allocate */
    uint8_t sent, len;      /* flits of it forwarded, its length */
    uint8_t oport;          /* routed output port (router-local) */
    uint8_t ovc;            /* routed output VC, FL_UNROUTED none */
    uint16_t ve_head, ve_n; /* ring of packets behind the front */
};
#define FL_UNROUTED 0xff

/* Functions that only prefetch must be inlined: GCC finds them pure (a
 * prefetch is not a side effect to it) and drops calls to them. */
#define FL_PREFETCHER static inline __attribute__((always_inline))

/* Input VCs in owner and waiter lists are named by global port * 8 + VC:
 * port and VC then come out without a division by V. */
#define FL_ID(ipi, vc) ((ipi) * 8 + (vc))

struct fl_ent {
    int32_t pklen, arr;
};

/* Output VC: its credits for the downstream VC and its owner, the input
 * VC of this router (port * 8 + VC, router-local; -1 free) that holds it.
 * Together in 4 bytes: a crossing, a credit and VC allocation all read
 * them, and a router's records fit in a few cache lines. */
struct fl_oc {
    uint16_t cred;
    int16_t owner;
};

/* Link of a port (fixed). */
struct fl_port {
    int32_t lat;            /* link latency, cycles */
    int32_t down_ev;        /* wheel event word of a flit to the far end's VC 0 (+ 4 * vc) */
    int32_t up_ev;          /* wheel event word of a credit to the far end's VC 0 (+ 4 * vc) */
    int32_t pad;
};

/* Per node; inj_cred and ej_n stand for sim_node's inj_cred and ej_flits
 * (copied there by sim_flit_sync) so that the node loop touches only this. */
struct fl_node {
    int32_t inj_pkt, inj_idx, inj_len; /* packet being injected, next flit */
    int32_t inj_cred;           /* credits of the injection link */
    int32_t ej_head, ej_pk;     /* ejection ring of packets: first entry, entries */
    int32_t ej_n;               /* flits in the ejection buffer */
    int32_t ej_sink_at;         /* next cycle a flit may be sunk */
    int32_t ej_part;            /* flits sunk of the first packet */
    int32_t slow;               /* sink one flit every slow cycles */
    int32_t term;               /* terminal input VC of the router: port * 8 */
    int32_t ej_front;           /* ring entry of the first packet (valid while ej_part > 0) */
};

/* Ejection ring entries: a node receives on one VC, so the flits of a
 * packet arrive back to back and the ring holds one entry per packet
 * (packet id, control bit, length), touched once per packet. */
#define FL_EJ(pkt, ctrl, len) ((pkt) * 128 + (ctrl) * 64 + (len))

struct sim_fl {
    int B, RB;                  /* VC buffer depth, ring entries per VC */
    struct fl_front *fr;        /* per input VC */
    int32_t *wnext;             /* per input VC: next VC waiting for the same output VC (FL_ID) */
    struct fl_ent *ring;        /* per input VC, RB entries */
    struct fl_oc *oc;           /* per output VC */
    int32_t *whead;             /* per output VC: first input VC waiting for it (FL_ID), -1 none */
    uint64_t pmagic;            /* router of global port ip: ip * pmagic >> 32 */
    /* --va rr only (NULL otherwise), per output VC: the router-local input
     * VC (port * V + vc) that has priority next, this cycle's best
     * candidate (-1 none) and its distance from that priority; and the
     * output VCs with a candidate this cycle. */
    int32_t *va_rr, *va_cand, *va_key, *va_touch;
    uint8_t *sa_ptr;            /* --sa rr only, per output port: input port with priority */
    struct fl_port *port;       /* per (router, port) */
    uint16_t *vq_n;             /* per input VC: flits present */
    int32_t *onext;             /* per output port: first cycle its link is free */
    uint8_t *act;               /* per input port: VCs whose front packet owns its output VC */
    uint8_t *cblk;              /* per input port: active VCs whose output VC has no credit */
    uint8_t *sw_mask;           /* per input port: VCs that may cross */
    uint8_t *va_mask;           /* per input port: VCs awaiting VA */
    uint64_t *sw_ports;         /* bit per input port: sw_mask != 0 */
    uint64_t *va_ports;         /* bit per input port: va_mask != 0 */
    uint8_t *rr_in;             /* per input port: next VC to try */
    /* For a VC mask m and a round-robin start rr: the VCs of m in the
     * order rr, rr+1, ..., V-1, 0, ..., as 4-bit nibbles of vc + 1. */
    uint32_t rrseq[256 * 8];
    int32_t *va_need;           /* per router: VCs awaiting VA */
    struct fl_node *nd;         /* per node */
    int32_t *ej;                /* per node ejection ring of packets (FL_EJ) */
    struct flw wheel;           /* flits on links and in output queues */
    struct flw cwheel;          /* credits on links */
    int64_t horizon;            /* longest delay of a wheel event */
    double sacc;                /* speedup accumulator */
    struct sim_net *net;
};

/* The router of global port ip, without a division (pmagic is checked
 * at set-up to be exact for every port). */
static inline int sim_fl_router(const struct sim_fl *f, int ip)
{
    return (int)(((uint64_t)ip * f->pmagic) >> 32);
}

/* Put a flit on a link: it arrives in cycle at. */
static inline void sim_fl_push_flit(struct sim_fl *f, int64_t now, int64_t at, int32_t a,
                                    int32_t code)
{
    assert(at > now && at - now <= f->horizon);
    (void)now;
    flw_put(&f->wheel, at, a, code);
}

/* Put a credit on a link (links are at most 63 cycles long). */
static inline void sim_fl_push_cred(struct sim_fl *f, int64_t now, int64_t at, int32_t a)
{
    assert(at > now && at - now <= 64);
    (void)now;
    flw_put(&f->cwheel, at, a, 0);
}

/* ---- request masks: per input port a byte of VCs, and per router a
 * bitmap of the ports whose byte is not zero ---- */

static inline void sim_fl_set(uint8_t *mask, uint64_t *ports, int ipi, unsigned bit)
{
    mask[ipi] |= (uint8_t)bit;
    ports[ipi >> 6] |= 1ull << (ipi & 63);
}

static inline void sim_fl_clr(uint8_t *mask, uint64_t *ports, int ipi, unsigned bit)
{
    if (!(mask[ipi] &= (uint8_t)~bit))
        ports[ipi >> 6] &= ~(1ull << (ipi & 63));
}

/* Bits of router r's P ports (P <= 64), rotated so that bit j is port
 * (start + j) mod P: visiting set bits in order visits the ports in the
 * allocators' rotating order. */
static inline uint64_t sim_fl_ports(const uint64_t *ports, int r, int P, int start)
{
    int base = r * P, w = base >> 6, off = base & 63;
    uint64_t all = P == 64 ? ~0ull : (1ull << P) - 1, b = ports[w] >> off;
    if (off + P > 64)
        b |= ports[w + 1] << (64 - off);
    b &= all;
    if (start)
        b = ((b >> start) | (b << (P - start))) & all;
    return b;
}

/* Router loop of one cycle (sim_flalloc.c): VC allocation and subs
 * switch sub-cycles at every router. */
void sim_fl_routers(struct sim_net *net, int64_t t, int subs);

#endif
