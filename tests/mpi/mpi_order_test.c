/* The seven receive orderings of paper 000 Table 1 against send(t1);
 * send(t2), for small, medium and large messages, with the receives posted
 * first and with the sends first (arranged by a token on another tag, never
 * by sleeping), under whatever SLUICE_PROTOCOL ctest sets.  Expected
 * matches are MPI's; the paper's last row is wrong (DESIGN.md §4):
 *   recv(t1); recv(t2)  s1-r1 s2-r2      recv(*); recv(t1)   s1-r1, r2 none
 *   recv(t2); recv(t1)  s1-r2 s2-r1      recv(t1); recv(*)   s1-r1 s2-r2
 *   recv(*);  recv(*)   s1-r1 s2-r2      recv(t2); recv(*)   s2-r1 s1-r2
 *   recv(*);  recv(t2)  s1-r1 s2-r2
 * Each receive checks the tag, the count and every byte of what it got.
 * The unmatched receive of row 5 must cancel; s2 is then drained. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MT_CONTEXT g_case
#include "mpi_expect.h"

#define T1 11
#define T2 12
#define TOKEN 99
#define ANY MPI_ANY_TAG
static const MPI_Comm W = MPI_COMM_WORLD;
static char g_case[128];

typedef struct row {
    int r1, r2;         /* tags the two receives ask for */
    int got1, got2;     /* which send each receive gets: 1, 2, or 0 = none */
} row_t;

static const row_t rows[7] = {
    {T1, T2, 1, 2}, {T2, T1, 2, 1}, {ANY, ANY, 1, 2}, {ANY, T2, 1, 2},
    {ANY, T1, 1, 0}, {T1, ANY, 1, 2}, {T2, ANY, 2, 1},
};

static unsigned char pat(size_t i, int which)
{
    return (unsigned char)(i * 31u + (i >> 9) + (unsigned)which * 101u);
}

static void token(int to_or_from, int send)
{
    int t = 0;
    if (send) EXPECT(MPI_Send(&t, 1, MPI_INT, to_or_from, TOKEN, W) == MPI_SUCCESS);
    else EXPECT(MPI_Recv(&t, 1, MPI_INT, to_or_from, TOKEN, W, MPI_STATUS_IGNORE) == MPI_SUCCESS);
}

static void sender(size_t n, int recv_first)
{
    unsigned char *a = malloc(n), *b = malloc(n);
    EXPECT(a && b);
    for (size_t i = 0; i < n; i++) a[i] = pat(i, 1), b[i] = pat(i, 2);
    MPI_Request r[2];
    MPI_Status sts[2]; /* not MPI_STATUSES_IGNORE: GCC 12 warns on MPICH's header */
    if (recv_first) token(1, 0);
    EXPECT(MPI_Isend(a, (int)n, MPI_BYTE, 1, T1, W, &r[0]) == MPI_SUCCESS);
    EXPECT(MPI_Isend(b, (int)n, MPI_BYTE, 1, T2, W, &r[1]) == MPI_SUCCESS);
    if (!recv_first) token(1, 1);
    EXPECT(MPI_Waitall(2, r, sts) == MPI_SUCCESS);
    free(a);
    free(b);
}

static void check(const unsigned char *buf, size_t n, const MPI_Status *st, int which)
{
    int count = -1;
    EXPECT(st->MPI_SOURCE == 0 && st->MPI_TAG == (which == 1 ? T1 : T2));
    EXPECT(MPI_Get_count(st, MPI_BYTE, &count) == MPI_SUCCESS && (size_t)count == n);
    for (size_t i = 0; i < n; i++) EXPECT(buf[i] == pat(i, which));
}

static void receiver(const row_t *row, size_t n, int recv_first)
{
    unsigned char *x = calloc(1, n), *y = calloc(1, n);
    EXPECT(x && y);
    MPI_Request r[2];
    MPI_Status st[2];
    if (!recv_first) token(0, 0); /* both messages are here before the token */
    EXPECT(MPI_Irecv(x, (int)n, MPI_BYTE, 0, row->r1, W, &r[0]) == MPI_SUCCESS);
    EXPECT(MPI_Irecv(y, (int)n, MPI_BYTE, 0, row->r2, W, &r[1]) == MPI_SUCCESS);
    if (recv_first) token(0, 1);
    EXPECT(MPI_Wait(&r[0], &st[0]) == MPI_SUCCESS);
    check(x, n, &st[0], row->got1);
    if (row->got2) {
        EXPECT(MPI_Wait(&r[1], &st[1]) == MPI_SUCCESS);
        check(y, n, &st[1], row->got2);
    } else { /* r2 matches nothing: it must cancel, and s2 is still there */
        int flag = 0;
        EXPECT(MPI_Cancel(&r[1]) == MPI_SUCCESS && MPI_Wait(&r[1], &st[1]) == MPI_SUCCESS);
        EXPECT(MPI_Test_cancelled(&st[1], &flag) == MPI_SUCCESS && flag);
        EXPECT(MPI_Recv(y, (int)n, MPI_BYTE, 0, T2, W, &st[1]) == MPI_SUCCESS);
        check(y, n, &st[1], 2);
    }
    free(x);
    free(y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &size);
    snprintf(g_case, sizeof g_case, "setup");
    EXPECT(size == 2);
    const char *e = getenv("SLUICE_EAGER_LIMIT");
    size_t eager = e ? strtoul(e, NULL, 10) : 65536;
    const size_t sizes[3] = {24, eager + 1001, (1u << 20) + 777};
    static const char *const sname[3] = {"small", "medium", "large"};
    for (int s = 0; s < 3; s++)
        for (int k = 0; k < 7; k++)
            for (int rf = 0; rf < 2; rf++) {
                snprintf(g_case, sizeof g_case, "row %d, %s (%zu B), %s", k + 1, sname[s],
                         sizes[s], rf ? "receives first" : "sends first");
                if (rank == 0) sender(sizes[s], rf);
                else receiver(&rows[k], sizes[s], rf);
                MPI_Barrier(W);
            }
    if (rank == 0) {
        const char *m = getenv("SLUICE_PROTOCOL");
        printf("mpi_order_test: ok (42 cases, %s)\n", m && *m ? m : "auto");
    }
    MPI_Finalize();
    return 0;
}
