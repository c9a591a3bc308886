/* The table machinery of the bad-argument tests: a file defines
 * NO_INIT_ROWS(X) and ROWS(X) as lists of X(name, call, documented code),
 * then BADARG_TABLES() makes the rows and the functions that make the i-th
 * call, and badarg_check() runs a table and counts the calls that did not
 * return their documented code (printing each). */
#ifndef SLUICE_TEST_BADARG_H
#define SLUICE_TEST_BADARG_H

#include <stdio.h>

#define BADARG_ROW_NAME(nm, call, want) {nm, want},
#define BADARG_ROW_CALL(nm, call, want) if (i == k++) return (call);

typedef struct badarg_row {
    const char *name;
    int want;
} badarg_row_t;

#define BADARG_TABLES()                                                                        \
    static const badarg_row_t no_init_rows[] = {NO_INIT_ROWS(BADARG_ROW_NAME)};                \
    static const badarg_row_t rows[] = {ROWS(BADARG_ROW_NAME)};                                \
    static int no_init_call(int i)                                                             \
    {                                                                                          \
        int k = 0;                                                                             \
        NO_INIT_ROWS(BADARG_ROW_CALL)                                                          \
        return -1000;                                                                          \
    }                                                                                          \
    static int call(int i)                                                                     \
    {                                                                                          \
        int k = 0;                                                                             \
        ROWS(BADARG_ROW_CALL)                                                                  \
        return -1000;                                                                          \
    }

static inline int badarg_check(const char *what, const badarg_row_t *t, int n, int (*fn)(int))
{
    int ok = 0;
    for (int i = 0; i < n; i++) {
        int got = fn(i);
        if (got == t[i].want) ok++;
        else printf("MISMATCH %s: %s returned %d, documented %d\n", what, t[i].name, got, t[i].want);
    }
    printf("%s: %d calls, %d returned the documented code\n", what, n, ok);
    return n - ok;
}

#endif
