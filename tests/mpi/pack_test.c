/* Pack/unpack: hand-laid-out types and random nested types against a
 * reference expansion of the type map; full packs with guard bytes, every
 * (or many random) partial ranges [from, to) equal the same bytes of the
 * full pack, chunked packs, unpack writing exactly the type map's bytes,
 * partial unpacks in any order, MPI_BOTTOM with absolute addresses; all of
 * it again with flattening capped at 3 pieces (the unflattened walk). */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/datatype.h"
#include "test.h"

#define OK(expr) CHECK_EQ((expr), MPI_SUCCESS)
#define GUARD 64

typedef struct seg {
    MPI_Aint off, len;
} seg_t;

typedef struct layout {
    seg_t *s;
    size_t n, cap;
} layout_t;

static void lay_add(layout_t *l, MPI_Aint off, MPI_Aint len)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->s = realloc(l->s, l->cap * sizeof *l->s);
        CHECK(l->s != NULL);
    }
    l->s[l->n++] = (seg_t){off, len};
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static long rnd_in(long lo, long hi) /* inclusive */
{
    return lo + (long)(rnd() % (uint64_t)(hi - lo + 1));
}

static MPI_Aint extent_of(MPI_Datatype t)
{
    MPI_Aint lb, ext;
    OK(MPI_Type_get_extent(t, &lb, &ext));
    return ext;
}

static MPI_Count size_of(MPI_Datatype t)
{
    MPI_Count s;
    OK(MPI_Type_size_x(t, &s));
    return s;
}

/* ---- one type, checked against its layout (one element) ------------------ */

typedef struct tcase {
    const char *name;
    MPI_Datatype t;
    layout_t lay; /* segments of element 0, in type-map order */
    bool overlap; /* type map writes some byte twice: no unpack checks */
} tcase_t;

/* Expected stream and the span of count elements. */
static unsigned char *expected_stream(const tcase_t *c, int count, const unsigned char *buf,
                                      MPI_Count *total)
{
    MPI_Aint ext = extent_of(c->t);
    MPI_Count n = 0;
    for (size_t i = 0; i < c->lay.n; i++) n += c->lay.s[i].len;
    n *= count;
    unsigned char *e = malloc(n ? (size_t)n : 1u);
    CHECK(e != NULL);
    MPI_Count p = 0;
    for (int k = 0; k < count; k++)
        for (size_t i = 0; i < c->lay.n; i++) {
            memcpy(e + p, buf + (MPI_Aint)k * ext + c->lay.s[i].off, (size_t)c->lay.s[i].len);
            p += c->lay.s[i].len;
        }
    *total = n;
    return e;
}

static void span_of(const tcase_t *c, int count, MPI_Aint *lo, MPI_Aint *hi)
{
    MPI_Aint ext = extent_of(c->t);
    *lo = 0;
    *hi = 0;
    for (int k = 0; k < count; k++)
        for (size_t i = 0; i < c->lay.n; i++) {
            MPI_Aint a = (MPI_Aint)k * ext + c->lay.s[i].off;
            if (a < *lo) *lo = a;
            if (a + c->lay.s[i].len > *hi) *hi = a + c->lay.s[i].len;
        }
}

static void check_guard(const unsigned char *p, size_t n, unsigned char v, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v) CHECK_MSG(p[i] == v, "%s: guard byte %zu overwritten", what, i);
    t_pass_count_inc();
}

typedef struct walk_state {
    MPI_Count next;
    size_t n;
} walk_state_t;

static int walk_fn(void *addr, size_t len, MPI_Count p, void *arg)
{
    walk_state_t *w = arg;
    CHECK_EQ(p, w->next);
    CHECK(len > 0 && addr != NULL);
    w->next += (MPI_Count)len;
    w->n++;
    return 0;
}

static int tree_cases; /* cases walked through unflattened types */

