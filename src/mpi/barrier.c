/* The arrival step of communicator creation (MPI_Comm_dup): a plain
 * blocking dissemination barrier (ceil(log2 P) rounds: in round k rank r
 * sends to r + 2^k and receives from r - 2^k) on the communicator's
 * collective context with the round as tag, in the tags of collective
 * sequence 0, which no schedule uses (src/coll; MPI_Barrier is a
 * schedule, coll_api.c). */
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
