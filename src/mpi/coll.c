/* MPI_Bcast, MPI_Reduce and MPI_Allreduce: blocking binomial trees over
 * p2p, the same stopgap as barrier.c until the non-blocking schedule
 * engine of DESIGN.md §5 (src/coll) takes the collectives over.
 *
 * Like the barrier they run on the communicator's collective context
 * (ctx | MCOMM_COLL_CTX), so they never match user messages on the same
 * communicator, each with a tag of its own (the barrier uses its rounds,
 * 0..31, comm.c 100 and 101).  Collectives are blocking and called in the
 * same order everywhere, and p2p does not overtake, so one tag per kind is
 * enough.
 *
 * Data travels as packed streams (mdt_pack): a non-contiguous buffer is
 * packed once, reductions combine streams (op.h), and the result is
 * unpacked into the receive buffer at the end. */
#include "mpi/datatype.h"
#include "mpi/mpi_int.h"
#include "mpi/op.h"
#include "mpi/request.h"
#include "p2p/p2p.h"

#include <stdlib.h>
#include <string.h>

#define COLL_TAG_BCAST 200
#define COLL_TAG_REDUCE 201
#define COLL_TAG_REDUCE_ROOT 202 /* non-commutative: rank 0 hands the result to root */
#define COLL_TAG_ALLREDUCE 203

/* ---- messages ------------------------------------------------------------------------ */

static int coll_send(const mcomm_t *c, int r, int tag, const void *buf, size_t len)
{
    p2p_req_t *q;
    p2p_status_t ps;
    sl_status_t st = p2p_isend(buf, len, mcomm_world(c, r), tag, c->ctx | MCOMM_COLL_CTX, &q);
    if (st == SL_OK) st = p2p_wait(q, &ps);
    return mreq_class(st != SL_OK ? st : ps.error);
}

/* Exactly len bytes must arrive: more is a truncation, fewer means the
 * ranks passed type signatures that do not match (MPI 3.1 §5.1). */
static int coll_recv(const mcomm_t *c, int r, int tag, void *buf, size_t len)
{
    p2p_req_t *q;
    p2p_status_t ps;
    sl_status_t st = p2p_irecv(buf, len, mcomm_world(c, r), tag, c->ctx | MCOMM_COLL_CTX, &q);
    if (st == SL_OK) st = p2p_wait(q, &ps);
    if (st != SL_OK) return mreq_class(st);
    if (ps.error == SL_ERR_TRUNCATE || ps.sent > len) return MPI_ERR_TRUNCATE;
    if (ps.error != SL_OK) return mreq_class(ps.error);
    return ps.bytes == len ? MPI_SUCCESS : MPI_ERR_OTHER;
}

/* ---- the trees ----------------------------------------------------------------------- */

/* Binomial broadcast of len bytes from root: every rank but the root
 * receives once from its parent, then sends to its children, farthest
 * first. */
static int coll_bcast_bytes(const mcomm_t *c, void *buf, size_t len, int root, int tag)
{
    int n = c->size, vr = (c->rank - root + n) % n, mask = 1, err = MPI_SUCCESS;
    for (; mask < n; mask <<= 1)
        if (vr & mask) {
            err = coll_recv(c, (vr - mask + root) % n, tag, buf, len);
            break;
        }
    for (mask >>= 1; mask > 0 && !err; mask >>= 1)
        if (vr + mask < n) err = coll_send(c, (vr + mask + root) % n, tag, buf, len);
    return err;
}

/* Binomial reduction of the streams *acc (count elements) towards vroot:
 * on return vroot's *acc holds the result.  The subtree a rank gathers is
 * the contiguous run of virtual ranks above it, so with vroot 0 the
 * operands meet in rank order, as a non-commutative op needs: the lower
 * part is always the op's first operand.  *tmp is scratch of the same
 * size; the two may be swapped. */
