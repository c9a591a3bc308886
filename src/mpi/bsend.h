/* Buffered-mode sends out of the buffer attached by MPI_Buffer_attach
 * (bsend.c, prefix mbsend_). */
#ifndef SLUICE_MPI_BSEND_H
#define SLUICE_MPI_BSEND_H

#include "p2p/p2p.h"

#include <stddef.h>

/* Room for a packed message of `bytes` in the attached buffer (waiting for
 * earlier buffered sends to finish if they hold the space), or NULL: no
 * buffer, or it cannot hold the message (MPI_ERR_BUFFER). */
void *mbsend_reserve(size_t bytes);
/* The send out of a reserved segment has started: reclaim it when p ends. */
void mbsend_started(void *data, p2p_req_t *p);
/* The send could not start: give the segment back. */
void mbsend_release(void *data);
/* Wait for every buffered send (MPI_Buffer_detach, MPI_Finalize). */
void mbsend_drain(void);

#endif
