/* Tree shapes over virtual ranks 0..n-1 (the root is 0), each numbered in
 * preorder: node v's subtree is [v, v + span) and its children come in
 * increasing order, each child's subtree following the previous one's.
 *
 *   knomial  v's parent is v with its lowest non-zero base-k digit
 *            cleared; k = 2 is the binomial tree
 *   kary     the n - 1 nodes below a root split into k contiguous parts of
 *            nearly equal size, each a kary tree again (a complete k-ary
 *            tree, numbered depth first); k = 1 is the chain, k >= n - 1
 *            the flat tree
 *   chain    0 -> 1 -> ... -> n-1
 *   flat     the root is everyone's parent */
#include "coll/coll_int.h"

static void knomial(int k, int n, int v, coll_tree_t *t)
{
    long pw = 1; /* k^l */
    t->parent = -1;
    t->span = n - v;
    /* the lowest non-zero digit of v: its position bounds the children */
    while (v && (v / pw) % k == 0) pw *= k;
    if (v) {
        t->parent = (int)(v - ((v / pw) % k) * pw);
        t->span = (int)(pw < n - v ? pw : n - v);
    }
    /* children v + j k^l for every l below that position */
    for (long p = 1; (v == 0 || p < pw) && p < n; p *= k)
        for (int j = 1; j < k; j++) {
            long c = v + j * p;
            if (c >= n || t->nchild == COLL_TREE_MAXCHILD) break;
            t->child[t->nchild++] = (int)c;
        }
}

/* The part sizes of m nodes split k ways: the first m % k get one more. */
static int part(int m, int k, int i)
{
    return m / k + (i < m % k);
}

static void kary(int k, int n, int v, coll_tree_t *t)
{
    int lo = 0, hi = n; /* the subtree being searched: root lo */
    t->parent = -1;
    while (lo != v) {
        int m = hi - lo - 1, at = lo + 1, parts = k < m ? k : m;
        for (int i = 0; i < parts; i++) {
            int sz = part(m, parts, i);
            if (v < at + sz) {
                t->parent = lo;
                lo = at;
                hi = at + sz;
                break;
            }
            at += sz;
        }
    }
    t->span = hi - lo;
    int m = hi - lo - 1, at = lo + 1, parts = k < m ? k : m;
    for (int i = 0; i < parts && t->nchild < COLL_TREE_MAXCHILD; i++) {
        t->child[t->nchild++] = at;
        at += part(m, parts, i);
    }
}

void coll_tree(coll_tree_kind_t kind, int k, int n, int v, coll_tree_t *t)
{
    t->nchild = 0;
    if (k < 1) k = 1;
    switch (kind) {
    case CT_KNOMIAL: knomial(k < 2 ? 2 : k, n, v, t); break;
    case CT_CHAIN: kary(1, n, v, t); break;
    case CT_FLAT:
        /* a flat tree wider than a node's child list: a kary one as wide */
        kary(n - 1 < COLL_TREE_MAXCHILD ? (n > 1 ? n - 1 : 1) : COLL_TREE_MAXCHILD, n, v, t);
        break;
    default: kary(k > COLL_TREE_MAXCHILD ? COLL_TREE_MAXCHILD : k, n, v, t); break;
    }
}
