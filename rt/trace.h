/*
 * trace.h — observability: TAMM_TRACE (Chrome trace-event JSON: a track per
 * worker, tasks by label, dependence arrows), TAMM_DAG (Graphviz) and
 * TAMM_STATS (a summary at finalize).  Recording costs nothing when off.
 */
#ifndef TAMM_TRACE_H
#define TAMM_TRACE_H

#include <stdint.h>

struct tamm_worker;

/** A task was submitted (recording only). */
void tamm__trace_node(uint64_t id, const char *label, uint64_t parent);
/** Task id ran on worker w from t0 to t1 (ns). */
void tamm__trace_event(struct tamm_worker *w, uint64_t id, uint64_t t0, uint64_t t1);
/** Write the files and the summary asked for by the configuration. */
void tamm__trace_finish(void);

#endif
