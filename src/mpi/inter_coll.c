/* The reductions on intercommunicators (MPI 4.0 §6.2.2, §6.9-6.11): the
 * data of one group are reduced and the result goes to the other group.
 * Reduce: the root (MPI_ROOT) receives, the other members of its group
 * (MPI_PROC_NULL) take part with no data, the remote group contributes.
 * Allreduce and Reduce_scatter(_block): every rank contributes and
 * receives the remote group's result.  Scan and Exscan are not defined on
 * intercommunicators (MPI_ERR_COMM), nor is MPI_IN_PLACE.  The other
 * collectives need no code of their own here: their MPI layer
 * (coll_api.c, coll_move.c) asks mcoll_is_root/mcoll_root_arg and
 * mcomm_peers, and every schedule comes from src/coll/gen_inter.c. */
#include "mpi/mcoll.h"

#include <stdlib.h>

int minter_red(const red_call_t *k, mcomm_t *c, int count, mcoll_mode_t mode, MPI_Request *req,
               const char *fname)
{
    if (k->kind == COLL_SCAN)
        return mpi_err(c, MPI_ERR_COMM, fname, "not defined on intercommunicators");
    bool rooted = k->kind == COLL_REDUCE;
    int err = rooted ? mcoll_check_root(c, k->root, fname) : MPI_SUCCESS;
    if (err) return err;
    bool idle = rooted && k->root == MPI_PROC_NULL, here = rooted && k->root == MPI_ROOT;
    bool use_s = !idle && !here, use_r = !idle && (!rooted || here);
    int rcount = count;
    if (k->kind == COLL_REDUCE_SCATTER) rcount = k->block ? k->bcount : k->counts[c->rank];
    mdt_type_t *t = NULL;
    mop_plan_t p;
    if (use_s) err = mcoll_check_buf(c, k->sbuf, count, k->dt, &t, false, fname);
    if (!err && use_r) err = mcoll_check_buf(c, k->rbuf, rcount, k->dt, &t, false, fname);
    if (err) return err;
    if (!idle && mop_plan(k->op, t, k->dt, &p) != MPI_SUCCESS)
        return mpi_err(c, MPI_ERR_OP, fname, "invalid op, or an op that does not apply to the datatype");
    if (mode != MCOLL_BLOCKING && !req) return mpi_err(c, MPI_ERR_REQUEST, fname, "request is NULL");
    mcoll_t *m = mcoll_new(c);
    if (!m) return mpi_err(c, MPI_ERR_NO_MEM, fname, NULL);
    m->args = (coll_args_t){.kind = k->kind, .root = mcoll_root_arg(c, k->root),
                            .count = (size_t)count};
    if (!idle) mcoll_set_op(m, &p);
    if (k->kind == COLL_REDUCE_SCATTER) { /* the local group's blocks of the remote result */
        if (!(m->counts = malloc(sizeof(size_t) * (size_t)c->size))) err = MPI_ERR_NO_MEM;
        for (int i = 0; !err && i < c->size; i++)
            m->counts[i] = (size_t)(k->block ? k->bcount : k->counts[i]);
        m->args.counts = m->counts;
    }
    if (!err && use_s) err = mcoll_side(m, COLL_SBUF, (void *)(uintptr_t)k->sbuf, count, t, true, false);
    if (!err && use_r) err = mcoll_side(m, COLL_RBUF, k->rbuf, rcount, t, false, true);
    if (err) {
        mcoll_free(m);
        return mpi_err(c, err, fname, NULL);
    }
    return mcoll_launch(m, mode, req, fname);
}
