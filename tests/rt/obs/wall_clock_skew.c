/*
 * wall_clock_skew.c — an LD_PRELOAD shim for trace_mpi_skew: on the rank named by
 * TAMM_TEST_SKEW_RANK (Open MPI's OMPI_COMM_WORLD_RANK), CLOCK_REALTIME reads
 * TAMM_TEST_SKEW_MS milliseconds late, as a rank preempted between two clock reads
 * or a wall clock stepped by NTP would see it.  Ranks on one node share the
 * monotonic clock, so the merged trace must not depend on the wall clock: with the
 * skew, no message may arrive before it was sent.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int clock_gettime(clockid_t id, struct timespec *ts)
{
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int rc = real(id, ts);
    const char *want = getenv("TAMM_TEST_SKEW_RANK"), *me = getenv("OMPI_COMM_WORLD_RANK");
    const char *ms = getenv("TAMM_TEST_SKEW_MS");
    if (rc == 0 && id == CLOCK_REALTIME && want && me && ms && strcmp(want, me) == 0) {
        long long ns = (long long)ts->tv_nsec + atoll(ms) * 1000000LL;
        ts->tv_sec += (time_t)(ns / 1000000000LL);
        ts->tv_nsec = (long)(ns % 1000000000LL);
    }
    return rc;
}