static void check_case(const tcase_t *c, int count, bool exhaustive_pairs)
{
    char what[128];
    snprintf(what, sizeof what, "%s x%d", c->name, count);
    mdt_type_t *t = mdt_get(c->t);
    CHECK(t && t->committed);
    if (t->tree) tree_cases++;
    MPI_Aint lo, hi;
    span_of(c, count, &lo, &hi);
    size_t span = (size_t)(hi - lo) + 2 * GUARD;
    unsigned char *src_mem = malloc(span), *dst_mem = malloc(span), *ref_mem = malloc(span);
    CHECK(src_mem && dst_mem && ref_mem);
    t_fill(src_mem, span, 1000 + (uint64_t)count);
    unsigned char *src = src_mem + GUARD - lo;
    MPI_Count total;
    unsigned char *exp = expected_stream(c, count, src, &total);
    CHECK_EQ(total, (MPI_Count)count * t->size);

    /* full pack through MPI_Pack, guards on both sides */
    unsigned char *pk_mem = malloc((size_t)total + 2 * GUARD);
    memset(pk_mem, 0xA5, (size_t)total + 2 * GUARD);
    int pos = GUARD;
    OK(MPI_Pack(src, count, c->t, pk_mem, (int)total + GUARD, &pos, MPI_COMM_SELF));
    CHECK_EQ(pos, GUARD + total);
    CHECK_MSG(memcmp(pk_mem + GUARD, exp, (size_t)total) == 0, "%s: packed stream", what);
    check_guard(pk_mem, GUARD, 0xA5, what);
    check_guard(pk_mem + GUARD + total, GUARD, 0xA5, what);
    int psize;
    OK(MPI_Pack_size(count, c->t, MPI_COMM_SELF, &psize));
    CHECK_EQ(psize, total);

    /* partial packs: every range of small streams, random ranges otherwise */
    unsigned char *part = malloc((size_t)total + GUARD);
    int pairs = 0;
    for (MPI_Count from = 0; from <= total; from++) {
        for (MPI_Count to = from; to <= total; to++) {
            MPI_Count f = from, e = to;
            if (!exhaustive_pairs) {
                f = (MPI_Count)rnd_in(0, (long)total);
                e = (MPI_Count)rnd_in((long)f, (long)total);
            }
            memset(part, 0x5A, (size_t)(e - f) + GUARD);
            mdt_pack_range(t, src, f, e, part);
            if (memcmp(part, exp + f, (size_t)(e - f)) != 0)
                CHECK_MSG(0, "%s: pack range [%ld, %ld)", what, (long)f, (long)e);
            check_guard(part + (e - f), GUARD, 0x5A, what);
            if (!exhaustive_pairs && ++pairs == 300) goto pairs_done;
        }
    }
pairs_done:;
    /* chunked packs */
    static const MPI_Count chunks[] = {1, 3, 7, 64, 1000};
    for (size_t ci = 0; ci < sizeof chunks / sizeof chunks[0]; ci++) {
        memset(part, 0, (size_t)total + 1);
        for (MPI_Count f = 0; f < total; f += chunks[ci]) {
            MPI_Count e = f + chunks[ci] < total ? f + chunks[ci] : total;
            mdt_pack_range(t, src, f, e, part + f);
        }
        CHECK_MSG(memcmp(part, exp, (size_t)total) == 0, "%s: chunks of %ld", what,
                  (long)chunks[ci]);
    }

    /* walk: pieces tile the range in stream order */
    MPI_Count f = total / 3, e = total - total / 5;
    walk_state_t w = {f, 0};
    mdt_walk(t, src, f, e, walk_fn, &w);
    CHECK_EQ(w.next, e > f ? e : f);

    if (!c->overlap) {
        /* unpack writes exactly the type map's bytes */
        t_fill(dst_mem, span, 7);
        memcpy(ref_mem, dst_mem, span);
        unsigned char *dst = dst_mem + GUARD - lo, *ref = ref_mem + GUARD - lo;
        MPI_Aint ext = extent_of(c->t);
        MPI_Count p = 0;
        for (int k = 0; k < count; k++)
            for (size_t i = 0; i < c->lay.n; i++) {
                memcpy(ref + (MPI_Aint)k * ext + c->lay.s[i].off, exp + p,
                       (size_t)c->lay.s[i].len);
                p += c->lay.s[i].len;
            }
        pos = GUARD;
        OK(MPI_Unpack(pk_mem, (int)total + GUARD, &pos, dst, count, c->t, MPI_COMM_SELF));
        CHECK_EQ(pos, GUARD + total);
        CHECK_MSG(memcmp(dst_mem, ref_mem, span) == 0, "%s: unpack", what);
        /* partial unpacks at random cuts, in random order */
        enum { NCUT = 9 };
        MPI_Count cut[NCUT + 2];
        cut[0] = 0;
        for (int i = 1; i <= NCUT; i++) cut[i] = (MPI_Count)rnd_in(0, (long)total);
        cut[NCUT + 1] = total;
        for (int i = 1; i <= NCUT + 1; i++) /* sort */
            for (int j = i; j > 0 && cut[j] < cut[j - 1]; j--) {
                MPI_Count x = cut[j];
                cut[j] = cut[j - 1];
                cut[j - 1] = x;
            }
        int order[NCUT + 1];
        for (int i = 0; i <= NCUT; i++) order[i] = i;
        for (int i = NCUT; i > 0; i--) {
            int j = (int)rnd_in(0, i), x = order[i];
            order[i] = order[j];
            order[j] = x;
        }
        t_fill(dst_mem, span, 7);
        for (int i = 0; i <= NCUT; i++) {
            int s = order[i];
            mdt_unpack_range(t, dst, cut[s], cut[s + 1], exp + cut[s]);
        }
        CHECK_MSG(memcmp(dst_mem, ref_mem, span) == 0, "%s: partial unpacks", what);
    }
    free(part);
    free(pk_mem);
    free(exp);
    free(src_mem);
    free(dst_mem);
    free(ref_mem);
}

