/* The round-optimal n-block broadcast (paper 004 Table I; Traff and
 * Ripke's circulant schedule): n blocks from virtual rank 0 to p ranks in
 * n - 1 + ceil(log2 p) rounds, every rank sending and receiving at most one
 * block per round.  The receive schedules come from a table precomputed
 * for p <= COLL_ROUNDOPT_PMAX (tools/roundopt_gen.py; the model is in
 * docs/COLL.md). */
#ifndef SL_COLL_ROUNDOPT_H
#define SL_COLL_ROUNDOPT_H

#include "util/status.h"

#include <stdbool.h>
#include <stddef.h>

#define COLL_ROUNDOPT_PMAX 128
/* A message's fixed cost in bytes of transfer (alpha / beta: about 1 us
 * at 16 GB/s on shared memory), for the default block size */
#define COLL_ROUNDOPT_AB 16384

/* [p]: p - 1 rows (ranks 1..p-1) of q characters, R + q + 'A'. */
extern const char *const coll_roundopt_tab[COLL_ROUNDOPT_PMAX + 1];

/* One transfer of virtual rank me: in round `round` it receives block
 * `block` from virtual rank `peer` (send false) or sends it to `peer`. */
typedef struct coll_ro_xfer {
    int round, peer, block;
    bool send;
} coll_ro_xfer_t;

/* The transfers of virtual rank me (0..p-1) in a broadcast of nblk blocks
 * among p ranks, in round order (*out malloc'd, *nout of them; each block
 * is received once).  SL_ERR_INVALID for p outside 1..COLL_ROUNDOPT_PMAX
 * or nblk < 1, SL_ERR_NOMEM, SL_ERR_PROTO if the table would have a rank
 * send a block it does not hold or leave one without all blocks (a bad
 * table: never for the generated one, tests/coll/roundopt_test.c). */
sl_status_t coll_roundopt_plan(int p, int nblk, int me, coll_ro_xfer_t **out, int *nout);

/* Rounds of the broadcast: nblk - 1 + ceil(log2 p). */
int coll_roundopt_rounds(int p, int nblk);

/* The block size for len bytes among p ranks when the variant names none:
 * the n that minimises (n - 1 + q)(alpha + beta len / n) is
 * sqrt((q - 1) len beta / alpha) blocks; one block (the whole message)
 * for p <= 2, where there is nothing to pipeline. */
size_t coll_roundopt_block(int p, size_t len);

#endif
