/* An MPI program started by a launcher other than sluicerun (Open MPI's
 * mpirun, srun --mpi=pmix or --mpi=pmi2): the job has the size the launcher
 * was asked for, the bootstrap went through the expected client, and every
 * rank exchanges data with rank 0 at eager, medium and rendezvous sizes,
 * each byte checked; an allreduce checks the ranks once more.
 * usage: boot_launch_pingpong pmix|pmi1 SIZE */
#include "boot/boot.h"
#include "test.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pattern of one message: who sent it to whom in which round. */
static uint64_t seed_of(int from, int to, int round)
{
    return ((uint64_t)round << 32) | ((uint64_t)from << 16) | (uint64_t)to;
}

/* Rank 0 sends to peer, peer checks and answers with its own pattern. */
static void pingpong(int rank, int peer, unsigned char *buf, size_t n, int round)
{
    MPI_Status status;
    int count = -1;
    if (rank == 0) {
        t_fill(buf, n, seed_of(0, peer, round));
        CHECK_EQ(MPI_Send(buf, (int)n, MPI_BYTE, peer, round, MPI_COMM_WORLD), MPI_SUCCESS);
        memset(buf, 0, n);
        CHECK_EQ(MPI_Recv(buf, (int)n, MPI_BYTE, peer, round, MPI_COMM_WORLD, &status),
                 MPI_SUCCESS);
        MPI_Get_count(&status, MPI_BYTE, &count);
        CHECK_EQ(count, (int)n);
        size_t bad = t_verify(buf, n, seed_of(peer, 0, round));
        CHECK_MSG(bad == (size_t)-1, "%zu bytes from rank %d: byte %zu wrong", n, peer, bad);
    } else {
        memset(buf, 0, n);
        CHECK_EQ(MPI_Recv(buf, (int)n, MPI_BYTE, 0, round, MPI_COMM_WORLD, &status), MPI_SUCCESS);
        MPI_Get_count(&status, MPI_BYTE, &count);
        CHECK_EQ(count, (int)n);
        size_t bad = t_verify(buf, n, seed_of(0, rank, round));
        CHECK_MSG(bad == (size_t)-1, "%zu bytes from rank 0: byte %zu wrong", n, bad);
        t_fill(buf, n, seed_of(rank, 0, round));
        CHECK_EQ(MPI_Send(buf, (int)n, MPI_BYTE, 0, round, MPI_COMM_WORLD), MPI_SUCCESS);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "pmix") != 0 && strcmp(argv[1], "pmi1") != 0)) {
        fprintf(stderr, "usage: boot_launch_pingpong pmix|pmi1 SIZE\n");
        return 2;
    }
    int want_size = atoi(argv[2]);
    boot_client_t want_client = strcmp(argv[1], "pmix") == 0 ? BOOT_CLIENT_PMIX : BOOT_CLIENT_PMI1;
    CHECK_EQ(MPI_Init(&argc, &argv), MPI_SUCCESS);
    int rank = -1, size = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_MSG(size == want_size, "rank %d: job of %d ranks, launcher asked for %d", rank, size,
              want_size);
    /* the library's bootstrap handle is shared: this is the one MPI_Init used */
    boot_t *boot = NULL;
    CHECK_OK(boot_init(&boot));
    const boot_info_t *info = boot_get_info(boot);
    CHECK_MSG(info->client == want_client, "rank %d started through %s, want %s", rank,
              boot_client_name(info->client), boot_client_name(want_client));
    CHECK_EQ(info->rank, rank);
    CHECK_OK(boot_fini(boot));

    static const size_t sizes[] = {8, 4096, 65536, 1u << 20};
    unsigned char *buf = malloc(1u << 20);
    CHECK(buf != NULL);
    int round = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int rep = 0; rep < 3; rep++, round++)
            for (int peer = 1; peer < size; peer++)
                if (rank == 0 || rank == peer) pingpong(rank, peer, buf, sizes[s], round);
    free(buf);

    int sum = 0;
    CHECK_EQ(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_EQ(sum, size * (size - 1) / 2);
    printf("boot_launch_pingpong: rank %d of %d through %s ok\n", rank, size,
           boot_client_name(want_client));
    CHECK_EQ(MPI_Finalize(), MPI_SUCCESS);
    t_done("boot_launch_pingpong");
    return 0;
}