static void run_case(tcase_t *c)
{
    OK(MPI_Type_commit(&c->t));
    static const int counts[] = {1, 2, 3, 5};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        MPI_Count total = counts[i] * size_of(c->t);
        check_case(c, counts[i], total <= 48);
    }
}

static void free_case(tcase_t *c)
{
    if (!mdt_get(c->t)->predefined) OK(MPI_Type_free(&c->t));
    free(c->lay.s);
}

/* ---- hand-laid-out types ------------------------------------------------- */

static void test_hand_cases(void)
{
    tcase_t c;
    MPI_Datatype tmp, tmp2;

    c = (tcase_t){.name = "vector(3,2,4,int)"};
    OK(MPI_Type_vector(3, 2, 4, MPI_INT, &c.t));
    lay_add(&c.lay, 0, 8), lay_add(&c.lay, 16, 8), lay_add(&c.lay, 32, 8);
    run_case(&c), free_case(&c);

    c = (tcase_t){.name = "vector(3,1,-2,int)"};
    OK(MPI_Type_vector(3, 1, -2, MPI_INT, &c.t));
    lay_add(&c.lay, 0, 4), lay_add(&c.lay, -8, 4), lay_add(&c.lay, -16, 4);
    run_case(&c), free_case(&c);

    c = (tcase_t){.name = "indexed"};
    int bl[] = {2, 1, 3}, d[] = {4, 0, 10};
    OK(MPI_Type_indexed(3, bl, d, MPI_INT, &c.t));
    lay_add(&c.lay, 16, 8), lay_add(&c.lay, 0, 4), lay_add(&c.lay, 40, 12);
    run_case(&c), free_case(&c);

    c = (tcase_t){.name = "hindexed overlapping", .overlap = true};
    int obl[] = {1, 2};
    MPI_Aint od[] = {4, 0};
    OK(MPI_Type_create_hindexed(2, obl, od, MPI_INT, &c.t));
    lay_add(&c.lay, 4, 4), lay_add(&c.lay, 0, 8);
    run_case(&c), free_case(&c);

    c = (tcase_t){.name = "struct{double,char}"};
    int sbl[] = {1, 1};
    MPI_Aint sd[] = {0, 8};
    MPI_Datatype sty[] = {MPI_DOUBLE, MPI_CHAR};
    OK(MPI_Type_create_struct(2, sbl, sd, sty, &c.t));
    lay_add(&c.lay, 0, 9);
    run_case(&c), free_case(&c);

    c = (tcase_t){.name = "contiguous(2,resized(int,-4,12))"};
    OK(MPI_Type_create_resized(MPI_INT, -4, 12, &tmp));
    OK(MPI_Type_contiguous(2, tmp, &c.t));
    OK(MPI_Type_free(&tmp));
    lay_add(&c.lay, 0, 4), lay_add(&c.lay, 12, 4);
    run_case(&c), free_case(&c);

    c = (tcase_t){.name = "interleaved resized(vector(2,1,3,double),0,8)"};
    OK(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &tmp));
    OK(MPI_Type_create_resized(tmp, 0, 8, &c.t));
    OK(MPI_Type_free(&tmp));
    lay_add(&c.lay, 0, 8), lay_add(&c.lay, 24, 8);
    /* elements at 0/24, 8/32, 16/40: disjoint for counts <= 3 */
    OK(MPI_Type_commit(&c.t));
    check_case(&c, 1, true);
    check_case(&c, 3, false);
    free_case(&c);

    /* vector(3,2,3) of struct{indexed shorts, 2 ints at 11} (datatype_test) */
    c = (tcase_t){.name = "vector of struct of indexed"};
    int ibl[] = {1, 2}, idp[] = {0, 3};
    OK(MPI_Type_indexed(2, ibl, idp, MPI_SHORT, &tmp));
    int s2bl[] = {1, 2};
    MPI_Aint s2d[] = {0, 11};
    MPI_Datatype s2ty[] = {tmp, MPI_INT};
    OK(MPI_Type_create_struct(2, s2bl, s2d, s2ty, &tmp2));
    OK(MPI_Type_vector(3, 2, 3, tmp2, &c.t));
    OK(MPI_Type_free(&tmp));
    OK(MPI_Type_free(&tmp2));
    for (int b = 0; b < 3; b++)
        for (int s = 0; s < 2; s++) {
            MPI_Aint base = b * 60 + s * 20;
            lay_add(&c.lay, base, 2), lay_add(&c.lay, base + 6, 4);
            lay_add(&c.lay, base + 11, 8);
        }
    run_case(&c), free_case(&c);

    c = (tcase_t){.name = "MPI_DOUBLE_INT", .t = MPI_DOUBLE_INT};
    lay_add(&c.lay, 0, 12);
    run_case(&c), free_case(&c);
    c = (tcase_t){.name = "MPI_SHORT_INT", .t = MPI_SHORT_INT};
    lay_add(&c.lay, 0, 2), lay_add(&c.lay, 4, 4);
    run_case(&c), free_case(&c);
    c = (tcase_t){.name = "MPI_INT", .t = MPI_INT};
    lay_add(&c.lay, 0, 4);
    run_case(&c), free_case(&c);

    c = (tcase_t){.name = "hvector(200,1,3,char)"};
    OK(MPI_Type_create_hvector(200, 1, 3, MPI_CHAR, &c.t));
    for (int i = 0; i < 200; i++) lay_add(&c.lay, 3 * i, 1);
    run_case(&c), free_case(&c);

    c = (tcase_t){.name = "contiguous(0,int)"};
    OK(MPI_Type_contiguous(0, MPI_INT, &c.t));
    run_case(&c), free_case(&c);

    /* dense types: one memcpy for any count, contiguous fast path */
    c = (tcase_t){.name = "contiguous(1000,double)"};
    OK(MPI_Type_contiguous(1000, MPI_DOUBLE, &c.t));
    lay_add(&c.lay, 0, 8000);
    run_case(&c);
    mdt_type_t *t = mdt_get(c.t);
    void *addr = NULL;
    char dummy[8];
    CHECK(t->dense && t->npieces == 1);
    CHECK(mdt_is_contig(t, 7, dummy, &addr) && addr == dummy);
    free_case(&c);
    /* contiguous of a dense struct is dense; a padded struct is not */
    int pbl[] = {1, 1};
    MPI_Aint pd[] = {0, 4};
    MPI_Datatype pty[] = {MPI_INT, MPI_FLOAT};
    OK(MPI_Type_create_struct(2, pbl, pd, pty, &tmp));
    OK(MPI_Type_contiguous(10, tmp, &tmp2));
    OK(MPI_Type_commit(&tmp2));
    t = mdt_get(tmp2);
    CHECK(t->dense && t->npieces == 1 && t->pieces[0].len == 80);
    OK(MPI_Type_free(&tmp));
    OK(MPI_Type_free(&tmp2));
    t = mdt_get(MPI_DOUBLE_INT);
    CHECK(!t->dense && !mdt_is_contig(t, 2, dummy, &addr) && mdt_is_contig(t, 1, dummy, &addr));
    /* a vector that is really contiguous merges into one piece */
    OK(MPI_Type_vector(4, 2, 2, MPI_INT, &tmp));
    OK(MPI_Type_commit(&tmp));
    t = mdt_get(tmp);
    CHECK(t->dense && t->npieces == 1 && t->pieces[0].len == 32);
    OK(MPI_Type_free(&tmp));
}

