/* MPI_Barrier by dissemination (ceil(log2 P) rounds: in round k rank r
 * sends to r + 2^k and receives from r - 2^k).  It runs on the
 * communicator's collective context (ctx | P2P_COLL_CTX), apart from user
 * messages, with the round as tag.  src/coll's schedules will take over the
 * collectives; this is the plain blocking algorithm they generalise. */
#include "mpi/mpi_int.h"
#include "p2p/p2p.h"

sl_status_t mcomm_barrier(const mcomm_t *c)
{
    unsigned ctx = c->ctx | MCOMM_COLL_CTX;
    char token = 0, in;
    for (int k = 0, dist = 1; dist < c->size; k++, dist *= 2) {
        int to = mcomm_world(c, (c->rank + dist) % c->size);
        int from = mcomm_world(c, (c->rank - dist + c->size) % c->size);
        p2p_req_t *r, *s;
        p2p_status_t st;
        if (p2p_irecv(&in, 1, from, k, ctx, &r) != SL_OK ||
            p2p_isend(&token, 1, to, k, ctx, &s) != SL_OK || p2p_wait(s, NULL) != SL_OK ||
            p2p_wait(r, &st) != SL_OK)
            return SL_ERR_PROTO;
    }
    return SL_OK;
}

int MPI_Barrier(MPI_Comm comm)
{
    MPI_CHECK_STATE("MPI_Barrier");
    mcomm_t *c = mcomm_get(comm);
    if (!c) return mpi_err(NULL, MPI_ERR_COMM, "MPI_Barrier", NULL);
    if (mcomm_barrier(c) != SL_OK)
        return mpi_err(c, MPI_ERR_OTHER, "MPI_Barrier", "a message of the barrier failed");
    return MPI_SUCCESS;
}
