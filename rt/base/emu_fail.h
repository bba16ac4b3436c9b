/*
 * emu_fail.h — the grammar of TAMM_CUDA_EMU_FAIL, the emulated device's fault
 * injection: "call:n[:sticky],..." makes the n-th call of that name fail (and,
 * sticky, every later call, as after a device fault).  Base owns the grammar so
 * that reading the configuration (config.c) validates it without the device;
 * the emulated device (gpu/devops_emu.c) loads the table from it.
 */
#ifndef TAMM_EMU_FAIL_H
#define TAMM_EMU_FAIL_H

/** The emulated device's calls that can be made to fail, in the order of
 *  tamm__emu_call_names. */
enum {
    TAMM_EMU_ALLOC, TAMM_EMU_FREE, TAMM_EMU_HOST_ALLOC, TAMM_EMU_STREAM_CREATE, TAMM_EMU_EVENT_CREATE,
    TAMM_EMU_H2D, TAMM_EMU_D2H, TAMM_EMU_D2D, TAMM_EMU_ZERO, TAMM_EMU_RECORD, TAMM_EMU_WAIT, TAMM_EMU_QUERY,
    TAMM_EMU_LAUNCH, TAMM_EMU_BLAS_CREATE, TAMM_EMU_NCALLS
};
/** Their names in TAMM_CUDA_EMU_FAIL ("alloc", "free", ...). */
extern const char *const tamm__emu_call_names[TAMM_EMU_NCALLS];

/** One fault: the nth call (from 1) of call fails; sticky: and every call after it. */
typedef struct tamm__emu_fault {
    int call;
    long nth;
    int sticky;
} tamm__emu_fault;
#define TAMM_EMU_MAX_FAULTS 16

/** Parse a TAMM_CUDA_EMU_FAIL value (NULL or "": no fault).  Returns the number
 *  of faults, written to out[] when out is not NULL (room for
 *  TAMM_EMU_MAX_FAULTS), or -1 if the value does not follow the grammar. */
int tamm__emu_fail_parse(const char *s, tamm__emu_fault *out);

#endif
