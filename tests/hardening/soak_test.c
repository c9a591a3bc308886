/* Soak (issue 26, docs/RELIABILITY.md): N messages in all (argument 1,
 * default 20000), sizes log-uniform from 0 B to MAX (argument 2, default
 * 8 MiB; 1 in 16 messages is empty), random destinations and tags (0-7),
 * under whatever SLUICE_PROTOCOL says. The job runs in rounds: in each,
 * every rank sends K messages (Isend, 1 in 8 Issend) from a schedule every
 * rank can compute (a PRNG seeded with seed, round and sender), receives
 * what the schedule sends it, and meets the others in a barrier (so wildcard
 * receives of one round cannot take the next round's messages). The
 * receiving side changes from round to round:
 *   0 all receives (ANY_SOURCE, ANY_TAG), posted at once;
 *   1 per source: (src, tag) or (src, ANY_TAG), posted at once;
 *   2 per tag: (ANY_SOURCE, tag), posted at once;
 *   3 MPI_Probe(ANY, ANY) then a receive of exactly what it found;
 *   4 MPI_Iprobe loop, then MPI_Mprobe/MPI_Mrecv;
 * plus, every round, a receive on a tag nobody sends that is cancelled (it
 * must be), and in mode 0 a real wildcard receive cancelled at once (if the
 * cancel won, it is posted again, else it must hold a message). Each
 * message's bytes are a stream seeded with (round, sender, index): checked
 * completely, with the status (source, tag, count). Receives are checked in
 * the order they were posted (or, for probes, made): per (source, tag) the
 * messages must come in the order they were sent. VmRSS is sampled after
 * the first 10% of the rounds, half-way and at the end, less the test's own receive
 * buffers (grown to the largest message each slot saw). Prints one line of results
 * (rank 0) and fails on any error. */
#include <malloc.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define K 8        /* messages per rank per round */
#define NTAGS 8
#define DECOY_TAG 30000

typedef struct {
    int src, dst, tag, idx; /* idx: position in the sender's round list */
    size_t len;
    int sync;
} msg_t;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

typedef struct {
    uint64_t s;
} rng_t;
static uint64_t rnext(rng_t *r) { return mix(r->s += 0x9e3779b97f4a7c15ull); }
static double runit(rng_t *r) { return (double)(rnext(r) >> 11) / 9007199254740992.0; }

static uint64_t g_seed = 0x5eed;
static size_t g_max = 8u << 20;

static uint64_t msg_seed(long round, int src, int idx)
{
    return mix(g_seed ^ mix((uint64_t)round * 1000003u + (uint64_t)src * 131u + (uint64_t)idx));
}

/* Fill / check: 8-byte words of a stream (fast enough to check every byte). */
static void fill(unsigned char *b, size_t len, uint64_t s)
{
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w = s ^ (i * 0x9e3779b97f4a7c15ull);
        memcpy(b + i, &w, 8);
    }
    uint64_t w = s ^ (i * 0x9e3779b97f4a7c15ull);
    memcpy(b + i, &w, len - i);
}

static size_t check(const unsigned char *b, size_t len, uint64_t s)
{
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w = s ^ (i * 0x9e3779b97f4a7c15ull);
        if (memcmp(b + i, &w, 8) != 0) return i;
    }
    uint64_t w = s ^ (i * 0x9e3779b97f4a7c15ull);
    if (len > i && memcmp(b + i, &w, len - i) != 0) return i;
    return (size_t)-1;
}

/* The K messages sender src sends in this round. */
static void schedule(long round, int src, int size, msg_t *out)
{
    rng_t r = {mix(g_seed ^ ((uint64_t)round << 20) ^ (uint64_t)src)};
    for (int i = 0; i < K; i++) {
        msg_t *m = &out[i];
        m->src = src;
        m->idx = i;
        m->dst = (src + 1 + (int)(rnext(&r) % (uint64_t)(size - 1))) % size;
        m->tag = (int)(rnext(&r) % NTAGS);
        if (rnext(&r) % 16 == 0) {
            m->len = 0;
        } else { /* log-uniform in [1, max] */
            double lmax = log((double)g_max);
            m->len = (size_t)exp(runit(&r) * lmax);
            if (m->len < 1) m->len = 1;
            if (m->len > g_max) m->len = g_max;
        }
        m->sync = rnext(&r) % 8 == 0;
    }
}

static long g_errors;
static int g_rank;

#define ERR(...)                                                                              \
    do {                                                                                      \
        if (g_errors++ < 20) {                                                                \
            fprintf(stderr, "soak: rank %d: ", g_rank);                                       \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fputc('\n', stderr);                                                              \
        }                                                                                     \
    } while (0)

/* The test's own receive buffers, all touched: resident memory minus this
 * is the library's (and the allocator's). */
