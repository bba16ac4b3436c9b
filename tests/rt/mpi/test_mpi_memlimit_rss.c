/*
 * test_mpi_memlimit_rss.c — TAMM_MEMORY_LIMIT bounds each rank's resident
 * block memory, homes and copies of other ranks' blocks together (issue 19,
 * item 5; docs/runtime.md "Block memory"): tests/rt/core/test_memlimit.c's cases with
 * every child an MPI run of $TAMM_TEST_RANKS ranks.  The computation (64.5 MiB
 * over 3 tensors of 512 KiB blocks, block-cyclic: every rank reads copies of
 * the other ranks' Y blocks and accumulates into a copy of S) is run under
 * 8 MiB per rank, 4x below what each of 2 ranks owns: the largest rank's
 * maxrss stays below the limit + the baseline of an empty MPI run + 8 MiB,
 * results equal the sequential reference and the run without a limit; a limit
 * just above the largest task's 1.5 MiB neither deadlocks nor livelocks; a
 * task larger than the limit is TAMM_ENOMEM, no hang.
 */
#define MEMLIMIT_MPI 1
#define LIMIT_MB 8
#include "../core/test_memlimit.c"
