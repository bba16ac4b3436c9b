/*
 * frames.h — pointers into a parent's frame (docs/language.md, "Pointers into a
 * parent's frame").  In the plain build a child runs at once, while its parent's
 * locals are alive; with tammcc the child runs later, after the outlined body of
 * its parent has returned.  A task whose children may reach memory of its own
 * frame (a nested task captures a pointer declared in its body, or its body
 * passes a pointer to its locals or to its captured copies to a task function)
 * waits for its children at the end of its body and before each continuation
 * (cc_task.frame_why, lowered by emit_c.c to tamm_cc_taskwait).  A task in a
 * function other than main that captures a pointer local of that function, or a
 * call there of a function that submits tasks with a pointer to a local, with no
 * taskwait after it in that function, is warned about: it may return first.
 */
#ifndef TAMMCC_FRAMES_H
#define TAMMCC_FRAMES_H

#include "pragma.h"

/** Decide whether t waits for its children before its frame goes (sets
 *  t->frame_why, the reason, or leaves it NULL) and warn about a task that
 *  captures a pointer into the frame of a function that may return before it
 *  runs.  After cc_capture and cc_taskfn_infer (it reads t->cap, the kids'
 *  captures and t->tfcall). */
void cc_frames(cc_unit *u, cc_task *t);
/** A call, in function fn outside its tasks, of a function that submits tasks:
 *  warn if fn is not main, passes a pointer that may point into its own frame
 *  (to a local, or to a parameter's copy) and has no taskwait after the call. */
void cc_frames_call(cc_unit *u, cc_node *fn, cc_node *call);

#endif
