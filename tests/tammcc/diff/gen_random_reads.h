/*
 * gen_random_reads.h — the part of gen_random_program that writes tasks reading data outside
 * tensors (a struct member through a pointer, a global scalar, an element of a global array,
 * *q) that the top level changes after the submission (rule 40 of docs/language.md).  Its
 * choices come from a random stream of its own, so that a seed's program is otherwise the one
 * it was before these statements existed.
 */
#ifndef GEN_RANDOM_READS_H
#define GEN_RANDOM_READS_H

/** A tensor of the program, as the statements name its blocks. */
typedef struct {
    const char *name;   /* its variable in main */
    int ndim;           /* 1 or 2 */
    long nb[2];         /* blocks per dimension */
} gr_tensor;

/** Start the stream for the program of `seed`. */
void gr_seed(unsigned long long seed);
/** Maybe (by the stream) a top-level statement of main, indented by `ind` levels, over one
 *  block of one of the ntens tensors: a task that reads such data, then a change of that data
 *  with no taskwait between where tammcc reads it at submission, or after a taskwait where it
 *  does not.  Returns the text (caller frees), or NULL for no statement this time. */
char *gr_stmt(const gr_tensor *tens, int ntens, int ind);
/** Print the file-scope declarations the statements use (nothing if none was written). */
void gr_globals(void);

#endif
