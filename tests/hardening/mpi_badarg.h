/* The row machinery of the mpi.h bad-argument tables (mpi_badarg_test.c,
 * mpi_badarg_more_test.c): T(class, call) runs one call with one bad
 * argument and compares the error class it returned with the one the
 * standard gives; KNOWN rows are mismatches reported in
 * docs/RELIABILITY.md, printed but not failed. */
#ifndef SLUICE_TEST_MPI_BADARG_H
#define SLUICE_TEST_MPI_BADARG_H

#include <mpi.h>
#include <stdio.h>

static int tried, matched, unexpected;

static inline void row(const char *call, int line, int expect, int rc, int known)
{
    int cls = rc;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    tried++;
    if (cls == expect) {
        matched++;
        if (known) printf("line %d: %s now returns the expected class %d (drop KNOWN)\n", line, call, expect);
        return;
    }
    char want[MPI_MAX_ERROR_STRING], got[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(expect, want, &len);
    if (MPI_Error_string(cls, got, &len) != MPI_SUCCESS) snprintf(got, sizeof got, "class %d", cls);
    printf("%s line %d: %s returned %d (%s), expected %d (%s)\n", known ? "known" : "MISMATCH", line,
           call, cls, got, expect, want);
    if (!known) unexpected++;
}

/* MPI_Init, errors returned on WORLD and SELF, and a singleton job
 * checked (the tables name rank 1 as out of range). */
static inline void badarg_init(int *argc, char ***argv, const char *name)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Init(argc, argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 1) {
        fprintf(stderr, "%s: run it as a singleton\n", name);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

#define T(expect, call) row(#call, __LINE__, expect, (call), 0)
#define KNOWN(expect, call) row(#call, __LINE__, expect, (call), 1)

#endif
