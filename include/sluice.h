/* Sluice extensions to MPI: collectives of your own, as schedules.
 *
 * Paper 004's goal: any communication pattern, written once as a
 * dependency graph (cDAG) of sends, receives, copies and reductions, runs
 * as a non-blocking collective, on the host or compiled onto Portals
 * triggered operations and moved by the engine without the application.
 *
 *   SLUICE_Sched s;
 *   SLUICE_Sched_create(comm, &s);
 *   int r = 0, c = 0;
 *   SLUICE_Sched_recv(s, halo, n, left, 0, &r);       // vertices
 *   SLUICE_Sched_send(s, edge, n, right, 0, NULL);
 *   SLUICE_Sched_reduce(s, halo, sum, k, MPI_DOUBLE, MPI_SUM, &c);
 *   SLUICE_Sched_dep(s, r, c);                         // c after r
 *   MPI_Request req;
 *   SLUICE_Sched_commit(s, SLUICE_EXEC_AUTO, &req);    // a persistent request
 *   for (...) { MPI_Start(&req); compute(); MPI_Wait(&req, MPI_STATUS_IGNORE); }
 *   MPI_Request_free(&req);
 *   SLUICE_Sched_free(&s);
 *
 * Semantics (paper 004 §II): a vertex starts once every vertex it depends
 * on has completed; a send completes when its buffer may be reused, a
 * receive when its buffer holds the message.  Sends and receives match by
 * (source, destination, tag, length); where the graph leaves two matchings
 * possible, either may happen, and the program must be right with both.
 * Messages of a schedule never match point-to-point messages or other
 * collectives.  Buffers are addresses, fixed when the vertex is added:
 * every start of the request uses the same memory.  Every rank of the
 * communicator commits its own schedule (possibly empty) and starts the
 * request as a collective: in the same order as the communicator's other
 * collectives, with the same executor on every rank.
 *
 * Every call returns an MPI error class through the communicator's error
 * handler: MPI_ERR_COMM, MPI_ERR_ARG (a null handle or output, a vertex
 * number that does not exist, any call but dot and free after commit,
 * dependencies that make a cycle: at commit), MPI_ERR_RANK, MPI_ERR_TAG (tags are 0..131071),
 * MPI_ERR_COUNT, MPI_ERR_BUFFER, MPI_ERR_TYPE (reductions need a
 * committed type without gaps), MPI_ERR_OP (an op the datatype does not
 * allow), MPI_ERR_NO_MEM, MPI_ERR_UNSUPPORTED_OPERATION
 * (SLUICE_EXEC_OFFLOAD with any op that has no Portals atomic).  Every
 * reduce vertex has its own op and datatype. */
#ifndef SLUICE_H
#define SLUICE_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sluice_sched *SLUICE_Sched;
#define SLUICE_SCHED_NULL ((SLUICE_Sched)0)

/* Executors for SLUICE_Sched_commit.  AUTO: offload if SLUICE_COLL_EXECUTOR
 * says offload, else host (each rank's schedule differs, so the ranks have
 * nothing else in common to decide on without talking). */
enum { SLUICE_EXEC_AUTO = 0, SLUICE_EXEC_HOST = 1, SLUICE_EXEC_OFFLOAD = 2 };

int SLUICE_Sched_create(MPI_Comm comm, SLUICE_Sched *sched);
/* Vertices; *vertex (may be NULL) receives the new vertex's number. */
int SLUICE_Sched_send(SLUICE_Sched sched, const void *buf, MPI_Count bytes, int dest, int tag,
                      int *vertex);
int SLUICE_Sched_recv(SLUICE_Sched sched, void *buf, MPI_Count bytes, int source, int tag,
                      int *vertex);
int SLUICE_Sched_copy(SLUICE_Sched sched, const void *src, void *dst, MPI_Count bytes,
                      int *vertex);
/* inout[i] = in[i] op inout[i] for count elements of datatype */
int SLUICE_Sched_reduce(SLUICE_Sched sched, const void *in, void *inout, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op, int *vertex);
int SLUICE_Sched_nop(SLUICE_Sched sched, int *vertex);
/* after starts only once before has completed */
int SLUICE_Sched_dep(SLUICE_Sched sched, int before, int after);
/* Freeze the graph and make a persistent request that runs it (inactive
 * until MPI_Start; MPI_Wait/Test complete it; MPI_Request_free frees it).
 * The schedule can be committed once. */
int SLUICE_Sched_commit(SLUICE_Sched sched, int executor, MPI_Request *request);
/* Write this rank's graph as Graphviz to path (after commit). */
int SLUICE_Sched_dot(SLUICE_Sched sched, const char *path);
/* Release the handle (a committed request lives on); *sched becomes NULL. */
int SLUICE_Sched_free(SLUICE_Sched *sched);

#ifdef __cplusplus
}
#endif

#endif