static int coll_reduce_tree(const mcomm_t *c, const mop_plan_t *p, void **acc, void **tmp,
                            MPI_Count count, size_t len, int vroot, int tag)
{
    int n = c->size, vr = (c->rank - vroot + n) % n;
    for (int mask = 1; mask < n; mask <<= 1) {
        if (vr & mask) return coll_send(c, (vr - mask + vroot) % n, tag, *acc, len);
        if (vr + mask >= n) continue;
        int err = coll_recv(c, (vr + mask + vroot) % n, tag, *tmp, len);
        if (!err) err = mop_apply(p, *acc, *tmp, count); /* tmp = acc op tmp */
        if (err) return err;
        void *t = *acc;
        *acc = *tmp;
        *tmp = t;
    }
    return MPI_SUCCESS;
}

/* ---- argument checks ----------------------------------------------------------------- */

/* The checks every one of these calls makes; fills *c and *t. */
static int coll_check(MPI_Comm comm, int count, MPI_Datatype dt, mcomm_t **c, mdt_type_t **t,
                      const char *fname)
{
    int err;
    if (!(*c = mcomm_get(comm))) return mpi_err(NULL, MPI_ERR_COMM, fname, NULL);
    if (count < 0) return mpi_err(*c, MPI_ERR_COUNT, fname, "negative count");
    if (!(*t = mdt_get_committed(dt, &err))) return mpi_err(*c, err, fname, NULL);
    return MPI_SUCCESS;
}

/* A buffer that must hold data: MPI_IN_PLACE is not one, and NULL
 * (MPI_BOTTOM) is only for derived types of absolute addresses. */
static bool coll_bad_buf(const void *buf, int count, MPI_Datatype dt, const mdt_type_t *t)
{
    if (count == 0 || t->size == 0) return false;
    return buf == MPI_IN_PLACE || (!buf && MDT_IS_BUILTIN(dt));
}

/* The reduction checks after coll_check: op against type, the buffers. */
static int coll_reduce_check(const mcomm_t *c, const void *sbuf, const void *rbuf, int count,
                             MPI_Datatype dt, const mdt_type_t *t, MPI_Op op, bool rbuf_used,
                             mop_plan_t *p, const char *fname)
{
    if (mop_plan(op, t, dt, p) != MPI_SUCCESS)
        return mpi_err(c, MPI_ERR_OP, fname,
                       "invalid op, or an op that does not apply to the datatype");
    if (sbuf != MPI_IN_PLACE && coll_bad_buf(sbuf, count, dt, t))
        return mpi_err(c, MPI_ERR_BUFFER, fname, "invalid send buffer");
    if (!rbuf_used) return MPI_SUCCESS;
    if (coll_bad_buf(rbuf, count, dt, t))
        return mpi_err(c, MPI_ERR_BUFFER, fname, "invalid receive buffer");
    if (sbuf == rbuf && count > 0 && t->size > 0)
        return mpi_err(c, MPI_ERR_BUFFER, fname,
                       "send and receive buffers alias (use MPI_IN_PLACE)");
    return MPI_SUCCESS;
}

/* ---- MPI_Bcast ----------------------------------------------------------------------- */

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    MPI_CHECK_STATE("MPI_Bcast");
    mcomm_t *c;
    mdt_type_t *t;
    int err = coll_check(comm, count, datatype, &c, &t, "MPI_Bcast");
    if (err) return err;
    if (root < 0 || root >= c->size) return mpi_err(c, MPI_ERR_ROOT, "MPI_Bcast", NULL);
    if (coll_bad_buf(buffer, count, datatype, t))
        return mpi_err(c, MPI_ERR_BUFFER, "MPI_Bcast", "invalid buffer");
    size_t len = (size_t)count * (size_t)t->size;
    if (len == 0 || c->size == 1) return MPI_SUCCESS;
    void *addr, *tmp = NULL;
    if (!mdt_is_contig(t, count, buffer, &addr)) {
        if (!(addr = tmp = malloc(len))) return mpi_err(c, MPI_ERR_NO_MEM, "MPI_Bcast", NULL);
        if (c->rank == root) mdt_pack(t, buffer, count, tmp);
    }
    err = coll_bcast_bytes(c, addr, len, root, COLL_TAG_BCAST);
    if (!err && tmp && c->rank != root) mdt_unpack(t, buffer, count, tmp);
    free(tmp);
    return err ? mpi_err(c, err, "MPI_Bcast", "a message of the broadcast failed") : MPI_SUCCESS;
}

/* ---- MPI_Reduce and MPI_Allreduce ---------------------------------------------------- */

