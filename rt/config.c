/* config.c — reading and validating the TAMM_* environment variables. */
#include "config.h"
#include "error.h"
#include <tamm.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int bad(const char *var, const char *val, const char *expected)
{
    fprintf(stderr, "tamm: error: %s: invalid value '%s' (expected %s)\n", var, val, expected);
    return TAMM_EINVAL;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static int parse_bool(const char *var, int *out)
{
    const char *s = getenv(var);
    if (!s) return TAMM_OK;
    if (!strcmp(s, "0") || !strcmp(s, "") ) { *out = 0; return TAMM_OK; }
    if (!strcmp(s, "1")) { *out = 1; return TAMM_OK; }
    return bad(var, s, "0 or 1");
}

int tamm__parse_size(const char *s, size_t *out, double *pct)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)s[0])) return -1;
    double v = strtod(s, &end);
    if (errno || end == s) return -1;
    if (*end == '%' && end[1] == 0) {
        if (v <= 0 || v > 100) return -1;
        *pct = v;
        *out = 0;
        return 0;
    }
    double mul = 1;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': mul = 1024.0; break;
        case 'M': mul = 1024.0 * 1024; break;
        case 'G': mul = 1024.0 * 1024 * 1024; break;
        case 'T': mul = 1024.0 * 1024 * 1024 * 1024; break;
        default: return -1;
        }
        end++;
        if (*end == 'B' || *end == 'b') end++;
        if (*end) return -1;
    }
    double bytes = v * mul;
    if (bytes < 1 || bytes > 1e19) return -1;
    *out = (size_t)bytes;
    if (pct) *pct = 0;
    return 0;
}

int tamm__config_read(tamm_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    cfg->num_workers = ncpu > 0 ? (int)ncpu : 1;
    cfg->num_gpus = -1;
    const char *s;
    long v;
    int rc;

    if ((s = getenv("TAMM_NUM_WORKERS"))) {
        if (parse_int(s, 1, 1024, &v)) return bad("TAMM_NUM_WORKERS", s, "an integer from 1 to 1024");
        cfg->num_workers = (int)v;
    }
    if ((s = getenv("TAMM_NUM_GPUS"))) {
        if (parse_int(s, 0, 64, &v)) return bad("TAMM_NUM_GPUS", s, "an integer from 0 to 64");
        cfg->num_gpus = (int)v;
    }
    if ((s = getenv("TAMM_SCHED"))) {
        if (!strcmp(s, "ws") || !strcmp(s, "")) cfg->sched = TAMM_SCHED_WS;
        else if (!strcmp(s, "fifo") || !strcmp(s, "eager")) cfg->sched = TAMM_SCHED_FIFO;
        else if (!strcmp(s, "prio") || !strcmp(s, "priority")) cfg->sched = TAMM_SCHED_PRIO;
        else return bad("TAMM_SCHED", s, "ws, fifo or prio");
    }
    if ((rc = parse_bool("TAMM_SEQUENTIAL", &cfg->sequential))) return rc;
    if ((s = getenv("TAMM_ON_ERROR"))) {
        if (!strcmp(s, "abort") || !strcmp(s, "")) cfg->on_error = TAMM_ONERR_ABORT;
        else if (!strcmp(s, "return")) cfg->on_error = TAMM_ONERR_RETURN;
        else return bad("TAMM_ON_ERROR", s, "abort or return");
    }
    if ((rc = parse_bool("TAMM_STATS", &cfg->stats))) return rc;
    if ((s = getenv("TAMM_TRACE")) && *s) cfg->trace_file = s;
    if ((s = getenv("TAMM_DAG")) && *s) cfg->dag_file = s;
    double pct = 0;
    if ((s = getenv("TAMM_MEMORY_LIMIT")) && *s) {
        if (tamm__parse_size(s, &cfg->memory_limit, &pct))
            return bad("TAMM_MEMORY_LIMIT", s, "bytes, with an optional K/M/G suffix, or a percentage like 50%");
        if (pct > 0) {
            long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
            cfg->memory_limit = (size_t)((double)pages * (double)psz * pct / 100.0);
        }
    }
    if ((s = getenv("TAMM_CUDA_MEMORY_LIMIT")) && *s) {
        if (tamm__parse_size(s, &cfg->cuda_memory_limit, &cfg->cuda_memory_pct))
            return bad("TAMM_CUDA_MEMORY_LIMIT", s, "bytes, with an optional K/M/G suffix, or a percentage like 50%");
    }
    if (cfg->sequential) cfg->num_workers = 1;
    return TAMM_OK;
}
