/*
 * gen_random_fns.h — the helper functions and the recursive task function that
 * the random programs of gen_random_program.c call (gen_random_fns.c).
 */
#ifndef GEN_RANDOM_FNS_H
#define GEN_RANDOM_FNS_H

/* the helpers a program may call; used[H_x] says whether it does */
enum {
    H_SUM, H_FILL, H_FILL2, H_ACCUM, H_ADDC, H_SUB, H_UPDATE, H_SCALE, H_TWICE, H_COPY, H_AT, H_REC, H_COUNT
};

/** Print the definitions of the helpers whose used[H_x] is set (used: H_COUNT flags). */
void gen_emit_helpers(const int *used);
/** Choose whether the program has a recursive task function, and its shape,
 *  drawing from rint (a number in [0, n)). */
void gen_rec_choose(int (*rint)(int n));
/** Print the recursive task function rec_fn, if gen_rec_choose chose one. */
void gen_rec_emit_function(void);
/** Print, as a statement of main, the block that creates rec_fn's tensors, calls
 *  it, waits and prints their checksum, if gen_rec_choose chose one. */
void gen_rec_emit_call(void);

#endif
