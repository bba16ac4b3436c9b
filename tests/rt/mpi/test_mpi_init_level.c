/*
 * test_mpi_init_level.c — a program that starts MPI itself without
 * MPI_THREAD_MULTIPLE: tamm_init refuses with TAMM_ECOMM and says which thread
 * level it got and what to do (docs/errors.md, the TAMM_ECOMM row), instead
 * of running its progress thread against an MPI that is not thread safe.
 * Run under TAMM_ON_ERROR=return on 1 and 2 ranks; each rank checks the
 * message it printed on its own standard error.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <tamm.h>

int main(int argc, char **argv)
{
    int provided = -1;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
        printf("FAIL: MPI_Init_thread\n");
        return 1;
    }
    if (provided >= MPI_THREAD_MULTIPLE) { /* this MPI upgraded us: nothing to refuse */
        printf("SKIP: MPI gave MPI_THREAD_MULTIPLE for MPI_THREAD_SERIALIZED\n");
        MPI_Finalize();
        return 77;
    }
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    /* capture this rank's standard error around tamm_init */
    fflush(stderr);
    FILE *cap = tmpfile();
    int saved = dup(2);
    dup2(fileno(cap), 2);
    int rc = tamm_init(&argc, &argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char msg[4096];
    rewind(cap);
    size_t n = fread(msg, 1, sizeof msg - 1, cap);
    msg[n] = 0;
    fclose(cap);

    char want[160];
    snprintf(want, sizeof want, "MPI was initialised by the program with thread level %d; the runtime needs "
                                "MPI_THREAD_MULTIPLE", provided);
    int fails = 0;
    if (rc != TAMM_ECOMM) {
        printf("rank %d: FAIL: tamm_init returned %d, expected TAMM_ECOMM (%d)\n", rank, rc, TAMM_ECOMM);
        fails++;
    }
    if (!strstr(msg, want)) {
        printf("rank %d: FAIL: the message lacks \"%s\"; it was: %s\n", rank, want, msg);
        fails++;
    }
    if (!fails) printf("rank %d: OK: %s", rank, msg);
    if (rc == TAMM_OK) tamm_finalize();
    MPI_Finalize();
    return fails ? 1 : 0;
}
