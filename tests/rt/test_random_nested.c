/*
 * test_random_nested.c — randomised differential test of nested tasks.
 *
 * The generator, reference and driver are those of test_random_dag.c, built
 * with RANDOM_NESTED=1: top-level tasks often hold permissions (blocks,
 * slices, whole tensors, PERMISSION_ONLY refs) and submit 1-5 children through
 * their ctx (tamm_submit(ctx, &child)), sometimes two levels deep.  Each
 * child's refs lie within its parent's permissions as docs/runtime.md defines
 * them (parent WRITE covers READ/WRITE/READWRITE/ACCUM, ACCUM covers ACCUM,
 * READ covers READ).  A parent's own accesses (before, between or after its
 * submissions) touch only blocks that no descendant names, so they are
 * unordered with the children without a race.  The sequential reference runs
 * each child inline at its submission point.  The checks: every tensor bit
 * for bit, and the hash of every value each task (parent or child) read, at
 * TAMM_NUM_WORKERS = 1, 2, 4, 8 and with TAMM_SCHED=fifo/prio and
 * TAMM_SEQUENTIAL=1 for some seeds.  See test_random_dag.c for the options.
 */
#define RANDOM_NESTED 1
#include "test_random_dag.c"
