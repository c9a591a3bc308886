/* EXPECT for the MPI test programs: on a false condition print where and
 * what, then exit 1 (sluicerun then ends the job with that status).  Plain
 * C and MPI only, so the programs also build with other MPIs' mpicc.
 * Define before including, to name more in the message:
 *   MT_CONTEXT  a string expression naming the case being checked
 *   MT_RANK     an int expression, the calling rank */
#ifndef SL_MPI_EXPECT_H
#define SL_MPI_EXPECT_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MT_CONTEXT
#define MT_CONTEXT NULL
#endif
#ifndef MT_RANK
#define MT_RANK (-1)
#endif

static inline __attribute__((noreturn)) void mt_fail(const char *file, int line, const char *expr,
                                                     const char *context, int rank)
{
    if (rank >= 0) fprintf(stderr, "FAIL rank %d %s:%d: %s", rank, file, line, expr);
    else fprintf(stderr, "FAIL %s:%d: %s", file, line, expr);
    if (context) fprintf(stderr, " (%s)", context);
    fputc('\n', stderr);
    exit(1);
}

#define EXPECT(cond)                                                                        \
    do {                                                                                    \
        if (!(cond)) mt_fail(__FILE__, __LINE__, #cond, MT_CONTEXT, MT_RANK);               \
    } while (0)

/* Every byte i < n of buf equals want, an expression of the index variable
 * named i; the first byte that differs is printed, then the check fails. */
#define EXPECT_BYTES(buf, n, i, want)                                                       \
    do {                                                                                    \
        for (size_t i = 0; i < (size_t)(n); i++)                                            \
            if ((buf)[i] != (want)) {                                                       \
                fprintf(stderr, "byte %zu of %zu: %u, expected %u\n", i, (size_t)(n),      \
                        (unsigned)(buf)[i], (unsigned)(want));                              \
                EXPECT(0);                                                                  \
            }                                                                               \
    } while (0)

/* A one-int handshake on MPI_COMM_WORLD, for arranging arrival orders
 * without sleeping: the value sent is the tag, and the receiver checks it.
 * Macros, like EXPECT, so that MT_CONTEXT and MT_RANK are read where used. */
#define MT_TOKEN_SEND(to, tag)                                                              \
    do {                                                                                    \
        int mt_t_ = (tag);                                                                  \
        EXPECT(MPI_Send(&mt_t_, 1, MPI_INT, (to), mt_t_, MPI_COMM_WORLD) == MPI_SUCCESS);   \
    } while (0)
#define MT_TOKEN_RECV(from, tag)                                                            \
    do {                                                                                    \
        int mt_t_ = -1;                                                                     \
        EXPECT(MPI_Recv(&mt_t_, 1, MPI_INT, (from), (tag), MPI_COMM_WORLD,                  \
                        MPI_STATUS_IGNORE) == MPI_SUCCESS &&                                \
               mt_t_ == (tag));                                                             \
    } while (0)

/* The error class of an MPI return code (MPI_ERRORS_RETURN tests) */
static inline int mt_class(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

#endif
