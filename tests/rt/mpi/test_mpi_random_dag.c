/*
 * test_mpi_random_dag.c — the randomised differential test of
 * test_random_dag.c on every rank of an MPI run (tests/rt/mpi/CMakeLists.txt
 * runs it at 1, 2, 3 and 4 ranks): the same random programs (integer blocks,
 * slices, whole tensors, all access modes, cancellable and temp buffers,
 * top-level tamm_block updates, waits and barriers), with one top-level task
 * in six placed by on(r).  Every rank gathers every tensor and compares it
 * bit for bit with the sequential reference; the hash of what each task read
 * is combined over the ranks and compared too.
 */
#define RANDOM_MPI 1
#include "../test_random_dag.c"