/* MPI_BOTTOM with absolute addresses (MPI_Get_address). */
static void test_bottom(void)
{
    struct {
        double x;
        int pad;
        int y[3];
    } s = {1.5, -1, {7, 8, 9}}, r = {0, -1, {0, 0, 0}};
    MPI_Aint a[2];
    OK(MPI_Get_address(&s.x, &a[0]));
    OK(MPI_Get_address(&s.y[0], &a[1]));
    int bl[] = {1, 3};
    MPI_Datatype ty[] = {MPI_DOUBLE, MPI_INT}, t;
    OK(MPI_Type_create_struct(2, bl, a, ty, &t));
    OK(MPI_Type_commit(&t));
    unsigned char packed[20];
    int pos = 0;
    OK(MPI_Pack(MPI_BOTTOM, 1, t, packed, sizeof packed, &pos, MPI_COMM_SELF));
    CHECK_EQ(pos, 20);
    OK(MPI_Type_free(&t));
    OK(MPI_Get_address(&r.x, &a[0]));
    OK(MPI_Get_address(&r.y[0], &a[1]));
    OK(MPI_Type_create_struct(2, bl, a, ty, &t));
    OK(MPI_Type_commit(&t));
    pos = 0;
    OK(MPI_Unpack(packed, sizeof packed, &pos, MPI_BOTTOM, 1, t, MPI_COMM_SELF));
    CHECK(r.x == 1.5 && r.pad == -1 && r.y[0] == 7 && r.y[1] == 8 && r.y[2] == 9);
    OK(MPI_Type_free(&t));
}