static size_t g_own;
static void grow(unsigned char **b, size_t *cap, size_t want)
{
    free(*b);
    g_own -= *cap;
    *b = malloc(want ? want : 1);
    if (!*b) MPI_Abort(MPI_COMM_WORLD, 2);
    memset(*b, 0, want);
    *cap = want;
    g_own += want;
}

/* The allocator's view, to tell memory the library holds from memory
 * glibc keeps after frees: in use (heap chunks and mmapped blocks, less
 * the test's receive buffers) and free chunks kept in the arenas, KiB. */
static void heap_kib(long *in_use, long *kept)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 mi = mallinfo2();
    *in_use = (long)((mi.uordblks + mi.hblkhd - g_own) / 1024);
    *kept = (long)(mi.fordblks / 1024);
#else
    *in_use = *kept = 0;
#endif
}

static long vmrss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &v) == 1) break;
    if (f) fclose(f);
    return v;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    g_rank = rank;
    long total = argc > 1 ? atol(argv[1]) : 20000;
    if (argc > 2) g_max = (size_t)atol(argv[2]);
    if (size < 2 || size > 64) {
        if (rank == 0) fprintf(stderr, "soak: 2-64 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    long rounds = (total + (long)size * K - 1) / ((long)size * K);
    long warm = rounds / 10;

    msg_t *all = malloc(sizeof(msg_t) * (size_t)size * K);
    msg_t *in = malloc(sizeof(msg_t) * (size_t)size * K);
    /* per (src, tag): list of incoming message indices into in[], and a cursor */
    int *q = malloc(sizeof(int) * (size_t)size * NTAGS * K * (size_t)size);
    int *qn = calloc((size_t)size * NTAGS, sizeof(int));
    int *qc = calloc((size_t)size * NTAGS, sizeof(int));
    unsigned char *sbuf[K];
    for (int i = 0; i < K; i++) sbuf[i] = malloc(g_max ? g_max : 1);
    int maxin = size * K;
    unsigned char **rbuf = calloc((size_t)maxin + 1, sizeof *rbuf);
    size_t *rcap = calloc((size_t)maxin + 1, sizeof *rcap);
    MPI_Request *rreq = malloc(sizeof(MPI_Request) * ((size_t)maxin + 2));
    int *rkind_src = malloc(sizeof(int) * (size_t)maxin), *rkind_tag = malloc(sizeof(int) * (size_t)maxin);
    MPI_Status *rst = malloc(sizeof(MPI_Status) * (size_t)maxin);
    int *order = malloc(sizeof(int) * (size_t)maxin); /* receive slots in posting order */
    if (!all || !in || !q || !qn || !qc || !rbuf || !rcap || !rreq || !rkind_src || !rkind_tag ||
        !rst || !order)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int i = 0; i < K; i++) {
        if (!sbuf[i]) MPI_Abort(MPI_COMM_WORLD, 2);
        memset(sbuf[i], 0, g_max ? g_max : 1);
    }

    long msgs_recv = 0, cancels = 0, cancel_won = 0, probes = 0;
    double bytes_recv = 0;
    long rss_warm = -1, rss_mid = -1, rss_end, use_mid = 0, kept_mid = 0, use_end, kept_end;
    double t0 = MPI_Wtime();

    for (long round = 0; round < rounds; round++) {
        if (round == warm) rss_warm = vmrss_kib() - (long)(g_own / 1024);
        if (round == rounds / 2) {
            rss_mid = vmrss_kib() - (long)(g_own / 1024);
            heap_kib(&use_mid, &kept_mid);
        }
        /* The whole round's schedule; what comes to me, per (src, tag) in order. */
        for (int s = 0; s < size; s++) schedule(round, s, size, &all[s * K]);
        int nin = 0;
        memset(qn, 0, sizeof(int) * (size_t)size * NTAGS);
        memset(qc, 0, sizeof(int) * (size_t)size * NTAGS);
        size_t maxlen = 0;
        size_t taglen[NTAGS] = {0};
        for (int s = 0; s < size * K; s++) {
            if (all[s].dst != rank) continue;
            in[nin] = all[s];
            int key = in[nin].src * NTAGS + in[nin].tag;
            q[key * K * size + qn[key]++] = nin;
            if (in[nin].len > maxlen) maxlen = in[nin].len;
            if (in[nin].len > taglen[in[nin].tag]) taglen[in[nin].tag] = in[nin].len;
            nin++;
        }
        int mode = (int)(mix((uint64_t)round ^ 0xabcdull * (uint64_t)(rank + 1)) % 5);

        /* A decoy receive nobody matches: its cancel must win. */
        MPI_Request decoy;
        char dbuf[16];
        MPI_Irecv(dbuf, 16, MPI_CHAR, MPI_ANY_SOURCE, DECOY_TAG, MPI_COMM_WORLD, &decoy);

        /* Sends. */
        MPI_Request sreq[K];
        msg_t *mine = &all[rank * K];
        for (int i = 0; i < K; i++) {
            fill(sbuf[i], mine[i].len, msg_seed(round, rank, i));
            int rc = (mine[i].sync ? MPI_Issend : MPI_Isend)(sbuf[i], (int)mine[i].len, MPI_BYTE,
                                                              mine[i].dst, mine[i].tag,
                                                              MPI_COMM_WORLD, &sreq[i]);
            if (rc != MPI_SUCCESS) ERR("round %ld: send %d returned %d", round, i, rc);
        }

        /* Receives: fill rst[] in order[] = posting order. */
        int nposted = 0, early = -1;
        MPI_Status early_st;
        if (mode <= 2) {
            /* posted at once; per slot: criteria and a buffer large enough */
            int per_src_any = (int)(mix((uint64_t)round * 7 + (uint64_t)rank) % 2);
            for (int j = 0; j < nin; j++) {
                int src = MPI_ANY_SOURCE, tag = MPI_ANY_TAG;
                size_t cap = maxlen;
                if (mode == 1) { /* in[] is in source order, each source's in send order */
                    src = in[j].src;
                    if ((per_src_any + src) % 2) {
                        tag = MPI_ANY_TAG;
                        cap = in[j].len; /* the j-th from src is exactly in[j] */
                    } else {
                        tag = in[j].tag;
                        cap = in[j].len; /* per (src, tag) in order, same list order */
                    }
                } else if (mode == 2) {
                    tag = in[j].tag;
                    cap = taglen[tag];
                }
                if (rcap[j] < cap) grow(&rbuf[j], &rcap[j], cap);
                rkind_src[j] = src;
                rkind_tag[j] = tag;
                MPI_Irecv(rbuf[j], (int)cap, MPI_BYTE, src, tag, MPI_COMM_WORLD, &rreq[j]);
                order[nposted++] = j;
                if (mode == 0 && j == 0 && nin > 0) {
                    /* cancel a real receive at once; if the cancel wins, post it again */
                    MPI_Cancel(&rreq[j]);
                    MPI_Status cs;
                    MPI_Wait(&rreq[j], &cs);
                    int flag = 0;
                    MPI_Test_cancelled(&cs, &flag);
                    cancels++;
                    if (flag) {
                        cancel_won++;
                        MPI_Irecv(rbuf[j], (int)cap, MPI_BYTE, src, tag, MPI_COMM_WORLD, &rreq[j]);
                        order[nposted - 1] = -1; /* re-posted: goes to the end */
                        order[nposted++] = j;
                    } else {
                        rreq[j] = MPI_REQUEST_NULL; /* it holds a message: cs */
                        early = j;
                        early_st = cs;
                    }
                }
            }
            int rc = MPI_Waitall(nin, rreq, rst);
            if (rc != MPI_SUCCESS) ERR("round %ld: MPI_Waitall of the receives returned %d", round, rc);
            if (early >= 0) rst[early] = early_st; /* Waitall emptied the null request's */
        } else {
            for (int j = 0; j < nin; j++) {
                MPI_Status ps;
                MPI_Message msg = MPI_MESSAGE_NULL;
                if (mode == 3) {
                    MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &ps);
                } else {
                    int flag = 0;
                    while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &ps);
                    MPI_Mprobe(ps.MPI_SOURCE, ps.MPI_TAG, MPI_COMM_WORLD, &msg, &ps);
                }
                probes++;
                int cnt = -1;
                MPI_Get_count(&ps, MPI_BYTE, &cnt);
                if (cnt < 0 || (size_t)cnt > g_max) {
                    ERR("round %ld: probe count %d", round, cnt);
                    cnt = 0;
                }
                if (rcap[j] < (size_t)cnt || !rbuf[j]) grow(&rbuf[j], &rcap[j], (size_t)cnt);
                rkind_src[j] = ps.MPI_SOURCE;
                rkind_tag[j] = ps.MPI_TAG;
                if (mode == 3)
                    MPI_Recv(rbuf[j], cnt, MPI_BYTE, ps.MPI_SOURCE, ps.MPI_TAG, MPI_COMM_WORLD, &rst[j]);
                else
                    MPI_Mrecv(rbuf[j], cnt, MPI_BYTE, &msg, &rst[j]);
                if (rst[j].MPI_SOURCE != ps.MPI_SOURCE || rst[j].MPI_TAG != ps.MPI_TAG)
                    ERR("round %ld: received (%d, %d) after probing (%d, %d)", round,
                        rst[j].MPI_SOURCE, rst[j].MPI_TAG, ps.MPI_SOURCE, ps.MPI_TAG);
                order[nposted++] = j;
            }
        }

        /* Check, in posting order: status, order per (src, tag), bytes. */
        for (int o = 0; o < nposted; o++) {
            int j = order[o];
            if (j < 0) continue;
            MPI_Status *st = &rst[j];
            int src = st->MPI_SOURCE, tag = st->MPI_TAG, cnt = -1;
            MPI_Get_count(st, MPI_BYTE, &cnt);
            if (src < 0 || src >= size || tag < 0 || tag >= NTAGS) {
                ERR("round %ld mode %d: status source %d tag %d", round, mode, src, tag);
                continue;
            }
            if ((rkind_src[j] != MPI_ANY_SOURCE && rkind_src[j] != src) ||
                (rkind_tag[j] != MPI_ANY_TAG && rkind_tag[j] != tag))
                ERR("round %ld: receive for (%d, %d) got (%d, %d)", round, rkind_src[j],
                    rkind_tag[j], src, tag);
            int key = src * NTAGS + tag;
            if (qc[key] >= qn[key]) {
                ERR("round %ld: one message too many from %d tag %d", round, src, tag);
                continue;
            }
            msg_t *m = &in[q[key * K * size + qc[key]++]];
            if ((size_t)cnt != m->len)
                ERR("round %ld mode %d: from %d tag %d: count %d, expected %zu (message %d; "
                    "overtaken or lost)", round, mode, src, tag, cnt, m->len, m->idx);
            else {
                size_t bad = check(rbuf[j], m->len, msg_seed(round, src, m->idx));
                if (bad != (size_t)-1)
                    ERR("round %ld mode %d: from %d tag %d message %d (%zu B): byte %zu wrong",
                        round, mode, src, tag, m->idx, m->len, bad);
            }
            msgs_recv++;
            bytes_recv += (double)m->len;
        }
        for (int key = 0; key < size * NTAGS; key++)
            if (qc[key] != qn[key])
                ERR("round %ld: %d of %d messages from %d tag %d received", round, qc[key], qn[key],
                    key / NTAGS, key % NTAGS);

        /* No message left for me: a probe finds nothing; the decoy cancels. */
        int flag = 1;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (flag) ERR("round %ld: a message left over after the round", round);
        MPI_Cancel(&decoy);
        MPI_Status ds;
        MPI_Wait(&decoy, &ds);
        int cflag = 0;
        MPI_Test_cancelled(&ds, &cflag);
        if (!cflag) ERR("round %ld: cancel of an unmatched receive failed", round);
        cancels++;
        cancel_won++;

        MPI_Status sst[K];
        if (MPI_Waitall(K, sreq, sst) != MPI_SUCCESS) ERR("round %ld: send wait failed", round);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    rss_end = vmrss_kib() - (long)(g_own / 1024);
    heap_kib(&use_end, &kept_end);
    double dt = MPI_Wtime() - t0;

    long tot[5] = {msgs_recv, g_errors, cancels, cancel_won, probes}, gtot[5];
    double gbytes = 0;
    MPI_Reduce(tot, gtot, 5, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bytes_recv, &gbytes, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    long rss[3] = {rss_warm, rss_mid, rss_end}, rssmax[3];
    long growth[4] = {rss_end - rss_warm, rss_end - rss_mid, use_end - use_mid,
                      kept_end - kept_mid},
         gmax[4];
    MPI_Reduce(rss, rssmax, 3, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(growth, gmax, 4, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        const char *proto = getenv("SLUICE_PROTOCOL");
        printf("soak: %d ranks, protocol %s, %ld rounds, %ld messages, %.3f GB, %ld errors, "
               "%ld cancels (%ld won), %ld probes, %.1f s; VmRSS less the test's receive buffers, "
               "largest of the ranks: after warm-up (10%%) %ld KiB, half-way %ld KiB, at end %ld KiB; "
               "largest growth of a rank from warm-up %ld KiB, from half-way %ld KiB; the "
               "allocator from half-way, largest of the ranks each: allocated and in use %ld KiB, "
               "freed and kept by malloc %ld KiB\n",
               size, proto ? proto : "auto", rounds, gtot[0], gbytes / 1e9, gtot[1], gtot[2],
               gtot[3], gtot[4], dt, rssmax[0], rssmax[1], rssmax[2], gmax[0], gmax[1], gmax[2],
               gmax[3]);
    }
    int ok = gtot[1] == 0;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < K; i++) free(sbuf[i]);
    for (int j = 0; j <= maxin; j++) free(rbuf[j]);
    free(rbuf), free(rcap), free(rreq), free(rkind_src), free(rkind_tag), free(rst), free(order);
    free(all), free(in), free(q), free(qn), free(qc);
    MPI_Finalize();
    return ok ? 0 : 1;
}
