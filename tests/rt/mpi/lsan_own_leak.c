/*
 * lsan_own_leak.c — a program that loses 77 bytes of its own between tamm_init and
 * tamm_finalize, run on 2 ranks in the ASan build (lsan_own_leak.sh): LeakSanitizer must report
 * them on every rank, although the runtime has it ignore Open MPI's allocations inside
 * MPI_Init_thread and MPI_Finalize (rt/mpi/mpi_comm.c).
 */
#include <tamm.h>

#include <stdio.h>
#include <stdlib.h>

static char *volatile held;

int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    held = malloc(77);
    if (!held) return 1;
    held[0] = 1;
    held = NULL; /* the only pointer to the 77 bytes is gone */
    printf("lsan_own_leak: rank %d of %d\n", tamm_rank(), tamm_nranks());
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