/* ---- random nested types against a reference expansion -------------------- */

typedef struct rtype {
    MPI_Datatype h;
    int nent;
    struct rtype *child[3];
    int bl[8];
    MPI_Aint disp[8];
    struct rtype *one; /* the child of all entries when not a struct */
    bool is_struct, basic;
    MPI_Aint basic_size;
} rtype_t;

/* The type map of r at base, one segment per basic element, by recursion on
 * the constructor arguments (independent of the engine's flattening). */
static void expand(const rtype_t *r, MPI_Aint base, layout_t *out)
{
    if (r->basic) {
        lay_add(out, base, r->basic_size);
        return;
    }
    for (int i = 0; i < r->nent; i++) {
        const rtype_t *c = r->is_struct ? r->child[i] : r->one;
        MPI_Aint ext = extent_of(c->h);
        for (int k = 0; k < r->bl[i]; k++) expand(c, base + r->disp[i] + k * ext, out);
    }
}

static rtype_t *rgen(int depth)
{
    rtype_t *r = calloc(1, sizeof *r);
    static const MPI_Datatype basics[] = {MPI_CHAR, MPI_SHORT, MPI_INT, MPI_DOUBLE};
    static const MPI_Aint bsz[] = {1, 2, 4, 8};
    if (depth == 0 || rnd() % 4 == 0) {
        int i = (int)rnd_in(0, 3);
        r->basic = true;
        r->h = basics[i];
        r->basic_size = bsz[i];
        return r;
    }
    int kind = (int)rnd_in(0, 5);
    if (kind == 5) { /* resized: sticky bounds, room of 0..8 bytes after the data */
        r->one = rgen(depth - 1);
        MPI_Aint tlb, text;
        OK(MPI_Type_get_true_extent(r->one->h, &tlb, &text));
        MPI_Aint lb = tlb - rnd_in(0, 4);
        r->nent = 1;
        r->bl[0] = 1;
        r->disp[0] = 0;
        OK(MPI_Type_create_resized(r->one->h, lb, (tlb + text) - lb + rnd_in(0, 8), &r->h));
        return r;
    }
    if (kind == 4) {
        r->is_struct = true;
        r->nent = (int)rnd_in(1, 3);
        MPI_Datatype ty[3];
        MPI_Aint at = (MPI_Aint)rnd_in(-16, 16);
        for (int i = 0; i < r->nent; i++) {
            r->child[i] = rgen(depth - 1);
            ty[i] = r->child[i]->h;
            r->bl[i] = (int)rnd_in(0, 3);
            r->disp[i] = at;
            at += r->bl[i] * extent_of(ty[i]) + rnd_in(0, 8);
        }
        OK(MPI_Type_create_struct(r->nent, r->bl, r->disp, ty, &r->h));
        return r;
    }
    r->one = rgen(depth - 1);
    MPI_Aint ext = extent_of(r->one->h);
    if (kind == 0) { /* contiguous */
        r->nent = 1;
        r->bl[0] = (int)rnd_in(0, 4);
        OK(MPI_Type_contiguous(r->bl[0], r->one->h, &r->h));
    } else if (kind == 1) { /* vector, stride may be negative (no overlap) */
        int n = (int)rnd_in(1, 4), b = (int)rnd_in(1, 3);
        int stride = (int)rnd_in(b, b + 3) * (rnd() % 3 == 0 ? -1 : 1);
        r->nent = n;
        for (int i = 0; i < n; i++) r->bl[i] = b, r->disp[i] = (MPI_Aint)i * stride * ext;
        OK(MPI_Type_vector(n, b, stride, r->one->h, &r->h));
    } else if (kind == 2) { /* hvector with a byte stride */
        int n = (int)rnd_in(1, 4), b = (int)rnd_in(1, 2);
        MPI_Aint stride = b * ext + rnd_in(0, 5);
        r->nent = n;
        for (int i = 0; i < n; i++) r->bl[i] = b, r->disp[i] = (MPI_Aint)i * stride;
        OK(MPI_Type_create_hvector(n, b, stride, r->one->h, &r->h));
    } else { /* indexed with displacements in decreasing order */
        int n = (int)rnd_in(1, 4), d[8], at = 40;
        r->nent = n;
        for (int i = 0; i < n; i++) {
            r->bl[i] = (int)rnd_in(0, 3);
            at -= r->bl[i] + (int)rnd_in(0, 2);
            d[i] = at;
            r->disp[i] = (MPI_Aint)d[i] * ext;
        }
        OK(MPI_Type_indexed(n, r->bl, d, r->one->h, &r->h));
    }
    return r;
}

