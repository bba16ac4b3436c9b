/*
 * gen_macro_idiom.h — the preprocessor idiom of code bases that wrap or select
 * their OpenMP pragmas, applied to a program of gen_random_program: directives
 * behind macros (`_Pragma(#x)`, a loop macro ending in `_Pragma("tamm task")`,
 * a macro that is a whole task statement), block references behind macros, and
 * directives chosen by `#ifdef` / `#if !defined(_OPENMP)`.  The rewritten
 * program means the same as the original.
 */
#ifndef GEN_MACRO_IDIOM_H
#define GEN_MACRO_IDIOM_H

/** The macro definitions gen_macro_idiom's output uses (printed once, after the
 *  includes and before the helpers: TASK_FILL calls h_fill). */
extern const char gen_macro_defs[];

/** Rewrite text (lines of the body of main) with the idiom: some `#pragma tamm
 *  task` / `taskwait` lines behind GEN_PRAGMA, #ifdef or #if, some initial fill
 *  loops as PARFOR_DECL or TASK_FILL, some tamm_block calls as BLK / BLOCK_OF.
 *  Choices come from rint (a value in [0, n)).  Returns a new string (the
 *  caller frees it). */
char *gen_macro_idiom(const char *text, int (*rint)(int n));

#endif