/* Two stream buffers of len bytes; *acc starts as this rank's operand. */
static int coll_streams(const void *src, int count, const mdt_type_t *t, size_t len, void **acc,
                        void **tmp)
{
    *acc = malloc(len);
    *tmp = malloc(len);
    if (!*acc || !*tmp) {
        free(*acc);
        free(*tmp);
        return MPI_ERR_NO_MEM;
    }
    mdt_pack(t, src, count, *acc);
    return MPI_SUCCESS;
}

/* The reduction to root.  A commutative op takes the tree rooted at root;
 * one that does not reduces to rank 0 in rank order, which then sends the
 * result on to root. */
static int coll_reduce(const mcomm_t *c, const mop_plan_t *p, void **acc, void **tmp, int count,
                       size_t len, int root)
{
    if (p->commute) return coll_reduce_tree(c, p, acc, tmp, count, len, root, COLL_TAG_REDUCE);
    int err = coll_reduce_tree(c, p, acc, tmp, count, len, 0, COLL_TAG_REDUCE);
    if (err || root == 0) return err;
    if (c->rank == 0) return coll_send(c, root, COLL_TAG_REDUCE_ROOT, *acc, len);
    if (c->rank == root) return coll_recv(c, 0, COLL_TAG_REDUCE_ROOT, *acc, len);
    return MPI_SUCCESS;
}

/* The data part of MPI_Reduce (root >= 0) and MPI_Allreduce (root < 0):
 * packed streams of the contribution, the reduction, the result unpacked
 * where it belongs. */
static int reduce_run(mcomm_t *c, mop_plan_t *p, mdt_type_t *t, const void *sendbuf,
                      void *recvbuf, int count, int root, const char *fname)
{
    size_t len = (size_t)count * (size_t)t->size;
    if (len == 0) return MPI_SUCCESS;
    void *acc, *tmp;
    const void *src = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (coll_streams(src, count, t, len, &acc, &tmp))
        return mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
    int err;
    if (root >= 0) {
        err = coll_reduce(c, p, &acc, &tmp, count, len, root);
    } else {
        err = coll_reduce_tree(c, p, &acc, &tmp, count, len, 0, COLL_TAG_REDUCE);
        if (!err) err = coll_bcast_bytes(c, acc, len, 0, COLL_TAG_ALLREDUCE);
    }
    if (!err && (root < 0 || c->rank == root)) mdt_unpack(t, recvbuf, count, acc);
    free(acc);
    free(tmp);
    return err ? mpi_err(c, err, fname, "the reduction failed") : MPI_SUCCESS;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    MPI_CHECK_STATE("MPI_Reduce");
    mcomm_t *c;
    mdt_type_t *t;
    mop_plan_t p;
    int err = coll_check(comm, count, datatype, &c, &t, "MPI_Reduce");
    if (err) return err;
    if (root < 0 || root >= c->size) return mpi_err(c, MPI_ERR_ROOT, "MPI_Reduce", NULL);
    bool is_root = c->rank == root;
    if (sendbuf == MPI_IN_PLACE && !is_root)
        return mpi_err(c, MPI_ERR_BUFFER, "MPI_Reduce", "MPI_IN_PLACE on a rank that is not root");
    err = coll_reduce_check(c, sendbuf, recvbuf, count, datatype, t, op, is_root, &p, "MPI_Reduce");
    if (err) return err;
    return reduce_run(c, &p, t, sendbuf, recvbuf, count, root, "MPI_Reduce");
}

/* Reduce to rank 0 in rank order (right for every op), then broadcast: two
 * trees of log2 P steps each; recursive doubling would halve that, but
 * needs care for non-commutative ops and sizes that are not powers of two,
 * and the schedule engine replaces this anyway. */
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    MPI_CHECK_STATE("MPI_Allreduce");
    mcomm_t *c;
    mdt_type_t *t;
    mop_plan_t p;
    int err = coll_check(comm, count, datatype, &c, &t, "MPI_Allreduce");
    if (err) return err;
    err = coll_reduce_check(c, sendbuf, recvbuf, count, datatype, t, op, true, &p, "MPI_Allreduce");
    if (err) return err;
    return reduce_run(c, &p, t, sendbuf, recvbuf, count, -1, "MPI_Allreduce");
}