static void rfree(rtype_t *r)
{
    if (!r) return;
    if (!r->basic) OK(MPI_Type_free(&r->h));
    for (int i = 0; i < 3; i++) rfree(r->child[i]);
    rfree(r->one);
    free(r);
}

static bool overlaps(const layout_t *l, MPI_Aint ext, int count)
{
    MPI_Aint lo = 0, hi = 0;
    for (int k = 0; k < count; k++)
        for (size_t i = 0; i < l->n; i++) {
            MPI_Aint a = k * ext + l->s[i].off;
            if (a < lo) lo = a;
            if (a + l->s[i].len > hi) hi = a + l->s[i].len;
        }
    unsigned char *m = calloc((size_t)(hi - lo) + 1, 1);
    bool ov = false;
    for (int k = 0; k < count && !ov; k++)
        for (size_t i = 0; i < l->n && !ov; i++)
            for (MPI_Aint j = 0; j < l->s[i].len; j++)
                if (m[k * ext + l->s[i].off + j - lo]++) ov = true;
    free(m);
    return ov;
}

static void test_random_types(void)
{
    for (int iter = 0; iter < 150; iter++) {
        rtype_t *r = rgen((int)rnd_in(1, 4));
        if (r->basic) {
            free(r);
            continue;
        }
        tcase_t c = {.name = "random", .t = r->h};
        expand(r, 0, &c.lay);
        MPI_Count sum = 0;
        for (size_t i = 0; i < c.lay.n; i++) sum += c.lay.s[i].len;
        CHECK_EQ(sum, size_of(r->h));
        OK(MPI_Type_commit(&c.t));
        r->h = c.t;
        for (int count = 1; count <= 3; count++) {
            c.overlap = overlaps(&c.lay, extent_of(c.t), count);
            check_case(&c, count, sum * count <= 24);
        }
        /* element counts match the reference's basic elements */
        MPI_Status st = {0};
        mdt_status_set_bytes(&st, sum);
        int ne;
        OK(MPI_Get_elements(&st, c.t, &ne));
        CHECK_EQ(ne, (int)c.lay.n);
        free(c.lay.s);
        rfree(r);
    }
}

int main(void)
{
    uint32_t live = mdt_live_count();
    test_hand_cases();
    test_bottom();
    test_random_types();
    CHECK_EQ(tree_cases, 0);
    /* again with types of more than 3 pieces left unflattened */
    mdt_set_max_pieces(3);
    test_hand_cases();
    test_random_types();
    CHECK(tree_cases > 100);
    CHECK_EQ(mdt_live_count(), live);
    t_done("mpi_pack");
    return 0;
}
