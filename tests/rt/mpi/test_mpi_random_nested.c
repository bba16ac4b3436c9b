/*
 * test_mpi_random_nested.c — test_random_nested.c over MPI ranks: top-level
 * tasks with permissions on slices and whole tensors that submit nested
 * children (which run on their parent's rank, on the parent's copies of
 * remote blocks), compared bit for bit with the sequential reference.
 */
#define RANDOM_MPI 1
#define RANDOM_NESTED 1
#include "../test_random_dag.c"
